#!/usr/bin/env python3
"""Rigid runs against the compliant runs they replace, whole processes
(issue 22, item 6; docs/performance.md, "Rigid runs against compliant runs").

`cradle run MODEL` and `cradle run MODEL --rigid LAW` with the same output
settings, in turn (C R C R ...), user + system CPU of each finished process
(wait4); each ratio compliant / rigid is the median of the rounds' ratios, so
a drift of a shared machine's speed cancels. Three settings:

  default     the model as it is (25,001 rows for the pendulum cradle)
  C given     the damping the model's restitution target solves at load
              (two-body compliant runs, src/calibrate) written into a copy of
              the model as contact.C, the rigid run given the same restitution
              (--restitution E): the same results without the load-time solve
  no rows     --set output=none (episodes, events, collisions still written)

Usage (or `ninja -C build bench-rigid-whole`): rigid-whole.py [--cradle PATH] [--model PATH] [--law newton] [--rounds N]
                      [--work DIR]
Runs under Debian's /usr/bin/python3 (h5py reads the solved C). Prints only;
never fails on a number.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def proc(cmd):
    """User + system CPU seconds of one whole process."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    rc = os.waitstatus_to_exitcode(status)
    if rc != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), rc, err[-300:]))
    return ru.ru_utime + ru.ru_stime


def given_damping(cradle, model, work):
    """A copy of MODEL whose restitution target is replaced by the C it
    solves (read from a run's /contacts), and that restitution."""
    import h5py  # Debian's python3-h5py

    out = os.path.join(work, "solved.h5")
    proc([cradle, "run", "-q", model, "--set", "integration.t_end=1e-6", "-o", out])
    with h5py.File(out, "r") as f:
        C = float(f["contacts"]["C"][0])
    text = open(model).read()
    e = re.search(r"^  restitution: *([0-9.eE+-]+)", text, re.M)
    if not e:
        return None, None
    text = re.sub(r"^  restitution: .*\n", "  C: %r\n" % C, text, flags=re.M)
    text = re.sub(r"^  reference_speed: .*\n", "", text, flags=re.M)
    path = os.path.join(work, "given-C.yaml")
    with open(path, "w") as f:
        f.write(text)
    return path, e.group(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cradle", default=os.path.join(ROOT, "build", "tools", "cradle"))
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "pendulum-cradle-5.yaml"))
    ap.add_argument("--law", default="newton")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--work", default=None)
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="rigid-whole-")
    out = os.path.join(work, "run.h5")
    base = [a.cradle, "run", "-q", "-o", out]
    settings = [("default", [a.model], [])]
    given, e = given_damping(a.cradle, a.model, work)
    if given:
        settings.append(("C given", [given], ["--restitution", e]))
    settings.append(("no rows", [a.model, "--set", "output=none"], []))
    print("# %s, --rigid %s; user + sys CPU, medians of %d rounds in turn" % (
        os.path.basename(a.model), a.law, a.rounds))
    print("| setting | compliant | rigid | compliant / rigid |")
    print("|---|---|---|---|")
    for name, args, extra in settings:
        comp, rig = base + args, base + args + ["--rigid", a.law] + extra
        proc(comp), proc(rig)  # warm-up
        tc, tr = [], []
        for _ in range(a.rounds):
            tc.append(proc(comp))
            tr.append(proc(rig))
        ratio = statistics.median(c / r for c, r in zip(tc, tr))
        print("| %s | %.3f s | %.4f s | %.2f (%.2f-%.2f) |" % (
            name, statistics.median(tc), statistics.median(tr), ratio,
            min(c / r for c, r in zip(tc, tr)), max(c / r for c, r in zip(tc, tr))))
        sys.stdout.flush()
    if os.path.exists(out):
        os.remove(out)


if __name__ == "__main__":
    main()
