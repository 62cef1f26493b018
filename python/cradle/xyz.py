"""Extended XYZ export of a run file, for OVITO (which does not read XDMF), ASE
and VMD:

    python3 -m cradle.xyz FILE.h5 [--steps N]   (or: cradle-plot --xyz FILE.h5)

writes FILE.xyz beside FILE.h5 (or in --outdir DIR): one frame per stored row (at most N rows,
evenly spread as for the XDMF sidecar; default 1000, 0 for all). Each frame is

    N + 2W                                  (dim 3: N + the walls' vertices)
    Properties=species:S:1:pos:R:3:velo:R:3:radius:R:1:mass:R:1:fixed:I:1 Time=T Row=K Bodies=N Walls=W
    B x y z vx vy vz radius mass fixed        (one line per body)
    X x y 0 0 0 0 0 0 1                     (a pool's walls: two per wall)

with positions in m, velocities in m/s, the time in s and K the row of
/trajectory; chains lie on the x axis, pools in the z = 0 plane; species is
"B" (moving) or "W" (fixed), so OVITO can colour them. A fixed body's mass
(infinite in the file) is written as 0. A pool's half-plane wall W is the two
ends of its segment (the lines 2W and 2W + 1 after the bodies, species "X",
ASE's dummy atom; the segment as in the XDMF walls file, cradle.xdmf). For
spheres (dim 3) a half-space wall is the vertices of its plane's polygon in
the box of the paths (3 to 6, in order around it; as in the XDMF walls
file), one wall after another, and the header says which:

    ... Bodies=N Walls=W WallIndex=w0,w1,... WallVertices=k0,k1,...

(wall wj of the model has kj points; walls whose plane misses the box are
left out, in 2-D too). The run file is never modified.
"""
import argparse
import os
import sys

import h5py
import numpy as np

from .xdmf import DEFAULT_STEPS, require_whole, select_rows, wall_points

PROPERTIES = "species:S:1:pos:R:3:velo:R:3:radius:R:1:mass:R:1:fixed:I:1"


def frames(h5path, steps=DEFAULT_STEPS):
    """Yields (row, time, position (N, 3), velocity (N, 3)) of the selected rows."""
    with h5py.File(h5path, "r") as f:
        require_whole(f)
        n, dim = int(f["model"].attrs["body_count"]), int(f["model"].attrs["dim"])
        t = f["trajectory/time"][()]
        for k in select_rows(len(t), steps):
            pos = np.zeros((n, 3))
            vel = np.zeros((n, 3))
            pos[:, :dim] = f["trajectory/position"][k, :].reshape(n, dim)
            vel[:, :dim] = f["trajectory/velocity"][k, :].reshape(n, dim)
            yield int(k), float(t[k]), pos, vel


def bodies(h5path):
    """(mass with 0 for fixed bodies, radius, fixed flags) of the run file."""
    with h5py.File(h5path, "r") as f:
        mass = f["model/mass"][()]
        radius = f["model/radius"][()]
        fixed = f["model/fixed"][()] if "fixed" in f["model"] else ~np.isfinite(mass)
    fixed = np.asarray(fixed).astype(int)
    return np.where(np.isfinite(mass), mass, 0.0), radius, fixed


def walls(h5path):
    """The walls' points (P, 3) as cradle.xdmf.wall_points gives them: a
    pool's segment ends (P = 2W) or a dim-3 model's polygon vertices."""
    return wall_points_of(h5path)[0]


def wall_points_of(h5path):
    """(points (P, 3), wall of each point (P,), dim) of a run file."""
    with h5py.File(h5path, "r") as f:
        n, dim = int(f["model"].attrs["body_count"]), int(f["model"].attrs["dim"])
        t = f["trajectory/time"]
        pts, idx = wall_points(f, f["trajectory/position"][()].reshape(len(t), n, dim))
    return pts, idx, dim


def _wall_keys(idx, dim):
    """The frame header's wall keys: Walls=W, and for dim 3 WallIndex (the
    model's index of each drawn wall) and WallVertices (its vertex count)."""
    w, first = np.unique(idx, return_index=True)
    keys = " Walls=%d" % len(w)
    if dim == 3 and len(w):
        order = np.argsort(first)
        counts = [int(np.sum(idx == x)) for x in w[order]]
        keys += " WallIndex=%s WallVertices=%s" % (",".join(str(x) for x in w[order]),
                                                   ",".join(str(c) for c in counts))
    return keys


def write(h5path, steps=DEFAULT_STEPS, out=None, outdir=None):
    """Writes FILE.xyz (or @out; or FILE.xyz in @outdir) through a temporary
    file renamed into place; @return (path, frame count)."""
    out = out or os.path.join(outdir or os.path.dirname(os.path.abspath(h5path)),
                              os.path.splitext(os.path.basename(h5path))[0] + ".xyz")
    mass, radius, fixed = bodies(h5path)
    n = len(mass)
    wend, widx, dim = wall_points_of(h5path)
    ends = "".join("X %.17g %.17g %.17g 0 0 0 0 0 1\n" % tuple(p) for p in wend)
    wall_keys = _wall_keys(widx, dim)
    tmp = out + ".part-%d" % os.getpid()
    count = 0
    try:
        with open(tmp, "w", encoding="ascii") as fx:
            for row, t, pos, vel in frames(h5path, steps):
                fx.write("%d\nProperties=%s Time=%.17g Row=%d Bodies=%d%s\n"
                         % (n + len(wend), PROPERTIES, t, row, n, wall_keys))
                for i in range(n):
                    fx.write("%s %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %d\n"
                             % ("W" if fixed[i] else "B", *pos[i], *vel[i], radius[i], mass[i],
                                fixed[i]))
                fx.write(ends)
                count += 1
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return out, count


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m cradle.xyz",
                                 description="Extended XYZ of a cradle run file for OVITO")
    ap.add_argument("file", help="run file (HDF5) written by cradle")
    ap.add_argument("--steps", type=int, default=DEFAULT_STEPS,
                    help="frames at most, evenly spread over the rows (0: all; default %d)"
                    % DEFAULT_STEPS)
    ap.add_argument("--outdir", help="folder for FILE.xyz (default: beside FILE)")
    a = ap.parse_args(argv)
    try:
        path, count = write(a.file, a.steps, outdir=a.outdir)
    except (OSError, KeyError) as e:
        print("cradle.xyz: %s: %s" % (a.file, e), file=sys.stderr)
        return 1
    print("wrote %s (%d frames; open it in OVITO)" % (path, count))
    return 0


if __name__ == "__main__":
    sys.exit(main())
