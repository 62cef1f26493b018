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
    sw = sweep.read(sweep_file)
    cols, table = _raw(sweep_file)
    x = table[:, cols.index("m2/m1")]
    n = table[:, cols.index("contact.n")]
    for kind, names in (("alpha", ["alpha[0]", "alpha[1]"]), ("kappa", ["kappa"])):
        fig = sweepplot.figure(sw, kind)
        lines = {ln.get_gid(): ln for ax in fig.axes for ln in ax.get_lines()}
        assert sorted(lines) == sorted("%s:%d" % (c, g) for c in names for g in (0, 1))
        assert fig.axes[-1].get_xlabel() == "m2/m1"
        for c in names:
            y = table[:, cols.index(c)]
            for g, nv in enumerate((1.0, 1.5)):        # one line per (n, C) pair
                idx = np.flatnonzero(n == nv)
                idx = idx[np.argsort(x[idx])]
                ln = lines["%s:%d" % (c, g)]
                assert np.array_equal(ln.get_xdata(), x[idx])
                assert np.array_equal(ln.get_ydata(), y[idx], equal_nan=True)


def test_law_map_points(sweep_file):
    sw = sweep.read(sweep_file)
    cols, table = _raw(sweep_file)
    fig = sweepplot.figure(sw, "laws")
    for mode in ("calibrated", "predictive"):
        errs = {c.split(".")[1]: table[:, cols.index(c)] for c in cols
                if c.startswith("error.") and c.endswith("." + mode)}
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
                    row = {k: v[i[0]] for k, v in errs.items() if np.isfinite(v[i[0]])}
                    assert law == min(row, key=row.get)
                    seen += 1
        assert seen == table.shape[0]


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
