#!/bin/sh
# bench-sweep: points per second of one sweep (bench/sweep-bench.yaml, 24
# points of about 0.1 s of CPU each) serially (-j 1), on 2 OpenMP threads
# (-j 2) and, in a build with -Dmpi=enabled, on 2 MPI ranks (mpirun -n 2),
# with the speed-ups measured in the same run. The three run in turn, REPEAT
# times (default 3; first argument), and each keeps its best wall time: on a
# shared machine the best run is the least disturbed one. Prints, per
# configuration, the wall time of the whole process (mpirun's start-up
# included), the time cradle reports for computing the points (start-up and
# loading excluded), and the CPU time (user + system); checks that the three
# tables are the same bit for bit. Then bench-sweep-cpu (bench-sweep-cpu.c)
# runs it serially and on 2 threads through the library, timing each thread's
# CPU: the speed-up a core per thread would give, whatever the machine's load.
# Prints only; never fails on a number.
# Usage: bench-sweep.sh CRADLE SWEEP MPI CPU-EXE [REPEAT]  (ninja -C build bench-sweep)
set -u
CRADLE=$1
SWEEP=$2
MPI=$3
CPU_EXE=$4
REPEAT=${5:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cores=$(nproc)
echo "bench-sweep: $SWEEP, $cores cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"

# one run: prints "wall compute cpu" (seconds)
run() { # name command...
    name=$1
    shift
    /usr/bin/time -f "%e %U %S" -o "$work/time" "$@" -o "$work/$name.h5" --force \
        > "$work/out" 2> "$work/err" || { echo "bench-sweep: $name failed: $(tail -3 "$work/err")" >&2; return 1; }
    compute=$(sed -n 's/.* computed in \([0-9.e+-]*\) s .*/\1/p' "$work/out")
    awk -v c="$compute" '{ printf "%s %s %s\n", $1, c, $2 + $3 }' "$work/time"
}

configs="serial threads"
[ "$MPI" = mpi ] && configs="$configs ranks"
for k in $(seq 1 "$REPEAT"); do
    for c in $configs; do
        case $c in
        serial) r=$(run serial "$CRADLE" sweep "$SWEEP" -j 1) ;;
        threads) r=$(run threads "$CRADLE" sweep "$SWEEP" -j 2) ;;
        # --bind-to none: Open MPI pins 2 ranks to cores 0 and 1, and on a
        # shared machine the rank on the busier core starves
        ranks) r=$(run ranks mpirun --allow-run-as-root --oversubscribe --bind-to none -n 2 "$CRADLE" sweep "$SWEEP") ;;
        esac
        [ -n "$r" ] && echo "$c $r" >> "$work/times"
    done
done
points=$(h5dump -a /points "$work/serial.h5" | sed -n 's/.*(0): \([0-9]*\).*/\1/p')
awk -v n="$points" '
{ if (!($1 in w) || $2 < w[$1]) { w[$1] = $2; cp[$1] = $3; cpu[$1] = $4 } }
END {
    printf "%-8s %8s %10s %10s %10s %9s %9s\n", "", "wall s", "points/s", "compute s", "points/s", "CPU s", "speed-up"
    split("serial threads ranks", order, " ")
    for (i = 1; i <= 3; i++) {
        c = order[i]
        if (!(c in w)) continue
        printf "%-8s %8.3f %10.2f %10.3f %10.2f %9.3f %8.2fx\n", c, w[c], n / w[c], cp[c], n / cp[c],
            cpu[c], (w["serial"] / w[c])
    }
    printf "speed-ups on the compute time (start-up excluded): 2 threads %.2fx", cp["serial"] / cp["threads"]
    if ("ranks" in cp) printf ", 2 ranks %.2fx", cp["serial"] / cp["ranks"]
    printf " (goal >= 1.8x on 2 cores)\n"
    # the CPU the parallel runs spend beyond the serial one: what parallelism
    # itself costs, whatever share of the cores other processes took
    printf "CPU time relative to serial (parallel overhead): 2 threads %.3f", cpu["threads"] / cpu["serial"]
    if ("ranks" in cpu) printf ", 2 ranks %.3f", cpu["ranks"] / cpu["serial"]
    printf "\n"
    # cores the scheduler actually gave each run (CPU / wall): on an idle
    # 2-core machine about 1 and 2; when the parallel runs got no more than the
    # serial one, the machine was busy and the speed-ups above measure that
    printf "cores obtained (CPU / wall): serial %.2f, 2 threads %.2f", cpu["serial"] / w["serial"], cpu["threads"] / w["threads"]
    if ("ranks" in cpu) printf ", 2 ranks %.2f", cpu["ranks"] / w["ranks"]
    printf "\n"
}' "$work/times"
for c in threads ranks; do
    [ -f "$work/$c.h5" ] || continue
    if h5diff -q "$work/serial.h5" "$work/$c.h5" /table /table && h5diff -q "$work/serial.h5" "$work/$c.h5" /error /error; then
        echo "bench-sweep: $c table = serial table"
    else
        echo "bench-sweep: $c table DIFFERS from the serial table"
    fi
done
"$CPU_EXE" "$SWEEP" "$work/cpu.h5"
echo "bench-sweep: load average $(cut -d' ' -f1-3 /proc/loadavg) at the end (best of $REPEAT runs each)"
