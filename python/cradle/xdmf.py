"""XDMF sidecar of a run file, so ParaView (or VisIt) opens a chain or a pool as
particles moving in time, with velocities and forces:

    python3 -m cradle.xdmf FILE.h5 [--steps N]   (or: cradle-plot --xdmf FILE.h5)

writes FILE.xmf and FILE.xdmf.h5 beside FILE.h5 (or in --outdir DIR), and
for a pool with half-plane walls FILE-walls.xmf: one line segment per wall
(its line n·p = offset clipped to the box of the bodies' paths, widened by
two radii), point data "wall" = the wall's index, in a file of its own so
that the bodies' file stays one particle set (open both in ParaView; a
chain's walls are fixed bodies, already particles). For spheres (dim 3) a
half-space wall is its plane n·p = offset clipped to the 3-D box of the
paths widened by two radii: a polygon of 3 to 6 vertices (a rectangle, four,
for a wall normal to an axis), written as a fan of triangles (every XDMF
reader takes triangles; a box's planes need not cut it in quads). The XDMF file is a temporal
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
  /wall_points           (P, 3)     dim 2: the walls' segment ends, 2 per wall;
                                    dim 3: the vertices of each wall's polygon (m)
  /wall_index            (P,)       the wall of each point
  /wall_triangles        (T, 3)     dim 3: triangles over /wall_points (rows),
                                    a fan from each polygon's first vertex

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


def path_box(pos, radius, dims=2):
    """The box of positions (..., N, >= dims) in their first @dims components
    (x–y by default) widened by two largest radii."""
    xy = pos[..., :dims].reshape(-1, dims)
    r = float(np.max(radius)) if len(radius) else 0.0
    return xy.min(axis=0) - 2 * r, xy.max(axis=0) + 2 * r


def _box_corners(lo, hi):
    """(8, 3) corners of the box [lo, hi]; corner c takes hi in the
    components whose bit is set in c."""
    return np.array([[(lo, hi)[(c >> k) & 1][k] for k in range(3)] for c in range(8)], float)


def wall_polygon(normal, offset, lo, hi):
    """The plane n·p = offset clipped to the 3-D box [lo, hi]: its vertices
    (k, 3), 3 <= k <= 6, in order around the polygon, or None when the plane
    misses the box or only grazes an edge or a corner of it."""
    n = np.asarray(normal, float)
    corners = _box_corners(lo, hi)
    tol = 1e-12 * float(np.max(hi - lo)) * float(np.linalg.norm(n))
    s = corners @ n - offset
    pts = [corners[c] for c in range(8) if abs(s[c]) <= tol]
    for a in range(8):
        for k in range(3):
            b = a | (1 << k)
            if b != a and min(s[a], s[b]) < -tol and max(s[a], s[b]) > tol:
                pts.append(corners[a] + s[a] / (s[a] - s[b]) * (corners[b] - corners[a]))
    if len(pts) < 3:
        return None
    pts = np.array(pts)
    c = pts.mean(axis=0)
    u = np.cross(n, np.eye(3)[np.argmin(np.abs(n))])     # two directions in the plane
    v = np.cross(n, u)
    ang = np.arctan2((pts - c) @ v, (pts - c) @ u)
    return pts[np.argsort(ang)]


def wall_points(f, pos):
    """The walls' points (P, 3) and the wall of each (P,): a pool's segment
    ends (2 per wall; dim 2), or the vertices of each half-space's polygon
    in the box (dim 3; wall_polygons)."""
    if pos.shape[-1] == 3:
        polys = wall_polygons(f, pos)
        pts = [p for _, poly in polys for p in poly]
        idx = [w for w, poly in polys for _ in poly]
        return np.array(pts).reshape(-1, 3), np.array(idx, np.int64)
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


def wall_polygons(f, pos):
    """[(wall index, vertices (k, 3))] of a dim-3 model's half-space walls,
    each plane clipped to the box of the paths (pos: (..., N, 3)) widened by
    two radii; a wall whose plane misses that box is left out."""
    m = f["model"]
    if "wall_normal" not in m or len(m["wall_offset"]) == 0:
        return []
    lo, hi = path_box(pos, m["radius"][()], 3)
    out = []
    for w, (nrm, off) in enumerate(zip(m["wall_normal"][()], m["wall_offset"][()])):
        poly = wall_polygon(nrm, off, lo, hi)
        if poly is not None:
            out.append((w, poly))
    return out


def fan_triangles(idx):
    """(T, 3) triangles over the wall points (P,) that fan out from each
    wall's first vertex: a convex polygon of k points gives k - 2."""
    tri, start = [], 0
    while start < len(idx):
        k = int(np.argmax(np.append(idx[start:] != idx[start], True)))   # the wall's points
        tri += [[start, start + j, start + j + 1] for j in range(1, k - 1)]
        start += k
    return np.array(tri, np.int64).reshape(-1, 3)


def _write_walls(path, side_name, count, name, triangles=0):
    """The walls file: a dim-2 pool's segments (polylines of 2 points), or
    with @triangles > 0 a dim-3 model's polygons as triangle fans."""
    if triangles:
        topology = ('<Topology TopologyType="Triangle" NumberOfElements="%d" NodesPerElement="3">'
                    '%s</Topology>' % (triangles, _hdf(side_name + ":/wall_triangles",
                                                       (triangles, 3), "Int")))
    else:
        topology = ('<Topology TopologyType="Polyline" NumberOfElements="%d" NodesPerElement="2"/>'
                    % (count // 2))
    out = ['<?xml version="1.0" ?>',
           '<Xdmf Version="3.0" xmlns:xi="http://www.w3.org/2001/XInclude">', "<Domain>",
           '<Grid Name=%s GridType="Uniform">' % quoteattr(name + " walls"), topology,
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
        if dim == 3:
            tris = fan_triangles(widx)
            g.create_dataset("wall_triangles", data=tris).attrs["units"] = \
                "1 (rows of /wall_points)"
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
        _write_walls(base + "-walls.xmf", side_name, len(wpts), name,
                     len(tris) if dim == 3 else 0)
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
