#!/bin/sh
# ParaView, really (issue 27 item 5): Debian's ParaView opens the XDMF files
# that `cradle-plot --xdmf` writes for a chain (the default 5-ball cradle) and
# a pool (models/pool-bernoulli.yaml), its own reader finds every body at every
# step with its radius, and a frame rendered offscreen (pvbatch under xvfb-run)
# shows the bodies: the picture with them and the same view without them
# differ, and the drawn bodies' bounding box has the aspect ratio of the
# positions and radii in the file (within 15 %: pixels and the sphere's
# facets). Skipped (exit 77) without pvbatch and xvfb-run (packages paraview,
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
finish paraview
