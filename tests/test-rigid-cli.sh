#!/bin/sh
# `cradle run --rigid LAW` end to end: a rigid run of the pendulum cradle writes
# the same HDF5 layout, summary and JSON as a compliant one (engine "rigid",
# every episode instantaneous); every refusal is one line, the documented exit
# status (docs/errors.md: 2 usage, 3 bad input) and no file; a law that fails
# during the run keeps a file whose status says so (exit 4).
set -u
CRADLE=$1
MODELS=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
status_of() { h5dump -a /status "$1" 2>/dev/null | sed -n 's/.*(0): "\(.*\)"/\1/p'; }

# a rigid run: summary, file, JSON
"$CRADLE" run --rigid sequential -o seq.h5 "$MODELS/pendulum-cradle.yaml" > seq.txt 2>&1 \
    && grep -q "rigid run: law sequential (restitution 1)" seq.txt \
    && grep -q "4 impact episodes" seq.txt && [ "$(status_of seq.h5)" = complete ] \
    && ok "pendulum cradle, sequential: 4 impacts, file complete" || bad "sequential run: $(cat seq.txt)"
h5dump -a /model/kind seq.h5 2>/dev/null | grep -q '"rigid"' \
    && ok "/model kind = rigid" || bad "/model kind: $(h5dump -a /model/kind seq.h5 2>&1 | tail -3)"
"$CRADLE" run --json --rigid newton --restitution 0.9 -o j.h5 "$MODELS/pendulum-cradle.yaml" > j.json
"$PY" -c '
import json, sys
d = json.load(open("j.json"))
eps = d["episodes"]
inst = all(e["t_start"] == e["t_end"] for e in eps)
sys.exit(not (d["engine"] == "rigid" and len(eps) > 0 and inst))' \
    && ok "--json: engine rigid, every episode instantaneous" || bad "--json: $(head -c 300 j.json)"

# refusals: one line, the status, no file
check() { # status expected-substring args...
    want=$1 text=$2
    shift 2
    rm -f out.h5
    "$CRADLE" run -o out.h5 "$@" > stdout.txt 2> stderr.txt
    st=$?
    if [ $st -ne "$want" ]; then bad "$*: exit $st, want $want ($(cat stderr.txt))"; return; fi
    if [ -e out.h5 ] || ls ./*.tmp.* >/dev/null 2>&1; then bad "$*: a file was written"; return; fi
    if [ "$(wc -l < stderr.txt)" -ne 1 ]; then bad "$*: not one line: $(cat stderr.txt)"; return; fi
    grep -qF -- "$text" stderr.txt || { bad "$*: '$text' not in: $(cat stderr.txt)"; return; }
    ok "refused ($st): $(cat stderr.txt)"
}
check 2 "needs --kappa K and --alpha" --rigid energetic "$MODELS/three-ball-chain.yaml"
check 2 "comparator" --rigid calibrated "$MODELS/three-ball-chain.yaml"
check 2 "did you mean 'newton'" --rigid newtn "$MODELS/three-ball-chain.yaml"
check 2 "needs --rigid" --restitution 0.9 "$MODELS/three-ball-chain.yaml"
check 2 "[0, 1]" --rigid newton --restitution 1.5 "$MODELS/three-ball-chain.yaml"
check 2 "has no restitution" --rigid max-dissipation --restitution 0.5 "$MODELS/three-ball-chain.yaml"
check 3 "not rigid" --rigid newton "$MODELS/glocker-rods.yaml"
check 3 "dim 2" --rigid newton "$MODELS/pool-bernoulli.yaml"
check 3 "--restitution E" --rigid newton "$MODELS/dashpot-pair.yaml"
check 3 "2 values for the 4 pairs" --rigid energetic --kappa 1 --alpha 1,2 "$MODELS/newton-cradle-5.yaml"

# a law that fails during the run: exit 4, the file kept as failed
"$CRADLE" run -o fail.h5 --rigid energetic --kappa 1 --alpha 1,0,0,0 "$MODELS/newton-cradle-5.yaml" \
    > /dev/null 2> fail.txt
st=$?
[ $st -eq 4 ] && [ "$(status_of fail.h5)" = failed ] && grep -q "infeasible" fail.txt \
    && ok "infeasible (alpha, kappa) mid-run: exit 4, file status failed" \
    || bad "failing law: exit $st, status $(status_of fail.h5), $(cat fail.txt)"

echo "test-rigid-cli: $passed passed, $failed failed"
[ $failed -eq 0 ]
