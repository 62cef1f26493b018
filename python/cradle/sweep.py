"""Running sweeps (cradle.sweep(spec, jobs=...), cradle.api.sweep) and reading
sweep files (written by `cradle sweep`, docs/sweep.md) into a Sweep:
one row per grid point, the inputs first, then the measured outputs (α, κ,
eᴺ, eᴾ per contact, episode count, each law's error in both modes).

    import cradle.sweep
    s = cradle.sweep.read("sweep.h5")
    s.inputs                    # ["m2/m1", ...] the grid's keys, in column order
    s.column("alpha[0]")        # numpy array, one value per point (NaN where failed)
    s.best_law("calibrated")    # the closest law per point ("" where none applies)
"""
import os
import sys
import types
from dataclasses import dataclass

import h5py
import numpy as np

from . import io

KIND = "cradle sweep"
FORMAT_VERSION = 1


_text = io.text_of


@dataclass
class Sweep:
    path: str
    name: str
    status: str                 # complete, interrupted, ...
    inputs: list                # input keys (the first columns of the table)
    fields: list                # their model-file paths
    columns: list               # every column name, inputs first
    table: np.ndarray           # (points, columns)
    done: np.ndarray            # (points,) bool: computed
    errors: list                # per point: "" or the failed point's error text
    text: str                   # the sweep file's text

    def column(self, name):
        if name not in self.columns:
            raise KeyError("%s: no column %r (columns: %s)" % (self.path, name,
                                                              ", ".join(self.columns)))
        return self.table[:, self.columns.index(name)]

    def matching(self, prefix):
        """Column names that start with prefix, e.g. "alpha[" or "e_N[" """
        return [c for c in self.columns if c.startswith(prefix)]

    def laws(self, mode):
        """Law names that have an error column in this mode."""
        pre, post = "error.", "." + mode
        return [c[len(pre):-len(post)] for c in self.columns
                if c.startswith(pre) and c.endswith(post)]

    def best_law(self, mode):
        """Per point, the law with the smallest error in mode (NaN errors are
        laws that do not apply); "" where no law has a number."""
        laws = self.laws(mode)
        errs = np.column_stack([self.column("error.%s.%s" % (law, mode)) for law in laws])
        out = []
        for row in errs:
            ok = np.isfinite(row)
            out.append(laws[int(np.argmin(np.where(ok, row, np.inf)))] if ok.any() else "")
        return out


def is_sweep(path):
    """True when path is an HDF5 file written by `cradle sweep` (its kind attribute
    read in a child process, as read() does: docs/errors.md)."""
    return io.file_kind(path) == KIND


def _strings(f, name, shape):
    d = f[name] if name in f else None
    if not isinstance(d, h5py.Dataset) or d.dtype.kind != "S":
        raise io._Bad("/%s: missing or not fixed-length strings" % name)
    if d.shape != shape:
        raise io._Bad("/%s: shape %s where %s is expected" % (name, d.shape, shape))
    return [_text(v) for v in d[()].reshape(-1)]


def _read(path):
    io.c_check(path, "sweep")
    with h5py.File(path, "r") as f:
        if _text(f.attrs.get("kind", "")) != KIND:
            raise io._Bad("not a sweep file (attribute kind is not %r)" % KIND)
        if f.attrs.get("format_version") != FORMAT_VERSION:
            raise io._Bad("format_version %s, this reader knows %d"
                          % (f.attrs.get("format_version"), FORMAT_VERSION))
        if "table" not in f or len(f["table"].shape) != 2:
            raise io._Bad("/table: missing or not points x columns")
        points, ncol = f["table"].shape
        table = np.asarray(io._dataset(f, "table", (points, ncol)), float)
        if "inputs/name" not in f or len(f["inputs/name"].shape) != 1:
            raise io._Bad("/inputs/name: missing or not one name per input")
        nin = f["inputs/name"].shape[0]
        inputs = _strings(f, "inputs/name", (nin,))
        if nin > ncol:
            raise io._Bad("/inputs/name: %d inputs for %d columns" % (nin, ncol))
        done = io._dataset(f, "done", (points,))
        if np.any((done != 0) & (done != 1)):
            raise io._Bad("/done: values other than 0 and 1")
        return Sweep(path=path, name=_text(f.attrs.get("name", "")),
                     status=_text(f.attrs.get("status", "")),
                     inputs=inputs,
                     fields=_strings(f, "inputs/field", (nin,)),
                     columns=_strings(f, "columns", (ncol,)),
                     table=table,
                     done=np.asarray(done).astype(bool),
                     errors=_strings(f, "error", (points,)),
                     text=io._text(f, "sweep/text"))


def read(path, isolate=True, timeout=None):
    """The Sweep of a file written by `cradle sweep`; ValueError (one line
    naming the file and the dataset) for other or damaged files. isolate and
    timeout as cradle.read: read in a child process by default."""
    path = os.fspath(path)
    if isolate:
        return io.isolated(_read, path, timeout)
    return io._checked(_read, path)


class _CallableModule(types.ModuleType):
    """cradle.sweep is both this module (cradle.sweep.read) and the function
    that runs a sweep (cradle.sweep(spec, jobs=...): cradle.api.sweep)."""

    def __call__(self, spec, output=None, jobs=None, force=False):
        from .api import sweep as run_sweep
        return run_sweep(spec, output=output, jobs=jobs, force=force)


sys.modules[__name__].__class__ = _CallableModule
