#!/bin/sh
# Install anywhere (issue 27 item 2): the project configured for a user
# prefix (a scratch folder; -Dstatic_cli=disabled, so `cradle` links
# libcradle.so like every program of the user; -Dtests=false), built and
# installed with `meson install`, then used with no environment variable
# (env -i): the installed `cradle` runs (its run path, $ORIGIN-relative) and
# gives the build's numbers; a C program built as the README says,
#   cc prog.c $(pkg-config --cflags --libs cradle) \
#       -Wl,-rpath,$(pkg-config --variable=libdir cradle)
# runs and reads the installed default model; the installed cradle-plot and
# `cradle run --plot` find the installed Python package, which is not on
# sys.path; with that package gone, or a module it needs hidden, cradle-plot
# names what is missing. One more compilation of the library (-O0): ~40 s.
# usage: test-install-prefix.sh CRADLE SOURCE
set -u
CRADLE=$1
SOURCE=$2
. "$(dirname "$0")/shell-lib.sh"
P="$work/prefix"
# nothing of the caller's environment: no LD_LIBRARY_PATH, no PYTHONPATH
bare() { env -i PATH=/usr/bin:/bin "$@"; }

if ! meson setup build "$SOURCE" --prefix="$P" --buildtype=plain -Dtests=false \
    -Dstatic_cli=disabled -Dmpi=disabled > setup.log 2>&1 || ! ninja -C build > build.log 2>&1 ||
    ! meson install -C build --quiet > install.log 2>&1; then
    tail -20 setup.log build.log install.log
    bad "configure, build and install at a user prefix"
    finish install-prefix
    exit 1
fi
ok "configured, built and installed at a user prefix"

# the installed cradle: a run path relative to itself, and the build's numbers
rpath=$(readelf -d "$P/bin/cradle" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
case $rpath in
    '$ORIGIN/../lib/'*) ok "installed cradle: run path $rpath" ;;
    *) bad "installed cradle: run path '$rpath', not \$ORIGIN/../lib/..." ;;
esac
readelf -d "$P/bin/cradle" | grep -q 'NEEDED.*libcradle\.so' &&
    ok "installed cradle links libcradle.so (what the run path is for)" ||
    bad "installed cradle does not link libcradle.so"
if bare "$P/bin/cradle" run -q --json -o run.h5 > installed.json 2> installed.err; then
    ok "installed cradle runs the default model with no environment"
else
    bad "installed cradle, no environment: $(head -2 installed.err)"
fi
"$CRADLE" run -q --json -o build.h5 > build.json
"$PY" - installed.json build.json << 'PY' && ok "installed cradle: the build's final velocities (default model)" self ||
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
va, vb = a["final_velocities"], b["final_velocities"]
sys.exit(0 if len(va) == 5 and all(abs(x - y) <= 1e-9 * (1 + abs(y)) for x, y in zip(va, vb)) else 1)
PY
    bad "installed cradle: final velocities differ from the build's"

# a program of the user, built as the README says
cat > prog.c << 'C'
#include <stdio.h>
#include <cradle/cradle.h>
int main(int argc, char **argv)
{
    cr_model *m = NULL;
    char msg[256];
    if (argc < 2 || cr_modelfile_load(argv[1], &m, NULL, msg, sizeof msg) != CR_OK)
        return 1;
    printf("%s %zu\n", cr_version(), cr_model_body_count(m));
    cr_model_destroy(m);
    return 0;
}
C
pcdir=$(dirname "$(find "$P" -name cradle.pc | head -1)")
export PKG_CONFIG_PATH="$pcdir"
# shellcheck disable=SC2046
if cc prog.c -o prog $(pkg-config --cflags --libs cradle) \
    -Wl,-rpath,"$(pkg-config --variable=libdir cradle)" 2> cc.err; then
    ok "a user program compiles and links with pkg-config and the documented -Wl,-rpath"
else
    bad "user program: $(head -3 cc.err)"
fi
unset PKG_CONFIG_PATH
# the reference: the default model is a 5-ball cradle (models/newton-cradle-5.yaml)
out=$(bare ./prog "$P/share/cradle/models/newton-cradle-5.yaml" 2>&1)
[ "$out" = "0.1.0 5" ] && ok "user program runs with no environment: libcradle reads the installed 5-ball model" ref ||
    bad "user program with no environment: '$out'"

# cradle-plot and --plot find the installed package (not on sys.path)
pkg=$(dirname "$(find "$P" -path '*/cradle/__init__.py' | head -1)")
bare /usr/bin/python3 -c "import cradle" 2> /dev/null &&
    bad "the prefix's package is on sys.path: the check below proves nothing" ||
    ok "the prefix's Python package is not on the default sys.path"
if ! /usr/bin/python3 -c "import matplotlib, h5py" 2> /dev/null; then
    echo "install-prefix: no python3-matplotlib or python3-h5py: cradle-plot checks skipped"
else
    bare "$P/bin/cradle-plot" run.h5 --kind energy > plot.out 2> plot.err &&
        [ -s run-energy.png ] && ok "installed cradle-plot, no environment: writes its figure" ||
        bad "installed cradle-plot: $(head -2 plot.err)"
    bare "$P/bin/cradle" run -q --plot -o plotted.h5 2> runplot.err && [ -s plotted-energy.png ] &&
        ok "installed cradle run --plot, no environment: exit 0 and figures" ||
        bad "installed cradle run --plot: $(head -2 runplot.err)"
    # a module the package needs, hidden: named with its Debian package
    mkdir -p hide/matplotlib
    echo 'raise ModuleNotFoundError("No module named matplotlib", name="matplotlib")' \
        > hide/matplotlib/__init__.py
    env -i PATH=/usr/bin:/bin PYTHONPATH="$work/hide" "$P/bin/cradle-plot" run.h5 > /dev/null 2> hidden.err
    st=$?
    [ $st -eq 3 ] && grep -q "Python module matplotlib is missing (Debian: apt-get install python3-matplotlib)" hidden.err &&
        ok "cradle-plot, matplotlib missing: exit 3 naming python3-matplotlib" ||
        bad "cradle-plot, matplotlib missing: exit $st, $(cat hidden.err)"
fi
# the package itself gone: said so, not a Debian package to install
mv "$pkg" "$work/moved-package"
bare "$P/bin/cradle-plot" run.h5 > /dev/null 2> gone.err
st=$?
[ $st -eq 3 ] && grep -q "the cradle Python package is not installed where this cradle-plot looks" gone.err &&
    ! grep -q "apt-get" gone.err && ok "cradle-plot, its package gone: exit 3 saying so" ||
    bad "cradle-plot, package gone: exit $st, $(cat gone.err)"
finish install-prefix
