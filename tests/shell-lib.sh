# Shared by the shell tests (tests/test-*.sh), sourced after `set -u`:
#   . "$(dirname "$0")/shell-lib.sh"
# Moves into a fresh scratch folder removed at exit, counts checks with
# ok/bad, and `finish NAME` prints "NAME: N passed, N failed" (the line
# tools/test.sh totals) and returns the status.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
passed=0
failed=0
ok() { passed=$((passed + 1)); printf 'ok   %s\n' "$1"; }
bad() { failed=$((failed + 1)); printf 'FAIL %s\n' "$1"; }
# Debian's python3 (h5py, json); a pyenv on PATH may lack h5py
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
# The /status attribute of a run or sweep file ("complete", "failed", ...).
status_of() { h5dump -a /status "$1" 2>/dev/null | sed -n 's/.*(0): "\(.*\)"/\1/p'; }
# No temporary output file left behind in the scratch folder.
no_temp() { ! ls ./*.tmp.* >/dev/null 2>&1; }
finish() {
    echo "$1: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
