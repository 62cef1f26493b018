#!/bin/sh
# A Debian package (issue 27 item 3): tools/build-deb.sh builds cradle_*.deb
# from a copy of the tree with `DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage
# -b -us -uc` against Debian's libsundials-dev; the package is inspected with
# dpkg-deb -c (CLI, cradle-plot, library, headers, cradle.pc, models, law
# cases, tables, docs, Python package, man pages), its control fields (Debian's
# SUNDIALS among the Depends), extracted with dpkg-deb -x into the scratch
# folder, where `cradle` has no run path (policy) and links Debian's shared
# SUNDIALS, runs the packaged default model with the build's numbers, the
# Python package imports with the library's path recorded, and lintian
# reports neither error nor warning (debian/cradle.lintian-overrides says
# why for the two it overrides). Skipped (exit 77) without dpkg-buildpackage,
# debhelper or lintian (tools/install-deps.sh --tests installs them).
# One more compilation of the project (-O2, no test programs): ~2 min.
# usage: test-debian-package.sh CRADLE SOURCE
set -u
CRADLE=$1
SOURCE=$2
. "$(dirname "$0")/shell-lib.sh"
for t in dpkg-buildpackage dh lintian; do
    if ! command -v $t > /dev/null 2>&1; then
        echo "debian-package: $t not installed (dpkg-dev, debhelper, lintian): skipped"
        exit 77
    fi
done

t0=$(date +%s)
if DEB_BUILD_OPTIONS="nocheck noddebs" sh "$SOURCE/tools/build-deb.sh" "$work" > build.out 2>&1; then
    ok "dpkg-buildpackage -b -us -uc builds the package (tools/build-deb.sh)"
else
    cat build.out
    bad "the package build failed"
    finish debian-package
    exit 1
fi
echo "debian-package: package built in $(($(date +%s) - t0)) s"
deb=$(tail -1 build.out)

# its contents
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' > contents
for f in /usr/bin/cradle /usr/bin/cradle-plot /usr/include/cradle/cradle.h \
    /usr/lib/python3/dist-packages/cradle/__init__.py /usr/lib/python3/dist-packages/cradle/_config.py \
    /usr/share/cradle/models/newton-cradle-5.yaml /usr/share/cradle/cases/three-ball-chain.yaml \
    /usr/share/man/man1/cradle.1.gz /usr/share/man/man1/cradle-plot.1.gz; do
    grep -qx "$f" contents && ok "dpkg-deb -c: $f" || bad "dpkg-deb -c: no $f"
done
for f in libcradle.so.0 libcradle.so pkgconfig/cradle.pc; do
    grep -q "^/usr/lib/[^/]*/$(printf %s "$f" | sed 's/\./\\./g')\$" contents &&
        ok "dpkg-deb -c: /usr/lib/ARCH/$f" || bad "dpkg-deb -c: no /usr/lib/ARCH/$f"
done
# the docs (compressed by dh_compress above 4 kB)
for f in README.md errors.md python.md validation/hertz.png; do
    grep -q "^/usr/share/doc/cradle/$f\(\.gz\)\?\$" contents && ok "dpkg-deb -c: doc $f" ||
        bad "dpkg-deb -c: no doc $f"
done
ntab=$(grep -c '^/usr/share/cradle/data/.*\.h5$' contents)
nsrc=$(ls "$SOURCE"/data/*.h5 | wc -l)
[ "$ntab" -eq "$nsrc" ] && ok "dpkg-deb -c: the $nsrc reference tables of data/" ||
    bad "dpkg-deb -c: $ntab tables, data/ has $nsrc"
grep -q '^/usr/local\|^/home\|^/work\|^/tmp' contents && bad "dpkg-deb -c: a path outside /usr" ||
    ok "dpkg-deb -c: every path under /usr"
deps=$(dpkg-deb -f "$deb" Depends)
case $deps in
    *libsundials-cvodes*python3-h5py*) ok "Depends: Debian's SUNDIALS and python3-h5py" ;;
    *) bad "Depends: $deps" ;;
esac

# extracted
dpkg-deb -x "$deb" x
libdir=$(dirname "$(find x/usr/lib -name 'libcradle.so.0' | head -1)")
readelf -d x/usr/bin/cradle > cradle.dyn
grep -q 'RPATH\|RUNPATH' cradle.dyn && bad "packaged cradle has a run path (policy)" ||
    ok "packaged cradle: no run path"
grep -q 'NEEDED.*libcradle\.so\.0' cradle.dyn && ok "packaged cradle links libcradle.so.0" ||
    bad "packaged cradle does not link libcradle.so.0"
readelf -d "$libdir/libcradle.so.0" | grep -q 'NEEDED.*libsundials_cvodes\.so' &&
    ok "packaged libcradle links Debian's shared SUNDIALS" || bad "packaged libcradle: no libsundials_cvodes.so"
grep -q '^prefix=/usr$' "$libdir/pkgconfig/cradle.pc" && ok "cradle.pc: prefix /usr" ||
    bad "cradle.pc: $(head -1 "$libdir/pkgconfig/cradle.pc")"
if LD_LIBRARY_PATH="$libdir" x/usr/bin/cradle run x/usr/share/cradle/models/newton-cradle-5.yaml -q \
    --json -o deb.h5 > deb.json 2> deb.err; then
    ok "packaged cradle runs the packaged default model"
else
    bad "packaged cradle: $(head -2 deb.err)"
fi
"$CRADLE" run "$SOURCE/models/newton-cradle-5.yaml" -q --json -o build.h5 > build.json
# Debian's SUNDIALS and -O2 against the build's: the same method and
# tolerances, rounding differs (the model's rtol is 1e-10)
"$PY" - deb.json build.json << 'PY' && ok "packaged cradle: the build's final velocities within 1e-8 m/s" self ||
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
va, vb = a["final_velocities"], b["final_velocities"]
print("debian-package: largest final-velocity difference %.2g m/s"
      % max(abs(x - y) for x, y in zip(va, vb)))
sys.exit(0 if len(va) == 5 and all(abs(x - y) <= 1e-8 for x, y in zip(va, vb)) else 1)
PY
    bad "packaged cradle: final velocities differ from the build's"
py=$(PYTHONPATH=x/usr/lib/python3/dist-packages "$PY" -c \
    "import cradle, os; from cradle import _config; print(os.path.relpath(cradle.__file__), _config.LIBDIR)" 2>&1)
case $py in
    "x/usr/lib/python3/dist-packages/cradle/__init__.py /usr/lib/"*) ok "packaged Python package imports; libcradle in /usr/lib" ;;
    *) bad "packaged Python package: $py" ;;
esac
grep -q '^_PYDIR = "/usr/lib/python3/dist-packages"$' x/usr/bin/cradle-plot &&
    ok "packaged cradle-plot looks in /usr/lib/python3/dist-packages" || bad "packaged cradle-plot: $(grep '^_PYDIR' x/usr/bin/cradle-plot)"

# lintian: no error, no warning
if lintian --fail-on error,warning "$deb" > lintian.out 2>&1; then
    ok "lintian: no error, no warning"
else
    cat lintian.out
    bad "lintian"
fi
finish debian-package
