#!/bin/sh
# Tests: install what is missing, then two builds with warnings as errors:
#   build/        gcc, release (-O3, what tools/quickstart.sh builds: its warnings
#                 are the quickstart's) with MPI (-Dmpi=enabled), the whole suite with the valgrind
#                 (memcheck) reruns; test-sweep.sh runs `mpirun -n 2 cradle sweep`
#                 there and compares its table with the serial one;
#   build-clang/  clang-14 with AddressSanitizer + UndefinedBehaviorSanitizer, the
#                 whole suite again except the valgrind reruns (valgrind cannot run
#                 sanitized programs), plus the libFuzzer targets for the model-file,
#                 law-case, run-file and table readers, each replaying its corpus
#                 then a fixed number of inputs from a fixed seed (deterministic;
#                 CR_FUZZ_RUNS, CR_FUZZ_SEED, or CR_FUZZ_SECONDS for a timed run);
#                 built without MPI, which shows that the serial build needs none.
# Prints meson's summaries, then the total of individual checks: each distinct
# check once (reruns under valgrind or the sanitizers are not extra checks; a
# check that fails in any run counts as failed), and the tests that failed.
set -u
cd "$(dirname "$0")/.." || exit 1
sh tools/install-deps.sh || exit 1

if [ ! -f build/build.ninja ]; then
    meson setup build --buildtype=release -Dwerror=true -Dmpi=enabled >/dev/null || exit 1
fi
# an older build/ made without MPI or release: switch them on (only then: any
# `meson configure` makes the next ninja regenerate the build files)
if ! python3 -c 'import json, sys
o = {x["name"]: x["value"] for x in json.load(open("build/meson-info/intro-buildoptions.json"))}
sys.exit(o.get("mpi") != "enabled" or o.get("buildtype") != "release")'; then
    meson configure build --buildtype=release -Dmpi=enabled >/dev/null || exit 1
fi
ninja -C build || exit 1
meson test -C build --print-errorlogs
status=$?

if [ ! -f build-clang/build.ninja ]; then
    CC=clang-14 meson setup build-clang -Dwerror=true -Db_sanitize=address,undefined \
        -Db_lundef=false -Dfuzzing=true >/dev/null || exit 1
fi
ninja -C build-clang || exit 1
# UBSan only prints by default: stop at the first report so the test fails.
# CR_NO_VALGRIND tells the shell tests to leave valgrind out here.
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
    CR_NO_VALGRIND=1 meson test -C build-clang --print-errorlogs
[ $? -eq 0 ] || status=1

# Every test program ends with "<name>: N passed, N failed" (the shell tests and
# the fuzz runs too). Per name: checks = the most any run reported, failed = the
# most any run failed. Tests whose result is not exit status 0 are listed: a
# program that crashed before its summary line has no count to add.
awk '
/^[a-z][a-z-]*: [0-9]+ passed, [0-9]+ failed$/ {
    name = $1; p = $2; f = $4
    if (p + f > total[name]) total[name] = p + f
    if (f > failed[name]) failed[name] = f
    next
}
/^test: / { sub(/^test: +/, ""); test = $0; next }
/^result: / {
    if ($0 !~ /exit status (0|77)$/) { bad = bad sep FILENAME ": " test " (" substr($0, 15) ")"; sep = "; " }
}
END {
    for (n in total) { P += total[n] - failed[n]; F += failed[n] }
    printf "%d passed, %d failed (each distinct check once)\n", P, F
    if (bad != "") printf "FAILED: %s\n", bad
}' build/meson-logs/testlog.txt build-clang/meson-logs/testlog.txt
exit $status
