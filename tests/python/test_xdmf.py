"""The XDMF sidecar: every DataItem resolves through h5py to a dataset of the
stated shape, every HyperSlab selects inside it and as many numbers as its
Dimensions say; the selected rows are the run's (positions, velocities and
times exact; chain forces = the net of /trajectory/force, exact); ParaView's
reader, when installed (pvpython), opens it as particles. Spheres (dim 3):
each half-space wall is triangles on its plane covering the plane's section
of the paths' box (area against an independent quadrature), read by
ParaView as triangles."""
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET

import h5py
import numpy as np
import pytest

from cradle import xdmf


def _dims(item):
    return tuple(int(x) for x in item.get("Dimensions").split())


def _resolve(xmf, text):
    fname, dset = text.strip().split(":", 1)
    return os.path.join(os.path.dirname(xmf), fname), dset


@pytest.fixture(scope="module", params=["chain", "pool", "spheres-walls"])
def sidecar(request, runs, tmp_path_factory):
    d = tmp_path_factory.mktemp("xdmf-" + request.param)
    h5 = d / "run.h5"
    h5.write_bytes(open(runs[request.param][0], "rb").read())
    steps = 40
    return xdmf.write(str(h5), steps=steps), str(h5), steps


def test_every_dataitem_resolves(sidecar):
    xmf, h5, steps = sidecar
    root = ET.parse(xmf).getroot()
    items = root.iter("DataItem")
    checked = 0
    for item in items:
        if item.get("Format") != "HDF":
            continue
        path, dset = _resolve(xmf, item.text)
        with h5py.File(path, "r") as f:
            assert dset in f, "%s:%s" % (path, dset)
            assert f[dset].shape == _dims(item), (dset, f[dset].shape, item.get("Dimensions"))
        checked += 1
    for slab in root.iter("DataItem"):
        if slab.get("ItemType") != "HyperSlab":
            continue
        sel, data = list(slab)
        start, stride, count = np.array(sel.text.split(), int).reshape(3, -1)
        full = np.array(_dims(data))
        assert (start + stride * (count - 1) < full).all() and (start >= 0).all()
        assert np.prod(count) == np.prod(_dims(slab))
    grids = [g for g in root.iter("Grid") if g.get("GridType") == "Uniform"]
    assert 1 < len(grids) <= steps
    # per grid: geometry, velocity, force, mass, radius
    assert checked == 5 * len(grids)


def test_rows_are_the_runs(sidecar):
    xmf, h5, steps = sidecar
    side = os.path.splitext(h5)[0] + ".xdmf.h5"
    root = ET.parse(xmf).getroot()
    with h5py.File(h5, "r") as f, h5py.File(side, "r") as g:
        n, dim = int(f["model"].attrs["body_count"]), int(f["model"].attrs["dim"])
        rows = g["row"][()]
        t = f["trajectory/time"][()]
        assert rows[0] == 0 and rows[-1] == len(t) - 1 and len(rows) <= steps
        assert (g["time"][()] == t[rows]).all()
        pos = f["trajectory/position"][()].reshape(len(t), n, dim)[rows]
        vel = f["trajectory/velocity"][()].reshape(len(t), n, dim)[rows]
        assert (g["position"][:, :, :dim] == pos).all() and (g["position"][:, :, dim:] == 0).all()
        assert (g["velocity"][:, :, :dim] == vel).all()
        if "force" in f["trajectory"]:
            fc = f["trajectory/force"][()][rows]
            net = np.zeros((len(rows), n))
            net[:, 1:] += fc          # contact c pushes body c + 1 forward ...
            net[:, :-1] -= fc         # ... and body c back
            assert (g["force"][:, :, 0] == net).all()
            assert "contact" in g.attrs["force"]
        else:
            assert "dv/dt" in g.attrs["force"]
        grids = [x for x in root.iter("Grid") if x.get("GridType") == "Uniform"]
        times = [float(x.find("Time").get("Value")) for x in grids]
        assert times == list(t[rows])


def test_main(runs, tmp_path):
    h5 = tmp_path / "m.h5"
    h5.write_bytes(open(runs["pool"][0], "rb").read())
    assert xdmf.main([str(h5), "--steps", "0"]) == 0
    with h5py.File(str(tmp_path / "m.xdmf.h5"), "r") as g, h5py.File(str(h5), "r") as f:
        assert len(g["row"]) == len(f["trajectory/time"])      # --steps 0: every row


def test_outdir_and_walls(runs, tmp_path):
    """--outdir: every file in DIR, none beside the run, the .xmf files
    resolving in DIR alone; a pool's walls: FILE-walls.xmf, one segment per
    wall whose ends lie on the wall's line n·p = offset (to 1e-12 m, the
    clip's rounding) and on the box of the paths widened by two radii."""
    src = tmp_path / "src"
    out = tmp_path / "out"
    src.mkdir()
    out.mkdir()
    h5 = src / "p.h5"
    h5.write_bytes(open(runs["pool"][0], "rb").read())
    assert xdmf.main([str(h5), "--steps", "5", "--outdir", str(out)]) == 0
    assert sorted(os.listdir(src)) == ["p.h5"]
    assert sorted(os.listdir(out)) == ["p-walls.xmf", "p.xdmf.h5", "p.xmf"]
    h5.rename(tmp_path / "moved.h5")          # the sidecar needs no run file
    with h5py.File(str(tmp_path / "moved.h5"), "r") as f, \
            h5py.File(str(out / "p.xdmf.h5"), "r") as g:
        normal, offset = f["model/wall_normal"][()], f["model/wall_offset"][()]
        n, dim = int(f["model"].attrs["body_count"]), int(f["model"].attrs["dim"])
        pos = f["trajectory/position"][()].reshape(-1, n, dim)
        r = f["model/radius"][()].max()
        pts, idx = g["wall_points"][()], g["wall_index"][()]
        assert np.array_equal(g["radius"][()], f["model/radius"][()])
    assert len(offset) >= 1 and list(idx) == [w for w in range(len(offset)) for _ in (0, 1)]
    lo = pos.reshape(-1, dim).min(axis=0) - 2 * r
    hi = pos.reshape(-1, dim).max(axis=0) + 2 * r
    for p, w in zip(pts, idx):
        assert abs(p[:2] @ normal[w] - offset[w]) <= 1e-12 and p[2] == 0
        assert (p[:2] >= lo - 1e-12).all() and (p[:2] <= hi + 1e-12).all()
    for xmf in ("p.xmf", "p-walls.xmf"):
        for item in ET.parse(str(out / xmf)).getroot().iter("DataItem"):
            if item.get("Format") == "HDF":
                path, dset = _resolve(str(out / xmf), item.text)
                with h5py.File(path, "r") as g:
                    assert g[dset].shape == _dims(item)
    chain = tmp_path / "c.h5"
    chain.write_bytes(open(runs["chain"][0], "rb").read())
    xdmf.write(str(chain), 5)          # chains: walls are fixed bodies, no walls file
    assert not (tmp_path / "c-walls.xmf").exists()


PV_CHECK = """
import sys
from paraview.simple import XDMFReader, UpdatePipeline
from paraview import servermanager as sm
r = XDMFReader(FileNames=[sys.argv[1]])
ts = r.TimestepValues
UpdatePipeline(time=ts[-1], proxy=r)
d = sm.Fetch(r)
pd = d.GetPointData()
print(len(ts), d.GetNumberOfPoints(), d.GetPoint(1)[0],
      sorted(pd.GetArrayName(i) for i in range(pd.GetNumberOfArrays())))
"""


@pytest.mark.skipif(shutil.which("pvpython") is None, reason="ParaView (pvpython) not installed")
def test_paraview_opens_it(sidecar, tmp_path):
    xmf, h5, steps = sidecar
    script = tmp_path / "pv.py"
    script.write_text(PV_CHECK)
    p = subprocess.run(["pvpython", "--force-offscreen-rendering", str(script), xmf],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    nts, npts, x1, names = p.stdout.strip().splitlines()[-1].split(" ", 3)
    with h5py.File(os.path.splitext(h5)[0] + ".xdmf.h5", "r") as g:
        assert int(nts) == len(g["row"]) and int(npts) == g["position"].shape[1]
        assert float(x1) == g["position"][-1, 1, 0]
    assert names == "['force', 'mass', 'radius', 'velocity']"


def _plane_area_in_box(n, off, lo, hi, cells=2000):
    """Area of the plane n·p = off inside the box [lo, hi], independently of
    the sidecar's clipping: the plane is a graph over the coordinate plane
    of its largest normal component k; a midpoint grid of cells² over that
    plane's box counts where the graph lies in [lo_k, hi_k], and the area
    scales by |n| / |n_k|. Error: the boundary cells, at most ~4/cells."""
    k = int(np.argmax(np.abs(n)))
    a, b = [j for j in range(3) if j != k]
    xs = [lo[j] + (np.arange(cells) + 0.5) * (hi[j] - lo[j]) / cells for j in (a, b)]
    X, Y = np.meshgrid(*xs, indexing="ij")
    Z = (off - n[a] * X - n[b] * Y) / n[k]
    inside = ((Z >= lo[k]) & (Z <= hi[k])).mean()
    return inside * (hi[a] - lo[a]) * (hi[b] - lo[b]) * np.linalg.norm(n) / abs(n[k])


def _walls_3d(runs, tmp_path):
    h5 = tmp_path / "s.h5"
    h5.write_bytes(open(runs["spheres-walls"][0], "rb").read())
    xdmf.write(str(h5), 10)
    return str(tmp_path / "s-walls.xmf"), str(h5), str(tmp_path / "s.xdmf.h5")


def test_walls_3d(runs, tmp_path):
    """A dim-3 model's walls file: one triangle grid whose DataItems resolve;
    every wall whose plane cuts the paths' box (corners on both sides) has
    points on its plane n·p = offset (1e-12 of the box: the clip's rounding)
    inside the box, triangles joining only its own points, and their area is
    the plane's area in the box (quadrature, 4/2000 relative)."""
    xmf, h5, side = _walls_3d(runs, tmp_path)
    root = ET.parse(xmf).getroot()
    topo = root.find(".//Topology")
    assert topo.get("TopologyType") == "Triangle" and topo.get("NodesPerElement") == "3"
    for item in root.iter("DataItem"):
        path, dset = _resolve(xmf, item.text)
        with h5py.File(path, "r") as g:
            assert g[dset].shape == _dims(item)
    with h5py.File(h5, "r") as f, h5py.File(side, "r") as g:
        normal, offset = f["model/wall_normal"][()], f["model/wall_offset"][()]
        n = int(f["model"].attrs["body_count"])
        pos = f["trajectory/position"][()].reshape(-1, n, 3)
        r = f["model/radius"][()].max()
        pts, idx, tri = g["wall_points"][()], g["wall_index"][()], g["wall_triangles"][()]
    assert int(topo.get("NumberOfElements")) == len(tri)
    lo, hi = pos.reshape(-1, 3).min(axis=0) - 2 * r, pos.reshape(-1, 3).max(axis=0) + 2 * r
    scale = float(np.max(hi - lo))
    corners = np.array(np.meshgrid(*zip(lo, hi), indexing="ij")).reshape(3, -1).T
    cut = [w for w in range(len(offset))
           if (corners @ normal[w]).min() < offset[w] < (corners @ normal[w]).max()]
    assert len(cut) == len(offset) == 3 and sorted(set(idx)) == cut
    assert (idx[tri] == idx[tri[:, :1]]).all()          # a triangle stays on one wall
    for w in cut:
        p = pts[idx == w]
        assert np.allclose(p @ normal[w], offset[w], rtol=0,
                           atol=1e-12 * scale * np.linalg.norm(normal[w]))
        assert (p >= lo - 1e-12 * scale).all() and (p <= hi + 1e-12 * scale).all()
        t = pts[tri[idx[tri[:, 0]] == w]]
        area = 0.5 * np.linalg.norm(np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0]), axis=1).sum()
        want = _plane_area_in_box(normal[w], offset[w], lo, hi)
        assert abs(area / want - 1) <= 4 / 2000, (w, area, want)


PV_WALLS = """
import sys
from paraview.simple import XDMFReader, UpdatePipeline
from paraview import servermanager as sm
r = XDMFReader(FileNames=[sys.argv[1]])
UpdatePipeline(proxy=r)
d = sm.Fetch(r)
a = d.GetPointData().GetArray("wall")
print(d.GetNumberOfPoints(), d.GetNumberOfCells(),
      sorted(set(d.GetCellType(i) for i in range(d.GetNumberOfCells()))),
      [int(a.GetValue(i)) for i in range(a.GetNumberOfTuples())])
"""


@pytest.mark.skipif(shutil.which("pvpython") is None, reason="ParaView (pvpython) not installed")
def test_paraview_reads_walls_3d(runs, tmp_path):
    """ParaView's XDMF Reader (the one that reads our files; docs/viewers.md)
    finds every wall point with its wall index and every triangle (VTK
    cell type 5)."""
    xmf, h5, side = _walls_3d(runs, tmp_path)
    script = tmp_path / "pvw.py"
    script.write_text(PV_WALLS)
    p = subprocess.run(["pvpython", "--force-offscreen-rendering", str(script), xmf],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    npts, ncells, types, walls = p.stdout.strip().splitlines()[-1].split(" ", 3)
    with h5py.File(side, "r") as g:
        assert int(npts) == len(g["wall_points"]) and int(ncells) == len(g["wall_triangles"])
        assert types == "[5]" and walls == str(list(g["wall_index"][()]))
