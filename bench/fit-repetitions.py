#!/usr/bin/env python3
"""The 50-repetition study of `cradle fit` (issue 26, docs/experiments.md,
"Repetition study"): does the fit's standard error mean what it says?

A 5-ball pendulum cradle with contact damping C and linear air drag b
(models/fit-cradle-5-drag.yaml) is observed through the velocity of every
ball after each of its 4 collisions in 2 s (20 rows, sigma = 1 mm/s, a
camera's). For each seed 1..N, `cradle fit --synthetic SEED` adds Gaussian
noise of that sigma to the model's rows; `cradle fit` then starts from C and
b 20 % and 50 % off and fits both. Printed: for each parameter the mean
estimate against the truth, the coverage (the share of repetitions whose
interval value +- 1.96 SE holds the truth: 95 % if the standard errors are
right), the mean standard error against the spread (standard deviation) of
the estimates over the repetitions, and the mean C-b correlation.

usage: bench/fit-repetitions.py CRADLE [--reps N] [--model M] [--json OUT]
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRUE = {"contact.C": 5.0e3, "fields.drag.linear": 2.0e-3}
START = {"contact.C": 4.0e3, "fields.drag.linear": 3.0e-3}
BOUNDS = {"contact.C": "0:1e5", "fields.drag.linear": "0:0.1"}
# the 4 collisions of the model start at 0.2255, 0.674, 1.123, 1.572 s
COLLISIONS = [0.2255, 0.674, 1.123, 1.572]
SIGMA = 1e-3


def rows_csv():
    lines = ["observable,time,index,value,sigma"]
    for t in COLLISIONS:
        for ball in range(5):
            lines.append("velocity_after,%g,%d,,%g" % (t, ball, SIGMA))
    return "\n".join(lines) + "\n"


def fit_once(cradle, model, rows, seed, tmp):
    data = os.path.join(tmp, "data-%d.csv" % seed)
    with open(data, "w") as f:
        f.write(subprocess.run([cradle, "fit", model, rows, "--synthetic", str(seed)],
                               check=True, capture_output=True, text=True).stdout)
    cmd = [cradle, "fit", model, data, "--json"]
    for path, value in START.items():
        cmd += ["--set", "%s=%r" % (path, value)]
    for path in TRUE:
        cmd += ["--vary", "%s=%s" % (path, BOUNDS[path])]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("seed %d: cradle fit failed (%d): %s" % (seed, out.returncode, out.stderr))
    return json.loads(out.stdout)


def summary(fits):
    paths = list(TRUE)
    res = {"repetitions": len(fits), "parameters": {}}
    for k, path in enumerate(paths):
        vals = [f["parameters"][k]["value"] for f in fits]
        ses = [f["parameters"][k]["std_error"] for f in fits]
        mean = sum(vals) / len(vals)
        spread = math.sqrt(sum((v - mean) ** 2 for v in vals) / (len(vals) - 1))
        covered = sum(abs(v - TRUE[path]) <= 1.96 * s for v, s in zip(vals, ses))
        res["parameters"][path] = {
            "true": TRUE[path], "mean": mean, "spread": spread,
            "mean_std_error": sum(ses) / len(ses), "covered": covered,
            "coverage": covered / len(fits),
            "se_over_spread": (sum(ses) / len(ses)) / spread}
    res["mean_correlation"] = sum(f["correlation"][0][1] for f in fits) / len(fits)
    res["mean_chi2"] = sum(f["chi2"] for f in fits) / len(fits)
    res["degrees_of_freedom"] = len(fits[0]["observations"]) - len(paths)
    res["runs"] = sum(f["runs"] for f in fits)
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cradle")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "fit-cradle-5-drag.yaml"))
    ap.add_argument("--json")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = os.path.join(tmp, "rows.csv")
        with open(rows, "w") as f:
            f.write(rows_csv())
        fits = []
        for seed in range(1, a.reps + 1):
            fits.append(fit_once(a.cradle, a.model, rows, seed, tmp))
            if not fits[-1]["converged"]:
                print("seed %d: not converged" % seed, file=sys.stderr)
    res = summary(fits)
    res["converged"] = sum(bool(f["converged"]) for f in fits)
    print("%d repetitions (%d converged), %d runs; mean chi2 %.2f on %d degrees of freedom"
          % (res["repetitions"], res["converged"], res["runs"], res["mean_chi2"],
             res["degrees_of_freedom"]))
    print("%-20s %12s %12s %12s %12s %9s %9s" % ("parameter", "true", "mean", "spread",
                                                "mean SE", "SE/spread", "coverage"))
    for path, p in res["parameters"].items():
        print("%-20s %12.5g %12.5g %12.4g %12.4g %9.3f %5d/%d" % (
            path, p["true"], p["mean"], p["spread"], p["mean_std_error"],
            p["se_over_spread"], p["covered"], res["repetitions"]))
    print("mean correlation C-b: %.4f" % res["mean_correlation"])
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
