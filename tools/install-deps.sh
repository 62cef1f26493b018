#!/bin/sh
# Installs the Debian packages cradle needs to build, test and run, then builds
# an optimised SUNDIALS from Debian's own source (tools/build-sundials.sh; it
# falls back to the system package and says which one the build will use).
# clang-14 and libclang-rt-14-dev: the sanitizer and libFuzzer build of
# tools/test.sh (the fuzzer runtime is only a recommended package of clang, and
# --no-install-recommends below would leave it out). clang-format: the format
# check. python3, python3-h5py: JSON and HDF5 checks of the tests.
# python3-numpy, python3-matplotlib, python3-pil, python3-yaml, python3-pytest:
# the Python package (python/cradle), tools/cradle-plot (figures, GIFs) and
# its tests. python3-scipy: the validation checks (tests/validation).
# libhdf5-dev: HDF5's headers and libraries, its static libhdf5_serial.a
# included (with zlib1g-dev's libz.a and libaec-dev's libsz.a, which it
# depends on): the `cradle` executable links the archive, not the shared
# library and its libcurl/gnutls/krb5 tree (meson option static_cli).
# libsuitesparse-dev, libfyaml-dev, libjson-c-dev: their archives go into the
# executable too. libgsl-dev: GSL, Jacobi's elliptic functions of exact rigid
# pendulum flight and `cradle fit`'s nonlinear least squares
# (gsl_multifit_nlinear); its libgsl.a and libgslcblas.a go in as well.
# libsiconos-kernel-dev: Siconos' own LZB law (MultipleImpact), the reference of
# test-laws' LZB comparison (tests/ref-siconos-lzb.cpp; skipped without it).
# libopenmpi-dev, openmpi-bin: the MPI sweeps (-Dmpi=enabled; tools/test.sh builds
# build/ with them and runs `mpirun -n 2 cradle sweep`); libsundials-dev brings
# them already, named here so that the test command does not depend on that.
# Idempotent: skips what is present, runs `apt-get update` once only when
# something is missing, and uses sudo when not root.
set -eu

PACKAGES="
build-essential
meson
ninja-build
pkg-config
cmake
libsundials-dev
libsuitesparse-dev
libhdf5-dev
hdf5-tools
valgrind
libfyaml-dev
libgsl-dev
liblapacke-dev
libopenblas-dev
libsiconos-numerics-dev
libsiconos-kernel-dev
libjson-c-dev
libopenmpi-dev
openmpi-bin
clang-14
clang-format
libclang-rt-14-dev
python3
python3-h5py
python3-numpy
python3-matplotlib
python3-pil
python3-yaml
python3-pytest
python3-scipy
"

# --tests (tools/test.sh): also what only the tests use, which a user's
# quickstart does not need: ParaView's pvbatch under a virtual X server
# (tests/check-paraview.sh renders our XDMF files; about 440 MB installed,
# 2 min on this machine) and ASE (python3-ase: reads our extended XYZ back);
# dpkg-dev, debhelper and lintian: the Debian package built and checked
# (tests/test-debian-package.sh; about 60 MB installed).
if [ "${1:-}" = "--tests" ]; then
    PACKAGES="$PACKAGES paraview python3-paraview xvfb xauth libgl1-mesa-dri python3-ase"
    PACKAGES="$PACKAGES dpkg-dev debhelper lintian"
fi

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -z "$missing" ]; then
    echo "install-deps: all packages present"
else
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then
        SUDO="sudo"
    fi

    echo "install-deps: installing$missing"
    $SUDO apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

sh "$(dirname "$0")/build-sundials.sh"
