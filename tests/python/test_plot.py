"""cradle.plot: every kind rendered from a small chain run and a pool run; the
axes and labels are the documented ones and every plotted line is the file's
data (exact: the lines hold the arrays read from the file); the tables' cells
are the file's numbers; tools/cradle-plot writes one PNG per kind."""
import os
import subprocess

import numpy as np
import pytest

import cradle
from cradle import plot

from conftest import SOURCE

PLOTTER = os.path.join(SOURCE, "tools", "cradle-plot")


def _lines(fig):
    """gid -> (xdata, ydata) of every line of the figure."""
    out = {}
    for ax in fig.axes:
        for ln in ax.get_lines():
            if ln.get_gid():
                out[ln.get_gid()] = (np.asarray(ln.get_xdata(), float),
                                     np.asarray(ln.get_ydata(), float))
    return out


def layout_boxes(fig):
    """Draws the figure and returns (name, window box) of its texts and
    legends: axis labels, titles, the suptitle, legends, tables."""
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    out = []
    if fig._suptitle is not None and fig._suptitle.get_text():
        out.append(("suptitle", fig._suptitle.get_window_extent(r)))
    for k, ax in enumerate(fig.axes):
        for name, t in (("xlabel", ax.xaxis.label), ("ylabel", ax.yaxis.label),
                        ("title", ax.title)):
            if t.get_text() and t.get_visible():
                out.append(("%s %d" % (name, k), t.get_window_extent(r)))
        if ax.get_legend() is not None:
            out.append(("legend %d" % k, ax.get_legend().get_window_extent(r)))
        for t in ax.tables:
            out.append(("table %d" % k, t.get_window_extent(r)))
    return out


def check_layout(fig):
    """No two labels, titles, legends or tables overlap, and no legend lies
    on any axes' data area (legends are outside the axes)."""
    boxes = layout_boxes(fig)
    for i, (a, ba) in enumerate(boxes):
        for b, bb in boxes[i + 1:]:
            assert not ba.overlaps(bb), "%s overlaps %s" % (a, b)
    r = fig.canvas.get_renderer()
    areas = [ax.get_window_extent(r) for ax in fig.axes if ax.axison]
    for name, box in boxes:
        if name.startswith("legend"):
            assert not any(box.overlaps(a) for a in areas), name
    return boxes


def _collision_spans(fig, run):
    """Each time axis shades every collision's span [t_start, t_end]."""
    shaded = 0
    for ax in fig.axes:
        spans = [p for p in ax.patches if (p.get_gid() or "").startswith("collision:")]
        if not spans:
            continue
        shaded += 1
        assert len(spans) == len(run.collisions)
        for p, c in zip(spans, run.collisions):
            xs = p.get_xy()[:, 0]
            assert (xs.min(), xs.max()) == (c.t_start, c.t_end)
    assert shaded >= 1


@pytest.fixture(scope="module", params=["chain", "pool", "spheres"])
def run(request, runs):
    return cradle.read(runs[request.param][0])


def test_trajectory(run):
    fig = plot.figure(run, "trajectory")
    lines = _lines(fig)
    d = run.dim
    assert len(fig.axes) == 2 * d
    labels = [ax.get_ylabel() for ax in fig.axes]
    if d == 1:
        assert labels == ["position (m)", "velocity (m/s)"]
    else:
        assert labels == ["position %s (m)" % c for c in "xyz"[:d]] + \
            ["velocity %s (m/s)" % c for c in "xyz"[:d]]
    assert [ax.get_xlabel() for ax in fig.axes[-d:]] == ["time (s)"] * d
    for i in np.flatnonzero(run.moving):
        for c in range(d):
            kx = ("x:%d" % i) if d == 1 else ("%s:%d" % ("xyz"[c], i))
            kv = ("v:%d" % i) if d == 1 else ("v%s:%d" % ("xyz"[c], i))
            assert (lines[kx][0] == run.time).all() and (lines[kx][1] == run.position[:, i, c]).all()
            assert (lines[kv][1] == run.velocity[:, i, c]).all()
    assert len(lines) == 2 * d * run.moving.sum()
    _collision_spans(fig, run)


def test_forces_and_impulses(run):
    for kind, col, series in (("forces", "force", run.force), ("impulses", "impulse", run.impulse)):
        fig = plot.figure(run, kind)
        ax = fig.axes[0]
        lines = _lines(fig)
        assert ax.get_xlabel() == "time (s)"
        if series is not None:               # chain: every row
            assert ax.get_ylabel() == {"force": "contact force (N)",
                                       "impulse": "accumulated impulse (N s)"}[col]
            assert len([g for g in lines if not g.startswith("peak:")]) == series.shape[1]
            for k in range(series.shape[1]):
                x, y = lines["%s:%d" % (col, k)]
                assert (x == run.time).all() and (y == series[:, k]).all()
        else:                                # pool: at the events
            assert ax.get_ylabel() == {"force": "contact force at events (N)",
                                       "impulse": "accumulated impulse (N s)"}[col]
            ev = run.events
            for k in np.unique(ev["contact"]):
                sel = ev["contact"] == k
                x, y = lines["event-%s:%d" % (col, k)]
                if col == "force":
                    assert (x == ev["time"][sel]).all() and (y == ev["force"][sel]).all()
                else:   # the step line ends at the final time with /contacts' impulse
                    assert (x[:-1] == ev["time"][sel]).all() and x[-1] == run.final_time
                    assert (y[:-1] == ev["impulse"][sel]).all()
                    assert y[-1] == run.contacts["impulse"][k]
        _collision_spans(fig, run)
        _contact_names(fig, run)
    _located_peaks(plot.figure(run, "forces"), run)


def _contact_names(fig, run):
    """Each contact's line is named by its ends from /contacts: a half-plane
    wall by its index (body_b = -1 - W), a chain's fixed body as a wall."""
    def end(b):
        if b < 0:
            return "wall %d" % (-1 - b)
        return ("body %d" if run.moving[b] else "wall (body %d)") % b
    named = 0
    for ax in fig.axes:
        for ln in ax.get_lines():
            gid = ln.get_gid() or ""
            if gid.split(":")[0] in ("force", "impulse", "event-force", "event-impulse"):
                c = run.contacts[int(gid.split(":")[1])]
                assert ln.get_label() == "%s–%s" % (end(c["body_a"]), end(c["body_b"]))
                named += 1
    assert named >= 1
    if run.dim == 2:    # pool-bernoulli's wall contacts are named by the wall's index
        assert any(ln.get_label().endswith("–wall 0") for ax in fig.axes for ln in ax.get_lines())


def _located_peaks(fig, run):
    """The forces figure marks every episode record's located peak (issue
    22): one "peak:K" line per contact, its points the records' peak_force
    at peak_force_time; none on the impulses figure."""
    lines = _lines(fig)
    want = {}
    for e in run.episodes:
        for r in e.contacts:
            if np.isfinite(r["peak_force_time"]) and r["peak_force"] > 0:
                want.setdefault(int(r["contact"]), []).append((r["peak_force_time"],
                                                               r["peak_force"]))
    assert want, "the run has located peaks"
    got = {int(g.split(":")[1]): v for g, v in lines.items() if g.startswith("peak:")}
    assert sorted(got) == sorted(want)
    for k, pts in want.items():
        t, f = np.array(pts).T
        assert (got[k][0] == t).all() and (got[k][1] == f).all()
    # a peak is never above the force's located maximum over the run
    cp = run.contact_peaks
    assert cp is not None and len(cp) == len(run.contacts)
    for k, (t, f) in got.items():
        assert f.max() == cp["peak_force"][k]


def test_energy(run):
    fig = plot.figure(run, "energy")
    lines = _lines(fig)
    assert [ax.get_ylabel() for ax in fig.axes] == ["energy (J)", "(T + U + D - E0) / |E0|"]
    assert fig.axes[1].get_xlabel() == "time (s)"
    T, U, D = run.kinetic_energy, run.potential_energy, run.dissipated_work
    assert (lines["kinetic"][1] == T).all() and (lines["potential"][1] == U).all()
    assert (lines["dissipated"][1] == D).all() and (lines["total"][1] == T + U + D).all()
    S = T + U + D
    assert (lines["balance"][1] == (S - S[0]) / abs(S[0])).all()
    # reference: the run's own balance is small (undamped, rtol 1e-10): 1e-6
    assert np.abs(lines["balance"][1]).max() < 1e-6


def test_paths(run):
    """Pools: one x–y line per moving body holding the file's positions, each
    wall a segment on its line n·p = offset; chains: refused; spheres:
    test_paths_3d."""
    if run.dim == 1:
        with pytest.raises(ValueError, match="pools"):
            plot.figure(run, "paths")
        assert "paths" not in plot.kinds_of(run)
        return
    if run.dim == 3:
        check_paths_3d(run)
        return
    assert "paths" in plot.kinds_of(run)
    fig = plot.figure(run, "paths")
    lines = _lines(fig)
    ax = fig.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x (m)", "y (m)")
    for i in np.flatnonzero(run.moving):
        x, y = lines["path:%d" % i]
        assert (x == run.position[:, i, 0]).all() and (y == run.position[:, i, 1]).all()
        assert lines["start:%d" % i][0][0] == x[0] and lines["end:%d" % i][1][0] == y[-1]
    assert len([g for g in lines if g.startswith("path:")]) == run.moving.sum()
    walls = [g for g in lines if g.startswith("wall:")]
    assert len(walls) == len(run.wall_offset) >= (1 if run.dim == 2 else 0)  # the triple: none
    for g in walls:
        w = int(g.split(":")[1])
        pts = np.column_stack(lines[g])
        n = run.wall_normal[w]
        # both ends on the wall's line (1e-12 of the box, rounding of the clip)
        assert np.allclose(pts @ n, run.wall_offset[w], rtol=0, atol=1e-12)
    assert {t.get_text() for t in ax.texts} >= {"wall %d" % w for w in range(len(walls))}


def _box(run):
    """The box of every stored position widened by two largest radii, from
    the file's arrays (the figures' limits)."""
    p = run.position.reshape(-1, 3)
    r = run.radius.max()
    return p.min(axis=0) - 2 * r, p.max(axis=0) + 2 * r


def _corners(lo, hi, k):
    """The 2**k corners of a k-dimensional box."""
    return np.array(np.meshgrid(*[(lo[j], hi[j]) for j in range(k)], indexing="ij")).reshape(k, -1).T


def _crosses(values):
    """A plane (or line) cuts a box when its function changes sign over the corners."""
    return values.min() < 0 < values.max()


def check_paths_3d(run):
    """Spheres: three projection panels (x–y, x–z, y–z) and an x–y–z view.
    Each panel's lines are the file's two components of every moving body
    (so no panel is a constant or a repeated one: the test models' paths
    vary in every component), each sphere is a circle of its radius at its
    final position, and every wall whose trace crosses the panel's box is a
    line on that trace (the wall's section at the box's middle depth; solid
    when edge-on, dashed when oblique). In the 3-D view the paths are the
    file's positions and every wall whose plane cuts the box is a
    translucent polygon outlined by a closed ring on its plane, with as many
    vertices as box edges the plane cuts."""
    fig = plot.figure(run, "paths")
    check_layout(fig)
    lines = _lines(fig)
    lo, hi = _box(run)
    moving = np.flatnonzero(run.moving)
    final = run.final_position
    assert len(fig.axes) == 4 and fig.axes[3].name == "3d"
    assert [a.name for a in fig.axes[:3]] == ["rectilinear"] * 3
    planes = ((0, 1), (0, 2), (1, 2))
    for ax, (a, b) in zip(fig.axes[:3], planes):
        name = "xyz"[a] + "xyz"[b]
        c = 3 - a - b
        assert (ax.get_xlabel(), ax.get_ylabel()) == ("%s (m)" % "xyz"[a], "%s (m)" % "xyz"[b])
        assert ax.get_xlim() == (lo[a], hi[a]) and ax.get_ylim() == (lo[b], hi[b])
        for i in moving:
            x, y = lines["path:%s:%d" % (name, i)]
            assert (x == run.position[:, i, a]).all() and (y == run.position[:, i, b]).all()
            assert lines["end:%s:%d" % (name, i)][0][0] == x[-1]
        shown = np.concatenate([np.column_stack(lines["path:%s:%d" % (name, i)]) for i in moving])
        assert (np.ptp(shown, axis=0) > 0).all(), "constant panel %s" % name
        assert len([g for g in lines if g.startswith("path:%s:" % name)]) == len(moving)
        circles = {p.get_gid(): p for p in ax.patches if (p.get_gid() or "").startswith("sphere")}
        assert len(circles) == run.body_count
        for i in range(run.body_count):
            circ = circles["sphere:%s:%d" % (name, i)]
            assert circ.center == (final[i, a], final[i, b]) and circ.radius == run.radius[i]
        mid = 0.5 * (lo[c] + hi[c])
        want = set()
        for w, (n, off) in enumerate(zip(run.wall_normal, run.wall_offset)):
            # the trace n_a x + n_b y = off - n_c mid against the panel's corners
            if (n[a], n[b]) != (0, 0) and \
                    _crosses(_corners(lo[[a, b]], hi[[a, b]], 2) @ n[[a, b]] + n[c] * mid - off):
                want.add(w)
        drawn = {int(g.split(":")[2]) for g in lines if g.startswith("wall:%s:" % name)}
        assert drawn == want, (name, drawn, want)
        styles = {ln.get_gid(): ln.get_linestyle() for ln in ax.get_lines()}
        scale = float(np.max(hi - lo))
        for w in want:
            n, off = run.wall_normal[w], run.wall_offset[w]
            pts = np.column_stack(lines["wall:%s:%d" % (name, w)])
            assert np.allclose(pts @ n[[a, b]] + n[c] * mid, off, rtol=0, atol=1e-12 * scale)
            assert (pts >= lo[[a, b]] - 1e-12 * scale).all() and \
                (pts <= hi[[a, b]] + 1e-12 * scale).all()
            assert styles["wall:%s:%d" % (name, w)] == ("-" if n[c] == 0 else "--")
    ax3 = fig.axes[3]
    assert (ax3.get_xlabel(), ax3.get_ylabel(), ax3.get_zlabel()) == ("x (m)", "y (m)", "z (m)")
    assert ax3.get_xlim() == (lo[0], hi[0]) and ax3.get_zlim() == (lo[2], hi[2])
    view = {ln.get_gid(): np.array(ln.get_data_3d(), float).T for ln in ax3.get_lines()}
    for i in moving:
        assert (view["path:xyz:%d" % i] == run.position[:, i, :]).all()
    patches = {c.get_gid() for c in ax3.collections}
    corners = _corners(lo, hi, 3)
    scale = float(np.max(hi - lo))
    want = set()
    for w, (n, off) in enumerate(zip(run.wall_normal, run.wall_offset)):
        s = corners @ n - off
        if not _crosses(s):
            continue
        want.add(w)
        ring = view["wall:xyz:%d" % w]
        assert (ring[0] == ring[-1]).all()
        assert np.allclose(ring @ n, off, rtol=0, atol=1e-12 * scale * np.linalg.norm(n))
        assert (ring >= lo - 1e-12 * scale).all() and (ring <= hi + 1e-12 * scale).all()
        # one vertex per box edge (corners differing in one bit) with a sign change
        cut = sum(1 for p in range(8) for k in range(3) if not p & (1 << k)
                  and s[p] * s[p | (1 << k)] < 0)
        assert len(ring) - 1 == cut >= 3
        assert "wall-patch:xyz:%d" % w in patches
    assert {int(g.split(":")[2]) for g in view if g.startswith("wall:xyz:")} == want
    assert len(want) == len(run.wall_offset)       # the test models: every wall in the box
    return fig


def test_paths_3d(runs):
    """Spheres between walls (the triple, without walls, is test_paths')."""
    fig = check_paths_3d(cradle.read(runs["spheres-walls"][0]))
    # edge-on and oblique traces: some of each
    styles = [ln.get_linestyle() for ax in fig.axes[:3] for ln in ax.get_lines()
              if (ln.get_gid() or "").startswith("wall:")]
    assert "-" in styles and "--" in styles


def _table_cells(fig):
    t = [a for ax in fig.axes for a in ax.tables][0]
    cells = t.get_celld()
    rows = max(r for r, _ in cells) + 1
    cols = max(c for _, c in cells) + 1
    return [[cells[r, c].get_text().get_text() for c in range(cols)] for r in range(rows)]


def test_episode_table(run):
    fig = plot.figure(run, "episodes")
    cells = _table_cells(fig)
    assert cells[0] == plot.EPISODE_COLUMNS
    assert len(cells) - 1 == min(len(run.episodes), plot.TABLE_ROWS)
    owner = run.episode_collision()
    for row, e in zip(cells[1:], run.episodes):
        assert row[0] == str(e.index) and float(row[1]) == round(e.t_start, 6)
        assert float(row[2]) == round(e.t_end, 6) and row[4] == str(e.reference)
        assert abs(float(row[5]) - e.kappa) <= 5e-10 and row[6] == str(owner[e.index])
    bars = [p for ax in fig.axes for p in ax.collections if (p.get_gid() or "").startswith("ep")]
    assert len(bars) == len(run.episodes)
    assert fig.axes[0].get_xlabel() == "time (s)" and fig.axes[0].get_ylabel() == "bodies"


def test_collision_table(run):
    fig = plot.figure(run, "collisions")
    cells = _table_cells(fig)
    assert cells[0] == plot.COLLISION_COLUMNS
    assert len(cells) - 1 == len(run.collisions)
    for row, c in zip(cells[1:], run.collisions):
        assert row[0] == str(c.index) and float(row[1]) == round(c.t_start, 6)
        assert int(row[3]) == len(c.episodes)
        # 6 significant digits shown: half a unit of the 6th, 5e-6 relative
        assert abs(float(row[5]) - c.T_minus) <= 5e-6 * abs(c.T_minus)
        assert abs(float(row[7]) - c.kappa) <= 5e-10
    bars = [p for ax in fig.axes for p in ax.collections if (p.get_gid() or "").startswith("coll")]
    assert len(bars) == len(run.collisions)
    for b, c in zip(bars, run.collisions):
        x0 = b.get_paths()[0].vertices[:, 0].min()
        assert x0 == c.t_start


@pytest.mark.parametrize("kind", plot.KINDS + plot.POOL_KINDS)
def test_layout(run, kind):
    """Legends beside the axes (never over data), no label, title, legend or
    table over another (the timeline's "time (s)" above the table's caption);
    the table's panel no taller than its rows need (no half-empty page:
    at most 0.3 in per row)."""
    if kind not in plot.kinds_of(run):
        return
    fig = plot.figure(run, kind)
    boxes = check_layout(fig)
    if kind in ("episodes", "collisions"):
        names = [n for n, _ in boxes]
        assert "xlabel 0" in names and "title 1" in names and "table 1" in names
        rows = min(plot.TABLE_ROWS, len(run.episodes if kind == "episodes" else run.collisions))
        assert fig.axes[1].get_window_extent().height / fig.dpi <= 0.3 * (rows + 1)
    import matplotlib.pyplot as plt
    plt.close(fig)


def test_cli(runs, tmp_path):
    h5 = runs["pool"][0]
    p = subprocess.run([PLOTTER, h5, "--outdir", str(tmp_path)], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    for kind in plot.KINDS + plot.POOL_KINDS:
        png = tmp_path / ("pool-%s.png" % kind)
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", kind
        assert "wrote %s" % png in p.stdout
    p = subprocess.run([PLOTTER, runs["chain"][0], "--kind", "paths"], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 3 and "for pools" in p.stderr
    p = subprocess.run([PLOTTER, h5, "--kind", "energy,bogus"], capture_output=True, text=True)
    assert p.returncode == 2 and "unknown kind bogus" in p.stderr
    p = subprocess.run([PLOTTER, str(tmp_path / "none.h5")], capture_output=True, text=True)
    assert p.returncode == 3


def test_cradle_run_plot(runs, tmp_path):
    """`cradle run --plot` hands the file to cradle-plot (CRADLE_PLOT names it)."""
    from conftest import EXE
    out = tmp_path / "p.h5"
    env = dict(os.environ, CRADLE_PLOT=PLOTTER)
    p = subprocess.run([EXE, "run", runs["chain"][2], "-o", str(out), "--plot", "-q"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert all((tmp_path / ("p-%s.png" % k)).exists() for k in plot.KINDS)
    env["CRADLE_PLOT"] = str(tmp_path / "missing-plotter")
    p = subprocess.run([EXE, "run", runs["chain"][2], "-o", str(out), "--plot", "-q"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 4 and "missing-plotter" in p.stderr and out.exists()


def test_runs(tmp_path):
    """`cradle compare MODEL --rigid LAW -o FILE`: the runs figure holds, per
    variant, the file's phase, u+ error and running product of the rigid
    collisions' kappa; 'all' draws it, other files refuse the kind."""
    from conftest import EXE
    out = tmp_path / "runs.h5"
    model = os.path.join(SOURCE, "models", "pendulum-cradle.yaml")
    p = subprocess.run([EXE, "compare", model, "--rigid", "sequential", "--rigid", "lzb", "-q",
                        "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    run = cradle.read(str(out))
    assert plot.has_runs(run)
    lines = _lines(plot.figure(run, "runs"))
    rows = run.comparison["runs"]
    for v in ("sequential", "lzb"):
        r = rows[rows["variant"] == v.encode()]
        assert len(r) == len(run.collisions)
        assert np.array_equal(lines["phase:%s" % v][1], r["phase"])
        assert np.array_equal(lines["velocity_error:%s" % v][1], r["velocity_after_error"])
        assert np.array_equal(lines["decay:%s" % v][1], np.cumprod(r["kappa_rigid"]))
    p = subprocess.run([PLOTTER, str(out), "--outdir", str(tmp_path)], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0 and (tmp_path / "runs-runs.png").exists(), p.stderr
    plain = tmp_path / "plain.h5"
    subprocess.run([EXE, "run", model, "-q", "-o", str(plain)], check=True, timeout=120)
    p = subprocess.run([PLOTTER, str(plain), "--kind", "runs"], capture_output=True, text=True)
    assert p.returncode == 3 and "no /comparison of runs" in p.stderr
