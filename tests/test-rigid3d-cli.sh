#!/bin/sh
# Rigid runs of spheres through the CLI (issue 24, item 3): `cradle run
# --rigid newton` on models/sphere-triple.yaml writes a dim-3 run whose final
# velocities are the symmetric closed form and which `cradle compare RUN.h5`
# reads back; `cradle compare --rigid newton`
# pairs the compliant and rigid impacts; `cradle compare --rigid-limit` on the
# frozen-normal triple extrapolates to that closed form; `--rigid energetic
# --alpha A,B` takes a pool's two weights; a rigid run a 3-D model cannot
# have (a stack of spheres, a fixed sphere, --rigid calibrated) is refused
# with one line, exit 3, no file.
set -u
CRADLE=$1
MODELS=$2
. "$(dirname "$0")/shell-lib.sh"
TRIPLE=$MODELS/sphere-triple.yaml

# The triple's closed form (equal spheres, striker at V = 1 m/s along x): each
# striker normal makes cos(theta) = sqrt(2/3) with the axis; Newton e = 1 gives
# the impulse P/m = 2 V cos(theta) / 3 on each striker contact (1/m + 3 cos^2/m
# = 3/m), none between the targets: the striker leaves at V - 3 cos(theta) P/m
# = -V/3, each target at P/m along its normal (4/9 along x, 2 sqrt(2)/9 out).
closed_form() { # FILE.h5, or the 12 numbers in one argument: worst |u - closed form|
    "$PY" - "$1" <<'EOF'
import sys, math
if not sys.argv[1].endswith('.h5'):
    u = [float(x) for x in sys.argv[1].split()]
    u = [u[3 * i:3 * i + 3] for i in range(4)]
else:
    import h5py
    u = h5py.File(sys.argv[1], 'r')['/final/velocity'][()].tolist()
c = math.sqrt(2.0 / 3.0); p = 2.0 * c / 3.0
worst = max(abs(u[0][0] + 1.0 / 3.0), abs(u[0][1]), abs(u[0][2]))
for k in (1, 2, 3):
    radial = math.hypot(u[k][1], u[k][2])
    worst = max(worst, abs(u[k][0] - p * c), abs(radial - p * math.sqrt(1.0 / 3.0)))
print('%.3e' % worst)
EOF
}

"$CRADLE" run -q "$TRIPLE" --rigid newton -o rigid.h5 2> err.txt; st=$?
shape=$(h5dump -H -d /final/velocity rigid.h5 2>/dev/null | sed -n 's/.*SIMPLE { ( \([0-9, ]*\) ).*/\1/p')
err=$(closed_form rigid.h5 2>&1)
[ $st -eq 0 ] && [ "$shape" = "4, 3" ] && [ "$(status_of rigid.h5)" = complete ] \
    && ok "run --rigid newton sphere-triple.yaml: exit 0, complete, /final/velocity 4 x 3" \
    || bad "run --rigid newton sphere-triple.yaml: status $st, shape '$shape', $(cat err.txt)"
"$PY" -c "import sys; sys.exit(0 if float('$err') <= 1e-14 else 1)" 2>/dev/null \
    && ok "run --rigid newton sphere-triple.yaml: u+ = the symmetric closed form ($err m/s)" ref \
    || bad "run --rigid newton sphere-triple.yaml: u+ off the closed form by $err m/s" ref

# the run file of a 3-D rigid run is read back by compare (the run-file reader
# takes dim 3): its one episode, Newton predictive (e = 1) ok
"$CRADLE" compare rigid.h5 --csv > file.csv 2> err.txt; st=$?
[ $st -eq 0 ] && grep -q '^0,newton,predictive,ok' file.csv \
    && ok "compare rigid.h5 (a 3-D rigid run file): newton predictive ok" \
    || bad "compare rigid.h5: status $st, $(head -c 300 file.csv) $(cat err.txt)"

# the energetic law with alpha 1 on the approaching contacts, 0 on the touching
# ones and kappa 1 gives the same impulses (the energy quadratic's larger root)
"$CRADLE" run -q "$TRIPLE" --rigid energetic --kappa 1 --alpha 1,0 -o energetic.h5 2> err.txt
st=$?
err=$(closed_form energetic.h5 2>&1)
[ $st -eq 0 ] && "$PY" -c "import sys; sys.exit(0 if float('$err') <= 1e-14 else 1)" 2>/dev/null \
    && ok "run --rigid energetic --kappa 1 --alpha 1,0 sphere-triple.yaml: u+ = the closed form ($err m/s)" ref \
    || bad "run --rigid energetic sphere-triple.yaml: status $st, off by $err, $(cat err.txt)" ref

"$CRADLE" compare "$TRIPLE" --rigid newton --csv > cmp.csv 2> err.txt; st=$?
rows=$(grep -c '^newton,' cmp.csv)
[ $st -eq 0 ] && [ "$rows" -eq 1 ] \
    && ok "compare --rigid newton sphere-triple.yaml: one paired impact" \
    || bad "compare --rigid newton sphere-triple.yaml: status $st, $rows rows, $(cat err.txt)"

"$CRADLE" compare "$TRIPLE" --rigid-limit --set integration.normals=frozen -q -o rl.h5 > rl.txt \
    2> err.txt; st=$?
limit=$(sed -n 's/.*u+ (K -> inf): \(.*\) m\/s.*/\1/p' rl.txt)
err=$(closed_form "$limit" 2>&1)
[ $st -eq 0 ] && [ -n "$limit" ] \
    && ok "compare --rigid-limit frozen sphere-triple.yaml: exit 0, u+ (K -> inf) printed" \
    || bad "compare --rigid-limit frozen sphere-triple.yaml: status $st, $(cat err.txt)"
"$PY" -c "import sys; sys.exit(0 if float('$err') <= 2e-9 else 1)" 2>/dev/null \
    && ok "compare --rigid-limit frozen sphere-triple.yaml: u+ (K -> inf) = the closed form ($err m/s, printed to 1e-10)" ref \
    || bad "compare --rigid-limit frozen sphere-triple.yaml: u+ off the closed form by $err m/s" ref

cat > stack.yaml <<'EOF'
name: stack
dim: 3
bodies:
  - {mass: 0.1, radius: 0.01, x: [0, 0, 0.01]}
  - {mass: 0.1, radius: 0.01, x: [0, 0, 0.03]}
walls:
  - {normal: [0, 0, 1], offset: 0.0}
contact: {K: 1.0e9}
fields:
  gravity: [0, 0, -9.81]
integration: {t_end: 1.0}
EOF
refuses_input "run --rigid newton on a stack of spheres" "spheres 0 and 1 rest on each other" \
    run stack.yaml --rigid newton --restitution 0.5 -o out.h5
cat > fixed.yaml <<'EOF'
name: fixed
dim: 3
bodies:
  - {mass: 0.1, radius: 0.01, x: [0, 0, 0], v: [1, 0, 0]}
  - {fixed: true, radius: 0.01, x: [0.05, 0, 0]}
contact: {K: 1.0e9}
EOF
refuses_input "run --rigid newton with a fixed sphere" "body 1 is fixed: rigid pools have half-space walls" \
    run fixed.yaml --rigid newton -o out.h5
refuses_input "run --rigid calibrated on dim 3" "pools have no fixed pairs" \
    run "$TRIPLE" --rigid calibrated -o out.h5
refuses_input "compare --rigid calibrated on dim 3" "pools have no fixed pairs" \
    compare "$TRIPLE" --rigid calibrated -o out.h5

finish test-rigid3d-cli
