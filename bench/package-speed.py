#!/usr/bin/python3
"""The Debian package's cradle (Debian's unoptimised SUNDIALS, -O2, shared
libraries) against the quickstart's build (release, the optimised static
SUNDIALS of tools/build-sundials.sh, static HDF5): the same runs, in turn,
CPU = user + system time of each finished process (os.wait4), medians and
the median of the pairwise ratios (docs/performance.md, "The Debian package").

usage: bench/package-speed.py QUICKSTART_CRADLE EXTRACTED_DEB_ROOT
  (EXTRACTED_DEB_ROOT: `dpkg-deb -x cradle_*.deb DIR`; run from the source tree)
"""
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time


def cpu(cmd, env):
    t = time.time()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit("package-speed: %s failed" % " ".join(cmd))
    return usage.ru_utime + usage.ru_stime, time.time() - t


def main():
    quick, root = sys.argv[1], sys.argv[2]
    libdir = os.path.dirname(glob.glob(os.path.join(root, "usr/lib/*/libcradle.so.0"))[0])
    package = [os.path.join(root, "usr/bin/cradle")]
    out = os.path.join(tempfile.mkdtemp(), "b.h5")
    model = "models/newton-cradle-5.yaml"
    chain = [model, "--set", "chain.count=1000", "--set", "integration.t_end=1.5e-3"]
    cases = [("default model", [model], 15),
             ("pendulum-cradle-7", ["models/pendulum-cradle-7.yaml"], 7),
             ("1000-bead chain, BDF, whole chain", chain + ["--set", "integration.active_region=off",
                                                          "--set", "integration.method=bdf"], 7),
             ("1000-bead chain, default method", chain, 5)]
    env_q, env_p = dict(os.environ), dict(os.environ, LD_LIBRARY_PATH=libdir)
    print("| case | pairs | quickstart CPU [s] | package CPU [s] | package/quickstart (range) |"
          " wall [s] |\n|---|---|---|---|---|---|")
    for name, args, n in cases:
        a, b = [], []
        for _ in range(n):
            a.append(cpu([quick, "run"] + args + ["-q", "-o", out], env_q))
            b.append(cpu(package + ["run"] + args + ["-q", "-o", out], env_p))
        r = [y[0] / x[0] for x, y in zip(a, b)]
        print("| %s | %d | %.3f | %.3f | %.2f (%.2f-%.2f) | %.2f / %.2f |" % (
            name, n, statistics.median(x[0] for x in a), statistics.median(x[0] for x in b),
            statistics.median(r), min(r), max(r), statistics.median(x[1] for x in a),
            statistics.median(x[1] for x in b)))


if __name__ == "__main__":
    main()
