#!/bin/sh
# bench/peers: cradle against LAMMPS on issue 12's cases (docs/performance.md,
# "Against LAMMPS"). Installs LAMMPS and matplotlib from Debian when missing
# (setup.sh; without LAMMPS only cradle's side runs), builds the driver, runs
# the cases, writes BUILD/peers/results.json and the accuracy-vs-cost plot
# BUILD/peers/accuracy-vs-cost.png. Arguments go to peers.py (--quick: the
# 3- and 5-ball cases only, a few minutes; --scaling 100,1000,10000,100000:
# the traversal scaling instead, active region and whole chain; --whole [--rounds
# N]: whole.py, `cradle run` at default settings against one output row and
# LAMMPS with and without a dump, about 15 minutes; --active-check
# 1e-8,1e-10,1e-12: the 1000-bead chain with and without the active region
# against the whole chain at rtol 1e-13, several minutes). Prints only; never
# fails on a number.
# BUILD is ./build, or $MESON_BUILD_ROOT under `ninja bench-peers`.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${MESON_BUILD_ROOT:-$here/../../build}
sh "$here/setup.sh"
ninja -C "$build" bench/peers-cradle tools/cradle >/dev/null
mkdir -p "$build/peers"
if [ "${1:-}" = "--whole" ]; then # issue 22: whole processes, writer on and off, against lmp
    shift
    exec python3 "$here/whole.py" --build "$build" "$@"
fi
python3 "$here/peers.py" --build "$build" --json "$build/peers/results.json" "$@"
case " $* " in *" --scaling "* | *" --active-check "*) exit 0 ;; esac
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    /usr/bin/python3 "$here/plot.py" "$build/peers/results.json" "$build/peers/accuracy-vs-cost.png" &&
        echo "bench/peers: plot in $build/peers/accuracy-vs-cost.png"
else
    echo "bench/peers: no matplotlib for /usr/bin/python3: no plot"
fi
