#!/bin/sh
# Our own HDF5 files as untrusted input (issue 23; docs/errors.md, "Files
# cradle reads back"). Crafted run files, sweep outputs and tables
# (tests/make-untrusted.py: one defect each, in the data or in HDF5's own
# structures) go to every reader: `cradle law --input RUN --episode 0`,
# `cradle compare RUN`, `cradle table info|lookup`, `cradle compare --table`,
# `cradle run --rigid energetic --table`, a resumed `cradle sweep`, and (not
# in the sanitizer build, which Python cannot load) cradle.read and
# cradle-plot. Each must end with the documented exit status, one line on
# stderr naming the file and the dataset, no signal, no hang (60 s), no file
# created or changed. Then a byte-mutation loop with a fixed seed over the C
# readers, cradle.read and cradle-plot (tests/mutate-readers.py).
# usage: test-untrusted.sh CRADLE SOURCE_ROOT [python]
set -u
CRADLE=$1
ROOT=$2
PYTHON_PARTS=${3:-}
. "$(dirname "$0")/shell-lib.sh"
M=$ROOT/models
# the sanitizer build: HDF5's own leaks on damaged files are not cradle's, and
# a damaged size field makes HDF5 malloc terabytes, which glibc refuses (NULL,
# then an HDF5 error) where ASan would abort
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$ROOT/tests/fuzz/lsan-hdf5.supp:print_suppressions=0"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1"

"$CRADLE" run -q "$M/newton-cradle-5.yaml" -o run.h5 || { bad "a run file to craft from"; finish untrusted; exit 1; }
cp "$ROOT/data/restitution-gap.h5" table.h5
cat > s.yaml <<EOF
name: untrusted
model: $M/three-ball-chain.yaml
axes:
  - {field: 'balls[1].mass', key: m2/m1, values: [1, 2]}
EOF
"$CRADLE" sweep -q s.yaml -o sweep.h5 -j 1 || bad "a sweep output to craft from"
"$PY" "$ROOT/tests/make-untrusted.py" run.h5 table.h5 crafted > names.txt &&
    "$PY" "$ROOT/tests/make-untrusted.py" --sweep sweep.h5 resume > /dev/null ||
    { bad "make-untrusted.py"; finish untrusted; exit 1; }

# every file of this folder with its checksum (names and contents)
snapshot() { find . -type f ! -name out.txt ! -name err.txt | sort | xargs sha256sum; }

# expect LABEL STATUS PATTERN CMD...: exit status STATUS (never a signal), one
# line on stderr matching the extended regex PATTERN, within 60 s, and no file
# of the folder created, removed or changed.
expect() {
    x_label=$1 x_want=$2 x_pat=$3
    shift 3
    x_before=$(snapshot)
    timeout 60 "$@" > out.txt 2> err.all < /dev/null
    x_st=$?
    # the sanitizer build's note of an allocation it refused is not our line
    grep -v "WARNING: AddressSanitizer failed to allocate" err.all > err.txt
    rm -f err.all
    x_after=$(snapshot)
    if [ $x_st -eq "$x_want" ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -qE -- "$x_pat" err.txt &&
        [ "$x_before" = "$x_after" ]; then
        ok "$x_label"
    else
        [ "$x_before" = "$x_after" ] || echo "  files changed"
        bad "$x_label: status $x_st (want $x_want): $(head -c 400 err.txt)"
    fi
}

# ---- run files: law --input and compare -------------------------------------------
while read -r name pat; do
    f=crafted/$name.h5
    expect "law --input $name" 3 "^cradle: $f: $pat" "$CRADLE" law newton --input "$f" --episode 0
    expect "compare $name" 3 "^cradle: $f: $pat" "$CRADLE" compare "$f" --csv
done <<'EOF'
ep-short-record /episode/0000/bodies: shape \(5\) where \(1\) is expected
ep-long-record /episodes row 0: body_count 6: the model has 5 bodies
ep-mass-longer /episode/0000/mass: shape \(7\) where \(5\) is expected
ep-velocity-rank /episode/0000/velocity_after: shape \(5\) where \(5, 1\) is expected
ep-group-missing /episode/0000: missing
ep-count-huge /episodes row 0: contact_count 4611686018427387904
ep-velocity-nan /episode/0000/velocity_after: a value that is not a finite number
ep-velocity-huge /episode/0000/velocity_before: a value that is not a finite number
ep-mass-zero /episode/0000/mass: body 1: mass 0 \(1e-100 .. 1e100 kg
ep-mass-tiny /episode/0000/mass: body 1: mass 1e-300
ep-normal-zero /episode/0000/normal: not unit vectors
ep-impulse-inf /episode/0000/contacts: row 0: an impulse or a velocity that is not a finite number
ep-contact-index /episode/0000/contacts: row 0: contact 1000000 \(/contacts has 4 rows\)
ep-body-outside /episode/0000/contacts: row 0: bodies 1000000 and 1
ep-bodies-unsorted /episode/0000/bodies: body 0 at 1: not increasing
ep-reference-record /episodes row 0: reference_record 99: the episode has 4 records
ep-T-minus-zero /episodes row 0: T_minus = 0
contacts-law-negative /contacts row 0: K = -1, .*not a contact law
model-dim /model: attribute 'dim' is 7 \(1, 2 or 3\)
format-version a run file of format version 99, newer than this cradle reads \(2 to 3\)
format-version-old a run file of format version 1; this cradle reads versions 2 to 3
format-version-string attribute 'format_version': not an integer
heap-object-larger attribute 'status': its string's global heap collection \(address [0-9]+\) is damaged
heap-index attribute 'status': its string is not in its global heap collection \(object 1048560\)
heap-free-zero attribute 'status': its string's global heap collection \(address [0-9]+\) is damaged
heap-collection-size attribute 'status': its string's global heap collection .* claims 4294967296 bytes
heap-string-length attribute 'status': a string of 2147483647 bytes, more than the 64
attr-sizes attribute '[a-z_]+': a damaged attribute message
EOF
expect "compare a table as a run file" 3 "^cradle: table.h5: a file of kind 'cradle sweep', not a run file" \
    "$CRADLE" compare table.h5

# ---- tables: info, lookup, --table ------------------------------------------------------
while read -r name pat; do
    f=crafted/$name.h5
    expect "table info $name" 3 "^cradle: $f: $pat" "$CRADLE" table info "$f"
    expect "table lookup $name" 3 "$f: $pat" "$CRADLE" table lookup "$f" eps=0.01
    expect "compare --table $name" 3 "$f: $pat" "$CRADLE" compare "$M/three-ball-chain.yaml" --table "$f"
    expect "run --rigid energetic --table $name" 3 "$f: $pat" \
        "$CRADLE" run "$M/three-ball-chain.yaml" --rigid energetic --table "$f" -o rigid.h5
done <<'EOF'
done-longer /done: shape \(161\) where \(61\) is expected
done-shorter /done: shape \(60\) where \(61\) is expected
done-value /done: point 0: 7 \(0 or 1\)
error-longer /error: shape \(111\) where \(61\) is expected
columns-shorter /columns: shape \(47\) where \(52\) is expected
inputs-text-shape /inputs/text: shape \(60, 1\) where \(61, 1\) is expected
table-rank /table: rank 1 \(points x columns expected\)
table-huge /table: 61 x 20000000 values: more than this reader takes
table-disagrees /table: point 5: eps = [0-9.e-]+, but /inputs/text says '0.0017782794100389228'
bound-shorter /reference/bound: shape \(51\) where \(52\) is expected
bound-negative /reference/bound: column 2: bound -1
quantity-longer /reference/quantity: shape \(2\) where \(1\) is expected
fixed-value-nan /reference/fixed_value: value 0 is not a finite number
fixed-value-missing /reference/fixed_value: missing
kind-other not a cradle sweep file \(cradle frobnicator\)
sweep-version a sweep file of format version 9; this cradle reads version 1
points-attr /table: 61 rows, the attribute 'points' says 5
table-heap-free-zero attribute 'kind': its string's global heap collection \(address [0-9]+\) is damaged
table-heap-object-larger attribute 'kind': its string's global heap collection \(address [0-9]+\) is damaged
table-heap-index attribute 'kind': its string is not in its global heap collection \(object 65536\)
EOF

# a failed point whose 256-byte error slot holds no NUL: the text ends at the
# slot (an over-read of the next slot before; ASan watches in the sanitizer build)
eps=$("$PY" -c 'import h5py, sys; print(h5py.File(sys.argv[1])["inputs/text"][3][0].decode())' crafted/error-no-nul.h5)
expect "lookup of a failed point whose error fills its slot" 3 \
    "^cradle: crafted/error-no-nul.h5: grid point 3 failed in the sweep: x{255}$" \
    "$CRADLE" table lookup crafted/error-no-nul.h5 "eps=$eps"

# ---- a damaged sweep output is not resumed (nor written into) ---------------------------
for f in resume/*.h5; do
    name=$(basename "$f" .h5)
    case $name in
    kind-other) pat="^cradle: $f: exists and is not a cradle sweep file: refusing to replace it" ;;
    table-heap-*) pat="^cradle: $f: exists and is not a cradle sweep file \($f: attribute 'kind': .*\): refusing to replace it" ;;
    *) pat="^cradle: $f: .*(refusing to resume it|format version 9)" ;;
    esac
    expect "sweep resume refuses $name" 3 "$pat" "$CRADLE" sweep -q s.yaml -o "$f"
done

# ---- Python: cradle.read and cradle-plot on the same files -------------------------------
if [ "$PYTHON_PARTS" = python ]; then
    export PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}" MPLBACKEND=Agg
    for f in crafted/*.h5; do
        name=$(basename "$f" .h5)
        # the Python sweep reader reads no /reference (bounds and the declared axes
        # are cradle table's)
        case $name in error-no-nul | bound-* | quantity-* | fixed-*) continue ;; esac
        expect "cradle.read $name" 3 "^cradle: $f: " "$PY" -c '
import sys, cradle, cradle.sweep
try:
    (cradle.sweep.read if cradle.sweep.is_sweep(sys.argv[1]) or "kind-other" in sys.argv[1]
     else cradle.read)(sys.argv[1])
except ValueError as e:
    sys.exit(print("cradle: %s" % e, file=sys.stderr) or 3)' "$f"
    done
    for name in ep-short-record heap-free-zero heap-index done-longer table-heap-free-zero; do
        f=crafted/$name.h5
        expect "cradle-plot $name" 3 "^cradle-plot: $f: " "$PY" "$ROOT/tools/cradle-plot" "$f" \
            --outdir plots
    done
fi

# ---- byte mutations with a fixed seed ---------------------------------------------------
"$PY" "$ROOT/tests/mutate-readers.py" "$CRADLE" run.h5 table.h5 ${PYTHON_PARTS:+--python "$ROOT"} \
    > mutate.txt 2>&1
st=$?
cat mutate.txt
[ $st -eq 0 ] && ok "byte mutations: no signal, no hang, one line, documented status" ||
    bad "byte mutations (above)"

finish untrusted
