"""cradle.run (ctypes over the public C API) against `cradle run` on the same
model: the same library and pipeline, so the same doubles; a path, a YAML
string and a dict give the same run; errors come back as CradleError with
libcradle's one-line reason."""
import numpy as np
import pytest
import yaml

import cradle
from cradle.lib import CradleError


def _eq(a, b):
    """Structured arrays equal column by column (NaN equals NaN: eN at rest)."""
    names = [n for n in a.dtype.names if n in b.dtype.names]
    return len(a) == len(b) and all(
        np.array_equal(a[n], b[n], equal_nan=a[n].dtype.kind == "f") for n in names)


def _same(a, b):
    assert len(a.episodes) == len(b.episodes) > 0
    for x, y in zip(a.episodes, b.episodes):
        assert (x.t_start, x.t_end, x.kappa) == (y.t_start, y.t_end, y.kappa)
        assert (x.bodies == y.bodies).all()
        assert (x.velocity_after == y.velocity_after).all()
        assert _eq(x.contacts, y.contacts)
    assert len(a.collisions) == len(b.collisions) > 0
    for x, y in zip(a.collisions, b.collisions):
        assert (x.t_start, x.kappa) == (y.t_start, y.kappa)
        assert (x.episodes == y.episodes).all() and _eq(x.contacts, y.contacts)
        assert (x.velocity_before == y.velocity_before).all()
    assert a.collision_window == b.collision_window


@pytest.mark.parametrize("kind", ["chain", "pool"])
def test_run_equals_cli(runs, kind, tmp_path):
    h5, _, model = runs[kind]
    f = cradle.read(h5)
    r = cradle.run(model)
    # reference: the file `cradle run` wrote from the same model, exact
    _same(r, f)
    assert r.kind == f.kind and r.dim == f.dim and r.name == f.name
    assert (r.time == f.time).all() and (r.position == f.position).all()
    assert (r.velocity == f.velocity).all()
    assert (r.kinetic_energy == f.kinetic_energy).all()
    assert (r.final_velocity == f.final_velocity).all()
    assert _eq(r.events, f.events)
    assert (r.mass == f.mass).all() and (r.position0 == f.position0).all()
    for col in ("body_a", "body_b", "impulse", "force"):
        assert (r.contacts[col] == f.contacts[col]).all()
    if kind == "chain":
        assert (r.force == f.force).all() and (r.impulse == f.impulse).all()
    else:
        assert (r.wall_normal == f.wall_normal).all() and (r.wall_offset == f.wall_offset).all()


def test_run_writes_the_same_file(runs, tmp_path):
    out = tmp_path / "py.h5"
    r = cradle.run(runs["chain"][2], output=out)
    assert r.path == str(out)
    f = cradle.read(str(out))
    _same(f, cradle.read(runs["chain"][0]))
    assert f.attrs["status"] == "complete"


def test_string_and_dict(runs):
    text = open(runs["chain"][2]).read()
    a = cradle.run(text)
    b = cradle.run(yaml.safe_load(text))
    _same(a, b)
    _same(a, cradle.read(runs["chain"][0]))


def test_options(runs):
    r = cradle.run(runs["chain"][2], t_end=0.5, collision_window=1.0, trajectory=False)
    assert abs(r.final_time - 0.5) < 1e-12
    assert r.collision_window == 1.0
    assert len(r.collisions) == 1 and len(r.time) == 0


def test_errors():
    with pytest.raises(CradleError, match=r"<string>:3: .*mass"):
        cradle.run("name: bad\nballs:\n  - {mass: -1, radius: 0.01, x: 0.0}\n")
    with pytest.raises(CradleError, match="no such model file"):
        cradle.run("no-such-file.yaml")


def test_pendulums(runs):
    """cr_model_pendulum through ctypes: the chain generator hangs touching
    balls (spacing 2 r = 0.02 m) from pivots at their rest positions."""
    p = cradle.lib.pendulums(open(runs["chain"][2]).read())
    assert [round(x, 12) for x, _ in p] == [0.0, 0.02, 0.04, 0.06, 0.08]
    assert all(L == 0.2 for _, L in p)
    assert cradle.lib.pendulums("balls:\n  - {mass: 1, radius: 1, x: 0}\n") is None
