"""cradle.animate: a GIF of the pendulum chain and of the pool with the frames
asked for (Pillow reads it back), drawn from the file's rows."""
import numpy as np
import pytest

import cradle
from cradle import animate


@pytest.mark.parametrize("kind", ["chain", "pool"])
def test_gif(runs, kind, tmp_path):
    from PIL import Image
    run = cradle.read(runs[kind][0])
    gif = tmp_path / ("%s.gif" % kind)
    n = animate.animate(run, str(gif), frames=8, fps=10, dpi=50)
    assert n == len(animate.frame_times(run, 8)) and 8 - len(run.collisions) <= n
    im = Image.open(gif)
    assert im.format == "GIF" and im.n_frames == n


@pytest.mark.parametrize("kind", ["chain", "pool"])
@pytest.mark.parametrize("frames", [4, 8, 60])
def test_every_collision_has_frames(runs, kind, frames):
    """Every collision of /collisions has a frame inside [t_start, t_end]
    (however short), the frames span the run, and a body is red exactly
    while a collision of its lasts (never at a frame outside every span)."""
    run = cradle.read(runs[kind][0])
    assert len(run.collisions) >= 1
    t = animate.frame_times(run, frames)
    assert (np.diff(t) > 0).all() and t[0] == run.time[0] and t[-1] == run.time[-1]
    assert len(t) <= max(frames, len(run.collisions)) + 2 * len(run.collisions)
    for c in run.collisions:
        inside = t[(t >= c.t_start) & (t <= c.t_end)]
        assert len(inside) >= (1 if frames // 2 < 2 * len(run.collisions) else 2)
    for tk in t:
        hot, which = animate._colliding(run, tk)
        spans = [c for c in run.collisions if c.t_start <= tk <= c.t_end]
        assert which == [c.index for c in spans]
        assert hot == {int(b) for c in spans for b in c.bodies}


def test_frame_positions(runs):
    """Positions at a frame time are the rows' linear interpolation (at a row
    time, the row itself)."""
    run = cradle.read(runs["pool"][0])
    k = len(run.time) // 2
    assert (animate._frame_positions(run, run.time[k]) == run.position[k]).all()


def test_pendulum_drawing(runs):
    """Balls hang at (p + L sin θ, −L cos θ), θ = (s − p) / L, from the model's
    pivots (cr_model_pendulum): at rest, straight below the pivot."""
    run = cradle.read(runs["chain"][0])
    pend = animate._pendulums(run)
    assert pend is not None and len(pend) == run.body_count
    xy, piv = animate._plane(run, run.position[0], pend)
    p1, L = pend[1]
    assert xy[1, 0] == pytest.approx(p1, abs=1e-15) and xy[1, 1] == pytest.approx(-L, abs=1e-15)
    th = (run.position[0, 0, 0] - pend[0][0]) / L       # the striker, lifted by 0.2 rad
    assert th == pytest.approx(-0.2, rel=1e-12)
    assert np.allclose(xy[0], (pend[0][0] + L * np.sin(th), -L * np.cos(th)), rtol=0, atol=1e-15)
