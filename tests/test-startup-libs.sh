#!/bin/sh
# What the `cradle` executable loads at start (docs/performance.md, "Start-up"):
# never libmpi (opened by `mpirun ... cradle sweep` only, from libcradle-mpi.so)
# and, when it is linked with the static HDF5 (meson option static_cli), neither
# libcradle.so nor the shared HDF5 and the libcurl/gnutls/krb5 tree behind it.
# Usage: test-startup-libs.sh CRADLE static|shared mpi|no
set -u
CRADLE=$1
MODE=$2
MPI=$3
. "$(dirname "$0")/shell-lib.sh"

ldd "$CRADLE" > libs.txt 2>&1 && ok "ldd reads cradle" || bad "ldd: $(head -2 libs.txt)"
! grep -q "libmpi" libs.txt && ok "libmpi not loaded at start" || bad "libmpi loaded: $(grep libmpi libs.txt)"
if [ "$MODE" = static ]; then
    for lib in libhdf5 libcradle libcurl libgnutls libkrb5 libssl libcrypto; do
        ! grep -q "$lib" libs.txt && ok "static: $lib not loaded" || bad "static: $lib loaded: $(grep "$lib" libs.txt)"
    done
    # the few left: libc, libm, the dynamic linker, vdso, OpenMP's runtime;
    # SUNDIALS and KLU are shared when the build falls back to the system
    # SUNDIALS (quickstart's fallback, -Dsundials_prefix=system): not counted
    n=$(grep -v -E "libsundials|libklu|libamd|libcolamd|libbtf|libsuitesparseconfig" libs.txt | grep -c .)
    [ "$n" -le 6 ] && ok "static: $n libraries (at most 6)" || bad "static: $n libraries: $(cat libs.txt)"
else
    grep -q "libhdf5" libs.txt && ok "shared: HDF5 from its shared library" || bad "shared: no libhdf5 in $(cat libs.txt)"
fi
if [ "$MPI" = mpi ]; then
    module=$(dirname "$CRADLE")/libcradle-mpi.so
    ldd "$module" 2>/dev/null | grep -q "libmpi" && ok "libcradle-mpi.so links libmpi" \
        || bad "no libmpi behind $module"
fi
"$CRADLE" --version | grep -q "^cradle [0-9]" && ok "--version runs" || bad "--version"
finish startup-libs
