"""Figures of a sweep file (cradle.sweep), one per kind:

  alpha   the impulse ratios α against the first varying input
  kappa   the kinetic energy ratio κ against it
  laws    the law map: the closest rigid law per point, calibrated and predictive

In alpha and kappa, each combination of the other varying inputs is one line
(a crossed grid over two axes becomes a family of curves), labelled with its
values; failed points are gaps (NaN). The law map places each point at its
first two varying inputs.

No constant panels: an α column with the same value at every point (α of
the reference contact is 1 by definition) and a law-map mode whose closest
law is the same at every point (calibrated: the energetic law, exact by
construction) are not drawn; the figure's title says which and what value.
A sweep axis is logarithmic when its values are (`scale: log` in the sweep
file, or three or more positive values in geometric progression), and every
sweep axis carries the unit of its model field (UNITS). Legends sit beside
the axes (constrained layout). Every line carries a gid ("alpha[0]:2" is
column alpha[0], line 2; "laws:calibrated:energetic" the points where the energetic
law is closest), so a test can compare it with the file.
"""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib import ticker  # noqa: E402

KINDS = ("alpha", "kappa", "laws")
MODES = ("calibrated", "predictive")
MARKERS = "osD^v<>ph*"


# Units of the model fields a sweep varies, by the field path's last name
# (docs/model-format.md); "–" dimensionless. K and C depend on n and m.
UNITS = {"mass": "kg", "density": "kg/m³", "radius": "m", "x": "m", "gap": "m", "v": "m/s",
         "velocity": "m/s", "pivot": "m", "offset": "m", "E": "Pa", "nu": "–", "K": "N/m^n",
         "n": "–", "C": "N s/m^(m+1)", "m": "–", "restitution": "–", "reference_speed": "m/s",
         "length": "m", "g": "m/s²", "gravity": "m/s²", "angle": "rad", "theta": "rad",
         "tau": "–", "t_end": "s", "rtol": "–", "atol": "–", "k": "N/m", "c": "N s/m",
         "EA": "N", "elements": "–", "count": "–", "interval": "s", "drag": "kg/m"}


def field_unit(field):
    """The unit of a model field by its dotted path ("balls[1].mass" -> "kg"),
    None when the table does not know it."""
    last = field.replace("]", "").split(".")[-1].split("[")[0]
    return UNITS.get(last)


def axis_label(sw, key):
    """"KEY (unit)", naming the field when the key is not the field itself."""
    field = sw.fields[sw.inputs.index(key)] if key in sw.inputs else key
    unit = field_unit(field)
    name = key if field == key else "%s: %s" % (key, field)
    return "%s (%s)" % (name, unit) if unit else name


def _log_in_text(sw, key):
    """True when the sweep file's axis with this key (or field) says scale: log."""
    try:
        import yaml
        spec = yaml.safe_load(sw.text)
    except Exception:  # no PyYAML or an unreadable text: the values decide
        return False
    axes = spec.get("axes", []) if isinstance(spec, dict) else []
    for ax in axes if isinstance(axes, list) else []:
        for a in (ax.get("zip") or [ax]) if isinstance(ax, dict) else []:
            if isinstance(a, dict) and key in (a.get("key"), a.get("field")):
                r = a.get("range")
                return isinstance(r, dict) and r.get("scale") == "log"
    return False


def is_log_spaced(sw, key):
    """A log axis: scale: log in the sweep file, or >= 3 positive values in
    geometric progression (ratios equal to 1e-9)."""
    v = np.unique(sw.column(key)[np.isfinite(sw.column(key))])
    if v.size < 2 or v[0] <= 0:
        return False
    if _log_in_text(sw, key):
        return True
    r = v[1:] / v[:-1]
    return v.size >= 3 and bool(np.all(np.abs(r - r[0]) <= 1e-9 * r[0]))


def _sweep_axis(sw, ax, key, which="x"):
    (ax.set_xlabel if which == "x" else ax.set_ylabel)(axis_label(sw, key))
    if is_log_spaced(sw, key):
        (ax.set_xscale if which == "x" else ax.set_yscale)("log")
        # plain numbers (0.5, not 5×10⁻¹); minor ticks labelled within a decade
        axis = ax.xaxis if which == "x" else ax.yaxis
        plain = ticker.FuncFormatter(lambda v, _: "%g" % v)
        axis.set_major_formatter(plain)
        v = sw.column(key)[np.isfinite(sw.column(key))]
        axis.set_minor_formatter(plain if v.max() / v.min() <= 10 else ticker.NullFormatter())


def _constant(y):
    """The single value of a column that is the same at every computed point, else None."""
    f = y[np.isfinite(y)]
    return float(f[0]) if f.size and np.all(f == f[0]) else None


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
    const = [(c, _constant(sw.column(c))) for c in columns]
    dropped = [(c, v) for c, v in const if v is not None]
    columns = [c for c, v in const if v is None] or columns[:1]
    dropped = [(c, v) for c, v in dropped if c not in columns]
    fig, axes = plt.subplots(len(columns), 1, figsize=(9, 2.6 * len(columns) + 0.8),
                             sharex=True, squeeze=False, layout="constrained")
    for ax, col in zip(axes[:, 0], columns):
        y = sw.column(col)
        for g, (label, idx) in enumerate(groups):
            ax.plot(sw.column(x)[idx], y[idx], marker=MARKERS[g % len(MARKERS)],
                    label=label or None, gid="%s:%d" % (col, g))
        # α and κ are ratios: dimensionless
        ax.set_ylabel("%s (–)" % (ylabel + col[len(what):] if col != what else ylabel))
        ax.grid(True, alpha=0.3)
    if len(groups) > 1:
        axes[0, 0].legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1),
                          borderaxespad=0)
    _sweep_axis(sw, axes[-1, 0], x)
    title = "%s: %s against %s" % (sw.name, what, x)
    if dropped:
        title += "\n(not drawn, the same at every point: %s)" % ", ".join(
            "%s%s = %g" % (ylabel, c[len(what):], v) for c, v in dropped)
    fig.suptitle(title)
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
    every = sorted(set(sw.laws(MODES[0])) | set(sw.laws(MODES[1])))
    best = {m: np.array(sw.best_law(m), dtype=object) for m in MODES}
    same = {m: best[m][0] for m in MODES if len(best[m]) and np.all(best[m] == best[m][0])}
    modes = [m for m in MODES if m not in same] or [MODES[-1]]
    fig, axes = plt.subplots(1, len(modes), figsize=(5 * len(modes) + 2.5, 4), sharey=True,
                             squeeze=False, layout="constrained")
    axes = axes[0]
    for ax, mode in zip(axes, modes):
        for k, law in enumerate(every + [""]):
            idx = np.flatnonzero(best[mode] == law)
            if idx.size == 0:
                continue
            ys = sw.column(y)[idx] if y else np.zeros(idx.size)
            ax.plot(sw.column(x)[idx], ys, linestyle="none", marker=MARKERS[k % len(MARKERS)],
                    markersize=9, color="C%d" % k, label=law or "none applies",
                    gid="laws:%s:%s" % (mode, law or "none"))
        ax.set_title("closest law, %s" % mode)
        _sweep_axis(sw, ax, x)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    if y:
        _sweep_axis(sw, axes[0], y, "y")
    else:
        axes[0].set_yticks([])
    title = "%s: law map" % sw.name
    hidden = [m for m in same if m not in modes]
    if hidden:
        title += "\n(not drawn: %s)" % ", ".join(
            "closest %s law %s at every point" % (m, same[m] or "none") for m in hidden)
    fig.suptitle(title)
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
