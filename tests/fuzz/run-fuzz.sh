#!/bin/sh
# Runs one libFuzzer target for a fixed time on the corpus kept in the
# repository, which it never modifies: new inputs go to a scratch folder.
# usage: run-fuzz.sh TARGET CORPUS_DIR [SECONDS]   (CR_FUZZ_SECONDS overrides)
# Prints the fuzzer's last status line and "fuzz-NAME: 1 passed, 0 failed" (or
# 0 passed, 1 failed with the crash input kept next to the build).
set -u
target=$1
corpus=$2
seconds=${CR_FUZZ_SECONDS:-${3:-60}}
name=$(basename "$target")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
artifacts=$(dirname "$target")/artifacts-$name
mkdir -p "$artifacts"
# -timeout: one input taking 10 s is a hang; -rss_limit_mb: the readers' caps
# keep memory far below 2 GB; leaks count as failures (LeakSanitizer).
"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -dict="$(dirname "$0")/yaml.dict" -artifact_prefix="$artifacts/" "$scratch" "$corpus" > "$scratch/log" 2>&1
status=$?
grep -E "^#[0-9]+.*(DONE|pulse|NEW|REDUCE)" "$scratch/log" | tail -1
grep -E "^stat::(number_of_executed_units|peak_rss_mb)|^Done " "$scratch/log"
# one check (no crash, leak, timeout or sanitizer report in the run), however
# many inputs it ran: counted as behaviour (tests/testutil.h's classes)
if [ $status -eq 0 ]; then
    echo "$name: 1 passed, 0 failed"
    echo "$name: classes reference 0, invariant 0, self-consistency 0, behaviour 1; passes 1"
else
    grep -E "ERROR|SUMMARY|==[0-9]+==|runtime error|Test unit written" "$scratch/log" | head -20
    echo "$name: 0 passed, 1 failed"
    echo "$name: classes reference 0, invariant 0, self-consistency 0, behaviour 1; passes 0"
fi
exit $status
