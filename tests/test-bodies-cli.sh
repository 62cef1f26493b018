#!/bin/sh
# Rigid bodies through the CLI (issue 25, first step): `cradle run` of
# models/dumbbell-wall.yaml writes the usual layout plus the rigid bodies'
# orientation and angular velocity (/final, /trajectory); the dumbbell leaves
# with ω = 2 m_eff v r⊥/J (the impulse of one contact of effective mass
# m_eff = 1/(1/m + r⊥²/J)); a model without rigid bodies has none of these
# datasets; --rigid on a model with rotation and bad clumps give one line,
# exit 3 and no output file.
set -u
CRADLE=$1
MODELS=$2
. "$(dirname "$0")/shell-lib.sh"
DW=$MODELS/dumbbell-wall.yaml

"$CRADLE" run -q -o dw.h5 "$DW" 2> err.txt; st=$?
# the model's numbers: m = 0.2, L = 0.1, r = 0.01, r2 = 0.008, v = 1, r⊥ = L/2
res=$("$PY" - <<'EOS' 2>&1
import h5py
m, L, r, r2, v = 0.2, 0.1, 0.01, 0.008, 1.0
J = m * L * L / 4 + m / 5 * (r * r + r2 * r2)
meff = 1 / (1 / m + (L / 2) ** 2 / J)
with h5py.File("dw.h5", "r") as f:
    om = f["/final/angular_velocity"][0]
    rows = f["/trajectory/orientation"].shape
    ok = rows[1] == 1 and rows[0] == f["/trajectory/time"].shape[0] and rows[0] > 10
    ok = ok and abs(f["/model/body_inertia"][0] / J - 1) < 1e-14 \
        and list(f["/model/body_features"][0]) == [0, 2]
    ref = 2 * meff * v * (L / 2) / J
    print("ok" if ok and abs(abs(om) / ref - 1) < 1e-4 else "bad", om, ref, rows)
EOS
)
[ $st -eq 0 ] && [ "${res%% *}" = ok ] \
    && ok "run dumbbell-wall.yaml: /final/angular_velocity = 2 m_eff v r/J to 1e-4, /trajectory/orientation, /model/body_inertia" ref \
    || bad "run dumbbell-wall.yaml: status $st, $res, $(cat err.txt)"

# Pandrea's bar: its two discs are one body, so one episode of two contacts,
# T- = m v^2/2 + J omega^2/2 = 608 J (m = 12, J = 4, v = -10, omega = 2)
"$CRADLE" run -q -o pb.h5 "$MODELS/pandrea-bar.yaml" 2> err.txt; st=$?
res=$("$PY" - <<'EOS' 2>&1
import h5py
with h5py.File("pb.h5", "r") as f:
    e, c = f["/episodes"][:], f["/collisions"][:]
    ok = len(e) == 1 and e[0]["contact_count"] == 2 and e[0]["body_count"] == 2
    ok = ok and abs(e[0]["T_minus"] / 608 - 1) < 1e-12 and abs(c[0]["T_minus"] / 608 - 1) < 1e-12
    print("ok" if ok else "bad", len(e), e[0]["T_minus"], c[0]["T_minus"])
EOS
)
[ $st -eq 0 ] && [ "${res%% *}" = ok ] \
    && ok "run pandrea-bar.yaml: one episode of both contacts, T- = m v^2/2 + J w^2/2 = 608 J" ref \
    || bad "run pandrea-bar.yaml: status $st, $res, $(cat err.txt)"

"$CRADLE" run -q -o pool.h5 "$MODELS/pool-theta-tau.yaml" 2> err.txt; st=$?
[ $st -eq 0 ] && ! h5ls pool.h5/final/orientation >/dev/null 2>&1 \
    && ! h5ls pool.h5/trajectory/orientation >/dev/null 2>&1 \
    && ok "run pool-theta-tau.yaml: no orientation datasets without rigid bodies" \
    || bad "run pool-theta-tau.yaml: status $st, $(cat err.txt)"

"$CRADLE" run -q --rigid newton -o rigid.h5 "$DW" 2> err.txt; st=$?
[ $st -eq 3 ] && [ ! -e rigid.h5 ] && [ "$(wc -l < err.txt)" -eq 1 ] \
    && grep -q "rigid runs of bodies with rotation" err.txt \
    && ok "--rigid on dumbbell-wall.yaml: refused in one line, exit 3, no file" \
    || bad "--rigid on dumbbell-wall.yaml: status $st, $(cat err.txt)"

"$CRADLE" compare "$DW" > cmp.txt 2> err.txt; st=$?
# the body-level configuration: (v_x, v_y, ω) of the one body, one contact
[ $st -eq 0 ] && grep -q "^episode 0: .*, 3 dofs, 1 contacts," cmp.txt \
    && ok "compare dumbbell-wall.yaml: the episode on 3 dofs (v, omega), 1 contact" \
    || bad "compare dumbbell-wall.yaml: status $st, $(head -1 cmp.txt) $(cat err.txt)"

"$CRADLE" compare dw.h5 > cmp.txt 2> err.txt; st=$?
[ $st -eq 3 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q "compare the model itself" err.txt \
    && ok "compare dw.h5 (a run of rigid bodies): refused in one line, exit 3" \
    || bad "compare dw.h5: status $st, $(cat err.txt)"

"$CRADLE" compare "$DW" --rigid newton -o cmpr.h5 > cmp.txt 2> err.txt; st=$?
[ $st -eq 3 ] && [ ! -e cmpr.h5 ] && [ "$(wc -l < err.txt)" -eq 1 ] \
    && grep -q "rigid runs of bodies that rotate" err.txt \
    && ok "compare dumbbell-wall.yaml --rigid newton: refused in one line, exit 3, no file" \
    || bad "compare dumbbell-wall.yaml --rigid newton: status $st, $(cat err.txt)"

# --cases writes the body-level configuration; `cradle law` takes it. Reference:
# Pandrea's bar (seed 004 fig. 3): M = diag(12, 12, 4), u- = (0, -10, 2)
mkdir -p cases
"$CRADLE" run -q -o pb.h5 --cases cases "$MODELS/pandrea-bar.yaml" 2> err.txt; st=$?
"$CRADLE" law newton cases/episode-0000.yaml > law.txt 2>> err.txt; st2=$?
[ $st -eq 0 ] && [ $st2 -eq 0 ] && grep -q "3 dofs, 2 contacts): ok" law.txt \
    && grep -q "^  gamma-  -11 -9$" law.txt \
    && grep -Fq "mass: [[12, 0, 0]," cases/episode-0000.yaml \
    && grep -Fq "velocity: [0, -10, 2]" cases/episode-0000.yaml \
    && ok "run --cases pandrea-bar.yaml: M = diag(12, 12, 4), u- = (0, -10, 2), gamma- = (-11, -9), cradle law takes it" ref \
    || bad "run --cases pandrea-bar.yaml: status $st $st2, $(cat err.txt) $(head -3 law.txt)"

check_bad() { # name, expected text, file body
    printf '%s' "$3" > "$1.yaml"
    "$CRADLE" run -q -o "$1.h5" "$1.yaml" 2> err.txt; st=$?
    [ $st -eq 3 ] && [ ! -e "$1.h5" ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -qF "$2" err.txt \
        && ok "bad clumps ($1): exit 3, one line naming '$2', no file" \
        || bad "bad clumps ($1): status $st, $(cat err.txt)"
}
check_bad inertia "inertia.yaml:4: clumps[0].inertia" 'dim: 2
clumps:
  - {shape: rectangle, radius: 0.01, width: 0.1, height: 0.1, mass: 1,
     inertia: 0, x: [0, 0]}
'
check_bad radius "radius.yaml:5: clumps[0].features[1].radius" 'dim: 2
clumps:
  - shape: discs
    mass: 1
    features: [{x: [0, 0], radius: 0.1}, {x: [1, 0], radius: 0}]
    inertia: 1
    x: [0, 0]
'
check_bad wall "wall.yaml:5: walls[0]: disc 0 lies outside the wall" 'dim: 2
clumps:
  - {shape: bar, count: 3, radius: 0.01, length: 1, mass: 1, x: [0, 0.005]}
walls:
  - {normal: [0, 1], offset: 0}
integration: {t_end: 0.1}
'

"$CRADLE" run -q --continue dw.h5 -o cont.h5 2> err.txt; st=$?
[ $st -eq 3 ] && [ ! -e cont.h5 ] && [ "$(wc -l < err.txt)" -eq 1 ] \
    && ok "--continue of dumbbell-wall.yaml's run: refused in one line, exit 3, no file" \
    || bad "--continue of dumbbell-wall.yaml's run: status $st, $(cat err.txt)"
check_bad noend "noend.yaml:3: integration.t_end" 'dim: 2
clumps:
  - {shape: bar, count: 3, radius: 0.01, length: 1, mass: 1, x: [0, 0.5], v: [0, -1]}
'
finish bodies-cli
