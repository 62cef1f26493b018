#!/bin/sh
# Builds the SUNDIALS modules cradle uses from Debian's own source package, at
# the installed libsundials-dev's exact version, at -O2, as static PIC
# libraries in build-deps/sundials/, which meson then prefers (meson_options.txt
# `sundials_prefix`).  Debian 12 compiles SUNDIALS 6.4.1 without optimisation
# (debian/rules sets CMAKE_C_FLAGS=-fcommon, replacing the default flags, and
# 6.4 sets no build type); the same source at -O2 takes the same steps to the
# same results, 2-3x faster (docs/performance.md).
#
# Called by tools/install-deps.sh.  Prints one line saying which SUNDIALS the
# build will use.  Never fails: when the source cannot be fetched (no network,
# the version has left the archive) or the build fails, it falls back to the
# system package and says so (details in build-deps/sundials-build.log).
# Idempotent: skips when build-deps/sundials/ holds the same recipe; a build of
# another version or recipe is replaced, or removed when the rebuild fails.
# CRADLE_SUNDIALS=system skips the build (meson then uses the system package
# unless an earlier optimised build is still in build-deps/; meson's option
# -Dsundials_prefix=system is the switch for a build directory).
#
# The source comes through a private apt configuration (a copy of the Debian
# sources with `Types: deb-src` and its own lists and cache directories under
# build-deps/); the system's apt sources, lists and cache are never touched.
set -u
cd "$(dirname "$0")/.." || exit 0
root=$(pwd)
deps=$root/build-deps
prefix=$deps/sundials
work=$deps/sundials-work
log=$deps/sundials-build.log

# Bump when the recipe below changes, so an older build is redone.
recipe=2
cflags="-O2 -g -fcommon"

say() { echo "install-deps: SUNDIALS: $*"; }
# A build directory configured before this build existed keeps the system
# package (meson looks for build-deps/sundials when it configures), unless it
# was asked for with -Dsundials_prefix.
stale_build_dir() {
    if [ -f "$root/build/build.ninja" ] &&
        ! grep -q "build-deps/sundials/lib" "$root/build/build.ninja" &&
        ! grep -q "^sundials_prefix = " "$root/build/meson-private/cmd_line.txt" 2>/dev/null; then
        echo "; build/ links the system one until \`meson setup --reconfigure build\`"
    fi
}
fallback() {
    say "system package (unoptimised): $*"
    # A stale build (other version or recipe) must not be picked up by meson.
    rm -rf "$work" "$prefix.new" "$prefix"
    exit 0
}

if [ "${CRADLE_SUNDIALS:-}" = system ]; then
    say "not built (CRADLE_SUNDIALS=system); meson uses the system package unless build-deps/sundials exists"
    exit 0
fi

srcpkg=$(dpkg-query -W -f='${source:Package}' libsundials-dev 2>/dev/null) || srcpkg=""
srcver=$(dpkg-query -W -f='${source:Version}' libsundials-dev 2>/dev/null) || srcver=""
if [ -z "$srcpkg" ] || [ -z "$srcver" ]; then
    fallback "libsundials-dev is not installed"
fi
upver=${srcver#*:}
upver=${upver%%+*}
upver=${upver%%-*}
stamp="$srcpkg $srcver recipe $recipe cflags $cflags"

mkdir -p "$deps" || fallback "cannot create $deps"
# The build area is never committed; a .gitignore inside keeps it out of git.
[ -f "$deps/.gitignore" ] || echo '*' > "$deps/.gitignore"
# Two install steps at once (quickstart and tests in parallel) take turns.
if command -v flock >/dev/null 2>&1; then
    exec 9> "$deps/sundials.lock"
    flock 9
fi

if [ -f "$prefix/cradle-build.stamp" ] && [ "$(cat "$prefix/cradle-build.stamp")" = "$stamp" ]; then
    say "optimised static $upver (build-deps/sundials), already built$(stale_build_dir)"
    exit 0
fi

for tool in cmake apt-get dpkg-source cc; do
    command -v "$tool" >/dev/null 2>&1 || fallback "$tool not found"
done
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null) || ma=$(cc -print-multiarch)
if [ ! -f /usr/include/suitesparse/klu.h ] || [ ! -f "/usr/lib/$ma/libklu.so" ]; then
    fallback "KLU headers or library missing (libsuitesparse-dev)"
fi

rm -rf "$work" "$prefix.new"
mkdir -p "$work/apt/sources.list.d" "$work/apt/lists/partial" \
    "$work/apt/cache/archives/partial" "$work/src" || fallback "cannot create $work"
: > "$log"

# Source entries for the same archives the system uses: deb822 stanzas with
# their Types replaced, or one-line `deb` entries turned into `deb-src`.  Only
# source indices are needed, so the binary ones are not fetched again.
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed 's/^Types:.*/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
        > "$work/apt/sources.list.d/debian.sources"
fi
if [ -f /etc/apt/sources.list ]; then
    sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' /etc/apt/sources.list \
        > "$work/apt/sources.list"
else
    : > "$work/apt/sources.list"
fi
set -- -o Dir::Etc::sourceparts="$work/apt/sources.list.d" \
    -o Dir::Etc::sourcelist="$work/apt/sources.list" \
    -o Dir::State::Lists="$work/apt/lists" \
    -o Dir::Cache="$work/apt/cache" \
    -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
    -o Acquire::Retries=1 -o Acquire::http::Timeout=15
# apt drops to its _apt user to download, which cannot write here.
[ "$(id -u)" -ne 0 ] || set -- "$@" -o APT::Sandbox::User=root

t0=$(date +%s)
# one line per stage: the build takes minutes on a loaded machine, never silently
say "fetching Debian's $srcpkg $srcver source (log: build-deps/sundials-build.log)"
echo "== apt-get update (private source lists)" >> "$log"
apt-get "$@" update >> "$log" 2>&1 || fallback "apt-get update of the source lists failed"
echo "== apt-get source $srcpkg=$srcver" >> "$log"
(cd "$work/src" && apt-get "$@" source "$srcpkg=$srcver") >> "$log" 2>&1 ||
    fallback "source package $srcpkg $srcver not fetched (offline, or no longer in the archive; see build-deps/sundials-build.log)"
t1=$(date +%s)
src=$(find "$work/src" -mindepth 1 -maxdepth 1 -type d | head -n 1)
if [ -z "$src" ] || [ ! -f "$src/CMakeLists.txt" ]; then
    fallback "source package did not unpack"
fi

# Only what cradle links (CVODES, whose library already holds the serial
# vector, band/dense/sparse matrices, their direct and iterative solvers and
# the Newton/fixed-point nonlinear solvers; ARKODE for the explicit
# Runge-Kutta path) plus KLU; no MPI, threads,
# Fortran, examples or shared libraries.  Same index and real types as Debian.
gen=""
command -v ninja >/dev/null 2>&1 && gen="-G Ninja"
jobs=$(nproc 2>/dev/null || echo 2)
say "building CVODES, ARKODE and KLU support on $jobs cores (30 s to a few minutes, once)"
echo "== cmake configure" >> "$log"
# shellcheck disable=SC2086
cmake -S "$src" -B "$work/build" $gen \
    -DCMAKE_INSTALL_PREFIX="$prefix.new" \
    -DCMAKE_INSTALL_LIBDIR=lib \
    -DCMAKE_BUILD_TYPE= \
    -DCMAKE_C_FLAGS="$cflags" \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
    -DBUILD_SHARED_LIBS=OFF -DBUILD_STATIC_LIBS=ON \
    -DBUILD_ARKODE=ON -DBUILD_CVODE=OFF -DBUILD_CVODES=ON \
    -DBUILD_IDA=OFF -DBUILD_IDAS=OFF -DBUILD_KINSOL=OFF \
    -DBUILD_FORTRAN_MODULE_INTERFACE=OFF \
    -DSUNDIALS_PRECISION=double -DSUNDIALS_INDEX_SIZE=64 \
    -DENABLE_MPI=OFF -DENABLE_OPENMP=OFF -DENABLE_PTHREAD=OFF \
    -DENABLE_LAPACK=OFF -DENABLE_HYPRE=OFF -DENABLE_PETSC=OFF \
    -DENABLE_SUPERLUMT=OFF \
    -DENABLE_KLU=ON -DKLU_INCLUDE_DIR=/usr/include/suitesparse \
    -DKLU_LIBRARY_DIR="/usr/lib/$ma" \
    -DEXAMPLES_ENABLE_C=OFF -DEXAMPLES_ENABLE_CXX=OFF -DEXAMPLES_INSTALL=OFF \
    >> "$log" 2>&1 || fallback "cmake configure failed (see build-deps/sundials-build.log)"
echo "== build" >> "$log"
cmake --build "$work/build" -j "$jobs" >> "$log" 2>&1 ||
    fallback "build failed (see build-deps/sundials-build.log)"
cmake --install "$work/build" >> "$log" 2>&1 ||
    fallback "install failed (see build-deps/sundials-build.log)"
if [ ! -f "$prefix.new/lib/libsundials_cvodes.a" ] ||
    [ ! -f "$prefix.new/lib/libsundials_arkode.a" ] ||
    [ ! -f "$prefix.new/lib/cmake/sundials/SUNDIALSConfig.cmake" ]; then
    fallback "install is incomplete (see build-deps/sundials-build.log)"
fi
t2=$(date +%s)

# The prefix appears complete or not at all, so meson never sees half a build.
echo "$stamp" > "$prefix.new/cradle-build.stamp"
rm -rf "$prefix"
mv "$prefix.new" "$prefix" || fallback "cannot move the build into $prefix"
rm -rf "$work"
say "optimised static $upver (build-deps/sundials), built from Debian's $srcpkg $srcver source in $((t2 - t1)) s (source fetched in $((t1 - t0)) s)$(stale_build_dir)"
