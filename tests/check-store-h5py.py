#!/usr/bin/python3
"""One chain file and one pool file read with THE SAME h5py code: the recipe
in docs/hdf5-layout.md ("Reading it without cradle"), taken from the document
itself so the docs cannot drift from the files. Then the structure of the two
files is compared (same objects, attributes and columns, except the chain-only
per-contact series the layout names), every table's units are checked, and a
SIGKILLed writer's temporary is opened with h5py.

usage: check-store-h5py.py TEST_STORE TEST_STORE_EPISODES DOCS_MD
Exit 77 (skipped) when h5py is not installed (Debian: python3-h5py).
"""
import os
import re
import subprocess
import sys
import tempfile

try:
    import h5py
    import numpy as np
except ImportError as e:
    print("check-store-h5py: skipped: %s (apt-get install python3-h5py)" % e)
    sys.exit(77)

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL", what)


def recipe(docs):
    text = open(docs, encoding="utf-8").read()
    part = text[text.index("## Reading it without cradle"):]
    code = re.search(r"```python\n(.*?)```", part, re.S).group(1)
    scope = {}
    exec(code, scope)
    return scope["summarize"]


CHAIN_ONLY = {"trajectory/overlap", "trajectory/force", "trajectory/impulse"}


def structure(path):
    """Every object with its attribute names and, for tables, column names."""
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            key = re.sub(r"^episode/\d{4}", "episode/NNNN", name)
            cols = tuple(obj.dtype.names or ()) if isinstance(obj, h5py.Dataset) else ()
            out[key] = (tuple(sorted(obj.attrs.keys())), cols)
        visit("/", f)
        f.visititems(visit)
    return out


def compare(chain, pool, label):
    a, b = structure(chain), structure(pool)
    check(set(b) <= set(a), "%s: pool objects missing in the chain file: %s" % (label, set(b) - set(a)))
    check(set(a) - set(b) <= CHAIN_ONLY,
          "%s: chain objects missing in the pool file: %s" % (label, set(a) - set(b) - CHAIN_ONLY))
    diff = [k for k in set(a) & set(b) if a[k] != b[k]]
    check(not diff, "%s: attributes or columns differ in %s" % (label, diff))


def units(path):
    """Every dataset has units; a table has one unit per column."""
    bad = []
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if not isinstance(obj, h5py.Dataset):
                return
            u = obj.attrs.get("units")
            if u is None:
                bad.append(name)
            elif obj.dtype.names and len(u) != len(obj.dtype.names):
                bad.append(name + " (%d units, %d columns)" % (len(u), len(obj.dtype.names)))
        f.visititems(visit)
    check(not bad, "%s: datasets without proper units: %s" % (path, bad))


def main():
    test_store, test_episodes, docs = sys.argv[1:4]
    summarize = recipe(docs)
    with tempfile.TemporaryDirectory() as d:
        for exe, sub in ((test_store, "plain"), (test_episodes, "episodes")):
            os.mkdir(os.path.join(d, sub))
            r = subprocess.run([exe, "--write", os.path.join(d, sub)], capture_output=True, text=True)
            check(r.returncode == 0, "%s --write: %s%s" % (exe, r.stdout, r.stderr))
            chain, pool = (os.path.join(d, sub, n) for n in ("chain.h5", "pool.h5"))
            kc, dc, tc = summarize(chain)
            kp, dp, tp = summarize(pool)
            check((kc, dc) == ("chain", 1) and (kp, dp) == ("pool", 2),
                  "%s: kinds %s/%s, dims %s/%s" % (sub, kc, kp, dc, dp))
            check(tc > 1 and tp > 1, "%s: trajectories stored (%d, %d rows)" % (sub, tc, tp))
            compare(chain, pool, sub)
            units(chain)
            units(pool)
            with h5py.File(pool, "r") as f:
                check(f["model/text"].asstr()[()] == ("name: pool\n" if sub == "plain"
                                                     else "name: episodes-pool\n# π δ\n"),
                      "%s: model text reads back as str" % sub)
                check(isinstance(f.attrs["status"], str) and f.attrs["status"] == "complete",
                      "%s: string attributes are str: %r" % (sub, f.attrs["status"]))
            if sub == "episodes":
                with h5py.File(chain, "r") as f:
                    check(len(f["episodes"]) == 2 and "W" in f["episode/0000"],
                          "episodes: the fake monitor's two episodes are stored")
        # a killed writer's temporary opens with h5py and says "running"
        out = os.path.join(d, "killed.h5")
        r = subprocess.run([test_store, "--kill-writer", out])
        check(r.returncode == -9, "the writer was SIGKILLed (%d)" % r.returncode)
        left = [n for n in os.listdir(d) if n.startswith("killed.h5.tmp.")]
        check(len(left) == 1, "one temporary left by the killed writer: %s" % left)
        with h5py.File(os.path.join(d, left[0]), "r") as f:
            check(f.attrs["status"] == "running", "killed: status running")
            check(len(f["trajectory/time"]) == 20 and np.all(np.diff(f["trajectory/time"][:]) > 0),
                  "killed: the 20 flushed rows read with h5py")
    print("check-store-h5py: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
