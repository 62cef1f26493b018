"""Reading run files (docs/hdf5-layout.md, format version 2) into cradle.data
objects: the same code for chains and pools."""
import h5py
import numpy as np

from .data import Collision, Episode, Run

FORMAT_VERSION = 2


def _attrs(obj):
    out = {}
    for k, v in obj.attrs.items():
        if isinstance(v, bytes):
            v = v.decode()
        elif isinstance(v, np.generic):
            v = v.item()
        out[k] = v
    return out


def _tree(g):
    """A group as nested dicts of numpy arrays, attributes under "attrs"."""
    out = {"attrs": _attrs(g)}
    for k, v in g.items():
        out[k] = _tree(v) if isinstance(v, h5py.Group) else v[()]
    return out


def _array(f, name, shape=None, dtype=float):
    if name in f:
        return f[name][()]
    return np.zeros(shape if shape is not None else (0,), dtype=dtype)


def _episode(f, row, dim):
    g = f["episode/%04d" % row["index"]]
    W = None
    if "W" in g:
        W = {"row": g["W/row"][()], "col": g["W/col"][()], "value": g["W/value"][()],
             "shape": tuple(int(x) for x in g["W"].attrs["shape"])}
    return Episode(
        index=int(row["index"]), t_start=float(row["t_start"]), t_end=float(row["t_end"]),
        reference=int(row["reference"]), reference_record=int(row["reference_record"]),
        T_minus=float(row["T_minus"]), T_plus=float(row["T_plus"]), kappa=float(row["kappa"]),
        field_work=float(row["field_work"]), dissipated=float(row["dissipated"]),
        complete=bool(row["complete"]),
        bodies=g["bodies"][()], mass=g["mass"][()],
        velocity_before=g["velocity_before"][()].reshape(-1, dim),
        velocity_after=g["velocity_after"][()].reshape(-1, dim),
        contacts=g["contacts"][()],
        vector_impulse=g["vector_impulse"][()].reshape(-1, dim),
        normal=g["normal"][()].reshape(-1, dim),
        events=g["events"][()] if "events" in g else np.zeros(0, np.int64),
        M_diagonal=g["M_diagonal"][()] if "M_diagonal" in g else None, W=W)


def _collisions(f, dim):
    if "collisions" not in f:
        return [], float("nan"), float("nan")
    d = f["collisions"]
    table = d[()]
    g = f["collision"] if "collision" in f else {}
    eps = g["episodes"][()] if "episodes" in g else np.zeros(0, np.int64)
    bodies = g["bodies"][()] if "bodies" in g else np.zeros(0, np.int64)
    u0 = g["velocity_before"][()].reshape(-1, dim) if "velocity_before" in g else np.zeros((0, dim))
    u1 = g["velocity_after"][()].reshape(-1, dim) if "velocity_after" in g else np.zeros((0, dim))
    rec = g["contacts"][()] if "contacts" in g else np.zeros(0)
    vec = g["vector_impulse"][()].reshape(-1, dim) if "vector_impulse" in g else np.zeros((0, dim))
    out = []
    for r in table:
        e = slice(int(r["episode_offset"]), int(r["episode_offset"] + r["episode_count"]))
        b = slice(int(r["body_offset"]), int(r["body_offset"] + r["body_count"]))
        c = slice(int(r["contact_offset"]), int(r["contact_offset"] + r["contact_count"]))
        out.append(Collision(
            index=int(r["index"]), t_start=float(r["t_start"]), t_end=float(r["t_end"]),
            reference=int(r["reference"]), reference_record=int(r["reference_record"]),
            T_minus=float(r["T_minus"]), T_plus=float(r["T_plus"]), kappa=float(r["kappa"]),
            field_work=float(r["field_work"]), dissipated=float(r["dissipated"]),
            complete=bool(r["complete"]), episodes=eps[e], bodies=bodies[b],
            velocity_before=u0[b], velocity_after=u1[b], contacts=rec[c], vector_impulse=vec[c]))
    return out, float(d.attrs.get("window", np.nan)), float(d.attrs.get("free_flight", np.nan))


def read(path):
    """Reads a run file written by cradle (a chain or a pool) into a cradle.Run."""
    with h5py.File(path, "r") as f:
        a = _attrs(f)
        if a.get("format_version") != FORMAT_VERSION:
            raise ValueError("%s: format_version %s, this reader knows %d"
                             % (path, a.get("format_version"), FORMAT_VERSION))
        m = f["model"]
        dim, n = int(m.attrs["dim"]), int(m.attrs["body_count"])
        t = f["trajectory/time"][()]
        T = len(t)
        tr = f["trajectory"]
        series = {k: (tr[k][()] if k in tr else None) for k in ("overlap", "force", "impulse")}
        ev = f["events"]
        kinds = h5py.check_enum_dtype(ev.dtype.fields["kind"][0]) or {}
        episodes = [_episode(f, row, dim) for row in f["episodes"][()]]
        collisions, window, ff = _collisions(f, dim)
        text = m["text"].asstr()[()] if "text" in m else ""
        return Run(
            path=str(path), attrs=a, kind=str(m.attrs["kind"]), dim=dim,
            name=str(a.get("model_name", "")), model_text=text,
            mass=m["mass"][()], radius=m["radius"][()], fixed=m["fixed"][()],
            position0=m["position0"][()].reshape(n, dim), velocity0=m["velocity0"][()].reshape(n, dim),
            gravity=m["gravity"][()], wall_normal=_array(m, "wall_normal", (0, dim)).reshape(-1, dim),
            wall_offset=_array(m, "wall_offset"),
            time=t, position=tr["position"][()].reshape(T, n, dim),
            velocity=tr["velocity"][()].reshape(T, n, dim),
            kinetic_energy=tr["kinetic_energy"][()], potential_energy=tr["potential_energy"][()],
            dissipated_work=tr["dissipated_work"][()],
            overlap=series["overlap"], force=series["force"], impulse=series["impulse"],
            final_time=float(f["final/time"][()]) if "final" in f else float("nan"),
            final_position=f["final/position"][()].reshape(n, dim) if "final" in f else None,
            final_velocity=f["final/velocity"][()].reshape(n, dim) if "final" in f else None,
            contacts=f["contacts"][()] if "contacts" in f else None,
            events=ev[()], event_kinds=dict(kinds), episodes=episodes, collisions=collisions,
            collision_window=window, free_flight=ff,
            comparison=_tree(f["comparison"]) if "comparison" in f else None)
