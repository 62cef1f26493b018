"""Figures of a run (chains and pools), one per kind:

  trajectory  positions and velocities against time
  forces      contact forces (chains: every output row; pools: at the located events),
              with the located force maxima of every contact and episode (markers)
  impulses    accumulated contact impulses ∫ f dt (chains: rows; pools: events)
  energy      kinetic, potential, dissipated and their sum, with the relative balance
  episodes    impact episodes: a timeline and the table
  collisions  collisions (episodes of one impact together): a timeline and the table
  paths       (pools only) the x–y path of every moving body, start and end
              marked, the walls as lines; for spheres (dim 3) the x–y, x–z
              and y–z projections (spheres at the end as circles of their
              radius, walls as their traces) and an x–y–z view (walls as
              translucent polygons clipped to the box of the paths)
  runs        (a file of `cradle compare MODEL --rigid LAW -o FILE` only) each rigid
              variant against the compliant run per collision: phase, u+ error,
              energy kept (product of the collisions' kappa)

Every plotted line carries a gid naming what it shows ("x:3" is body 3's x
position, "force:2" contact 2's force, "collision:0" the first collision's
span), so a test can compare it with the file. Collision spans are shaded in
the time plots.
"""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from . import xdmf  # noqa: E402

KINDS = ("trajectory", "forces", "impulses", "energy", "episodes", "collisions")
TABLE_ROWS = 25
LEGEND_MAX = 8
COMPONENTS = "xyz"


def _title(run, what):
    return "%s: %s (%s, %d bod%s)" % (run.name, what, run.kind, run.body_count,
                                       "y" if run.body_count == 1 else "ies")


def _shade_collisions(ax, run):
    for c in run.collisions:
        ax.axvspan(c.t_start, c.t_end, color="0.85", zorder=0, gid="collision:%d" % c.index)


def _end_name(run, b):
    """A contact's end: "wall W" for half-plane wall W (body_b = -1 - W),
    "wall (body I)" for a chain's fixed body, else "body I"."""
    b = int(b)
    if b < 0:
        return "wall %d" % (-1 - b)
    return "wall (body %d)" % b if not run.moving[b] else "body %d" % b


def contact_label(run, k):
    """The legend name of contact k (row of /contacts) by its two ends:
    "body 0–body 1", "body 2–wall 0"."""
    c = run.contacts[k]
    return "%s–%s" % (_end_name(run, c["body_a"]), _end_name(run, c["body_b"]))


def _legend(ax, n):
    """Outside the axes, right of them (constrained layout makes room): a
    legend never covers data."""
    if 0 < n <= LEGEND_MAX:
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1),
                  borderaxespad=0)


def trajectory(run):
    """Positions and velocities against time (pools: one panel per component)."""
    moving = np.flatnonzero(run.moving)
    d = run.dim
    fig, axes = plt.subplots(2, d, figsize=(7 * d + 1.5, 6), sharex=True, squeeze=False,
                             layout="constrained")
    for c in range(d):
        comp = COMPONENTS[c] if d > 1 else ""
        for row, (data, name, unit) in enumerate(((run.position, "position", "m"),
                                                  (run.velocity, "velocity", "m/s"))):
            ax = axes[row][c]
            for i in moving:
                gid = ("x:%d" if row == 0 else "v:%d") % i if d == 1 else \
                    ("%s%s:%d" % ("" if row == 0 else "v", COMPONENTS[c], i))
                ax.plot(run.time, data[:, i, c], lw=0.8, label="body %d" % i, gid=gid)
            ax.set_ylabel(("%s %s (%s)" % (name, comp, unit)).replace("  ", " "))
            _shade_collisions(ax, run)
            if row == 0 and c == d - 1:     # one legend, right of the top-right panel
                _legend(ax, len(moving))
        axes[1][c].set_xlabel("time (s)")
    fig.suptitle(_title(run, "positions and velocities"))
    return fig


def _pool_event_series(run, column):
    """Per contact: event times and the column's values (pools have no series)."""
    ev = run.events
    out = {}
    for k in np.unique(ev["contact"]):
        sel = ev["contact"] == k
        out[int(k)] = (ev["time"][sel], ev[column][sel])
    return out


def _draw_peaks(ax, run):
    """The located force maxima of each contact and episode (the stored rows
    may step over a contact that lasts less than an output interval), as
    markers in the colour of the contact's line where it has one."""
    colours = {ln.get_gid(): ln.get_color() for ln in ax.get_lines()}
    peaks = run.located_peaks()
    for n, (k, (t, f)) in enumerate(peaks.items()):
        c = colours.get("force:%d" % k) or colours.get("event-force:%d" % k)
        ax.plot(t, f, "v", ms=5, mfc="none", color=c, gid="peak:%d" % k,
                label="located peaks" if n == 0 else None)


def forces(run):
    """Contact forces: chains every row, pools at the located events."""
    fig, ax = plt.subplots(figsize=(9.5, 4.5), layout="constrained")
    if run.force is not None:
        for k in range(run.force.shape[1]):
            ax.plot(run.time, run.force[:, k], lw=0.8, label=contact_label(run, k),
                    gid="force:%d" % k)
        n = run.force.shape[1]
        ax.set_ylabel("contact force (N)")
    else:
        series = _pool_event_series(run, "force")
        for k, (t, f) in series.items():
            ax.plot(t, f, ".", ms=3, label=contact_label(run, k), gid="event-force:%d" % k)
        n = len(series)
        ax.set_ylabel("contact force at events (N)")
    _draw_peaks(ax, run)
    ax.set_xlabel("time (s)")
    _shade_collisions(ax, run)
    _legend(ax, n)
    fig.suptitle(_title(run, "contact forces"))
    return fig


def impulses(run):
    """Accumulated impulses ∫ f dt from t = 0: chains every row; pools at the
    events, with the value at the end from /contacts."""
    fig, ax = plt.subplots(figsize=(9.5, 4.5), layout="constrained")
    if run.impulse is not None:
        for k in range(run.impulse.shape[1]):
            ax.plot(run.time, run.impulse[:, k], lw=0.8, label=contact_label(run, k),
                    gid="impulse:%d" % k)
        n = run.impulse.shape[1]
    else:
        series = _pool_event_series(run, "impulse")
        for k, (t, p) in series.items():
            t = np.append(t, run.final_time)
            p = np.append(p, run.contacts["impulse"][k])
            ax.plot(t, p, drawstyle="steps-post", lw=0.8, label=contact_label(run, k),
                    gid="event-impulse:%d" % k)
        n = len(series)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("accumulated impulse (N s)")
    _shade_collisions(ax, run)
    _legend(ax, n)
    fig.suptitle(_title(run, "accumulated contact impulses"))
    return fig


def energy(run):
    """T, U, dissipated, their sum, and (T + U + D − E0) / E0."""
    fig, (ax, bx) = plt.subplots(2, 1, figsize=(9.5, 6), sharex=True, layout="constrained")
    T, U, D = run.kinetic_energy, run.potential_energy, run.dissipated_work
    S = T + U + D
    for y, name, gid in ((T, "kinetic T", "kinetic"), (U, "potential U", "potential"),
                         (D, "dissipated D", "dissipated"), (S, "T + U + D", "total")):
        ax.plot(run.time, y, lw=0.9, label=name, gid=gid)
    ax.set_ylabel("energy (J)")
    _legend(ax, 4)
    E0 = S[0] if len(S) else 0.0
    bal = (S - E0) / abs(E0) if E0 != 0 else S - E0
    bx.plot(run.time, bal, lw=0.9, color="k", gid="balance")
    bx.set_ylabel("(T + U + D - E0) / |E0|")
    bx.set_xlabel("time (s)")
    for a in (ax, bx):
        _shade_collisions(a, run)
    fig.suptitle(_title(run, "energy balance"))
    return fig


def _bodies_text(b):
    b = np.asarray(b)
    if len(b) > 1 and np.all(np.diff(b) == 1):
        return "%d-%d" % (b[0], b[-1])
    if len(b) == 1:
        return "%d" % b[0]
    return " ".join(str(x) for x in b) if len(b) <= 4 else "%d bodies" % len(b)


def _fmt(v, spec):
    return "nan" if isinstance(v, float) and np.isnan(v) else format(v, spec)


def episode_rows(run):
    """The table's rows (strings): index, t_start, t_end, bodies, reference, kappa, collision."""
    coll = run.episode_collision()
    return [[str(e.index), _fmt(e.t_start, ".6f"), _fmt(e.t_end, ".6f"), _bodies_text(e.bodies),
             str(e.reference), _fmt(e.kappa, ".9f"), str(coll[k])]
            for k, e in enumerate(run.episodes)]


EPISODE_COLUMNS = ["episode", "t_start (s)", "t_end (s)", "bodies", "reference", "kappa",
                   "collision"]
COLLISION_COLUMNS = ["collision", "t_start (s)", "t_end (s)", "episodes", "bodies", "T- (J)",
                     "T+ (J)", "kappa"]


def collision_rows(run):
    return [[str(c.index), _fmt(c.t_start, ".6f"), _fmt(c.t_end, ".6f"), str(len(c.episodes)),
             _bodies_text(c.bodies), _fmt(c.T_minus, ".6g"), _fmt(c.T_plus, ".6g"),
             _fmt(c.kappa, ".9f")] for c in run.collisions]


def _timeline_and_table(run, items, rows, columns, what, gid):
    # the table's panel as tall as its rows (no half-empty page), laid out
    # with its caption below the timeline's axis label (constrained layout)
    table_h = 0.2 * (min(len(rows), TABLE_ROWS) + 1) + 0.2
    fig, (ax, tx) = plt.subplots(2, 1, figsize=(10, 3.2 + table_h), layout="constrained",
                                 gridspec_kw={"height_ratios": [2.6, table_h]})
    for it in items:
        b = np.asarray(it.bodies)
        lo, hi = (b.min(), b.max()) if len(b) else (0, 0)
        # at least 0.2 % of the run wide, so that millisecond spans show on a 10 s axis
        width = max(it.t_end - it.t_start, 2e-3 * max(run.final_time, 1e-300))
        ax.broken_barh([(it.t_start, width)], (lo - 0.4, hi - lo + 0.8),
                       gid="%s:%d" % (gid, it.index), alpha=0.6)
    ax.set_xlim(0, run.final_time if run.final_time > 0 else 1)
    ax.set_ylim(-0.6, run.body_count - 0.4)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("bodies")
    tx.axis("off")
    shown = rows[:TABLE_ROWS]
    if shown:
        t = tx.table(cellText=shown, colLabels=columns, bbox=[0, 0, 1, 1], cellLoc="right")
        t.auto_set_font_size(False)
        t.set_fontsize(7)
        t.set_gid("table")
    more = len(rows) - len(shown)
    tx.set_title("%d %s%s" % (len(rows), what, " (first %d shown)" % len(shown) if more else ""),
                 fontsize="small")
    fig.suptitle(_title(run, what))
    return fig


def episodes(run):
    return _timeline_and_table(run, run.episodes, episode_rows(run), EPISODE_COLUMNS,
                               "impact episodes", "episode")


def collisions(run):
    title = "collisions"
    if np.isfinite(run.collision_window):
        title += " (window %.4g s)" % run.collision_window
    return _timeline_and_table(run, run.collisions, collision_rows(run), COLLISION_COLUMNS, title,
                               "collision")


PLANES = ((0, 1), (0, 2), (1, 2))     # the projections of a 3-D paths figure


def wall_trace(normal, offset, plane, lo, hi):
    """A half-space wall n·p = offset seen in the projection on @plane (two
    component indices) of the 3-D box [lo, hi]: its section by the plane
    through the box's middle along the third component, clipped to the box
    ((2, 2) ends), and True when the wall is edge-on (its normal has no third
    component: the section is then the wall's exact projection, the same at
    every depth); None when the wall is parallel to the projection plane or
    its section misses the box."""
    a, b = plane
    c = 3 - a - b
    n = np.asarray(normal, float)
    if n[a] == 0 and n[b] == 0:
        return None
    mid = 0.5 * (lo[c] + hi[c])
    seg = xdmf.wall_segment(n[[a, b]], offset - n[c] * mid, lo[[a, b]], hi[[a, b]])
    return None if seg is None else (seg, n[c] == 0)


def _projection(ax, run, plane, lo, hi, colours):
    """One projection panel of a 3-D paths figure: paths, start and end
    marks, every sphere at its final position as a circle of its radius,
    the walls' traces (gids carry the plane's name: "path:xz:3")."""
    a, b = plane
    name = COMPONENTS[a] + COMPONENTS[b]
    for i in np.flatnonzero(run.moving):
        x, y = run.position[:, i, a], run.position[:, i, b]
        ln, = ax.plot(x, y, lw=0.9, label="body %d" % i, color=colours.get(i),
                      gid="path:%s:%d" % (name, i))
        colours[i] = ln.get_color()
        ax.plot(x[:1], y[:1], "o", mfc="none", color=colours[i], gid="start:%s:%d" % (name, i))
        ax.plot(x[-1:], y[-1:], "s", color=colours[i], ms=4, gid="end:%s:%d" % (name, i))
    final = run.final_position if run.final_position is not None else run.position[-1]
    for i in range(run.body_count):
        ax.add_patch(plt.Circle((final[i, a], final[i, b]), run.radius[i], fill=False, lw=0.8,
                                color=colours.get(i, "0.4"), gid="sphere:%s:%d" % (name, i)))
    for w, (n, off) in enumerate(zip(run.wall_normal, run.wall_offset)):
        trace = wall_trace(n, off, plane, lo, hi)
        if trace is not None:
            seg, edge_on = trace
            ax.plot(seg[:, 0], seg[:, 1], "k-" if edge_on else "k--", lw=2 if edge_on else 1.2,
                    gid="wall:%s:%d" % (name, w))
            ax.annotate("wall %d" % w, seg.mean(axis=0), fontsize="small", ha="center",
                        va="bottom")
    ax.set_xlim(lo[a], hi[a])
    ax.set_ylim(lo[b], hi[b])
    ax.set_aspect("equal")
    ax.set_xlabel("%s (m)" % COMPONENTS[a])
    ax.set_ylabel("%s (m)" % COMPONENTS[b])
    ax.set_title("%s–%s projection" % (COMPONENTS[a], COMPONENTS[b]), fontsize="medium")
    ax.grid(alpha=0.3)


def _view3d(ax, run, lo, hi, colours):
    """The x–y–z view: paths, start and end marks, each wall's polygon in
    the box (translucent, gid "wall-patch:xyz:W", outlined: "wall:xyz:W")."""
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection
    for i in np.flatnonzero(run.moving):
        p = run.position[:, i, :]
        ax.plot(p[:, 0], p[:, 1], p[:, 2], lw=0.9, color=colours.get(i), gid="path:xyz:%d" % i)
        ax.plot(p[:1, 0], p[:1, 1], p[:1, 2], "o", mfc="none", color=colours.get(i),
                gid="start:xyz:%d" % i)
        ax.plot(p[-1:, 0], p[-1:, 1], p[-1:, 2], "s", ms=4, color=colours.get(i),
                gid="end:xyz:%d" % i)
    for w, (n, off) in enumerate(zip(run.wall_normal, run.wall_offset)):
        poly = xdmf.wall_polygon(n, off, lo, hi)
        if poly is None:
            continue
        ax.add_collection3d(Poly3DCollection([poly], alpha=0.15, facecolor="0.3",
                                             edgecolor="none", gid="wall-patch:xyz:%d" % w))
        ring = np.vstack([poly, poly[:1]])
        ax.plot(ring[:, 0], ring[:, 1], ring[:, 2], "k-", lw=0.8, gid="wall:xyz:%d" % w)
        c = poly.mean(axis=0)
        ax.text(c[0], c[1], c[2], "wall %d" % w, fontsize="small", ha="center")
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_zlim(lo[2], hi[2])
    ax.set_box_aspect(hi - lo)      # equal scales: a sphere's path keeps its shape
    for axis, k in ((ax.set_xlabel, 0), (ax.set_ylabel, 1), (ax.set_zlabel, 2)):
        axis("%s (m)" % COMPONENTS[k])
    ax.set_title("x–y–z view", fontsize="medium")


def _paths3d(run):
    """Spheres (dim 3): the x–y, x–z and y–z projections and an x–y–z view,
    all over the box of the paths widened by two radii."""
    fig = plt.figure(figsize=(12, 10), layout="constrained")
    panels = [fig.add_subplot(2, 2, k + 1) for k in range(3)]
    lo, hi = xdmf.path_box(run.position, run.radius, 3)
    colours = {}
    for ax, plane in zip(panels, PLANES):
        _projection(ax, run, plane, lo, hi, colours)
    _view3d(fig.add_subplot(2, 2, 4, projection="3d"), run, lo, hi, colours)
    moving = np.flatnonzero(run.moving)
    if 0 < len(moving) <= LEGEND_MAX:
        panels[1].legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.suptitle(_title(run, "paths (projections and x–y–z view); o start, ■ end, "
                        "circles: spheres at the end"))
    return fig


def paths(run):
    """x–y paths of a pool's moving bodies, with the walls (gid "wall:W") in
    the box of the paths; for spheres (dim 3) three projections and an
    x–y–z view (_paths3d)."""
    if run.dim < 2:
        raise ValueError("%s: the paths figure is for pools (dim 2); a chain moves on a line "
                         "(see trajectory)" % run.path)
    if run.dim == 3:
        return _paths3d(run)
    fig, ax = plt.subplots(figsize=(7, 6), layout="constrained")
    moving = np.flatnonzero(run.moving)
    for i in moving:
        x, y = run.position[:, i, 0], run.position[:, i, 1]
        ln, = ax.plot(x, y, lw=0.9, label="body %d" % i, gid="path:%d" % i)
        ax.plot(x[:1], y[:1], "o", mfc="none", color=ln.get_color(), gid="start:%d" % i)
        ax.plot(x[-1:], y[-1:], "s", color=ln.get_color(), ms=4, gid="end:%d" % i)
    lo, hi = xdmf.path_box(run.position, run.radius)
    for w, (n, off) in enumerate(zip(run.wall_normal, run.wall_offset)):
        seg = xdmf.wall_segment(n, off, lo, hi)
        if seg is not None:
            ax.plot(seg[:, 0], seg[:, 1], "k-", lw=2, gid="wall:%d" % w)
            ax.annotate("wall %d" % w, seg.mean(axis=0), fontsize="small", ha="center",
                        va="bottom")
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.grid(alpha=0.3)
    if 0 < len(moving) <= LEGEND_MAX:
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.suptitle(_title(run, "paths in the x–y plane; o start, ■ end"))
    return fig


def kinds_of(run):
    """The kinds that apply to the run: paths for pools only."""
    return KINDS + (POOL_KINDS if run.dim >= 2 else ())


def has_runs(run):
    """True when the file holds a /comparison of runs (cradle compare --rigid)."""
    c = run.comparison
    return bool(c) and c.get("attrs", {}).get("kind") == "runs" and "runs" in c


def _text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def runs(run):
    """Each rigid variant against the compliant run, per collision (docs/compare.md)."""
    if not has_runs(run):
        raise ValueError("%s: no /comparison of runs (write one with cradle compare MODEL "
                         "--rigid LAW -o FILE)" % run.path)
    rows = run.comparison["runs"]
    variants = [_text(v) for v in run.comparison["run_summary"]["variant"]]
    fig, (ax0, ax1, ax2) = plt.subplots(3, 1, figsize=(9.5, 8), sharex=True,
                                        layout="constrained")
    for v in variants:
        r = rows[np.array([_text(x) == v for x in rows["variant"]], dtype=bool)]
        k = r["collision"] + 1
        ax0.plot(k, r["phase"], "o-", label=v, gid="phase:%s" % v)
        ax1.semilogy(k, np.maximum(r["velocity_after_error"], 1e-17), "o-", label=v,
                     gid="velocity_error:%s" % v)
        ax2.plot(k, np.cumprod(r["kappa_rigid"]), "o-", label=v, gid="decay:%s" % v)
    if len(variants):
        r = rows[np.array([_text(x) == variants[0] for x in rows["variant"]], dtype=bool)]
        ax2.plot(r["collision"] + 1, np.cumprod(r["kappa_compliant"]), "k--", label="compliant",
                 gid="decay:compliant")
    ax0.set_ylabel("t_rigid - t_compliant (s)")
    ax1.set_ylabel("max |u+ rigid - u+| / V")
    ax2.set_ylabel("energy kept (prod kappa)")
    ax2.set_xlabel("collision")
    for ax in (ax0, ax1, ax2):
        ax.grid(alpha=0.3)
    _legend(ax0, len(variants))
    _legend(ax2, len(variants) + 1)
    ax0.set_title(_title(run, "rigid runs against the compliant run"))
    return fig


RUN_KINDS = ("runs",)
POOL_KINDS = ("paths",)

FIGURES = {"trajectory": trajectory, "forces": forces, "impulses": impulses, "energy": energy,
           "episodes": episodes, "collisions": collisions, "runs": runs, "paths": paths}


def figure(run, kind):
    """The matplotlib Figure of one kind (KINDS)."""
    if kind not in FIGURES:
        raise ValueError("unknown plot kind %r (one of %s)" % (kind, ", ".join(KINDS + POOL_KINDS +
                                                                     RUN_KINDS)))
    return FIGURES[kind](run)


def save(run, kinds=KINDS, outdir=None, stem=None, dpi=100):
    """Writes STEM-KIND.png for each kind; @return the paths."""
    base = run.path or "cradle-run.h5"
    outdir = outdir or os.path.dirname(os.path.abspath(base))
    stem = stem or os.path.splitext(os.path.basename(base))[0]
    paths = []
    for kind in kinds:
        fig = figure(run, kind)
        path = os.path.join(outdir, "%s-%s.png" % (stem, kind))
        fig.savefig(path, dpi=dpi)
        plt.close(fig)
        paths.append(path)
    return paths
