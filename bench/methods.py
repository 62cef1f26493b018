#!/usr/bin/python3
"""Accuracy vs cost of the chain engine's integration methods (issue 12,
docs/performance.md "Integration methods"): BDF, Adams (both Newton with a
banded LU), Adams with fixed-point iteration and ARKODE's explicit
Runge-Kutta (erk), at each tolerance, on the
3-ball chain, the 5-ball cradle and the 1000-bead chain (pulse to bead 900).
Error = max |v - v_ref| / V of the final velocities against BDF at rtol 1e-13
(atol 1e-15); CPU = median in-process time of create + run (peers-cradle).
Prints a table and the cost interpolated (log-log) at errors 1e-6 and 1e-8,
writes BUILD/methods/results.json and, with matplotlib, accuracy-vs-cost.png.
Prints only; never fails on a number.

Usage: methods.py --build BUILD [--quick] [--out DIR]
"""
import argparse
import json
import math
import os
import subprocess
import sys

METHODS = ["bdf", "adams", "adams-fixed-point", "erk"]
# The pulse reaches bead 900 at 0.02644 s (bench/peers/peers.py, T900).
CASES = [
    {"id": "three", "case": "three", "t_end": 0.0, "title": "3-ball chain",
     "rtols": [1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11]},
    {"id": "five", "case": "five", "t_end": 0.0, "title": "5-ball cradle",
     "rtols": [1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11]},
    {"id": "chain1000", "case": "chain:1000", "t_end": 0.02644,
     "title": "1000-bead chain, pulse to bead 900",
     "rtols": [1e-8, 1e-9, 1e-10, 1e-11, 1e-12]},
]


def run(driver, case, method, rtol, t_end, reps, vel, atol=None):
    cmd = [driver, case, "--method", method, "--rtol", repr(rtol), "--t-end", repr(t_end),
           "--reps", str(reps), "--vel", vel]
    if atol:
        cmd += ["--atol", repr(atol)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return {k: float(v) for k, v in (w.split("=", 1) for w in out.split()) if k in
            ("cpu", "steps", "rhs", "jac", "events", "rc")}


def read(path):
    with open(path) as f:
        return [float(x) for x in f]


def cost_at(pts, err):
    """CPU at error `err`, log-log interpolation between measured points."""
    pts = sorted((p for p in pts if p["err"] > 0), key=lambda p: p["cpu"])
    for a, b in zip(pts, pts[1:]):
        if (a["err"] - err) * (b["err"] - err) <= 0 and a["err"] != b["err"]:
            t = (math.log(err) - math.log(a["err"])) / (math.log(b["err"]) - math.log(a["err"]))
            return math.exp(math.log(a["cpu"]) + t * (math.log(b["cpu"]) - math.log(a["cpu"])))
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--out")
    ap.add_argument("--quick", action="store_true", help="3- and 5-ball only")
    a = ap.parse_args()
    driver = os.path.join(a.build, "bench", "peers-cradle")
    out = a.out or os.path.join(a.build, "methods")
    os.makedirs(out, exist_ok=True)
    res = {"cases": {}}
    for spec in CASES:
        if a.quick and spec["id"] == "chain1000":
            continue
        ref = os.path.join(out, "ref-%s.txt" % spec["id"])
        run(driver, spec["case"], "bdf", 1e-13, spec["t_end"], 1, ref, 1e-15)
        vref = read(ref)
        pts = []
        for method in METHODS:
            for rtol in spec["rtols"]:
                vel = os.path.join(out, "vel.txt")
                r = run(driver, spec["case"], method, rtol, spec["t_end"], 1, vel)
                reps = int(min(31, max(3, 0.3 / max(r["cpu"], 1e-5))))
                if reps > 1:
                    r = run(driver, spec["case"], method, rtol, spec["t_end"], reps, vel)
                # V: the striker's speed, 1 m/s (1 in the 3-ball chain's units)
                err = max(abs(x - y) for x, y in zip(read(vel), vref))
                p = dict(r, method=method, rtol=rtol, err=err)
                pts.append(p)
                print("%-10s %-18s rtol %.0e  err %.2e  cpu %.3e s  steps %6d  rhs %6d  "
                      "jac %5d  events %5d" % (spec["id"], method, rtol, err, r["cpu"],
                                               r["steps"], r["rhs"], r["jac"], r["events"]),
                      flush=True)
        res["cases"][spec["id"]] = {"title": spec["title"], "points": pts}
    print("\ncost at a given error (log-log interpolation; - : not bracketed)")
    print("%-10s %-18s %12s %12s" % ("case", "method", "err 1e-6", "err 1e-8"))
    for cid, case in res["cases"].items():
        for method in METHODS:
            pts = [p for p in case["points"] if p["method"] == method]
            cs = [cost_at(pts, e) for e in (1e-6, 1e-8)]
            print("%-10s %-18s %12s %12s" % (cid, method, *[
                "%.3g ms" % (1e3 * c) if c else "-" for c in cs]))
            case.setdefault("at", {})[method] = cs
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    try:
        plot(res, os.path.join(out, "accuracy-vs-cost.png"))
    except ImportError:
        print("methods: no matplotlib: no plot")


def plot(res, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    cases = list(res["cases"])
    fig, axes = plt.subplots(1, len(cases), figsize=(3.6 * len(cases), 3.4), squeeze=False)
    for ax, cid in zip(axes[0], cases):
        case = res["cases"][cid]
        for method, style in zip(METHODS, ("o-", "s-", "^-", "D-")):
            pts = sorted([p for p in case["points"] if p["method"] == method],
                         key=lambda p: -p["rtol"])
            ax.loglog([p["cpu"] for p in pts], [max(p["err"], 1e-16) for p in pts], style,
                      label=method, ms=3, lw=1)
        ax.set_title(case["title"], fontsize=8)
        ax.set_xlabel("CPU time [s]", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(True, which="both", lw=0.3)
    axes[0][0].set_ylabel("max |v - v_ref| / V", fontsize=8)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    print("methods: plot in %s" % path)


if __name__ == "__main__":
    sys.exit(main())
