#!/bin/sh
# ParaView, really (issue 27 item 5): Debian's ParaView opens the XDMF files
# that `cradle-plot --xdmf` writes for a chain (the default 5-ball cradle) and
# a pool (models/pool-bernoulli.yaml), its own reader finds every body at every
# step with its radius, and a frame rendered offscreen (pvbatch under xvfb-run)
# shows the bodies: the picture with them and the same view without them
# differ, and the drawn bodies' bounding box has the aspect ratio of the
# positions and radii in the file (within 15 %: pixels and the sphere's
# facets); for spheres (dim 3) between half-space walls, the walls file's
# triangles are read and each wall is drawn. Skipped (exit 77) without pvbatch and xvfb-run (packages paraview,
# python3-paraview, xvfb; tools/install-deps.sh --tests installs them).
# Usage: check-paraview.sh CRADLE MODELS SOURCE
set -u
CRADLE=$1
MODELS=$2
SOURCE=$3
. "$(dirname "$0")/shell-lib.sh"

if ! command -v pvbatch > /dev/null 2>&1 || ! command -v xvfb-run > /dev/null 2>&1; then
    echo "paraview: pvbatch or xvfb-run not installed: skipped"
    exit 77
fi
for model in newton-cradle-5 pool-bernoulli; do
    "$CRADLE" run "$MODELS/$model.yaml" -q -o "$model.h5" || bad "$model: cradle run failed"
    "$PY" "$SOURCE/tools/cradle-plot" "$model.h5" --kind none --xdmf --steps 6 > /dev/null ||
        bad "$model: cradle-plot --xdmf failed"
    xvfb-run -a pvbatch "$SOURCE/tests/paraview-render.py" "$model.xmf" "$model-shown.png" \
        "$model-hidden.png" > "$model.pv" 2>&1
    # all of ParaView's own output when it failed (its cause comes before the stack)
    if grep -q "^points " "$model.pv"; then
        grep -v "Skipping unrecognized" "$model.pv" | tail -3
    else
        grep -v "Skipping unrecognized" "$model.pv" | head -40
    fi
    "$PY" - "$model" << 'PY'
import re, sys
import h5py
import numpy as np
from PIL import Image

model = sys.argv[1]
line = [l for l in open(model + ".pv") if l.startswith("points ")]
m = re.match(r"points (\d+) steps (\d+) radius (\S+)\.\.(\S+)", line[-1]) if line else None
with h5py.File(model + ".h5", "r") as f:
    radius = f["model/radius"][()]
with h5py.File(model + ".xdmf.h5", "r") as f:
    pos = f["position"][-1]
steps = len(h5py.File(model + ".xdmf.h5", "r")["time"])
ok_read = bool(m) and int(m.group(1)) == len(radius) and int(m.group(2)) == steps and \
    abs(float(m.group(3)) - radius.min()) <= 1e-12 and abs(float(m.group(4)) - radius.max()) <= 1e-12

def drawn(path):
    a = np.asarray(Image.open(path).convert("RGB")).astype(int)
    return np.abs(a - 255).sum(axis=2) > 60          # not the white background

shown, hidden = drawn(model + "-shown.png"), drawn(model + "-hidden.png")
ys, xs = np.nonzero(shown)
aspect = (xs.ptp() + 1) / (ys.ptp() + 1) if len(xs) else float("nan")
# the camera looks down -z with +y up: the bounding box of the spheres in x, y
want = (np.ptp(pos[:, 0] - 0) + 2 * radius.max()) / (np.ptp(pos[:, 1]) + 2 * radius.max())
ok_px = shown.mean() > 0.002 and hidden.mean() < 0.001 and abs(aspect / want - 1) <= 0.15
print("    %s: ParaView read %s; drawn %.1f %% of the frame (hidden: %.2f %%), aspect %.3f, "
      "file %.3f" % (model, line[-1].strip() if line else "nothing", 100 * shown.mean(),
                     100 * hidden.mean(), aspect, want))
sys.exit(0 if ok_read and ok_px else 1)
PY
    [ $? -eq 0 ] && ok "$model: ParaView reads every body, step and radius, and draws them where the file has them" \
        || bad "$model: ParaView's reading or picture of the XDMF file"
done

# Spheres (dim 3) between half-space walls (the model of
# tests/python/conftest.py): ParaView's XDMF Reader finds every point and
# triangle of the walls file, and draws each wall: alone (a Threshold on its
# "wall" index) it covers part of an oblique view that is white without it.
cat > spheres-walls.yaml << 'YAML'
name: spheres-walls
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
YAML
cat > walls-render.py << 'PV'
import sys
from paraview import simple as pv
xmf, count = sys.argv[1], int(sys.argv[2])
reader = pv.XDMFReader(FileNames=[xmf])
reader.UpdatePipeline()
info = reader.GetDataInformation()
print("walls points %d cells %d" % (info.GetNumberOfPoints(), info.GetNumberOfCells()))
(x0, x1, y0, y1, z0, z1) = info.GetBounds()
c = [(x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2]
view = pv.GetActiveViewOrCreate("RenderView")
view.OrientationAxesVisibility = 0
view.Background = [1.0, 1.0, 1.0]
try:
    view.UseColorPaletteForBackground = 0
except AttributeError:
    pass
for w in range(count):
    part = pv.Threshold(Input=reader, Scalars=["POINTS", "wall"])
    try:                       # 5.10+
        part.LowerThreshold, part.UpperThreshold = w - 0.5, w + 0.5
    except AttributeError:
        part.ThresholdRange = [w - 0.5, w + 0.5]
    shown = pv.Show(part, view)
    pv.ColorBy(shown, None)
    shown.DiffuseColor = shown.AmbientColor = [0.8, 0.2, 0.1]
    view.CameraFocalPoint = c
    view.CameraPosition = [c[0] - 1.2, c[1] - 1.6, c[2] + 1.0]   # no wall edge-on
    view.CameraViewUp = [0, 0, 1]
    pv.ResetCamera(view)
    pv.SaveScreenshot("wall-%d.png" % w, view, ImageResolution=[320, 240])
    pv.Hide(part, view)
pv.SaveScreenshot("wall-none.png", view, ImageResolution=[320, 240])
PV
model=spheres-walls
"$CRADLE" run $model.yaml -q -o $model.h5 || bad "$model: cradle run failed"
"$PY" "$SOURCE/tools/cradle-plot" $model.h5 --kind none --xdmf --steps 6 > /dev/null ||
    bad "$model: cradle-plot --xdmf failed"
walls=$("$PY" -c "import h5py; print(len(h5py.File('$model.h5', 'r')['model/wall_offset']))")
xvfb-run -a pvbatch walls-render.py $model-walls.xmf "$walls" > $model.pv 2>&1
if grep -q "^walls points " $model.pv; then
    grep -v "Skipping unrecognized" $model.pv | tail -2
else
    grep -v "Skipping unrecognized" $model.pv | head -40
fi
"$PY" - $model "$walls" << 'PY'
import re, sys
import h5py
import numpy as np
from PIL import Image

model, count = sys.argv[1], int(sys.argv[2])
line = [l for l in open(model + ".pv") if l.startswith("walls points ")]
m = re.match(r"walls points (\d+) cells (\d+)", line[-1]) if line else None
with h5py.File(model + ".xdmf.h5", "r") as g:
    npts, ntri = len(g["wall_points"]), len(g["wall_triangles"])
ok_read = bool(m) and int(m.group(1)) == npts and int(m.group(2)) == ntri

def drawn(path):
    a = np.asarray(Image.open(path).convert("RGB")).astype(int)
    return (np.abs(a - 255).sum(axis=2) > 60).mean()

cover = [drawn("wall-%d.png" % w) for w in range(count)]
empty = drawn("wall-none.png")
print("    %s: ParaView read %s (file: %d points, %d triangles); each wall alone covers %s "
      "of the view, none %.2f %%" % (model, line[-1].strip() if line else "nothing", npts, ntri,
                                     ", ".join("%.1f %%" % (100 * c) for c in cover), 100 * empty))
sys.exit(0 if ok_read and count == 3 and min(cover) > 0.01 and empty < 0.001 else 1)
PY
[ $? -eq 0 ] && ok "$model: ParaView reads every wall point and triangle of a dim-3 run and draws each wall" \
    || bad "$model: ParaView's reading or picture of the dim-3 walls file"
finish paraview
