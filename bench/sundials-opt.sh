#!/bin/sh
# Optimised vs system SUNDIALS, whole `cradle run` processes: builds cradle
# twice (build-deps/bench-opt against build-deps/sundials, build-deps/bench-sys
# against the system package), checks that both print the same run (steps,
# events, velocities to the printed digits), then runs each case RUNS times
# in turn, optimised then system, and prints the median CPU time per process
# (user + sys from GNU time, which counts in 10 ms: a sample of the small case
# is 20 processes in a row) of each and the median of the pairwise speed-ups
# (system / optimised).  Never a test: it
# only reports.  Needs the optimised build (sh tools/install-deps.sh) and GNU
# time (apt-get install time).
#
#   sh bench/sundials-opt.sh [RUNS]        (default 11)
set -eu
cd "$(dirname "$0")/.."
runs=${1:-11}
[ -f build-deps/sundials/cradle-build.stamp ] || {
    echo "sundials-opt: no optimised SUNDIALS in build-deps/sundials (run sh tools/install-deps.sh)" >&2
    exit 1
}
[ -x /usr/bin/time ] || { echo "sundials-opt: needs GNU time (apt-get install time)" >&2; exit 1; }

for v in opt sys; do
    d=build-deps/bench-$v
    if [ ! -f "$d/build.ninja" ]; then
        p=build-deps/sundials
        [ $v = sys ] && p=system
        meson setup "$d" --buildtype=release -Dsundials_prefix=$p > "$d.log" 2>&1 ||
            { cat "$d.log" >&2; exit 1; }
    fi
    ninja -C "$d" tools/cradle > "$d.log" 2>&1 || { cat "$d.log" >&2; exit 1; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A 1000-bead chain for 1.5 ms: the pulse crosses about 140 contacts.
sed -e 's/^name: .*/name: chain-1000/' -e 's/^  count: 5$/  count: 1000/' \
    -e 's/^  t_end: auto .*/  t_end: 1.5e-3/' models/newton-cradle-5.yaml > "$tmp/chain-1000.yaml"

# one case: label, model file, processes per sample
bench() {
    for v in opt sys; do
        build-deps/bench-$v/tools/cradle run "$2" -o "$tmp/$v.h5" |
            grep -v 'wall\|wrote' > "$tmp/$v.txt"
    done
    if cmp -s "$tmp/opt.txt" "$tmp/sys.txt"; then same="identical output"; else same="OUTPUT DIFFERS"; fi
    : > "$tmp/times"
    i=0
    while [ $i -lt "$runs" ]; do
        for v in opt sys; do
            # shellcheck disable=SC2016 # expanded by the inner shell
            /usr/bin/time -f "$v %U %S" -a -o "$tmp/times" sh -c '
                k=0; while [ $k -lt "$1" ]; do "$2" run -q "$3" -o "$4" || exit 1; k=$((k + 1)); done' \
                sh "$3" "build-deps/bench-$v/tools/cradle" "$2" "$tmp/$v.h5"
        done
        i=$((i + 1))
    done
    awk -v label="$1" -v same="$same" -v reps="$3" '
        function median(a, n,   i, j, t) {
            for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        $1 == "opt" { o[++no] = ($2 + $3) / reps }
        $1 == "sys" { s[++ns] = ($2 + $3) / reps; r[ns] = s[ns] / (o[ns] > 0 ? o[ns] : 0.005 / reps) }
        END {
            printf "%-28s %10.4f %10.4f %8.2f  (%s, %d pairs)\n", label, median(o, no), median(s, ns),
                median(r, ns), same, ns
        }' "$tmp/times"
}

printf "%-28s %10s %10s %8s\n" "case (whole process)" "opt cpu s" "sys cpu s" "speed-up"
bench "newton-cradle-5 (default)" models/newton-cradle-5.yaml 20
bench "1000-bead chain, 1.5 ms" "$tmp/chain-1000.yaml" 1
