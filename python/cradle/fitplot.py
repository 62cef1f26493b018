"""The figure of a fit file (cradle.fitfile): data against the fitted model.

One panel per observable of the data file (velocity_after, contact_duration,
e_cm, opening_span, peak_force, swing_extreme), the rows in file order: each measurement with its ±σ bar
and the model's value at the result beside it; under it, the residuals
(model − value)/σ with the ±1 and ±2 bands. With a prediction (`--predict`)
a last row of panels shows the predicted values with their propagated ±σ.
Every plotted line carries a gid ("data:velocity_after",
"model:velocity_after", "residual", "prediction:contact_duration") so a test
can compare it with the file.
"""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

KINDS = ("fit",)
UNITS = {"velocity_after": "m/s", "contact_duration": "s", "e_cm": "1", "opening_span": "s", "peak_force": "N",
         "swing_extreme": "m"}


def _kinds_present(names):
    return [k for k in UNITS if k in names]


def figure(fit):
    """The matplotlib figure of a Fit."""
    kinds = _kinds_present(fit.observables)
    pred = fit.prediction
    pkinds = _kinds_present(pred["observables"]) if pred else []
    ncol = max(len(kinds), len(pkinds), 1)
    nrow = 2 + (1 if pkinds else 0)
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.2 * ncol, 3.0 * nrow), squeeze=False)
    obs = np.array(fit.observables)
    r = fit.rows
    for j, k in enumerate(kinds):
        idx = np.flatnonzero(obs == k)
        line = r["line"][idx]
        ax = axes[0][j]
        ax.errorbar(line, r["value"][idx], yerr=r["sigma"][idx], fmt="o", ms=4, capsize=3,
                    label="data ± σ", gid="data:" + k)
        ax.plot(line, r["model"][idx], "x", ms=8, label="fitted model", gid="model:" + k)
        ax.set_title(k)
        ax.set_xlabel("line of the data file")
        ax.set_ylabel("%s [%s]" % (k, UNITS[k]))
        ax.legend(fontsize=8)
        ax = axes[1][j]
        ax.axhspan(-2, 2, color="0.92")
        ax.axhspan(-1, 1, color="0.82")
        ax.plot(line, r["residual"][idx], "o", ms=4, gid="residual:" + k)
        ax.axhline(0, color="k", lw=0.5)
        ax.set_xlabel("line of the data file")
        ax.set_ylabel("(model − value)/σ")
    for j, k in enumerate(pkinds):
        pobs = np.array(pred["observables"])
        idx = np.flatnonzero(pobs == k)
        ax = axes[2][j]
        ax.errorbar(pred["line"][idx], pred["model"][idx], yerr=pred["model_sigma"][idx], fmt="s",
                    ms=4, capsize=3, label="predicted ± σ", gid="prediction:" + k)
        ax.set_title("prediction: " + k)
        ax.set_xlabel("line of the rows file")
        ax.set_ylabel("%s [%s]" % (k, UNITS[k]))
        ax.legend(fontsize=8)
    for ax in axes.flat:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    for i in range(nrow):
        used = len(kinds) if i < 2 else len(pkinds)
        for j in range(used, ncol):
            axes[i][j].set_visible(False)
    fields = ", ".join("%s = %.6g ± %.2g" % (p, v, e)
                       for p, v, e in zip(fit.paths, fit.value, fit.std_error))
    fig.suptitle("%s (%s): %s" % (os.path.basename(fit.path), fit.status, fields), fontsize=9)
    fig.tight_layout()
    return fig


def save(fit, kinds=KINDS, outdir=None, dpi=100):
    """Writes FILE-fit.png beside the file (or into outdir); yields its path."""
    base = os.path.splitext(fit.path)[0]
    if outdir:
        base = os.path.join(outdir, os.path.basename(base))
    for k in kinds:
        fig = figure(fit)
        path = "%s-%s.png" % (base, k)
        fig.savefig(path, dpi=dpi)
        plt.close(fig)
        yield path
