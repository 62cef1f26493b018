#!/bin/sh
# Regenerates the reference tables of data/ (data/README.md, docs/tables.md):
# for each table, its grid sweep and its check sweep (cell midpoints run
# directly) from data/sweeps/, then `cradle table make`: the HDF5 table with
# provenance and interpolation bounds, and its CSV twin.
#
#   sh tools/make-tables.sh [-j N] [TABLE ...]     (default: every table below)
#
# Deterministic: each point's row depends on the point alone (docs/sweeps.md),
# so the numbers are the same for any -j; only the `date` attribute changes
# (set SOURCE_DATE_EPOCH to pin it). Needs a build in build/ (CRADLE=path to
# override).
set -eu
cd "$(dirname "$0")/.."
CRADLE=${CRADLE:-build/tools/cradle}
JOBS=2
if [ "${1:-}" = "-j" ]; then
    JOBS=$2
    shift 2
fi
# Every table of data/ (data/README.md); the law map is read from the chain
# tables (`cradle table lookup ... --laws`) and drawn by tools/plot-tables.py.
ALL="restitution-gap restitution-force chain3-hertz chain3-linear chain3-gap
cradle-hertz cradle-linear column-restitution pool-alpha12 pool-alpha12-rigid"
TABLES=${*:-$ALL}

[ -x "$CRADLE" ] || { echo "make-tables: $CRADLE not found: build first (meson setup build && ninja -C build)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

rev=$(git rev-parse HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- src include data/sweeps 2>/dev/null)" ]; then
    rev="$rev (with uncommitted changes)"
fi
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
    date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
else
    date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
fi

# The per-table attributes: description, base model, the comparator's
# vocabulary (docs/tables.md), figure.
attrs() {
    case $1 in
    restitution-*)
        echo "description=restitution of one visco-elastic Hertz contact (f = K d^1.5 + C d^0.5 d') versus eps = (C/K)(K/mu)^(2/5) v^(1/5), release ${1#restitution-}"
        echo "base_model=data/sweeps/models/pair.yaml"
        echo "figure=docs/tables-restitution.png" ;;
    chain3-gap)
        echo "description=alpha and kappa of three equal undamped Hertz balls versus the gap g/d* between balls 2 and 3 (first episode)"
        echo "base_model=data/sweeps/models/chain3-gap.yaml"
        echo "figure=docs/tables-chain3.png" ;;
    cradle-*)
        n=1.5
        [ "$1" = cradle-linear ] && n=1
        echo "description=velocities v_final[i] after the whole collision of an N-ball Newton's cradle (striker ball 0 at speed 1, the others touching at rest; units m = K = 1; n = $n) over N and the pairs' restitution e"
        echo "base_model=data/sweeps/models/cradle.yaml"
        echo "figure=docs/tables-cradle.png" ;;
    column-restitution)
        echo "description=effective restitution e_cm = -v_cm+/v_cm- over the first collision of a column of N Hertz beads hitting a wall (no gravity; units m = K = 1, speed 1) over N and the pairs' restitution e"
        echo "base_model=data/sweeps/models/column.yaml"
        echo "figure=docs/tables-column.png" ;;
    pool-alpha12*)
        k="finite K (steel discs, r = 10 mm, 1 m/s), normals turning"
        [ "$1" = pool-alpha12-rigid ] && k="rigid limit: normals frozen at first contact (K-independent)"
        echo "description=alpha_12 = alpha[1] = P23/P12 of the three-disc pool of Acary & Taha 2005 sect. 4 over theta and tau, $k"
        echo "base_model=data/sweeps/models/pool3.yaml"
        echo "figure=docs/tables-pool.png" ;;
    chain3-*)
        n=1.5; m=0.5
        [ "$1" = chain3-linear ] && n=1 && m=0
        echo "description=alpha and kappa of a striker hitting two touching balls at rest (n = $n) over m2/m1, m3/m1, K23/K12 and the pairs' restitution e"
        echo "base_model=data/sweeps/models/chain3.yaml"
        echo "configuration=chain3"
        echo "law.n=$n"
        echo "law.m=$m"
        echo "law.release=force"
        echo "figure=docs/tables-chain3.png" ;;
    esac
}

for t in $TABLES; do
    sweep=data/sweeps/$t.yaml
    [ -f "$sweep" ] || { echo "make-tables: $sweep: no such sweep" >&2; exit 2; }
    "$CRADLE" sweep "$sweep" -o "$work/$t.h5" -j "$JOBS" -q --force
    "$CRADLE" sweep "data/sweeps/$t-check.yaml" -o "$work/$t-check.h5" -j "$JOBS" -q --force
    model=$(attrs "$t" | sed -n 's/^base_model=//p')
    tol=$(grep -h -o 'rtol: [0-9.e+-]*, atol: [0-9.e+-]*' "$model" | head -n 1)
    set --
    while IFS= read -r kv; do
        set -- "$@" --attr "$kv"
    done <<EOF
$(attrs "$t")
EOF
    # the chain tables declare their axes as impact quantities (docs/tables.md,
    # "Impact configurations"), checked against every point's model
    case $t in
    chain3-*) set -- "$@" --configuration chain ;;
    esac
    "$CRADLE" table make "$work/$t.h5" --check "$work/$t-check.h5" -o "data/$t.h5" \
        --csv "data/$t.csv" "$@" --attr "git_revision=$rev" --attr "date=$date" \
        --attr "tolerances=$tol (CVODES, every point)" \
        --attr "sweep=$sweep (check points: data/sweeps/$t-check.yaml)"
    echo "make-tables: data/$t.h5 ($(stat -c %s "data/$t.h5") bytes), data/$t.csv"
done

# The figures of data/README.md (from the CSV twins; needs python3-matplotlib).
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
    /usr/bin/python3 tools/plot-tables.py data docs
else
    echo "make-tables: python3-matplotlib missing: figures not redrawn (tools/plot-tables.py)"
fi
