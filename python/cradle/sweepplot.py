"""Figures of a sweep file (cradle.sweep), one per kind:

  alpha   the impulse ratios α against the first varying input
  kappa   the kinetic energy ratio κ against it
  laws    the law map: the closest rigid law per point, calibrated and predictive

In alpha and kappa, each combination of the other varying inputs is one line
(a crossed grid over two axes becomes a family of curves), labelled with its
values; failed points are gaps (NaN). The law map places each point at its
first two varying inputs. Every line carries a gid ("alpha[0]:2" is column
alpha[0], line 2; "laws:calibrated:energetic" the points where the energetic
law is closest), so a test can compare it with the file.
"""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

KINDS = ("alpha", "kappa", "laws")
MODES = ("calibrated", "predictive")
MARKERS = "osD^v<>ph*"


def _varying(sw):
    """Input columns with more than one distinct value, in grid order."""
    return [k for k in sw.inputs if np.unique(sw.column(k)).size > 1]


def _groups(sw, x, others):
    """(label, point indices sorted by x) for each combination of the others."""
    keys = np.column_stack([sw.column(k) for k in others]) if others else \
        np.zeros((sw.table.shape[0], 0))
    out = []
    for combo in np.unique(keys, axis=0) if others else [()]:
        idx = np.flatnonzero(np.all(keys == combo, axis=1)) if others else \
            np.arange(sw.table.shape[0])
        idx = idx[np.argsort(sw.column(x)[idx], kind="stable")]
        label = ", ".join("%s = %g" % (k, v) for k, v in zip(others, combo))
        out.append((label, idx))
    return out


def _curves(sw, columns, ylabel, what):
    varying = _varying(sw) or sw.inputs[:1]
    x, others = varying[0], varying[1:]
    groups = _groups(sw, x, others)
    fig, axes = plt.subplots(len(columns), 1, figsize=(7, 2.6 * len(columns) + 0.6),
                             sharex=True, squeeze=False)
    for ax, col in zip(axes[:, 0], columns):
        y = sw.column(col)
        for g, (label, idx) in enumerate(groups):
            ax.plot(sw.column(x)[idx], y[idx], marker=MARKERS[g % len(MARKERS)],
                    label=label or None, gid="%s:%d" % (col, g))
        ax.set_ylabel("%s %s" % (ylabel, col[len(what):]) if col != what else ylabel)
        ax.grid(True, alpha=0.3)
    if len(groups) > 1:
        axes[0, 0].legend(fontsize="small")
    axes[-1, 0].set_xlabel(x)
    fig.suptitle("%s: %s against %s" % (sw.name, what, x))
    fig.tight_layout()
    return fig


def alpha(sw):
    cols = sw.matching("alpha[")
    if not cols:
        raise ValueError("%s: no alpha column" % sw.path)
    return _curves(sw, cols, "α", "alpha")


def kappa(sw):
    return _curves(sw, ["kappa"], "κ", "kappa")


def laws(sw):
    varying = _varying(sw) or sw.inputs[:1]
    x = varying[0]
    y = varying[1] if len(varying) > 1 else None
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    every = sorted(set(sw.laws(MODES[0])) | set(sw.laws(MODES[1])))
    for ax, mode in zip(axes, MODES):
        best = np.array(sw.best_law(mode), dtype=object)
        for k, law in enumerate(every + [""]):
            idx = np.flatnonzero(best == law)
            if idx.size == 0:
                continue
            ys = sw.column(y)[idx] if y else np.zeros(idx.size)
            ax.plot(sw.column(x)[idx], ys, linestyle="none", marker=MARKERS[k % len(MARKERS)],
                    markersize=9, color="C%d" % k, label=law or "none applies",
                    gid="laws:%s:%s" % (mode, law or "none"))
        ax.set_title("closest law, %s" % mode)
        ax.set_xlabel(x)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    axes[0].set_ylabel(y or "")
    fig.suptitle("%s: law map" % sw.name)
    fig.tight_layout()
    return fig


FIGURES = {"alpha": alpha, "kappa": kappa, "laws": laws}


def figure(sw, kind):
    if kind not in FIGURES:
        raise ValueError("unknown sweep plot kind %r (one of %s)" % (kind, ", ".join(KINDS)))
    return FIGURES[kind](sw)


def save(sw, kinds=KINDS, outdir=None, dpi=100):
    """Writes STEM-KIND.png beside the sweep file (or in outdir); @return the paths."""
    outdir = outdir or os.path.dirname(os.path.abspath(sw.path))
    stem = os.path.splitext(os.path.basename(sw.path))[0]
    paths = []
    for kind in kinds:
        fig = figure(sw, kind)
        path = os.path.join(outdir, "%s-%s.png" % (stem, kind))
        fig.savefig(path, dpi=dpi)
        plt.close(fig)
        paths.append(path)
    return paths
