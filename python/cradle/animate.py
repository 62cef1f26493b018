"""A short animation of a run (GIF through matplotlib's Pillow writer): balls
of a chain on their line, or hanging from their pivots when the model
suspends them as pendulums (pivots from the model text through libcradle's
cr_model_pendulum), or the discs and walls of a pool. Frames are placed
by events (frame_times): about half of them evenly over the run, the rest
inside the collisions (up to 3 per collision: its start, middle and end, a
slow-motion segment), so that every impact is seen however short, at least
one frame per collision; positions are interpolated linearly between the
stored rows. A body is drawn red exactly while a collision of its lasts
(t_start <= t <= t_end of /collisions), and the title says "in collision K"."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.animation import FuncAnimation, PillowWriter  # noqa: E402
from matplotlib.patches import Circle  # noqa: E402


def _pendulums(run):
    if run.dim != 1 or "pendulum" not in run.model_text:
        return None
    try:
        from . import lib
        return lib.pendulums(run.model_text)
    except Exception:  # no libcradle: the balls are drawn on their line
        return None


def _frame_positions(run, t):
    """(N, dim) positions at time t, interpolated between rows."""
    out = np.empty((run.body_count, run.dim))
    for i in range(run.body_count):
        for d in range(run.dim):
            out[i, d] = np.interp(t, run.time, run.position[:, i, d])
    return out


def frame_times(run, frames):
    """Event-aware frame times: half the frames even over [t0, t_end], the
    rest inside the collisions (per collision 1 to 3: middle; start, middle,
    end), at least one per collision (more frames than asked when there are
    more collisions than frames); sorted, distinct."""
    t0, t1 = float(run.time[0]), float(run.time[-1])
    coll = run.collisions
    per = max(1, min(3, (frames // 2) // len(coll))) if coll else 0
    inside = [np.linspace(c.t_start, c.t_end, per) if per > 1 else [0.5 * (c.t_start + c.t_end)]
              for c in coll]
    even = np.linspace(t0, t1, max(frames - per * len(coll), 2 if frames > 1 else 1))
    return np.unique(np.concatenate([even] + [np.asarray(x, float) for x in inside]))


def _colliding(run, t):
    """Bodies of the collisions whose span [t_start, t_end] holds t, and those
    collisions' indices."""
    hot, which = set(), []
    for c in run.collisions:
        if c.t_start <= t <= c.t_end:
            hot.update(int(b) for b in c.bodies)
            which.append(c.index)
    return hot, which


def _plane(run, x, pend):
    """Positions in the drawing plane, and the pivots (or None)."""
    if run.dim == 2:
        return x, None
    if pend is None:
        return np.column_stack([x[:, 0], np.zeros(len(x))]), None
    xy = np.zeros((len(x), 2))
    piv = np.zeros((len(x), 2))
    for i, p in enumerate(pend):
        if p is None:
            xy[i] = (x[i, 0], 0.0)
            piv[i] = np.nan
            continue
        p0, L = p
        th = (x[i, 0] - p0) / L
        xy[i] = (p0 + L * np.sin(th), -L * np.cos(th))
        piv[i] = (p0, 0.0)
    return xy, piv


def _limits(run, pend):
    allx = run.position.reshape(-1, run.body_count, run.dim)
    pts = []
    for k in np.linspace(0, len(run.time) - 1, min(len(run.time), 200)).astype(int):
        xy, piv = _plane(run, allx[k], pend)
        pts.append(xy)
        if piv is not None:
            pts.append(piv[np.isfinite(piv[:, 0])])
    pts = np.vstack(pts)
    r = float(np.max(run.radius)) if len(run.radius) else 0.0
    lo, hi = pts.min(axis=0) - 1.5 * r, pts.max(axis=0) + 1.5 * r
    span = max(hi[0] - lo[0], hi[1] - lo[1], 1e-12)
    return lo, hi, span


def animate(run, path, frames=60, fps=20, dpi=80, width=5.0):
    """Writes a GIF of @run to @path; @return the number of frames."""
    if len(run.time) == 0 or np.isnan(run.position).any():
        raise ValueError("the animation needs every body's position at every row; this run "
                         "wrote %s (output.fields, output.bodies)"
                         % (run.attrs.get("fields") or "a chosen part of the trajectory"))
    pend = _pendulums(run)
    lo, hi, span = _limits(run, pend)
    aspect = (hi[1] - lo[1]) / max(hi[0] - lo[0], 1e-300)
    fig, ax = plt.subplots(figsize=(width, min(max(width * aspect, 1.5), 0.8 * width) + 0.6))
    ax.set_aspect("equal")
    pad = 0.05 * span
    ax.set_xlim(lo[0] - pad, hi[0] + pad)
    ax.set_ylim(lo[1] - pad, hi[1] + pad)
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)" if run.dim == 2 or pend else "")
    if run.dim == 1 and not pend:
        ax.set_yticks([])
    for n, off in zip(run.wall_normal, run.wall_offset):
        # the wall line n·p = offset across the view
        t = np.array([-n[1], n[0]])
        p0 = n * off
        seg = np.array([p0 - 10 * span * t, p0 + 10 * span * t])
        ax.plot(seg[:, 0], seg[:, 1], "k-", lw=2)
    moving = run.moving
    for i in np.flatnonzero(~moving):  # a chain's walls: a bar at the position
        x = run.position[0, i, 0]
        ax.plot([x, x], [lo[1], hi[1]], "k-", lw=2)
    circles = [Circle((0, 0), run.radius[i], fc="0.6", ec="k", lw=0.5) for i in range(len(moving))]
    for i, c in enumerate(circles):
        if moving[i]:
            ax.add_patch(c)
    strings = []
    if pend:
        strings = [ax.plot([], [], "k-", lw=0.6)[0] for _ in pend]
        ax.plot([lo[0], hi[0]], [0, 0], color="0.3", lw=1.5)
    label = ax.set_title("%s   t = 0.000 s" % run.name, fontsize="small")
    times = frame_times(run, frames)

    def draw(k):
        t = times[k]
        xy, piv = _plane(run, _frame_positions(run, t), pend)
        hot, which = _colliding(run, t)
        for i, c in enumerate(circles):
            c.center = tuple(xy[i])
            c.set_facecolor("tab:red" if i in hot else "0.6")
        for i, s in enumerate(strings):
            if piv is not None and np.isfinite(piv[i, 0]):
                s.set_data([piv[i, 0], xy[i, 0]], [piv[i, 1], xy[i, 1]])
        label.set_text("%s   t = %.6f s%s" % (run.name, t, "   in collision %s" % ", ".join(
            str(k) for k in which) if which else ""))
        return circles + strings + [label]

    fig.tight_layout()
    anim = FuncAnimation(fig, draw, frames=len(times), blit=False)
    anim.save(path, writer=PillowWriter(fps=fps), dpi=dpi)
    plt.close(fig)
    return len(times)
