#!/bin/sh
# Quickstart: install what is missing, configure, build, and run the main job
# (a 5-ball Newton's cradle) writing cradle-out.h5. Extra arguments go to
# `cradle run` (a model file, -o FILE).
set -eu
cd "$(dirname "$0")/.."
# one line per stage with its elapsed time (the first run builds SUNDIALS)
t0=$(date +%s)
stage() { echo "quickstart: $* ($(($(date +%s) - t0)) s)"; }
sh tools/install-deps.sh
stage "dependencies ready"
[ -f build/build.ninja ] || meson setup build --buildtype=release -Dwerror=true -Dmpi=enabled >/dev/null
if ! ninja -C build > build/ninja.log 2>&1; then
    cat build/ninja.log >&2
    echo "quickstart: build failed" >&2
    exit 1
fi
stage "cradle built (build/tools/cradle); running the main job"
exec ./build/tools/cradle run "$@"
