#!/bin/sh
# shellcheck disable=SC2086 # $CH and $PC are word lists of options
# cradle run --continue (issue 22 item 4; docs/hdf5-layout.md, "/restart"): a
# 3-ball chain and the first two collisions of a pendulum cradle stopped by
# SIGTERM, and the cradle killed with SIGKILL, continued from the restart
# state and compared with the uninterrupted run; the clock, the episodes and
# the continuation's attributes; bad input refused with one line, exit 3, no
# file changed. ~6 s (1.7 s CPU).
# usage: test-continue.sh CRADLE SOURCE_ROOT
set -u
CRADLE=$1
ROOT=$2
M=$ROOT/models
. "$(dirname "$0")/shell-lib.sh"

run() { "$@" > out.txt 2> err.txt < /dev/null; }
one_line() { [ "$(wc -l < err.txt)" -eq 1 ]; }

# close.py FULL FULL10 CONT: /final of the continued run against the
# uninterrupted run at rtol, within twice the difference between the
# uninterrupted runs at rtol and rtol/10, positions and velocities each;
# prints the ratios. Why twice: two runs at rtol carry errors of that size in
# different steps. On the pendulum cradle below the same uninterrupted run
# with output.interval 1e-4 instead of 1e-3 (its rows stop the integrator)
# differs by 1.01x, with rows every 1e-6 s by 1.10x; continued runs from
# t = 0.05 ... 0.7 s measured 0.01x to 1.47x.
cat > close.py <<'EOF'
import sys
import h5py
import numpy as np
full, full10, cont = (h5py.File(p, "r") for p in sys.argv[1:4])
assert abs(cont["final/time"][()] - full["final/time"][()]) <= 1e-12 * full["final/time"][()]
good = True
for k in ("position", "velocity"):
    a, b, c = (f["final/" + k][:] for f in (full, full10, cont))
    d_cont, d_rtol = np.abs(c - a).max(), np.abs(b - a).max()
    good &= d_cont <= 2.0 * d_rtol
    print("%s: |cont - full| %.3g, |full(rtol) - full(rtol/10)| %.3g, ratio %.2f"
          % (k, d_cont, d_rtol, d_cont / d_rtol))
sys.exit(0 if good else 1)
EOF

# ---- a 3-ball chain stopped by SIGTERM before its collision --------------------------------
# the striker 4 m away at 1 m/s: the collision at t = 4 s; rows every 1e-6 s
# (energies only; ~3 s of simulated time a second here) make the run slow
# enough to be stopped in its free flight
CH="$M/three-ball-chain.yaml --set balls[0].x=-4 --set integration.t_end=10"
"$CRADLE" run -q $CH -o full.h5
"$CRADLE" run -q $CH --set integration.rtol=1e-12 --set integration.atol=1e-14 -o full10.h5
"$CRADLE" run -q $CH --set output.interval=1e-6 --set output.fields=energies -o stop.h5 2> stop.txt &
pid=$!
sleep 0.3
kill -TERM $pid
wait $pid
st=$?
t0=$("$PY" -c "import h5py; print(h5py.File('stop.h5', 'r')['restart/time'][()])" 2> /dev/null)
run "$CRADLE" run -q --continue stop.h5 --set output.interval=0 --set output.fields=all -o cont.h5
rc=$?
[ $st -eq 130 ] && [ -n "$t0" ] && [ $rc -eq 0 ] && "$PY" close.py full.h5 full10.h5 cont.h5 > close.txt 2>&1 &&
    ok "3-ball chain stopped by SIGTERM at t = $t0 s, continued: /final as the uninterrupted run's within 2x its rtol/(rtol/10) difference" self &&
    echo "  $(tr '\n' ';' < close.txt)" ||
    bad "3-ball chain SIGTERM, continued: stop $st at '$t0', continue $rc: $(cat err.txt stop.txt close.txt 2>/dev/null)"

# the continuation's clock, episodes and attributes
"$PY" - > clock.txt 2>&1 <<'EOF' && ok "the continuation starts its clock, rows and events at the restart time, its one episode as the uninterrupted run's, continued_from/at" || bad "continued clock: $(cat clock.txt)"
import h5py
full, cont, stop = (h5py.File(p, "r") for p in ("full.h5", "cont.h5", "stop.h5"))
t0 = stop["restart/time"][()]
assert 0 < t0 < 4.0, t0  # stopped in free flight, before the collision
assert cont.attrs["continued_from"] == "stop.h5" and cont.attrs["continued_at"] == t0
assert cont["trajectory/time"][0] == t0 and cont["events"]["time"][0] > t0
e, f = cont["episodes"][:], full["episodes"][:]
assert len(e) == len(f) == 1 and abs(e["t_start"][0] - f["t_start"][0]) < 1e-9, (e, f)
assert abs(e["kappa"][0] - f["kappa"][0]) < 1e-8
EOF

# the Python reader takes /restart (and files without it, as before)
PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}" "$PY" - > py.txt 2>&1 <<'EOF' && ok "cradle.read gives restart_time/position/velocity of /restart" || bad "cradle.read /restart: $(cat py.txt)"
import h5py
import numpy as np
import cradle.io
r = cradle.io.read("cont.h5")
f = h5py.File("cont.h5", "r")
assert r.restart_time == f["restart/time"][()] == r.final_time
assert np.array_equal(r.restart_position, f["final/position"][:])
assert np.array_equal(r.restart_velocity, f["final/velocity"][:])
EOF

# ---- the first two collisions of a pendulum cradle, SIGTERM between them ---------------------
PC0="$M/pendulum-cradle-3.yaml"
PC="$PC0 --set integration.t_end=0.8"
"$CRADLE" run -q $PC -o pfull.h5
"$CRADLE" run -q $PC --set integration.rtol=1e-11 -o pfull10.h5
# the stopped runs: rows every 2.5e-7 s (energies only) and no end before the
# signal; the continuation ends at 0.8 s with the model's rows
SLOW="--set integration.t_end=2 --set output.interval=2.5e-7 --set output.fields=energies"
"$CRADLE" run -q $PC0 $SLOW -o pstop.h5 2> stop.txt &
pid=$!
sleep 0.3
kill -TERM $pid
wait $pid
st=$?
t0=$("$PY" -c "import h5py; print(h5py.File('pstop.h5', 'r')['restart/time'][()])" 2> /dev/null)
run "$CRADLE" run -q --continue pstop.h5 --set integration.t_end=0.8 --set output.interval=1e-3 --set output.fields=all -o pcont.h5
rc=$?
[ $st -eq 130 ] && [ -n "$t0" ] && [ $rc -eq 0 ] && "$PY" close.py pfull.h5 pfull10.h5 pcont.h5 > close.txt 2>&1 &&
    ok "pendulum cradle (3 balls, 2 collisions) stopped by SIGTERM, restart at t = $t0 s, continued: /final within 2x the rtol/(rtol/10) difference" self &&
    echo "  $(tr '\n' ';' < close.txt)" ||
    bad "pendulum cradle SIGTERM, continued: stop $st at '$t0', continue $rc: $(cat err.txt stop.txt close.txt 2>/dev/null)"

# ---- SIGKILL: the temporary keeps the restart state of its last flush ------------------------
"$CRADLE" run -q $PC0 $SLOW -o pkill.h5 2> /dev/null &
pid=$!
sleep 0.4
kill -KILL $pid
wait $pid 2> /dev/null
tmp=pkill.h5.tmp.$pid
t0=$("$PY" -c "import h5py; f = h5py.File('$tmp', 'r'); assert f['restart/time'][()] <= f.attrs['t_end']; print(f['restart/time'][()])" 2> /dev/null)
run "$CRADLE" run -q --continue "$tmp" --set integration.t_end=0.8 --set output.interval=1e-3 --set output.fields=all -o pkcont.h5
rc=$?
[ -n "$t0" ] && [ $rc -eq 0 ] && "$PY" close.py pfull.h5 pfull10.h5 pkcont.h5 > close.txt 2>&1 &&
    ok "pendulum cradle killed with SIGKILL, continued from its last flush (t = $t0 s): /final within 2x the rtol/(rtol/10) difference" self &&
    echo "  $(tr '\n' ';' < close.txt)" ||
    bad "SIGKILL, continued: restart '$t0', continue $rc: $(cat err.txt close.txt 2>/dev/null)"
rm -f "$tmp" pkill.h5.lock

# ---- a finished pool run continued to a later end time ---------------------------------------
PO="$M/pool-bernoulli.yaml"
"$CRADLE" run -q $PO -o qfull.h5
"$CRADLE" run -q $PO --set integration.rtol=1e-11 -o qfull10.h5
"$CRADLE" run -q $PO --set integration.t_end=0.05 -o qpart.h5
run "$CRADLE" run -q --continue qpart.h5 --set integration.t_end=0.2 -o qcont.h5
rc=$?
[ $rc -eq 0 ] && "$PY" close.py qfull.h5 qfull10.h5 qcont.h5 > close.txt 2>&1 &&
    ok "a complete pool run (3 discs, a wall) to 0.05 s continued to 0.2 s: /final within 2x the rtol/(rtol/10) difference" self &&
    echo "  $(tr '\n' ';' < close.txt)" ||
    bad "pool continued: $rc: $(cat err.txt close.txt 2>/dev/null)"

# ---- bad input: one line, exit 3, no file written, the input unchanged -----------------------
"$CRADLE" run -q "$M/three-ball-chain.yaml" -o done.h5
cp done.h5 v99.h5
"$PY" -c "import h5py; h5py.File('v99.h5', 'r+').attrs['format_version'] = 99"
head -c 3000 done.h5 > corrupt.h5
cp "$ROOT/data/chain3-hertz.h5" table.h5
"$CRADLE" run -q --rigid newton "$M/three-ball-chain.yaml" -o rigid.h5
refused() { # NAME INPUT MESSAGE-PATTERN [ARGS...]: exit 3, one line, no output, input unchanged
    name=$1 in=$2 pat=$3
    shift 3
    before=$(sha256sum < "$in")
    run "$CRADLE" run -q --continue "$in" -o new.h5 "$@"
    st=$?
    [ $st -eq 3 ] && one_line && grep -q -e "$pat" err.txt && [ ! -e new.h5 ] && no_temp &&
        [ "$(sha256sum < "$in")" = "$before" ] &&
        ok "--continue refuses $name: one line, exit 3, no file written" ||
        bad "--continue $name: status $st, $(cat err.txt); $(ls)"
}
refused "a table file" table.h5 "table.h5: a file of kind 'cradle sweep', not a run file"
refused "a corrupt file" corrupt.h5 "corrupt.h5"
refused "a run of another format version" v99.h5 "v99.h5: a run file of format version 99"
refused "a physics change" done.h5 "--set contact.K would change the physics" --set contact.K=2
refused "an end time not after the restart" done.h5 "is not after the restart time" --set integration.t_end=1
refused "a rigid run" rigid.h5 "rigid.h5: a rigid run: only compliant runs"
run "$CRADLE" run -q --continue done.h5 "$M/three-ball-chain.yaml"
[ $? -eq 2 ] && one_line && ok "--continue with a MODEL: usage error, one line" || bad "--continue MODEL: $(cat err.txt)"

finish continue
