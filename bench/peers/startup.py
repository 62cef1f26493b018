#!/usr/bin/env python3
"""Start-up of the cradle CLI (issue 12): `cradle --version` and `cradle run`
of the default model, whole processes.

For each binary: the shared libraries it loads (ldd), the dynamic linker's
relocations (LD_DEBUG=statistics), instructions executed (valgrind's callgrind:
repeatable on a shared machine) and CPU time (user + sys from wait4; medians
of interleaved runs, and with a second binary the median of the pairwise
ratios A/B). Prints only.

Usage: startup.py CRADLE [CRADLE_B] [--runs N]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(ROOT, "models", "newton-cradle-5.yaml")


def commands(exe, tmp):
    return {"--version": [exe, "--version"],
            "run": [exe, "run", "-q", "-o", os.path.join(tmp, "out.h5"), MODEL]}


def cpu(cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime


def libs(exe):
    out = subprocess.run(["ldd", exe], capture_output=True, text=True).stdout
    return len([l for l in out.splitlines() if l.strip()])


def relocations(cmd):
    env = dict(os.environ, LD_DEBUG="statistics")
    err = subprocess.run(cmd, capture_output=True, text=True, env=env).stderr
    m = re.search(r"final number of relocations: (\d+)", err) or re.search(
        r"number of relocations: (\d+)", err)
    return int(m.group(1)) if m else None


def instructions(cmd):
    try:
        err = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] +
                             cmd, capture_output=True, text=True).stderr
    except OSError:
        return None
    m = re.search(r"Collected : (\d+)", err)
    return int(m.group(1)) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe", nargs="+", help="one or two cradle binaries (A, B)")
    ap.add_argument("--runs", type=int, default=21)
    args = ap.parse_args()
    exes = [os.path.abspath(e) for e in args.exe[:2]]
    with tempfile.TemporaryDirectory() as tmp:
        print("| binary | command | libraries (ldd) | relocations | instructions | "
              "CPU median [ms] |")
        print("|---|---|---|---|---|---|")
        times = {}
        for what in ("--version", "run"):
            cmds = [commands(e, tmp)[what] for e in exes]
            for c in cmds:  # warm-up
                cpu(c)
            t = [[] for _ in cmds]
            for _ in range(args.runs):
                for i, c in enumerate(cmds):
                    t[i].append(cpu(c))
            times[what] = t
            for i, e in enumerate(exes):
                print("| %s | %s | %d | %s | %s | %.1f |" % (
                    "AB"[i] if len(exes) > 1 else e, what, libs(e), relocations(cmds[i]),
                    instructions(cmds[i]), 1e3 * statistics.median(t[i])))
        if len(exes) > 1:
            print()
            for what, t in times.items():
                r = [a / b for a, b in zip(t[0], t[1]) if b > 0]
                print("A/B CPU, %s: median of %d pairs %.3f (%.3f-%.3f)" % (
                    what, len(r), statistics.median(r), min(r), max(r)))
            for i, e in enumerate(exes):
                print("%s = %s" % ("AB"[i], e))


if __name__ == "__main__":
    sys.exit(main())
