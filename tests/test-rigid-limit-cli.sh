#!/bin/sh
# `cradle compare --rigid-limit` end to end (docs/compare.md, "The rigid limit"):
# the planar three-disc pool (models/pool-theta-tau.yaml) from a model and from
# a run file; the extrapolated alpha_12 agrees with the frozen-normal run
# (`--set integration.normals=frozen`, read from `cradle run --json`) to 1e-6;
# bad arguments: exit 2; a chain: one line, exit 3, no file written (not even -o).
set -u
CRADLE=$1
MODELS=$2
. "$(dirname "$0")/shell-lib.sh"
POOL=$MODELS/pool-theta-tau.yaml

"$CRADLE" compare "$POOL" -q --rigid-limit > rl.txt 2> rl.err; st=$?
[ $st -eq 0 ] && grep -q "rigid limit of episode 0: 5 levels" rl.txt && grep -q "K -> inf" rl.txt \
    && ok "compare MODEL --rigid-limit: the table" || bad "compare --rigid-limit: status $st, $(cat rl.err)"
limit=$(awk '/^ *K -> inf/ {print $NF}' rl.txt)
"$CRADLE" run -q --json --set integration.normals=frozen -o frozen.h5 "$POOL" > frozen.json
"$PY" -c '
import json, sys
d = json.load(open("frozen.json"))
a = [c["alpha"] for c in d["episodes"][0]["contacts"] if (c["body_a"], c["body_b"]) == (1, 2)][0]
lim = float(sys.argv[1])
print("     extrapolated alpha_12 %.10f, frozen run %.10f" % (lim, a))
sys.exit(not abs(lim - a) <= 1e-6)' "$limit" \
    && ok "extrapolated alpha_12 = the frozen-normal run to 1e-6" self || bad "alpha limit $limit vs frozen"
"$CRADLE" run -q -o run.h5 "$POOL"
"$CRADLE" compare run.h5 -q --rigid-limit=4,10 --episode 0 > rl2.txt 2> rl2.err \
    && grep -q "4 levels" rl2.txt && ok "compare RUN.h5 --rigid-limit=4,10 --episode 0" \
    || bad "compare RUN.h5 --rigid-limit: $(cat rl2.err)"

usage() { # label args...
    label=$1
    shift
    "$CRADLE" "$@" > out.txt 2> err.txt
    st=$?
    [ $st -eq 2 ] && [ "$(wc -l < err.txt)" -eq 1 ] && ok "$label: exit 2, $(cat err.txt)" \
        || bad "$label: status $st, $(cat err.txt)"
}
usage "--rigid-limit=2 (too few levels)" compare "$POOL" --rigid-limit=2
usage "--rigid-limit=5,1 (ratio 1)" compare "$POOL" --rigid-limit=5,1
usage "--rigid-limit with --json" compare "$POOL" --rigid-limit --json
"$CRADLE" compare "$MODELS/three-ball-chain.yaml" -q --rigid-limit -o chain.h5 > out.txt 2> err.txt
st=$?
[ $st -eq 3 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q "dim 2" err.txt && [ ! -e chain.h5 ] \
    && ok "a chain refused: exit 3, $(cat err.txt)" || bad "chain: status $st, $(cat err.txt)"
finish test-rigid-limit-cli
