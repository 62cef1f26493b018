#!/bin/sh
# `cradle run` end to end, for chains and pools alike: the default run writes a
# readable HDF5 file; --json is valid JSON whatever the names; every bad input or
# bad output path gives one line, the documented exit status (docs/errors.md) and
# no file; a run that fails or is stopped keeps a valid file that says why.
set -u
CRADLE=$1
DATA=$2
MODELS=$DATA/../../models
. "$(dirname "$0")/shell-lib.sh"

# --version, help
"$CRADLE" --version | grep -q "^cradle [0-9]" && ok "--version" || bad "--version"
"$CRADLE" help run | grep -q "usage: cradle run" && ok "help run" || bad "help run"
"$CRADLE" run --help | grep -q "MODEL" && ok "run --help" || bad "run --help"
# under a field kappa is (T+ - W_field)/T-, and the field's work is printed beside it
"$CRADLE" run "$MODELS/pendulum-cradle-3.yaml" --set integration.t_end=0.5 -o pf.h5 > pf.txt 2>&1
"$CRADLE" run -o nf.h5 > nf.txt 2>&1
grep -q "kappa = (T+ - W_field)/T- = [0-9.]*, W_field = " pf.txt && grep -q "W_field \[J\]" pf.txt \
    && grep -q "kappa = T+/T- = " nf.txt && ! grep -q "W_field" nf.txt \
    && ok "kappa printed with the field's work under a pendulum field, as T+/T- without one" \
    || bad "kappa and W_field: $(grep -m1 kappa pf.txt) / $(grep -m1 kappa nf.txt)"
rm -f pf.h5 nf.h5
# compare's notes are never cut mid-sentence: the 20-bead column's out-of-range
# restitutions are one note (they filled the 224-byte message, cut at byte 223)
"$CRADLE" compare "$MODELS/bead-column.yaml" --json -q > bc.json
"$PY" -c '
import json, re, sys
msgs = []
def walk(o):
    if isinstance(o, dict):
        for k, v in o.items():
            msgs.append(v) if k == "message" and isinstance(v, str) else walk(v)
    elif isinstance(o, list):
        for x in o:
            walk(x)
walk(json.load(open("bc.json")))
cut = [m for m in msgs if len(m) >= 511 and not m.endswith("...")]
one = [m for m in msgs if re.search(r"e_P outside \[0, 1\] on [0-9]+ contact records, farthest record [0-9]+ = [0-9.]+, used as they are", m)]
print("    %d messages, longest %d characters, %d with the one range note" % (len(msgs), max(map(len, msgs)), len(one)))
sys.exit(bool(cut) or not one)' \
    && ok "compare on the bead column: range notes merged, no message cut" \
    || bad "compare notes cut or not merged"
# an explicit key ('? '): refused before libfyaml 0.7.12 sees it (it crashed on
# "? a:<TAB>:", found by fuzz-modelfile)
printf '? a:\t:\n' > ek.yaml
"$CRADLE" run ek.yaml -o ek.h5 2> err.txt
st=$?
[ $st -eq 3 ] && [ ! -e ek.h5 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q "ek.yaml:1: .*explicit key" err.txt \
    && ok "an explicit YAML key: exit 3, one line, no file" || bad "explicit key: $st $(cat err.txt)"
# a tolerance finer than double precision resolves: accepted, one line that says so
"$CRADLE" run --set integration.rtol=1e-20 -q -o tol.h5 2> err.txt
st=$?
[ $st -eq 0 ] && [ "$(wc -l < err.txt)" -eq 1 ] \
    && grep -q "^cradle: note: .*: integration.rtol = 1e-20 is below what double precision resolves" err.txt \
    && ok "rtol 1e-20: run, with a one-line note" || bad "rtol 1e-20: $st $(cat err.txt)"
rm -f tol.h5
"$CRADLE" help nosuchtopic > out.txt 2> err.txt
st=$?
[ $st -eq 2 ] && [ ! -s out.txt ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q "no topic 'nosuchtopic'" err.txt \
    && ok "help on an unknown topic: one line, exit 2" || bad "help nosuchtopic: $st $(cat err.txt)"
"$CRADLE" frobnicate 2>/dev/null; [ $? -eq 2 ] && ok "unknown command: exit 2" || bad "unknown command"
# an unknown option or a missing value: one line naming it and the help topic, exit 2
for cmd in run compare sweep law; do
    "$CRADLE" $cmd x.yaml --frob > out.txt 2> err.txt; st=$?
    [ $st -eq 2 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q "^cradle: $cmd: .*'--frob' (cradle help $cmd)" err.txt \
        && [ ! -s out.txt ] && ok "$cmd --frob: one line, exit 2" || bad "$cmd --frob: status $st, $(cat err.txt)"
done
# a material fixes Hertz's n: another n is refused, not ignored
"$CRADLE" run "$MODELS/newton-cradle-5.yaml" --set contact.n=2 -o n.h5 2> err.txt; st=$?
[ $st -eq 3 ] && grep -q "contact.n: a material gives Hertz's n = 1.5 (got 2)" err.txt && [ ! -e n.h5 ] \
    && ok "contact.n with a material: refused, exit 3" || bad "n with material: $st $(cat err.txt)"
# --cases into a file or a folder that cannot be made: refused before the run
for dir in "$MODELS/three-ball-chain.yaml" /nonexistent/cases; do
    "$CRADLE" run --cases "$dir" -o c.h5 "$MODELS/three-ball-chain.yaml" > /dev/null 2> err.txt; st=$?
    [ $st -eq 3 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q "^cradle: --cases $dir: " err.txt && [ ! -e c.h5 ] \
        && ok "--cases $dir: exit 3 before the run, no file" || bad "--cases $dir: $st $(cat err.txt)"
done
# -q silences everything, the --cases count too
"$CRADLE" run -q --cases qcases -o q.h5 "$MODELS/three-ball-chain.yaml" > q.out 2> q.err; st=$?
[ $st -eq 0 ] && [ ! -s q.out ] && [ ! -s q.err ] && [ -f qcases/episode-0000.yaml ] \
    && ok "run -q --cases: nothing printed, the case written" || bad "-q --cases: $st $(cat q.out q.err)"
# a run file where a model or a law case is expected: said so, exit 3
"$CRADLE" run -q -o hdf.h5 "$MODELS/three-ball-chain.yaml"
"$CRADLE" run hdf.h5 -o other.h5 2> err.txt; st=$?
[ $st -eq 3 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q "an HDF5 file, not a model file" err.txt \
    && [ ! -e other.h5 ] && ok "run RUN.h5: one line, exit 3, no file" || bad "run RUN.h5: status $st, $(cat err.txt)"
"$CRADLE" law poisson --input hdf.h5 2> err.txt; st=$?
[ $st -eq 3 ] && grep -q "a run file, not a law case: add --episode K" err.txt \
    && ok "law --input RUN.h5 without --episode: says to add it" || bad "law RUN.h5: status $st, $(cat err.txt)"
"$CRADLE" run -o 2> err.txt; st=$?
[ $st -eq 2 ] && [ "$(wc -l < err.txt)" -eq 1 ] && ok "run -o without a value: one line, exit 2" \
    || bad "run -o: status $st, $(cat err.txt)"

# default run: the 5-ball Newton's cradle
if "$CRADLE" run > run.txt 2>&1; then ok "default run exits 0"; else bad "default run: $(cat run.txt)"; fi
grep -q "final velocities" run.txt && ok "summary printed" || bad "summary missing"
[ "$(status_of cradle-out.h5)" = complete ] && ok "h5dump reads cradle-out.h5, status complete" \
    || bad "h5dump cannot read cradle-out.h5"
h5dump -H -d /trajectory/velocity cradle-out.h5 2>/dev/null | grep -q "DATASPACE  SIMPLE { ( [0-9]*, 5 )" \
    && ok "trajectory velocity has 5 columns" || bad "trajectory layout"
no_temp && ok "no temporary left" || bad "temporary file left"

# --json: valid JSON (a parser reads it), episodes for scripts
"$CRADLE" run --json -o j.h5 > run.json
"$PY" -c 'import json,sys; d=json.load(open("run.json")); sys.exit(not (d["engine"] == "chain" and d["episodes"][0]["t_start"] > 0))' \
    && ok "run --json: valid JSON with the episodes" || bad "run --json: $(head -c 300 run.json)"
h5dump -H -d /episodes j.h5 >/dev/null 2>&1 && ok "/episodes in the HDF5 file" || bad "/episodes missing"
# the method auto resolved to, in the summary, the JSON and the file (the
# default 5-ball cradle: undamped, no links, 5 bodies: erk; --set overrides)
grep -q "^  erk: [0-9]* steps" run.txt && "$PY" -c 'import json,sys; sys.exit(json.load(open("run.json"))["integration_method"] != "erk")' \
    && h5dump -a /integration_method j.h5 2>/dev/null | grep -q '"erk"' \
    && ok "the method run (erk) in the summary, the JSON and the file" \
    || bad "method not reported: $(grep steps run.txt)"
"$CRADLE" run -q --json --set integration.method=adams-fixed-point -o afp.h5 > afp.json
"$PY" -c 'import json,sys; sys.exit(json.load(open("afp.json"))["integration_method"] != "adams-fixed-point")' \
    && h5dump -a /integration_method afp.h5 2>/dev/null | grep -q '"adams-fixed-point"' \
    && ok "--set integration.method=adams-fixed-point is the method run" \
    || bad "method override not reported: $(head -c 300 afp.json)"
# names full of quotes, backslashes, a newline and non-ASCII stay valid JSON
sed 's/^name: .*/name: "say \\"hi\\" \\\\ back\\nslash é"/' "$MODELS/three-ball-chain.yaml" > quoted.yaml
"$CRADLE" run --json -o 'q"uote\.h5' quoted.yaml > quoted.json 2> quoted.err
"$PY" -c 'import json,sys; d=json.load(open("quoted.json")); sys.exit(not (d["model"] == "say \"hi\" \\ back\nslash é" and d["output"] == "q\"uote\\.h5"))' \
    && ok "--json escapes quotes, backslashes, newlines and non-ASCII" \
    || bad "--json with odd names: $(head -c 300 quoted.json) $(cat quoted.err)"

# memcheck of a whole run with episodes and JSON
if [ -z "${CR_NO_VALGRIND:-}" ] && command -v valgrind >/dev/null 2>&1; then
    valgrind -q --error-exitcode=9 "$CRADLE" run --json -o v.h5 > /dev/null 2> vg.txt
    [ $? -eq 0 ] && ok "valgrind: cradle run --json is clean" || bad "valgrind: $(head -5 vg.txt)"
fi

# -o, and a second file name given without -o
"$CRADLE" run -q -o other.h5 "$DATA/two-balls.yaml" && [ -f other.h5 ] && ok "-o FILE" || bad "-o FILE"
"$CRADLE" run "$DATA/two-balls.yaml" out2.h5 2> err.txt; st=$?
[ $st -eq 2 ] && grep -q -- "-o out2.h5" err.txt && [ ! -e out2.h5 ] \
    && ok "run MODEL OUT.h5 suggests -o (exit 2)" || bad "run MODEL OUT.h5: status $st, $(cat err.txt)"

# bad input: one line naming file, line and field; exit 3; no file
check_bad() { # file expected-substring...
    f=$1
    shift
    rm -f out.h5
    "$CRADLE" run -o out.h5 "$f" > stdout.txt 2> stderr.txt
    status=$?
    if [ $status -ne 3 ]; then bad "$f: exit status $status, want 3"; return; fi
    if [ -e out.h5 ] || ! no_temp; then bad "$f: output file written"; return; fi
    if [ "$(wc -l < stderr.txt)" -ne 1 ]; then bad "$f: not one line: $(cat stderr.txt)"; return; fi
    for s in "$@"; do
        grep -qF -- "$s" stderr.txt || { bad "$f: '$s' not in: $(cat stderr.txt)"; return; }
    done
    ok "$f refused (status 3): $(cat stderr.txt)"
}
check_bad "$DATA/nope.yaml" "nope.yaml" "cannot open"
check_bad "$DATA/bad-syntax.yaml" "bad-syntax.yaml:4:" "syntax"
check_bad "$DATA/negative-mass.yaml" "negative-mass.yaml:4:" "balls[1].mass"
check_bad "$DATA/missing-field.yaml" "missing-field.yaml:7:" "balls[1].radius" "missing"
check_bad "$DATA/overlap.yaml" "overlap.yaml:4:" "balls[1].x" "interpenetrates"
# asks that cannot be met are bounded (issue 14): no endless rows, no overflow, no 2 GB parse
sed 's/^integration:.*/output: {interval: 1.0e-300}\nintegration: {t_end: 1.0e-3}/' "$MODELS/three-ball-chain.yaml" > interval.yaml
# the floor needs the engine's contact time scale, found at the run's start:
# the message still names the file's line (issue 23 item 8), for a chain, a
# pool and a rigid run, and the --set that gave it
check_bad interval.yaml "interval.yaml:17: output.interval: 1e-300 s" "millionth"
# integration.accuracy (issue 24): out of range, given with rtol, on a pool
sed 's/^  rtol: 1.0e-10$/  accuracy: 1.0e-12/; /^  atol:/d' "$MODELS/newton-cradle-5.yaml" > acc-range.yaml
check_bad acc-range.yaml "acc-range.yaml:26: integration.accuracy" "must lie in [1e-10, 0.01]"
sed 's/^  atol: 1.0e-12$/  accuracy: 1.0e-6/' "$MODELS/newton-cradle-5.yaml" > acc-both.yaml
check_bad acc-both.yaml "acc-both.yaml:27: integration.accuracy" "not both (rtol on line 26)"
sed 's/^  rtol: 1.0e-10$/  accuracy: 1.0e-6/; /^  atol:/d' "$MODELS/pool-bernoulli.yaml" > acc-pool.yaml
check_bad acc-pool.yaml "acc-pool.yaml:23: integration.accuracy" "chains (dim 1) only"
check_bad_set() { # label expected-substring model --set...
    label=$1 want=$2
    shift 2
    "$CRADLE" run -o out.h5 "$@" > stdout.txt 2> stderr.txt
    status=$?
    [ $status -eq 3 ] && [ ! -e out.h5 ] && [ "$(wc -l < stderr.txt)" -eq 1 ] &&
        grep -qF -- "$want" stderr.txt && ok "$label refused (status 3): $(cat stderr.txt)" ||
        bad "$label: status $status: $(cat stderr.txt)"
}
check_bad_set "--set integration.accuracy=1" "cradle: --set integration.accuracy=1: integration.accuracy: must lie in" \
    "$MODELS/newton-cradle-5.yaml" --set integration.accuracy=1
check_bad_set "--set output.interval (chain)" "cradle: --set output.interval=1e-15: output.interval: 1e-15 s is below" \
    "$MODELS/newton-cradle-5.yaml" --set output.interval=1e-15
check_bad_set "--set output.interval (pool)" "cradle: --set output.interval=1e-15: output.interval: 1e-15 s is below" \
    "$MODELS/pool-bernoulli.yaml" --set output.interval=1e-15
check_bad_set "output.interval of a rigid run" "cradle: interval.yaml:17: output.interval: 1e-300 s is below" \
    interval.yaml --rigid newton
sed 's/^integration:.*/output: {interval: 1.0e-5}\nintegration: {t_end: 1.0e+9}/' "$MODELS/three-ball-chain.yaml" > rows.yaml
check_bad rows.yaml "rows.yaml:17: output.interval: 1e-05 s asks for 1e+14 rows"
# mass, radius, position and speed within 1e-100 .. 1e100: the field that gave
# the number out of range, or the generator entry that computed it
printf 'balls:\n  - {mass: 1.0e308, radius: 0.01, x: 0, v: 1.0e308}\n  - {mass: 1.0e308, radius: 0.01, x: 0.03}\n' > huge.yaml
check_bad huge.yaml "huge.yaml:2: balls[0].mass: must lie within 1e-100 .. 1e+100 in SI units (got 1e+308)"
printf 'balls:\n  - {mass: 1, radius: 0.01, x: 0, v: 1}\n  - {mass: 1, radius: 0.01,\n     x: 0.03, v: -2e100}\n' > fast.yaml
check_bad fast.yaml "fast.yaml:4: balls[1].v: must lie within -1e+100 .. 1e+100 in SI units (got -2e+100)"
printf 'dim: 2\nbodies:\n  - {mass: 1, radius: 0.1, x: [0, 0], v: [1, 0]}\n  - {mass: 1, radius: 1.0e-101, x: [1, 0]}\n' > tiny-disc.yaml
check_bad tiny-disc.yaml "tiny-disc.yaml:4: bodies[1].radius: must lie within 1e-100 .. 1e+100"
printf 'discs:\n  - {mass: 1, radius: 0.1, x: 0, y: 0, vx: 1}\n  - {mass: 1, radius: 0.1, x: 1,\n     y: 2.0e+100}\n' > far-disc.yaml
check_bad far-disc.yaml "far-disc.yaml:4: discs[1].y: must lie within -1e+100 .. 1e+100"
printf 'chain:\n  count: 30\n  mass: 1\n  radius: 0.01\n  spacing: 1.0e+99\n  striker: {velocity: 1}\n' > far-chain.yaml
check_bad far-chain.yaml "far-chain.yaml:2: chain: gives a position of 1.1e+100, outside -1e+100 .. 1e+100"
check_bad_set "--set chain.mass" "cradle: --set chain.mass=1e-120: chain.mass: must lie within 1e-100 .. 1e+100 in SI units (got 1e-120)" \
    "$MODELS/newton-cradle-5.yaml" --set chain.mass=1e-120
check_bad_set "--set chain.striker.velocity" "cradle: --set chain.striker.velocity=3e100: chain.striker.velocity: must lie within" \
    "$MODELS/newton-cradle-5.yaml" --set chain.striker.velocity=3e100
check_bad_set "a rod's element mass" "glocker-rods.yaml:12: rods[0]: gives a mass of 1e-101, outside 1e-100 .. 1e+100 in SI units (with --set rods[0].mass=1e-99)" \
    "$MODELS/glocker-rods.yaml" --set 'rods[0].mass=1e-99' --set 'rods[0].elements=100'
check_bad_set "three_disc speed" "three_disc.speed: must lie within -1e+100 .. 1e+100 in SI units (got 1e+101)" \
    "$DATA/three-disc.yaml" --set three_disc.speed=1e101
printf 'balls:\n  - {wall: true, x: 0}\n  - {wall: true, x: 0.03}\n  - {mass: 1, radius: 0.01, x: 0.05}\n' > walls.yaml
check_bad walls.yaml "walls.yaml:3:" "balls[1]" "two walls"
printf 'chain: {count: 20000000, mass: 1, radius: 0.01, striker: {velocity: 1}}\n' > count.yaml
check_bad count.yaml "count.yaml:1:" "chain.count" "1000000"
printf 'discs:\n  - {mass: 1, radius: 0.1, x: 0, y: 0}\n  - {mass: 1, radius: 0.1, x: 0.15, y: 0}\n' > overlap-pool.yaml
check_bad overlap-pool.yaml "overlap-pool.yaml:3:" "discs[1]" "interpenetrates"
printf 'discs:\n  - {mass: 1, radius: 0.1, x: 0, y: 0}\nwalls:\n  - {normal: [1, 0], offset: 0.5}\n' > outside-pool.yaml
check_bad outside-pool.yaml "outside-pool.yaml:4:" "walls[0]" "outside"

# bad output paths (issue 14): refused before any work (the 3000-bead model would
# run for a minute), one line, exit 3, nothing of the user's changed
check_out() { # label output expected-substring (run in user/, messages kept outside)
    label=$1 out=$2 want=$3
    before=$(cd user && find . -exec stat -c '%n %s %Y %F' {} + | sort | md5sum)
    (cd user && timeout 10 "$CRADLE" run -o "$out" model.yaml > ../stdout.txt 2> ../stderr.txt)
    st=$?
    after=$(cd user && find . -exec stat -c '%n %s %Y %F' {} + | sort | md5sum)
    if [ $st -eq 3 ] && [ "$(wc -l < stderr.txt)" -eq 1 ] && grep -qF -- "$want" stderr.txt \
        && [ "$before" = "$after" ]; then
        ok "-o $label refused at once: $(cat stderr.txt)"
    else
        bad "-o $label: status $st, changed: $([ "$before" = "$after" ] && echo no || echo yes), $(cat stderr.txt)"
    fi
}
mkdir -p user/adir
mkfifo user/afifo
cp "$DATA/long-run.yaml" user/model.yaml
check_out "the model file" model.yaml "the model file itself"
check_out "a folder" adir "is a folder"
check_out "a folder/" adir/ "names a folder"
check_out "''" "" "empty"
check_out "a FIFO" afifo "not a regular file"
check_out "a missing folder" nodir/x.h5 "does not exist"

# a planar pool: the same run path, summary, JSON, HDF5 and law cases
"$CRADLE" run -o pool.h5 "$MODELS/pool-bernoulli.yaml" > pool.txt 2>&1 \
    && grep -q "3 discs, 1 wall (planar)" pool.txt && h5dump -d /contacts pool.h5 >/dev/null 2>&1 \
    && ok "pool model runs and writes /contacts" || bad "pool run: $(cat pool.txt)"
grep -q "3 impact episodes" pool.txt && h5dump -d /episodes pool.h5 >/dev/null 2>&1 \
    && ok "pool episodes printed and stored" || bad "pool episodes: $(cat pool.txt)"
"$CRADLE" run --json -o pool2.h5 "$MODELS/pool-bernoulli.yaml" > pool.json
"$PY" -c 'import json,sys; d=json.load(open("pool.json")); c=d["episodes"][0]["contacts"][0]; sys.exit(not (d["engine"] == "pool" and d["dim"] == 2 and len(c["vector_impulse"]) == 2))' \
    && ok "pool --json: engine pool, dim 2, vector impulses" || bad "pool --json: $(head -c 300 pool.json)"
"$CRADLE" run -q --cases pool-cases -o pool3.h5 "$MODELS/pool-bernoulli.yaml" 2> cases.err
n=$(ls pool-cases/*.yaml 2>/dev/null | wc -l)
accepted=0
for c in pool-cases/*.yaml; do
    "$CRADLE" law energetic "$c" > /dev/null 2>&1 && accepted=$((accepted + 1))
done
[ "$n" -eq 3 ] && [ "$accepted" -eq 3 ] && ok "pool --cases: 3 law cases, each accepted by cradle law" \
    || bad "pool --cases: $n cases, $accepted accepted ($(cat cases.err))"

# closing the loop: an episode exported as a law case; the energetic law with the
# measured kappa and alpha gives back the compliant u+ (001 eq. 17-18; 1e-8)
"$CRADLE" run --json --cases cases-out -o loop.h5 "$MODELS/three-ball-chain.yaml" > loop.json 2> loop.err
"$CRADLE" law energetic cases-out/episode-0000.yaml --json > law.json 2>> loop.err
"$PY" -c '
import json, sys
a = json.load(open("loop.json"))["episodes"][0]["velocity_after"]
b = json.load(open("law.json"))["outcomes"][0]["velocity"]
sys.exit(not (len(a) == len(b) == 3 and max(abs(x - y) for x, y in zip(a, b)) <= 1e-8))' \
    && ok "episode -> law case -> energetic law reproduces the compliant u+ to 1e-8" inv \
    || bad "closing the loop: $(head -c 200 loop.json) / $(head -c 200 law.json) ($(cat loop.err))"

# a solver failure keeps what was computed, in a valid file that says why (exit 4)
printf 'name: fail\nchain: {count: 3, mass: 1.0, radius: 0.5, striker: {count: 1, velocity: 1.0, gap: 1.0e-3}}\ncontact: {K: 1.0, n: 1.5, C: 1.0e300}\n' > fail.yaml
"$CRADLE" run -o failed.h5 fail.yaml > fail.txt 2>&1; st=$?
[ $st -eq 4 ] && [ "$(status_of failed.h5)" = failed ] && h5dump -a /error failed.h5 2>/dev/null | grep -q CVode \
    && grep -q "kept in failed.h5" fail.txt && no_temp \
    && ok "solver failure: exit 4, failed.h5 valid with status failed and the error" \
    || bad "solver failure: status $st, $(cat fail.txt)"

# a stale temporary of a dead process is kept under another name, never deleted
echo stale > kept.h5.tmp.999999
"$CRADLE" run -q -o kept.h5 "$DATA/two-balls.yaml" 2> stale.txt
[ -f kept.h5.partial-999999.h5 ] && [ -f kept.h5 ] && grep -q "partial-999999" stale.txt \
    && ok "stale temporary renamed and reported: $(cat stale.txt)" || bad "stale temporary: $(ls) $(cat stale.txt)"

# Ctrl-C, SIGTERM, SIGHUP (a closed terminal) and SIGQUIT: the run stops and keeps
# a valid file whose status says interrupted (exit 130). The signal comes after
# 1 s: long-run.yaml took about that (0.5 s alone) once the trajectory writer got
# faster (issue 22), so it integrates the whole chain at every step (~17 s alone).
for sig in INT TERM HUP QUIT; do
    "$CRADLE" run -o "sig-$sig.h5" "$DATA/long-run.yaml" --set integration.active_region=off \
        > int.txt 2>&1 &
    pid=$!
    sleep 1
    kill -"$sig" $pid
    wait $pid
    st=$?
    if [ $st -eq 130 ] && [ "$(status_of "sig-$sig.h5")" = interrupted ] && no_temp; then
        ok "SIG$sig: exit 130, valid file with status interrupted, no temporary left"
    else
        bad "SIG$sig: status $st, $(cat int.txt)"
    fi
done

# ---- cradle compare (issue 9): every law on every episode, calibrated and predictive
"$CRADLE" compare "$MODELS/three-ball-chain.yaml" > cmp.txt 2> cmp.err
st=$?
[ $st -eq 0 ] && grep -q "^  energetic  *calibrated" cmp.txt && grep -q "^over 1 episode" cmp.txt \
    && ok "compare MODEL: table with the energetic law, summary over the run" \
    || bad "compare MODEL: status $st, $(head -c 300 cmp.txt) $(cat cmp.err)"
# the best row comes first: the calibrated energetic law reproduces u+ (an identity)
[ "$(awk '/^  law /{getline; print $1, $2; exit}' cmp.txt)" = "energetic calibrated" ] \
    && ok "compare: best first (calibrated energetic on top)" || bad "compare order: $(sed -n 1,5p cmp.txt)"
"$CRADLE" run -q -o run-c.h5 "$MODELS/damped-cradle.yaml"
"$CRADLE" compare run-c.h5 -o cmp-out.h5 -q && "$PY" -c '
import h5py, sys
f = h5py.File("cmp-out.h5", "r")
g = f["comparison"]
rows, ep, summ = g["rows"][:], g["episodes"][:], g["summary"][:]
laws = set(r["law"].decode() for r in rows)
ok = len(rows) == len(ep) * len(summ) and {"newton", "poisson", "energetic", "global-dissipation", "lzb"} <= laws
ok = ok and g["episode/0000/velocity"].shape == (ep[0]["row_count"], ep[0]["dofs"])
ok = ok and "compare" in g.attrs["command"] and f.attrs["status"] == "complete"
sys.exit(not ok)' && ok "compare RUN.h5 -o NEW.h5: /comparison read by h5py (rows, episodes, summary, vectors)" \
    || bad "/comparison via h5py"
# added to the run file itself through a copy; a rerun replaces it and records its parameters
sum_before=$(h5dump -d /episodes run-c.h5 | md5sum)
"$CRADLE" compare run-c.h5 -o run-c.h5 -q && "$CRADLE" compare run-c.h5 -o run-c.h5 -q --episode 0 \
    && "$PY" -c '
import h5py, sys
g = h5py.File("run-c.h5", "r")["comparison"]
sys.exit(not ("--episode 0" in g.attrs["command"] and len(g["episodes"]) == 1))' \
    && [ "$(h5dump -d /episodes run-c.h5 | md5sum)" = "$sum_before" ] && no_temp \
    && ok "compare RUN.h5 -o RUN.h5: replaced through a copy, rerun replaces /comparison, episodes intact" \
    || bad "compare in place"
"$CRADLE" compare run-c.h5 --csv > cmp.csv
n_rows=$(h5dump -H -d /comparison/rows cmp-out.h5 | sed -n 's/.*DATASPACE  SIMPLE { ( \([0-9]*\) ).*/\1/p' | head -1)
[ "$(grep -c '^episode,' cmp.csv)" -eq 1 ] && [ "$(wc -l < cmp.csv)" -eq $((n_rows + 1)) ] \
    && "$PY" -c 'import csv,sys; r=list(csv.DictReader(open("cmp.csv"))); sys.exit(not (r and all(x["mode"] in ("calibrated","predictive") for x in r)))' \
    && ok "--csv: one header line, one line per row ($n_rows)" || bad "--csv: $(head -3 cmp.csv)"
# LZB from the pair laws in both modes: the damped cradle's two-body e, answered on every episode
"$PY" -c '
import csv, sys
r = [x for x in csv.DictReader(open("cmp.csv")) if x["law"] == "lzb"]
modes = set(x["mode"] for x in r)
sys.exit(not (r and modes == {"calibrated", "predictive"} and all(x["status"] in ("ok", "out-of-range") and float(x["error"]) < 1 for x in r)))' \
    && ok "--csv: lzb rows in both modes, answered" || bad "--csv lzb: $(grep ',lzb,' cmp.csv | head -2)"
"$CRADLE" compare run-c.h5 --json --error-estimate > cmp.json
"$PY" -c '
import json, sys
d = json.load(open("cmp.json"))
e = d["episodes"][0]
sys.exit(not (e["accuracy"]["kappa"] is not None and e["accuracy"]["kappa"] < 1e-6 and len(e["rows"]) > 8 and d["summary"]))' \
    && ok "--json --error-estimate: parsed, accuracy of kappa below 1e-6" || bad "--json: $(head -c 300 cmp.json)"
# run --compare: one go
"$CRADLE" run -q --compare -o run-cc.h5 "$MODELS/three-ball-chain.yaml" \
    && h5dump -H -d /comparison/rows run-cc.h5 >/dev/null 2>&1 && [ "$(status_of run-cc.h5)" = complete ] \
    && ok "run --compare writes /comparison into the run file" || bad "run --compare"
# fields act during an episode: the table says what u+ the laws are measured against
"$CRADLE" compare "$MODELS/pendulum-cradle.yaml" --episode 0 > cmp-pend.txt 2>&1 \
    && grep -q "measured against u+ - M^-1 int F_field dt" cmp-pend.txt \
    && ok "compare on the pendulum cradle: the table says u+ - M^-1 int F_field dt" \
    || bad "compare field note: $(head -c 300 cmp-pend.txt)"
# lzb on a run file's episode: the pair laws from /contacts (damped: two-body e < 1)
"$CRADLE" law lzb --input run-c.h5 --episode 0 --json > law-lzb.json && "$PY" -c '
import json, sys
d = json.load(open("law-lzb.json"))
sys.exit(not (d["status"] == "ok" and all(0 < e < 1 for e in d["parameters"]) and d["error"] < 1))' \
    && ok "law lzb --input RUN.h5 --episode 0: energetic restitutions from the pair laws" \
    || bad "law lzb --episode: $(head -c 300 law-lzb.json)"
# cradle law NAME --input RUN.h5 --episode K: the parameters measured on the episode
"$CRADLE" law energetic --input run-c.h5 --episode 0 --json > law-ep.json \
    && "$PY" -c '
import json, sys
d = json.load(open("law-ep.json"))
sys.exit(not (d["status"] == "ok" and d["error"] < 1e-8))' \
    && ok "law energetic --input RUN.h5 --episode 0: the measured u+ back (error < 1e-8)" inv \
    || bad "law --episode: $(cat law-ep.json)"
# bad input: one line, exit 3, nothing written, the run file unchanged
check_cmp_bad() { # label want-substring args...
    label=$1 want=$2
    shift 2
    before=$(md5sum run-c.h5)
    rm -f new.h5
    "$CRADLE" "$@" > stdout.txt 2> stderr.txt
    st=$?
    if [ $st -eq 3 ] && [ "$(wc -l < stderr.txt)" -eq 1 ] && grep -qF -- "$want" stderr.txt \
        && [ "$(md5sum run-c.h5)" = "$before" ] && [ ! -e new.h5 ] && no_temp; then
        ok "$label refused (status 3): $(cat stderr.txt)"
    else
        bad "$label: status $st, $(cat stderr.txt)"
    fi
}
check_cmp_bad "compare --episode out of range" "out of range" compare run-c.h5 --episode 7 -o run-c.h5
check_cmp_bad "compare --episode out of range, new file" "out of range" compare run-c.h5 --episode 7 -o new.h5
check_cmp_bad "law --episode out of range" "out of range" law newton --input run-c.h5 --episode 3
check_cmp_bad "law without parameters (energetic, predictive)" "no-prediction" \
    law energetic --input run-c.h5 --episode 0 --mode predictive
printf 'balls:\n  - {mass: 1, radius: 0.1, x: 0, v: -1}\n  - {mass: 1, radius: 0.1, x: 0.5, v: 1}\nintegration: {t_end: 0.01}\n' > apart.yaml
"$CRADLE" run -q -o apart.h5 apart.yaml
cp run-c.h5 keep.h5
check_cmp_bad "a run file without episodes" "no impact episodes" compare apart.h5 -o new.h5
check_cmp_bad "a model without episodes" "no impact episodes" compare apart.yaml -o new.h5
echo "not hdf5" > fake.h5
check_cmp_bad "a .h5 file that is not HDF5 (read as a model)" "fake.h5" compare fake.h5 -o new.h5
"$CRADLE" run -q -o notrun.h5 "$DATA/two-balls.yaml" && h5copy -i notrun.h5 -o model-only.h5 -s /model -d /model 2>/dev/null
[ -f model-only.h5 ] && check_cmp_bad "an HDF5 file that is no cradle run file" "not a cradle run file" compare model-only.h5 -o new.h5

# --cases: measured e_N and e_P written as they are (e_P > 1 with superelastic: true, not
# clamped to 1); `cradle law poisson CASE` takes e_P and gives what `law poisson --input
# RUN.h5 --episode 0` gives (the same episode, the same coefficients)
"$CRADLE" run -q --cases cases-5 -o c5.h5 2> /dev/null
"$CRADLE" law poisson cases-5/episode-0000.yaml --json > lp-case.json \
    && "$CRADLE" law poisson --input c5.h5 --episode 0 --json > lp-ep.json && "$PY" -c '
import json, sys
t = open("cases-5/episode-0000.yaml").read()
law = t[t.index("\nlaw:"):t.index("\nmeasured:")]
m = t[t.index("\nmeasured:"):]
ep = float(m.split("e_P: [")[1].split(",")[0])
ep_law = float(law.split("poisson_restitution: [")[1].split(",")[0])
a = json.load(open("lp-case.json"))["outcomes"][0]["velocity"]
b = json.load(open("lp-ep.json"))["velocity"]
same = all(abs(x - y) <= 1e-12 * max(1, abs(y)) for x, y in zip(a, b))
sys.exit(not (ep > 1.0 and ep_law == ep and "superelastic: true" in law and "out_of_range: [0]" in m and same))' \
    && ok "--cases: e_P > 1 as it is (superelastic); law poisson CASE = law poisson --input RUN.h5 --episode 0" \
    || bad "--cases: $(grep -A4 '^law:' cases-5/episode-0000.yaml) $(head -c 200 lp-case.json) $(head -c 200 lp-ep.json)"
# the cases carry LZB's pair laws as compare maps them: `law lzb CASE` (at the law's
# default tolerance 1e-10) agrees with compare's LZB (at 1e-8, within ~1e-6 of exact)
"$CRADLE" law lzb cases-5/episode-0000.yaml --json > lz-case.json \
    && "$CRADLE" law lzb --input c5.h5 --episode 0 --json > lz-ep.json && "$PY" -c '
import json, sys
t = open("cases-5/episode-0000.yaml").read()
e = [float(x) for x in t.split("energetic_restitution: [")[1].split("]")[0].split(",")]
a = json.load(open("lz-case.json"))["outcomes"][0]["velocity"]
b = json.load(open("lz-ep.json"))["velocity"]
sys.exit(not (e == [1.0] * 4 and "stiffness: [" in t and all(abs(x - y) <= 1e-5 for x, y in zip(a, b))))' \
    && ok "--cases: the pair laws for lzb (e = 1 elastic); law lzb CASE = law lzb --input RUN.h5 --episode 0 to 1e-5" self \
    || bad "--cases lzb: $(head -c 300 lz-case.json) $(head -c 300 lz-ep.json)"
# memcheck of compare on a run file with /comparison written, and of law --episode
if [ -z "${CR_NO_VALGRIND:-}" ] && command -v valgrind >/dev/null 2>&1; then
    valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite \
        "$CRADLE" compare run-c.h5 --json -o vg-cmp.h5 > /dev/null 2> vg.txt \
        && valgrind -q --error-exitcode=9 "$CRADLE" law poisson --input run-c.h5 --episode 0 > /dev/null 2>> vg.txt \
        && ok "valgrind: cradle compare -o and law --episode are clean" || bad "valgrind compare: $(head -5 vg.txt)"
fi
# An installed (or staged, or moved) executable takes the default model from
# its own tree, BINDIR/../share/cradle/models, not the build machine's.
mkdir -p inst/bin inst/share/cradle/models
cp "$CRADLE" inst/bin/cradle
sed 's/^name: .*/name: staged-default/' "$(dirname "$0")/../models/newton-cradle-5.yaml" \
    > inst/share/cradle/models/newton-cradle-5.yaml
(cd inst && ./bin/cradle run -q -o staged.h5 && ./bin/cradle help run) > staged.txt 2>&1
if grep -q "default: $PWD/inst/bin/../share/cradle/models/newton-cradle-5.yaml" staged.txt \
    && h5dump -a /model_name inst/staged.h5 2>/dev/null | grep -q staged-default; then
    ok "default model beside the executable (a staged install uses its own)"
else
    bad "staged default model: $(head -c 300 staged.txt)"
fi
rm -rf inst staged.txt

finish test-cli
