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
import shutil
import signal
import threading

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
               "force-release": 4, "force-reengage": 5, "max-force": 6,
               "swing-extreme": 7}

# name: (restype, argtypes)
_API = {
    "cr_version": (C.c_char_p, []),
    "cr_modelfile_parse_set": (C.c_int, [C.c_char_p, _size_t, C.c_char_p, C.c_void_p,
                                         _P(C.c_void_p), _P(C.c_void_p), C.c_char_p, _size_t]),
    "cr_strerror": (C.c_char_p, [C.c_int]),
    "cr_system_request_stop": (None, [C.c_void_p]),
    "cr_model_contact_count": (_size_t, [C.c_void_p]),
    "cr_model_dimension": (C.c_int, [C.c_void_p]),
    "cr_law_params_init": (None, [C.c_void_p]),
    "cr_law_from_name": (C.c_int, [C.c_char_p, _P(C.c_int)]),
    "cr_law_suggest": (C.c_char_p, [C.c_char_p]),
    "cr_system_create_rigid": (C.c_void_p, [C.c_void_p, C.c_int, C.c_void_p, C.c_char_p, _size_t]),
    "cr_system_rigid_law": (C.c_int, [C.c_void_p, C.c_char_p, _size_t]),
    "cr_calibrated_rigid_create": (C.c_void_p, [C.c_void_p, _size_t, C.c_char_p, _size_t]),
    "cr_calibrated_rigid_destroy": (None, [C.c_void_p]),
    "cr_calibrated_rigid_attach": (C.c_int, [C.c_void_p, C.c_void_p, C.c_char_p]),
    "cr_calibrated_rigid_finish": (None, [C.c_void_p, _dbl]),
    "cr_calibrated_rigid_mismatches": (C.c_void_p, [C.c_void_p, _P(_size_t)]),
    "cr_store_write_mismatches": (C.c_int, [C.c_void_p, C.c_void_p, _size_t]),
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
    """A failure libcradle reported: str(e) is its one-line reason, e.code the
    library's error code (cradle/common.h: -2 invalid argument, -3 I/O, -4 syntax,
    -5 model, -6 solver, -7 HDF5, -9 infeasible, -10 not converged, -11 outside
    a table's domain) and e.status its name (cr_strerror)."""

    def __init__(self, message, code=-2):
        super().__init__(message)
        self.code = int(code)
        self.status = _strerror(self.code)


def _strerror(code):
    # only from a loaded library: a CradleError for a library not found has no name
    return _lib.cr_strerror(code).decode() if _lib is not None else ""


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
    raise CradleError("libcradle not found; set CRADLE_LIB to its path. Tried: " + "; ".join(errors),
                      -3)


def _arr(ptr, n, cols=1):
    if n == 0 or not ptr:
        return np.zeros((0,) if cols == 1 else (0, cols))
    a = np.ctypeslib.as_array(ptr, shape=(n * cols,)).copy()
    return a if cols == 1 else a.reshape(n, cols)


_NP_TYPES = {_size_t: np.int64, C.c_long: np.int64, C.c_int: np.int32, _dbl: np.float64}


def _records(ptr, n, ctype):
    """The C structs as a packed numpy structured array: the bytes read once
    through a dtype with the struct's own offsets, then a column at a time."""
    names = [nm for nm, _ in ctype._fields_]
    dt = np.dtype([(nm, _NP_TYPES[t]) for nm, t in ctype._fields_])
    out = np.zeros(n, dtype=dt)
    if n and ptr:
        layout = np.dtype({"names": names, "formats": [dt[nm] for nm in names],
                           "offsets": [getattr(ctype, nm).offset for nm in names],
                           "itemsize": C.sizeof(ctype)})
        raw = np.frombuffer(C.string_at(ptr, n * C.sizeof(ctype)), dtype=layout)
        for nm in names:
            out[nm] = raw[nm]
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
    raise CradleError("%s: no such model file" % model, -3)


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
        raise CradleError(what, rc)


class LawParams(C.Structure):
    """cr_law_params (cradle/laws.h)."""
    _fields_ = [("restitution", _dbl), ("restitutions", _P(_dbl)), ("kappa", _dbl),
                ("alpha", _P(_dbl)), ("reference", _size_t), ("max_stages", C.c_int),
                ("max_outcomes", C.c_int), ("eta", _P(_dbl)), ("stiffness", _P(_dbl)),
                ("exponent", _P(_dbl)), ("energetic", _P(_dbl)), ("tolerance", _dbl),
                ("poisson_restitutions", _P(_dbl)), ("superelastic", C.c_int)]


def stoppable(work, stop):
    """work() on a worker thread while the main thread waits; Ctrl-C calls stop()
    (the library's stop request), waits for work to return what it computed, and
    gives (result, True). ctypes releases the GIL during the C call, so the main
    thread's wait is interruptible. Off the main thread: work() as it is."""
    if threading.current_thread() is not threading.main_thread():
        return work(), False
    box = {}
    done = threading.Event()  # not Thread.join: an interrupted join can leave is_alive() False

    def body():
        try:
            box["value"] = work()
        except BaseException as e:  # re-raised on the caller's thread
            box["error"] = e
        finally:
            done.set()

    # Ctrl-C is taken by a handler of our own while the work runs, not as a
    # KeyboardInterrupt: that one can be raised between any two bytecodes,
    # outside a try around the wait (seen in CI: the interrupt escaped while the
    # library was still writing the file)
    hits = []

    def on_interrupt(signum, frame):
        if not hits:
            stop()
        hits.append(signum)

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        threading.Thread(target=body, name="cradle-run", daemon=True).start()
        while not done.wait(0.05):
            pass
    finally:
        signal.signal(signal.SIGINT, previous)
    if "error" in box:
        raise box["error"]
    return box["value"], bool(hits)


def law_id(name):
    """cr_law_from_name, with the library's suggestion for a mistyped name."""
    lib = library()
    out = C.c_int()
    if lib.cr_law_from_name(os.fspath(name).encode(), C.byref(out)) != 0:
        near = lib.cr_law_suggest(str(name).encode())
        raise CradleError("unknown law '%s'%s (cradle law --list)"
                          % (name, "; did you mean '%s'?" % near.decode() if near else ""), -2)
    return out.value


def _doubles(values):
    values = [float(v) for v in np.atleast_1d(values)]
    return (_dbl * max(1, len(values)))(*values), len(values)


def _rigid_system(lib, mdl, filename, rigid, restitution, kappa, alpha):
    """cr_system_create_rigid as `cradle run --rigid LAW` builds it
    (tools/run-rigid.c): restitution and kappa NaN when not given (each pair's
    own), alpha one value for every pair or one per pair (a pool: two)."""
    msg = C.create_string_buffer(1024)
    calibrated = rigid == "calibrated"
    if calibrated and (restitution is not None or kappa is not None or alpha is not None):
        raise CradleError("rigid='calibrated' takes its parameters from the compliant run: no "
                          "restitution, kappa or alpha", -2)
    law = law_id("energetic" if calibrated else rigid)
    energetic = law == law_id("energetic")
    if restitution is not None and (energetic or law == law_id("max-dissipation")):
        raise CradleError("restitution: law %s has no restitution" % rigid, -2)
    if restitution is not None and not 0.0 <= restitution <= 1.0:
        raise CradleError("restitution: must lie in [0, 1] (got %g)" % restitution, -2)
    if (kappa is not None or alpha is not None) and not energetic:
        raise CradleError("kappa/alpha: only the energetic law takes them (not %s)" % rigid, -2)
    if energetic and not calibrated and (kappa is None or alpha is None):
        raise CradleError("rigid='energetic' needs kappa and alpha (Acary & Taha 2005 eq. "
                          "17-18), or use rigid='calibrated'", -2)
    lp = LawParams()
    lib.cr_law_params_init(C.byref(lp))
    lp.restitution = float("nan") if restitution is None else float(restitution)
    lp.kappa = float("nan") if kappa is None else float(kappa)
    pool = lib.cr_model_dimension(mdl) == 2
    nc = 2 if pool else lib.cr_model_contact_count(mdl)
    if calibrated:
        if pool:
            raise CradleError("%s: rigid='calibrated': pools have no fixed pairs to carry each "
                              "episode's alpha; give rigid='energetic', kappa, alpha" % filename, -2)
        weights, lp.kappa = [1.0] * max(1, nc), 1.0  # placeholders: each impact gets its own
    elif alpha is not None:
        weights = [float(a) for a in np.atleast_1d(alpha)]
        if len(weights) not in (1, nc):
            raise CradleError("alpha: %d values for the %d %s of %s (give one, or one per pair)"
                              % (len(weights), nc, "contacts" if pool else "pairs", filename), -2)
        weights = weights * nc if len(weights) == 1 else weights
    buf = _doubles(weights)[0] if calibrated or alpha is not None else None
    if buf is not None:
        lp.alpha = C.cast(buf, _P(_dbl))
    sys = lib.cr_system_create_rigid(mdl, law, C.byref(lp), msg, 1024)
    if not sys:
        raise CradleError("%s: %s" % (filename, msg.value.decode()), -2)
    return sys


RIGID_CALIBRATED_LABEL = ("calibrated: alpha, kappa of the compliant collision each impact "
                          "stands for, once")


def _calibration(lib, mdl, filename, calibrate_on, monitor=None):
    """The compliant run's collisions (cr_calibrated_rigid_create) for
    rigid='calibrated': of the model itself (its finished @monitor when given),
    or of calibrate_on (a prediction)."""
    msg = C.create_string_buffer(1024)
    if monitor is not None and calibrate_on is None:
        calib = lib.cr_calibrated_rigid_create(monitor, lib.cr_model_contact_count(mdl), msg, 1024)
        if not calib:
            raise CradleError("rigid='calibrated': %s" % msg.value.decode(), -2)
        return calib
    other = None
    if calibrate_on is not None:
        other, filename, _ = _parse(lib, calibrate_on)
        if (lib.cr_model_dimension(other) != 1
                or lib.cr_model_contact_count(other) != lib.cr_model_contact_count(mdl)):
            lib.cr_model_destroy(other)
            raise CradleError("calibrate_on %s: a chain of %d pairs calibrates a chain of %d "
                              "pairs only" % (filename, lib.cr_model_contact_count(other),
                                              lib.cr_model_contact_count(mdl)), -2)
    src = other or mdl
    sys = lib.cr_system_create(src, msg, 1024)
    mon = lib.cr_monitor_create(sys) if sys else None
    try:
        if not sys:
            raise CradleError("%s: %s" % (filename, msg.value.decode()), -2)
        rc, stopped = stoppable(lambda: lib.cr_system_run(sys, lib.cr_model_settings(src).contents.t_end),
                                lambda: lib.cr_system_request_stop(sys))
        if stopped:
            raise KeyboardInterrupt
        if rc != 0:
            raise CradleError("%s: rigid='calibrated': the compliant run failed: %s"
                              % (filename, lib.cr_system_last_error(sys).decode()), rc)
        lib.cr_monitor_finish(mon)
        calib = lib.cr_calibrated_rigid_create(mon, lib.cr_model_contact_count(src), msg, 1024)
        if not calib:
            raise CradleError("rigid='calibrated': %s" % msg.value.decode(), -2)
        return calib
    finally:
        lib.cr_monitor_destroy(mon)
        lib.cr_system_destroy(sys)
        lib.cr_model_destroy(other)


class ModelfileSets(C.Structure):
    """cr_modelfile_sets (cradle/modelfile.h)."""
    _fields_ = [("items", _P(C.c_char_p)), ("count", _size_t), ("label", C.c_char_p)]


def _set_items(sets):
    """{"contact.C": 1.5e4} or ["contact.C=1.5e4"] → ["contact.C=1.5e4"] (YAML flow values)."""
    if not sets:
        return []
    if isinstance(sets, dict):
        return ["%s=%s" % (k, repr(v) if isinstance(v, float) else v) for k, v in sets.items()]
    return [str(x) for x in sets]


def _parse(lib, model, sets=None):
    """(calibrated cr_model, filename, the model text parsed) of a path, a YAML
    string or a dict, with the fields @sets names set first (`--set`:
    cr_modelfile_parse_set)."""
    text, filename = _model_text(model)
    raw = text.encode()
    items = [x.encode() for x in _set_items(sets)]
    arr = (C.c_char_p * max(1, len(items)))(*items)
    st = ModelfileSets(C.cast(arr, _P(C.c_char_p)), len(items), b"set ")
    msg = C.create_string_buffer(1024)
    mp, eff = C.c_void_p(), C.c_void_p()
    rc = lib.cr_modelfile_parse_set(raw, len(raw), filename.encode(), C.byref(st), C.byref(mp),
                                    C.byref(eff), msg, 1024)
    if eff.value:
        text = C.string_at(eff.value).decode()
        _libc().free(eff)
    if rc != 0:
        raise CradleError(msg.value.decode(), rc)
    rc = lib.cr_calibrate_model(mp.value, msg, 1024)
    if rc != 0:
        lib.cr_model_destroy(mp.value)
        raise CradleError("%s: calibration: %s" % (filename, msg.value.decode()), rc)
    return mp.value, filename, text


def _libc():
    libc = C.CDLL(None)
    libc.free.argtypes, libc.free.restype = [C.c_void_p], None
    return libc


def run(model, output=None, t_end=None, collision_window=None, trajectory=True, rigid=None,
        restitution=None, kappa=None, alpha=None, calibrate_on=None, set=None, table=None):
    """Runs @model (a model file path, a YAML string or a dict in the model-file
    schema) through libcradle and returns a cradle.Run.

    output: also write the run to this HDF5 file (as `cradle run -o` does).
    t_end: overrides the model's end time (s). collision_window: seconds (None:
    the automatic rule). trajectory: record a row at every output time (the
    Python callback costs ~20 µs per row). set: model-file fields to set
    first, {"contact.C": 1.5e4} or ["contact.C=1.5e4"] (`cradle run --set`).
    rigid: a law name (`cradle law --list`) runs the same bodies as rigid balls,
    every impact under that law (`cradle run --rigid LAW`), with restitution
    (one ε for every pair; default each pair's own), or kappa and alpha (the
    energetic law: one α, or one per pair); "calibrated" takes α and κ of the
    compliant collision each impact stands for (of calibrate_on's run when
    given). rigid="energetic", table=TABLE looks α and κ of each impact up in a
    reference table (`--table`): that piece runs the cradle executable (its
    table provider lives in tools/rigid-table.c), see _run_with_table.
    Ctrl-C stops the run through the library's stop request, writes
    what was computed to output (status "interrupted") and raises
    KeyboardInterrupt.
    """
    if table is not None:
        return _run_with_table(model, output, t_end, collision_window, rigid, restitution,
                               kappa, alpha, calibrate_on, set, table)
    lib = library()
    mdl, filename, text = _parse(lib, model, set)
    raw = text.encode()
    msg = C.create_string_buffer(1024)
    sys = mon = store = calib = None
    try:
        if rigid is None:
            if restitution is not None or kappa is not None or alpha is not None:
                raise CradleError("restitution, kappa and alpha need rigid=LAW", -2)
            sys = lib.cr_system_create(mdl, msg, 1024)
            if not sys:
                raise CradleError("%s: %s" % (filename, msg.value.decode()), -2)
        else:
            sys = _rigid_system(lib, mdl, filename, rigid, restitution, kappa, alpha)
            if rigid == "calibrated":
                calib = _calibration(lib, mdl, filename, calibrate_on)
                if lib.cr_calibrated_rigid_attach(calib, sys, RIGID_CALIBRATED_LABEL.encode()):
                    raise CradleError("%s: rigid='calibrated': the calibration does not fit "
                                      "this chain" % filename, -2)
        if calibrate_on is not None and rigid != "calibrated":
            raise CradleError("calibrate_on: only rigid='calibrated' maps impacts to collisions")
        if output is not None:
            msg.value = b""
            store = lib.cr_store_create(os.fspath(output).encode(), sys, mdl, filename.encode(),
                                        raw, msg, 1024)
            if not store:
                raise CradleError(msg.value.decode(), -3)
        mon = lib.cr_monitor_create(sys)
        if not mon:
            raise CradleError("out of memory", -1)
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
        rc, stopped = stoppable(lambda: lib.cr_system_run(sys, end),
                                lambda: lib.cr_system_request_stop(sys))
        if trajectory:
            lib.cr_system_remove_listeners(sys, None)
        status = {0: "complete", -8: "interrupted"}.get(rc, "failed")
        if rc == -2:
            raise CradleError("%s: %s" % (filename, lib.cr_system_last_error(sys).decode()), rc)
        if collision_window is not None:
            lib.cr_monitor_set_collision_window(mon, float(collision_window))
        # stopped or not, the episodes monitored so far (as cmd-run.c)
        _check(lib.cr_monitor_finish(mon), "monitor: %s" % lib.cr_monitor_last_error(mon))
        why = None if rc == 0 else lib.cr_system_last_error(sys)
        nmis = _size_t()
        mis = None
        if calib:
            lib.cr_calibrated_rigid_finish(calib, lib.cr_system_get_time(sys))
            mis = lib.cr_calibrated_rigid_mismatches(calib, C.byref(nmis))
        if store:
            if (lib.cr_store_write_episodes(store, mon) != 0
                    or lib.cr_store_write_collisions(store, mon) != 0
                    or (calib and lib.cr_store_write_mismatches(store, mis, nmis.value) != 0)
                    or lib.cr_store_commit(store, status.encode(), why) != 0):
                raise CradleError(lib.cr_store_last_error(store).decode(), -7)
        if stopped:
            raise KeyboardInterrupt
        if rc != 0:
            raise CradleError("%s: %s" % (filename, why.decode()), rc)
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
        attrs = {"status": status, "end_reason": lib.cr_system_end_reason(sys).decode(),
                 "t_end": lib.cr_system_get_time(sys), "cradle_version": lib.cr_version().decode()}
        if rigid is not None:
            law = C.create_string_buffer(1024)
            if lib.cr_system_rigid_law(sys, law, 1024) == 0:
                attrs["rigid_law"] = law.value.decode()
            attrs["mismatches"] = nmis.value
        return Run(
            path=None if output is None else os.fspath(output), attrs=attrs,
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
        lib.cr_calibrated_rigid_destroy(calib)
        lib.cr_model_destroy(mdl)


def executable():
    """The cradle executable: $CRADLE_EXE, the build tree's beside the library
    loaded, the one installed beside it (PREFIX/bin), then PATH's."""
    if os.environ.get("CRADLE_EXE"):
        return os.environ["CRADLE_EXE"]
    libdir = os.path.dirname(os.path.abspath(getattr(library(), "_name", "") or "."))
    for p in (os.path.join(libdir, "..", "tools", "cradle"), os.path.join(libdir, "..", "bin", "cradle"),
              os.path.join(libdir, "..", "..", "bin", "cradle")):
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return os.path.normpath(p)
    return shutil.which("cradle") or "cradle"


# the CLI's exit statuses (docs/errors.md) as the library's codes
_EXIT_CODES = {2: -2, 3: -2, 4: -6, 5: -11, 6: -2}


def _run_with_table(model, output, t_end, collision_window, rigid, restitution, kappa, alpha,
                    calibrate_on, sets, table):
    """`cradle run MODEL --rigid energetic --table TABLE -o FILE`, read back:
    the table provider (tools/rigid-table.c) has no C API. The result is the
    file's cradle.Run (cradle.read), as complete as from any run file."""
    import subprocess
    import tempfile
    from .io import read
    if rigid != "energetic" or restitution is not None or kappa is not None or alpha is not None \
            or calibrate_on is not None:
        raise CradleError("table: only rigid='energetic' reads a table, and it gives kappa and "
                          "alpha: no restitution, kappa, alpha or calibrate_on with it", -2)
    if t_end is not None or collision_window is not None:
        raise CradleError("table: t_end and collision_window are not taken with a table (set "
                          "integration.t_end instead)", -2)
    text, filename = _model_text(model)
    with tempfile.TemporaryDirectory(prefix="cradle-table-") as tmp:
        out = os.fspath(output) if output is not None else os.path.join(tmp, "run.h5")
        given = filename not in ("<string>", "<dict>")  # a path: named as it is
        args = [executable(), "run", filename if given else "-", "--rigid", "energetic",
                "--table", os.fspath(table), "-o", out, "-q"]
        for item in _set_items(sets):
            args += ["--set", item]
        try:
            p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        except OSError as e:
            raise CradleError("table: runs the cradle executable: %s: %s (set CRADLE_EXE)"
                              % (args[0], e.strerror), -3)
        try:
            _, err = p.communicate(None if given else text)
        except KeyboardInterrupt:
            # the CLI's own stop (a terminal's Ctrl-C reached it too; a second
            # SIGINT is the same request): it closes the file, then we raise
            p.send_signal(signal.SIGINT)
            p.wait()
            raise
        if p.returncode == 130:
            raise KeyboardInterrupt
        if p.returncode != 0:
            line = err.strip().splitlines()[-1] if err.strip() else "exit %d" % p.returncode
            line = line.replace("cradle: ", "", 1).replace("(stdin)", filename)
            raise CradleError(line, _EXIT_CODES.get(p.returncode, -2))
        r = read(out, isolate=False)
        r.path = None if output is None else out
        return r


def pendulums(model_text):
    """[(pivot, length)] per body of a chain model's text, or None without pendulums
    (through cr_modelfile_parse and cr_model_pendulum)."""
    lib = library()
    raw = model_text.encode()
    msg = C.create_string_buffer(1024)
    mp = C.c_void_p()
    rc = lib.cr_modelfile_parse(raw, len(raw), b"<model>", C.byref(mp), msg, 1024)
    if rc != 0:
        raise CradleError(msg.value.decode(), rc)
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
