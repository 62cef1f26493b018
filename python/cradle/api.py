"""What the command line does, from Python, over the public C API through
ctypes (cradle/lawcase.h, laws.h, compare.h, runfile.h, sweep.h,
sweepfile.h, table.h, fit.h): cradle.law, cradle.compare, cradle.sweep,
cradle.table.make/lookup and cradle.fit; cradle.run is in cradle.lib. The
answers are the numbers the CLI prints (its --json) as plain objects and
numpy arrays; failures are cradle.CradleError with the library's one line
and code.
"""
import ctypes as C
import math
import os
from dataclasses import dataclass, field

import numpy as np

from . import lib as L
from .lib import CradleError, _dbl, _P, _size_t

_VP, _CP = C.c_void_p, C.c_char_p
_EPISODE_DATA_BYTES = 4096  # cr_episode_data is filled and passed on, never read here


class CompareRow(C.Structure):
    """cr_compare_row (cradle/compare.h)."""
    _fields_ = [("episode", _size_t), ("law", C.c_int), ("mode", C.c_int), ("status", C.c_int),
                ("law_status", C.c_int), ("parameter", _dbl), ("error", _dbl),
                ("energy_error", _dbl), ("impulse_error", _dbl), ("energy_ratio", _dbl),
                ("gamma_ok", C.c_int), ("impulse_ok", C.c_int), ("energy_ok", C.c_int),
                ("outcomes", _size_t), ("chosen", _size_t), ("flags", C.c_int),
                ("message", C.c_char * 512)]


class CompareEpisode(C.Structure):
    """cr_compare_episode."""
    _fields_ = [("index", _size_t), ("dofs", _size_t), ("contacts", _size_t),
                ("reference", _size_t), ("first_row", _size_t), ("row_count", _size_t),
                ("kappa", _dbl), ("v_perp", _dbl), ("speed", _dbl), ("kappa_min", _dbl),
                ("field_corrected", C.c_int), ("t_start", _dbl)]


class CompareSummary(C.Structure):
    """cr_compare_summary (7 verdicts: CR_COMPARE_STATUS_COUNT)."""
    _fields_ = [("episodes", _size_t), ("answered", _size_t), ("status", _size_t * 7),
                ("mean_error", _dbl), ("max_error", _dbl), ("mean_energy_error", _dbl)]


class CompareRunsRow(C.Structure):
    """cr_compare_runs_row (cradle/compare.h)."""
    _fields_ = [("collision", C.c_long), ("rigid_collision", C.c_long)] + [
        (n, _dbl) for n in ("t_compliant", "t_rigid", "phase", "next_compliant", "next_rigid",
                            "speed", "velocity_before_error", "velocity_after_error",
                            "T_minus_compliant", "T_minus_rigid", "T_plus_compliant",
                            "T_plus_rigid", "energy_error", "kappa_compliant", "kappa_rigid")] + [
        ("episodes_compliant", _size_t), ("episodes_rigid", _size_t), ("same_bodies", C.c_int)]


class CompareRunsSummary(C.Structure):
    """cr_compare_runs_summary."""
    _fields_ = [(n, _size_t) for n in ("collisions_compliant", "collisions_rigid", "matched",
                                       "unmatched_compliant", "unmatched_rigid")] + [
        (n, _dbl) for n in ("window", "max_velocity_error", "mean_velocity_error",
                            "max_energy_error", "phase_drift", "max_phase", "mean_interval",
                            "decay_compliant", "decay_rigid")]


class FitObservation(C.Structure):
    """cr_fit_observation (cradle/fit.h)."""
    _fields_ = [("kind", C.c_int), ("time", _dbl), ("index", C.c_long), ("value", _dbl),
                ("sigma", _dbl), ("line", _size_t), ("time_column", C.c_int),
                ("index_column", C.c_int)]


class FitSummary(C.Structure):
    """cr_fit_summary."""
    _fields_ = [("parameters", _size_t), ("observations", _size_t), ("runs", _size_t),
                ("iterations", _size_t), ("failed_runs", _size_t), ("last_failure", _CP),
                ("converged", C.c_int), ("convergence", _CP), ("chi2_start", _dbl),
                ("chi2", _dbl), ("rtol", _dbl), ("atol", _dbl), ("h_df", _dbl)]


_API = {
    "cr_lawcase_load": (C.c_int, [_CP, _P(_VP), _CP, _size_t]),
    "cr_lawcase_parse": (C.c_int, [_CP, _size_t, _CP, _P(_VP), _CP, _size_t]),
    "cr_lawcase_destroy": (None, [_VP]),
    "cr_lawcase_impact": (_VP, [_VP]),
    "cr_lawcase_params": (_VP, [_VP]),
    "cr_lawcase_kind": (_CP, [_VP]),
    "cr_impact_dof_count": (_size_t, [_VP]),
    "cr_impact_contact_count": (_size_t, [_VP]),
    "cr_impact_last_error": (_CP, [_VP]),
    "cr_impact_get_gamma": (C.c_int, [_VP, _P(_dbl)]),
    "cr_law_result_create": (_VP, []),
    "cr_law_result_destroy": (None, [_VP]),
    "cr_law_solve": (C.c_int, [_VP, C.c_int, _VP, _VP]),
    "cr_law_result_status": (C.c_int, [_VP]),
    "cr_law_result_message": (_CP, [_VP]),
    "cr_law_result_outcome_count": (_size_t, [_VP]),
    "cr_law_result_velocity": (_P(_dbl), [_VP, _size_t]),
    "cr_law_result_impulse": (_P(_dbl), [_VP, _size_t]),
    "cr_law_result_energy_ratio": (_dbl, [_VP, _size_t]),
    "cr_law_result_trace": (_CP, [_VP]),
    "cr_law_result_residual": (_dbl, [_VP]),
    "cr_law_name": (_CP, [C.c_int]),
    "cr_law_status_name": (_CP, [C.c_int]),
    "cr_compare_create": (_VP, []),
    "cr_compare_destroy": (None, [_VP]),
    "cr_compare_last_error": (_CP, [_VP]),
    "cr_compare_add": (C.c_int, [_VP, _size_t, _VP, _VP, C.c_int]),
    "cr_compare_add_monitor": (C.c_int, [_VP, _VP, _size_t, _VP]),
    "cr_compare_episode_count": (_size_t, [_VP]),
    "cr_compare_get_episode": (C.c_int, [_VP, _size_t, _P(CompareEpisode)]),
    "cr_compare_reference_velocity": (_P(_dbl), [_VP, _size_t]),
    "cr_compare_field_impulse": (_P(_dbl), [_VP, _size_t]),
    "cr_compare_measured_impulse": (_P(_dbl), [_VP, _size_t]),
    "cr_compare_get_row": (_P(CompareRow), [_VP, _size_t]),
    "cr_compare_row_velocity": (_P(_dbl), [_VP, _size_t]),
    "cr_compare_row_impulse": (_P(_dbl), [_VP, _size_t]),
    "cr_compare_row_parameters": (_P(_dbl), [_VP, _size_t]),
    "cr_compare_summarize": (C.c_int, [_VP, C.c_int, C.c_int, _P(CompareSummary)]),
    "cr_compare_cache_stats": (None, [_VP, _P(_size_t), _P(_size_t)]),
    "cr_compare_mode_name": (_CP, [C.c_int]),
    "cr_compare_status_name": (_CP, [C.c_int]),
    "cr_model_has_fields": (C.c_int, [_VP]),
    "cr_compare_runs": (C.c_int, [_VP, _VP, _P(CompareRunsRow), _size_t,
                                  _P(CompareRunsSummary)]),
    "cr_run_file_open": (_VP, [_CP, _CP, _size_t]),
    "cr_run_file_close": (None, [_VP]),
    "cr_run_file_last_error": (_CP, [_VP]),
    "cr_run_file_model_text": (_CP, [_VP]),
    "cr_run_file_episode_count": (_size_t, [_VP]),
    "cr_run_file_episode": (C.c_int, [_VP, _size_t, _VP, _P(_VP)]),
    "cr_sweep_load": (C.c_int, [_CP, _P(_VP), _CP, _size_t]),
    "cr_sweep_destroy": (None, [_VP]),
    "cr_sweep_point_count": (_size_t, [_VP]),
    "cr_sweep_file_open": (C.c_int, [_CP, _VP, C.c_int, _P(_VP), _CP, _size_t]),
    "cr_sweep_file_close": (C.c_int, [_VP, _CP, _CP, _size_t]),
    "cr_sweep_file_last_error": (_CP, [_VP]),
    "cr_sweep_run": (C.c_int, [_VP, _VP, C.c_int, _VP, _VP, _P(C.c_int)]),
    "cr_table_open": (C.c_int, [_CP, _P(_VP), _CP, _size_t]),
    "cr_table_close": (None, [_VP]),
    "cr_table_last_error": (_CP, [_VP]),
    "cr_table_axis_count": (_size_t, [_VP]),
    "cr_table_axis_name": (_CP, [_VP, _size_t]),
    "cr_table_axis_length": (_size_t, [_VP, _size_t]),
    "cr_table_axis_value": (_dbl, [_VP, _size_t, _size_t]),
    "cr_table_column_count": (_size_t, [_VP]),
    "cr_table_column_name": (_CP, [_VP, _size_t]),
    "cr_table_value": (C.c_int, [_VP, _P(_dbl), _CP, _P(_dbl), _P(_dbl)]),
    "cr_table_make": (C.c_int, [_CP, _CP, _CP, _P(_CP), _CP, _size_t]),
    "cr_fit_data_parse": (C.c_int, [_CP, _size_t, _CP, C.c_int, _P(_P(FitObservation)),
                                    _P(_size_t), _CP, _size_t]),
    "cr_fit_create": (_VP, [_CP, _size_t, _CP]),
    "cr_fit_destroy": (None, [_VP]),
    "cr_fit_last_error": (_CP, [_VP]),
    "cr_fit_add_parameter": (C.c_int, [_VP, _CP, _dbl, _dbl]),
    "cr_fit_set_data": (C.c_int, [_VP, _P(FitObservation), _size_t, _CP]),
    "cr_fit_set_max_iterations": (C.c_int, [_VP, _size_t]),
    "cr_fit_run": (C.c_int, [_VP]),
    "cr_fit_get_summary": (C.c_int, [_VP, _P(FitSummary)]),
    "cr_fit_parameter_count": (_size_t, [_VP]),
    "cr_fit_parameter_path": (_CP, [_VP, _size_t]),
    "cr_fit_get_parameter": (C.c_int, [_VP, _size_t, _P(_dbl), _P(_dbl), _P(_dbl), _P(_dbl),
                                       _P(_dbl)]),
    "cr_fit_correlation": (_dbl, [_VP, _size_t, _size_t]),
    "cr_fit_observation_count": (_size_t, [_VP]),
    "cr_fit_observation_at": (_P(FitObservation), [_VP, _size_t]),
    "cr_fit_get_residual": (C.c_int, [_VP, _size_t, _P(_dbl), _P(_dbl)]),
    "cr_fit_observable_name": (_CP, [C.c_int]),
    "cr_fit_write": (C.c_int, [_VP, _CP, _VP, _CP, _size_t]),
    "cr_fit_synthesize": (C.c_int, [_VP, C.c_ulong, _P(_dbl)]),
}

_loaded = None


def _lib():
    """libcradle (cradle.lib.library) with this module's prototypes too."""
    global _loaded
    if _loaded is None:
        lib = L.library()
        for name, (res, args) in _API.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = res, args
        _loaded = lib
    return _loaded


def _arr(ptr, n):
    return np.ctypeslib.as_array(ptr, shape=(n,)).copy() if n and ptr else np.zeros(0)


def _opt(ptr, n):
    """An array the comparator may not have (a law without an answer): None then,
    as the CLI's null."""
    return _arr(ptr, n) if ptr else None


def _text(b):
    return b.decode(errors="replace") if b else ""


def _read_text(model):
    """The text of a path, a YAML string or a dict (cradle.lib's rules)."""
    return L._model_text(model)


# ---- cradle law ---------------------------------------------------------------------------

@dataclass
class LawResult:
    """One law on one case (`cradle law NAME CASE --json`)."""
    law: str
    kind: str             # chain, discs, system, rigid
    dofs: int
    contacts: int
    status: str           # ok, infeasible, multiple, not-terminated, solver-failed, …
    message: str
    residual: float
    gamma_minus: np.ndarray           # (contacts,)
    trace: str
    velocity: list = field(default_factory=list)      # per outcome: u⁺ (dofs,)
    impulse: list = field(default_factory=list)       # per outcome: P (contacts,)
    energy_ratio: list = field(default_factory=list)  # per outcome: T⁺/T⁻


def law(name, case):
    """Applies the law @name to an impact case (a law-case file path or its YAML
    text, docs/law-case-format.md), as `cradle law NAME CASE`. A case larger
    than the law takes is CradleError code -2 (the CLI's exit 3); a verdict such
    as "infeasible" is data (LawResult.status), not an error."""
    lib = _lib()
    lid = L.law_id(name)
    text, filename = _read_text(case)
    raw = text.encode()
    msg = C.create_string_buffer(1024)
    lc = C.c_void_p()
    rc = lib.cr_lawcase_parse(raw, len(raw), filename.encode(), C.byref(lc), msg, 1024)
    if rc != 0:
        raise CradleError(msg.value.decode(), rc)
    res = lib.cr_law_result_create()
    try:
        imp = lib.cr_lawcase_impact(lc.value)
        lname = lib.cr_law_name(lid).decode()
        rc = lib.cr_law_solve(imp, lid, lib.cr_lawcase_params(lc.value), res)
        if rc == 0 and lib.cr_law_result_status(res) == 6:  # CR_LAW_TOO_LARGE
            raise CradleError("%s: %s: too large: %s (docs/errors.md)"
                              % (filename, lname, _text(lib.cr_law_result_message(res))), -2)
        if rc != 0:
            raise CradleError("%s: %s: %s" % (filename, lname, _text(lib.cr_impact_last_error(imp))),
                              rc)
        n, m = lib.cr_impact_dof_count(imp), lib.cr_impact_contact_count(imp)
        gamma = (_dbl * max(1, m))()
        lib.cr_impact_get_gamma(imp, gamma)
        out = LawResult(
            law=lname, kind=lib.cr_lawcase_kind(lc.value).decode(), dofs=n, contacts=m,
            status=lib.cr_law_status_name(lib.cr_law_result_status(res)).decode(),
            message=_text(lib.cr_law_result_message(res)),
            residual=lib.cr_law_result_residual(res), gamma_minus=np.array(gamma[:m]),
            trace=_text(lib.cr_law_result_trace(res)))
        for k in range(lib.cr_law_result_outcome_count(res)):
            out.velocity.append(_arr(lib.cr_law_result_velocity(res, k), n))
            out.impulse.append(_arr(lib.cr_law_result_impulse(res, k), m))
            out.energy_ratio.append(lib.cr_law_result_energy_ratio(res, k))
        return out
    finally:
        lib.cr_law_result_destroy(res)
        lib.cr_lawcase_destroy(lc.value)


# ---- cradle compare -----------------------------------------------------------------------

def _row(lib, cmp, i, n, m):
    r = lib.cr_compare_get_row(cmp, i).contents
    ok = lambda v: None if v < 0 else bool(v)  # noqa: E731 (−1: no answer)
    return {"law": lib.cr_law_name(r.law).decode(), "mode": lib.cr_compare_mode_name(r.mode).decode(),
            "status": lib.cr_compare_status_name(r.status).decode(),
            "law_status": lib.cr_law_status_name(r.law_status).decode() if r.law_status >= 0 else None,
            "parameter": r.parameter, "error": r.error, "energy_error": r.energy_error,
            "impulse_error": r.impulse_error, "energy_ratio": r.energy_ratio,
            "gamma_ok": ok(r.gamma_ok), "impulse_ok": ok(r.impulse_ok), "energy_ok": ok(r.energy_ok),
            "outcomes": r.outcomes, "chosen": r.chosen, "flags": r.flags,
            "message": _text(r.message),
            "velocity": _opt(lib.cr_compare_row_velocity(cmp, i), n),
            "impulse": _opt(lib.cr_compare_row_impulse(cmp, i), m),
            "parameters": _opt(lib.cr_compare_row_parameters(cmp, i), m)}


def _episode(lib, cmp, k):
    e = CompareEpisode()
    lib.cr_compare_get_episode(cmp, k, C.byref(e))
    return {"index": e.index, "t_start": e.t_start, "dofs": e.dofs, "contacts": e.contacts,
            "reference": e.reference, "kappa": e.kappa, "kappa_min": e.kappa_min,
            "v_perp": e.v_perp, "speed": e.speed, "field_corrected": bool(e.field_corrected),
            "reference_velocity": _arr(lib.cr_compare_reference_velocity(cmp, k), e.dofs),
            "field_impulse": _arr(lib.cr_compare_field_impulse(cmp, k), e.dofs),
            "measured_impulse": _arr(lib.cr_compare_measured_impulse(cmp, k), e.contacts),
            "rows": [_row(lib, cmp, e.first_row + i, e.dofs, e.contacts)
                     for i in range(e.row_count)]}


def _summary(lib, cmp):
    out = []
    for law_ in range(9):  # CR_LAW_COUNT
        for mode in range(2):
            s = CompareSummary()
            lib.cr_compare_summarize(cmp, law_, mode, C.byref(s))
            out.append({"law": lib.cr_law_name(law_).decode(),
                        "mode": lib.cr_compare_mode_name(mode).decode(),
                        "episodes": s.episodes, "answered": s.answered,
                        "status": {lib.cr_compare_status_name(k).decode(): s.status[k]
                                   for k in range(7)},
                        "mean_error": s.mean_error, "max_error": s.max_error,
                        "mean_energy_error": s.mean_energy_error})
    return out


def _compare_run_file(lib, cmp, path, episode):
    msg = C.create_string_buffer(1024)
    f = lib.cr_run_file_open(os.fspath(path).encode(), msg, 1024)
    if not f:
        raise CradleError(msg.value.decode(), -3)
    mdl = None
    try:
        count = lib.cr_run_file_episode_count(f)
        text = _text(lib.cr_run_file_model_text(f))
        if not text:
            raise CradleError("%s: the file holds no model text (fields unknown)" % path, -2)
        mdl, _, _ = L._parse(L.library(), text)
        fields = lib.cr_model_has_fields(mdl)
        data = C.create_string_buffer(_EPISODE_DATA_BYTES)
        laws = C.c_void_p()
        for k in _episode_range(episode, count, path):
            if lib.cr_run_file_episode(f, k, data, C.byref(laws)) != 0:
                raise CradleError(_text(lib.cr_run_file_last_error(f)), -7)
            if lib.cr_compare_add(cmp, k, data, laws, fields) != 0:
                raise CradleError("%s: episode %d: %s"
                                  % (path, k, _text(lib.cr_compare_last_error(cmp))), -2)
    finally:
        L.library().cr_model_destroy(mdl)
        lib.cr_run_file_close(f)


def _episode_range(episode, count, name):
    if count == 0:
        raise CradleError("%s: no impact episodes to compare" % name, -2)
    if episode is None:
        return range(count)
    if not 0 <= episode < count:
        raise CradleError("%s: episode %d out of range (%d episodes)" % (name, episode, count), -2)
    return range(episode, episode + 1)


def _compare_model(lib, cmp, model, episode, sets):
    """The compliant run of @model, monitored, each episode added (cmd-compare.c)."""
    base = L.library()
    mdl, filename, _ = L._parse(base, model, sets)
    msg = C.create_string_buffer(1024)
    sys = mon = None
    try:
        sys = base.cr_system_create(mdl, msg, 1024)
        if not sys:
            raise CradleError("%s: %s" % (filename, msg.value.decode()), -2)
        mon = base.cr_monitor_create(sys)
        end = base.cr_model_settings(mdl).contents.t_end
        rc, stopped = L.stoppable(lambda: base.cr_system_run(sys, end),
                                  lambda: base.cr_system_request_stop(sys))
        if stopped:
            raise KeyboardInterrupt
        if rc != 0:
            raise CradleError("%s: %s" % (filename, base.cr_system_last_error(sys).decode()), rc)
        base.cr_monitor_finish(mon)
        for k in _episode_range(episode, base.cr_monitor_episode_count(mon), filename):
            if lib.cr_compare_add_monitor(cmp, mon, k, mdl) != 0:
                raise CradleError("%s: %s" % (filename, _text(lib.cr_compare_last_error(cmp))), -2)
    finally:
        base.cr_monitor_destroy(mon)
        base.cr_system_destroy(sys)
        base.cr_model_destroy(mdl)


def compare(run_or_model, episode=None, rigid=None, set=None, restitution=None, kappa=None,
            alpha=None, calibrate_on=None):
    """Every rigid law on every impact episode, calibrated and predictive
    (`cradle compare MODEL|RUN.h5 --json`, docs/compare.md): a dict with
    "episodes" (each with its "rows": one per law and mode, with error,
    energy_error, impulse_error, velocity, impulse, status, …) and "summary"
    (per law and mode). run_or_model: a run file written by `cradle run` (read
    as it is), a cradle.Run that has a file, or a model (path, YAML text, dict),
    run first (set: fields to set first, as cradle.run). episode: only that
    one (0-based).

    rigid: a law name or "calibrated" (or a list of them): the compliant run
    against a rigid run per law, collision by collision (`cradle compare MODEL
    --rigid LAW ... --json`, cr_compare_runs): {"compliant", "variants": each
    with "summary" and "rows"}; restitution goes to the laws that have one,
    kappa and alpha to energetic, calibrate_on to calibrated (as the CLI's
    options)."""
    if rigid is not None:
        return _compare_rigid(run_or_model, rigid, set, restitution, kappa, alpha, calibrate_on)
    if restitution is not None or kappa is not None or alpha is not None or calibrate_on:
        raise CradleError("compare: restitution, kappa, alpha and calibrate_on need rigid=LAW", -2)
    lib = _lib()
    source = getattr(run_or_model, "path", None) if hasattr(run_or_model, "episodes") else None
    if hasattr(run_or_model, "episodes") and not source:
        raise CradleError("compare: this cradle.Run has no file (run it with output=...)", -2)
    cmp = lib.cr_compare_create()
    if not cmp:
        raise CradleError("out of memory", -1)
    try:
        path = source or run_or_model
        if isinstance(path, (str, os.PathLike)) and str(path).endswith(".h5"):
            _compare_run_file(lib, cmp, path, episode)
            name = os.fspath(path)
        else:
            _compare_model(lib, cmp, run_or_model, episode, set)
            name = _read_text(run_or_model)[1]
        runs, hits = _size_t(), _size_t()
        lib.cr_compare_cache_stats(cmp, C.byref(runs), C.byref(hits))
        return {"source": name, "two_body_runs": runs.value,
                "episodes": [_episode(lib, cmp, k) for k in range(lib.cr_compare_episode_count(cmp))],
                "summary": _summary(lib, cmp)}
    finally:
        lib.cr_compare_destroy(cmp)


def _struct_dict(x):
    return {name: getattr(x, name) for name, _ in x._fields_}


def _monitored_run(base, sys, end, what):
    """Runs @sys to @end with a monitor (stoppable): (monitor, error text)."""
    mon = base.cr_monitor_create(sys)
    if not mon:
        raise CradleError("out of memory", -1)
    rc, stopped = L.stoppable(lambda: base.cr_system_run(sys, end),
                              lambda: base.cr_system_request_stop(sys))
    base.cr_monitor_finish(mon)
    if stopped:
        base.cr_monitor_destroy(mon)
        raise KeyboardInterrupt
    if rc in (-1, -2):  # before the first step: nothing to compare
        why = base.cr_system_last_error(sys).decode()
        base.cr_monitor_destroy(mon)
        raise CradleError("%s: %s" % (what, why), rc)
    return mon, "" if rc == 0 else base.cr_system_last_error(sys).decode()


def _compare_rigid(model, rigid, sets, restitution, kappa, alpha, calibrate_on):
    """`cradle compare MODEL --rigid LAW ...` (tools/compare-runs.c) over the C
    API: the compliant run, one rigid run per law, cr_compare_runs."""
    laws = [rigid] if isinstance(rigid, str) else list(rigid)
    base = L.library()
    lib = _lib()
    mdl, filename, _ = L._parse(base, model, sets)
    msg = C.create_string_buffer(1024)
    owned = []  # (destroy, handle), freed in reverse
    try:
        csys = base.cr_system_create(mdl, msg, 1024)
        if not csys:
            raise CradleError("%s: %s" % (filename, msg.value.decode()), -2)
        owned.append((base.cr_system_destroy, csys))
        variants = []
        for name in laws:  # every system first: a refusal costs no run
            opts = _variant_options(name, restitution, kappa, alpha)
            sys = L._rigid_system(base, mdl, filename, name, **opts)
            owned.append((base.cr_system_destroy, sys))
            variants.append((name, sys))
        end = base.cr_model_settings(mdl).contents.t_end
        cmon, _ = _monitored_run(base, csys, end, "%s: the compliant run" % filename)
        owned.append((base.cr_monitor_destroy, cmon))
        out = {"source": filename, "compliant": {
            "collisions": base.cr_monitor_collision_count(cmon),
            "t_end": base.cr_system_get_time(csys),
            "end_reason": base.cr_system_end_reason(csys).decode()}, "variants": []}
        for name, sys in variants:
            if name == "calibrated":
                calib = L._calibration(base, mdl, filename, calibrate_on, monitor=cmon)
                owned.append((base.cr_calibrated_rigid_destroy, calib))
                if base.cr_calibrated_rigid_attach(calib, sys, L.RIGID_CALIBRATED_LABEL.encode()):
                    raise CradleError("%s: rigid='calibrated': the calibration does not fit "
                                      "this chain" % filename, -2)
            law = C.create_string_buffer(1024)
            base.cr_system_rigid_law(sys, law, 1024)
            vmon, error = _monitored_run(base, sys, end, "%s: rigid %s" % (filename, name))
            owned.append((base.cr_monitor_destroy, vmon))
            n = base.cr_monitor_collision_count(cmon) + base.cr_monitor_collision_count(vmon)
            rows, summ = (CompareRunsRow * max(1, n))(), CompareRunsSummary()
            if lib.cr_compare_runs(cmon, vmon, rows, n, C.byref(summ)) != 0:
                raise CradleError("compare: the runs of %s cannot be compared" % name, -2)
            count = summ.matched + summ.unmatched_compliant + summ.unmatched_rigid
            out["variants"].append({
                "variant": name, "law": law.value.decode(),
                "end_reason": base.cr_system_end_reason(sys).decode(), "error": error,
                "summary": _struct_dict(summ),
                "rows": [dict(_struct_dict(rows[k]), same_bodies=bool(rows[k].same_bodies))
                         for k in range(count)]})
        return out
    finally:
        for destroy, handle in reversed(owned):
            destroy(handle)
        base.cr_model_destroy(mdl)


def _variant_options(name, restitution, kappa, alpha):
    """The common parameters variant @name takes (compare-runs.c variant_args):
    kappa and alpha for energetic, restitution for the laws with one."""
    opts = {"restitution": None, "kappa": None, "alpha": None}
    if name == "calibrated" or L.law_id(name) == L.law_id("max-dissipation"):
        return opts
    if L.law_id(name) == L.law_id("energetic"):
        return dict(opts, kappa=kappa, alpha=alpha)
    return dict(opts, restitution=restitution)


# ---- cradle sweep -------------------------------------------------------------------------

def sweep(spec, output=None, jobs=None, force=False):
    """Runs every point of the sweep file @spec (docs/sweep.md) into @output
    (default: spec with .h5 for .yaml), as `cradle sweep SPEC -o OUTPUT -j
    JOBS`, and returns it read (cradle.sweep.Sweep). An output of the same
    sweep is resumed. Ctrl-C stops at the next step through the library's stop
    flag, keeps the file with every finished point (status "interrupted") and
    raises KeyboardInterrupt."""
    from . import sweep as sweepfile
    lib = _lib()
    spec = os.fspath(spec)
    if output is None:
        output = (spec[:-5] if spec.endswith(".yaml") else spec) + ".h5"
    output = os.fspath(output)
    msg = C.create_string_buffer(1024)
    s, f = C.c_void_p(), C.c_void_p()
    rc = lib.cr_sweep_load(spec.encode(), C.byref(s), msg, 1024)
    if rc != 0:
        raise CradleError(msg.value.decode(), rc)
    stop = C.c_int(0)
    try:
        rc = lib.cr_sweep_file_open(output.encode(), s, int(bool(force)), C.byref(f), msg, 1024)
        if rc != 0:
            raise CradleError(msg.value.decode(), rc)
        threads = 0 if jobs is None else int(jobs)
        rc, stopped = L.stoppable(
            lambda: lib.cr_sweep_run(s, f, threads, None, None, C.byref(stop)),
            lambda: setattr(stop, "value", 1))
        why = _text(lib.cr_sweep_file_last_error(f)) if rc not in (0, -8) else ""
        status = {0: b"complete", -8: b"interrupted"}.get(rc, b"failed")
        rc2 = lib.cr_sweep_file_close(f, status, msg, 1024)
        f = None
        if rc2 != 0:
            raise CradleError(msg.value.decode(), rc2)
        if stopped:
            raise KeyboardInterrupt
        if rc != 0:
            raise CradleError("%s: %s" % (output, why), rc)
    finally:
        if f:
            lib.cr_sweep_file_close(f, None, None, 0)
        lib.cr_sweep_destroy(s)
    return sweepfile.read(output, isolate=False)


# ---- cradle table -------------------------------------------------------------------------

def table_make(grid, output, check=None, attrs=None):
    """A reference table from a finished sweep output (`cradle table make GRID
    -o OUTPUT [--check CHECK] [--attr NAME=VALUE]`): @check a finished sweep
    over off-grid points gives each column's interpolation bound. Returns
    output."""
    lib = _lib()
    pairs = [x for kv in (attrs or {}).items() for x in (str(kv[0]).encode(), str(kv[1]).encode())]
    arr = (_CP * (len(pairs) + 1))(*pairs, None)
    msg = C.create_string_buffer(1024)
    rc = lib.cr_table_make(os.fspath(grid).encode(), os.fspath(check).encode() if check else None,
                           os.fspath(output).encode(), arr, msg, 1024)
    if rc != 0:
        raise CradleError(msg.value.decode(), rc)
    return os.fspath(output)


def table_lookup(table, columns=None, **keys):
    """Interpolates a reference table at one value per axis (an axis of one
    value may be left out), as `cradle table lookup TABLE KEY=VALUE ...
    --column NAME`: {column: (value, bound)} for @columns (default: every
    column), bound 0 at a grid point, NaN when not estimated. Outside an axis'
    range: CradleError code -11 (the CLI's exit 5), never extrapolated."""
    lib = _lib()
    msg = C.create_string_buffer(1024)
    t = C.c_void_p()
    rc = lib.cr_table_open(os.fspath(table).encode(), C.byref(t), msg, 1024)
    if rc != 0:
        raise CradleError(msg.value.decode() or os.fspath(table), rc)
    try:
        na = lib.cr_table_axis_count(t)
        names = [lib.cr_table_axis_name(t, a).decode() for a in range(na)]
        unknown = [k for k in keys if k not in names]
        if unknown:
            raise CradleError("%s: no axis '%s' (axes: %s)" % (table, unknown[0], ", ".join(names)),
                              -2)
        x = (_dbl * max(1, na))()
        for a, name in enumerate(names):
            if name in keys:
                x[a] = float(keys[name])
            elif lib.cr_table_axis_length(t, a) == 1:
                x[a] = lib.cr_table_axis_value(t, a, 0)
            else:
                raise CradleError("%s: give %s=VALUE (in [%g, %g])" % (
                    table, name, lib.cr_table_axis_value(t, a, 0),
                    lib.cr_table_axis_value(t, a, lib.cr_table_axis_length(t, a) - 1)), -2)
        if columns is None:
            columns = [lib.cr_table_column_name(t, j).decode()
                       for j in range(lib.cr_table_column_count(t))]
        elif isinstance(columns, str):
            columns = [columns]
        out = {}
        v, b = _dbl(), _dbl()
        for col in columns:
            rc = lib.cr_table_value(t, x, col.encode(), C.byref(v), C.byref(b))
            if rc != 0:
                why = _text(lib.cr_table_last_error(t))
                raise CradleError(why if why.startswith(os.fspath(table)) else
                                  "%s: %s: %s" % (table, col, why), rc)
            out[col] = (v.value, b.value)
        return out
    finally:
        lib.cr_table_close(t)


# ---- cradle fit ---------------------------------------------------------------------------

@dataclass
class FitResult:
    """`cradle fit MODEL DATA --vary ... --json`, as plain objects."""
    converged: bool
    convergence: str
    chi2_start: float
    chi2: float
    runs: int
    iterations: int
    failed_runs: int
    parameters: dict      # path → {"start", "value", "std_error", "lo", "hi"}
    correlation: np.ndarray   # (P, P)
    rows: list            # per data row: observable, time, index, value, sigma, model, residual


def _observations(lib, data, need_values=1):
    text, filename = _read_text(data) if "\n" in str(data) else (None, os.fspath(data))
    if text is None:
        with open(filename, "rb") as fh:
            raw = fh.read()
    else:
        raw = text.encode()
    obs, n = _P(FitObservation)(), _size_t()
    msg = C.create_string_buffer(1024)
    rc = lib.cr_fit_data_parse(raw, len(raw), filename.encode(), need_values, C.byref(obs), C.byref(n),
                               msg, 1024)
    if rc != 0:
        raise CradleError(msg.value.decode(), rc)
    return obs, n.value, filename, raw


def fit(model, data, vary, max_iter=50, output=None, set=None):
    """Fits model-file fields to measurements (`cradle fit MODEL DATA --vary
    PATH[=LO:HI] ...`, docs/fit.md). vary: a list of paths, or a dict path →
    None or (lo, hi). data: a CSV path or text (observable,time,index,value,
    sigma). output: also write FIT.h5. set: fields to set first (start values,
    as `--set`; the model fitted is the edited text). A fit that does not converge is a
    FitResult with converged False (the CLI exits 4 then)."""
    lib = _lib()
    # a model that does not read is refused first; the fit takes the edited text
    mdl, filename, text = L._parse(L.library(), model, set)
    L.library().cr_model_destroy(mdl)
    raw = text.encode()
    obs, n, dname, draw = _observations(lib, data)
    f = lib.cr_fit_create(raw, len(raw), filename.encode())
    try:
        if not f:
            raise CradleError("fit: out of memory", -1)
        lib.cr_fit_set_max_iterations(f, int(max_iter))
        items = vary.items() if isinstance(vary, dict) else ((p, None) for p in vary)
        for path, bounds in items:
            lo, hi = (float("nan"), float("nan")) if bounds is None else map(float, bounds)
            rc = lib.cr_fit_add_parameter(f, path.encode(), lo, hi)
            if rc != 0:
                raise CradleError(_text(lib.cr_fit_last_error(f)), rc)
        rc = lib.cr_fit_set_data(f, obs, n, dname.encode())
        if rc != 0:
            raise CradleError(_text(lib.cr_fit_last_error(f)), rc)
        rc, stopped = L.stoppable(lambda: lib.cr_fit_run(f), lambda: None)
        if stopped:
            raise KeyboardInterrupt
        if rc not in (0, -10):  # −10: not converged, reported as data
            raise CradleError(_text(lib.cr_fit_last_error(f)), rc)
        if output is not None:
            _fit_write(lib, f, output, filename, dname, draw)
        return _fit_result(lib, f)
    finally:
        lib.cr_fit_destroy(f)
        L._libc().free(C.cast(obs, C.c_void_p))


class _FitFileInfo(C.Structure):
    _fields_ = [("model_path", _CP), ("data_path", _CP), ("data_text", _CP), ("command", _CP),
                ("predict_model_path", _CP), ("predict_model_text", _CP),
                ("predict_obs", _VP), ("predict_value", _P(_dbl)), ("predict_sigma", _P(_dbl)),
                ("predict_count", _size_t)]


def _fit_write(lib, f, output, model_path, data_path, data_text):
    info = _FitFileInfo(model_path.encode(), data_path.encode(), data_text,
                        b"python: cradle.fit", None, None, None, None, None, 0)
    msg = C.create_string_buffer(1024)
    rc = lib.cr_fit_write(f, os.fspath(output).encode(), C.byref(info), msg, 1024)
    if rc != 0:
        raise CradleError(msg.value.decode(), rc)


def _fit_result(lib, f):
    s = FitSummary()
    lib.cr_fit_get_summary(f, C.byref(s))
    P = lib.cr_fit_parameter_count(f)
    params = {}
    vals = [_dbl() for _ in range(5)]
    for j in range(P):
        lib.cr_fit_get_parameter(f, j, *[C.byref(v) for v in vals])
        params[lib.cr_fit_parameter_path(f, j).decode()] = dict(
            zip(("start", "value", "std_error", "lo", "hi"), (v.value for v in vals)))
    corr = np.array([[lib.cr_fit_correlation(f, i, j) for j in range(P)] for i in range(P)])
    rows = []
    mv, rv = _dbl(), _dbl()
    for i in range(lib.cr_fit_observation_count(f)):
        o = lib.cr_fit_observation_at(f, i).contents
        lib.cr_fit_get_residual(f, i, C.byref(mv), C.byref(rv))
        rows.append({"observable": lib.cr_fit_observable_name(o.kind).decode(), "time": o.time,
                     "index": o.index, "value": o.value, "sigma": o.sigma, "model": mv.value,
                     "residual": rv.value})
    return FitResult(converged=bool(s.converged), convergence=_text(s.convergence),
                     chi2_start=s.chi2_start, chi2=s.chi2, runs=s.runs, iterations=s.iterations,
                     failed_runs=s.failed_runs, parameters=params, correlation=corr, rows=rows)


def synthesize(model, rows, seed, set=None):
    """Synthetic data for cradle.fit (`cradle fit MODEL ROWS --synthetic SEED`):
    the CSV text of @rows (a path or CSV text; value may be empty, sigma
    needed) with the model's values plus Gaussian noise of each row's sigma
    (GSL's MT19937 seeded with @seed; 0: no noise)."""
    lib = _lib()
    mdl, filename, text = L._parse(L.library(), model, set)
    L.library().cr_model_destroy(mdl)
    raw = text.encode()
    obs, n, dname, _ = _observations(lib, rows, need_values=0)
    f = None
    try:
        for i in range(n):
            if not obs[i].sigma > 0:
                raise CradleError("%s:%d: sigma: synthetic data need each row's sigma (the noise)"
                                  % (dname, obs[i].line), -2)
            obs[i].value = 0.0
        f = lib.cr_fit_create(raw, len(raw), filename.encode())
        rc = lib.cr_fit_set_data(f, obs, n, dname.encode())
        values = (_dbl * max(1, n))()
        if rc == 0:
            rc = lib.cr_fit_synthesize(f, int(seed), values)
        if rc != 0:
            raise CradleError(_text(lib.cr_fit_last_error(f)), rc)
        lines = ["# cradle fit --synthetic %d: %s, %s" % (
            seed, filename, "Gaussian noise of each row's sigma" if seed else "no noise"),
            "observable,time,index,value,sigma"]
        for i in range(n):
            o = obs[i]
            lines.append("%s,%s,%s,%.17g,%.12g" % (
                lib.cr_fit_observable_name(o.kind).decode(),
                "" if math.isnan(o.time) else "%.12g" % o.time,
                "%d" % o.index if o.index >= 0 else "", values[i], o.sigma))
        return "\n".join(lines) + "\n"
    finally:
        lib.cr_fit_destroy(f)
        L._libc().free(C.cast(obs, C.c_void_p))
