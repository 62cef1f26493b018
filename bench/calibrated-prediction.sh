#!/bin/sh
# Job 1's prediction study (issue 21; docs/compare.md, "Predicting other runs"):
# a rigid model calibrated on the compliant run of one pendulum cradle (5 steel
# balls, one lifted 0.2 rad, e = 0.95) predicts four other runs of the same
# balls, beside every fixed law: one ball at 0.1 rad and at 0.3 rad, two balls
# lifted, another damping (e = 0.9). Prints each case's summary rows
# (collisions paired by time and bodies, mean |du+|/V, drift, energy decay).
# Usage: sh bench/calibrated-prediction.sh [CRADLE]   (about 10 s)
set -eu
CRADLE=${1:-build/tools/cradle}
M=models/pendulum-cradle-5.yaml
for s in chain.striker.angle=0.1 chain.striker.angle=0.3 chain.striker.count=2 \
    contact.restitution=0.9; do
    echo "== $M --set $s, calibrated on $M"
    "$CRADLE" compare "$M" --set "$s" --rigid calibrated --calibrate-on "$M" \
        --rigid newton --rigid sequential --rigid lzb --rigid mosterman | tail -6
done
