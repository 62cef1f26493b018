#!/bin/sh
# Output a user chooses (issue 22 item 2; docs/model-format.md, "Output"):
# bad output settings are one line with exit 3 and the file at -o unchanged;
# output.fields, output.bodies, output.interval, output.every and
# output.fields: none give exactly those datasets, columns and rows (values
# equal to the full run's columns); the default sampling on the 3-disc pool
# with a wall 6 cm away and t_end: auto stays within the documented bound and
# 1 MB; the row cap widens with one notice. ~2 s.
# usage: test-output-choice.sh CRADLE SOURCE_ROOT
set -u
CRADLE=$1
ROOT=$2
M=$ROOT/models
. "$(dirname "$0")/shell-lib.sh"

run() { "$@" > out.txt 2> err.txt < /dev/null; }
one_line() { [ "$(wc -l < err.txt)" -eq 1 ]; }

# ---- bad input: one line, exit 3, the file at -o untouched -------------------------------
"$CRADLE" run -q "$M/newton-cradle-5.yaml" -o keep.h5 > /dev/null 2>&1
sum0=$(md5sum < keep.h5)
bad_input() { # NAME EXPECTED-TEXT MODEL ARGS...
    name=$1 want=$2 model=$3
    shift 3
    run "$CRADLE" run -q "$model" -o keep.h5 "$@"
    rc=$?
    if [ $rc -eq 3 ] && one_line && grep -q -- "$want" err.txt &&
        [ "$(md5sum < keep.h5)" = "$sum0" ] && no_temp; then
        ok "bad output ($name): exit 3, one line, keep.h5 unchanged"
    else
        bad "bad output ($name): exit $rc, $(head -c 300 err.txt)"
    fi
}
C5=$M/newton-cradle-5.yaml
bad_input "unknown field" "output.fields\[1\]: unknown field 'positon'; did you mean 'position'" \
    "$C5" --set 'output.fields=[velocity, positon]'
bad_input "empty field list" "output.fields: an empty list" "$C5" --set 'output.fields=[]'
bad_input "empty body list" "output.bodies: an empty list" "$C5" --set 'output.bodies=[]'
bad_input "body out of range" "output.bodies\[1\]: body 7 does not exist (the model has 5 bodies" \
    "$C5" --set 'output.bodies=[0, 7]'
bad_input "range out of range" "output.bodies: body 9 does not exist" "$C5" --set 'output.bodies=2-9'
bad_input "backwards range" "output.bodies\[0\]: range 3-1 runs backwards" "$C5" \
    --set 'output.bodies=[3-1]'
bad_input "negative body" "output.bodies\[0\]: '-1' is not a body index" "$C5" \
    --set 'output.bodies=[-1]'
bad_input "every 0" "output.every: must be a whole number from 1" "$C5" --set 'output.every=0'
bad_input "every and interval" "output.every: give either an interval or every k-th step" "$C5" \
    --set 'output={every: 2, interval: 1.0e-5}'
bad_input "force of a pool" "output.fields\[0\]: 'force' is a per-contact series of chains only" \
    "$M/pool-bernoulli.yaml" --set 'output.fields=[force]'
bad_input "unknown key" "output.field: unknown field; did you mean 'fields'" "$C5" \
    --set 'output.field=none'
bad_input "every on a rigid run" "output.every: a rigid run has no integrator steps" "$C5" \
    --rigid newton --set 'output.every=2'
# in a model file: file and line
sed 's/^output:.*//' "$C5" > c5.yaml
printf 'output:\n  bodies: [0, 5]\n' >> c5.yaml
line=$(grep -n 'bodies: \[0, 5\]' c5.yaml | cut -d: -f1)
bad_input "file and line" "c5.yaml:$line: output.bodies\[1\]: body 5 does not exist" c5.yaml

# ---- the chosen datasets, columns and rows ------------------------------------------------
I=2.0e-5
"$CRADLE" run -q "$C5" -o full.h5 --set output.interval=$I &&
    "$CRADLE" run -q "$C5" -o chosen.h5 --set output.interval=$I \
        --set 'output.fields=[velocity, impulse]' --set 'output.bodies=[0, 3-4]' &&
    "$CRADLE" run -q "$C5" -o none.h5 --set output.fields=none &&
    "$CRADLE" run -q "$C5" -o every1.h5 --set output.every=1 &&
    "$CRADLE" run -q "$C5" -o every3.h5 --set output.every=3 &&
    "$CRADLE" run -q "$M/pool-bernoulli.yaml" -o pfull.h5 --set output.interval=1e-3 &&
    "$CRADLE" run -q "$M/pool-bernoulli.yaml" -o pchosen.h5 --set output.interval=1e-3 \
        --set 'output.bodies=2' --set 'output.fields=position' &&
    "$CRADLE" run -q "$M/pool-bernoulli.yaml" -o pevery.h5 --set output.every=7 ||
    bad "the runs with chosen output ran"
"$PY" - "$I" > py.txt 2>&1 << 'EOF'
import sys
import h5py
import numpy as np
I = float(sys.argv[1])
def say(cond, msg):
    print(("ok   " if cond else "FAIL ") + msg)
def names(f):
    return sorted(k for k in f["trajectory"])
with h5py.File("full.h5", "r") as a, h5py.File("chosen.h5", "r") as b:
    say(names(b) == ["bodies", "contacts", "impulse", "time", "velocity"],
        "fields [velocity, impulse]: exactly time, velocity, impulse and the indices (%s)" % names(b))
    say(b["trajectory"].attrs["fields"] == "velocity impulse", "the fields attribute names them")
    say(list(b["trajectory/bodies"][()]) == [0, 3, 4], "bodies [0, 3-4]: columns of bodies 0, 3, 4")
    # contacts c joins c and c + 1: 0 (0-1), 2 (2-3), 3 (3-4) touch a chosen body
    say(list(b["trajectory/contacts"][()]) == [0, 2, 3], "the contacts touching them: 0, 2, 3")
    va, vb = a["trajectory/velocity"][()], b["trajectory/velocity"][()]
    say(vb.shape == (va.shape[0], 3) and np.array_equal(vb, va[:, [0, 3, 4]]),
        "velocity columns equal the full run's, bit for bit (%s)" % (vb.shape,))
    say(np.array_equal(b["trajectory/impulse"][()], a["trajectory/impulse"][()][:, [0, 2, 3]]),
        "impulse columns equal the full run's")
    t = a["trajectory/time"][()]
    k = np.arange(len(t) - 1) * I
    say(np.allclose(t[:-1], k, rtol=0, atol=1e-12 * I) and t[-1] == a.attrs["t_end"],
        "interval %g: rows at k*interval and the end (%d rows)" % (I, len(t)))
    say(np.array_equal(b["trajectory/time"][()], t), "the same rows with chosen fields")
with h5py.File("none.h5", "r") as f, h5py.File("full.h5", "r") as a:
    say(names(f) == [] and f["trajectory"].attrs["fields"] == "",
        "output.fields: none: /trajectory holds no dataset")
    say(all(g in f for g in ("events", "episodes", "collisions", "final", "contacts")) and
        len(f["episodes"]) == len(a["episodes"]) and len(f["events"]) > 0,
        "none: events, episodes, collisions, final state and contacts stored")
    # output times are returns of the integrator: the final state agrees to
    # the tolerance (rtol 1e-10), not bit for bit
    say(np.allclose(f["final/velocity"][()], a["final/velocity"][()], rtol=0, atol=1e-8),
        "none: the final velocities of the full run within 1e-8 m/s")
with h5py.File("every1.h5", "r") as e1, h5py.File("every3.h5", "r") as e3:
    t1, t3 = e1["trajectory/time"][()], e3["trajectory/time"][()]
    inner1, inner3 = t1[1:-1], t3[1:-1]
    say(len(inner3) == len(inner1) // 3 and np.array_equal(inner3, inner1[2::3]),
        "every 3: the 3rd, 6th, ... step ends of every 1 (%d of %d rows)" % (len(inner3), len(inner1)))
    say(np.all(np.diff(t1) > 0) and len(t1) > 30, "every 1: a row at each step end, increasing")
with h5py.File("pfull.h5", "r") as a, h5py.File("pchosen.h5", "r") as b:
    say(names(b) == ["bodies", "contacts", "position", "time"] and
        list(b["trajectory/bodies"][()]) == [2] and len(b["trajectory/contacts"]) == 0,
        "pool: fields position, body 2 (%s)" % names(b))
    pa, pb = a["trajectory/position"][()], b["trajectory/position"][()]
    say(np.array_equal(pb, pa[:, 4:6]), "pool: body 2's x, y columns equal the full run's")
with h5py.File("pevery.h5", "r") as f:
    n, steps = len(f["trajectory/time"]), int(f.attrs["steps"])
    say(3 <= n <= steps // 7 + 2, "pool every 7: at most steps/7 + 2 rows (%d, %d steps)" % (n, steps))
EOF
while IFS= read -r l; do
    case $l in
        "ok   "*) ok "${l#ok   }" self ;;
        "FAIL "*) bad "${l#FAIL }" ;;
        *) printf '%s\n' "$l" ;;
    esac
done < py.txt

# ---- the default sampling on the pool: bounded rows and size -------------------------------
run "$CRADLE" run -q "$M/pool-bernoulli.yaml" -o pool.h5 --set 'walls[0].offset=-0.06' \
    --set integration.t_end=auto
[ $? -eq 0 ] || bad "the pool with a wall 6 cm away ran: $(head -c 200 err.txt)"
"$PY" - > py.txt 2>&1 << 'EOF'
import os
import h5py
import numpy as np
def say(cond, msg):
    print(("ok   " if cond else "FAIL ") + msg)
with h5py.File("pool.h5", "r") as f:
    t = f["trajectory/time"][()]
    T, V = f.attrs["time_scale"], f.attrs["speed_scale"]
    r = f["model/radius"][()]
    dt = T / 4                                    # rows while a contact is loaded
    m = max(1, int(np.floor(0.1 * r.min() / V / dt)))   # grid points per free-flight row
    ep = f["episodes"][()]
    loaded = float(np.sum(ep["t_end"] - ep["t_start"]))
    # the documented bound: t = 0 and the end, the loaded time at dt, each
    # episode's two partial intervals, the rest at m dt
    bound = 2 + loaded / dt + 2 * len(ep) + f.attrs["t_end"] / (m * dt) + 1
    say(len(t) <= bound, "pool, wall 6 cm, t_end auto: %d rows <= the rule's bound %.0f" % (len(t), bound))
    gaps = np.diff(t)
    inside = [(t >= a) & (t <= b) for a, b in zip(ep["t_start"], ep["t_end"])]
    fine = all(np.all(np.diff(t[s]) <= dt * (1 + 1e-9)) and s.sum() >= 2 for s in inside)
    say(fine, "rows at most T/4 apart inside every episode (%d episodes)" % len(ep))
    say(gaps.max() <= m * dt * (1 + 1e-9), "free flight rows at most m T/4 apart (m = %d)" % m)
size = os.path.getsize("pool.h5")
say(size <= 1 << 20, "pool, wall 6 cm: %d bytes <= 1 MiB" % size)
EOF
while IFS= read -r l; do
    case $l in
        "ok   "*) ok "${l#ok   }" ;;
        "FAIL "*) bad "${l#FAIL }" ;;
        *) printf '%s\n' "$l" ;;
    esac
done < py.txt

# ---- the row cap: tenfold wider, one notice ------------------------------------------------
run "$CRADLE" run -q "$C5" -o cap.h5 --set chain.count=300 --set output.max_rows=500
rc=$?
n=$("$PY" -c "import h5py; f = h5py.File('cap.h5', 'r'); print(len(f['trajectory/time']), f.attrs['output_widenings'])" 2> /dev/null)
rows=${n% *}
if [ $rc -eq 0 ] && one_line && grep -q "cap of 500 rows 1 time and widened its intervals 10x" err.txt &&
    [ "${n#* }" = 1 ] && [ "$rows" -gt 500 ] && [ "$rows" -lt 800 ]; then
    ok "max_rows 500 on a 300-bead chain: one notice, widened once, $rows rows"
else
    bad "row cap: exit $rc, rows/widenings '$n', $(head -c 300 err.txt)"
fi

finish output-choice
