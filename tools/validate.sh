#!/bin/sh
# Regenerates docs/validation.md and its figures (docs/validation/*.png) from the
# models in models/: installs what is missing, builds, and runs every validation
# case through `cradle run` (tests/validation/validate.py --write). The test
# command runs the same cases with --check and fails when a number on the page is
# no longer what the code gives within its tolerance. Extra arguments go to
# validate.py (--keep keeps the runs' HDF5 files).
set -eu
cd "$(dirname "$0")/.."
sh tools/install-deps.sh
if [ ! -f build/build.ninja ]; then
    meson setup build -Dwerror=true >/dev/null
fi
ninja -C build >/dev/null
exec /usr/bin/python3 tests/validation/validate.py --cradle build/tools/cradle --write "$@"
