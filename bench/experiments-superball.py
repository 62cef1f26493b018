#!/usr/bin/env python3
"""The drop-height table of docs/experiments.md ("A published measurement"):
the SuperBall's contact time fitted at 40 cm (data/measured/superball-drop.csv)
under the linear law (models/superball-drop.yaml) and the Hertz law
(models/superball-drop-hertz.yaml), each predicted at the other drop heights
of the measurement (70, 100, 130, 160 cm; impact speed sqrt(2 g h)) with
`cradle fit --predict`, beside the reported 8.4 +- 1 ms.

usage: bench/experiments-superball.py [CRADLE] [--figure PNG]
(run from the repository root; CRADLE defaults to `cradle` on PATH)
"""
import argparse
import json
import math
import os
import subprocess
import tempfile

G = 9.81
HEIGHTS = [0.40, 0.70, 1.00, 1.30, 1.60]  # m: "from 40 to 160 cm every 30 cm"
REPORTED, SIGMA = 8.4e-3, 1e-3
START_SPEED = "-2.8014"  # the models' v: a 40 cm fall
LAWS = [("linear", "models/superball-drop.yaml", ["contact.K=1e3:1e7", "contact.C=0:1e3"]),
        ("Hertz", "models/superball-drop-hertz.yaml", ["contact.K=1e4:1e8", "contact.C=0:1e5"])]
DATA = "data/measured/superball-drop.csv"


def predict(cradle, model, vary, speed, tmp):
    """(time, its standard uncertainty) of the contact at the given speed."""
    text = open(model, encoding="utf-8").read()
    assert text.count("v: " + START_SPEED) == 1, model
    other = os.path.join(tmp, "drop.yaml")
    with open(other, "w", encoding="utf-8") as f:
        f.write(text.replace("v: " + START_SPEED, "v: -%.4f" % speed))
    cmd = [cradle, "fit", model, DATA, "--predict", other, "--json"]
    for v in vary:
        cmd += ["--vary", v]
    out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    row = out["prediction"]["observations"][0]
    assert row["observable"] == "contact_duration"
    return row["model"], row["model_sigma"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cradle", nargs="?", default="cradle")
    ap.add_argument("--figure")
    a = ap.parse_args()
    table = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, model, vary in LAWS:
            table[name] = [predict(a.cradle, model, vary, math.sqrt(2 * G * h), tmp)
                           for h in HEIGHTS]
    print("height    speed  reported      linear law          Hertz law")
    for k, h in enumerate(HEIGHTS):
        (tl, sl), (th, sh) = table["linear"][k], table["Hertz"][k]
        print("%3.0f cm  %.4f  %.1f ms  %.2f +- %.2f ms  %.2f +- %.2f ms"
              % (100 * h, math.sqrt(2 * G * h), 1e3 * REPORTED, 1e3 * tl, 1e3 * sl,
                 1e3 * th, 1e3 * sh))
    if a.figure:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 4.6), layout="constrained")
        hs = [100 * h for h in HEIGHTS]
        ax.axhspan(1e3 * (REPORTED - SIGMA), 1e3 * (REPORTED + SIGMA), color="0.85",
                   label="reported: 8.4 ± 1 ms at every height")
        for (name, _, _), dx, fmt in zip(LAWS, (-2, 2), ("o", "s")):
            ax.errorbar([h + dx for h in hs], [1e3 * t for t, _ in table[name]],
                        yerr=[1e3 * s for _, s in table[name]], fmt=fmt, capsize=3,
                        label="%s law, fitted at 40 cm" % name)
        ax.set_xlabel("drop height (cm)")
        ax.set_ylabel("contact time (ms)")
        ax.set_title("SuperBall on a floor: cradle fit at 40 cm, predicted above")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize="small")
        fig.savefig(a.figure, dpi=100)


if __name__ == "__main__":
    main()
