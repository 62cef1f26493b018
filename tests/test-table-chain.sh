#!/bin/sh
# A user-made table of any chain configuration (docs/tables.md, "Impact
# configurations"; issue 21 item 4): a 4-ball chain swept over two mass ratios
# and the pairs' restitution, `cradle table make --configuration chain --check
# auto`, then `cradle run --rigid energetic --table` and `cradle compare
# --table` on a model in other units at an off-grid point, against a fresh
# compliant run of that model; outside the axes exit 5, a table that does not
# describe the model's impacts exit 3, one line, no file.
set -u
CRADLE=$1
. "$(dirname "$0")/shell-lib.sh"

# the base model in units m1 = 1, K = 1, striker speed 1 (ratios and the
# restitutions at the striker's speed are all alpha, kappa depend on: 001
# sect. 3.4)
cat > chain4.yaml <<'YAML'
name: chain4
balls:
  - {mass: 1.0, radius: 0.5, x: 0.0, v: 1.0}
  - {mass: 1.0, radius: 0.5, x: 1.0}
  - {mass: 1.0, radius: 0.5, x: 2.0}
  - {mass: 1.0, radius: 0.5, x: 3.0}
contact: {K: 1.0, n: 1.5, release: force, restitution: 0.9, reference_speed: 1.0}
integration: {rtol: 1.0e-10, atol: 1.0e-12}
YAML
cat > grid.yaml <<'YAML'
name: chain4-grid
model: chain4.yaml
axes:
  - field: balls[1].mass
    key: m2/m1
    range: {from: 0.7, to: 1.4, count: 3, scale: log}
  - field: balls[2].mass
    key: m3/m1
    range: {from: 0.7, to: 1.4, count: 3, scale: log}
  - field: contact.restitution
    key: e
    values: [0.85, 0.95]
YAML
"$CRADLE" sweep grid.yaml -o grid.h5 -q -j 2 || bad "sweep of the grid"
"$CRADLE" table make grid.h5 --check auto -j 2 -q --configuration chain -o t.h5 > make.out 2> make.err; st=$?
"$CRADLE" table info t.h5 > info.txt 2>&1
[ $st -eq 0 ] && grep -q "configuration: chain4" info.txt \
    && grep -q "m2/m1 .*quantity m2/m1" info.txt && grep -q ", quantity e$" info.txt \
    && grep -q "held fixed: m4/m1 = 1, K23/K12 = 1, K34/K12 = 1, g12/d\* = 0" info.txt \
    && grep -q "kappa .*(4)" info.txt \
    && ok "table make --configuration chain --check auto: chain4, axes declared, the rest held fixed, bounds from 4 check points" \
    || bad "make: $st $(cat make.err) $(cat info.txt)"
# the check sweep: the centre of every cell, geometric on the log axes (the
# grid 0.7, 0.7 sqrt 2, 1.4), arithmetic on e
"$PY" - <<'PY' && ok "--check auto: t.check.yaml holds the cell centres (0.7 2^(1/4), 0.7 2^(3/4); e 0.9) to 1e-15" ref || bad "check sweep: $(cat t.check.yaml)"
import re, sys, math
text = open("t.check.yaml").read()
vals = [list(map(float, v.split(","))) for v in re.findall(r"values: \[([^\]]*)\]", text)]
want = [[0.7 * 2 ** 0.25, 0.7 * 2 ** 0.75]] * 2 + [[0.9]]
print(vals)
sys.exit(not (len(vals) == 3 and all(len(a) == len(b) and all(abs(x - y) <= 1e-15 for x, y in zip(a, b))
                                     for a, b in zip(vals, want))))
PY
# a second make resumes the finished check sweep: nothing computed again
"$CRADLE" table make grid.h5 --check auto --configuration chain -o t.h5 > again.out 2>&1; st=$?
[ $st -eq 0 ] && grep -q "4 points, 0 computed" again.out \
    && ok "--check auto again: the check sweep resumed, 0 points computed" || bad "resume: $st $(cat again.out)"

# the user's model: other units (masses x2, K x1000, 1 cm balls, striker at
# 0.5 m/s, damping solved for e = 0.92 at that speed), off the grid
# (m2/m1 = 0.9, m3/m1 = 1.1, e = 0.92)
cat > user.yaml <<'YAML'
name: user-chain4
balls:
  - {mass: 2.0, radius: 0.01, x: 0.0, v: 0.5}
  - {mass: 1.8, radius: 0.01, x: 0.02}
  - {mass: 2.2, radius: 0.01, x: 0.04}
  - {mass: 2.0, radius: 0.01, x: 0.06}
contact: {K: 1000.0, n: 1.5, release: force, restitution: 0.92, reference_speed: 0.5}
integration: {rtol: 1.0e-10, atol: 1.0e-12}
YAML
"$CRADLE" table lookup t.h5 m2/m1=0.9 m3/m1=1.1 e=0.92 --json > lookup.json
"$CRADLE" run user.yaml -o compliant.h5 --json > compliant.json || bad "compliant run"
"$CRADLE" run user.yaml --rigid energetic --table t.h5 -o rigid.h5 --json > rigid.json 2> rigid.err; st=$?
# reference: the fresh compliant run; the table's stored bounds of v_final[i]
# are in its units (striker speed 1): x 0.5 here
"$PY" - <<'PY' && ok "rigid --table at an off-grid point: every final velocity within the table's bound of a fresh compliant run" ref || bad "rigid --table: $st $(cat rigid.err)"
import json, sys
L = json.load(open("lookup.json"))["values"]
r, c = json.load(open("rigid.json")), json.load(open("compliant.json"))
okay = "table t.h5" in r["rigid_law"]
for i, (a, b) in enumerate(zip(r["final_velocities"], c["final_velocities"])):
    bound = 0.5 * L["v_final[%d]" % i]["bound"]
    print("v_final[%d]: |rigid - compliant| = %.3g, bound %.3g" % (i, abs(a - b), bound))
    okay &= abs(a - b) <= bound
sys.exit(not okay)
PY
"$PY" - <<'PY' && ok "rigid --table reports the table's bounds of alpha and kappa at the point" self || bad "table_bounds: $(head -c 400 rigid.json)"
import json, sys
L = json.load(open("lookup.json"))["values"]
b = json.load(open("rigid.json"))["table_bounds"]
ba = max(L["alpha[%d]" % c]["bound"] for c in range(3))
print(b, ba, L["kappa"]["bound"])
sys.exit(not (b["alpha"] == ba and b["kappa"] == L["kappa"]["bound"]))
PY
# the alpha and kappa the rigid run applied against the compliant run's own
# (its first episode), within the table's bounds of alpha and kappa
cat > own.py <<'PY'
import json, sys
L = json.load(open(sys.argv[1]))["values"]
r, c = json.load(open(sys.argv[2]))["episodes"][0], json.load(open(sys.argv[3]))["episodes"][0]
dk = abs(r["kappa"] - c["kappa"])
da = [abs(a["alpha"] - b["alpha"]) for a, b in zip(r["contacts"], c["contacts"])]
print("kappa", r["kappa"], c["kappa"], dk, L["kappa"]["bound"], "alpha", da)
sys.exit(not (len(r["contacts"]) == len(c["contacts"]) and dk <= L["kappa"]["bound"]
              and all(d <= L["alpha[%d]" % k]["bound"] for k, d in enumerate(da))))
PY
"$PY" own.py lookup.json rigid.json compliant.json \
    && ok "rigid --table at an off-grid point: its alpha, kappa within the table's bounds of the compliant run's own" ref \
    || bad "rigid --table alpha, kappa"
h5dump -a /rigid_law_after_run rigid.h5 | grep -q "table t.h5: .*largest bounds met: alpha +- 0.0777, kappa +- 0.016" \
    && ok "the run file's rigid_law_after_run carries the table's bounds met" \
    || bad "rigid_law_after_run: $(h5dump -a /rigid_law_after_run rigid.h5 | grep '(0)')"
"$CRADLE" compare user.yaml --table t.h5 --json > compare.json 2> compare.err; st=$?
"$PY" - <<'PY' && ok "compare --table at an off-grid point: the predicted alpha, kappa within the table's bounds of the compliant run's own" ref || bad "compare --table: $st $(cat compare.err)"
import json, sys
L = json.load(open("lookup.json"))["values"]
rows = {(r["law"], r["mode"]): r for r in json.load(open("compare.json"))["episodes"][0]["rows"]}
own, pred = rows[("energetic", "calibrated")], rows[("energetic", "predictive")]
dk = abs(pred["parameter"] - own["parameter"])
da = [abs(p - o) for p, o in zip(pred["parameters"], own["parameters"])]
print("kappa", own["parameter"], pred["parameter"], dk, "bound", L["kappa"]["bound"])
print("alpha", own["parameters"], pred["parameters"], da)
okay = pred["status"] == "ok" and "from table t.h5 (bounds" in pred["message"]
okay &= dk <= L["kappa"]["bound"]
okay &= all(d <= L["alpha[%d]" % c]["bound"] for c, d in enumerate(da))
sys.exit(not okay)
PY

# the same impact struck from the right (the chain mirrored): the mirror of
# the rigid run's outcome
cat > mirror.yaml <<'YAML'
name: user-chain4-mirrored
balls:
  - {mass: 2.0, radius: 0.01, x: 0.0}
  - {mass: 2.2, radius: 0.01, x: 0.02}
  - {mass: 1.8, radius: 0.01, x: 0.04}
  - {mass: 2.0, radius: 0.01, x: 0.06, v: -0.5}
contact: {K: 1000.0, n: 1.5, release: force, restitution: 0.92, reference_speed: 0.5}
integration: {rtol: 1.0e-10, atol: 1.0e-12}
YAML
"$CRADLE" run mirror.yaml --rigid energetic --table t.h5 -o mirror.h5 --json > mirror.json 2> mirror.err
"$PY" - <<'PY' && ok "rigid --table, striker from the right: the mirrored outcome to 1e-12" self || bad "mirror: $(cat mirror.err)"
import json, sys
a = json.load(open("rigid.json"))["final_velocities"]
b = json.load(open("mirror.json"))["final_velocities"]
d = max(abs(x + y) for x, y in zip(a, reversed(b)))
print("mirror", d)
sys.exit(not d <= 1e-12)
PY

"$CRADLE" compare mirror.yaml --table t.h5 --json > mirrorc.json 2> mirrorc.err
"$PY" - <<'PY' && ok "compare --table, striker from the right: the forward prediction mirrored (kappa, alpha reversed) to 1e-12" self || bad "compare mirror: $(cat mirrorc.err)"
import json, sys
def pred(f):
    rows = json.load(open(f))["episodes"][0]["rows"]
    return [r for r in rows if r["law"] == "energetic" and r["mode"] == "predictive"][0]
a, b = pred("compare.json"), pred("mirrorc.json")
print(a["parameter"], b["parameter"], a["parameters"], b["parameters"])
sys.exit(not (b["status"] == "ok" and abs(a["parameter"] - b["parameter"]) <= 1e-12
              and all(abs(x - y) <= 1e-12 for x, y in zip(a["parameters"], reversed(b["parameters"])))))
PY

# a table over a gap (g23/d*, the model of data/chain3-gap.h5: d* = 1): an
# impact that takes in a gap of 0.35 d* (rigid.touching 1) is looked up there
cat > gap3.yaml <<'YAML'
name: chain3-gap
balls:
  - {mass: 1.0, radius: 0.5, x: -2.0, v: 1.0}
  - {mass: 1.0, radius: 0.5, x: -1.0}
  - {mass: 1.0, radius: 0.5, x: 0.0}
contact: {K: 0.625, n: 1.5, C: 0.0, release: gap}
integration: {rtol: 1.0e-10, atol: 1.0e-12}
YAML
cat > gapgrid.yaml <<'YAML'
name: gap-grid
model: gap3.yaml
axes:
  - {field: 'balls[2].x', key: g/d*, range: {from: 0.0, to: 1.0, count: 5}}
YAML
"$CRADLE" sweep gapgrid.yaml -o gapgrid.h5 -q -j 2
"$CRADLE" table make gapgrid.h5 --configuration chain --check auto -q -j 2 -o tg.h5 2> tg.err
"$CRADLE" table info tg.h5 | grep -q "g/d\* .*quantity g23/d\*" \
    && ok "a grid over balls[2].x is declared as the gap g23/d*" || bad "gap table: $(cat tg.err)"
sed 's/x: 0.0}/x: 0.35}/' gap3.yaml > ugap.yaml
"$CRADLE" table lookup tg.h5 g/d*=0.35 --json > lgap.json
"$CRADLE" run ugap.yaml -o cgap.h5 --json > cgap.json
"$CRADLE" run ugap.yaml --rigid energetic --table tg.h5 -o rgap.h5 --json > rgap.json 2> rgap.err
"$PY" own.py lgap.json rgap.json cgap.json \
    && ok "rigid --table over a gap, g23/d* = 0.35: alpha, kappa within the table's bounds of the compliant run's own" ref \
    || bad "gap: $(cat rgap.err)"

# a table over the striker's speed itself (damping C fixed, no restitution
# target): the units and C are held fixed; in other units: exit 5
cat > damped.yaml <<'YAML'
name: chain3-damped
balls:
  - {mass: 1.0, radius: 0.5, x: 0.0, v: 1.0}
  - {mass: 1.2, radius: 0.5, x: 1.0}
  - {mass: 1.0, radius: 0.5, x: 2.0}
contact: {K: 1.0, n: 1.5, m: 0.5, C: 0.2, release: force}
integration: {rtol: 1.0e-10, atol: 1.0e-12}
YAML
cat > vgrid.yaml <<'YAML'
name: speed
model: damped.yaml
axes:
  - {field: 'balls[0].v', key: v, range: {from: 0.25, to: 4, count: 5, scale: log}}
  - {field: 'balls[1].mass', key: m2/m1, values: [1.0, 1.5]}
YAML
"$CRADLE" sweep vgrid.yaml -o vgrid.h5 -q -j 2
"$CRADLE" table make vgrid.h5 --configuration chain --check auto -q -j 2 -o tv.h5 2> tv.err
"$CRADLE" table info tv.h5 | grep -q "held fixed: .*m1 = 1, K12 = 1, C12 = 0.2, C23 = 0.2" \
    && ok "a grid over the speed: declared v, the units and the damping held fixed" || bad "speed table: $(cat tv.err)"
sed 's/v: 1.0}/v: 0.7}/' damped.yaml > uv.yaml
"$CRADLE" table lookup tv.h5 v=0.7 m2/m1=1.2 --json > lv.json
"$CRADLE" run uv.yaml -o cv.h5 --json > cv.json
"$CRADLE" run uv.yaml --rigid energetic --table tv.h5 -o rv.h5 --json > rv.json 2> rv.err
"$PY" own.py lv.json rv.json cv.json \
    && ok "rigid --table over the speed, v = 0.7: alpha, kappa within the table's bounds of the compliant run's own" ref \
    || bad "speed: $(cat rv.err)"
sed -e 's/mass: 1.0, radius: 0.5, x: 0.0, v: 1.0/mass: 2.0, radius: 0.5, x: 0.0, v: 0.7/' \
    -e 's/mass: 1.2/mass: 2.4/' -e 's/mass: 1.0, radius: 0.5, x: 2.0/mass: 2.0, radius: 0.5, x: 2.0/' damped.yaml > units.yaml
"$CRADLE" run units.yaml --rigid energetic --table tv.h5 -o units.h5 2> units.err; st=$?
[ $st -eq 5 ] && [ "$(wc -l < units.err)" -eq 1 ] && grep -q "m1 = 2 is outside .*held fixed" units.err && [ ! -e units.h5 ] \
    && ok "rigid --table over the speed, masses in other units: exit 5, names m1" || bad "units: $st $(cat units.err)"

# outside the axes: exit 5, one line naming the quantity and the value, no file
refused() { # NAME STATUS PATTERN FILE: one line, the status, the pattern, no FILE
    [ "$2" -eq "$4" ] && [ "$(wc -l < "$1.err")" -eq 1 ] && grep -q "$3" "$1.err" && [ ! -e "$1.h5" ]
}
sed 's/mass: 1.8,/mass: 3.2,/' user.yaml > far.yaml
"$CRADLE" run far.yaml --rigid energetic --table t.h5 -o far.h5 2> far.err; st=$?
refused far $st 'm2/m1 = 1.6 is outside the table' 5 \
    && ok "rigid --table, m2/m1 = 1.6 outside [0.7, 1.4]: exit 5, one line naming it, no file" || bad "far: $st $(cat far.err)"
"$CRADLE" compare far.yaml --table t.h5 -o farc.h5 2> farc.err; st=$?
refused farc $st 'm2/m1 = 1.6 is outside the table' 5 \
    && ok "compare --table, m2/m1 = 1.6: exit 5, one line naming it, no file" || bad "farc: $st $(cat farc.err)"
"$CRADLE" compare far.yaml --rigid energetic --table t.h5 -o farr.h5 2> farr.err; st=$?
refused farr $st 'm2/m1 = 1.6 is outside the table' 5 \
    && ok "compare --rigid energetic --table, m2/m1 = 1.6: exit 5 before any run is written" || bad "farr: $st $(cat farr.err)"
sed 's/mass: 2.0, radius: 0.01, x: 0.06/mass: 2.4, radius: 0.01, x: 0.06/' user.yaml > heavy.yaml
"$CRADLE" run heavy.yaml --rigid energetic --table t.h5 -o heavy.h5 2> heavy.err; st=$?
refused heavy $st 'm4/m1 = 1.2 is outside .*held fixed' 5 \
    && ok "rigid --table, m4/m1 = 1.2 where the table holds 1: exit 5, names it" || bad "heavy: $st $(cat heavy.err)"
sed -e 's/x: 0.04}/x: 0.040002}/' -e 's/x: 0.06}/x: 0.060002}/' user.yaml > gapped.yaml
"$CRADLE" run gapped.yaml --rigid energetic --table t.h5 -o gapped.h5 2> gapped.err; st=$?
refused gapped $st 'g23/d\* = .* is outside .*held fixed' 5 \
    && ok "rigid --table, a 2 um gap closed by the impact (rigid.touching): exit 5, names g23/d*" || bad "gapped: $st $(cat gapped.err)"

# a table that does not describe the model's impacts: exit 3, one line, no file
cat > five.yaml <<'YAML'
name: five
balls:
  - {mass: 2.0, radius: 0.01, x: 0.0, v: 0.5}
  - {mass: 1.8, radius: 0.01, x: 0.02}
  - {mass: 2.2, radius: 0.01, x: 0.04}
  - {mass: 2.0, radius: 0.01, x: 0.06}
  - {mass: 2.0, radius: 0.01, x: 0.08}
contact: {K: 1000.0, n: 1.5, release: force, restitution: 0.92, reference_speed: 0.5}
YAML
"$CRADLE" run five.yaml --rigid energetic --table t.h5 -o five.h5 2> five.err; st=$?
refused five $st "t.h5: the table's configuration is 'chain4'; the impact is a chain of 5" 3 \
    && ok "rigid --table on a 5-ball chain: exit 3, one line naming the table, no file" || bad "five: $st $(cat five.err)"
sed 's/n: 1.5/n: 1.0/' user.yaml > linear.yaml
"$CRADLE" run linear.yaml --rigid energetic --table t.h5 -o linear.h5 2> linear.err; st=$?
refused linear $st "contact law (law.n" 3 \
    && ok "rigid --table with a linear contact law: exit 3, names the law" || bad "linear: $st $(cat linear.err)"
"$PY" - <<'PY' || bad "unequal restitutions: model"
text = open("user.yaml").read().replace("reference_speed: 0.5}",
    "reference_speed: 0.5,\n  pairs: [{between: [2, 3], restitution: 0.86}]}")
open("unequal.yaml", "w").write(text)
PY
"$CRADLE" run unequal.yaml --rigid energetic --table t.h5 -o unequal.h5 2> unequal.err; st=$?
refused unequal $st "axis e is e, one value every pair shares, and the impact's pairs have different ones (e12 = " 3 \
    && ok "rigid --table, pairs of different restitutions on an axis e they share: exit 3" || bad "unequal: $st $(cat unequal.err)"
# a table whose declaration names a quantity no chain has (edited)
cp t.h5 edited.h5
"$PY" - <<'PY' || bad "edit the table"
import h5py, numpy as np
with h5py.File("edited.h5", "r+") as f:
    q = f["reference/quantity"]
    q[0] = np.bytes_("m7/m1")
PY
"$CRADLE" run user.yaml --rigid energetic --table edited.h5 -o edited-run.h5 2> edited-run.err; st=$?
refused edited-run $st "edited.h5: axis m2/m1 is 'm7/m1', no quantity" 3 \
    && ok "a table whose axis is declared as no quantity of the impact: exit 3, names file and axis" || bad "edited: $st $(cat edited-run.err)"

# declarations are checked against the grid's models
cat > zipped.yaml <<'YAML'
name: zipped
model: chain4.yaml
axes:
  - zip:
      - {field: 'balls[1].mass', key: m2/m1, values: [0.8, 1.0]}
      - {field: 'balls[2].mass', values: [1.0, 1.2]}
YAML
"$CRADLE" sweep zipped.yaml -o zipped.h5 -q -j 2
"$CRADLE" table make zipped.h5 --configuration chain -o tz.h5 2> tz.err; st=$?
[ $st -eq 3 ] && [ "$(wc -l < tz.err)" -eq 1 ] && grep -q "m3/m1 varies over the grid" tz.err && [ ! -e tz.h5 ] \
    && ok "make --configuration chain: a quantity that varies with no axis of its own: exit 3, no file" || bad "zipped: $st $(cat tz.err)"
cat > rtol.yaml <<'YAML'
name: rtol
model: chain4.yaml
axes:
  - {field: 'integration.rtol', values: [1.0e-10, 1.0e-9]}
YAML
"$CRADLE" sweep rtol.yaml -o rtol.h5 -q -j 2
"$CRADLE" table make rtol.h5 --configuration chain -o tr.h5 2> tr.err; st=$?
[ $st -eq 3 ] && [ "$(wc -l < tr.err)" -eq 1 ] && grep -q "axis integration.rtol (integration.rtol) is no impact-configuration quantity" tr.err \
    && [ ! -e tr.h5 ] && ok "make --configuration chain: an axis that is no quantity (integration.rtol): exit 3, no file" || bad "rtol: $st $(cat tr.err)"

finish test-table-chain
