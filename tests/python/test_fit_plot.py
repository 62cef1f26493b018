"""cradle.fitfile and cradle.fitplot on a fit written by `cradle fit` in the
test (models/fit-chain-3.yaml, synthetic data, a prediction): the reader
returns the file's arrays (checked against h5py directly), every plotted
line holds the file's numbers, and tools/cradle-plot writes FILE-fit.png and
refuses run-file options."""
import os
import subprocess

import h5py
import numpy as np
import pytest

from cradle import fitfile, fitplot

from conftest import EXE, SOURCE

PLOTTER = os.path.join(SOURCE, "tools", "cradle-plot")
MODEL = os.path.join(SOURCE, "models", "fit-chain-3.yaml")
ROWS = """observable,time,index,value,sigma
velocity_after,2e-4,0,,2e-3
velocity_after,2e-4,2,,2e-3
contact_duration,1e-4,0,,5e-7
contact_duration,2.5e-4,1,,5e-7
"""


@pytest.fixture(scope="module")
def fit_file(tmp_path_factory):
    d = tmp_path_factory.mktemp("fit")
    (d / "rows.csv").write_text(ROWS)
    p = subprocess.run([EXE, "fit", MODEL, str(d / "rows.csv"), "--synthetic", "4"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    (d / "data.csv").write_text(p.stdout)
    out = str(d / "fit.h5")
    p = subprocess.run([EXE, "fit", MODEL, str(d / "data.csv"), "--set", "contact.C=1.5e4",
                        "--vary", "contact.C=0:1e5", "--vary", "contact.K", "-o", out,
                        "--predict", MODEL, "-q"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return out


def test_reader_is_the_file(fit_file):
    fit = fitfile.read(fit_file)
    with h5py.File(fit_file, "r") as f:
        par = f["fit/parameters"][()]
        obs = f["fit/observations"][()]
        assert np.array_equal(fit.value, par["value"]) and np.array_equal(fit.std_error,
                                                                           par["std_error"])
        assert np.array_equal(fit.rows["residual"], obs["residual"])
        assert np.array_equal(fit.correlation, f["fit/correlation"][()])
    assert fit.paths == ["contact.C", "contact.K"] and fit.status == "converged"
    assert fit.observables == ["velocity_after"] * 2 + ["contact_duration"] * 2
    assert len(fit.prediction["model"]) == 4 and np.all(fit.prediction["model_sigma"] > 0)
    assert fitfile.is_fit(fit_file)


def test_lines_hold_the_file(fit_file):
    fit = fitfile.read(fit_file)
    fig = fitplot.figure(fit)
    lines = {}
    for ax in fig.axes:
        for art in ax.get_children():
            if art.get_gid():
                lines.setdefault(art.get_gid(), []).append(art)
    r = fit.rows
    vel = np.array(fit.observables) == "velocity_after"
    (model,) = lines["model:velocity_after"]
    assert np.array_equal(model.get_ydata(), r["model"][vel])
    (res,) = lines["residual:contact_duration"]
    assert np.array_equal(res.get_ydata(), r["residual"][~vel])
    assert "data:velocity_after" in lines and "prediction:contact_duration" in lines


def test_cradle_plot(fit_file, tmp_path):
    p = subprocess.run(["/usr/bin/python3", PLOTTER, fit_file, "--outdir", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "fit-fit.png").stat().st_size > 10000
    p = subprocess.run(["/usr/bin/python3", PLOTTER, fit_file, "--xdmf"], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 2 and "is a fit file" in p.stderr
