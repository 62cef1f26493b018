# Shared by the shell tests (tests/test-*.sh), sourced after `set -u`:
#   . "$(dirname "$0")/shell-lib.sh"
# Moves into a fresh scratch folder removed at exit, counts checks with
# ok/bad, and `finish NAME` prints "NAME: N passed, N failed" (the line
# tools/test.sh totals) and returns the status.
#
# Counting (as tests/testutil.h): a check is its message, which names what was
# checked and on what (a loop over cases puts the case in it); the same message
# again is the same check, counted once. `ok MESSAGE [CLASS]` only after the
# check held, CLASS one of ref (against an independent number), inv (a
# conservation law or balance), self (cradle against cradle); without it the
# check is behaviour (codes, messages, files). finish adds a line with the
# distinct checks per class and the raw passes.
work=$(mktemp -d)
# the checks' record lives outside the scratch folder (tests compare its files)
checks=$(mktemp)
trap 'rm -rf "$work" "$checks"' EXIT
cd "$work" || exit 1
passed=0
failed=0
# One line per check: P or F, the class, the message on one line.
record_check() { printf '%s %s %s\n' "$1" "$2" "$(printf '%s' "$3" | tr '\n' ' ')" >> "$checks"; }
ok() {
    passed=$((passed + 1))
    printf 'ok   %s\n' "$1"
    case ${2:-} in
        ref) cls=reference ;;
        inv) cls=invariant ;;
        self) cls=self-consistency ;;
        *) cls=behaviour ;;
    esac
    record_check P "$cls" "$1"
}
bad() {
    failed=$((failed + 1))
    printf 'FAIL %s\n' "$1"
    record_check F "${2:-behaviour}" "$1"
}
# Debian's python3 (h5py, json); a pyenv on PATH may lack h5py
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
# The /status attribute of a run or sweep file ("complete", "failed", ...).
status_of() { h5dump -a /status "$1" 2>/dev/null | sed -n 's/.*(0): "\(.*\)"/\1/p'; }
# No temporary output file left behind in the scratch folder.
no_temp() { ! ls ./*.tmp.* >/dev/null 2>&1; }
# refuses_input LABEL PATTERN ARGS...: "$CRADLE" ARGS exits 3 with one line
# matching PATTERN and writes no out.h5 (the bad-input rule of docs/errors.md)
refuses_input() {
    label=$1
    pattern=$2
    shift 2
    rm -f out.h5
    "$CRADLE" "$@" > out.txt 2> err.txt
    st=$?
    [ $st -eq 3 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q -- "$pattern" err.txt && [ ! -e out.h5 ] \
        && ok "$label: exit 3, $(cat err.txt)" || bad "$label: status $st, $(cat err.txt)"
}
finish() {
    sort -u "$checks" | awk -v name="$1" -v raw="$passed" '
        $1 == "P" { p++; c[$2]++ }
        $1 == "F" { f++ }
        END {
            printf "%s: %d passed, %d failed\n", name, p, f
            printf "%s: classes reference %d, invariant %d, self-consistency %d, behaviour %d; passes %d\n",
                name, c["reference"], c["invariant"], c["self-consistency"], c["behaviour"] + f, raw
        }'
    [ "$failed" -eq 0 ]
}
