#!/usr/bin/env python3
"""3-D packings against LAMMPS (issue 24, item 4; docs/performance.md, "3-D
packings of 10^3-10^5 spheres"): `peers-cradle block:N`, a jittered fcc block
of N steel spheres struck on its x- face by one more at 1 m/s, to 4 contact
times (the pulse fans out through ~300 spheres and meets no side of the
10^3 block: every N runs the same collisions, so events and steps show the
engine's work at equal physics).

Errors: max |v - v_ref| / V over every body and component, against an
independent reference: LAMMPS (velocity-Verlet, fix nve/sphere, pair_style
granular hertz/material without damping or friction: F = 4/3 E_eff
sqrt(R_eff) d^(3/2), E_eff = 1/((1-nu^2)/E + (1-nu^2)/E), cradle's law)
at dt = t_c/k_ref and t_c/(2 k_ref), extrapolated to dt -> 0 as a
second-order method ((4 v_fine - v_coarse)/3); --ref-k sets k_ref per N.
For the 1e-6 target: cradle's rtol (Adams) and LAMMPS' step are searched,
the loosest that meets it with every tighter one scanned. At the largest N
LAMMPS runs only the step found at the N before it (--lmp-scan-max).

For each N: steps, events, largest active region, in-process CPU (median of
--reps; setup = the same command ending at 1e-9 s), per event (all, and the
run without the setup), ns per active body-step (run CPU / (steps x largest
region): a lower bound), peak RSS of a one-run process (no output buffers:
the driver keeps only final velocities) and its slope over N, exponents in N;
LAMMPS' loop CPU, ns per body-step, peak RSS; ratios. With --vs DIR, the
same cradle settings run with another build (main) in turn, final velocities
compared bit for bit. Prints only; never judges.

  python3 bench/packing3d.py --build BUILD [--vs MAIN_BUILD] [--n 1000,10000,100000]
        [--ref-k 1000:4096,10000:4096,100000:2048] [--target 1e-6] [--reps 3]
"""
import argparse
import filecmp
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

T_END = 1.202e-4  # 4 contact times of the first impact (t_c = 3.0052e-5 s)
RTOLS = [1e-5, 3e-6, 1e-6, 3e-7, 1e-7, 3e-8, 1e-8]
KS = [181, 256, 362, 512, 724, 1024, 1448]
LAW = "hertz/material 2.1e11 0.0 0.3 tangential linear_nohistory 0.0 0.0"

LMP_IN = """units si
atom_style sphere
dimension 3
boundary f f f
atom_modify map array
comm_modify vel yes
newton off
read_data {data}
set type 1 mass {mass!r}
pair_style granular
pair_coeff * * {law}
neighbor {skin!r} bin
neigh_modify delay 0 every 1 check yes
timestep {dt!r}
fix 1 all nve/sphere
thermo 0
run {steps}
write_dump all custom {vel} id vx vy vz modify sort id format float %.17g
"""


def log(msg):
    print(msg, flush=True)


def kv(line):
    return {k: v for k, v in (w.split("=", 1) for w in line.split() if "=" in w)}


def read_vel(path):
    with open(path) as f:
        return [float(x) for x in f.read().split()]


def cradle(driver, n, rtol, t_end=T_END, reps=1, vel=None):
    cmd = ["nice", driver, "block:%d" % n, "--t-end", repr(t_end), "--method", "adams",
           "--rtol", repr(rtol), "--reps", str(reps)] + (["--vel", vel] if vel else [])
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("packing3d: %s failed: %s" % (" ".join(cmd), p.stderr.strip()[-300:]))
    return kv(p.stdout)


def lammps(ctx, n, k, vel):
    """Loop CPU (LAMMPS' "Loop time" x CPU use), peak RSS, final velocities."""
    steps = int(math.ceil(T_END / (ctx.tc / k)))
    inp, log_ = os.path.join(ctx.work, "in.lmp"), os.path.join(ctx.work, "log.lmp")
    with open(inp, "w") as f:
        f.write(LMP_IN.format(data=ctx.data(n), mass=ctx.mass, law=LAW, skin=0.1 * ctx.radius,
                              dt=T_END / steps, steps=steps, vel=vel))
    t0 = time.monotonic()
    p = subprocess.Popen(["nice", ctx.lmp, "-in", inp, "-log", log_, "-screen", "none"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    text = open(log_).read()
    m = re.search(r"Loop time of ([0-9.eE+-]+) on", text)
    c = re.search(r"([0-9.]+)% CPU use", text)
    if not m or os.waitstatus_to_exitcode(status) != 0:
        sys.exit("packing3d: lmp failed: " + text[-300:])
    vs = []
    rows = open(vel).read().split("ITEM: ATOMS id vx vy vz")[1].split("\n")
    for row in rows:
        if row.strip():
            vs.extend(float(x) for x in row.split()[1:])
    return {"cpu": float(m.group(1)) * (float(c.group(1)) / 100.0 if c else 1.0), "wall": wall,
            "rss_kb": ru.ru_maxrss, "steps": steps, "k": k, "v": vs}


def err(v, ref):
    if len(v) != len(ref):
        return float("nan")
    return max(abs(a - b) for a, b in zip(v, ref))  # V = 1 m/s


class Ctx:
    def __init__(self, args, work):
        self.work, self.driver = work, os.path.join(args.build, "bench", "peers-cradle")
        self.lmp = shutil.which("lmp")
        info = kv(subprocess.run([self.driver, "block:1000", "--info"], capture_output=True,
                                 text=True, check=True).stdout)
        self.tc, self.mass, self.radius = (float(info["t_contact"]), info["mass"],
                                           float(info["radius"]))

    def data(self, n):
        path = os.path.join(self.work, "block-%d.data" % n)
        if not os.path.exists(path):
            subprocess.run([self.driver, "block:%d" % n, "--lammps", path], check=True)
        return path


def reference(ctx, n, kref):
    """LAMMPS at t_c/kref and t_c/(2 kref), extrapolated to dt -> 0."""
    a = lammps(ctx, n, kref, os.path.join(ctx.work, "ref-a.txt"))
    b = lammps(ctx, n, 2 * kref, os.path.join(ctx.work, "ref-b.txt"))
    ref = [(4 * y - x) / 3 for x, y in zip(a["v"], b["v"])]
    log("  N=%d reference: LAMMPS t_c/%d (%.1f s) and t_c/%d (%.1f s), extrapolated; finer run "
        "%.2e from it, coarser %.2e" % (n, kref, a["cpu"], 2 * kref, b["cpu"], err(b["v"], ref),
                                        err(a["v"], ref)))
    return ref, err(b["v"], ref)


def loosest(points, target):
    """The loosest setting meeting the target with every tighter one scanned."""
    best = None
    for p in reversed(points):  # tightest first
        if not p["err"] <= target:
            break
        best = p
    return best


def measure_cradle(ctx, driver, n, rtol, reps, tag):
    vel = os.path.join(ctx.work, "v-%s-%d.txt" % (tag, n))
    r = cradle(driver, n, rtol, reps=reps)
    s = cradle(driver, n, rtol, t_end=1e-9, reps=reps)
    m = cradle(driver, n, rtol, reps=1, vel=vel)
    return {"cpu": float(r["cpu"]), "setup": float(s["cpu"]), "steps": int(r["steps"]),
            "events": int(r["events"]), "region": int(r["max_window"]),
            "rss_kb": int(m["maxrss_kb"]), "vel": vel, "rtol": rtol}


def fit(ns, ys):
    xs, ls = [math.log(n) for n in ns], [math.log(max(y, 1e-12)) for y in ys]
    mx, my = sum(xs) / len(xs), sum(ls) / len(ls)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ls)) / den if den else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--vs", help="another build (main), the same cradle settings in turn")
    ap.add_argument("--n", default="1000,10000,100000")
    ap.add_argument("--ref-k", default="1000:4096,10000:4096,100000:2048")
    ap.add_argument("--target", type=float, default=1e-6)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--lmp-scan-max", type=int, default=10000,
                    help="largest N whose LAMMPS step is searched; above, the step found last")
    ap.add_argument("--work", help="scratch directory (default: a temporary one)")
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    ns = [int(x) for x in args.n.split(",")]
    kref = {int(a): int(b) for a, b in (w.split(":") for w in args.ref_k.split(","))}
    work = args.work or tempfile.mkdtemp(prefix="packing3d-")
    os.makedirs(work, exist_ok=True)
    ctx = Ctx(args, work)
    if not ctx.lmp:
        sys.exit("packing3d: LAMMPS (lmp) not found: sh bench/peers/setup.sh")
    log("# block:N (fcc, 1 um gaps +- 2*sqrt(3)*0.25 um), t_end %g s = %.2f t_c, target %g V; "
        "Adams, atol rtol/100; work in %s" % (T_END, T_END / ctx.tc, args.target, work))
    rows, k_last = {}, None
    for n in ns:
        ref, ref_err = reference(ctx, n, kref.get(n, 2048))
        pts = []
        for rtol in RTOLS:
            v = os.path.join(work, "scan.txt")
            r = cradle(ctx.driver, n, rtol, vel=v)
            pts.append({"rtol": rtol, "err": err(read_vel(v), ref), "cpu": float(r["cpu"])})
            log("  N=%d cradle rtol %.0e: err %.2e cpu %.3f s" % (n, rtol, pts[-1]["err"],
                                                                   pts[-1]["cpu"]))
        pick = loosest(pts, args.target) or pts[-1]
        lpts = []
        ks = KS if n <= args.lmp_scan_max or k_last is None else [k_last]
        for k in ks:
            r = lammps(ctx, n, k, os.path.join(work, "lmp-v.txt"))
            r["err"] = err(r.pop("v"), ref)
            lpts.append(r)
            log("  N=%d LAMMPS t_c/%d: err %.2e cpu %.3f s rss %.1f MB" % (
                n, k, r["err"], r["cpu"], r["rss_kb"] / 1024))
            if r["err"] <= 0.25 * args.target:
                break
        lpick = next((p for p in lpts if p["err"] <= args.target), lpts[-1])
        k_last = lpick["k"]
        row = {"this": measure_cradle(ctx, ctx.driver, n, pick["rtol"], args.reps, "this"),
               "err": pick["err"], "lmp": lpick, "ref_err": ref_err}
        if args.vs:
            vs = os.path.join(os.path.abspath(args.vs), "bench", "peers-cradle")
            row["vs"] = measure_cradle(ctx, vs, n, pick["rtol"], args.reps, "vs")
            row["same"] = filecmp.cmp(row["this"]["vel"], row["vs"]["vel"], shallow=False)
        rows[n] = row
        report(ns[: ns.index(n) + 1], rows, args)


def report(ns, rows, args):
    log("\n| N | rtol | steps | events | max region | CPU [s] | setup [s] | µs/event all | "
        "µs/event run | ns/active body-step | RSS [MB] | err | LAMMPS dt | LAMMPS CPU [s] | "
        "LAMMPS ns/body-step | LAMMPS RSS [MB] | LAMMPS err | LAMMPS/cradle |")
    log("|" + "---|" * 18)
    for n in ns:
        r, t, l = rows[n], rows[n]["this"], rows[n]["lmp"]
        run = t["cpu"] - t["setup"]
        log("| %d | %.0e | %d | %d | %d | %.3f | %.3f | %.0f | %.0f | %.0f | %.1f | %.1e | t_c/%d "
            "| %.2f | %.0f | %.1f | %.1e | %.1f× |" % (
                n, t["rtol"], t["steps"], t["events"], t["region"], t["cpu"], t["setup"],
                1e6 * t["cpu"] / t["events"], 1e6 * run / t["events"],
                1e9 * run / (t["steps"] * t["region"]), t["rss_kb"] / 1024, r["err"], l["k"],
                l["cpu"], 1e9 * l["cpu"] / (l["steps"] * (n + 1)), l["rss_kb"] / 1024, l["err"],
                l["cpu"] / t["cpu"]))
        if "vs" in r:
            v = r["vs"]
            log("  vs: CPU %.3f s, setup %.3f s, this/vs %.3f; steps %d/%d events %d/%d; final "
                "velocities %s" % (v["cpu"], v["setup"], t["cpu"] / v["cpu"], t["steps"],
                                   v["steps"], t["events"], v["events"],
                                   "bit for bit the same" if r["same"] else "DIFFERENT"))
    if len(ns) > 1:
        T = [rows[n]["this"] for n in ns]
        per = lambda t, run: (t["cpu"] - (t["setup"] if run else 0)) / t["events"]
        log("per event at N=%d over N=%d: %.2f (all), %.2f (run); exponent in N: CPU %.2f, run "
            "%.2f, setup %.2f, LAMMPS %.2f; peak RSS slope N=%d..%d: cradle %.3f KB, LAMMPS %.3f "
            "KB per body" % (
                ns[-1], ns[0], per(T[-1], 0) / per(T[0], 0), per(T[-1], 1) / per(T[0], 1),
                fit(ns, [t["cpu"] for t in T]), fit(ns, [t["cpu"] - t["setup"] for t in T]),
                fit(ns, [t["setup"] for t in T]), fit(ns, [rows[n]["lmp"]["cpu"] for n in ns]),
                ns[-2], ns[-1], (T[-1]["rss_kb"] - T[-2]["rss_kb"]) / (ns[-1] - ns[-2]),
                (rows[ns[-1]]["lmp"]["rss_kb"] - rows[ns[-2]]["lmp"]["rss_kb"]) /
                (ns[-1] - ns[-2])))


if __name__ == "__main__":
    main()
