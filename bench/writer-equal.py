#!/usr/bin/python3
"""Same trajectory from two cradle builds: runs every model in models/ with
both executables at one explicit output interval and compares, with h5py,
every dataset of /trajectory and /events (values bit for bit, NaN equal to
NaN), the shapes, and /final. The writer may change chunks, compression and
buffering, never a value (issue 22, "Tests"). Format 3's column indices
(/trajectory/bodies, /trajectory/contacts) must list every column.

Usage: writer-equal.py OLD_CRADLE NEW_CRADLE [--interval S] [--models DIR]
                       [--work DIR] [--set PATH=VALUE ...]
Prints one line per model and a summary line 'N passed, N failed'; exit 1 on
any difference. Debian's interpreter (python3-h5py, python3-numpy).
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def datasets(f, group):
    out = {}
    if group not in f:
        return out
    g = f[group]
    if isinstance(g, h5py.Dataset):
        return {group: g}
    g.visititems(lambda name, obj: out.__setitem__(group + "/" + name, obj)
                 if isinstance(obj, h5py.Dataset) else None)
    return out


def same(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    x, y = a[()], b[()]
    if a.dtype.names:  # compound: field by field
        return all(same_array(x[n], y[n]) for n in a.dtype.names)
    return same_array(x, y)


def same_array(x, y):
    x, y = np.ascontiguousarray(x), np.ascontiguousarray(y)
    if x.dtype.kind == "f":
        return x.shape == y.shape and (x.tobytes() == y.tobytes() or
                                       np.array_equal(x, y, equal_nan=True))
    return np.array_equal(x, y)


def run(exe, model, out, interval, sets):
    cmd = [exe, "run", "-q", "-o", out, model, "--set", "output.interval=%r" % interval]
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stderr.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--interval", type=float, default=1e-5)
    ap.add_argument("--models", default=os.path.join(ROOT, "models"))
    ap.add_argument("--work", default=None)
    ap.add_argument("--set", action="append", default=[], dest="sets")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="writer-equal-")
    os.makedirs(work, exist_ok=True)
    passed = failed = 0
    for model in sorted(glob.glob(os.path.join(a.models, "*.yaml"))):
        name = os.path.basename(model)[:-5]
        paths = [os.path.join(work, "%s-%s.h5" % (name, k)) for k in ("old", "new")]
        rcs = [run(exe, model, p, a.interval, a.sets) for exe, p in zip((a.old, a.new), paths)]
        if rcs[0][0] != rcs[1][0]:
            print("FAIL %-26s exit %d (old) vs %d (new): %s" % (name, rcs[0][0], rcs[1][0],
                                                               rcs[1][1][:200]))
            failed += 1
            continue
        if not all(os.path.exists(p) for p in paths):
            print("FAIL %-26s no output (exit %d: %s)" % (name, rcs[1][0], rcs[1][1][:160]))
            failed += 1
            continue
        with h5py.File(paths[0], "r") as fo, h5py.File(paths[1], "r") as fn:
            bad, rows, count = [], 0, 0
            for group in ("trajectory", "events", "final"):
                do, dn = datasets(fo, group), datasets(fn, group)
                # format 3 adds the column indices of /trajectory: every body
                # and contact at the default output (arange), nothing else new
                for k in ("trajectory/bodies", "trajectory/contacts"):
                    if k in dn and k not in do:
                        if not np.array_equal(dn[k][()], np.arange(dn[k].shape[0])):
                            bad.append(k + " not every column")
                        del dn[k]
                if sorted(do) != sorted(dn):
                    bad.append("%s: datasets %s vs %s" % (group, sorted(do), sorted(dn)))
                    continue
                for k in do:
                    count += 1
                    if not same(do[k], dn[k]):
                        bad.append(k)
            if "trajectory/time" in fn:
                rows = fn["trajectory/time"].shape[0]
            chunks = fn["trajectory/position"].chunks if "trajectory/position" in fn else None
        sizes = [os.path.getsize(p) for p in paths]
        if bad:
            print("FAIL %-26s differs: %s" % (name, ", ".join(bad)))
            failed += 1
        else:
            print("ok   %-26s %5d rows, %2d datasets equal; file %8d -> %8d bytes; position "
                  "chunks %s" % (name, rows, count, sizes[0], sizes[1], chunks))
            passed += 1
        for p in paths:
            os.remove(p)
    print("writer-equal: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
