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
    assert animate.animate(run, str(gif), frames=8, fps=10, dpi=50) == 8
    im = Image.open(gif)
    assert im.format == "GIF" and im.n_frames == 8


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
