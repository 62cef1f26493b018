#!/usr/bin/python3
"""The trajectory writer's chunks (docs/hdf5-layout.md, "Chunks and compression"), read back
with h5py: chunk shapes and filters as documented, with and without
CRADLE_STORE_DEFLATE; the same values either way; every row in its place
across series of different chunk shapes and across flushes that leave a
partly filled chunk (kinetic energy recomputed from the velocities and masses
of each row, time on the output grid, first row = /model initial state, last
row = /final); a body's history and a time slice read alone equal the whole
dataset's column and row; h5dump reads a compressed file.

usage: check-store-chunks.py CRADLE MODELS_DIR
Exit 77 (skipped) when h5py is not installed (Debian: python3-h5py).
"""
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import h5py
    import numpy as np
except ImportError as e:
    print("check-store-chunks: skipped: %s (apt-get install python3-h5py)" % e)
    sys.exit(77)

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
        print("ok   " + what)
    else:
        failed += 1
        print("FAIL " + what)


def run(cradle, model, out, sets, deflate=None):
    env = dict(os.environ)
    env.pop("CRADLE_STORE_DEFLATE", None)
    if deflate is not None:
        env["CRADLE_STORE_DEFLATE"] = str(deflate)
    cmd = [cradle, "run", "-q", "-o", out, model]
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    check(p.returncode == 0, "cradle run %s %s (deflate %s): exit %d %s" % (
        os.path.basename(model), " ".join(sets), deflate, p.returncode, p.stderr.strip()[:200]))


def series(f):
    # the series (format 3's column indices, bodies and contacts, are written
    # once, whole, not chunked)
    out = {"trajectory/" + k: f["trajectory"][k] for k in f["trajectory"]
           if k not in ("bodies", "contacts")}
    out["events"] = f["events"]
    return out


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    cradle, models = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="check-store-chunks-")
    try:
        # 1000 beads: rows of 1000 columns, 8 kB, split in column blocks; the
        # store's 16 MiB buffer flushes every 419 rows, so flushes end inside a
        # chunk of 128 rows and the next flush writes that chunk again.
        model = os.path.join(models, "newton-cradle-5.yaml")
        sets = ["chain.count=1000", "integration.t_end=0.003", "output.interval=3e-6"]
        plain, packed = os.path.join(work, "plain.h5"), os.path.join(work, "packed.h5")
        run(cradle, model, plain, sets)
        run(cradle, model, packed, sets, deflate=1)
        with h5py.File(plain, "r") as f, h5py.File(packed, "r") as g:
            T = f["trajectory/time"].shape[0]
            check(T in (1001, 1002), "1001 rows (t = 0 and every 3 us) or one more at the end: %d"
                  % T)
            sf, sg = series(f), series(g)
            check(sorted(sf) == sorted(sg), "same datasets with and without deflate")
            for name, d in sf.items():
                e = sg[name]
                want = (1024,) if d.ndim == 1 and name != "events" else (146,) if d.ndim == 1 \
                    else (128, 125)
                check(d.chunks == want and e.chunks == want,
                      "%s: chunks %s (%s with deflate), documented %s" % (name, d.chunks,
                                                                           e.chunks, want))
                check(d.compression is None and not d.shuffle and d.fillvalue is not None,
                      "%s: stored as it is by default" % name)
                check(e.compression == "gzip" and e.compression_opts == 1 and e.shuffle,
                      "%s: shuffle + deflate 1 with CRADLE_STORE_DEFLATE=1" % name)
                a, b = d[()], e[()]
                check(a.shape == b.shape and a.tobytes() == b.tobytes(),
                      "%s: the same %s values bit for bit" % (name, a.shape))
            t = f["trajectory/time"][:]
            grid = np.arange(T - 1) * 3e-6
            check(np.allclose(t[:-1], grid, rtol=1e-12, atol=1e-18) and t[-1] >= t[-2],
                  "time on the output grid, then the end")
            v = f["trajectory/velocity"][:]
            m = f["model/mass"][:]
            moving = np.isfinite(m)
            ke = 0.5 * (v[:, moving] ** 2 * m[moving]).sum(axis=1)
            K = f["trajectory/kinetic_energy"][:]
            check(np.allclose(ke, K, rtol=1e-12, atol=1e-20),
                  "every row's kinetic energy = sum m v^2 / 2 of the same row's velocities "
                  "(1-D chunks of 1024 rows against 128 x 125)")
            x = f["trajectory/position"]
            check(np.array_equal(x[0], f["model/position0"][:].ravel()) and
                  np.array_equal(f["trajectory/velocity"][0], f["model/velocity0"][:].ravel()),
                  "first row = /model initial state")
            check(np.array_equal(x[T - 1], f["final/position"][:].ravel()) and
                  np.array_equal(v[T - 1], f["final/velocity"][:].ravel()),
                  "last row = /final")
            whole = x[()]
            for j in (0, 124, 125, 999):
                check(np.array_equal(x[:, j], whole[:, j]) and
                      np.array_equal(g["trajectory/position"][:, j], whole[:, j]),
                      "body %d's history read alone (both files)" % j)
            for k in (0, 127, 128, 418, 419, 420, T - 1):
                check(np.array_equal(x[k, :], whole[k]) and
                      np.array_equal(g["trajectory/position"][k, :], whole[k]),
                      "time slice %d read alone (both files)" % k)
        if shutil.which("h5dump"):
            p = subprocess.run(["h5dump", "-d", "/trajectory/position", "-s", "%d,999" % (T - 1),
                                "-c", "1,1", "-m", "%.17g", packed], capture_output=True, text=True)
            with h5py.File(plain, "r") as f:
                want = f["trajectory/position"][T - 1, 999]
            got = p.stdout.split("(%d,999):" % (T - 1))[-1].split()[0] if p.returncode == 0 \
                else "nan"
            check(float(got) == want, "h5dump reads a deflated chunk: position[%d, 999] = %s, "
                  "h5py %r" % (T - 1, got, want))

        # The default model: small chunks, so the padded last chunk of a short
        # run stays small (docs/performance.md, "Start-up").
        five = os.path.join(work, "five.h5")
        run(cradle, model, five, [])
        with h5py.File(five, "r") as f:
            shapes = {k: f["trajectory"][k].chunks for k in f["trajectory"]}
            check(shapes["position"] == (256, 5) and shapes["overlap"] == (256, 4) and
                  shapes["time"] == (1024,), "default model: chunks %s" % shapes)
        check(os.path.getsize(five) < 200000,
              "default model's file under 200 kB: %d bytes" % os.path.getsize(five))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("check-store-chunks: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
