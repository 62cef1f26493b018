#!/usr/bin/python3
"""Same run files from two cradle builds, whole files: runs every model in
models/ with both executables at default settings, compliant and with
`--rigid LAW`, and compares with h5py every group, dataset (values bit for
bit, NaN equal to NaN, dtypes, shapes) and attribute, the writer's pid
excepted. For changes that must not change a file's content: the speed-ups
of issue 22, item 6 (rigid flight, episode groups). writer-equal.py is the
trajectory-only check at an explicit output interval.

Usage: files-equal.py OLD_CRADLE NEW_CRADLE [--rigid LAW] [--models DIR]
                      [--work DIR] [--timeout S]
One line per model and mode; a model both builds refuse (the same exit
status) counts as equal. Summary 'N equal, N differ'; exit 1 on any
difference. Debian's interpreter (python3-h5py, python3-numpy).
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
SKIP = {"writer_pid"}


def equal(u, v):
    u, v = np.asarray(u), np.asarray(v)
    if u.dtype != v.dtype or u.shape != v.shape:
        return False
    if u.dtype.names:
        return all(equal(u[n], v[n]) for n in u.dtype.names)
    return np.array_equal(u, v, equal_nan=u.dtype.kind in "fc")


def differences(a, b, name="/"):
    out = []
    if set(a.attrs) != set(b.attrs):
        out.append(name + ": attribute names")
    for k in a.attrs:
        if k not in SKIP and k in b.attrs and not equal(a.attrs[k], b.attrs[k]):
            out.append("%s: attribute %s" % (name, k))
    if isinstance(a, h5py.Group):
        if set(a) != set(b):
            out.append(name + ": members " + " ".join(sorted(set(a) ^ set(b))))
        for k in a:
            if k in b:
                out += differences(a[k], b[k], name.rstrip("/") + "/" + k)
    elif not equal(a[()], b[()]):
        out.append(name)
    return out


def run(exe, args, out, timeout):
    try:
        return subprocess.run([exe, "run", "-q", "-o", out] + args, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=timeout).returncode
    except subprocess.TimeoutExpired:
        return "timeout"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rigid", default="newton")
    ap.add_argument("--models", default=os.path.join(ROOT, "models"))
    ap.add_argument("--work", default=None)
    ap.add_argument("--timeout", type=float, default=120)
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="files-equal-")
    good = bad = 0
    for model in sorted(glob.glob(os.path.join(a.models, "*.yaml"))):
        name = os.path.basename(model)[:-5]
        for mode, extra in (("compliant", []), ("rigid " + a.rigid, ["--rigid", a.rigid])):
            fa, fb = os.path.join(work, "old.h5"), os.path.join(work, "new.h5")
            ra = run(a.old, [model] + extra, fa, a.timeout)
            rb = run(a.new, [model] + extra, fb, a.timeout)
            if ra != rb:
                diff = ["exit %s against %s" % (ra, rb)]
            elif ra != 0:
                diff, note = [], " (both exit %s)" % ra
            else:
                with h5py.File(fa, "r") as x, h5py.File(fb, "r") as y:
                    diff, note = differences(x, y), ""
            if diff:
                bad += 1
                print("%s, %s: DIFFER: %s" % (name, mode, "; ".join(diff[:5])))
            else:
                good += 1
                print("%s, %s: equal%s" % (name, mode, note))
            sys.stdout.flush()
            for f in (fa, fb):
                if os.path.exists(f):
                    os.remove(f)
    print("%d equal, %d differ" % (good, bad))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
