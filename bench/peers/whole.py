#!/usr/bin/env python3
"""Whole processes, as a user runs them (issue 22, item 7): `cradle run` at
default settings (every output row written to HDF5) against the same run with
one output row, and against LAMMPS (`lmp`) without and with a dump of the same
rows, on the 1000-bead chain (the pulse to bead 900, t = 0.0272 s), a
10^4-bead chain over the same time and a pool of 1000 discs (10 contact times).
User + system CPU of each finished process (wait4) and wall time; the
commands run in turn, A B C D A B C D ..., and each ratio is the median of the
rounds' ratios, so a drift of the shared machine's speed cancels.

LAMMPS runs the input of bench/peers/peers.py (pair_style granular,
hertz/material, fix nve/sphere) on the same bodies (peers-cradle writes its
data file) at the step that met 1e-4 on the 1000-bead chain in the peers
benchmark (t_c/1448; the pool: t_c/724, its 2e-6 row); "with dump" adds
`dump custom` of id, x and v every steps/1000 steps, the rows cradle stores.
The 10^4-bead LAMMPS runs take minutes: they run a tenth of the steps (and of
the dump rows) and are scaled by 10, as the table says (LAMMPS' cost per step
does not change along the run).

Usage: whole.py [--build DIR] [--rounds N] [--only chain1000,chain10k,pool1000]
                [--work DIR]
Prints only; never fails on a number. Needs bench/peers-cradle and
tools/cradle built (bench/peers/run.sh --whole builds them) and `lmp`
(bench/peers/setup.sh); without LAMMPS only cradle's side runs.
"""
import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import peers  # noqa: E402  (the LAMMPS input and data files of bench/peers)


def proc(cmd):
    """User + system CPU and wall seconds of one whole process."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    rc = os.waitstatus_to_exitcode(status)
    if rc != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd[:4]), rc, err[-300:]))
    return ru.ru_utime + ru.ru_stime, time.monotonic() - t0


def pool_model(path, n=1000):
    """bench/peers' pool:N (peers-cradle.c, pool()) as a model file, the same
    doubles: N steel discs in a triangular packing, rows ~1 um apart, one
    striker at 1 m/s; 10 contact times."""
    R, M = 0.005, 0.0041
    side, s, rows, k, row = int(math.ceil(math.sqrt(n))), 7, [], 0, 0
    while k < n:
        for col in range(side):
            if k >= n:
                break
            s = (s * 6364136223846793005 + 1442695040888963407) & (2 ** 64 - 1)
            jitter = 1e-6 * float(s >> 11) / 9007199254740992.0
            x = [2 * R * col + (row % 2) * R, row * (math.sqrt(3.0) * R + 1e-6) + jitter]
            rows.append("  - {mass: %r, radius: %r, x: [%r, %r]}" % (M, R, x[0], x[1]))
            k += 1
        row += 1
    rows.append("  - {mass: %r, radius: %r, x: [%r, 0.0], v: [1.0, 0.0]}" % (M, R, -2 * R - 1e-5))
    with open(path, "w") as f:
        f.write("# bench/peers pool:%d (bench/peers/whole.py)\nname: pool-%d\ndim: 2\nbodies:\n"
                % (n, n) + "\n".join(rows) + "\ncontact:\n  material: {E: 2.1e11, nu: 0.3}\n"
                "  release: gap\nintegration:\n  t_end: 3.005e-4\n")


CASES = [
    {"id": "chain1000", "title": "1000-bead chain, pulse to bead 900 (t = 0.0272 s)",
     "model": "newton", "sets": ["chain.count=1000", "integration.t_end=0.0272"],
     "lmp": "chain:1000", "t_end": 0.0272, "k": 1448.0, "fraction": 1.0},
    {"id": "chain10k", "title": "10^4-bead chain, same time (pulse to bead 900)",
     "model": "newton", "sets": ["chain.count=10000", "integration.t_end=0.0272"],
     "lmp": "chain:10000", "t_end": 0.0272, "k": 1448.0, "fraction": 0.1},
    {"id": "pool1000", "title": "pool of 1000 discs, 10 contact times", "model": "pool",
     "sets": [], "lmp": "pool:1000", "t_end": 3.005e-4, "k": 724.0, "fraction": 1.0},
]


def lammps_inputs(ctx, case, work):
    """in.lmp without and with the dump; steps run, the scale to the whole run."""
    data, info = peers.lammps_case(ctx, case["lmp"])
    dim, tc = int(info["dim"]), info["t_contact"]
    steps_full = int(math.ceil(case["t_end"] / (tc / case["k"])))
    dt = case["t_end"] / steps_full
    steps = max(1, int(round(steps_full * case["fraction"])))
    every = max(1, steps_full // 1000)
    law = peers.STEEL
    vel = os.path.join(work, "v-whole.txt")
    base = peers.LMP_IN.format(dim=3 if dim == 1 else 2, zb="p" if dim == 2 else "f", data=data,
                               mass=info["mass"], law=law, skin=0.1 * info["radius"], dt=dt,
                               steps=steps, vel=vel,
                               fix2d="fix 2 all enforce2d" if dim == 2 else "")
    dump = os.path.join(work, "whole.dump")
    cols = "id x vx" if dim == 1 else "id x y vx vy"
    dumped = base.replace("run %d" % steps, "dump 9 all custom %d %s %s\n"
                          "dump_modify 9 sort id format float %%.17g\nrun %d" %
                          (every, dump, cols, steps))
    paths = []
    for name, text in (("in-whole.lmp", base), ("in-whole-dump.lmp", dumped)):
        paths.append(os.path.join(work, name))
        with open(paths[-1], "w") as f:
            f.write(text)
    return paths, steps, steps_full, dump, every


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work", default=None)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    work = os.path.abspath(a.work or os.path.join(build, "peers"))
    os.makedirs(work, exist_ok=True)
    ctx = peers.Ctx(argparse.Namespace(build=build, work=work, quick=False))
    cradle = os.path.join(build, "tools", "cradle")
    only = set(filter(None, a.only.split(",")))
    pool_path = os.path.join(work, "pool-1000.yaml")
    pool_model(pool_path)
    models = {"newton": os.path.join(ROOT, "models", "newton-cradle-5.yaml"), "pool": pool_path}
    out = os.path.join(work, "whole.h5")
    rows = []
    for case in CASES:
        if only and case["id"] not in only:
            continue
        peers.log("== " + case["title"])
        run = [cradle, "run", "-q", "-o", out, models[case["model"]]]
        for s in case["sets"]:
            run += ["--set", s]
        one = run + ["--set", "output.interval=%r" % case["t_end"]]
        cmds = {"cradle": run, "one": one}
        scale = {"cradle": 1.0, "one": 1.0, "lmp": 1.0, "dump": 1.0}
        dump_path, frames = None, 0
        if ctx.lmp:
            (plain, dumped), steps, steps_full, dump_path, every = lammps_inputs(ctx, case, work)
            cmds["lmp"] = [ctx.lmp, "-in", plain, "-log", "none", "-screen", "none"]
            cmds["dump"] = [ctx.lmp, "-in", dumped, "-log", "none", "-screen", "none"]
            scale["lmp"] = scale["dump"] = steps_full / steps
            frames = steps // every + 1
        proc(run)  # warm-up: page cache, the output folder
        size = os.path.getsize(out)
        t = {k: [] for k in cmds}
        for r in range(a.rounds):
            for k, cmd in cmds.items():
                c, w = proc(cmd)
                t[k].append((c * scale[k], w * scale[k]))
                peers.log("  round %d %-6s cpu %.3f s wall %.3f s%s" % (
                    r, k, c, w, " (of a part: x%.3g in the table)" % scale[k]
                    if scale[k] != 1 else ""))
        dump_size = os.path.getsize(dump_path) if dump_path and os.path.exists(dump_path) else 0
        med = {k: (statistics.median(v[0] for v in t[k]), statistics.median(v[1] for v in t[k]))
               for k in t}

        def ratio(x, y):
            return statistics.median(a[0] / b[0] for a, b in zip(t[x], t[y]))

        rows.append({"case": case, "med": med, "size": size, "dump_size": dump_size,
                     "frames": frames, "scale": scale,
                     "default_over_one": ratio("cradle", "one"),
                     "lmp_over_cradle": ratio("lmp", "cradle") if "lmp" in t else None,
                     "dump_over_cradle": ratio("dump", "cradle") if "dump" in t else None})
        for p in (out, dump_path):
            if p and os.path.exists(p):
                os.remove(p)
    print("# whole processes, user + sys CPU (wall), medians of %d rounds in turn; %s" % (
        a.rounds, peers.machine()))
    print("| case | cradle run, default (HDF5) | cradle run, one row | default / one row | "
          "lmp | lmp / cradle | lmp + dump | lmp + dump / cradle |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        m, c = r["med"], r["case"]
        est = " (1/%g of the steps, scaled)" % (1 / c["fraction"]) if c["fraction"] != 1 else ""

        def cell(k):
            return "%.3g s (%.3g s)" % m[k] if k in m else "-"

        print("| %s; HDF5 %.1f MB, dump %.1f MB%s | %s | %s | %.2f | %s | %s | %s | %s |" % (
            c["title"], r["size"] / 1e6, r["dump_size"] / 1e6 / c["fraction"], est,
            cell("cradle"), cell("one"), r["default_over_one"], cell("lmp"),
            "%.3g" % r["lmp_over_cradle"] if r["lmp_over_cradle"] else "-", cell("dump"),
            "%.3g" % r["dump_over_cradle"] if r["dump_over_cradle"] else "-"))


if __name__ == "__main__":
    main()
