#!/bin/sh
# Seed corpora of the HDF5 readers' fuzz targets, made from the current build
# (so they follow the layout when the writers change): valid files written by
# cradle, and the crafted inconsistent ones of tests/make-untrusted.py.
# usage: make-seeds.sh CRADLE SOURCE_ROOT OUTDIR
#   OUTDIR/runfile/: run files (chain, pool, rigid, with /comparison) + crafted
#   OUTDIR/table/:   a reference table, a sweep output with failed points + crafted
set -eu
CRADLE=$1
ROOT=$2
OUT=$3
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
mkdir -p "$OUT/runfile" "$OUT/table" "$OUT/work"
W=$OUT/work
M=$ROOT/models
"$CRADLE" run -q "$M/three-ball-chain.yaml" -o "$OUT/runfile/chain3.h5"
"$CRADLE" run -q "$M/hertz-pair.yaml" -o "$OUT/runfile/pair.h5"
"$CRADLE" run -q "$M/pool-theta-tau.yaml" -o "$OUT/runfile/pool.h5"
"$CRADLE" run -q "$M/sphere-triple.yaml" -o "$OUT/runfile/spheres.h5"
"$CRADLE" run -q "$M/three-ball-chain.yaml" --rigid newton -o "$OUT/runfile/rigid.h5"
"$CRADLE" run -q "$M/newton-cradle-5.yaml" --compare -o "$OUT/runfile/compared.h5" > /dev/null
# format 3's chosen output: some fields and bodies, and no trajectory at all
"$CRADLE" run -q "$M/three-ball-chain.yaml" --set 'output.bodies=[0, 2]' \
    --set 'output.fields=[velocity, force]' -o "$OUT/runfile/chosen.h5"
"$CRADLE" run -q "$M/pool-theta-tau.yaml" --set output=none -o "$OUT/runfile/pool-none.h5"
cp "$ROOT/data/chain3-gap.h5" "$OUT/table/chain3-gap.h5"
"$CRADLE" sweep -q "$ROOT/tests/data/sweep-test.yaml" -o "$OUT/table/sweep.h5" -j 1
"$PY" "$ROOT/tests/make-untrusted.py" "$OUT/runfile/chain3.h5" "$OUT/table/chain3-gap.h5" "$W" > "$W/names"
while read -r name; do
    case $name in
    ep-* | contacts-* | model-* | format-* | heap-* | attr-*) mv "$W/$name.h5" "$OUT/runfile/" ;;
    *) mv "$W/$name.h5" "$OUT/table/" ;;
    esac
done < "$W/names"
rm -rf "$W"
