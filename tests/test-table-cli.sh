#!/bin/sh
# `cradle table` and `cradle compare --table` end to end on the committed
# tables of data/: lookups at a grid point give the CSV twin's value, the
# documented exit statuses and one-line errors (docs/errors.md), and the
# comparator's predictive mode gives the energetic law a prediction from
# data/chain3-hertz.h5 where it had none.
set -u
CRADLE=$1
ROOT=$2
DATA=$ROOT/data
. "$(dirname "$0")/shell-lib.sh"

# help and usage
"$CRADLE" help table | grep -q "cradle table lookup TABLE" && ok "help table" || bad "help table"
"$CRADLE" table 2>/dev/null; [ $? -eq 2 ] && ok "table without a subcommand: exit 2" || bad "table: exit"
"$CRADLE" table frob x 2>/dev/null; [ $? -eq 2 ] && ok "unknown subcommand: exit 2" || bad "unknown subcommand"

# info: axes, bounds, provenance
"$CRADLE" table info "$DATA/chain3-hertz.h5" > info.txt 2>&1
grep -q "m2/m1 .*7 values in \[0.5, 2\] (log)" info.txt && grep -q "git_revision: " info.txt \
    && grep -q "tolerances: rtol" info.txt && ok "table info: axes and provenance" \
    || bad "table info: $(cat info.txt)"

# lookup at a grid point: the CSV twin's value, bound 0 (the 2 × 2 point, K ratio 1, e = 0.9)
"$CRADLE" table lookup "$DATA/chain3-hertz.h5" m2/m1=1 m3/m1=1 K23/K12=1 e=0.9 --json > grid.json
"$PY" - "$DATA/chain3-hertz.csv" <<'EOF' && ok "grid point: the CSV twin's alpha[1] and kappa, bound 0" self || bad "grid point lookup: $(cat grid.json)"
import csv, json, sys
d = json.load(open("grid.json"))["values"]
row = [r for r in csv.DictReader(open(sys.argv[1]))
       if float(r["m2/m1"]) == 1 and float(r["m3/m1"]) == 1 and float(r["K23/K12"]) == 1 and float(r["e"]) == 0.9][0]
sys.exit(not (d["alpha[1]"]["value"] == float(row["alpha[1]"]) and d["kappa"]["value"] == float(row["kappa"])
              and d["alpha[1]"]["bound"] == 0))
EOF

# off the grid: the stored bound is reported
"$CRADLE" table lookup "$DATA/chain3-hertz.h5" m2/m1=1.1 m3/m1=0.9 K23/K12=1.3 e=0.95 \
    --column alpha[1] > off.txt 2>&1
grep -q "alpha\[1\] .*+- 0\.0[0-9]" off.txt && ok "off-grid lookup reports the stored bound" \
    || bad "off-grid lookup: $(cat off.txt)"

# --laws: every law's error, smallest first; the energetic law calibrated on
# the run itself reproduces it (Acary & Taha 2005: error at the runs' tolerance)
"$CRADLE" table lookup "$DATA/chain3-hertz.h5" m2/m1=1.2 m3/m1=0.7 K23/K12=1 e=0.9 --laws --json > laws.json
"$PY" - <<'EOF' && ok "--laws: the law map at a point, smallest error first" || bad "--laws: $(head -c 400 laws.json)"
import json, math, sys
v = json.load(open("laws.json"))["values"]
names = list(v)
errs = [v[n]["value"] for n in names if v[n]["value"] is not None]
sys.exit(not (len(names) >= 16 and all(n.startswith("error.") for n in names)
              and names[0] == "error.energetic.calibrated" and errs[0] < 1e-8
              and errs == sorted(errs)
              and all(v[n]["value"] is None for n in names[len(errs):])))
EOF

# errors: one line, documented status
"$CRADLE" table lookup "$DATA/chain3-hertz.h5" m2/m1=3 m3/m1=1 K23/K12=1 e=1 > out.txt 2> err.txt; st=$?
[ $st -eq 5 ] && [ "$(wc -l < err.txt)" -eq 1 ] \
    && grep -q "m2/m1 = 3 is outside the table's domain \[0.5, 2\]" err.txt \
    && ok "outside the domain: one line, exit 5" || bad "outside the domain: status $st, $(cat err.txt)"
"$CRADLE" table lookup "$DATA/chain3-hertz.h5" m2/m1=1 m3/m1=1 K23/K12=1 > out.txt 2> err.txt; st=$?
[ $st -eq 3 ] && grep -q "give e=VALUE (in \[0.8, 1\])" err.txt \
    && ok "a missing key: exit 3, names it" || bad "missing key: status $st, $(cat err.txt)"
"$CRADLE" table lookup "$DATA/chain3-hertz.h5" mass=1 2> err.txt; st=$?
[ $st -eq 3 ] && grep -q "no axis 'mass'" err.txt && ok "an unknown key: exit 3" \
    || bad "unknown key: status $st, $(cat err.txt)"
"$CRADLE" table lookup "$DATA/chain3-hertz.h5" m2/m1=abc 2> err.txt; st=$?
[ $st -eq 3 ] && grep -q "m2/m1=abc: not a number" err.txt && ok "a value that is not a number: exit 3" \
    || bad "not a number: status $st, $(cat err.txt)"
"$CRADLE" table lookup nonesuch.h5 a=1 2> err.txt; st=$?
[ $st -eq 3 ] && [ "$(wc -l < err.txt)" -eq 1 ] && ok "a missing table: one line, exit 3" \
    || bad "missing table: status $st, $(cat err.txt)"

# make: refuses to overwrite its input, writes nothing on a bad check file
cp "$DATA/restitution-gap.h5" grid.h5
"$CRADLE" table make grid.h5 -o grid.h5 2> err.txt; st=$?
[ $st -eq 3 ] && cmp -s grid.h5 "$DATA/restitution-gap.h5" && ok "make -o INPUT: refused, exit 3" \
    || bad "make onto its input: status $st, $(cat err.txt)"
"$CRADLE" table make grid.h5 --check nonesuch.h5 -o t.h5 2> err.txt; st=$?
[ $st -eq 3 ] && [ ! -e t.h5 ] && ! ls ./*.tmp* >/dev/null 2>&1 \
    && ok "make with a missing check file: exit 3, no file" || bad "make bad check: status $st"

# --csv never replaces a file of the command: the grid, the table, an HDF5 file
for target in grid.h5 t2.h5; do
    "$CRADLE" table make grid.h5 -o t2.h5 --csv "$target" 2> err.txt; st=$?
    [ $st -eq 3 ] && [ "$(wc -l < err.txt)" -eq 1 ] && cmp -s grid.h5 "$DATA/restitution-gap.h5" \
        && [ ! -e t2.h5 ] && ok "make --csv $target: refused, exit 3, nothing written" \
        || bad "make --csv $target: status $st, $(cat err.txt)"
done

# compare --table: a 3-ball chain inside the table's domain, at a grid point
# (m2/m1 = 1, m3/m1 = 2^(1/3), K23/K12 = 1, undamped): the energetic law's
# predictive alpha and kappa are the table's, so its error is the calibrated
# one (both are the compliant run's own alpha, kappa).
cat > chain.yaml <<'EOF'
name: chain3-grid-point
balls:
  - {mass: 1.0, radius: 0.5, x: 0.0, v: 1.0}
  - {mass: 1.0, radius: 0.5, x: 1.0}
  - {mass: 1.2599210498948732, radius: 0.5, x: 2.0}
contact:
  K: 1.0
  n: 1.5
  release: force
  restitution: 1.0
  reference_speed: 1.0
  pairs:
    - {between: [1, 2], K: 1.0}
integration: {rtol: 1.0e-10, atol: 1.0e-12}
EOF
"$CRADLE" compare chain.yaml --json > before.json 2>&1
"$CRADLE" compare chain.yaml --table "$DATA/chain3-hertz.h5" --json > after.json 2>&1
"$PY" - <<'EOF' && ok "compare --table: the energetic law gets a prediction equal to its calibration" self || bad "compare --table: $(head -c 600 after.json)"
import json, sys
def rows(f):
    d = json.load(open(f))
    return {(r["law"], r["mode"]): r for r in d["episodes"][0]["rows"]}
b, a = rows("before.json"), rows("after.json")
nb, pa, ca = b[("energetic", "predictive")], a[("energetic", "predictive")], a[("energetic", "calibrated")]
print(nb["status"], pa["status"], pa["error"], ca["error"], pa["message"])
sys.exit(not (nb["status"] == "no-prediction" and pa["status"] != "no-prediction"
              and abs(pa["error"] - ca["error"]) < 1e-6 and "from table" in pa["message"]))
EOF
# invariance (001 sect. 3.4): the same ratios with masses x2, K x1000, a striker
# at 0.5 m/s and damping solved for e = 0.9 at that speed: the compliant run's
# own alpha and kappa (calibrated) equal the table's (units m1 = 1, K12 = 1,
# v = 1) to 1e-8
cat > scaled.yaml <<'EOF2'
name: chain3-scaled
balls:
  - {mass: 2.0, radius: 0.5, x: 0.0, v: 0.5}
  - {mass: 2.0, radius: 0.5, x: 1.0}
  - {mass: 2.5198420997897464, radius: 0.5, x: 2.0}
contact:
  K: 1000.0
  n: 1.5
  release: force
  restitution: 0.9
  reference_speed: 0.5
  pairs:
    - {between: [1, 2], K: 1000.0}
integration: {rtol: 1.0e-10, atol: 1.0e-12}
EOF2
"$CRADLE" compare scaled.yaml --table "$DATA/chain3-hertz.h5" --json > scaled.json 2>&1
"$PY" - <<'EOF2' && ok "scaled damped chain: the table's alpha, kappa are the run's own to 1e-8 (invariance)" self || bad "scaled: $(head -c 600 scaled.json)"
import json, sys
d = json.load(open("scaled.json"))
rows = {(r["law"], r["mode"]): r for r in d["episodes"][0]["rows"]}
c, p = rows[("energetic", "calibrated")], rows[("energetic", "predictive")]
print("kappa", c["parameter"], p["parameter"], "alpha", c["parameters"][1], p["parameters"][1])
sys.exit(not (p["status"] == "ok" and abs(c["parameter"] - p["parameter"]) < 1e-8
              and abs(c["parameters"][1] - p["parameters"][1]) < 1e-8))
EOF2
# `cradle run --rigid energetic --table`: the rigid run looks up alpha and kappa
# at its impact (Acary & Taha 2005 eqs. 17-18) and ends with the compliant
# run's final velocities: the 3-ball chain is a grid point (ratios 1, e = 1;
# stored values exact), the table's runs were at rtol 1e-10, so 1e-8 of the
# striker speed (measured 1.4e-9)
"$CRADLE" run "$ROOT/models/three-ball-chain.yaml" --rigid energetic --table "$DATA/chain3-hertz.h5" \
    -o rigid.h5 --json > rigid.json 2> rigid.err
"$CRADLE" run "$ROOT/models/three-ball-chain.yaml" -o compliant.h5 --json > compliant.json
"$PY" - <<'EOF' && ok "rigid energetic run with --table: the compliant final velocities to 1e-8" self || bad "rigid --table: $(cat rigid.err) $(head -c 300 rigid.json)"
import json, sys
r, c = json.load(open("rigid.json")), json.load(open("compliant.json"))
d = max(abs(a - b) for a, b in zip(r["final_velocities"], c["final_velocities"]))
print("rigid --table vs compliant:", d)
sys.exit(not (d < 1e-8 and "table" in r["rigid_law"]))
EOF
# a model the table does not hold (5 balls), --table with --alpha: one line,
# the documented status, no file
"$CRADLE" run "$ROOT/models/newton-cradle-5.yaml" --rigid energetic --table "$DATA/chain3-hertz.h5" \
    -o five.h5 2> five.err; st=$?
[ $st -eq 3 ] && [ "$(wc -l < five.err)" -eq 1 ] && [ ! -e five.h5 ] && grep -q chain3 five.err \
    && ok "rigid --table on a 5-ball chain: exit 3, one line, no file" || bad "five: $st $(cat five.err)"
"$CRADLE" run "$ROOT/models/three-ball-chain.yaml" --rigid energetic --table "$DATA/chain3-hertz.h5" \
    --alpha 1,1 -o both.h5 2> both.err; st=$?
[ $st -eq 2 ] && [ "$(wc -l < both.err)" -eq 1 ] && [ ! -e both.h5 ] \
    && ok "--table with --alpha: exit 2" || bad "both: $st $(cat both.err)"

# outside the domain (m2/m1 = 3): refused, one line naming the axis and the
# value, exit 5, no file (docs/tables.md)
sed 's/mass: 1.0, radius: 0.5, x: 1.0/mass: 3.0, radius: 0.5, x: 1.0/' chain.yaml > far.yaml
"$CRADLE" compare far.yaml --table "$DATA/chain3-hertz.h5" -o far.h5 > far.out 2> far.err; st=$?
[ $st -eq 5 ] && [ "$(wc -l < far.err)" -eq 1 ] && [ ! -e far.h5 ] \
    && grep -q 'm2/m1 = 3 is outside the table' far.err \
    && ok "compare --table outside the domain: exit 5, one line naming m2/m1 = 3, no file" \
    || bad "compare far: $st $(cat far.err)"
"$CRADLE" compare chain.yaml --table nonesuch.h5 2> err.txt; st=$?
[ $st -eq 3 ] && [ "$(wc -l < err.txt)" -eq 1 ] && ok "compare --table with a missing table: exit 3" \
    || bad "compare --table missing: status $st, $(cat err.txt)"

finish test-table-cli
