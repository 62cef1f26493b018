#!/bin/sh
# `cradle fit` end to end (docs/fit.md): synthetic data, a fit with its file
# and JSON, a prediction, refusals with their exact one-line messages and exit
# statuses (docs/errors.md), a fit that does not converge (exit 4, file kept).
# Usage: test-fit-cli.sh CRADLE MODELS_DIR
set -u
C=$1
MODELS=$2
. "$(dirname "$0")/shell-lib.sh"
M=$MODELS/fit-chain-3.yaml

"$C" help fit > help.txt 2>&1 && grep -q "^usage: cradle fit MODEL DATA.csv" help.txt \
    && ok "help fit" || bad "help fit: $(head -2 help.txt)"
"$C" help nosuch > err.txt 2>&1
[ $? -eq 2 ] && [ "$(cat err.txt)" = "cradle: help: no topic 'nosuch' (topics: run, law, compare, sweep, table, fit, pack)" ] \
    && ok "help: an unknown topic lists fit" || bad "help nosuch: $(cat err.txt)"

cat > rows.csv <<'CSV'
observable,time,index,value,sigma
velocity_after,2e-4,0,,2e-3
velocity_after,2e-4,1,,2e-3
velocity_after,2e-4,2,,2e-3
contact_duration,1e-4,0,,5e-7
contact_duration,2.5e-4,1,,5e-7
CSV
"$C" fit "$M" rows.csv --synthetic 3 > data.csv 2> err.txt && [ "$(grep -c '^velocity_after\|^contact_duration' data.csv)" -eq 5 ] \
    && ok "--synthetic writes a data file of 5 rows" || bad "--synthetic: $(cat err.txt)"
"$C" fit "$M" rows.csv --synthetic 0 > exact.csv 2> err.txt
"$C" fit "$M" exact.csv --synthetic 0 > exact2.csv 2> err.txt
sed 1d exact.csv > e1; sed 1d exact2.csv > e2
cmp -s e1 e2 && ok "--synthetic 0 reproduces its own rows" || bad "--synthetic 0 differs"

"$C" fit "$M" data.csv --set contact.C=1.5e4 --set contact.K=1.3e10 --vary contact.C=0:1e5 \
    --vary contact.K -o fit.h5 --json > fit.json 2> err.txt
rc=$?
[ $rc -eq 0 ] && [ -f fit.h5 ] && ok "fit converges, exit 0, fit.h5 written" || bad "fit: rc $rc: $(cat err.txt)"
$PY - fit.json > py.txt 2>&1 <<'PYEOF' && ok "JSON: parameters, standard errors, correlation, residuals, runs" || bad "JSON: $(cat py.txt)"
import json, sys, math
j = json.load(open(sys.argv[1]))
assert j["converged"] and j["runs"] > 10, j
p = {q["path"]: q for q in j["parameters"]}
assert set(p) == {"contact.C", "contact.K"}
assert all(q["std_error"] > 0 for q in p.values())
c = j["correlation"]
assert c[0][0] == 1 and c[1][1] == 1 and c[0][1] == c[1][0] and abs(c[0][1]) < 1
assert len(j["observations"]) == 5
chi2 = sum(o["residual"] ** 2 for o in j["observations"])
assert math.isclose(chi2, j["chi2"], rel_tol=1e-9), (chi2, j["chi2"])
PYEOF
[ "$(h5dump -a /fit/status fit.h5 2>/dev/null | sed -n 's/.*(0): "\(.*\)"/\1/p')" = converged ] \
    && ok "fit.h5: /fit status converged" || bad "fit.h5 status"
$PY - fit.h5 data.csv > py.txt 2>&1 <<'PYEOF' && ok "fit.h5: provenance (model, data, command) and tables" || bad "fit.h5: $(cat py.txt)"
import h5py, sys
f = h5py.File(sys.argv[1], "r")["fit"]
assert f["data_text"][()].decode() == open(sys.argv[2]).read()
assert "contact.C=1.5e4" in f["model_text"][()].decode()
assert "--vary contact.C=0:1e5" in f.attrs["command"]
assert list(f["parameters"].attrs["paths"]) in (["contact.C", "contact.K"], [b"contact.C", b"contact.K"])
assert f["correlation"].shape == (2, 2) and f["observations"].shape == (5,)
PYEOF

# A start where the first impact is two collisions (K = 1e12: no re-contact of
# balls 0 and 1 in the run, so the collision window shrinks below the time
# between the two episodes) against one where it is one collision: the rows,
# paired by body and time, give the same optimum from both.
first_collision_episodes() {
    "$C" run "$M" --set contact.K="$1" --json -o run.h5 2>/dev/null |
        $PY -c "import json, sys; print(json.load(sys.stdin)['collisions'][0]['episodes'])" 2>/dev/null
}
a=$(first_collision_episodes 1.3e10) b=$(first_collision_episodes 1e12)
for K in 1.3e10 1e12; do
    "$C" fit "$M" data.csv --set contact.K=$K --vary contact.C=0:1e5 --vary contact.K --json \
        > "k$K.json" 2> err.txt || bad "fit from K = $K: $(cat err.txt)"
done
$PY - k1.3e10.json k1e12.json > py.txt 2>&1 <<'PYEOF' && [ "$a" = "[0, 1]" ] && [ "$b" = "[0]" ] \
    && ok "collisions split at the start (first collision: episodes $a vs $b): the same optimum to 1e-3 SE" self \
    || bad "split collisions: episodes $a vs $b; $(cat py.txt)"
import json, sys, math
p, q = (json.load(open(f))["parameters"] for f in sys.argv[1:])
for x, y in zip(p, q):
    # the solver stops within xtol of the optimum: far inside its standard error
    assert abs(x["value"] - y["value"]) < 1e-3 * x["std_error"], (x, y)
PYEOF

# a prediction on the same balls struck at 0.5 m/s
sed 's/v: 1.0}/v: 0.5}/' "$M" > slow.yaml
"$C" fit "$M" data.csv --set contact.C=1.5e4 --vary contact.C=0:1e5 --vary contact.K \
    --predict slow.yaml --json > pred.json 2> err.txt
$PY - pred.json > py.txt 2>&1 <<'PYEOF' && ok "--predict: rows on the other model with their sigma" || bad "--predict: $(cat py.txt) $(cat err.txt)"
import json, sys
j = json.load(open(sys.argv[1]))["prediction"]
assert j["model"] == "slow.yaml" and len(j["observations"]) == 5
v = [o["model"] for o in j["observations"]]
assert 0.4 < v[2] < 0.5, v
assert all(o["model_sigma"] > 0 for o in j["observations"])
PYEOF
grep -v "C:" "$M" > noC.yaml
printf 'contact: {K: 1.09e10, n: 1.5, release: force}\n' >> noC.yaml
"$C" fit "$M" data.csv --vary contact.C --predict noC.yaml > out.txt 2> err.txt
rc=$?
[ $rc -eq 3 ] && [ "$(cat err.txt)" = "cradle: --predict noC.yaml: contact.C: missing in it (the fitted value goes there)" ] \
    && ok "--predict: a model without the field is refused" || bad "--predict noC: rc $rc: $(cat err.txt)"

# refusals: one line, exit 3, no file written
refuse() { # MESSAGE DATA ARGS...
    want=$1 data=$2
    shift 2
    rm -f out.h5
    "$C" fit "$M" "$data" -o out.h5 "$@" > out.txt 2> err.txt
    rc=$?
    if [ $rc -eq 3 ] && [ "$(cat err.txt)" = "$want" ] && [ ! -e out.h5 ]; then
        ok "refused: $want"
    else
        bad "expected exit 3 '$want', got $rc '$(cat err.txt)'"
    fi
}
printf 'observable,time,index,value,sigma\nvelocity,2e-4,0,0.05,0.01\n' > b1.csv
refuse "cradle: b1.csv:2:1: observable: unknown 'velocity' (velocity_after, contact_duration, e_cm, opening_span, peak_force, swing_extreme)" b1.csv --vary contact.C
printf 'observable,time,index,value,sigma\nvelocity_after,2e-4,7,0.05,0.01\n' > b2.csv
refuse "cradle: b2.csv:2:3: index: the model has 3 bodies (0 to 2)" b2.csv --vary contact.C
printf 'observable,time,index,value,sigma\ncontact_duration,2e-4,2,6e-5,1e-6\n' > b3.csv
refuse "cradle: b3.csv:2:3: index: the model has 2 contacts (0 to 1)" b3.csv --vary contact.C
printf 'observable,time,index,value,sigma\nvelocity_after,5,1,0.05,0.01\n' > b4.csv
refuse "cradle: b4.csv:2:2: time: body 1: no collision within the pairing window of t = 5 s in the run" b4.csv --vary contact.C
printf 'observable,time,index,value,sigma\nvelocity_after,2e-4,1,0.05,nan\n' > b5.csv
refuse "cradle: b5.csv:2:5: sigma: must be a positive finite uncertainty (got 'nan')" b5.csv --vary contact.C
printf 'observable,value,sigma,time,index\nvelocity_after,0.05,-0.01,2e-4,1\n' > b6.csv
refuse "cradle: b6.csv:2:3: sigma: must be a positive finite uncertainty (got '-0.01')" b6.csv --vary contact.C
refuse "cradle: --vary contact.D: no such field in $M (give it a starting value there)" data.csv --vary contact.D
refuse "cradle: --vary contact.release: not a number in the model file: only numbers can be fitted" data.csv --vary contact.release
refuse "cradle: --vary contact.C=5e4:1e3: bounds must be LO:HI with LO < HI" data.csv --vary contact.C=5e4:1e3
refuse "cradle: --vary contact.C=a:b: bounds must be two numbers LO:HI" data.csv --vary contact.C=a:b
refuse "cradle: --vary contact.C: the starting value 20000 is not inside the bounds (30000, 50000)" data.csv --vary contact.C=3e4:5e4

cp data.csv keep.csv
refuse "cradle: data.csv: the output is the input file data.csv itself: refusing to overwrite it" data.csv --vary contact.C -o data.csv
cmp -s data.csv keep.csv && ok "-o DATA.csv: the data file is untouched" || bad "-o DATA.csv changed the data"
echo notes > notes.txt
refuse "cradle: notes.txt: exists and is not an HDF5 file: refusing to replace it" data.csv --vary contact.C -o notes.txt
[ "$(cat notes.txt)" = notes ] && ok "-o a text file: untouched" || bad "-o notes.txt changed it"

"$C" fit "$M" data.csv > out.txt 2> err.txt
[ $? -eq 2 ] && [ "$(cat err.txt)" = "cradle: fit: name the fields to fit with --vary PATH[=LO:HI]" ] \
    && ok "usage: no --vary (exit 2)" || bad "no --vary: $(cat err.txt)"

# a fit that does not converge: the last iterate, exit 4, the file kept
"$C" fit "$M" data.csv --set contact.C=1.5e4 --set contact.K=1.3e10 --vary contact.C=0:1e5 \
    --vary contact.K --max-iter 1 -o nc.h5 > out.txt 2> err.txt
rc=$?
[ $rc -eq 4 ] && [ "$(cat err.txt)" = "cradle: fit: the fit did not converge: iteration limit reached after 1 iterations; written to nc.h5" ] \
    && grep -q "NOT converged" out.txt && ok "not converged: exit 4, reported" || bad "not converged: rc $rc: $(cat err.txt)"
[ "$(h5dump -a /fit/status nc.h5 2>/dev/null | sed -n 's/.*(0): "\(.*\)"/\1/p')" = not-converged ] \
    && ok "not converged: nc.h5 kept with status not-converged" || bad "nc.h5 status"
finish fit-cli
