#!/bin/sh
# `cradle run --rigid calibrated` and rigid.touching end to end (issue 21;
# docs/compare.md, "Rigid runs"): the gapped steel chain of the issue, whose
# compliant run is one impact of three balls, comes back from the calibrated
# rigid run to 1e-6 V (before, 2 um of gap made it two impacts and
# (0.080, 0.080, 0.840) m/s); the mismatches of the 7-ball pendulum cradle
# are listed in the summary, the JSON and /rigid_mismatches, and --strict
# writes the file with status mismatch and exits 6; refusals with their
# statuses.
# Usage: test-calibrated-cli.sh CRADLE MODELS
set -u
CRADLE=$1
MODELS=$2
. "$(dirname "$0")/shell-lib.sh"

cat > gap3.yaml << 'YAML'
name: gapped-three
balls:
  - {mass: 0.0329, radius: 0.01, x: 0.0, v: 1.0}
  - {mass: 0.0329, radius: 0.01, gap: 0.0}
  - {mass: 0.0329, radius: 0.01, gap: 2.0e-6}
contact:
  material: {E: 2.1e11, nu: 0.3}
  restitution: 0.9
  reference_speed: 1.0
  release: force
YAML
"$CRADLE" run gap3.yaml -q --json -o c.h5 > c.json
"$CRADLE" run gap3.yaml --rigid calibrated -q --json -o r.h5 > r.json
"$PY" -c '
import json, sys
c, r = json.load(open("c.json")), json.load(open("r.json"))
vc, vr = c["final_velocities"], r["final_velocities"]
d = max(abs(a - b) for a, b in zip(vc, vr)) / 1.0
ok = (len(c["episodes"]) == 1 and len(r["episodes"]) == 1 and d <= 1e-6
      and "1 gap within 1 delta* closed" in r["rigid_law"] and r["rigid_touching"] == 1
      and r["calibration"]["mismatches"] == [])
print("    compliant", vc, "rigid", vr, "difference %.3g V" % d)
sys.exit(not ok)' \
    && ok "2 um gap: one impact, the calibrated rigid run gives the compliant velocities (1e-6 V)" ref \
    || bad "gapped chain: $(head -c 400 r.json)"

"$CRADLE" run gap3.yaml --rigid newton -q --json -o n1.h5 > n1.json
"$CRADLE" run gap3.yaml --rigid newton --set rigid.touching=0 -q --json -o n0.h5 > n0.json
"$PY" -c '
import json, sys
a, b = json.load(open("n1.json")), json.load(open("n0.json"))
sys.exit(not (len(a["episodes"]) == 1 and len(a["episodes"][0]["bodies"]) == 3
              and len(b["episodes"]) >= 2 and b["rigid_touching"] == 0))' \
    && ok "newton: one impact of 3 balls at rigid.touching 1, two-ball impacts at 0 (--set)" \
    || bad "touching 1/0 under newton: $(head -c 300 n0.json)"
"$CRADLE" run gap3.yaml --rigid calibrated --set rigid.touching=0 -q --json -o r0.h5 > r0.json
"$PY" -c '
import json, sys
r = json.load(open("r0.json"))
sys.exit(not (len(r["episodes"]) == 1 and "closed by moving them" in r["rigid_law"]))' \
    && ok "calibrated at rigid.touching 0: the collision still takes its 3 balls (the 2 um gap closed by moving a ball)" \
    || bad "calibrated, touching 0: $(head -c 300 r0.json)"

"$CRADLE" run "$MODELS/pendulum-cradle-7.yaml" --rigid calibrated -o p7.h5 > p7.txt 2> p7.err
st=$?
[ $st -eq 0 ] && grep -q "compliant collisions; [1-9][0-9]* mismatch" p7.txt \
    && grep -q "missed: (collision" p7.txt && [ "$(status_of p7.h5)" = complete ] \
    && ok "7-ball cradle: mismatches listed in the summary, exit 0 without --strict" \
    || bad "7-ball cradle: status $st, $(grep -A3 calibrated: p7.txt | head -5)"
"$CRADLE" run "$MODELS/pendulum-cradle-7.yaml" --rigid calibrated --strict -q -o strict.h5 \
    2> strict.err
st=$?
n=$(h5dump -a /rigid_mismatches strict.h5 2>/dev/null | sed -n 's/.*(0): *\([0-9]*\).*/\1/p')
[ $st -eq 6 ] && [ "$(status_of strict.h5)" = mismatch ] && [ "${n:-0}" -gt 0 ] \
    && grep -q -- "--strict: $n mismatch" strict.err \
    && ok "--strict: exit 6, status mismatch, /rigid_mismatches holds the $n" \
    || bad "--strict: status $st, n = ${n:-?}, $(cat strict.err)"

# one collision after t = 0 (no free flight: the mapping window is any time)
"$CRADLE" run "$MODELS/hertz-pair.yaml" --rigid calibrated --strict -q -o hp.h5 2> hp.err
st=$?
[ $st -eq 0 ] && [ "$(status_of hp.h5)" = complete ] \
    && ok "--strict on a single collision after t = 0: mapped, exit 0" \
    || bad "hertz-pair --strict: $st $(cat hp.err)"
# bodies moved onto contact under a pendulum field keep T + U + dissipated
"$CRADLE" run "$MODELS/pendulum-cradle-3.yaml" --rigid calibrated -o p3.h5 > p3.txt
b=$(sed -n 's/.*balance \([0-9.e+-]*\) (relative).*/\1/p' p3.txt | head -1)
grep -q "closed by moving them" p3.txt && "$PY" -c "import sys; sys.exit(not float('$b') < 1e-6)" \
    && ok "bodies moved onto contact under pendulums: energy balance (< 1e-6)" inv \
    || bad "moved bodies' energy balance: ${b:-?}"
"$CRADLE" run gap3.yaml --strict -o x.h5 2> e1.txt
st=$?
[ $st -eq 2 ] && grep -q "strict" e1.txt && [ ! -e x.h5 ] \
    && ok "--strict without --rigid: exit 2, no file" || bad "--strict alone: $st $(cat e1.txt)"
"$CRADLE" run gap3.yaml --rigid newton --strict -o x.h5 2> e2.txt
st=$?
[ $st -eq 2 ] && [ ! -e x.h5 ] && ok "--strict with another law: exit 2, no file" \
    || bad "--strict newton: $st $(cat e2.txt)"
# --calibrate-on: the model itself lends what it lends without it; a chain of
# another size is refused (exit 3), another law takes no calibration (exit 2)
"$CRADLE" run gap3.yaml --rigid calibrated --calibrate-on gap3.yaml -q --json -o self.h5 > self.json
"$PY" -c '
import json, sys
a, b = json.load(open("r.json")), json.load(open("self.json"))
sys.exit(a["final_velocities"] != b["final_velocities"])' \
    && ok "--calibrate-on the model itself: the same run" || bad "--calibrate-on self differs"
"$CRADLE" run gap3.yaml --rigid calibrated --calibrate-on "$MODELS/pendulum-cradle-5.yaml" \
    -o x.h5 2> e4.txt
st=$?
[ $st -eq 3 ] && grep -q "calibrate-on.*pairs" e4.txt && [ ! -e x.h5 ] \
    && ok "--calibrate-on a chain of other pairs: exit 3, no file" || bad "calibrate-on size: $st $(cat e4.txt)"
"$CRADLE" run gap3.yaml --rigid newton --calibrate-on gap3.yaml -o x.h5 2> e5.txt
st=$?
[ $st -eq 2 ] && [ ! -e x.h5 ] && ok "--calibrate-on with another law: exit 2" \
    || bad "calibrate-on newton: $st $(cat e5.txt)"
# compare --rigid calibrated --calibrate-on: the variant borrows from the other
# model's compliant run, as `cradle run` does (it used to be ignored, so that
# compare calibrated each variant on its own run)
sed 's/restitution: 0.9/restitution: 0.5/' gap3.yaml > gap3-lossy.yaml
"$CRADLE" run gap3.yaml --rigid calibrated --calibrate-on gap3-lossy.yaml -q --json -o x.h5 > lossy.json
rm -f x.h5
"$CRADLE" compare gap3.yaml --rigid calibrated --calibrate-on gap3-lossy.yaml --json -q > cmp-lossy.json
"$CRADLE" compare gap3.yaml --rigid calibrated --json -q > cmp-own.json
"$PY" -c '
import json, sys
run = json.load(open("lossy.json"))
T = 0.5 * 0.0329 * sum(v * v for v in run["final_velocities"])
lossy = json.load(open("cmp-lossy.json"))["variants"][0]["rows"][0]["T_plus_rigid"]
own = json.load(open("cmp-own.json"))["variants"][0]["rows"][0]["T_plus_rigid"]
print("    T+: run %.12g, compare %.12g, compare calibrated on itself %.12g" % (T, lossy, own))
sys.exit(not (abs(lossy - T) <= 1e-12 * T and abs(own - T) > 0.05 * T))' \
    && ok "compare --calibrate-on: the variant T+ equals cradle run --calibrate-on's (1e-12), not its own run's" self \
    || bad "compare --calibrate-on is not the prediction cradle run makes"
"$CRADLE" compare gap3.yaml --rigid newton --calibrate-on gap3.yaml -q 2> e6.txt
st=$?
[ $st -eq 2 ] && grep -q "calibrate-on: no --rigid calibrated" e6.txt \
    && ok "compare --calibrate-on without a calibrated variant: exit 2" || bad "compare calibrate-on newton: $st $(cat e6.txt)"
"$CRADLE" compare "$MODELS/pendulum-cradle-7.yaml" --rigid calibrated --strict -q 2> e7.txt
st=$?
[ $st -eq 6 ] && grep -q -- "--strict: [0-9]* mismatch" e7.txt \
    && ok "compare --strict on the 7-ball cradle's mismatches: exit 6" || bad "compare --strict: $st $(cat e7.txt)"
printf 'rigid: {touching: -0.5}\n' >> gap3.yaml
"$CRADLE" run gap3.yaml --rigid newton -o x.h5 2> e3.txt
st=$?
[ $st -eq 3 ] && grep -q "^cradle: gap3.yaml:[0-9]*:.*rigid.touching" e3.txt && [ ! -e x.h5 ] \
    && ok "rigid.touching < 0: exit 3, file:line:field, no file" || bad "touching < 0: $st $(cat e3.txt)"
finish calibrated-cli
