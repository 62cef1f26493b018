"""Running a model through libcradle with ctypes, over the public C API only
(cradle/modelfile.h, calibrate.h, system.h, monitor.h, store.h): the same
pipeline as `cradle run`, returning the cradle.data objects `cradle.read` gives.

libcradle is found through $CRADLE_LIB (a path), then the library meson
installed with this package, then the system's search path, then a build tree
next to the source tree (build/src/libcradle.so).
"""
import ctypes as C
import ctypes.util
import os

import numpy as np

from .data import Collision, Episode, Run

_size_t = C.c_size_t
_dbl = C.c_double
_P = C.POINTER


class EpisodeInfo(C.Structure):
    _fields_ = [("t_start", _dbl), ("t_end", _dbl), ("body_count", _size_t),
                ("contact_count", _size_t), ("reference", _size_t), ("reference_record", _size_t),
                ("T_minus", _dbl), ("T_plus", _dbl), ("kappa", _dbl), ("field_work", _dbl),
                ("dissipated", _dbl), ("complete", C.c_int), ("event_count", _size_t)]


class ContactRecord(C.Structure):
    _fields_ = [("contact", _size_t), ("body_a", _size_t), ("body_b", C.c_long),
                ("impulse", _dbl), ("compression", _dbl), ("expansion", _dbl),
                ("gamma_minus", _dbl), ("gamma_plus", _dbl), ("newton", _dbl), ("poisson", _dbl),
                ("alpha", _dbl), ("peak_overlap", _dbl), ("peak_force", _dbl),
                ("closings", C.c_int), ("openings", C.c_int), ("flags", C.c_int),
                ("peak_force_time", _dbl), ("duration", _dbl)]


class CollisionInfo(C.Structure):
    _fields_ = [("t_start", _dbl), ("t_end", _dbl), ("episode_count", _size_t),
                ("body_count", _size_t), ("contact_count", _size_t), ("reference", _size_t),
                ("reference_record", _size_t), ("T_minus", _dbl), ("T_plus", _dbl),
                ("field_work", _dbl), ("kappa", _dbl), ("dissipated", _dbl), ("complete", C.c_int)]


class CollisionRecord(C.Structure):
    _fields_ = [("contact", _size_t), ("body_a", _size_t), ("body_b", C.c_long),
                ("impulse", _dbl), ("compression", _dbl), ("expansion", _dbl), ("alpha", _dbl),
                ("episode_count", _size_t)]


class ContactView(C.Structure):
    _fields_ = [("body_a", _size_t), ("body_b", C.c_long), ("unilateral", C.c_int),
                ("linked", C.c_int), ("state", C.c_int), ("settled", C.c_int),
                ("overlap", _dbl), ("rate", _dbl), ("force", _dbl), ("impulse", _dbl),
                ("normal", _dbl * 3), ("vector_impulse", _dbl * 3)]


class Event(C.Structure):
    _fields_ = [("t", _dbl), ("contact", _size_t), ("kind", C.c_int), ("overlap", _dbl),
                ("rate", _dbl), ("force", _dbl), ("impulse", _dbl)]


class Settings(C.Structure):
    _fields_ = [("t_end", _dbl), ("rtol", _dbl), ("atol", _dbl), ("output_interval", _dbl),
                ("method", C.c_int), ("jacobian_floor", _dbl), ("solver", C.c_int),
                ("skin", _dbl), ("frozen_normals", C.c_int), ("active_region", C.c_int),
                ("rigid_touching", _dbl)]


OutputListener = C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_void_p)

EVENT_KINDS = {"close": 0, "open": 1, "max-compression": 2, "min-compression": 3,
               "force-release": 4, "force-reengage": 5, "max-force": 6}

# name: (restype, argtypes)
_API = {
    "cr_version": (C.c_char_p, []),
    "cr_modelfile_parse": (C.c_int, [C.c_char_p, _size_t, C.c_char_p, _P(C.c_void_p),
                                     C.c_char_p, _size_t]),
    "cr_calibrate_model": (C.c_int, [C.c_void_p, C.c_char_p, _size_t]),
    "cr_model_destroy": (None, [C.c_void_p]),
    "cr_model_name": (C.c_char_p, [C.c_void_p]),
    "cr_model_settings": (_P(Settings), [C.c_void_p]),
    "cr_model_get_body": (C.c_int, [C.c_void_p, _size_t, _P(_dbl), _P(_dbl)]),
    "cr_model_get_gravity_vector": (None, [C.c_void_p, _P(_dbl)]),
    "cr_model_pendulum": (C.c_int, [C.c_void_p, _size_t, _P(_dbl), _P(_dbl), _P(_dbl)]),
    "cr_system_create": (C.c_void_p, [C.c_void_p, C.c_char_p, _size_t]),
    "cr_system_destroy": (None, [C.c_void_p]),
    "cr_system_add_output_listener": (C.c_int, [C.c_void_p, OutputListener, C.c_void_p]),
    "cr_system_remove_listeners": (None, [C.c_void_p, C.c_void_p]),
    "cr_system_run": (C.c_int, [C.c_void_p, _dbl]),
    "cr_system_last_error": (C.c_char_p, [C.c_void_p]),
    "cr_system_end_reason": (C.c_char_p, [C.c_void_p]),
    "cr_system_engine_name": (C.c_char_p, [C.c_void_p]),
    "cr_system_dimension": (C.c_int, [C.c_void_p]),
    "cr_system_body_count": (_size_t, [C.c_void_p]),
    "cr_system_wall_count": (_size_t, [C.c_void_p]),
    "cr_system_get_masses": (None, [C.c_void_p, _P(_dbl)]),
    "cr_system_get_radii": (None, [C.c_void_p, _P(_dbl)]),
    "cr_system_body_is_fixed": (C.c_int, [C.c_void_p, _size_t]),
    "cr_system_get_wall": (C.c_int, [C.c_void_p, _size_t, _P(_dbl), _P(_dbl)]),
    "cr_system_get_time": (_dbl, [C.c_void_p]),
    "cr_system_get_positions": (None, [C.c_void_p, _P(_dbl)]),
    "cr_system_get_velocities": (None, [C.c_void_p, _P(_dbl)]),
    "cr_system_contact_count": (_size_t, [C.c_void_p]),
    "cr_system_contacts_fixed": (C.c_int, [C.c_void_p]),
    "cr_system_get_contact": (C.c_int, [C.c_void_p, _size_t, _P(ContactView)]),
    "cr_system_event_count": (_size_t, [C.c_void_p]),
    "cr_system_events": (_P(Event), [C.c_void_p]),
    "cr_system_kinetic_energy": (_dbl, [C.c_void_p]),
    "cr_system_potential_energy": (_dbl, [C.c_void_p]),
    "cr_system_dissipated_work": (_dbl, [C.c_void_p]),
    "cr_monitor_create": (C.c_void_p, [C.c_void_p]),
    "cr_monitor_destroy": (None, [C.c_void_p]),
    "cr_monitor_finish": (C.c_int, [C.c_void_p]),
    "cr_monitor_last_error": (C.c_char_p, [C.c_void_p]),
    "cr_monitor_episode_count": (_size_t, [C.c_void_p]),
    "cr_monitor_get_episode": (C.c_int, [C.c_void_p, _size_t, _P(EpisodeInfo)]),
    "cr_monitor_bodies": (_P(_size_t), [C.c_void_p, _size_t, _P(_size_t)]),
    "cr_monitor_masses": (_P(_dbl), [C.c_void_p, _size_t, _P(_size_t)]),
    "cr_monitor_velocities": (_P(_dbl), [C.c_void_p, _size_t, C.c_int, _P(_size_t)]),
    "cr_monitor_contacts": (_P(ContactRecord), [C.c_void_p, _size_t, _P(_size_t)]),
    "cr_monitor_vector_impulses": (_P(_dbl), [C.c_void_p, _size_t, _P(_size_t)]),
    "cr_monitor_normals": (_P(_dbl), [C.c_void_p, _size_t, _P(_size_t)]),
    "cr_monitor_events": (_P(_size_t), [C.c_void_p, _size_t, _P(_size_t)]),
    "cr_monitor_set_collision_window": (C.c_int, [C.c_void_p, _dbl]),
    "cr_monitor_collision_window": (_dbl, [C.c_void_p, _P(_dbl)]),
    "cr_monitor_collision_count": (_size_t, [C.c_void_p]),
    "cr_monitor_get_collision": (C.c_int, [C.c_void_p, _size_t, _P(CollisionInfo)]),
    "cr_monitor_collision_episodes": (_P(_size_t), [C.c_void_p, _size_t, _P(_size_t)]),
    "cr_monitor_collision_bodies": (_P(_size_t), [C.c_void_p, _size_t, _P(_size_t)]),
    "cr_monitor_collision_velocities": (_P(_dbl), [C.c_void_p, _size_t, C.c_int, _P(_size_t)]),
    "cr_monitor_collision_contacts": (_P(CollisionRecord), [C.c_void_p, _size_t, _P(_size_t)]),
    "cr_monitor_collision_vector_impulses": (_P(_dbl), [C.c_void_p, _size_t, _P(_size_t)]),
    "cr_store_create": (C.c_void_p, [C.c_char_p, C.c_void_p, C.c_void_p, C.c_char_p, C.c_char_p,
                                     C.c_char_p, _size_t]),
    "cr_store_write_episodes": (C.c_int, [C.c_void_p, C.c_void_p]),
    "cr_store_write_collisions": (C.c_int, [C.c_void_p, C.c_void_p]),
    "cr_store_commit": (C.c_int, [C.c_void_p, C.c_char_p, C.c_char_p]),
    "cr_store_destroy": (None, [C.c_void_p]),
    "cr_store_last_error": (C.c_char_p, [C.c_void_p]),
}

_lib = None


class CradleError(RuntimeError):
    """A failure libcradle reported (the message is its one-line reason)."""


def _candidates():
    if os.environ.get("CRADLE_LIB"):
        yield os.environ["CRADLE_LIB"]
    try:
        from . import _config
        yield os.path.join(_config.LIBDIR, "libcradle.so")
    except ImportError:
        pass
    found = ctypes.util.find_library("cradle")
    if found:
        yield found
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "..", "..", "build", "src", "libcradle.so")


def library():
    """The loaded libcradle with its prototypes (loaded once)."""
    global _lib
    if _lib is not None:
        return _lib
    errors = []
    for path in _candidates():
        try:
            lib = C.CDLL(path)
        except OSError as e:
            errors.append("%s (%s)" % (path, e))
            continue
        for name, (res, args) in _API.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = res, args
        _lib = lib
        return lib
    raise CradleError("libcradle not found; set CRADLE_LIB to its path. Tried: " + "; ".join(errors))


def _arr(ptr, n, cols=1):
    if n == 0 or not ptr:
        return np.zeros((0,) if cols == 1 else (0, cols))
    a = np.ctypeslib.as_array(ptr, shape=(n * cols,)).copy()
    return a if cols == 1 else a.reshape(n, cols)


def _records(ptr, n, ctype):
    names = [f[0] for f in ctype._fields_]
    types = {_size_t: np.int64, C.c_long: np.int64, C.c_int: np.int32, _dbl: np.float64}
    dt = np.dtype([(nm, types[t]) for nm, t in ctype._fields_])
    out = np.zeros(n, dtype=dt)
    for i in range(n):
        r = ptr[i]
        for nm in names:
            out[i][nm] = getattr(r, nm)
    return out


def _model_text(model):
    """(text, filename) of a path, a YAML string or a dict."""
    if isinstance(model, dict):
        import yaml
        return yaml.safe_dump(model, sort_keys=False), "<dict>"
    model = os.fspath(model)
    if "\n" not in model and os.path.exists(model):
        with open(model, encoding="utf-8") as f:
            return f.read(), model
    if "\n" in model or ":" in model:
        return model, "<string>"
    raise CradleError("%s: no such model file" % model)


class _Recorder:
    """Trajectory rows at every output time (the system's output listener)."""

    def __init__(self, lib, sys):
        self.lib, self.sys = lib, sys
        self.n = lib.cr_system_body_count(sys)
        self.dim = lib.cr_system_dimension(sys)
        self.fixed_contacts = lib.cr_system_contacts_fixed(sys)
        self.rows = {k: [] for k in ("time", "position", "velocity", "kinetic_energy",
                                     "potential_energy", "dissipated_work", "overlap", "force",
                                     "impulse")}
        self.buf = (_dbl * max(1, self.n * self.dim))()
        self.view = ContactView()
        self.callback = OutputListener(self._on_output)

    def _on_output(self, sys, user):
        lib, s, r = self.lib, self.sys, self.rows
        try:
            r["time"].append(lib.cr_system_get_time(s))
            lib.cr_system_get_positions(s, self.buf)
            r["position"].append(np.frombuffer(self.buf, dtype=np.float64).copy())
            lib.cr_system_get_velocities(s, self.buf)
            r["velocity"].append(np.frombuffer(self.buf, dtype=np.float64).copy())
            r["kinetic_energy"].append(lib.cr_system_kinetic_energy(s))
            r["potential_energy"].append(lib.cr_system_potential_energy(s))
            r["dissipated_work"].append(lib.cr_system_dissipated_work(s))
            if self.fixed_contacts:
                nc = lib.cr_system_contact_count(s)
                row = np.zeros((3, nc))
                for k in range(nc):
                    lib.cr_system_get_contact(s, k, C.byref(self.view))
                    row[:, k] = (self.view.overlap, self.view.force, self.view.impulse)
                for i, name in enumerate(("overlap", "force", "impulse")):
                    r[name].append(row[i])
        except Exception:  # never let an exception cross the C boundary
            return -2
        return 0


def _episodes(lib, mon, dim):
    out = []
    n = _size_t()
    info = EpisodeInfo()
    for k in range(lib.cr_monitor_episode_count(mon)):
        if lib.cr_monitor_get_episode(mon, k, C.byref(info)) != 0:
            continue
        b = _arr(lib.cr_monitor_bodies(mon, k, C.byref(n)), n.value).astype(np.int64)
        m = _arr(lib.cr_monitor_masses(mon, k, C.byref(n)), n.value)
        u0 = _arr(lib.cr_monitor_velocities(mon, k, 0, C.byref(n)), n.value, dim)
        u1 = _arr(lib.cr_monitor_velocities(mon, k, 1, C.byref(n)), n.value, dim)
        rec = _records(lib.cr_monitor_contacts(mon, k, C.byref(n)), n.value, ContactRecord)
        vec = _arr(lib.cr_monitor_vector_impulses(mon, k, C.byref(n)), n.value, dim)
        nrm = _arr(lib.cr_monitor_normals(mon, k, C.byref(n)), n.value, dim)
        ev = _arr(lib.cr_monitor_events(mon, k, C.byref(n)), n.value).astype(np.int64)
        out.append(Episode(
            index=k, t_start=info.t_start, t_end=info.t_end, reference=info.reference,
            reference_record=info.reference_record, T_minus=info.T_minus, T_plus=info.T_plus,
            kappa=info.kappa, field_work=info.field_work, dissipated=info.dissipated,
            complete=bool(info.complete), bodies=b, mass=m, velocity_before=u0.reshape(-1, dim),
            velocity_after=u1.reshape(-1, dim), contacts=rec, vector_impulse=vec.reshape(-1, dim),
            normal=nrm.reshape(-1, dim), events=ev))
    return out


def _collisions(lib, mon, dim):
    out = []
    n = _size_t()
    info = CollisionInfo()
    for k in range(lib.cr_monitor_collision_count(mon)):
        if lib.cr_monitor_get_collision(mon, k, C.byref(info)) != 0:
            continue
        eps = _arr(lib.cr_monitor_collision_episodes(mon, k, C.byref(n)), n.value).astype(np.int64)
        b = _arr(lib.cr_monitor_collision_bodies(mon, k, C.byref(n)), n.value).astype(np.int64)
        u0 = _arr(lib.cr_monitor_collision_velocities(mon, k, 0, C.byref(n)), n.value, dim)
        u1 = _arr(lib.cr_monitor_collision_velocities(mon, k, 1, C.byref(n)), n.value, dim)
        rec = _records(lib.cr_monitor_collision_contacts(mon, k, C.byref(n)), n.value,
                       CollisionRecord)
        vec = _arr(lib.cr_monitor_collision_vector_impulses(mon, k, C.byref(n)), n.value, dim)
        out.append(Collision(
            index=k, t_start=info.t_start, t_end=info.t_end, reference=info.reference,
            reference_record=info.reference_record, T_minus=info.T_minus, T_plus=info.T_plus,
            kappa=info.kappa, field_work=info.field_work, dissipated=info.dissipated,
            complete=bool(info.complete), episodes=eps, bodies=b,
            velocity_before=u0.reshape(-1, dim), velocity_after=u1.reshape(-1, dim),
            contacts=rec, vector_impulse=vec.reshape(-1, dim)))
    return out


def _contacts(lib, sys, dim):
    view = ContactView()
    nc = lib.cr_system_contact_count(sys)
    dt = np.dtype([("body_a", np.int64), ("body_b", np.int64), ("unilateral", np.int8),
                   ("linked", np.int8), ("settled", np.int8), ("state", np.int32),
                   ("overlap", float), ("rate", float), ("force", float), ("impulse", float),
                   ("normal", float, (dim,)), ("vector_impulse", float, (dim,))])
    out = np.zeros(nc, dtype=dt)
    for k in range(nc):
        lib.cr_system_get_contact(sys, k, C.byref(view))
        out[k] = (view.body_a, view.body_b, view.unilateral, view.linked, view.settled,
                  view.state, view.overlap, view.rate, view.force, view.impulse,
                  tuple(view.normal[:dim]), tuple(view.vector_impulse[:dim]))
    return out


def _events(lib, sys):
    n = lib.cr_system_event_count(sys)
    dt = np.dtype([("time", float), ("contact", np.int64), ("kind", np.int32), ("overlap", float),
                   ("rate", float), ("force", float), ("impulse", float)])
    out = np.zeros(n, dtype=dt)
    ev = lib.cr_system_events(sys)
    for k in range(n):
        e = ev[k]
        out[k] = (e.t, e.contact, e.kind, e.overlap, e.rate, e.force, e.impulse)
    return out


def _check(rc, what):
    if rc != 0:
        raise CradleError(what)


def run(model, output=None, t_end=None, collision_window=None, trajectory=True):
    """Runs @model (a model file path, a YAML string or a dict in the model-file
    schema) through libcradle and returns a cradle.Run.

    output: also write the run to this HDF5 file (as `cradle run -o` does).
    t_end: overrides the model's end time (s). collision_window: seconds (None:
    the automatic rule). trajectory: record a row at every output time (the
    Python callback costs ~20 µs per row).
    """
    lib = library()
    text, filename = _model_text(model)
    raw = text.encode()
    msg = C.create_string_buffer(1024)
    mp = C.c_void_p()
    if lib.cr_modelfile_parse(raw, len(raw), filename.encode(), C.byref(mp), msg, 1024) != 0:
        raise CradleError(msg.value.decode())
    mdl = mp.value
    sys = mon = store = None
    try:
        if lib.cr_calibrate_model(mdl, msg, 1024) != 0:
            raise CradleError("%s: calibration: %s" % (filename, msg.value.decode()))
        sys = lib.cr_system_create(mdl, msg, 1024)
        if not sys:
            raise CradleError("%s: %s" % (filename, msg.value.decode()))
        if output is not None:
            msg.value = b""
            store = lib.cr_store_create(os.fspath(output).encode(), sys, mdl, filename.encode(),
                                        raw, msg, 1024)
            if not store:
                raise CradleError(msg.value.decode())
        mon = lib.cr_monitor_create(sys)
        if not mon:
            raise CradleError("out of memory")
        rec = _Recorder(lib, sys)
        if trajectory:
            _check(lib.cr_system_add_output_listener(sys, rec.callback, None), "listener")
        n, dim = rec.n, rec.dim
        masses, radii = (_dbl * max(1, n))(), (_dbl * max(1, n))()
        lib.cr_system_get_masses(sys, masses)
        lib.cr_system_get_radii(sys, radii)
        x0, v0 = np.zeros((n, dim)), np.zeros((n, dim))
        xb, vb = (_dbl * dim)(), (_dbl * dim)()
        for i in range(n):
            lib.cr_model_get_body(mdl, i, xb, vb)
            x0[i], v0[i] = xb[:dim], vb[:dim]
        g = (_dbl * 3)()
        lib.cr_model_get_gravity_vector(mdl, g)
        nw = lib.cr_system_wall_count(sys)
        wn, wo = np.zeros((nw, dim)), np.zeros(nw)
        off = _dbl()
        for w in range(nw):
            lib.cr_system_get_wall(sys, w, xb, C.byref(off))
            wn[w], wo[w] = xb[:dim], off.value
        settings = lib.cr_model_settings(mdl).contents
        end = settings.t_end if t_end is None else float(t_end)
        rc = lib.cr_system_run(sys, end)
        if trajectory:
            lib.cr_system_remove_listeners(sys, None)
        status = {0: "complete", -8: "interrupted"}.get(rc, "failed")
        if rc == -2:
            raise CradleError("%s: %s" % (filename, lib.cr_system_last_error(sys).decode()))
        if collision_window is not None:
            lib.cr_monitor_set_collision_window(mon, float(collision_window))
        _check(lib.cr_monitor_finish(mon), "monitor: %s" % lib.cr_monitor_last_error(mon))
        why = None if rc == 0 else lib.cr_system_last_error(sys)
        if store:
            if (lib.cr_store_write_episodes(store, mon) != 0
                    or lib.cr_store_write_collisions(store, mon) != 0
                    or lib.cr_store_commit(store, status.encode(), why) != 0):
                raise CradleError(lib.cr_store_last_error(store).decode())
        if rc != 0:
            raise CradleError("%s: %s" % (filename, why.decode()))
        r = rec.rows
        T = len(r["time"])
        ff = _dbl()
        window = lib.cr_monitor_collision_window(mon, C.byref(ff))
        fin = (_dbl * max(1, n * dim))()
        lib.cr_system_get_positions(sys, fin)
        xf = np.frombuffer(fin, dtype=np.float64)[:n * dim].reshape(n, dim).copy()
        lib.cr_system_get_velocities(sys, fin)
        vf = np.frombuffer(fin, dtype=np.float64)[:n * dim].reshape(n, dim).copy()
        series = {k: (np.array(r[k]) if rec.fixed_contacts and trajectory else None)
                  for k in ("overlap", "force", "impulse")}
        return Run(
            path=None if output is None else os.fspath(output),
            attrs={"status": status, "end_reason": lib.cr_system_end_reason(sys).decode(),
                   "t_end": lib.cr_system_get_time(sys), "cradle_version": lib.cr_version().decode()},
            kind=lib.cr_system_engine_name(sys).decode(), dim=dim,
            name=lib.cr_model_name(mdl).decode(), model_text=text,
            mass=np.array(masses[:n]), radius=np.array(radii[:n]),
            fixed=np.array([lib.cr_system_body_is_fixed(sys, i) for i in range(n)], dtype=np.uint8),
            position0=x0, velocity0=v0, gravity=np.array(g[:dim]), wall_normal=wn, wall_offset=wo,
            time=np.array(r["time"]), position=np.array(r["position"]).reshape(T, n, dim),
            velocity=np.array(r["velocity"]).reshape(T, n, dim),
            kinetic_energy=np.array(r["kinetic_energy"]),
            potential_energy=np.array(r["potential_energy"]),
            dissipated_work=np.array(r["dissipated_work"]),
            overlap=series["overlap"], force=series["force"], impulse=series["impulse"],
            final_time=lib.cr_system_get_time(sys), final_position=xf, final_velocity=vf,
            contacts=_contacts(lib, sys, dim), events=_events(lib, sys),
            event_kinds=dict(EVENT_KINDS), episodes=_episodes(lib, mon, dim),
            collisions=_collisions(lib, mon, dim), collision_window=window,
            free_flight=ff.value)
    finally:
        lib.cr_monitor_destroy(mon)
        lib.cr_store_destroy(store)
        lib.cr_system_destroy(sys)
        lib.cr_model_destroy(mdl)


def pendulums(model_text):
    """[(pivot, length)] per body of a chain model's text, or None without pendulums
    (through cr_modelfile_parse and cr_model_pendulum)."""
    lib = library()
    raw = model_text.encode()
    msg = C.create_string_buffer(1024)
    mp = C.c_void_p()
    if lib.cr_modelfile_parse(raw, len(raw), b"<model>", C.byref(mp), msg, 1024) != 0:
        raise CradleError(msg.value.decode())
    try:
        out = []
        p, L, g = _dbl(), _dbl(), _dbl()
        i = 0
        while lib.cr_model_get_body(mp.value, i, (_dbl * 3)(), (_dbl * 3)()) == 0:
            ok = lib.cr_model_pendulum(mp.value, i, C.byref(p), C.byref(L), C.byref(g))
            out.append((p.value, L.value) if ok == 1 else None)
            i += 1
        return out if any(o is not None for o in out) else None
    finally:
        lib.cr_model_destroy(mp.value)
