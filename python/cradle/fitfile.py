"""Reading fit files (written by `cradle fit -o FIT.h5`, docs/fit.md and
docs/hdf5-layout.md "Fit files") into a Fit: the fitted fields with standard
errors and correlations, every data row with the model's value at the result,
and the prediction's rows when `--predict` ran.

    import cradle.fitfile
    fit = cradle.fitfile.read("fit.h5")
    fit.paths, fit.value, fit.std_error    # the --vary fields, fitted values, errors
    fit.rows["residual"]                   # (model - value) / sigma per data row
"""
import os
from dataclasses import dataclass

import h5py
import numpy as np

from . import io

KIND = "cradle fit"
FORMAT_VERSION = 1
ROW_FIELDS = ("line", "observable", "time", "index", "value", "sigma", "model")


_text = io.text_of


@dataclass
class Fit:
    path: str
    status: str             # converged, not-converged
    paths: list             # the --vary fields, in order
    start: np.ndarray
    value: np.ndarray
    std_error: np.ndarray
    correlation: np.ndarray  # (p, p)
    rows: dict              # data rows: ROW_FIELDS + "residual", numpy arrays
    observables: list       # the observable's name per data row
    prediction: dict        # None, or rows as above with "model_sigma" (and "observables")
    model_text: str
    data_text: str


def is_fit(path):
    """True when path is an HDF5 file written by `cradle fit -o` (its kind attribute
    read in a child process, as read() does: docs/errors.md)."""
    return io.file_kind(path) == KIND


def _rows(f, name, last):
    table = io._dataset(f, name, (-1,), kind="table")
    io._columns(table, name, ROW_FIELDS + (last,))
    names = h5py.check_enum_dtype(f[name].dtype["observable"]) or {}
    by_value = {v: k for k, v in names.items()}
    out = {k: np.asarray(table[k], float) for k in ROW_FIELDS + (last,) if k != "observable"}
    out["observables"] = [by_value.get(int(v), "?") for v in table["observable"]]
    return out


def _read(path):
    with h5py.File(path, "r") as f:
        if _text(f.attrs.get("kind", "")) != KIND:
            raise io._Bad("not a fit file (attribute kind is not %r)" % KIND)
        if f.attrs.get("format_version") != FORMAT_VERSION:
            raise io._Bad("format_version %s, this reader knows %d"
                          % (f.attrs.get("format_version"), FORMAT_VERSION))
        t = io._dataset(f, "fit/parameters", (-1,), kind="table")
        io._columns(t, "fit/parameters", ("start", "value", "std_error"))
        p = t.shape[0]
        paths = [_text(v) for v in np.asarray(f["fit/parameters"].attrs.get("paths", []))
                 .reshape(-1)]
        if len(paths) != p:
            raise io._Bad("/fit/parameters: %d paths for %d rows" % (len(paths), p))
        rows = _rows(f, "fit/observations", "residual")
        pred = _rows(f, "prediction/observations", "model_sigma") \
            if "prediction/observations" in f else None
        return Fit(path=path, status=_text(f["fit"].attrs.get("status", "")), paths=paths,
                   start=np.asarray(t["start"], float), value=np.asarray(t["value"], float),
                   std_error=np.asarray(t["std_error"], float),
                   correlation=np.asarray(io._dataset(f, "fit/correlation", (p, p)), float),
                   rows=rows, observables=rows.pop("observables"), prediction=pred,
                   model_text=io._text(f, "fit/model_text"),
                   data_text=io._text(f, "fit/data_text"))


def read(path, isolate=True, timeout=None):
    """The Fit of a file written by `cradle fit -o`; ValueError (one line
    naming the file and the dataset) for other or damaged files; read in a
    child process by default (as cradle.read)."""
    path = os.fspath(path)
    if isolate:
        return io.isolated(_read, path, timeout)
    return io._checked(_read, path)
