"""cradle.sweep and cradle.sweepplot on a sweep written by `cradle sweep` in the
test (tests/data/sweep-small.yaml: 3 mass ratios crossed with 2 zipped
(n, C) pairs): the reader returns the file's arrays (checked against h5py
directly), every plotted line holds the file's numbers, the law map puts each
point once per mode, at its inputs, under the law whose error column is the
smallest (found here from the raw table), and tools/cradle-plot writes the
three PNGs and refuses run-file options."""
import os
import subprocess

import h5py
import numpy as np
import pytest

from cradle import sweep, sweepplot

from conftest import EXE, SOURCE

PLOTTER = os.path.join(SOURCE, "tools", "cradle-plot")


@pytest.fixture(scope="module")
def sweep_file(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("sweep") / "small.h5")
    p = subprocess.run([EXE, "sweep", os.path.join(SOURCE, "tests", "data", "sweep-small.yaml"),
                        "-o", out, "-j", "1"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return out


def _raw(path):
    with h5py.File(path, "r") as f:
        cols = [c.decode() for c in f["columns"][()]]
        return cols, f["table"][()]


def test_reader_is_the_file(sweep_file):
    sw = sweep.read(sweep_file)
    cols, table = _raw(sweep_file)
    assert sw.columns == cols and np.array_equal(sw.table, table, equal_nan=True)
    assert sw.inputs == ["m2/m1", "contact.n", "contact.C"]
    assert sw.fields == ["balls[1].mass", "contact.n", "contact.C"]
    assert sw.done.all() and sw.errors == [""] * 6 and sw.status == "complete"
    assert sweep.is_sweep(sweep_file)
    with pytest.raises(KeyError):
        sw.column("no-such-column")


def test_alpha_and_kappa_lines(sweep_file):
    """Every non-constant column is a panel of the file's numbers; a column
    with one value at every point (α of the reference contact, 1 by
    definition) is not drawn and the title names it with its value."""
    sw = sweep.read(sweep_file)
    cols, table = _raw(sweep_file)
    x = table[:, cols.index("m2/m1")]
    n = table[:, cols.index("contact.n")]
    for kind, names in (("alpha", ["alpha[0]", "alpha[1]"]), ("kappa", ["kappa"])):
        fig = sweepplot.figure(sw, kind)
        lines = {ln.get_gid(): ln for ax in fig.axes for ln in ax.get_lines()}
        const = [c for c in names if np.ptp(table[:, cols.index(c)]) == 0]
        drawn = [c for c in names if c not in const]
        if kind == "alpha":     # reference: α[0] = P0/P0 at every point
            assert const == ["alpha[0]"] and drawn == ["alpha[1]"]
            assert "α[0] = 1" in fig._suptitle.get_text()
        assert sorted(lines) == sorted("%s:%d" % (c, g) for c in drawn for g in (0, 1))
        assert len(fig.axes) == len(drawn)
        assert [ax.get_ylabel() for ax in fig.axes] == \
            ["%s (–)" % c.replace("alpha", "α").replace("kappa", "κ") for c in drawn]
        assert fig.axes[-1].get_xlabel() == "m2/m1: balls[1].mass (kg)"
        # 0.5, 1, 2: geometric, so a log axis
        assert fig.axes[-1].get_xscale() == "log"
        for c in drawn:
            y = table[:, cols.index(c)]
            for g, nv in enumerate((1.0, 1.5)):        # one line per (n, C) pair
                idx = np.flatnonzero(n == nv)
                idx = idx[np.argsort(x[idx])]
                ln = lines["%s:%d" % (c, g)]
                assert np.array_equal(ln.get_xdata(), x[idx])
                assert np.array_equal(ln.get_ydata(), y[idx], equal_nan=True)


def _fake(values, text="", key="a", field="contact.K"):
    return sweep.Sweep(path="f.h5", name="f", status="complete", inputs=[key], fields=[field],
                       columns=[key], table=np.array(values, float)[:, None],
                       done=np.ones(len(values), bool), errors=[""] * len(values), text=text)


def test_log_axes_and_units():
    """Log axes for geometric values or scale: log; linear otherwise; units
    from the field's name."""
    assert sweepplot.is_log_spaced(_fake([0.25, 0.5, 1, 2, 4]), "a")
    assert not sweepplot.is_log_spaced(_fake([1, 2, 3]), "a")
    assert not sweepplot.is_log_spaced(_fake([1, 10]), "a")       # two values: ambiguous
    log2 = "axes:\n  - {field: contact.K, key: a, range: {from: 1, to: 10, count: 2, scale: log}}\n"
    assert sweepplot.is_log_spaced(_fake([1, 10], log2), "a")
    assert not sweepplot.is_log_spaced(_fake([-1, 1, -1], log2), "a")
    assert sweepplot.axis_label(_fake([1, 2], key="contact.K"), "contact.K") == \
        "contact.K (N/m^n)"
    assert sweepplot.axis_label(_fake([1, 2], key="t", field="fields.pendulum.length"), "t") == \
        "t: fields.pendulum.length (m)"
    assert sweepplot.field_unit("balls[2].material.E") == "Pa"
    assert sweepplot.field_unit("contact.pairs[0].K") == "N/m^n"
    assert sweepplot.field_unit("no.such") is None


def test_law_map_points(sweep_file):
    """Each drawn mode puts every point once, at its inputs, under the law
    whose error is the smallest (found here from the raw table); a mode with
    the same closest law at every point (calibrated: energetic, exact by
    construction) is no panel, and the title says so."""
    sw = sweep.read(sweep_file)
    cols, table = _raw(sweep_file)
    fig = sweepplot.figure(sw, "laws")
    panels = 0
    for mode in ("calibrated", "predictive"):
        errs = {c.split(".")[1]: table[:, cols.index(c)] for c in cols
                if c.startswith("error.") and c.endswith("." + mode)}
        best = []
        for i in range(table.shape[0]):
            row = {k: v[i] for k, v in errs.items() if np.isfinite(v[i])}
            best.append(min(row, key=row.get))
        seen = 0
        for ax in fig.axes:
            for ln in ax.get_lines():
                gid = ln.get_gid() or ""
                if not gid.startswith("laws:%s:" % mode):
                    continue
                law = gid.split(":")[2]
                for px, py in zip(ln.get_xdata(), ln.get_ydata()):
                    i = np.flatnonzero((table[:, cols.index("m2/m1")] == px)
                                       & (table[:, cols.index("contact.n")] == py))
                    assert i.size == 1
                    assert law == best[i[0]]
                    seen += 1
        if len(set(best)) == 1 and mode == "calibrated":
            assert seen == 0 and best[0] == "energetic"
            assert "closest calibrated law energetic at every point" in fig._suptitle.get_text()
        else:
            assert seen == table.shape[0]
            panels += 1
    assert len(fig.axes) == panels
    assert fig.axes[0].get_xlabel() == "m2/m1: balls[1].mass (kg)"
    assert fig.axes[0].get_xscale() == "log"
    assert fig.axes[0].get_ylabel() == "contact.n (–)" and fig.axes[0].get_yscale() == "linear"


@pytest.mark.parametrize("kind", sweepplot.KINDS)
def test_layout(sweep_file, kind):
    """Legends outside the axes, no label, title or legend over another."""
    from test_plot import check_layout
    import matplotlib.pyplot as plt
    fig = sweepplot.figure(sweep.read(sweep_file), kind)
    check_layout(fig)
    plt.close(fig)


def test_cradle_plot_on_a_sweep(sweep_file, tmp_path):
    p = subprocess.run(["/usr/bin/python3", PLOTTER, sweep_file, "--outdir", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    for kind in sweepplot.KINDS:
        assert (tmp_path / ("small-%s.png" % kind)).stat().st_size > 1000
    p = subprocess.run(["/usr/bin/python3", PLOTTER, sweep_file, "--xdmf"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "sweep file" in p.stderr
    p = subprocess.run(["/usr/bin/python3", PLOTTER, sweep_file, "--kind", "energy"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "unknown kind energy" in p.stderr
