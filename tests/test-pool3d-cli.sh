#!/bin/sh
# Spheres through the CLI (issue 24, item 3): `cradle run` of a 3-D model writes
# the layout of every model with dim = 3 (docs/hdf5-layout.md); `cradle compare`
# answers in both modes and its --rigid-limit extrapolates to the frozen-normal
# run; a fixed sphere stays at rest; bad 3-D model files (2-vectors,
# coincident spheres, a wall with a zero normal, a fixed sphere with a
# velocity) give one line naming file, line and field, exit 3, and no output
# file. --rigid on dim 3: tests/test-rigid3d-cli.sh.
set -u
CRADLE=$1
MODELS=$2
. "$(dirname "$0")/shell-lib.sh"
TRIPLE=$MODELS/sphere-triple.yaml

"$CRADLE" run -q -o triple.h5 "$TRIPLE" 2> err.txt; st=$?
dim=$(h5dump -a /model/dim triple.h5 2>/dev/null | sed -n 's/.*(0): \([0-9]*\).*/\1/p')
shape() { h5dump -H -d "$1" triple.h5 2>/dev/null | sed -n 's/.*SIMPLE { ( \([0-9, ]*\) ).*/\1/p'; }
[ $st -eq 0 ] && [ "$dim" = 3 ] && [ "$(shape /final/velocity)" = "4, 3" ] \
    && [ "$(shape /model/position0)" = "4, 3" ] && [ "$(shape /episode/0000/normal)" = "6, 3" ] \
    && ok "run sphere-triple.yaml: dim 3, /final/velocity 4 x 3, /episode/0000/normal 6 x 3" \
    || bad "run sphere-triple.yaml: status $st, dim '$dim', $(shape /final/velocity), $(cat err.txt)"

# the run file read back: compare RUN.h5, and a run continued from it
"$CRADLE" compare triple.h5 --csv > cmpf.csv 2> err.txt; st=$?
[ $st -eq 0 ] && grep -q ",calibrated," cmpf.csv && ok "compare RUN.h5 of a 3-D run" \
    || bad "compare triple.h5: status $st, $(cat err.txt)"
"$CRADLE" run -q "$TRIPLE" --set integration.t_end=3e-5 -o half.h5 \
    && "$CRADLE" run -q --continue half.h5 --set integration.t_end=1e-4 -o rest.h5 2> err.txt \
    && "$PY" -c '
import h5py, numpy as np, sys
a = h5py.File("triple.h5")["final/velocity"][()]
b = h5py.File("rest.h5")["final/velocity"][()]
print("     continued run: final velocities within %.1e m/s of the whole run" % abs(a - b).max())
sys.exit(not (b.shape == (4, 3) and abs(a - b).max() <= 1e-8))' \
    && ok "run --continue from a 3-D run file: the whole run's final velocities to 1e-8 m/s" self \
    || bad "run --continue: $(cat err.txt)"
"$CRADLE" compare "$TRIPLE" --csv > cmp.csv 2> err.txt; st=$?
[ $st -eq 0 ] && grep -q ",calibrated," cmp.csv && grep -q ",predictive," cmp.csv \
    && ok "compare sphere-triple.yaml: calibrated and predictive rows" \
    || bad "compare sphere-triple.yaml: status $st, $(cat err.txt)"

# a sweep over the triple: 3 velocity columns a sphere, and the free group
# keeps its momentum (e_cm = -1)
cat > sw3.yaml <<EOS
name: sw3
model: $TRIPLE
axes:
  - field: contact.restitution
    values: [0.8, 0.9]
EOS
"$CRADLE" sweep sw3.yaml -q -o sw3.h5 --csv sw3.csv 2> err.txt; st=$?
"$PY" -c '
import csv, sys
rows = list(csv.DictReader(open("sw3.csv")))
assert len(rows) == 2 and "v_final[3].z" in rows[0], "columns"
worst = max(abs(float(r["e_cm"]) + 1.0) for r in rows)
print("     sweep: |e_cm + 1| <= %.1e" % worst)
sys.exit(not worst <= 1e-12)' && [ $st -eq 0 ] \
    && ok "sweep over the triple: v_final[3].z, e_cm = -1 to 1e-12 (momentum)" inv \
    || bad "sweep over the triple: status $st, $(cat err.txt)"

# the rigid limit of an oblique strike on the touching triple: the extrapolated
# alpha of contacts 0-1 and 0-2 against the frozen-normal run (the rigid
# laws' geometry; docs/compare.md "The rigid limit")
OBL="--set bodies[0].x=[0.0,0.0,0.0] --set bodies[0].v=[1.0,0.12,0.05]"
# shellcheck disable=SC2086
"$CRADLE" compare "$TRIPLE" -q --rigid-limit $OBL > rl.txt 2> err.txt; st=$?
# shellcheck disable=SC2086
"$CRADLE" run -q --json --set integration.normals=frozen $OBL -o frozen.h5 "$TRIPLE" > frozen.json
"$PY" -c '
import json, sys
lines = open("rl.txt").read().splitlines()
head = [l.split() for l in lines if "a(0-1)" in l][0]
lim = [l.split() for l in lines if l.strip().startswith("K -> inf")][0]
d = json.load(open("frozen.json"))
a = {(c["body_a"], c["body_b"]): c["alpha"] for c in d["episodes"][0]["contacts"]}
worst = 0.0
for (i, j) in ((0, 1), (0, 2)):
    # the alpha columns end both lines: count them from the right
    x = float(lim[head.index("a(%d-%d)" % (i, j)) - len(head)])
    print("     alpha(%d-%d): extrapolated %.10f, frozen run %.10f" % (i, j, x, a[(i, j)]))
    worst = max(worst, abs(x - a[(i, j)]))
sys.exit(not worst <= 1e-8)' && [ $st -eq 0 ] \
    && ok "compare --rigid-limit on an oblique triple: alpha = the frozen-normal run to 1e-8" self \
    || bad "compare --rigid-limit on the triple: status $st, $(cat err.txt)"

# bad model files: the line and field of the fault
cat > head.yaml <<'EOF'
name: bad3
dim: 3
EOF
bad_model() { # label file pattern
    "$CRADLE" run "$2" -o out.h5 > out.txt 2> err.txt
    st=$?
    [ $st -eq 3 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q -- "$3" err.txt && [ ! -e out.h5 ] \
        && ok "$1: exit 3, $(cat err.txt)" || bad "$1: status $st, $(cat err.txt)"
}
{ cat head.yaml; cat <<'EOF'
bodies:
  - {mass: 0.03, radius: 0.01, x: [0.0, 0.0, 0.0], v: [1.0, 0.0, 0.0]}
  - {mass: 0.03, radius: 0.01, x: [0.05, 0.0]}
EOF
} > two-vector.yaml
bad_model "dim 3 with a 2-vector position" two-vector.yaml \
    "two-vector.yaml:5: bodies\[1\].x: needs three numbers \[x, y, z\] (dim 3)"
{ cat head.yaml; cat <<'EOF'
bodies:
  - {mass: 0.03, radius: 0.01, x: [0.0, 0.0, 0.0], v: [1.0, 0.0]}
EOF
} > two-velocity.yaml
bad_model "dim 3 with a 2-vector velocity" two-velocity.yaml "two-velocity.yaml:4: bodies\[0\].v: needs three"
{ cat head.yaml; cat <<'EOF'
bodies:
  - {mass: 0.03, radius: 0.01, x: [0.0, 0.0, 0.0]}
fields:
  gravity: [0, -9.81]
integration:
  t_end: 0.1
EOF
} > two-gravity.yaml
bad_model "dim 3 with a 2-vector gravity" two-gravity.yaml "two-gravity.yaml:6: fields.gravity: needs three"
{ cat head.yaml; cat <<'EOF'
bodies:
  - {mass: 0.03, radius: 0.01, x: [0.0, 0.1, 0.2], v: [1.0, 0.0, 0.0]}
  - {mass: 0.03, radius: 0.01, x: [0.05, 0.0, 0.0]}
  - {mass: 0.03, radius: 0.01, x: [0.0, 0.1, 0.2]}
EOF
} > coincident.yaml
bad_model "coincident spheres" coincident.yaml \
    "coincident.yaml:6: bodies\[2\].x: has the same centre as sphere 0"
{ cat head.yaml; cat <<'EOF'
bodies:
  - {mass: 0.03, radius: 0.01, x: [0.0, 0.0, 0.0], v: [1.0, 0.0, 0.0]}
  - {mass: 0.03, radius: 0.01, x: [0.015, 0.0, 0.0]}
EOF
} > overlap.yaml
bad_model "interpenetrating spheres" overlap.yaml "overlap.yaml:5: bodies\[1\].x: interpenetrates sphere 0"
{ cat head.yaml; cat <<'EOF'
bodies:
  - {mass: 0.03, radius: 0.01, x: [0.0, 0.0, 0.0], v: [1.0, 0.0, 0.0]}
walls:
  - {normal: [0, 0, 0], offset: -1}
EOF
} > zero-normal.yaml
bad_model "a wall with a zero normal" zero-normal.yaml \
    "zero-normal.yaml:6: walls\[0\].normal: must be a non-zero vector \[nx, ny, nz\]"
{ cat head.yaml; cat <<'EOF'
bodies:
  - {mass: 0.03, radius: 0.01, x: [0.0, 0.0, 0.0], v: [1.0, 0.0, 0.0]}
walls:
  - {normal: [0, 0], offset: -1}
EOF
} > wall-two.yaml
bad_model "a wall with a 2-vector normal" wall-two.yaml "wall-two.yaml:6: walls\[0\].normal: needs three"
{ cat head.yaml; cat <<'EOF'
bodies:
  - {mass: 0.03, radius: 0.01, x: [0.0, 0.0, 0.0], v: [1.0, 0.0, 0.0]}
walls:
  - {normal: [0, 0, 1], offset: 0.0}
EOF
} > outside.yaml
bad_model "a sphere outside a half-space wall" outside.yaml "outside.yaml:6: walls\[0\]: sphere 0 lies outside"
{ cat head.yaml; cat <<'EOS'
bodies:
  - {mass: 0.03, radius: 0.01, x: [0.0, 0.0, 0.0], v: [1.0, 0.0, 0.0]}
  - {fixed: true, radius: 0.02, x: [0.05, 0.0, 0.0], v: [1.0, 0.0, 0.0]}
EOS
} > fixed-v.yaml
bad_model "a fixed sphere with a velocity" fixed-v.yaml "fixed-v.yaml:5: bodies\[1\].fixed: a fixed body has a radius"
{ cat head.yaml; cat <<'EOS'
bodies:
  - {mass: 0.03, radius: 0.01, x: [0.0, 0.0, 0.0], v: [1.0, 0.0, 0.0]}
  - {fixed: yes, radius: 0.02, x: [0.05, 0.0, 0.0]}
EOS
} > fixed-yes.yaml
bad_model "fixed: yes" fixed-yes.yaml "fixed-yes.yaml:5: bodies\[1\].fixed: must be true or false"
# a fixed sphere: /model/fixed marks it, it stays at rest, --rigid is refused
{ cat head.yaml; cat <<'EOS'
bodies:
  - {mass: 0.03, radius: 0.01, x: [0.0, 0.0, 0.0], v: [1.0, 0.0, 0.0]}
  - {fixed: true, radius: 0.02, x: [0.05, 0.0, 0.0]}
EOS
} > fixed.yaml
"$CRADLE" run -q -o fixed.h5 fixed.yaml 2> err.txt; st=$?
fx=$(h5dump -d /model/fixed fixed.h5 2>/dev/null | sed -n 's/.*(0): \(.*\)/\1/p' | head -1)
v1=$(h5dump -d /final/velocity -m %g fixed.h5 2>/dev/null | sed -n 's/.*(1,0): \(.*\)/\1/p' | tr -d ' ,')
[ $st -eq 0 ] && [ "$fx" = "0, 1" ] && [ "$v1" = "0" ] \
    && ok "run with a fixed sphere: /model/fixed 0, 1; it stays at rest" \
    || bad "run with a fixed sphere: status $st, fixed '$fx', v '$v1', $(cat err.txt)"
printf 'dim: 4\nbodies:\n  - {mass: 1, radius: 1, x: [0, 0, 0, 0]}\n' > dim4.yaml
bad_model "dim 4" dim4.yaml "dim4.yaml:1: dim: must be 1 (a chain), 2 (a planar pool) or 3 (spheres)"
finish pool3d-cli
