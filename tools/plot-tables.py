#!/usr/bin/python3
"""plot-tables: the figures of data/README.md from the tables' CSV twins.

usage: tools/plot-tables.py [DATA_DIR [OUT_DIR]]   (default: data docs)

Writes OUT_DIR/tables-restitution.png (restitution of one visco-elastic Hertz
contact versus eps, both release conventions, with the small-eps series of
Ramirez et al. 1999) and OUT_DIR/tables-chain3.png (alpha and kappa of the
3-ball chain versus m2/m1, and versus the gap g/d*). Needs python3-matplotlib.
tools/make-tables.sh runs it after the tables.
"""
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(path):
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if r["status"] == "ok"]


def restitution(data, out):
    fig, ax = plt.subplots(figsize=(6, 4))
    for rel, style in (("gap", "-"), ("force", "--")):
        r = rows(os.path.join(data, f"restitution-{rel}.csv"))
        ax.plot([float(x["eps"]) for x in r], [float(x["e_N[0]"]) for x in r], style,
                label=f"release {rel} (data/restitution-{rel}.h5)")
    c1 = math.sqrt(math.pi) * math.gamma(0.6) / (2 ** 0.2 * 5 ** 0.4 * math.gamma(2.1))
    eps = [10 ** (-3 + 0.05 * k) for k in range(45)]
    ax.plot(eps, [1 - c1 * e + 0.6 * c1 * c1 * e * e for e in eps], ":", color="k",
            label="1 - C1 eps + C2 eps^2 (Ramirez et al. 1999)")
    ax.set_xscale("log")
    ax.set_xlabel("eps = (C/K) (K/mu)^(2/5) v^(1/5)")
    ax.set_ylabel("coefficient of restitution e")
    ax.set_title("One visco-elastic Hertz contact")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "tables-restitution.png"), dpi=110)


def chain3(data, out):
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    for law, style in (("hertz", "-"), ("linear", "--")):
        r = rows(os.path.join(data, f"chain3-{law}.csv"))
        for e in ("0.8", "0.9", "1"):
            pts = [x for x in r if float(x["m3/m1"]) == 1 and float(x["K23/K12"]) == 1
                   and float(x["e"]) == float(e)]
            pts.sort(key=lambda x: float(x["m2/m1"]))
            a1.plot([float(x["m2/m1"]) for x in pts], [float(x["alpha[1]"]) for x in pts],
                    style, marker="o", ms=3, label=f"{law}, e = {e}")
    a1.set_xscale("log")
    a1.set_xlabel("m2/m1 (m3/m1 = 1, K23/K12 = 1)")
    a1.set_ylabel("alpha = P23 / P12")
    a1.set_title("3-ball chain (data/chain3-hertz.h5, chain3-linear.h5)")
    a1.legend(fontsize=7)
    r = rows(os.path.join(data, "chain3-gap.csv"))
    g = [float(x["g/d*"]) for x in r]
    a2.plot(g, [float(x["alpha[1]"]) for x in r], marker="o", ms=3, label="alpha (first episode)")
    a2.plot(g, [float(x["e_N[0]"]) for x in r], marker="s", ms=3, label="e_N of contact 1-2")
    a2.set_xlabel("gap g/d* between balls 2 and 3")
    a2.set_title("Hertz, undamped, equal masses (data/chain3-gap.h5)")
    a2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "tables-chain3.png"), dpi=110)


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else "data"
    out = sys.argv[2] if len(sys.argv) > 2 else "docs"
    restitution(data, out)
    chain3(data, out)
    print(os.path.join(out, "tables-restitution.png"), os.path.join(out, "tables-chain3.png"))


if __name__ == "__main__":
    main()
