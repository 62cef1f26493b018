#!/bin/sh
# Tests: install what is missing, build with warnings as errors, run the whole
# suite and print meson's summary, then the total of individual checks.
set -u
cd "$(dirname "$0")/.." || exit 1
sh tools/install-deps.sh || exit 1
if [ ! -f build/build.ninja ]; then
    meson setup build -Dwerror=true >/dev/null || exit 1
fi
ninja -C build || exit 1
meson test -C build --print-errorlogs
status=$?
# Each test program ends with "<name>: N passed, N failed"; add them up.
awk '/^test-[a-z]+: [0-9]+ passed, [0-9]+ failed$/ { p += $2; f += $4 }
     END { printf "%d passed, %d failed\n", p, f }' build/meson-logs/testlog.txt
exit $status
