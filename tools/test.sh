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
# Prints meson's summaries, then the count of checks (below: distinct checks by
# class, the validation suite's two kinds, raw passes), the tests that failed,
# and last the plain total "N passed, N failed" of distinct checks.
set -u
cd "$(dirname "$0")/.." || exit 1
sh tools/install-deps.sh --tests || exit 1

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

# Every test program ends with "<name>: N passed, N failed" (the shell tests,
# the validation suite and the fuzz runs too), N counting distinct checks: a
# (check site, case label) pair once however often it ran (tests/testutil.h,
# tests/shell-lib.sh), a pair that failed at any pass as failed. Most add
# "<name>: classes reference R, invariant I, self-consistency S, behaviour B;
# passes N" (raw passes: every evaluation). The validation suite's physics
# checks are "validation", its "the page is current" checks "validation-page".
# Per name: checks = the most any run reported (reruns under valgrind, the
# sanitizers or another integration method are not extra checks), failed =
# the most any run failed, classes and passes from that run. Tests whose
# result is not exit status 0 are listed: a program that crashed before its
# summary line has no count to add. The last line is the plain total.
awk '
/^[a-z][a-z-]*: [0-9]+ passed, [0-9]+ failed$/ {
    name = $1; p = $2; f = $4
    if (p + f > total[name]) total[name] = p + f
    if (f > failed[name]) failed[name] = f
    next
}
/^[a-z][a-z-]*: classes reference [0-9]+, invariant [0-9]+, self-consistency [0-9]+, behaviour [0-9]+; passes [0-9]+$/ {
    name = $1; gsub(/[,;]/, "")
    if ($4 + $6 + $8 + $10 >= ncls[name]) {
        ncls[name] = $4 + $6 + $8 + $10
        ref[name] = $4; inv[name] = $6; self[name] = $8; beh[name] = $10
    }
    if ($12 > passes[name]) passes[name] = $12
    next
}
/^test: / { sub(/^test: +/, ""); test = $0; next }
/^result: / {
    if ($0 !~ /exit status (0|77)$/) { bad = bad sep FILENAME ": " test " (" substr($0, 15) ")"; sep = "; " }
}
END {
    for (n in total) {
        P += total[n] - failed[n]; F += failed[n]
        if (n in ncls) {
            R += ref[n]; I += inv[n]; S += self[n]; B += beh[n]; RAW += passes[n]
            other = total[n] - ncls[n]
        } else {
            other = total[n]; RAW += total[n] - failed[n]
        }
        if (other > 0) { U += other; un = un usep n " " other; usep = ", " }
    }
    printf "distinct checks by class: reference %d, invariant %d, self-consistency %d, behaviour %d", R, I, S, B
    if (U > 0) printf "; not classed %d (%s)", U, un
    printf "\n"
    printf "validation suite: physics %d, the page is current %d\n", total["validation:"], total["validation-page:"]
    printf "raw passes (every evaluation of a check): %d\n", RAW
    if (bad != "") printf "FAILED: %s\n", bad
    printf "%d passed, %d failed\n", P, F
}' build/meson-logs/testlog.txt build-clang/meson-logs/testlog.txt
exit $status
