#!/usr/bin/python3
"""plot-tables: the figures of data/README.md from the tables' CSV twins.

usage: tools/plot-tables.py [DATA_DIR [OUT_DIR]]   (default: data docs)

Writes into OUT_DIR:
  tables-restitution.png  restitution of one visco-elastic Hertz contact versus
                          eps, both release conventions, with the small-eps
                          series of Ramirez et al. 1999;
  tables-chain3.png       alpha of the 3-ball chain versus m2/m1, and versus
                          the gap g/d*;
  tables-cradle.png       velocities after the collision of N-ball cradles;
  tables-column.png       e_cm of a bead column on a wall versus N;
  tables-pool.png         alpha_12 of the three-disc pool versus theta and tau;
  tables-lawmap.png       the law map: the rigid law closest to the compliant
                          outcome per configuration (chain3-hertz, cradle-hertz);
and prints the law map's counts per table (data/README.md quotes them).
Needs python3-matplotlib. tools/make-tables.sh runs it after the tables.
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


def cradle(data, out):
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, law in zip(axes, ("hertz", "linear")):
        r = rows(os.path.join(data, f"cradle-{law}.csv"))
        for n, color in ((3, "C0"), (5, "C1"), (10, "C2")):
            for e, style in (("1", "-"), ("0.95", "--"), ("0.8", ":")):
                x = [p for p in r if int(float(p["N"])) == n and float(p["e"]) == float(e)][0]
                v = [float(x[f"v_final[{i}]"]) for i in range(n)]
                ax.plot(range(1, n + 1), v, style, color=color, marker="o", ms=3,
                        label=f"N = {n}, e = {e}")
        ax.set_xlabel("ball (1 = striker)")
        ax.set_title(f"{law} (data/cradle-{law}.h5)")
        ax.axhline(0, color="0.8", lw=0.5)
    axes[0].set_ylabel("velocity after the collision / striker speed")
    axes[0].legend(fontsize=7, ncol=3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "tables-cradle.png"), dpi=110)


def column(data, out):
    fig, ax = plt.subplots(figsize=(6, 4))
    r = rows(os.path.join(data, "column-restitution.csv"))
    for e in sorted({float(x["e"]) for x in r}):
        pts = sorted((x for x in r if float(x["e"]) == e), key=lambda x: float(x["N"]))
        ax.plot([float(x["N"]) for x in pts], [float(x["e_cm"]) for x in pts], marker="o", ms=3,
                label=f"pair restitution e = {e:g}")
    ax.set_xlabel("beads N")
    ax.set_ylabel("e_cm = -v_cm+ / v_cm-")
    ax.set_title("Column of Hertz beads on a wall (data/column-restitution.h5)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "tables-column.png"), dpi=110)


def pool(data, out):
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    for name, style in (("pool-alpha12", "-"), ("pool-alpha12-rigid", "--")):
        r = rows(os.path.join(data, f"{name}.csv"))
        for tau, color in ((-1.2, "C0"), (0.0, "C1"), (1.2, "C2")):
            pts = sorted((x for x in r if abs(float(x["tau"]) - tau) < 1e-9),
                         key=lambda x: float(x["theta"]))
            a1.plot([math.degrees(float(x["theta"])) for x in pts],
                    [float(x["alpha[1]"]) for x in pts], style, color=color,
                    label=f"{'rigid' if 'rigid' in name else 'finite K'}, tau = {tau:g}")
    rf = rows(os.path.join(data, "pool-alpha12.csv"))
    rr = {(x["theta"], x["tau"]): float(x["alpha[1]"])
          for x in rows(os.path.join(data, "pool-alpha12-rigid.csv"))}
    for tau, color in ((-1.2, "C0"), (0.0, "C1"), (1.2, "C2")):
        pts = sorted((x for x in rf if abs(float(x["tau"]) - tau) < 1e-9),
                     key=lambda x: float(x["theta"]))
        a2.plot([math.degrees(float(x["theta"])) for x in pts],
                [float(x["alpha[1]"]) - rr[(x["theta"], x["tau"])] for x in pts], color=color,
                marker="o", ms=3, label=f"tau = {tau:g}")
    a1.set_xlabel("theta (degrees)")
    a1.set_ylabel("alpha_12 = P23 / P12")
    a1.set_title("Three-disc pool (data/pool-alpha12*.h5)")
    a1.legend(fontsize=7)
    a2.set_xlabel("theta (degrees)")
    a2.set_ylabel("alpha_12(finite K) - alpha_12(rigid)")
    a2.set_title("Turning normals: steel, r = 10 mm, 1 m/s")
    a2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "tables-pool.png"), dpi=110)


def best_law(row, mode):
    """The law of smallest error.LAW.MODE at a row (None when no law has one)."""
    errs = [(float(v), k.split(".")[1]) for k, v in row.items()
            if k.startswith("error.") and k.endswith("." + mode) and v not in ("", "nan")
            and not math.isnan(float(v))]
    return min(errs)[1] if errs else None


def law_map(data, out):
    from collections import Counter
    counts = {}
    for name in ("chain3-hertz", "chain3-linear", "cradle-hertz", "cradle-linear",
                 "column-restitution", "pool-alpha12", "pool-alpha12-rigid"):
        r = rows(os.path.join(data, f"{name}.csv"))
        for mode in ("calibrated", "predictive"):
            counts[(name, mode)] = Counter(best_law(x, mode) for x in r)
            print(f"law map {name} {mode}: " + ", ".join(
                f"{law} {n}" for law, n in counts[(name, mode)].most_common()))
    laws = sorted({law for c in counts.values() for law in c if law})
    cmap = plt.get_cmap("tab10")
    color = {law: cmap(i % 10) for i, law in enumerate(laws)}
    fig, axes = plt.subplots(2, 2, figsize=(10, 8))
    c3 = [x for x in rows(os.path.join(data, "chain3-hertz.csv"))
          if float(x["K23/K12"]) == 1 and float(x["e"]) == 0.9]
    cr = rows(os.path.join(data, "cradle-hertz.csv"))
    for col, mode in enumerate(("calibrated", "predictive")):
        for ax, r, kx, ky, logs in ((axes[0][col], c3, "m2/m1", "m3/m1", True),
                                    (axes[1][col], cr, "N", "e", False)):
            for x in r:
                law = best_law(x, mode)
                ax.scatter(float(x[kx]), float(x[ky]), s=60, marker="s",
                           color=color[law] if law else "w", edgecolors="k", linewidths=0.3)
            if logs:
                ax.set_xscale("log")
                ax.set_yscale("log")
            ax.set_xlabel(kx)
            ax.set_ylabel(ky)
        axes[0][col].set_title(f"chain3-hertz, K23/K12 = 1, e = 0.9: {mode}", fontsize=9)
        axes[1][col].set_title(f"cradle-hertz: {mode}", fontsize=9)
    from matplotlib.patches import Patch
    fig.legend(handles=[Patch(color=color[k], label=k) for k in laws], loc="lower center",
               ncol=len(laws), fontsize=8)
    fig.suptitle("Law map: the rigid law closest to the compliant outcome (first episode)")
    fig.tight_layout(rect=(0, 0.05, 1, 0.97))
    fig.savefig(os.path.join(out, "tables-lawmap.png"), dpi=110)


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else "data"
    out = sys.argv[2] if len(sys.argv) > 2 else "docs"
    restitution(data, out)
    chain3(data, out)
    cradle(data, out)
    column(data, out)
    pool(data, out)
    law_map(data, out)
    print(" ".join(os.path.join(out, f"tables-{n}.png")
                   for n in ("restitution", "chain3", "cradle", "column", "pool", "lawmap")))


if __name__ == "__main__":
    main()
