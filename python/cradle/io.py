"""Reading run files (docs/hdf5-layout.md, format versions 2 and 3) into
cradle.data objects: the same code for chains and pools. A format 3 file may
hold a chosen part of the trajectory (output.fields, output.bodies): the
Run's arrays keep their full shapes, NaN where nothing was written.

A file is untrusted input (docs/errors.md, "Files cradle reads back"): every
dataset's shape is checked against the records that describe it before it
is read, sizes against a cap, and any failure is one ValueError naming the
file and the dataset. HDF5 1.10 itself can crash or loop on some damaged
files (a variable-length string's heap, attribute tables, B-trees); no
check made through h5py can see those bytes first, so by default the file
is read in a child process: a crash or a hang there is a ValueError here,
never the end of the caller's interpreter.
"""
import multiprocessing
import os
import time

import h5py
import numpy as np

from .data import Collision, Episode, Run

FORMAT_VERSION = 3       # the newest layout this reader knows
FORMAT_OLDEST = 2        # the oldest (3 adds the chosen output; docs/hdf5-layout.md)

# Seconds a read in the child process may take: READ_SECONDS plus one second
# per READ_BYTES_PER_SECOND of file (a legitimate 1 GB run file reads in ~10 s
# on the development VM; HDF5's loops on damaged files never end, and a
# byte-flipped 80 KB file is read or refused in < 0.2 s).
READ_SECONDS = 20.0
READ_BYTES_PER_SECOND = 20e6


class _Bad(Exception):
    """A check that failed: its text is the part after "PATH: "."""


class _Said(ValueError):
    """A failure whose text names the file already (the C readers' messages)."""


def one_line(e):
    """An exception as one line of text (h5py's messages span several)."""
    s = " ".join(str(e).split())
    return (s[:300] + "...") if len(s) > 300 else (s or type(e).__name__)


def _memory_cap():
    """Bytes one dataset may take when read: the machine's memory (a damaged
    dataspace claims terabytes; numpy would try)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 1 << 34


_CAP = _memory_cap()


def _dataset(f, name, shape=None, kind="number", optional=False):
    """f[name] read after checks: a dataset, numbers (or strings, or a
    compound table), the shape given (None: any; -1: any length on that
    axis), and a size that fits in memory."""
    if name not in f:
        if optional:
            return None
        raise _Bad("/%s: missing" % name)
    d = f[name]
    if not isinstance(d, h5py.Dataset):
        raise _Bad("/%s: not a dataset" % name)
    dt = d.dtype
    ok = {"number": dt.kind in "iufb" and dt.names is None,
          "table": dt.names is not None,
          "string": dt.kind in "SO"}[kind]
    if not ok:
        raise _Bad("/%s: holds %s, not %s" % (name, dt, {"number": "numbers", "table": "a table",
                                                          "string": "strings"}[kind]))
    if shape is not None:
        want = tuple(shape)
        if len(d.shape) != len(want) or any(w >= 0 and w != s for w, s in zip(want, d.shape)):
            raise _Bad("/%s: shape %s where %s is expected" % (name, d.shape, want))
    if int(np.prod(d.shape, dtype=np.float64)) * max(dt.itemsize, 1) > _CAP:
        raise _Bad("/%s: shape %s: larger than this machine's memory" % (name, d.shape))
    return d[()]


def _columns(table, name, needed):
    missing = [c for c in needed if c not in table.dtype.names]
    if missing:
        raise _Bad("/%s: no column %s" % (name, ", ".join(missing)))


def _attrs(obj):
    out = {}
    for k, v in obj.attrs.items():
        if isinstance(v, bytes):
            v = v.decode(errors="replace")
        elif isinstance(v, np.generic):
            v = v.item()
        out[k] = v
    return out


def _int_attr(obj, where, key, lo, hi):
    if key not in obj.attrs:
        raise _Bad("%s: attribute '%s' missing" % (where, key))
    v = obj.attrs[key]
    if not (isinstance(v, (int, np.integer)) and lo <= int(v) <= hi):
        raise _Bad("%s: attribute '%s' is %r (an integer from %d to %d)" % (where, key, v, lo, hi))
    return int(v)


def _tree(g, path):
    """A group as nested dicts of numpy arrays, attributes under "attrs"."""
    out = {"attrs": _attrs(g)}
    for k, v in g.items():
        name = "%s/%s" % (path, k)
        out[k] = _tree(v, name) if isinstance(v, h5py.Group) else \
            _dataset(g.file, name, kind="table" if v.dtype.names else
                     "string" if v.dtype.kind in "SO" else "number")
    return out


EPISODE_COLUMNS = ("index", "t_start", "t_end", "body_count", "contact_count", "reference",
                   "reference_record", "T_minus", "T_plus", "kappa", "field_work", "dissipated",
                   "complete")
COLLISION_COLUMNS = ("index", "episode_offset", "episode_count", "body_offset", "body_count",
                     "contact_offset", "contact_count", "reference", "reference_record",
                     "t_start", "t_end", "T_minus", "T_plus", "kappa", "field_work",
                     "dissipated", "complete")


def _episode(f, k, row, dim, n):
    """/episode/NNNN of row k of /episodes, each dataset's shape from the row."""
    if int(row["index"]) != k:
        raise _Bad("/episodes row %d: index %d" % (k, int(row["index"])))
    B, R = int(row["body_count"]), int(row["contact_count"])
    if not (1 <= B <= n and 0 <= R <= 10 ** 7):
        raise _Bad("/episodes row %d: %d bodies, %d contacts (the model has %d bodies)"
                   % (k, B, R, n))
    if not 0 <= int(row["reference_record"]) < max(R, 1):
        raise _Bad("/episodes row %d: reference_record %d of %d records"
                   % (k, int(row["reference_record"]), R))
    g = "episode/%04d" % k
    if g not in f:
        raise _Bad("/%s: missing (the file lists %d episodes)" % (g, len(f["episodes"])))
    bodies = _dataset(f, g + "/bodies", (B,))
    if len(bodies) and (bodies.min() < 0 or bodies.max() >= n or np.any(np.diff(bodies) <= 0)):
        raise _Bad("/%s/bodies: not increasing bodies of the model (0 to %d)" % (g, n - 1))
    contacts = _dataset(f, g + "/contacts", (R,), "table")
    _columns(contacts, g + "/contacts", ("contact", "body_a", "body_b", "impulse", "alpha"))
    W = None
    if g + "/W" in f:
        nw = f[g + "/W/value"].shape[0] if g + "/W/value" in f else -1
        shape = f[g + "/W"].attrs.get("shape")
        if shape is None or len(shape) != 2 or nw < 0:
            raise _Bad("/%s/W: no shape attribute or no values" % g)
        W = {"row": _dataset(f, g + "/W/row", (nw,)), "col": _dataset(f, g + "/W/col", (nw,)),
             "value": _dataset(f, g + "/W/value", (nw,)),
             "shape": tuple(int(x) for x in shape)}
        if nw and (W["row"].min() < 0 or W["row"].max() >= W["shape"][0] or
                   W["col"].min() < 0 or W["col"].max() >= W["shape"][1]):
            raise _Bad("/%s/W: an index outside its shape %s" % (g, W["shape"]))
    return Episode(
        index=k, t_start=float(row["t_start"]), t_end=float(row["t_end"]),
        reference=int(row["reference"]), reference_record=int(row["reference_record"]),
        T_minus=float(row["T_minus"]), T_plus=float(row["T_plus"]), kappa=float(row["kappa"]),
        field_work=float(row["field_work"]), dissipated=float(row["dissipated"]),
        complete=bool(row["complete"]), bodies=bodies,
        mass=_dataset(f, g + "/mass", (B,)),
        velocity_before=_dataset(f, g + "/velocity_before", (B, dim)),
        velocity_after=_dataset(f, g + "/velocity_after", (B, dim)),
        contacts=contacts,
        vector_impulse=_dataset(f, g + "/vector_impulse", (R, dim)),
        normal=_dataset(f, g + "/normal", (R, dim)),
        events=_dataset(f, g + "/events", (-1,), optional=True)
        if g + "/events" in f else np.zeros(0, np.int64),
        M_diagonal=_dataset(f, g + "/M_diagonal", (-1,), optional=True), W=W)


def _collisions(f, dim, nep):
    if "collisions" not in f:
        return [], float("nan"), float("nan")
    table = _dataset(f, "collisions", (-1,), "table")
    _columns(table, "collisions", COLLISION_COLUMNS)
    d = f["collisions"]
    g = "collision/"
    has = lambda k: ("collision/" + k) in f  # noqa: E731
    eps = _dataset(f, g + "episodes", (-1,)) if has("episodes") else np.zeros(0, np.int64)
    bodies = _dataset(f, g + "bodies", (-1,)) if has("bodies") else np.zeros(0, np.int64)
    nb, ne = len(bodies), len(eps)
    u0 = _dataset(f, g + "velocity_before", (nb, dim)) if has("velocity_before") else \
        np.zeros((0, dim))
    u1 = _dataset(f, g + "velocity_after", (nb, dim)) if has("velocity_after") else \
        np.zeros((0, dim))
    rec = _dataset(f, g + "contacts", (-1,), "table") if has("contacts") else np.zeros(0)
    nr = len(rec)
    vec = _dataset(f, g + "vector_impulse", (nr, dim)) if has("vector_impulse") else \
        np.zeros((0, dim))
    if ne and (eps.min() < 0 or eps.max() >= nep):
        raise _Bad("/collision/episodes: a row outside /episodes (%d rows)" % nep)
    out = []
    for k, r in enumerate(table):
        spans = (("episode", ne), ("body", nb), ("contact", nr))
        for what, n in spans:
            o, c = int(r[what + "_offset"]), int(r[what + "_count"])
            if o < 0 or c < 0 or o + c > n:
                raise _Bad("/collisions row %d: %s rows %d .. %d of %d" % (k, what, o, o + c, n))
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


def _text(f, name):
    if name not in f:
        return ""
    d = f[name]
    if not isinstance(d, h5py.Dataset) or d.dtype.kind not in "SO" or d.shape != ():
        raise _Bad("/%s: not a string" % name)
    if d.dtype.kind == "S" and d.dtype.itemsize > 64 << 20:
        raise _Bad("/%s: a string of %d bytes (at most 64 MiB)" % (name, d.dtype.itemsize))
    return d.asstr(errors="replace")[()]


def c_check(path, kind):
    """The C readers' checks of docs/errors.md (libcradle through ctypes, when
    it can be loaded: the same checks and messages as `cradle compare RUN` or
    `cradle table`), made before h5py opens the file: they include our own
    parse of the HDF5 structures HDF5 decodes without bounds (variable-length
    strings' heaps, attribute and datatype messages). kind: "run" (every
    episode read) or "sweep". Raises _Bad with the C reader's message."""
    try:
        from . import lib
        L = lib.library()
    except Exception:  # noqa: B902 - no libcradle here: h5py's checks only
        return
    import ctypes as C
    msg = C.create_string_buffer(1024)
    p = os.fsencode(path)
    if kind == "run":
        op, cl = L.cr_run_file_open, L.cr_run_file_close
        op.restype, op.argtypes = C.c_void_p, [C.c_char_p, C.c_char_p, C.c_size_t]
        cl.restype, cl.argtypes = None, [C.c_void_p]
        count, episode, last = (L.cr_run_file_episode_count, L.cr_run_file_episode,
                                L.cr_run_file_last_error)
        count.restype, count.argtypes = C.c_size_t, [C.c_void_p]
        episode.restype = C.c_int
        episode.argtypes = [C.c_void_p, C.c_size_t, C.c_void_p, C.c_void_p]
        last.restype, last.argtypes = C.c_char_p, [C.c_void_p]
        f = op(p, msg, len(msg))
        if not f:
            raise _Said(msg.value.decode(errors="replace"))
        try:
            data = C.create_string_buffer(1024)  # a cr_episode_data, not looked into
            for k in range(count(f)):
                if episode(f, k, data, None) != 0:
                    raise _Said(last(f).decode(errors="replace"))
        finally:
            cl(f)
    else:
        op, cl = L.cr_sweep_output_open, L.cr_sweep_output_close
        op.restype, op.argtypes = C.c_void_p, [C.c_char_p, C.c_char_p, C.c_size_t]
        cl.restype, cl.argtypes = None, [C.c_void_p]
        t = op(p, msg, len(msg))
        if not t:
            raise _Said(msg.value.decode(errors="replace"))
        cl(t)


def _finite(a, where, lo=None):
    a = np.asarray(a, float)
    if a.size and (not np.all(np.isfinite(a)) or (lo is not None and np.any(a < lo))):
        raise _Bad("%s: a value that is not a finite number%s" % (where, "" if lo is None else
                                                                   " >= %g" % lo))


PEAK_COLUMNS = ("contact", "episodes", "peak_force", "peak_force_time", "peak_force_episode",
                "peak_overlap", "duration")


def _check_peaks(c, g, t0, t1):
    """The located peaks of an episode's records (as the C reader checks
    them): forces and overlaps not negative, the peak's time and the loaded
    time within the episode (NaN time: never loaded)."""
    _columns(c, g + "/contacts", ("peak_force", "peak_overlap", "peak_force_time", "duration"))
    slack = 1e-9 * (abs(t0) + abs(t1))
    _finite(c["peak_force"], g + "/contacts peak_force", 0.0)
    _finite(c["peak_overlap"], g + "/contacts peak_overlap", 0.0)
    _finite(c["duration"], g + "/contacts duration", 0.0)
    t = c["peak_force_time"]
    t = t[~np.isnan(t)]
    if np.any(c["duration"] > t1 - t0 + slack) or np.any((t < t0 - slack) | (t > t1 + slack)):
        raise _Bad("%s/contacts: a peak time or loaded time outside the episode (%g to %g s)"
                   % (g, t0, t1))


def _contact_peaks(f, nc, nep):
    """/contact_peaks (optional: files before the located peaks have none),
    one row per row of /contacts, checked."""
    p = _dataset(f, "contact_peaks", (max(nc, 0),), "table", optional=True)
    if p is None:
        return None
    _columns(p, "contact_peaks", PEAK_COLUMNS)
    if np.any(p["contact"] != np.arange(len(p))):
        raise _Bad("/contact_peaks: rows not numbered as /contacts")
    if np.any((p["episodes"] < 0) | (p["episodes"] > nep)) or \
            np.any((p["peak_force_episode"] < -1) | (p["peak_force_episode"] >= nep)):
        raise _Bad("/contact_peaks: an episode count or index outside /episodes (%d rows)" % nep)
    for k in ("peak_force", "peak_overlap", "duration"):
        _finite(p[k], "/contact_peaks " + k, 0.0)
    t = p["peak_force_time"]
    if not np.all(np.isnan(t) | np.isfinite(t)):
        raise _Bad("/contact_peaks peak_force_time: not a number")
    return p


def _check_episode(e, k, n, nc, nw):
    """What the C reader checks of an episode's values (docs/errors.md)."""
    g = "/episode/%04d" % k
    m = e.mass
    if len(m) and not np.all((m == np.inf) | ((m >= 1e-100) & (m <= 1e100))):
        raise _Bad("%s/mass: a mass outside 1e-100 .. 1e100 kg (inf when fixed)" % g)
    _finite(e.velocity_before, g + "/velocity_before")
    _finite(e.velocity_after, g + "/velocity_after")
    _finite(e.vector_impulse, g + "/vector_impulse")
    if len(e.normal) and not np.all(np.abs(np.sum(e.normal ** 2, axis=1) - 1) <= 1e-6):
        raise _Bad("%s/normal: not unit vectors" % g)
    c = e.contacts
    if len(c):
        if nc >= 0 and (c["contact"].min() < 0 or c["contact"].max() >= nc):
            raise _Bad("%s/contacts: a contact outside /contacts (%d rows)" % (g, nc))
        if c["body_a"].min() < 0 or c["body_a"].max() >= n or c["body_b"].max() >= n or \
                (nw >= 0 and c["body_b"].min() < -nw):
            raise _Bad("%s/contacts: a body outside the model (%d bodies)" % (g, n))
        _finite(c["impulse"], g + "/contacts impulse")
    if len(c) and "duration" in c.dtype.names:
        _check_peaks(c, g, e.t_start, e.t_end)
    if not e.T_minus > 0 or not np.isfinite(e.T_minus):
        raise _Bad("/episodes row %d: T_minus = %g: an episode starts with kinetic energy"
                   % (k, e.T_minus))


def _indices(f, name, limit, default):
    """A strictly increasing index dataset within [0, limit), or default."""
    if name not in f:
        return default
    v = _dataset(f, name, (-1,))
    if v.dtype.kind not in "iu":
        raise _Bad("/%s: holds %s, not indices" % (name, v.dtype))
    if len(v) and (v.min() < 0 or v.max() >= limit or np.any(np.diff(v) <= 0)):
        raise _Bad("/%s: indices outside 0 .. %d or not increasing" % (name, limit - 1))
    return v.astype(np.int64)


def _trajectory(f, n, dim, nc):
    """/trajectory as full arrays: (T, n, dim) per body, (T, nc) per contact,
    NaN in the columns and fields a format 3 file did not write."""
    t = _dataset(f, "trajectory/time", (-1,), optional=True)
    t = np.zeros(0) if t is None else t    # output.fields: none
    T = len(t)
    bodies = _indices(f, "trajectory/bodies", n, np.arange(n))
    out = {"time": t}
    for k in ("position", "velocity"):
        v = _dataset(f, "trajectory/" + k, (T, len(bodies) * dim), optional=True)
        full = np.full((T, n, dim), np.nan)
        if v is not None:
            full[:, bodies, :] = v.reshape(T, len(bodies), dim)
        out[k] = full
    for k in ("kinetic_energy", "potential_energy", "dissipated_work"):
        v = _dataset(f, "trajectory/" + k, (T,), optional=True)
        out[k] = np.full(T, np.nan) if v is None else v
    # per-contact series (chains): one column per chosen row of /contacts
    cols = _indices(f, "trajectory/contacts", max(nc, 0), np.arange(max(nc, 0)))
    for k in ("overlap", "force", "impulse"):
        v = _dataset(f, "trajectory/" + k, (T, len(cols)), optional=True)
        if v is None or nc < 0:
            out[k] = v
            continue
        full = np.full((T, nc), np.nan)
        full[:, cols] = v
        out[k] = full
    return out


def _read(path):
    """The unchecked-process part of read(): every check, then the Run."""
    c_check(path, "run")
    with h5py.File(path, "r") as f:
        a = _attrs(f)
        if "kind" in a:
            raise _Bad("a file of kind '%s', not a run file" % a["kind"])
        v = a.get("format_version")
        if not isinstance(v, int) or not FORMAT_OLDEST <= v <= FORMAT_VERSION:
            raise _Bad("format_version %s, this reader knows %d to %d%s"
                       % (v, FORMAT_OLDEST, FORMAT_VERSION,
                          ": read it with a newer cradle" if isinstance(v, int) and
                          v > FORMAT_VERSION else ""))
        if "model" not in f or not isinstance(f["model"], h5py.Group):
            raise _Bad("/model: missing")
        m = f["model"]
        dim = _int_attr(m, "/model", "dim", 1, 3)
        n = _int_attr(m, "/model", "body_count", 1, 10 ** 6)
        contacts = _dataset(f, "contacts", (-1,), "table", optional=True)
        nc = len(contacts) if contacts is not None else -1
        series = _trajectory(f, n, dim, nc)
        ev = _dataset(f, "events", (-1,), "table")
        _columns(ev, "events", ("time", "contact", "kind"))
        kinds = h5py.check_enum_dtype(f["events"].dtype.fields["kind"][0]) or {}
        rows = _dataset(f, "episodes", (-1,), "table")
        _columns(rows, "episodes", EPISODE_COLUMNS)
        episodes = [_episode(f, k, row, dim, n) for k, row in enumerate(rows)]
        contacts = _dataset(f, "contacts", (-1,), "table", optional=True)
        nw = int(m.attrs.get("wall_count", -1)) if "wall_count" in m.attrs else -1
        for k, e in enumerate(episodes):
            _check_episode(e, k, n, len(contacts) if contacts is not None else -1, nw)
        collisions, window, ff = _collisions(f, dim, len(episodes))
        text = _text(f, "model/text")
        final = "final" in f
        restart = "restart" in f  # optional: files before restart states lack it
        return Run(
            path=str(path), attrs=a, kind=str(m.attrs.get("kind", "")), dim=dim,
            name=str(a.get("model_name", "")), model_text=text,
            mass=_dataset(f, "model/mass", (n,)), radius=_dataset(f, "model/radius", (n,)),
            fixed=_dataset(f, "model/fixed", (n,)),
            position0=_dataset(f, "model/position0", (n, dim)),
            velocity0=_dataset(f, "model/velocity0", (n, dim)),
            gravity=_dataset(f, "model/gravity", (dim,)),
            wall_normal=_dataset(f, "model/wall_normal", (-1, dim), optional=True)
            if "model/wall_normal" in f else np.zeros((0, dim)),
            wall_offset=_dataset(f, "model/wall_offset", (-1,), optional=True)
            if "model/wall_offset" in f else np.zeros(0),
            time=series["time"], position=series["position"], velocity=series["velocity"],
            kinetic_energy=series["kinetic_energy"],
            potential_energy=series["potential_energy"],
            dissipated_work=series["dissipated_work"],
            overlap=series["overlap"], force=series["force"], impulse=series["impulse"],
            final_time=float(_dataset(f, "final/time", ())) if final else float("nan"),
            final_position=_dataset(f, "final/position", (n, dim)) if final else None,
            final_velocity=_dataset(f, "final/velocity", (n, dim)) if final else None,
            contacts=contacts,
            events=ev, event_kinds=dict(kinds), episodes=episodes, collisions=collisions,
            collision_window=window, free_flight=ff,
            contact_peaks=_contact_peaks(f, len(contacts) if contacts is not None else -1,
                                         len(episodes)),
            comparison=_tree(f["comparison"], "comparison") if "comparison" in f else None,
            restart_time=float(_dataset(f, "restart/time", ())) if restart else float("nan"),
            restart_position=_dataset(f, "restart/position", (n, dim)) if restart else None,
            restart_velocity=_dataset(f, "restart/velocity", (n, dim)) if restart else None)


def _checked(fn, path):
    """fn(path) with every failure one ValueError naming the file."""
    try:
        return fn(path)
    except _Said as e:
        raise ValueError(str(e)) from None
    except _Bad as e:
        raise ValueError("%s: %s" % (path, e)) from None
    except (OSError, KeyError, ValueError, TypeError, IndexError, RuntimeError, MemoryError,
            OverflowError, AttributeError, UnicodeError) as e:
        raise ValueError("%s: cannot be read: %s" % (path, one_line(e))) from None


def _child(fn, path, conn):
    # what glibc or HDF5 print when they fail here is not for the caller's
    # terminal: the parent says it in one line
    try:
        os.environ["LIBC_FATAL_STDERR_"] = "1"
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)
        os.close(null)
    except OSError:
        pass
    try:
        out = ("ok", _checked(fn, path))
    except ValueError as e:
        out = ("error", str(e))
    except BaseException as e:  # noqa: B902 - whatever happens, one line to the parent
        out = ("error", "%s: cannot be read: %s" % (path, one_line(e)))
    try:
        conn.send(out)
    except BaseException as e:  # noqa: B902 - the result did not pickle or the pipe closed
        try:
            conn.send(("error", "%s: cannot be read: %s" % (path, one_line(e))))
        except BaseException:  # noqa: B902
            pass
    conn.close()
    # no interpreter exit: HDF5's exit handler may crash on a damaged file it had open
    os._exit(0)


def text_of(v):
    """An attribute's text: bytes decoded (undecodable bytes replaced), else str()."""
    return v.decode(errors="replace") if isinstance(v, bytes) else str(v)


def _kind(path):
    with h5py.File(path, "r") as f:
        return text_of(f.attrs.get("kind", ""))


def file_kind(path):
    """The root attribute `kind` of an HDF5 file ("sweep", "fit", ...), read
    in a child process as every read is (docs/errors.md); "" when the file
    cannot be read or has none."""
    try:
        return isolated(_kind, path, timeout=10)
    except ValueError:
        return ""


def isolated(fn, path, timeout=None):
    """fn(path) run in a child process (fork): a ValueError for every failure,
    a crash of HDF5 (a signal) or a read longer than `timeout` seconds
    included. timeout None: READ_SECONDS plus the file's size at
    READ_BYTES_PER_SECOND."""
    path = os.fspath(path)
    if timeout is None:
        try:
            size = os.path.getsize(path)
        except OSError:
            size = 0
        timeout = READ_SECONDS + size / READ_BYTES_PER_SECOND
    try:
        ctx = multiprocessing.get_context("fork")
    except ValueError:  # no fork on this platform: read here
        return _checked(fn, path)
    recv, send = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_child, args=(fn, path, send), daemon=True)
    p.start()
    send.close()
    t0 = time.monotonic()
    result = None
    try:
        if recv.poll(timeout):
            try:
                result = recv.recv()
            except (EOFError, OSError):
                result = None
    finally:
        recv.close()
        if result is None and p.is_alive():
            p.kill()
        p.join(5)
    if result is not None:
        if result[0] == "ok":
            return result[1]
        raise ValueError(result[1])
    if p.exitcode is None or time.monotonic() - t0 >= timeout:
        raise ValueError("%s: cannot be read: HDF5 did not finish in %.0f s (it loops on some "
                         "damaged files)" % (path, timeout))
    if p.exitcode < 0:
        raise ValueError("%s: cannot be read: HDF5 crashed on it (signal %d): the file is "
                         "damaged" % (path, -p.exitcode))
    raise ValueError("%s: cannot be read: the reading process ended (status %d)"
                     % (path, p.exitcode))


def read(path, isolate=True, timeout=None):
    """Reads a run file written by cradle (a chain or a pool) into a cradle.Run.

    Every failure is a ValueError with one line naming the file and the
    dataset. isolate (default): read in a child process, so that a file on
    which HDF5 crashes or loops is a ValueError too (docs/errors.md); then
    `timeout` seconds at most (None: 20 s plus 1 s per 20 MB). isolate=False
    reads here (for files you wrote yourself: no fork, no copy of the arrays
    through a pipe)."""
    if isolate:
        return isolated(_read, path, timeout)
    return _checked(_read, os.fspath(path))
