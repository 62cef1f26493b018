"""The Python API against the CLI on the same input (issue 27 item 1): each
function's numbers equal what `cradle ... --json` prints or the file it
writes (the same library and pipeline, so the same doubles; JSON carries
17 significant digits, which round-trip a double exactly); bad input is a
cradle.CradleError carrying the library's message and code; Ctrl-C during
run and sweep raises KeyboardInterrupt with the file kept."""
import glob
import json
import math
import os
import signal
import subprocess
import sys
import time

import h5py
import numpy as np
import pytest

import cradle
import cradle.fitfile
from conftest import EXE, SOURCE

MODELS = os.path.join(SOURCE, "models")
CASES = os.path.join(SOURCE, "cases")
CHAIN3 = os.path.join(MODELS, "three-ball-chain.yaml")


def cli(*args, expect=0):
    p = subprocess.run([EXE, *args], capture_output=True, text=True, timeout=120)
    assert p.returncode == expect, p.stderr
    return p


def cli_json(*args):
    return json.loads(cli(*args, "--json").stdout)


def same(a, b):
    """A number of ours against the CLI's JSON: equal, NaN for null."""
    if b is None:
        return a is None or (isinstance(a, float) and math.isnan(a))
    if isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(b, dict):
        return all(same(a[k], v) for k, v in b.items())
    return a == b


# ---- run --rigid --------------------------------------------------------------------------

@pytest.mark.parametrize("rigid,options,flags", [
    ("newton", {"restitution": 0.9}, ["--restitution", "0.9"]),
    ("energetic", {"kappa": 0.95, "alpha": [1, 0.9]}, ["--kappa", "0.95", "--alpha", "1,0.9"]),
    ("calibrated", {}, []),
])
def test_rigid_run_equals_cli(tmp_path, rigid, options, flags):
    out = str(tmp_path / "cli.h5")
    cli("run", CHAIN3, "--rigid", rigid, *flags, "-o", out, "-q")
    f = cradle.read(out, isolate=False)
    r = cradle.run(CHAIN3, rigid=rigid, **options)
    # reference: the file `cradle run --rigid` wrote, exact
    assert r.kind == f.kind == "rigid"
    assert (r.final_velocity == f.final_velocity).all()
    assert len(r.episodes) == len(f.episodes) > 0
    for x, y in zip(r.episodes, f.episodes):
        assert x.t_start == y.t_start and x.kappa == y.kappa
        assert (x.velocity_after == y.velocity_after).all()
        assert (x.contacts["impulse"] == y.contacts["impulse"]).all()
    assert r.attrs["rigid_law"] == f.attrs["rigid_law_after_run"]


def test_rigid_table_equals_cli(tmp_path):
    """--table runs the cradle executable (its provider lives in tools/): the
    same file, and an impact outside the table's axes is code -11 (exit 5)."""
    table = os.path.join(SOURCE, "data", "chain3-hertz.h5")
    out = str(tmp_path / "cli.h5")
    cli("run", CHAIN3, "--rigid", "energetic", "--table", table, "-o", out, "-q")
    f = cradle.read(out, isolate=False)
    r = cradle.run(CHAIN3, rigid="energetic", table=table)
    assert (r.final_velocity == f.final_velocity).all() and len(r.episodes) == len(f.episodes)
    assert r.attrs["rigid_law_after_run"] == f.attrs["rigid_law_after_run"]
    with pytest.raises(cradle.CradleError) as e:
        cradle.run(open(CHAIN3).read(), rigid="energetic", table=table, set={"balls[1].mass": 7})
    assert e.value.code == -11 and "<string>: t = 0 s" in str(e.value) and "outside" in str(e.value)


def test_rigid_pool_equals_cli(tmp_path):
    pool = os.path.join(MODELS, "pool-bernoulli.yaml")
    out = str(tmp_path / "cli.h5")
    cli("run", pool, "--rigid", "newton", "-o", out, "-q")
    f = cradle.read(out, isolate=False)
    r = cradle.run(pool, rigid="newton", output=tmp_path / "py.h5")
    assert (r.final_velocity == f.final_velocity).all() and len(r.collisions) == len(f.collisions)
    assert (cradle.read(str(tmp_path / "py.h5"), isolate=False).final_velocity
            == f.final_velocity).all()


# ---- law ----------------------------------------------------------------------------------

@pytest.mark.parametrize("law", ["newton", "poisson", "energetic", "sequential", "lzb",
                                 "global-dissipation"])
def test_law_equals_cli(law):
    for case in sorted(glob.glob(os.path.join(CASES, "*.yaml")))[:5]:
        p = subprocess.run([EXE, "law", law, case, "--json"], capture_output=True, text=True)
        if p.returncode != 0:  # a case the law refuses: the same refusal here
            with pytest.raises(cradle.CradleError) as e:
                cradle.law(law, case)
            assert e.value.code == -2 and p.stderr.strip().endswith(str(e.value))
            continue
        j = json.loads(p.stdout)
        r = cradle.law(law, case)
        assert (r.law, r.kind, r.dofs, r.contacts, r.status, r.message, r.trace) == (
            j["law"], j["kind"], j["dofs"], j["contacts"], j["status"], j["message"], j["trace"])
        assert same(r.residual, j["residual"]) and same(list(r.gamma_minus), j["gamma_minus"])
        assert len(r.velocity) == len(j["outcomes"])
        for k, o in enumerate(j["outcomes"]):
            assert same(list(r.velocity[k]), o["velocity"])
            assert same(list(r.impulse[k]), o["impulse"])
            assert same(r.energy_ratio[k], o["energy_ratio"])


def test_law_text_case():
    text = open(os.path.join(CASES, "three-ball-chain.yaml")).read()
    r = cradle.law("newton", text)
    # Acary & Taha 2005 sect. 3.2: Newton's law with e = 1 on the touching pair
    # gives u+ = (-1/3, 2/3, 2/3) (closed form)
    assert np.allclose(r.velocity[0], [-1 / 3, 2 / 3, 2 / 3], rtol=0, atol=1e-15)


# ---- compare ------------------------------------------------------------------------------

def _array(v):
    return list(v) if isinstance(v, np.ndarray) else v


def _same_compare(ours, theirs):
    assert len(ours["episodes"]) == len(theirs["episodes"]) > 0
    for a, b in zip(ours["episodes"], theirs["episodes"]):
        rows_a, rows_b = a.pop("rows"), b.pop("rows")
        assert same({k: _array(v) for k, v in a.items()}, b)
        assert len(rows_a) == len(rows_b) > 0
        for x, y in zip(rows_a, rows_b):
            assert same({k: _array(v) for k, v in x.items()}, y)
    assert same(ours["summary"], theirs["summary"])
    assert ours["two_body_runs"] == theirs["two_body_runs"]


def test_compare_model_equals_cli():
    _same_compare(cradle.compare(CHAIN3), cli_json("compare", CHAIN3))


def test_compare_run_file_equals_cli(runs):
    h5 = runs["chain"][0]
    ours = cradle.compare(h5, episode=1)
    assert len(ours["episodes"]) == 1 and ours["episodes"][0]["index"] == 1
    _same_compare(ours, cli_json("compare", h5, "--episode", "1"))
    # a cradle.Run with its file is compared from the file
    run = cradle.read(h5, isolate=False)
    assert len(cradle.compare(run)["episodes"]) == len(run.episodes)


def _timeless(d):
    """The report without its wall times (which differ from run to run)."""
    if isinstance(d, dict):
        return {k: _timeless(v) for k, v in d.items() if k != "wall_time"}
    return [_timeless(v) for v in d] if isinstance(d, list) else d


def test_compare_rigid_equals_cli():
    model = os.path.join(MODELS, "pendulum-cradle-3.yaml")
    first_2_s = {"integration.t_end": 2.0}
    ours = cradle.compare(model, rigid=["calibrated", "newton"], restitution=0.9, set=first_2_s)
    theirs = cli_json("compare", model, "--set", "integration.t_end=2.0", "--rigid", "calibrated",
                      "--rigid", "newton", "--restitution", "0.9")
    assert [v["variant"] for v in ours["variants"]] == ["calibrated", "newton"]
    assert all(len(v["rows"]) >= 4 for v in ours["variants"])  # 2 s: about 4 collisions
    assert same(_timeless(ours), _timeless(theirs))
    assert ours["variants"][1]["law"] == "newton (restitution 0.9)"


# ---- sweep and table ----------------------------------------------------------------------

GRID = """name: grid
model: {model}
axes:
  - field: balls[1].mass
    key: m2/m1
    values: {values}
"""


def _sweep_file(tmp_path, name, values):
    p = tmp_path / (name + ".yaml")
    p.write_text(GRID.format(model=CHAIN3, values=values).replace("name: grid", "name: " + name))
    return str(p)


def test_sweep_and_table_equal_cli(tmp_path):
    grid, check = _sweep_file(tmp_path, "grid", "[0.5, 1, -1, 2]"), _sweep_file(
        tmp_path, "check", "[0.75, 1.5]")
    s = cradle.sweep(grid, jobs=2)  # default output: grid.h5 beside
    assert s.path == str(tmp_path / "grid.h5") and s.status == "complete"
    assert "must be positive" in s.errors[2]  # the failed point is a row with its reason
    cli("sweep", grid, "-o", str(tmp_path / "cli.h5"), "-j", "1", "-q")
    c = cradle.sweep.read(str(tmp_path / "cli.h5"), isolate=False)
    assert c.columns == s.columns and np.array_equal(c.table, s.table, equal_nan=True)
    assert c.errors == s.errors
    ok = _sweep_file(tmp_path, "ok", "[0.5, 1, 2]")
    cradle.sweep(ok, jobs=1)
    cradle.sweep(check, output=tmp_path / "check.h5")
    t = cradle.table.make(tmp_path / "ok.h5", tmp_path / "t.h5", check=tmp_path / "check.h5",
                          attrs={"source": "test"})
    cli("table", "make", str(tmp_path / "ok.h5"), "--check", str(tmp_path / "check.h5"),
        "-o", str(tmp_path / "t-cli.h5"), "--attr", "source=test", "-q")
    for table in (t, str(tmp_path / "t-cli.h5")):
        ours = cradle.table.lookup(table, ["kappa", "alpha[1]"], **{"m2/m1": 1.2})
        theirs = cli_json("table", "lookup", table, "m2/m1=1.2", "--column", "kappa",
                          "--column", "alpha[1]")["values"]
        assert {k: list(v) for k, v in ours.items()} == {
            k: [v["value"], v["bound"]] for k, v in theirs.items()}
    assert cradle.table.lookup(t, "kappa", **{"m2/m1": 1})["kappa"][1] == 0  # a grid point


# ---- fit ----------------------------------------------------------------------------------

ROWS = """observable,time,index,value,sigma
velocity_after,2e-4,0,,2e-3
velocity_after,2e-4,2,,2e-3
contact_duration,1e-4,0,,5e-7
"""


def test_fit_equals_cli(tmp_path):
    model = os.path.join(MODELS, "fit-chain-3.yaml")
    (tmp_path / "rows.csv").write_text(ROWS)
    data = tmp_path / "data.csv"
    data.write_text(cli("fit", model, str(tmp_path / "rows.csv"), "--synthetic", "7").stdout)
    # the same synthetic rows from Python (the comment line names the model as given)
    assert cradle.synthesize(model, ROWS, 7) == data.read_text()
    theirs = cli_json("fit", model, str(data), "--set", "contact.C=1.5e4", "--vary",
                      "contact.C=0:1e5")
    ours = cradle.fit(model, str(data), {"contact.C": (0, 1e5)}, set={"contact.C": 1.5e4},
                      output=tmp_path / "fit.h5")
    assert ours.converged == theirs["converged"] and ours.convergence == theirs["convergence"]
    assert (ours.chi2, ours.chi2_start, ours.runs, ours.iterations) == (
        theirs["chi2"], theirs["chi2_start"], theirs["runs"], theirs["iterations"])
    for p in theirs["parameters"]:
        assert same(ours.parameters[p["path"]], {k: p[k] for k in ("start", "value", "std_error",
                                                                   "lo", "hi")})
    assert same([[r["model"], r["residual"]] for r in ours.rows],
                [[o["model"], o["residual"]] for o in theirs["observations"]])
    assert cradle.fitfile.read(str(tmp_path / "fit.h5"), isolate=False) is not None


# ---- errors -------------------------------------------------------------------------------

def test_errors(tmp_path):
    bad_model = "name: bad\nballs:\n  - {mass: -1, radius: 0.01, x: 0.0}\n"
    cases = [
        (lambda: cradle.run(CHAIN3, rigid="newtn"), -2, "did you mean 'newton'"),
        (lambda: cradle.run(CHAIN3, rigid="energetic"), -2, "needs kappa and alpha"),
        (lambda: cradle.run(CHAIN3, rigid="newton", restitution=2), -2, "must lie in"),
        (lambda: cradle.run(CHAIN3, rigid="energetic", kappa=1, alpha=[1, 1, 1]), -2,
         "3 values for the 2 pairs"),
        (lambda: cradle.run(CHAIN3, set={"balls[1].mass": -1}), -5, "must be positive"),
        (lambda: cradle.law("newton", "chain: {masses: [1, -1]}\n"), None, "<string>"),
        (lambda: cradle.law("newton", "no-such-case.yaml"), -3, "no such model file"),
        (lambda: cradle.compare(bad_model), -5, "<string>:3"),
        (lambda: cradle.compare(str(tmp_path / "none.h5")), -3, "none.h5"),
        (lambda: cradle.sweep(str(tmp_path / "none.yaml")), -3, "none.yaml"),
        (lambda: cradle.table.lookup(os.path.join(SOURCE, "data", "chain3-hertz.h5"),
                                     "kappa", e=0.9), -2, "give m2/m1"),
        (lambda: cradle.fit(os.path.join(MODELS, "fit-chain-3.yaml"), "observable,time\n",
                            ["contact.C"]), None, "<string>"),
        (lambda: cradle.fit(os.path.join(MODELS, "fit-chain-3.yaml"), ROWS.replace(",,", ",1,"),
                            ["contact.nothing"]), None, "contact.nothing"),
    ]
    for fn, code, text in cases:
        with pytest.raises(cradle.CradleError) as e:
            fn()
        assert text in str(e.value), str(e.value)
        assert e.value.code < 0 and (code is None or e.value.code == code), (str(e.value), e.value.code)
        assert e.value.status  # the library's name of the code (cr_strerror)
    data = os.path.join(SOURCE, "data", "chain3-hertz.h5")
    with pytest.raises(cradle.CradleError) as e:  # the CLI's exit 5
        cradle.table.lookup(data, "kappa", **{"m2/m1": 7, "m3/m1": 1, "K23/K12": 1, "e": 1})
    assert e.value.code == -11 and "outside" in str(e.value)


# ---- Ctrl-C -------------------------------------------------------------------------------

def _interrupt(tmp_path, code, after, wait_for=None):
    """Runs @code in a child python, sends SIGINT @after s once it says "go"
    (and once the file @wait_for exists: the work has begun): (exit status,
    stderr)."""
    script = tmp_path / "child.py"
    script.write_text("import signal, sys\nsys.path.insert(0, %r)\n"
                      "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
                      "import cradle\nprint('go', flush=True)\n%s\n"
                      % (os.path.join(SOURCE, "python"), code))
    p = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "go"
    for _ in range(600):
        if wait_for is None or os.path.exists(wait_for) or p.poll() is not None:
            break
        time.sleep(0.01)
    time.sleep(after)
    p.send_signal(signal.SIGINT)
    t0 = time.time()
    _, err = p.communicate(timeout=60)
    return p.returncode, err, time.time() - t0


def test_ctrl_c_run(tmp_path):
    st, err, took = _interrupt(tmp_path, "cradle.run(%r, output='long.h5', t_end=1e4, "
                               "trajectory=False)" % os.path.join(MODELS, "pendulum-cradle.yaml"),
                               0.5)
    assert st != 0 and err.rstrip().endswith("KeyboardInterrupt"), err
    with h5py.File(str(tmp_path / "long.h5"), "r") as f:  # the file kept, and says so
        status = f.attrs["status"]
        assert (status.decode() if isinstance(status, bytes) else status) == "interrupted"
        assert 0 < len(f["collisions"]) and f.attrs["t_end"] < 1e4


def test_ctrl_c_sweep(tmp_path):
    # 4000 points (a few ms each): the signal comes 0.2 s after the sweep file
    # appears, long before the end (400 points could all be done by 0.5 s)
    values = ", ".join("%g" % (0.5 + 0.0001 * k) for k in range(4000))
    spec = _sweep_file(tmp_path, "big", "[%s]" % values).replace(".yaml", "")
    st, err, took = _interrupt(tmp_path, "cradle.sweep(%r, jobs=1)" % (spec + ".yaml"), 0.2,
                               wait_for=spec + ".h5")
    assert st != 0 and err.rstrip().endswith("KeyboardInterrupt"), err
    s = cradle.sweep.read(spec + ".h5", isolate=False)
    assert s.status == "interrupted" and 0 < s.done.sum() < 4000
