#!/bin/sh
# The command-line tool end to end: the default run writes a readable HDF5 file;
# every bad input gives a one-line error naming file, line and field, a non-zero
# exit status, and no output file.
set -u
CRADLE=$1
DATA=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }

# --version, help
"$CRADLE" --version | grep -q "^cradle [0-9]" && ok "--version" || bad "--version"
"$CRADLE" help run | grep -q "usage: cradle run" && ok "help run" || bad "help run"
"$CRADLE" run --help | grep -q "MODEL" && ok "run --help" || bad "run --help"
"$CRADLE" frobnicate 2>/dev/null; [ $? -eq 2 ] && ok "unknown command: exit 2" || bad "unknown command"

# default run: the 5-ball Newton's cradle
if "$CRADLE" run > run.txt 2>&1; then ok "default run exits 0"; else bad "default run: $(cat run.txt)"; fi
grep -q "final velocities" run.txt && ok "summary printed" || bad "summary missing"
if h5dump -a /status cradle-out.h5 2>/dev/null | grep -q '"complete"'; then
    ok "h5dump reads cradle-out.h5, status complete"
else
    bad "h5dump cannot read cradle-out.h5"
fi
h5dump -H -d /trajectory/velocity cradle-out.h5 2>/dev/null | grep -q "DATASPACE  SIMPLE { ( [0-9]*, 5 )" \
    && ok "trajectory velocity has 5 columns" || bad "trajectory layout"
ls ./*.tmp.* >/dev/null 2>&1 && bad "temporary file left" || ok "no temporary left"

# --json: the episode summary for scripts
"$CRADLE" run --json -o j.h5 > run.json && grep -q '"episodes": \[{"t_start"' run.json \
    && ok "run --json lists the episodes" || bad "run --json: $(head -c 300 run.json)"
h5dump -H -d /episodes j.h5 >/dev/null 2>&1 && ok "/episodes in the HDF5 file" || bad "/episodes missing"

# memcheck of a whole run with episodes and JSON (uninitialised reads once
# printed garbage here)
if [ -z "${CR_NO_VALGRIND:-}" ] && command -v valgrind >/dev/null 2>&1; then
    valgrind -q --error-exitcode=9 "$CRADLE" run --json -o v.h5 > /dev/null 2> vg.txt
    [ $? -eq 0 ] && ok "valgrind: cradle run --json is clean" || bad "valgrind: $(head -5 vg.txt)"
fi

# -o
"$CRADLE" run -q -o other.h5 "$DATA/two-balls.yaml" && [ -f other.h5 ] && ok "-o FILE" || bad "-o FILE"

# bad input: message names file, line (when there is one) and field; no file
check_bad() { # file expected-substring...
    f=$1
    shift
    rm -f out.h5
    "$CRADLE" run -o out.h5 "$f" > stdout.txt 2> stderr.txt
    status=$?
    if [ $status -eq 0 ]; then bad "$f: exit status 0"; return; fi
    if [ -e out.h5 ] || ls out.h5.tmp.* >/dev/null 2>&1; then bad "$f: output file written"; return; fi
    if [ "$(wc -l < stderr.txt)" -ne 1 ]; then bad "$f: not one line: $(cat stderr.txt)"; return; fi
    for s in "$@"; do
        grep -qF -- "$s" stderr.txt || { bad "$f: '$s' not in: $(cat stderr.txt)"; return; }
    done
    ok "$f refused (status $status): $(cat stderr.txt)"
}
check_bad "$DATA/nope.yaml" "nope.yaml" "cannot open"
check_bad "$DATA/bad-syntax.yaml" "bad-syntax.yaml:4:" "syntax"
check_bad "$DATA/negative-mass.yaml" "negative-mass.yaml:4:" "balls[1].mass"
check_bad "$DATA/missing-field.yaml" "missing-field.yaml:7:" "balls[1].radius" "missing"
check_bad "$DATA/overlap.yaml" "overlap.yaml:4:" "balls[1].x" "interpenetrates"

# a planar pool model: symmetric Bernoulli impact, results in HDF5
"$CRADLE" run -o pool.h5 "$DATA/../../models/pool-bernoulli.yaml" > pool.txt 2>&1 \
    && grep -q "pool of 3 discs" pool.txt && h5dump -d /contacts pool.h5 >/dev/null 2>&1 \
    && ok "pool model runs and writes /contacts" || bad "pool run: $(cat pool.txt)"
grep -q "3 impact episodes" pool.txt && h5dump -d /episodes pool.h5 >/dev/null 2>&1 \
    && ok "pool episodes printed and stored" || bad "pool episodes: $(cat pool.txt)"
"$CRADLE" run --json -o pool2.h5 "$DATA/../../models/pool-bernoulli.yaml" > pool.json \
    && grep -q '"model_kind": "pool-2d"' pool.json && grep -q '"vector_impulse": \[' pool.json \
    && ok "pool --json" || bad "pool --json: $(head -c 300 pool.json)"
printf 'discs:\n  - {mass: 1, radius: 0.1, x: 0, y: 0}\n  - {mass: 1, radius: 0.1, x: 0.15, y: 0}\n' > overlap-pool.yaml
check_bad overlap-pool.yaml "overlap-pool.yaml:3:" "discs[1]" "interpenetrates"
printf 'discs:\n  - {mass: 1, radius: 0.1, x: 0, y: 0}\nwalls:\n  - {normal: [1, 0], offset: 0.5}\n' > outside-pool.yaml
check_bad outside-pool.yaml "outside-pool.yaml:4:" "walls[0]" "outside"

# closing the loop: an episode exported as a law case; the energetic law with the
# measured kappa and alpha gives back the compliant u+ (001 eq. 17-18; 1e-8)
"$CRADLE" run --json --cases cases-out -o loop.h5 "$DATA/../../models/three-ball-chain.yaml" > loop.json 2> loop.err
after=$(sed -n 's/.*"velocity_after": \[\([^]]*\)\].*/\1/p' loop.json)
law=$("$CRADLE" law energetic --input cases-out/episode-0000.yaml --json | sed -n 's/.*"velocity": \[\([^]]*\)\].*/\1/p')
if [ -n "$after" ] && [ -n "$law" ] && printf '%s\n%s\n' "$after" "$law" | awk -F', ' '
    NR == 1 { for (i = 1; i <= NF; i++) a[i] = $i; n = NF }
    NR == 2 { for (i = 1; i <= n; i++) { d = a[i] - $i; if (d < 0) d = -d; if (d > 1e-8) bad = 1 } }
    END { exit bad }'; then
    ok "episode -> law case -> energetic law reproduces the compliant u+ to 1e-8"
else
    bad "closing the loop: compliant [$after] vs law [$law] ($(cat loop.err))"
fi

# Ctrl-C: the run stops at the next output time and keeps a valid file that says so
"$CRADLE" run -o int.h5 "$DATA/long-run.yaml" > int.txt 2>&1 &
pid=$!
sleep 1
kill -INT $pid
wait $pid
st=$?
if [ $st -eq 130 ] && h5dump -a /status int.h5 2>/dev/null | grep -q '"interrupted"' \
    && ! ls int.h5.tmp.* >/dev/null 2>&1; then
    ok "SIGINT: exit 130, int.h5 valid with status interrupted, no temporary left"
else
    bad "SIGINT: status $st, $(cat int.txt)"
fi

# cradle law: the 3-ball chain of 001 sect. 3.2, Newton e = 1 -> (-1/3, 2/3, 2/3)
CASES=$DATA/../../cases
out=$("$CRADLE" law newton --input "$CASES/three-ball-chain.yaml" --json)
vel=$(echo "$out" | sed -n 's/.*"velocity": \[\([^]]*\)\].*/\1/p')
echo "$vel" | awk -F', ' '{ e = 1e-12; exit !(($1 + 1/3)^2 < e*e && ($2 - 2/3)^2 < e*e && ($3 - 2/3)^2 < e*e) }' \
    && ok "law newton --json: u+ = (-1/3, 2/3, 2/3) to 1e-12 (001 sect. 3.2)" || bad "law newton --json: $out"
"$CRADLE" law sequential -i "$CASES/three-ball-chain.yaml" | grep -q "multiple: 2 distinct outcomes" \
    && ok "law sequential: two outcomes" || bad "law sequential"
"$CRADLE" law pandrea -i "$CASES/pandrea-bar.yaml" | grep -q "P       115.6 88.4" \
    && ok "law pandrea: P = (115.6, 88.4) N s (004 bar, consistent data)" || bad "law pandrea"
"$CRADLE" law --list | grep -qx mosterman && ok "law --list" || bad "law --list"
"$CRADLE" law frobnicate -i "$CASES/three-ball-chain.yaml" 2>/dev/null; [ $? -eq 2 ] && ok "unknown law: exit 2" || bad "unknown law"
printf 'chain:\n  masses: [1, -1]\n  velocities: [1, 0]\n' > badcase.yaml
"$CRADLE" law newton -i badcase.yaml 2> err.txt; st=$?
if [ $st -ne 0 ] && grep -q "badcase.yaml:2: chain.masses" err.txt; then ok "bad case: $(cat err.txt)"; else bad "bad case: $(cat err.txt)"; fi

echo "test-cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
