"""XDMF sidecar of a run file, so ParaView (or VisIt) opens a chain or a pool as
particles moving in time, with velocities and forces:

    python3 -m cradle.xdmf FILE.h5 [--steps N]   (or: cradle-plot --xdmf FILE.h5)

writes FILE.xmf and FILE.xdmf.h5 beside FILE.h5 (or in --outdir DIR), and
for a pool with half-plane walls FILE-walls.xmf: one line segment per wall
(its line n·p = offset clipped to the box of the bodies' paths, widened by
two radii), point data "wall" = the wall's index, in a file of its own so
that the bodies' file stays one particle set (open both in ParaView; a
chain's walls are fixed bodies, already particles). The XDMF file is a temporal
collection of polyvertex grids, one per stored row (at most N rows, evenly
spread; default 1000, 0 for all). The run file itself is never modified:
what ParaView needs in a form the run file does not have (3-component
positions, velocities and forces per body) goes into FILE.xdmf.h5:

  /position, /velocity   (S, N, 3)  the selected rows, padded with zeros
  /force                 (S, N, 3)  chains: the net contact force on each body
                                    from /trajectory/force (exact at the rows);
                                    pools: m dv/dt by central differences of the
                                    stored rows (pools store no per-contact series)
  /time                  (S,)       s
  /row                   (S,)       the rows of /trajectory they are
  /mass, /radius         (N,)       /model/mass (kg; a fixed body's ∞ as 0), /model/radius
  /wall_points           (2W, 3)    pools: the walls' segment ends (m)
  /wall_index            (2W,)      the wall of each point

The sidecar holds everything the .xmf files name, so they work wherever
they are written.
Written in Python rather than C: it needs only h5py, works on any file
already written (the store need not know about viewers), and keeps a text
format out of the library.
"""
import argparse
import os
import sys
from xml.sax.saxutils import quoteattr

import h5py
import numpy as np

DEFAULT_STEPS = 1000


def _forces(f, rows, n, dim):
    """(S, N, 3) forces at the selected rows."""
    out = np.zeros((len(rows), n, 3))
    tr = f["trajectory"]
    if "force" in tr:
        fc = tr["force"][rows, :]              # (S, C): contact c pushes c back, c + 1 on
        out[:, 1:, 0] += fc
        out[:, :-1, 0] -= fc
        return out, "net contact force from /trajectory/force"
    t = tr["time"][()]
    v = tr["velocity"][()].reshape(len(t), n, dim)
    mass = f["model/mass"][()]
    m = np.where(np.isfinite(mass), mass, 0.0)
    if len(t) > 1:
        a = np.gradient(v, t, axis=0, edge_order=1)
        out[:, :, :dim] = m[None, :, None] * a[rows]
    return out, "m dv/dt, central differences of the stored rows"


def require_whole(f):
    """A format 3 file may hold a chosen part of the trajectory; the frames
    need every body's position and velocity (docs/model-format.md, "Output")."""
    tr = f["trajectory"]
    n = int(f["model"].attrs["body_count"])
    if "position" not in tr or "velocity" not in tr or \
            ("bodies" in tr and tr["bodies"].shape != (n,)):
        raise ValueError("frames need the position and velocity of every body; this run "
                         "wrote %s (output.fields, output.bodies)"
                         % (tr.attrs.get("fields", "") or "no trajectory"))


def select_rows(count, steps):
    if steps <= 0 or count <= steps:
        return np.arange(count)
    return np.unique(np.linspace(0, count - 1, steps).round().astype(int))


def _hdf(path, dims, ntype="Float", precision=8):
    return ('<DataItem Format="HDF" NumberType="%s" Precision="%d" Dimensions="%s">%s</DataItem>'
            % (ntype, precision, " ".join(str(d) for d in dims), path))


def _slab(path, full, k, n):
    """Row k of a (S, N, 3) dataset as an N × 3 block."""
    return ('<DataItem ItemType="HyperSlab" Dimensions="%d 3" Type="HyperSlab">'
            '<DataItem Dimensions="3 3" Format="XML">%d 0 0 1 1 1 1 %d 3</DataItem>%s</DataItem>'
            % (n, k, n, _hdf(path, full)))


def wall_segment(normal, offset, lo, hi):
    """The wall line n·p = offset (first two components) clipped to the box
    [lo, hi]: its two ends (2, 2), or None when it misses the box."""
    n = np.asarray(normal[:2], float)
    p0 = n * offset / n.dot(n)
    d = np.array([-n[1], n[0]])
    tol = 1e-12 * float(np.max(hi - lo))
    ts = [(b[k] - p0[k]) / d[k] for k in range(2) if d[k] != 0 for b in (lo, hi)]
    ts = [t for t in ts if np.all(p0 + t * d >= lo - tol) and np.all(p0 + t * d <= hi + tol)]
    return None if len(ts) < 2 else np.array([p0 + min(ts) * d, p0 + max(ts) * d])


def path_box(pos, radius):
    """The x–y box of positions (..., N, >= 2) widened by two largest radii."""
    xy = pos[..., :2].reshape(-1, 2)
    r = float(np.max(radius)) if len(radius) else 0.0
    return xy.min(axis=0) - 2 * r, xy.max(axis=0) + 2 * r


def wall_points(f, pos):
    """(2W, 3) segment ends and (2W,) wall indices of a pool's walls."""
    m = f["model"]
    if "wall_normal" not in m or len(m["wall_offset"]) == 0:
        return np.zeros((0, 3)), np.zeros(0, np.int64)
    lo, hi = path_box(pos, m["radius"][()])
    pts, idx = [], []
    for w, (nrm, off) in enumerate(zip(m["wall_normal"][()], m["wall_offset"][()])):
        seg = wall_segment(nrm, off, lo, hi)
        if seg is not None:
            pts += [np.append(seg[0], 0.0), np.append(seg[1], 0.0)]
            idx += [w, w]
    return np.array(pts).reshape(-1, 3), np.array(idx, np.int64)


def _write_walls(path, side_name, count, name):
    out = ['<?xml version="1.0" ?>',
           '<Xdmf Version="3.0" xmlns:xi="http://www.w3.org/2001/XInclude">', "<Domain>",
           '<Grid Name=%s GridType="Uniform">' % quoteattr(name + " walls"),
           '<Topology TopologyType="Polyline" NumberOfElements="%d" NodesPerElement="2"/>'
           % (count // 2),
           '<Geometry GeometryType="XYZ">%s</Geometry>' % _hdf(side_name + ":/wall_points",
                                                              (count, 3)),
           '<Attribute Name="wall" AttributeType="Scalar" Center="Node">%s</Attribute>'
           % _hdf(side_name + ":/wall_index", (count,), "Int"),
           "</Grid>", "</Domain>", "</Xdmf>", ""]
    with open(path, "w", encoding="utf-8") as fx:
        fx.write("\n".join(out))


def write(h5path, steps=DEFAULT_STEPS, outdir=None):
    """Writes FILE.xmf and FILE.xdmf.h5 (and FILE-walls.xmf for a pool with
    walls) beside @h5path or in @outdir; @return the .xmf path."""
    base = os.path.splitext(h5path)[0]
    if outdir:
        base = os.path.join(outdir, os.path.basename(base))
    xmf, side = base + ".xmf", base + ".xdmf.h5"
    run_name, side_name = os.path.basename(h5path), os.path.basename(side)
    with h5py.File(h5path, "r") as f:
        require_whole(f)
        m = f["model"]
        n, dim = int(m.attrs["body_count"]), int(m.attrs["dim"])
        t = f["trajectory/time"][()]
        rows = select_rows(len(t), steps)
        S = len(rows)
        pos = np.zeros((S, n, 3))
        vel = np.zeros((S, n, 3))
        pos[:, :, :dim] = f["trajectory/position"][rows, :].reshape(S, n, dim)
        vel[:, :, :dim] = f["trajectory/velocity"][rows, :].reshape(S, n, dim)
        force, how = _forces(f, rows, n, dim)
        name = str(f.attrs.get("model_name", run_name))
        mass, radius = f["model/mass"][()], f["model/radius"][()]
        wpts, widx = wall_points(f, f["trajectory/position"][()].reshape(len(t), n, dim))
    with h5py.File(side, "w") as g:
        g.attrs["source"] = run_name
        g.attrs["force"] = how
        for key, val, units in (("position", pos, "m"), ("velocity", vel, "m/s"),
                                ("force", force, "N"), ("time", t[rows], "s"),
                                ("row", rows.astype(np.int64), "1 (row of /trajectory)"),
                                ("mass", np.where(np.isfinite(mass), mass, 0.0), "kg"),
                                ("radius", radius, "m"), ("wall_points", wpts, "m"),
                                ("wall_index", widx, "1 (wall)")):
            d = g.create_dataset(key, data=val)
            d.attrs["units"] = units
    full = (S, n, 3)
    out = ['<?xml version="1.0" ?>',
           '<Xdmf Version="3.0" xmlns:xi="http://www.w3.org/2001/XInclude">', "<Domain>",
           '<Grid Name=%s GridType="Collection" CollectionType="Temporal">' % quoteattr(name)]
    for k in range(S):
        out.append('<Grid Name="row %d" GridType="Uniform">' % rows[k])
        out.append('<Time Value="%.17g"/>' % t[rows[k]])
        out.append('<Topology TopologyType="Polyvertex" NumberOfElements="%d" NodesPerElement="1"/>'
                   % n)
        out.append('<Geometry GeometryType="XYZ">%s</Geometry>'
                   % _slab(side_name + ":/position", full, k, n))
        for key in ("velocity", "force"):
            out.append('<Attribute Name="%s" AttributeType="Vector" Center="Node">%s</Attribute>'
                       % (key, _slab(side_name + ":/" + key, full, k, n)))
        for key in ("mass", "radius"):
            out.append('<Attribute Name="%s" AttributeType="Scalar" Center="Node">%s</Attribute>'
                       % (key, _hdf(side_name + ":/" + key, (n,))))
        out.append("</Grid>")
    out += ["</Grid>", "</Domain>", "</Xdmf>", ""]
    with open(xmf, "w", encoding="utf-8") as fx:
        fx.write("\n".join(out))
    if len(wpts):
        _write_walls(base + "-walls.xmf", side_name, len(wpts), name)
    return xmf


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m cradle.xdmf",
                                 description="XDMF sidecar of a cradle run file for ParaView")
    ap.add_argument("file", help="run file (HDF5) written by cradle")
    ap.add_argument("--steps", type=int, default=DEFAULT_STEPS,
                    help="time steps at most, evenly spread over the rows (0: all; default %d)"
                    % DEFAULT_STEPS)
    ap.add_argument("--outdir", help="folder for the files (default: beside FILE)")
    a = ap.parse_args(argv)
    try:
        path = write(a.file, a.steps, a.outdir)
    except (OSError, KeyError) as e:
        print("cradle.xdmf: %s: %s" % (a.file, e), file=sys.stderr)
        return 1
    print("wrote %s (open it in ParaView; data in %s)"
          % (path, os.path.splitext(path)[0] + ".xdmf.h5"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
