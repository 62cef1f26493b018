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


def select(r, sort_by, where):
    """The rows of r whose columns hold the numbers of where, sorted by column sort_by."""
    return sorted((x for x in r if all(abs(float(x[k]) - v) < 1e-9 for k, v in where.items())),
                  key=lambda x: float(x[sort_by]))


def curve(r, kx, ky, fmt="", fx=float, **kw):
    """One line of a panel: column ky of the rows r against column kx (through fx)."""
    return ("plot", ([fx(x[kx]) for x in r], [float(x[ky]) for x in r], fmt), kw)


def figure(out, name, panels, grid=(1, 1), size=(10, 4), sharey=False, legend=None,
           suptitle=None, rect=None):
    """Draws OUT/tables-NAME.png: a grid of panels, each a dict of what it draws
    ("draw": (Axes method, args, kwargs) triples), its axis labels, title,
    log axes ("log": "x" or "xy") and legend keywords; legend and suptitle for
    the whole figure."""
    fig, axes = plt.subplots(*grid, figsize=size, sharey=sharey, squeeze=False)
    for ax, p in zip(axes.flat, panels):
        for method, args, kw in p["draw"]:
            getattr(ax, method)(*args, **kw)
        for axis in p.get("log", ""):
            getattr(ax, f"set_{axis}scale")("log")
        ax.set_xlabel(p["xlabel"])
        if "ylabel" in p:
            ax.set_ylabel(p["ylabel"])
        ax.set_title(p["title"], **p.get("title_kw", {}))
        if "legend" in p:
            ax.legend(**p["legend"])
    if legend:
        fig.legend(**legend)
    if suptitle:
        fig.suptitle(suptitle)
    fig.tight_layout(**({"rect": rect} if rect else {}))
    fig.savefig(os.path.join(out, f"tables-{name}.png"), dpi=110)
    plt.close(fig)


def restitution(data, out):
    draw = [curve(rows(os.path.join(data, f"restitution-{rel}.csv")), "eps", "e_N[0]", style,
                  label=f"release {rel} (data/restitution-{rel}.h5)")
            for rel, style in (("gap", "-"), ("force", "--"))]
    c1 = math.sqrt(math.pi) * math.gamma(0.6) / (2 ** 0.2 * 5 ** 0.4 * math.gamma(2.1))
    eps = [10 ** (-3 + 0.05 * k) for k in range(45)]
    draw.append(("plot", (eps, [1 - c1 * e + 0.6 * c1 * c1 * e * e for e in eps], ":"),
                 {"color": "k", "label": "1 - C1 eps + C2 eps^2 (Ramirez et al. 1999)"}))
    figure(out, "restitution", [{
        "draw": draw, "log": "x", "xlabel": "eps = (C/K) (K/mu)^(2/5) v^(1/5)",
        "ylabel": "coefficient of restitution e", "title": "One visco-elastic Hertz contact",
        "legend": {"fontsize": 8}}], size=(6, 4))


def chain3(data, out):
    masses = []
    for law, style in (("hertz", "-"), ("linear", "--")):
        r = rows(os.path.join(data, f"chain3-{law}.csv"))
        masses += [curve(select(r, "m2/m1", {"m3/m1": 1, "K23/K12": 1, "e": float(e)}),
                         "m2/m1", "alpha[1]", style, marker="o", ms=3, label=f"{law}, e = {e}")
                   for e in ("0.8", "0.9", "1")]
    r = rows(os.path.join(data, "chain3-gap.csv"))
    gap = [curve(r, "g/d*", "alpha[1]", marker="o", ms=3, label="alpha (first episode)"),
           curve(r, "g/d*", "e_N[0]", marker="s", ms=3, label="e_N of contact 1-2")]
    figure(out, "chain3", [
        {"draw": masses, "log": "x", "xlabel": "m2/m1 (m3/m1 = 1, K23/K12 = 1)",
         "ylabel": "alpha = P23 / P12",
         "title": "3-ball chain (data/chain3-hertz.h5, chain3-linear.h5)",
         "legend": {"fontsize": 7}},
        {"draw": gap, "xlabel": "gap g/d* between balls 2 and 3",
         "title": "Hertz, undamped, equal masses (data/chain3-gap.h5)",
         "legend": {"fontsize": 8}}], grid=(1, 2))


def cradle(data, out):
    panels = []
    for law in ("hertz", "linear"):
        r = rows(os.path.join(data, f"cradle-{law}.csv"))
        draw = []
        for n, color in ((3, "C0"), (5, "C1"), (10, "C2")):
            for e, style in (("1", "-"), ("0.95", "--"), ("0.8", ":")):
                x = select(r, "N", {"N": n, "e": float(e)})[0]
                draw.append(("plot", (range(1, n + 1), [float(x[f"v_final[{i}]"])
                                                        for i in range(n)], style),
                             {"color": color, "marker": "o", "ms": 3,
                              "label": f"N = {n}, e = {e}"}))
        draw.append(("axhline", (0,), {"color": "0.8", "lw": 0.5}))
        panels.append({"draw": draw, "xlabel": "ball (1 = striker)",
                       "title": f"{law} (data/cradle-{law}.h5)"})
    panels[0]["ylabel"] = "velocity after the collision / striker speed"
    panels[0]["legend"] = {"fontsize": 7, "ncol": 3}
    figure(out, "cradle", panels, grid=(1, 2), sharey=True)


def column(data, out):
    r = rows(os.path.join(data, "column-restitution.csv"))
    draw = [curve(select(r, "N", {"e": e}), "N", "e_cm", marker="o", ms=3,
                  label=f"pair restitution e = {e:g}")
            for e in sorted({float(x["e"]) for x in r})]
    figure(out, "column", [{
        "draw": draw, "xlabel": "beads N", "ylabel": "e_cm = -v_cm+ / v_cm-",
        "title": "Column of Hertz beads on a wall (data/column-restitution.h5)",
        "legend": {"fontsize": 8}}], size=(6, 4))


def pool(data, out):
    taus = ((-1.2, "C0"), (0.0, "C1"), (1.2, "C2"))
    alpha = []
    for name, style in (("pool-alpha12", "-"), ("pool-alpha12-rigid", "--")):
        r = rows(os.path.join(data, f"{name}.csv"))
        alpha += [curve(select(r, "theta", {"tau": tau}), "theta", "alpha[1]", style,
                        fx=lambda t: math.degrees(float(t)), color=color,
                        label=f"{'rigid' if 'rigid' in name else 'finite K'}, tau = {tau:g}")
                  for tau, color in taus]
    rf = rows(os.path.join(data, "pool-alpha12.csv"))
    rr = {(x["theta"], x["tau"]): float(x["alpha[1]"])
          for x in rows(os.path.join(data, "pool-alpha12-rigid.csv"))}
    diff = []
    for tau, color in taus:
        pts = select(rf, "theta", {"tau": tau})
        diff.append(("plot", ([math.degrees(float(x["theta"])) for x in pts],
                              [float(x["alpha[1]"]) - rr[(x["theta"], x["tau"])] for x in pts]),
                     {"color": color, "marker": "o", "ms": 3, "label": f"tau = {tau:g}"}))
    figure(out, "pool", [
        {"draw": alpha, "xlabel": "theta (degrees)", "ylabel": "alpha_12 = P23 / P12",
         "title": "Three-disc pool (data/pool-alpha12*.h5)", "legend": {"fontsize": 7}},
        {"draw": diff, "xlabel": "theta (degrees)",
         "ylabel": "alpha_12(finite K) - alpha_12(rigid)",
         "title": "Turning normals: steel, r = 10 mm, 1 m/s", "legend": {"fontsize": 8}}],
        grid=(1, 2))


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
    c3 = [x for x in rows(os.path.join(data, "chain3-hertz.csv"))
          if float(x["K23/K12"]) == 1 and float(x["e"]) == 0.9]
    cr = rows(os.path.join(data, "cradle-hertz.csv"))
    panels = []
    for r, kx, ky, log, title in ((c3, "m2/m1", "m3/m1", "xy",
                                   "chain3-hertz, K23/K12 = 1, e = 0.9"),
                                  (cr, "N", "e", "", "cradle-hertz")):
        for mode in ("calibrated", "predictive"):
            best = [(x, best_law(x, mode)) for x in r]
            draw = [("scatter", (float(x[kx]), float(x[ky])),
                     {"s": 60, "marker": "s", "color": color[law] if law else "w",
                      "edgecolors": "k", "linewidths": 0.3})
                    for x, law in best]
            panels.append({"draw": draw, "log": log, "xlabel": kx, "ylabel": ky,
                           "title": f"{title}: {mode}", "title_kw": {"fontsize": 9}})
    from matplotlib.patches import Patch
    figure(out, "lawmap", panels, grid=(2, 2), size=(10, 8),
           legend={"handles": [Patch(color=color[k], label=k) for k in laws],
                   "loc": "lower center", "ncol": len(laws), "fontsize": 8},
           suptitle="Law map: the rigid law closest to the compliant outcome (first episode)",
           rect=(0, 0.05, 1, 0.97))


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
