#!/bin/sh
# Runs one libFuzzer target on the corpus kept in the repository, which it
# never modifies (new inputs go to a scratch folder): first every corpus input,
# then a fixed number of mutations from a fixed seed (-runs, -seed), so a test
# run is deterministic.
# usage: run-fuzz.sh TARGET DICT RUNS CORPUS_DIR [SEED_SCRIPT ARG...]
#   SEED_SCRIPT ARG... OUTDIR makes more seed inputs first (make-seeds.sh: files
#   written by this build); its OUTDIR/NAME/ joins the corpus of fuzz-NAME.
#   CR_FUZZ_RUNS, CR_FUZZ_SEED override RUNS and the seed (1); CR_FUZZ_SECONDS
#   runs for that long instead (the long campaigns of docs/errors.md), and
#   CR_FUZZ_KEEP=DIR keeps the inputs it found there.
# Prints the fuzzer's last status line and "fuzz-NAME: 1 passed, 0 failed" (or
# 0 passed, 1 failed with the crash input kept next to the build).
set -u
target=$1
dict=$2
runs=${CR_FUZZ_RUNS:-$3}
corpus=$4
shift 4
name=$(basename "$target")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
artifacts=$(dirname "$target")/artifacts-$name
mkdir -p "$artifacts" "$scratch/new"
dirs=$corpus
if [ $# -gt 0 ]; then
    if ! "$@" "$scratch/seeds" > "$scratch/seeds.log" 2>&1; then
        cat "$scratch/seeds.log"
        echo "$name: 0 passed, 1 failed"
        exit 1
    fi
    dirs="$dirs $scratch/seeds/${name#fuzz-}"
fi
if [ -n "${CR_FUZZ_SECONDS:-}" ]; then
    limit="-max_total_time=$CR_FUZZ_SECONDS"
else
    limit="-runs=$runs"
fi
out=${CR_FUZZ_KEEP:-$scratch/new}
mkdir -p "$out"
# -timeout: one input taking 10 s is a hang; -rss_limit_mb: the readers' caps
# keep memory far below 2 GB; leaks count as failures (LeakSanitizer).
# -malloc_limit_mb and allocator_may_return_null: HDF5 1.10 mallocs what a
# damaged size field says (a local heap of 5 GB) and then fails its read
# beyond the end of the file; glibc gives or refuses such a block without
# touching it, so a single large malloc is not a failure here, while memory
# really used still is (-rss_limit_mb).
# shellcheck disable=SC2086
ASAN_OPTIONS=${ASAN_OPTIONS:-}:allocator_may_return_null=1 \
LSAN_OPTIONS=${LSAN_OPTIONS:-}:suppressions=$(dirname "$0")/lsan-hdf5.supp:print_suppressions=0 \
"$target" $limit -seed="${CR_FUZZ_SEED:-1}" -timeout=10 -rss_limit_mb=2048 \
    -malloc_limit_mb=65536 -print_final_stats=1 \
    -dict="$dict" -artifact_prefix="$artifacts/" "$out" $dirs > "$scratch/log" 2>&1
status=$?
grep -E "^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)" "$scratch/log" | tail -1
grep -E "^stat::(number_of_executed_units|peak_rss_mb)|^Done " "$scratch/log"
# one check (no crash, leak, timeout or sanitizer report in the run), however
# many inputs it ran: counted as behaviour (tests/testutil.h's classes)
if [ $status -eq 0 ]; then
    echo "$name: 1 passed, 0 failed"
    echo "$name: classes reference 0, invariant 0, self-consistency 0, behaviour 1; passes 1"
else
    grep -E "ERROR|SUMMARY|==[0-9]+==|runtime error|Test unit written|#[0-9]+ 0x" "$scratch/log" | head -30
    echo "$name: 0 passed, 1 failed"
    echo "$name: classes reference 0, invariant 0, self-consistency 0, behaviour 1; passes 0"
    status=1 # libFuzzer's own failure status is 77, which meson reads as "skipped"
fi
exit $status
