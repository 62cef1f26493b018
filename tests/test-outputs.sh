#!/bin/sh
# What happens to the file at -o (issue 23 items 5-8; docs/errors.md): a full
# disk exits 4 without a signal and leaves the old file byte for byte; one
# writer per output at a time; an interrupted run never replaces a file that
# was there (OUT.partial-PID.h5, said); a complete rerun does; a symbolic link
# given as -o stays a link; compare --rigid -o does all of this too; a sweep whose base model no point can read is
# refused before anything is written; the 64 MiB input cap holds for files and
# pipes; duplicate sweep inputs, repeated lookup keys and recursive YAML
# aliases are refused with one line; an interrupted run keeps the episodes
# and collisions monitored up to the stop; a stop signal ends a run promptly.
# usage: test-outputs.sh CRADLE SOURCE_ROOT
set -u
CRADLE=$1
ROOT=$2
M=$ROOT/models
. "$(dirname "$0")/shell-lib.sh"

# status CMD...: runs it with stdin closed, stdout to out.txt, stderr to err.txt
run() { "$@" > out.txt 2> err.txt < /dev/null; }
one_line() { [ "$(wc -l < err.txt)" -eq 1 ]; }

# ---- a full disk: exit 4, no signal, the old file unchanged (root: a tmpfs) -------------
disk=$work/full
mkdir -p "$disk"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=600k tmpfs "$disk" 2> /dev/null; then
    trap 'umount "$disk" 2>/dev/null; rm -rf "$work"' EXIT
    cat > big-sweep.yaml <<EOF
name: big
model: $M/three-ball-chain.yaml
axes:
  - {field: 'balls[1].mass', key: m2/m1, values: [0.5, 0.7, 1, 1.5, 2, 3]}
  - {field: 'balls[2].mass', key: m3/m1, values: [0.5, 0.7, 1, 1.5, 2, 3]}
EOF
    "$CRADLE" run -q "$M/newton-cradle-5.yaml" -o run.h5
    signals=0 changed=0 lines=0 statuses=""
    # the disk filled to every 20 KiB from 200 to 560 KiB: each command either
    # succeeds or fails with exit 4, one line, no signal, OUT as it was (but
    # for run --compare, whose run completes and replaces OUT before the
    # /comparison it adds fails)
    for fill in $(seq 200 20 560); do
        rm -rf "${disk:?}"/*
        "$CRADLE" run -q "$M/newton-cradle-5.yaml" -o "$disk/out.h5"
        head -c "${fill}k" /dev/zero > "$disk/filler" 2> /dev/null
        sum=$(sha256sum < "$disk/out.h5")
        for cmd in "run -q $M/pendulum-cradle-2.yaml -o $disk/out.h5" \
            "compare run.h5 -q -o $disk/out.h5" \
            "run -q $M/newton-cradle-5.yaml --compare -o $disk/out.h5" \
            "sweep -q big-sweep.yaml -j 1 -o $disk/s.h5"; do
            # shellcheck disable=SC2086
            run "$CRADLE" $cmd
            st=$?
            statuses="$statuses $st"
            [ $st -ge 128 ] && signals=$((signals + 1)) && echo "  signal: fill $fill: $cmd"
            if [ $st -ne 0 ]; then
                one_line || { lines=$((lines + 1)); echo "  not one line: $(cat err.txt)"; }
                case $cmd in *--compare*) ;; *)
                    [ "$(sha256sum < "$disk/out.h5")" = "$sum" ] ||
                        { changed=$((changed + 1)); echo "  changed: fill $fill: $cmd"; } ;;
                esac
            fi
            [ $st -eq 0 ] || [ $st -eq 4 ] || echo "  status $st: fill $fill: $cmd: $(cat err.txt)"
        done
    done
    n4=$(echo "$statuses" | tr ' ' '\n' | grep -c '^4$')
    [ $signals -eq 0 ] && [ $changed -eq 0 ] && [ $lines -eq 0 ] && [ "$n4" -gt 0 ] &&
        ! echo "$statuses" | tr ' ' '\n' | grep -qv '^[04]*$' &&
        ok "full disk at 19 fillings x 4 commands: $n4 exit 4, none by a signal, the old file unchanged" ||
        bad "full disk: $signals signals, $changed changed, $lines not one line, statuses:$statuses"
    umount "$disk"
else
    echo "skip the full disk (needs root and a tmpfs mount)"
fi

# ---- one writer at a time; an interrupted run keeps the file that was there -----------
"$CRADLE" run -q "$M/newton-cradle-5.yaml" -o out.h5
old=$(sha256sum < out.h5)
"$CRADLE" run -q "$M/pendulum-cradle-7.yaml" --set integration.t_end=1000 -o out.h5 2> first.txt &
pid=$!
i=0
while [ ! -e out.h5.lock ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
sleep 0.3
run "$CRADLE" run -q "$M/newton-cradle-5.yaml" -o out.h5
st=$?
[ $st -eq 3 ] && one_line && grep -q "^cradle: out.h5: another cradle (pid $pid) is writing it: refusing to start a second writer$" err.txt &&
    [ "$(sha256sum < out.h5)" = "$old" ] && ok "a second writer of out.h5 is refused, exit 3, one line" ||
    bad "second writer: status $st, $(cat err.txt)"
run "$CRADLE" sweep -q "$ROOT/tests/data/sweep-test.yaml" -o out.h5
[ $? -eq 3 ] && grep -q "another cradle (pid $pid) is writing it" err.txt &&
    ok "a sweep onto an output being written is refused too" || bad "sweep as second writer: $(cat err.txt)"
kill -INT $pid
wait $pid
st=$?
partial=out.h5.partial-$pid.h5
[ $st -eq 130 ] && [ "$(sha256sum < out.h5)" = "$old" ] && [ "$(status_of "$partial")" = interrupted ] &&
    grep -q "partial results kept in $partial (out.h5 is unchanged)" first.txt &&
    [ ! -e out.h5.lock ] && [ ! -e out.h5.keep-$pid ] &&
    ok "an interrupted run keeps out.h5 as it was, its rows in $partial, and says so" ||
    bad "interrupted over a complete file: status $st, $(cat first.txt); $(ls)"
run "$CRADLE" run -q "$M/three-ball-chain.yaml" -o out.h5
[ $? -eq 0 ] && [ "$(sha256sum < out.h5)" != "$old" ] && [ "$(status_of out.h5)" = complete ] &&
    ok "a complete rerun replaces out.h5" || bad "complete rerun: $(cat err.txt)"
rm -f out.h5.partial-*

# ---- an interrupted run keeps the episodes and collisions monitored up to the stop -------
# against the same model run to the stop's time (the same output interval, so
# the same steps): the episodes closed before the stop bit for bit, one open at
# the stop closed there with complete = 0 as at an end time
cat > same-as.py <<'EOF'
import sys
import h5py
import numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
T = float(sys.argv[3])
assert a.attrs["status"] == "interrupted" and b.attrs["status"] == "complete"
for name in ("episodes", "collisions"):
    x, y = a[name][()], b[name][()]
    assert len(x) == len(y) and len(x) > 0, f"{name}: {len(x)} rows, {len(y)} in the reference"
    assert (x["complete"] == y["complete"]).all(), f"{name}: complete flags differ"
    # rows over before the last one began are the same bit for bit; the last
    # ones end in (or have events in) the reference's last step, which its end
    # time shortens: equal to the integration's accuracy (an ulp of t_start,
    # 1e-7 of an open episode's T+ seen)
    early = x["t_end"] < x["t_start"][-1]
    for f in ("t_start", "t_end", "T_minus", "T_plus", "kappa"):
        assert (x[f][early] == y[f][early]).all(), f"{name}: {f} of an earlier row differs"
        assert np.allclose(x[f][~early], y[f][~early], rtol=1e-6, atol=1e-9 * T), f"{name}: {f} of a last row"
    print(f"{name}: {len(x)} rows, {int((x['complete'] == 0).sum())} open at the stop")
for k in range(len(a["episodes"])):
    g = "episode/%04d" % k
    assert (a[g + "/bodies"][()] == b[g + "/bodies"][()]).all(), g
EOF
for c in "pendulum-cradle-3.yaml --set integration.t_end=1000 --set output.interval=0.01" \
    "bead-column.yaml --set chain.count=300 --set integration.t_end=10 --set output.interval=0.001"; do
    model=${c%% *} opts=${c#* }
    rm -f int.h5 ref.h5
    # shellcheck disable=SC2086
    "$CRADLE" run -q "$M/$model" $opts -o int.h5 2> int.txt &
    pid=$!
    sleep 0.5
    kill -TERM $pid
    wait $pid
    st=$?
    # the stop's time to the last bit (the message gives 9 digits)
    T=$("$PY" -c "import h5py; print(repr(float(h5py.File('int.h5', 'r').attrs['t_end'])))" 2> /dev/null)
    # shellcheck disable=SC2086
    [ $st -eq 130 ] && [ -n "$T" ] && "$CRADLE" run -q "$M/$model" $opts --set integration.t_end="$T" -o ref.h5 &&
        "$PY" same-as.py int.h5 ref.h5 "$T" > same.txt 2>&1 &&
        ok "SIGTERM on $model: /episodes and /collisions as a run to the stop's time" self &&
        echo "  stopped at t = $T s: $(tr '\n' ';' < same.txt)" ||
        bad "interrupted $model: status $st, $(cat int.txt) $(cat same.txt 2>/dev/null)"
done

# ---- a symbolic link given as -o stays a link ---------------------------------------------
mkdir -p real
"$CRADLE" run -q "$M/newton-cradle-5.yaml" -o real/target.h5
ln -s real/target.h5 link.h5
before=$(sha256sum < real/target.h5)
run "$CRADLE" run -q "$M/three-ball-chain.yaml" -o link.h5
[ $? -eq 0 ] && [ -L link.h5 ] && [ "$(readlink link.h5)" = real/target.h5 ] &&
    [ "$(sha256sum < real/target.h5)" != "$before" ] && [ "$(status_of link.h5)" = complete ] &&
    ok "run -o LINK writes through to the link's target; the link stays" || bad "run -o link: $(ls -l)"
run "$CRADLE" compare link.h5 -q -o link.h5
[ $? -eq 0 ] && [ -L link.h5 ] && h5ls real/target.h5 | grep -q comparison &&
    ok "compare RUN -o LINK: /comparison in the target, the link stays" || bad "compare -o link: $(cat err.txt)"
ln -s real/sweep.h5 sweep-link.h5
run "$CRADLE" sweep -q "$ROOT/tests/data/sweep-test.yaml" -j 1 -o sweep-link.h5
[ $? -eq 0 ] && [ -L sweep-link.h5 ] && [ -f real/sweep.h5 ] &&
    ok "sweep -o LINK writes the target (made), the link stays" || bad "sweep -o link: $(cat err.txt)"
ln -s real/missing/x.h5 dangling.h5
run "$CRADLE" run -q "$M/three-ball-chain.yaml" -o dangling.h5
[ $? -eq 3 ] && one_line && [ -L dangling.h5 ] && ok "a link into a missing folder: exit 3, one line" ||
    bad "dangling link: $(cat err.txt)"

# ---- compare MODEL --rigid LAW -o OUT writes OUT as run -o does ----------------------------
# the lock, a run that does not finish beside the file that was there, the
# symbolic link kept; a stop in the rigid runs, after the compliant run was
# written, puts that run beside the old file too
"$CRADLE" run -q "$M/three-ball-chain.yaml" -o cmp.h5
old=$(sha256sum < cmp.h5)
ino=$(stat -c %i cmp.h5)
"$CRADLE" compare "$M/pendulum-cradle-5.yaml" --set integration.t_end=1000 --rigid newton -q -o cmp.h5 2> first.txt &
pid=$!
i=0
while [ ! -e cmp.h5.lock ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
run "$CRADLE" run -q "$M/newton-cradle-5.yaml" -o cmp.h5
[ $? -eq 3 ] && one_line && grep -q "^cradle: cmp.h5: another cradle (pid $pid) is writing it" err.txt &&
    ok "compare --rigid -o holds the output's lock: a run on it is refused" || bad "compare --rigid lock: $(cat err.txt)"
sleep 0.3
kill -TERM $pid
wait $pid
st=$?
partial=cmp.h5.partial-$pid.h5
[ $st -eq 130 ] && [ "$(sha256sum < cmp.h5)" = "$old" ] && [ "$(status_of "$partial")" = interrupted ] &&
    grep -q "the compliant run: run interrupted at t = .*; what was computed is kept in $partial (cmp.h5 is unchanged)$" first.txt &&
    [ "$(wc -l < first.txt)" -eq 1 ] && [ ! -e cmp.h5.lock ] && [ ! -e cmp.h5.keep-$pid ] &&
    ok "compare --rigid stopped in its compliant run: cmp.h5 as it was, the run in $partial, one line" ||
    bad "compare --rigid interrupted (compliant): status $st, $(cat first.txt); $(ls)"
rm -f cmp.h5.partial-*
"$CRADLE" compare "$M/pendulum-cradle-5.yaml" --set integration.t_end=30 --rigid newton --rigid poisson --rigid mosterman -q -o cmp.h5 2> first.txt &
pid=$!
i=0 # the compliant run is committed (a new file at cmp.h5) before the rigid runs start
while [ "$(stat -c %i cmp.h5)" = "$ino" ] && [ $i -lt 600 ]; do sleep 0.02; i=$((i + 1)); done
kill -INT $pid
wait $pid
st=$?
partial=cmp.h5.partial-$pid.h5
[ $st -eq 130 ] && [ "$(sha256sum < cmp.h5)" = "$old" ] && [ "$(status_of "$partial")" = complete ] &&
    ! h5ls "$partial" | grep -q comparison && [ "$(wc -l < first.txt)" -eq 1 ] &&
    grep -q -- "--rigid [a-z]*: .*interrupted.*; the compliant run (complete, without /comparison) is kept in $partial (cmp.h5 is unchanged)$" first.txt &&
    ok "compare --rigid stopped in its rigid runs: cmp.h5 as it was, the compliant run in $partial, one line" ||
    bad "compare --rigid interrupted (rigid): status $st, $(cat first.txt); $(ls)"
rm -f cmp.h5.partial-*
run "$CRADLE" compare "$M/newton-cradle-5.yaml" --rigid newton -q -o cmp.h5
[ $? -eq 0 ] && [ "$(status_of cmp.h5)" = complete ] && h5ls cmp.h5 | grep -q comparison && [ ! -e cmp.h5.lock ] &&
    ok "a complete compare --rigid replaces cmp.h5 (with /comparison)" || bad "compare --rigid complete: $(cat err.txt)"
ln -s real/cmp-target.h5 cmp-link.h5
run "$CRADLE" compare "$M/newton-cradle-5.yaml" --rigid newton -q -o cmp-link.h5
[ $? -eq 0 ] && [ -L cmp-link.h5 ] && h5ls real/cmp-target.h5 | grep -q comparison &&
    ok "compare --rigid -o LINK writes the target, /comparison included; the link stays" ||
    bad "compare --rigid -o link: $(cat err.txt); $(ls -l cmp-link.h5)"

# ---- a sweep whose base model no point can read: refused before anything is written ------
printf 'name: self\nmodel: self.yaml\naxes:\n  - {field: contact.n, values: [1, 1.5]}\n' > self.yaml
printf 'name: h5\nmodel: real/target.h5\naxes:\n  - {field: contact.n, values: [1, 1.5]}\n' > h5.yaml
printf 'name: inline\nmodel: {balls: 3}\naxes:\n  - {field: contact.n, values: [1, 1.5]}\n' > inline.yaml
for s in self h5 inline; do
    run "$CRADLE" sweep -q $s.yaml -o $s.h5
    st=$?
    [ $st -eq 3 ] && one_line && grep -q "^cradle: $s.yaml:2: model: no point of the grid has a model that can be read" err.txt &&
        [ ! -e $s.h5 ] && ok "sweep with a base model that is not one ($s): exit 3, one line, no file" ||
        bad "sweep base $s: status $st, $(cat err.txt)"
done

# ---- duplicate sweep inputs, repeated lookup keys, recursive aliases ------------------------
printf "name: d\nmodel: $M/three-ball-chain.yaml\naxes:\n  - {field: 'balls[1].mass', key: a, values: [1, 2]}\n  - {field: 'balls[2].mass', key: a, values: [1, 2]}\n" > dupkey.yaml
printf "name: d\nmodel: $M/three-ball-chain.yaml\naxes:\n  - zip:\n    - {field: 'balls[1].mass', values: [1, 2]}\n    - {field: 'balls.1.mass', key: c, values: [1, 2]}\n" > dupfield.yaml
run "$CRADLE" sweep -q dupkey.yaml -o d1.h5
[ $? -eq 3 ] && one_line && grep -q "two inputs on the key 'a'" err.txt && [ ! -e d1.h5 ] &&
    ok "two sweep inputs with one key: exit 3, one line" || bad "duplicate key: $(cat err.txt)"
run "$CRADLE" sweep -q dupfield.yaml -o d2.h5
[ $? -eq 3 ] && one_line && grep -q "two inputs on the field 'balls.1.mass' (balls\[1\].mass and balls.1.mass)" err.txt &&
    ok "two sweep inputs on one field (two spellings): exit 3, one line" || bad "duplicate field: $(cat err.txt)"
run "$CRADLE" table lookup "$ROOT/data/restitution-gap.h5" eps=0.01 eps=0.02
[ $? -eq 2 ] && one_line && grep -q "eps given twice" err.txt && ok "a lookup key given twice: exit 2" ||
    bad "repeated lookup key: $(cat err.txt)"
run "$CRADLE" run -q "$M/three-ball-chain.yaml" --set 'name=&a [*a]' -o alias.h5
[ $? -eq 3 ] && one_line && grep -q "recursive alias" err.txt && [ ! -e alias.h5 ] &&
    ok "a recursive YAML alias in --set: exit 3, one line" || bad "recursive alias: $(cat err.txt)"

# ---- the 64 MiB input cap, a file and a pipe ---------------------------------------------------
head -c 70000000 /dev/zero | tr '\0' '#' > big.yaml
run "$CRADLE" run big.yaml -o big.h5
[ $? -eq 3 ] && grep -q "big.yaml: larger than 64 MiB" err.txt && ok "a 70 MB model file: exit 3 before reading" ||
    bad "70 MB file: $(cat err.txt)"
head -c 67108865 /dev/zero | tr '\0' '#' | "$CRADLE" run - -o big.h5 > out.txt 2> err.txt
[ $? -eq 3 ] && grep -q "larger than 64 MiB" err.txt && ok "64 MiB + 1 byte through a pipe: exit 3" ||
    bad "pipe over the cap: $(cat err.txt)"
rm -f big.yaml

# ---- a stop signal ends a large run promptly (10^5 beads; bound 2 s, measured 0.15-0.5 s) ------
# the chain engine answers a stop request after the step it is in (it ran to
# the next output row before, 0.7 s at this size), and the file still gets
# the episode open at the stop (complete = 0: the column touches the floor
# from the start, every bead in it) and its collision
"$CRADLE" run -q "$M/bead-column.yaml" --set chain.count=100000 --set chain.wall_gap=0 --set integration.t_end=10 -o beads.h5 2> beads.txt &
pid=$!
sleep 1.5
t0=$(date +%s%N)
kill -INT $pid
wait $pid
st=$?
ms=$((($(date +%s%N) - t0) / 1000000))
echo "  SIGINT to exit: $ms ms (100000 beads)"
rows() { "$PY" -c "import h5py, sys; print(len(h5py.File(sys.argv[1], 'r')[sys.argv[2]]))" "$@" 2> /dev/null; }
[ $st -eq 130 ] && [ $ms -lt 2000 ] && [ "$(status_of beads.h5)" = interrupted ] &&
    [ "$(rows beads.h5 episodes)" -ge 1 ] && [ "$(rows beads.h5 collisions)" -ge 1 ] &&
    ok "SIGINT stops a 100000-bead run in $ms ms (< 2 s), a valid file says interrupted and holds its episode" ||
    bad "stop latency: status $st after $ms ms, $(cat beads.txt)"
rm -f beads.h5
# a pool of 30000 discs: one step of its Krylov solver took 0.8-1.3 s of CPU
# (2.4-5 s wall) in this build; a stop request now abandons the step (bound
# 1.5 s, measured 0.15-0.23 s)
awk 'BEGIN { print "dim: 2\nbodies:"; s = 1
    for (i = 0; i < 173; i++) for (j = 0; j < 173; j++) {
        s = (s * 16807) % 2147483647; vx = 2 * s / 2147483647 - 1
        s = (s * 16807) % 2147483647; vy = 2 * s / 2147483647 - 1
        printf "  - {mass: 0.01, radius: 0.004, x: [%g, %g], v: [%.6f, %.6f]}\n", 0.01 * i, 0.01 * j, vx, vy }
    print "walls:\n  - {normal: [1, 0], offset: -0.01}\n  - {normal: [-1, 0], offset: -2.0}"
    print "  - {normal: [0, 1], offset: -0.01}\n  - {normal: [0, -1], offset: -2.0}"
    print "contact: {material: {E: 2.1e9, nu: 0.3}}\nintegration: {t_end: 10}" }' > pool.yaml
"$CRADLE" run -q pool.yaml -o pool.h5 2> pool.txt &
pid=$!
sleep 4.5
t0=$(date +%s%N)
kill -INT $pid
wait $pid
st=$?
ms=$((($(date +%s%N) - t0) / 1000000))
echo "  SIGINT to exit: $ms ms (30000 discs), $(cat pool.txt)"
[ $st -eq 130 ] && [ $ms -lt 1500 ] && [ "$(status_of pool.h5)" = interrupted ] &&
    ok "SIGINT stops a 30000-disc pool in $ms ms (< 1.5 s), a valid file says interrupted" ||
    bad "pool stop latency: status $st after $ms ms, $(cat pool.txt)"
rm -f pool.h5 pool.yaml

finish outputs
