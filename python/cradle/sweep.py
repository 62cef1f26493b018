"""Reading sweep files (written by `cradle sweep`, docs/sweep.md) into a Sweep:
one row per grid point, the inputs first, then the measured outputs (α, κ,
eᴺ, eᴾ per contact, episode count, each law's error in both modes).

    import cradle.sweep
    s = cradle.sweep.read("sweep.h5")
    s.inputs                    # ["m2/m1", ...] the grid's keys, in column order
    s.column("alpha[0]")        # numpy array, one value per point (NaN where failed)
    s.best_law("calibrated")    # the closest law per point ("" where none applies)
"""
from dataclasses import dataclass

import h5py
import numpy as np

KIND = "cradle sweep"


def _text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


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
    """True when path is an HDF5 file written by `cradle sweep`."""
    try:
        with h5py.File(path, "r") as f:
            return _text(f.attrs.get("kind", "")) == KIND
    except OSError:
        return False


def read(path):
    """The Sweep of a file written by `cradle sweep`; ValueError for other files."""
    with h5py.File(path, "r") as f:
        if _text(f.attrs.get("kind", "")) != KIND:
            raise ValueError("%s: not a sweep file (attribute kind is not %r)" % (path, KIND))
        return Sweep(path=path, name=_text(f.attrs.get("name", "")),
                     status=_text(f.attrs.get("status", "")),
                     inputs=[_text(v) for v in f["inputs/name"][()]],
                     fields=[_text(v) for v in f["inputs/field"][()]],
                     columns=[_text(v) for v in f["columns"][()]],
                     table=np.asarray(f["table"][()], float),
                     done=np.asarray(f["done"][()]).astype(bool),
                     errors=[_text(v) for v in f["error"][()]],
                     text=_text(f["sweep/text"][()]))
