#!/bin/sh
# Installs what bench/peers needs beyond cradle's own dependencies: Debian's
# LAMMPS (the peer) and matplotlib (the plot, for Debian's /usr/bin/python3: a
# python3 earlier on PATH, such as pyenv's, does not see Debian's modules).
# Idempotent; uses sudo when not root. Never fails the benchmark: when a
# package cannot be installed, the benchmark skips that part and says so.
set -u
want=""
command -v lmp >/dev/null 2>&1 || want="$want lammps"
/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1 || want="$want python3-matplotlib"
if [ -z "$want" ]; then
    echo "peers-setup: lammps and matplotlib present"
    exit 0
fi
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "peers-setup: installing$want"
if ! { $SUDO apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $want; }; then
    echo "peers-setup: could not install$want; the benchmark skips what needs them"
fi
exit 0
