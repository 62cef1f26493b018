"""Extended XYZ export (cradle.xyz, for OVITO): parsed here by its Properties
header (an independent reader: columns are found from the spec, not assumed),
every frame's positions, velocities and time equal the run file's rows read
with h5py (exact: %.17g round-trips doubles), bodies carry radius, mass and
the fixed flag, and tools/cradle-plot --xyz writes the same file."""
import os
import subprocess

import h5py
import numpy as np
import pytest

from cradle import xyz

from conftest import SOURCE

PLOTTER = os.path.join(SOURCE, "tools", "cradle-plot")
WIDTH = {"S": str, "R": float, "I": int}


def parse(path):
    """[(info dict, {property: array})] of an extended XYZ file."""
    frames = []
    with open(path) as fx:
        lines = fx.read().splitlines()
    k = 0
    while k < len(lines):
        n = int(lines[k])
        info = dict(tok.split("=", 1) for tok in lines[k + 1].split())
        spec = info["Properties"].split(":")
        rows = [ln.split() for ln in lines[k + 2:k + 2 + n]]
        props, col = {}, 0
        for name, typ, width in zip(spec[0::3], spec[1::3], spec[2::3]):
            w = int(width)
            props[name] = np.array([[WIDTH[typ](r[c]) for c in range(col, col + w)] for r in rows])
            col += w
        assert all(len(r) == col for r in rows)
        frames.append((info, props))
        k += 2 + n
    return frames


@pytest.mark.parametrize("kind", ["chain", "pool", "spheres-walls"])
def test_frames_are_the_rows(runs, kind, tmp_path):
    h5 = runs[kind][0]
    out = str(tmp_path / "run.xyz")
    path, count = xyz.write(h5, steps=25, out=out)
    assert path == out and not [p for p in os.listdir(tmp_path) if ".part-" in p]
    frames = parse(out)
    with h5py.File(h5, "r") as f:
        n, dim = int(f["model"].attrs["body_count"]), int(f["model"].attrs["dim"])
        t = f["trajectory/time"][()]
        pos = f["trajectory/position"][()].reshape(len(t), n, dim)
        vel = f["trajectory/velocity"][()].reshape(len(t), n, dim)
        mass, radius = f["model/mass"][()], f["model/radius"][()]
        fixed = f["model/fixed"][()].astype(bool)
        if dim == 3:
            normal, offset = f["model/wall_normal"][()], f["model/wall_offset"][()]
    assert len(frames) == count == min(25, len(t))
    rows = [int(info["Row"]) for info, _ in frames]
    assert rows[0] == 0 and rows[-1] == len(t) - 1 and rows == sorted(set(rows))
    walls = xyz.walls(h5)
    for (info, p), r in zip(frames, rows):
        assert float(info["Time"]) == t[r]
        assert int(info["Bodies"]) == n
        if dim < 3:
            assert int(info["Walls"]) * 2 == len(walls)
        if kind == "pool":   # pool-bernoulli's wall: two ends, species X, fixed
            assert len(walls) == 2
        if dim == 3:         # each wall's polygon, on its plane n·p = offset
            index = [int(x) for x in info["WallIndex"].split(",")]
            counts = [int(x) for x in info["WallVertices"].split(",")]
            assert int(info["Walls"]) == len(index) == len(offset) and sum(counts) == len(walls)
            assert min(counts) >= 3 and sorted(index) == list(range(len(offset)))
            start = n
            for w, k in zip(index, counts):
                poly = p["pos"][start:start + k]
                assert np.allclose(poly @ normal[w], offset[w], rtol=0, atol=1e-13)
                start += k
        assert np.array_equal(p["pos"][n:], walls) and set(p["species"][n:, 0]) <= {"X"}
        assert (p["fixed"][n:, 0] == 1).all() and not p["velo"][n:].any()
        p = {k: v[:n] for k, v in p.items()}
        assert np.array_equal(p["pos"][:, :dim], pos[r]) and not p["pos"][:, dim:].any()
        assert np.array_equal(p["velo"][:, :dim], vel[r]) and not p["velo"][:, dim:].any()
        assert np.array_equal(p["radius"][:, 0], radius)
        assert np.array_equal(p["mass"][:, 0], np.where(fixed, 0.0, mass))
        assert list(p["species"][:, 0]) == ["W" if x else "B" for x in fixed]
        assert np.array_equal(p["fixed"][:, 0], fixed.astype(int))


def test_cradle_plot_xyz(runs, tmp_path):
    h5 = tmp_path / "pool.h5"
    h5.write_bytes(open(runs["pool"][0], "rb").read())
    p = subprocess.run(["/usr/bin/python3", PLOTTER, str(h5), "--kind", "none", "--xyz",
                        "--steps", "10"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "pool.xyz" in p.stdout and len(parse(str(tmp_path / "pool.xyz"))) == 10
    # --outdir: XYZ and XDMF go into DIR, nothing new beside the run
    out = tmp_path / "figs"
    p = subprocess.run(["/usr/bin/python3", PLOTTER, str(h5), "--kind", "none", "--xyz",
                        "--xdmf", "--steps", "10", "--outdir", str(out)], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert sorted(os.listdir(out)) == ["pool-walls.xmf", "pool.xdmf.h5", "pool.xmf", "pool.xyz"]
    assert sorted(os.listdir(tmp_path)) == ["figs", "pool.h5", "pool.xyz"]


@pytest.mark.parametrize("kind", ["chain", "pool", "spheres-walls"])
def test_ase_reads_the_frames(runs, kind, tmp_path):
    """ASE (python3-ase), the reader OVITO users script with, reads every frame
    back: positions, velocities (its momenta over its masses), radii, time."""
    ase_io = pytest.importorskip("ase.io", reason="python3-ase is not installed")
    h5 = runs[kind][0]
    out = str(tmp_path / "run.xyz")
    _, count = xyz.write(h5, steps=12, out=out)
    frames = ase_io.read(out, index=":", format="extxyz")
    with h5py.File(h5, "r") as f:
        n, dim = int(f["model"].attrs["body_count"]), int(f["model"].attrs["dim"])
        t = f["trajectory/time"][()]
        pos = f["trajectory/position"][()].reshape(len(t), n, dim)
        radius = f["model/radius"][()]
    assert len(frames) == count == min(12, len(t))
    for atoms in frames:
        r = int(atoms.info["Row"])
        assert atoms.info["Time"] == t[r]
        assert np.array_equal(atoms.get_positions()[:n, :dim], pos[r])
        assert np.array_equal(atoms.arrays["radius"][:n], radius)
        assert np.array_equal(atoms.get_positions()[n:], xyz.walls(h5))
        assert set(atoms.get_chemical_symbols()[n:]) <= {"X"}
        if dim == 3:        # the walls' vertex counts, as ASE parses the header
            assert atoms.info["Walls"] >= 1
            assert np.sum(atoms.info["WallVertices"]) == len(atoms) - n
