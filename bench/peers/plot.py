#!/usr/bin/python3
"""Accuracy vs cost from a `peers.py --json` file: error (max |v - v_ref| / V)
against CPU seconds, cradle's BDF, Adams and Adams with fixed-point iteration at each rtol and LAMMPS at each
time step, one panel per case. Debian's python3-matplotlib.

Usage: plot.py RESULTS.json OUT.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PANELS = ["three", "five", "chain1000", "pool"]


def main():
    res = json.load(open(sys.argv[1]))
    cases = [c for c in PANELS if c in res["cases"]]
    fig, axes = plt.subplots(1, len(cases), figsize=(4.2 * len(cases), 4.0), squeeze=False)
    for ax, cid in zip(axes[0], cases):
        case = res["cases"][cid]
        for method, style in (("bdf", "o-"), ("adams", "s-"), ("adams-fixed-point", "v-")):
            pts = sorted([p for p in case["cradle"] if p["method"] == method],
                         key=lambda p: -p["rtol"])
            if pts:
                ax.loglog([p["cpu"] for p in pts], [max(p["err"], 1e-16) for p in pts], style,
                          label="cradle %s" % {"bdf": "BDF", "adams": "Adams"}.get(
                              method, "Adams, fixed point"), ms=4)
                for p in pts:
                    ax.annotate("%.0e" % p["rtol"], (p["cpu"], max(p["err"], 1e-16)),
                                fontsize=6, xytext=(3, 3), textcoords="offset points")
        pts = sorted(case["lammps"], key=lambda p: -p["dt"])
        if pts:
            ax.loglog([p["cpu"] for p in pts], [max(p["err"], 1e-16) for p in pts], "^-",
                      label="LAMMPS velocity-Verlet", ms=4)
        ax.set_title(case["title"], fontsize=9)
        ax.set_xlabel("CPU time [s]")
        ax.grid(True, which="both", lw=0.3)
    axes[0][0].set_ylabel("max |v - v_ref| / V")
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Accuracy vs cost (%s; labels: rtol)" % res["date"], fontsize=10)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
