#!/bin/sh
# Builds the Debian package cradle_VERSION_ARCH.deb (debian/: CLI, library,
# headers, cradle.pc, models, law cases, tables, docs, Python package) from a
# copy of this tree against Debian's own libraries (libsundials-dev, not the
# optimised SUNDIALS of tools/build-sundials.sh), with
#   DEB_BUILD_OPTIONS="nocheck ..." dpkg-buildpackage -b -us -uc
# and copies it into OUTDIR (default: the current folder). The last line of
# output is the .deb's path. The copy keeps the source tree clean (a package
# build writes obj-*/, debian/cradle/ and ../*.deb).
# usage: sh tools/build-deb.sh [OUTDIR]
# Needs dpkg-dev, debhelper and debian/control's Build-Depends
# (`apt-get build-dep ./` from the tree installs them; tools/try-deb.sh does).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(cd "${1:-.}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cradle-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
mkdir "$work/cradle"
# the project's files: git's list in a checkout (tracked and new, not ignored),
# else the whole tree; never a meson build folder (build-clang/ is not in
# .gitignore), build-deps/ or .git
skip=$(cd "$root" && for d in */; do
    if [ -d "$d/meson-private" ]; then printf '%s\n' "${d%/}"; fi
done)
skip=$(printf '%s\nbuild-deps\n.git\n' "$skip")
if git -C "$root" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
    (cd "$root" && git ls-files --cached --others --exclude-standard)
else
    (cd "$root" && find . -type f | sed 's|^\./||')
fi | awk -v skip="$skip" 'BEGIN { n = split(skip, s, "\n"); for (i = 1; i <= n; i++) if (s[i] != "") no[s[i]] = 1 }
    { top = $0; sub(/\/.*/, "", top); if (!(top in no)) print }' |
    (cd "$root" && tar --ignore-failed-read -T - -cf - 2> /dev/null) | tar -xf - -C "$work/cradle"
t0=$(date +%s)
cd "$work/cradle"
# parallel: debhelper builds with one job unless told
opts=${DEB_BUILD_OPTIONS:-nocheck}
case " $opts " in
    *" parallel="*) ;;
    *) opts="$opts parallel=$(nproc 2> /dev/null || echo 1)" ;;
esac
if ! DEB_BUILD_OPTIONS="$opts" dpkg-buildpackage -b -us -uc > "$work/build.log" 2>&1; then
    tail -30 "$work/build.log" >&2
    echo "build-deb: dpkg-buildpackage failed (the last 30 lines above)" >&2
    exit 1
fi
cp "$work"/cradle_*.deb "$out"/
echo "build-deb: built in $(($(date +%s) - t0)) s"
ls "$out"/cradle_*.deb | tail -1
