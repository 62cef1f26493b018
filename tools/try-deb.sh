#!/bin/sh
# The Debian package on a fresh Debian 12: installs it with
#   apt-get install ./cradle_VERSION_ARCH.deb
# (apt brings its dependencies), runs `cradle run` (the packaged default model)
# in a scratch folder, `python3 -c "import cradle"` and a read-back of the
# run's file, then purges it (`apt-get purge cradle`) and checks that nothing
# of it is left. Given no .deb, first installs dpkg-dev, debhelper and the
# Build-Depends of debian/control (`apt-get build-dep ./`, left installed) and
# builds one with tools/build-deb.sh.
# usage: sh tools/try-deb.sh [cradle_VERSION_ARCH.deb]
# Root, or sudo. Exit status 0 when every step worked.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
apt() { $SUDO env DEBIAN_FRONTEND=noninteractive apt-get "$@"; }
step() { echo "try-deb: $*"; }

if dpkg-query -W -f='${Status}' cradle 2> /dev/null | grep -q "install ok installed"; then
    echo "try-deb: cradle is already installed (apt-get purge cradle first)" >&2
    exit 1
fi
deb=${1:-}
if [ -z "$deb" ]; then
    step "installing dpkg-dev, debhelper and the build dependencies"
    apt update -qq
    apt install -y -qq --no-install-recommends dpkg-dev debhelper > /dev/null
    (cd "$root" && apt build-dep -y -qq ./ > /dev/null)
    out=$(mktemp -d "${TMPDIR:-/tmp}/cradle-deb-out.XXXXXX")
    deb=$(sh "$root/tools/build-deb.sh" "$out" | tail -1)
fi
# apt-get installs a file, not a package name, when the argument has a slash
case $deb in
    */*) ;;
    *) deb="./$deb" ;;
esac
[ -f "$deb" ] || { echo "try-deb: no such file $deb" >&2; exit 1; }

step "apt-get install $deb"
apt install -y "$deb"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/cradle-try.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"
status=0
step "$(command -v cradle): cradle run -o try.h5"
cradle run -o try.h5 || status=1
step 'python3 -c "import cradle" (and the run file read back)'
env -u PYTHONPATH -u CRADLE_LIB /usr/bin/python3 -c "
import cradle
print(cradle.__file__)
run = cradle.read('try.h5')
print(len(run.episodes), 'episode(s),', len(run.collisions), 'collision(s) read back')" || status=1
step "apt-get purge cradle"
apt purge -y cradle
if [ -e /usr/bin/cradle ] || /usr/bin/python3 -c "import cradle" 2> /dev/null; then
    echo "try-deb: something of cradle is left after the purge" >&2
    status=1
else
    step "purged: no /usr/bin/cradle, no Python package"
fi
[ "$status" -eq 0 ] && step "every step worked" || echo "try-deb: a step failed" >&2
exit "$status"
