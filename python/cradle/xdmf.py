"""XDMF sidecar of a run file, so ParaView (or VisIt) opens a chain or a pool as
particles moving in time, with velocities and forces:

    python3 -m cradle.xdmf FILE.h5 [--steps N]   (or: cradle-plot --xdmf FILE.h5)

writes FILE.xmf and FILE.xdmf.h5 beside FILE.h5. The XDMF file is a temporal
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

Mass and radius come straight from FILE.h5 (/model/mass, /model/radius).
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


def write(h5path, steps=DEFAULT_STEPS):
    """Writes FILE.xmf and FILE.xdmf.h5 beside @h5path; @return the .xmf path."""
    base = os.path.splitext(h5path)[0]
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
    with h5py.File(side, "w") as g:
        g.attrs["source"] = run_name
        g.attrs["force"] = how
        for key, val, units in (("position", pos, "m"), ("velocity", vel, "m/s"),
                                ("force", force, "N"), ("time", t[rows], "s"),
                                ("row", rows.astype(np.int64), "1 (row of /trajectory)")):
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
                       % (key, _hdf(run_name + ":/model/" + key, (n,))))
        out.append("</Grid>")
    out += ["</Grid>", "</Domain>", "</Xdmf>", ""]
    with open(xmf, "w", encoding="utf-8") as fx:
        fx.write("\n".join(out))
    return xmf


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m cradle.xdmf",
                                 description="XDMF sidecar of a cradle run file for ParaView")
    ap.add_argument("file", help="run file (HDF5) written by cradle")
    ap.add_argument("--steps", type=int, default=DEFAULT_STEPS,
                    help="time steps at most, evenly spread over the rows (0: all; default %d)"
                    % DEFAULT_STEPS)
    a = ap.parse_args(argv)
    try:
        path = write(a.file, a.steps)
    except (OSError, KeyError) as e:
        print("cradle.xdmf: %s: %s" % (a.file, e), file=sys.stderr)
        return 1
    print("wrote %s (open it in ParaView; data in %s)"
          % (path, os.path.splitext(path)[0] + ".xdmf.h5"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
