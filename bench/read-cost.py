#!/usr/bin/python3
"""Read cost of a trajectory file's two usual questions (docs/hdf5-layout.md,
"Chunks and compression"): one body's history (a column of /trajectory/position, every row)
and one time slice (a row, every body), each from a freshly opened file
(HDF5's chunk cache empty; the operating system's page cache warm, as after
a run), median of --reps; with the chunks read and their bytes on disk.

Usage: read-cost.py FILE.h5 [FILE.h5 ...] [--reps N]
"""
import statistics
import sys
import time

import h5py


def chunk_bytes(d, rows, cols):
    """Chunks a selection of rows x cols touches, and their stored bytes."""
    cr, cc = d.chunks if d.ndim == 2 else (d.chunks[0], 1)
    n = len({(r // cr, c // cc) for r in rows for c in cols})
    stored = d.id.get_storage_size() / max(1, d.id.get_num_chunks())
    return n, n * stored


def main():
    args = sys.argv[1:]
    reps = 7
    if "--reps" in args:
        i = args.index("--reps")
        reps = int(args[i + 1])
        del args[i:i + 2]
    print("| file | chunks (rows, columns), filter | body history: ms, chunks, MB read | "
          "time slice: ms, chunks, MB read |")
    print("|---|---|---|---|")
    for path in args:
        res = {}
        for what in ("history", "slice"):
            ts = []
            for _ in range(reps):
                with h5py.File(path, "r") as f:
                    d = f["trajectory/position"]
                    T, C = d.shape
                    t0 = time.perf_counter()
                    x = d[:, C // 2] if what == "history" else d[T // 2, :]
                    ts.append(time.perf_counter() - t0)
                    sel = (range(T), [C // 2]) if what == "history" else ([T // 2], range(C))
                    n, b = chunk_bytes(d, *sel)
                    filt = "%s %s%s" % (d.chunks, d.compression or "none",
                                        " %s + shuffle" % d.compression_opts if d.shuffle else "")
            assert len(x) in (T, C)
            res[what] = (1e3 * statistics.median(ts), n, b / 1e6)
        print("| %s (%d x %d) | %s | %.2f, %d, %.2f | %.2f, %d, %.3f |" % (
            path.split("/")[-1], T, C, filt, *res["history"], *res["slice"]))


if __name__ == "__main__":
    main()
