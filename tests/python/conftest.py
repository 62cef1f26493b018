"""Fixtures of the Python package tests (Debian's python3-pytest, run by the
test command through tests/meson.build): the cradle executable and libcradle
of the build under test, and small runs written once per session.

Environment (set by meson): CRADLE_EXE, CRADLE_LIB, CRADLE_SOURCE, CRADLE_BUILD.
Prints "python-package: N passed, N failed" for tools/test.sh's count, and its
classes line.
"""
import json
import os
import subprocess
import sys

import pytest

SOURCE = os.environ.get("CRADLE_SOURCE",
                        os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
BUILD = os.environ.get("CRADLE_BUILD", os.path.join(SOURCE, "build"))
EXE = os.environ.get("CRADLE_EXE", os.path.join(BUILD, "tools", "cradle"))
os.environ.setdefault("CRADLE_LIB", os.path.join(BUILD, "src", "libcradle.so"))
sys.path.insert(0, os.path.join(SOURCE, "python"))

# A 5-ball pendulum cradle over 1.2 s: three swings (T/4, 3T/4, 5T/4 with
# T = 0.8994 s), 8 episodes; output every 2 ms keeps the file small.
PENDULUM = """name: pendulum-small
chain: {count: 5, mass: 0.0329, radius: 0.01, striker: {count: 1, angle: 0.2}}
contact: {material: {E: 2.1e11, nu: 0.3}, C: 0.0}
fields: {pendulum: {length: 0.2, g: 9.81}}
integration: {t_end: 1.2}
output: {interval: 2.0e-3}
"""

# Spheres (dim 3) under gravity between three half-space walls: a floor, an
# x wall and an oblique wall x + y + z <= 0.2 that sphere 0 strikes; sphere 2
# is fixed. Every coordinate varies along the paths, and each wall is edge-on
# in some projection and oblique in another (the paths figure's traces).
SPHERES_WALLS = """name: spheres-walls
dim: 3
bodies:
  - {density: 7800, radius: 0.01, x: [0.0, 0.0, 0.03], v: [0.4, 0.25, 0.3]}
  - {density: 7800, radius: 0.01, x: [0.04, 0.05, 0.05], v: [-0.1, 0.2, -0.2]}
  - {radius: 0.01, x: [0.08, 0.0, 0.02], fixed: true}
walls:
  - {normal: [0, 0, 1], offset: 0.0}
  - {normal: [-1, 0, 0], offset: -0.12}
  - {normal: [-1, -1, -1], offset: -0.2}
contact: {material: {E: 2.1e11, nu: 0.3}}
fields: {gravity: [0, 0, -9.81]}
integration: {t_end: 0.4}
output: {interval: 2.0e-3}
"""


def cradle_run(model_path, out, *extra):
    """`cradle run MODEL -o OUT --json`: the parsed JSON report."""
    p = subprocess.run([EXE, "run", model_path, "-o", out, "--json", *extra],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.fixture(scope="session")
def runs(tmp_path_factory):
    """{"chain": (h5 path, json, model path), "pool": (...), "spheres": (...),
    "spheres-walls": (...)}, written once."""
    d = tmp_path_factory.mktemp("runs")
    model = d / "pendulum-small.yaml"
    model.write_text(PENDULUM)
    walled = d / "spheres-walls.yaml"
    walled.write_text(SPHERES_WALLS)
    out = {}
    for kind, path in (("chain", str(model)),
                       ("pool", os.path.join(SOURCE, "models", "pool-bernoulli.yaml")),
                       ("spheres", os.path.join(SOURCE, "models", "sphere-triple.yaml")),
                       ("spheres-walls", str(walled))):
        h5 = str(d / ("%s.h5" % kind))
        out[kind] = (h5, cradle_run(path, h5), path)
    return out


@pytest.fixture(autouse=True)
def _close_figures():
    """Every test's figures closed after it (pyplot keeps them open)."""
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


_counts = {"passed": 0, "failed": 0}


def pytest_runtest_logreport(report):
    if report.when == "call" or (report.when == "setup" and report.outcome == "failed"):
        if report.outcome == "passed":
            _counts["passed"] += 1
        elif report.outcome == "failed":
            _counts["failed"] += 1


def pytest_terminal_summary(terminalreporter):
    # one check per test id (a parametrised case is its own id, as testutil.h's
    # labels): the reader, the plots, the runner and the install, behaviour
    # (their numbers are cradle's own files and reports: self-consistency at most)
    n = _counts["passed"] + _counts["failed"]
    terminalreporter.write_line("python-package: %d passed, %d failed"
                                % (_counts["passed"], _counts["failed"]))
    terminalreporter.write_line("python-package: classes reference 0, invariant 0, "
                                "self-consistency 0, behaviour %d; passes %d" % (n, _counts["passed"]))
