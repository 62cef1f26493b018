#!/usr/bin/python3
"""Byte mutations of a run file and a table, with a fixed seed, through every
reader of them: `cradle compare RUN --csv`, `cradle run --continue RUN` (its
restart state; an end time of 1e-300 s, so that an accepted mutant runs for
no time or is refused as ending before its restart time) and `cradle table
info TABLE` (the C readers), and with --python cradle.read / cradle.sweep.read (in this very
process: a crash of HDF5 must not reach it) and tools/cradle-plot.

usage: mutate-readers.py CRADLE RUN.h5 TABLE.h5 [--python SOURCE_ROOT]

For every mutant (1 to 8 bytes replaced or bit-flipped; random.Random(SEED)):
no signal, no hang (HANG_SECONDS), exit status 0 or 3, and on 3 one line on
stderr naming the file. `compare --csv` prints no row "ok" whose error or
energy ratio is not finite. Prints the counts per reader and exits 1 on any
failure, with the mutant kept as mutant-READER-N.h5.
"""
import csv
import io
import math
import os
import random
import subprocess
import sys
import time

SEED = 23
C_MUTANTS = 200        # per C reader (~0.02 s each; ~0.3 s under ASan)
PY_MUTANTS = 150       # cradle.read in this process (~0.1 s each: a fork per read)
PLOT_MUTANTS = 20      # cradle-plot (~2 s each: matplotlib)
HANG_SECONDS = 60


def mutants(path, n, seed):
    data = open(path, "rb").read()
    rng = random.Random(seed)
    for i in range(n):
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            p = rng.randrange(len(b))
            b[p] = rng.randrange(256) if rng.random() < 0.5 else b[p] ^ (1 << rng.randrange(8))
        yield i, bytes(b)


failures = 0


def fail(reader, i, data, why):
    global failures
    failures += 1
    keep = "mutant-%s-%d.h5" % (reader, i)
    open(keep, "wb").write(data)
    print("FAIL %s mutant %d (kept as %s): %s" % (reader, i, keep, why))


def run_cli(reader, cmd, path, data, i, prefix, check_rows=False):
    t0 = time.monotonic()
    try:
        r = subprocess.run(cmd, capture_output=True, timeout=HANG_SECONDS)
    except subprocess.TimeoutExpired:
        fail(reader, i, data, "no answer in %d s" % HANG_SECONDS)
        return None
    # the sanitizer build notes each allocation it refuses (HDF5 asking for
    # terabytes; allocator_may_return_null): its note, not a line of ours
    err = "".join(line for line in r.stderr.decode(errors="replace").splitlines(True)
                  if "WARNING: AddressSanitizer failed to allocate" not in line)
    if r.returncode < 0:
        fail(reader, i, data, "signal %d: %s" % (-r.returncode, err[-300:]))
    elif r.returncode not in (0, 3):
        fail(reader, i, data, "exit status %d: %s" % (r.returncode, err[-300:]))
    elif r.returncode == 3 and (err.count("\n") != 1 or not err.startswith(prefix + path)):
        fail(reader, i, data, "not one line naming the file: %r" % err[:300])
    elif r.returncode == 0 and check_rows:
        for row in csv.DictReader(io.StringIO(r.stdout.decode(errors="replace"))):
            if row["status"] == "ok" and not all(math.isfinite(float(row[k]))
                                                 for k in ("error", "energy_ratio")):
                fail(reader, i, data, "an ok row over a non-finite number: %s" % row)
                break
    return r.returncode, time.monotonic() - t0


def report(reader, codes, slowest):
    counts = {c: codes.count(c) for c in sorted(set(codes), key=str)}
    print("%s: %d mutants, exit statuses %s, slowest %.2f s" % (reader, len(codes), counts, slowest))


def main():
    cradle, run, table = sys.argv[1:4]
    python_root = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--python" else None
    for reader, src, args, check in (("compare", run, ["compare", "{}", "--csv"], True),
                                     ("continue", run, ["run", "-q", "--continue", "{}", "--set",
                                                        "integration.t_end=1e-300", "-o",
                                                        "mutant-cont.h5"], False),
                                     ("table-info", table, ["table", "info", "{}"], False)):
        codes, slowest = [], 0.0
        for i, data in mutants(src, C_MUTANTS, SEED):
            path = "mutant.h5"
            open(path, "wb").write(data)
            out = run_cli(reader, [cradle] + [a.replace("{}", path) for a in args], path, data, i,
                          "cradle: ", check)
            if out:
                codes.append(out[0])
                slowest = max(slowest, out[1])
        report(reader, codes, slowest)
    if python_root:
        sys.path.insert(0, os.path.join(python_root, "python"))
        import cradle as cr
        import cradle.sweep
        for reader, src, fn in (("cradle.read", run, cr.read),
                                ("cradle.sweep.read", table, cradle.sweep.read)):
            codes, slowest = [], 0.0
            for i, data in mutants(src, PY_MUTANTS, SEED):
                path = "mutant.h5"
                open(path, "wb").write(data)
                t0 = time.monotonic()
                try:
                    fn(path, timeout=HANG_SECONDS)
                    codes.append(0)
                except ValueError as e:
                    codes.append(3)
                    if "\n" in str(e) or not str(e).startswith(path + ": "):
                        fail(reader, i, data, "not one line naming the file: %r" % str(e)[:300])
                except Exception as e:  # noqa: B902 - anything else is the failure tested for
                    fail(reader, i, data, "%s: %s" % (type(e).__name__, str(e)[:300]))
                slowest = max(slowest, time.monotonic() - t0)
            report(reader, codes, slowest)
        plot = os.path.join(python_root, "tools", "cradle-plot")
        codes, slowest = [], 0.0
        for i, data in mutants(run, PLOT_MUTANTS, SEED + 1):
            path = "mutant.h5"
            open(path, "wb").write(data)
            out = run_cli("cradle-plot", [sys.executable, plot, path, "--kind", "energy,episodes",
                                          "--outdir", "mutant-plots"], path, data, i,
                          "cradle-plot: ")
            if out:
                codes.append(out[0])
                slowest = max(slowest, out[1])
        report("cradle-plot", codes, slowest)
    print("mutate-readers: %d failures" % failures)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
