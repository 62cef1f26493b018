#!/usr/bin/env python3
"""Pool cost per event against N (issue 24; docs/performance.md, "Pool events
at 10^3-10^5 discs"): bench/peers' packing of N steel discs struck by one
(`peers-cradle pool:N`, 10 contact times), for each N the run and its setup
alone (the same command ending at 1e-9 s: create, first neighbour search,
first region), in-process CPU medians of --reps, then per event (all, and the
run without the setup), ns per active disc-step (run CPU / (steps x largest
region): a lower bound), peak RSS of a one-run process, and the exponents in
N fitted by least squares. With --vs DIR (another build directory, e.g. main's)
both builds run in turn, --rounds times, each figure the mean of the rounds'
medians, and their final velocities are compared bit for bit. Prints only;
never judges.

  python3 bench/pool-events.py --build BUILD [--vs OTHER_BUILD] [--n 1000,10000,100000]
                               [--method adams] [--rtol 1e-7] [--reps 3] [--rounds 2]
"""
import argparse
import filecmp
import math
import os
import subprocess
import sys
import tempfile

T_END = 3.005e-4  # 10 contact times of the first impact (bench/peers' pool row)


def parse(line):
    return {k: v for k, v in (w.split("=", 1) for w in line.split() if "=" in w)}


def run(driver, n, t_end, args, reps, vel=None):
    cmd = [driver, "pool:%d" % n, "--t-end", repr(t_end), "--method", args.method, "--rtol",
           repr(args.rtol), "--reps", str(reps)] + (["--vel", vel] if vel else [])
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("pool-events: %s failed: %s" % (" ".join(cmd), p.stderr.strip()[-300:]))
    return parse(p.stdout)


def measure(driver, n, args, tmp, tag):
    """One round of one build at one N: run, setup, and a one-run process for
    the peak RSS (several runs in one process also count the freed heap)."""
    vel = os.path.join(tmp, "v-%s-%d.txt" % (tag, n))
    r = run(driver, n, T_END, args, args.reps)
    s = run(driver, n, 1e-9, args, args.reps)
    m = run(driver, n, T_END, args, 1, vel)
    return {"cpu": float(r["cpu"]), "setup": float(s["cpu"]), "steps": int(r["steps"]),
            "events": int(r["events"]), "region": int(r["max_window"]),
            "rss_kb": int(m["maxrss_kb"]), "vel": vel}


def fit_exponent(ns, ys):
    """Least-squares slope of log y against log N."""
    xs = [math.log(n) for n in ns]
    ls = [math.log(max(y, 1e-12)) for y in ys]
    mx, my = sum(xs) / len(xs), sum(ls) / len(ls)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ls)) / den if den else float("nan")


def report(name, ns, rows):
    print("# %s" % name)
    print("%8s %6s %6s %6s %10s %10s %12s %12s %10s %10s" % (
        "N", "steps", "events", "region", "cpu [s]", "setup [s]", "us/event", "us/event run",
        "ns/a-step", "rss [MB]"))
    for n in ns:
        r = rows[n]
        run_cpu = r["cpu"] - r["setup"]
        print("%8d %6d %6d %6d %10.4g %10.4g %12.1f %12.1f %10.0f %10.1f" % (
            n, r["steps"], r["events"], r["region"], r["cpu"], r["setup"],
            1e6 * r["cpu"] / r["events"], 1e6 * run_cpu / r["events"],
            1e9 * run_cpu / (r["steps"] * r["region"]), r["rss_kb"] / 1024.0))
    if len(ns) > 1:
        lo, hi = rows[ns[0]], rows[ns[-1]]
        per = lambda r, run_only: (r["cpu"] - (r["setup"] if run_only else 0.0)) / r["events"]
        print("  per event at N=%d over N=%d: %.2f (all), %.2f (run)" % (
            ns[-1], ns[0], per(hi, False) / per(lo, False), per(hi, True) / per(lo, True)))
        print("  exponent in N: cpu %.3f, run %.3f, setup %.3f" % (
            fit_exponent(ns, [rows[n]["cpu"] for n in ns]),
            fit_exponent(ns, [max(rows[n]["cpu"] - rows[n]["setup"], 1e-9) for n in ns]),
            fit_exponent(ns, [rows[n]["setup"] for n in ns])))
        print("  peak RSS slope N=%d..%d: %.3f KB per disc" % (
            ns[-2], ns[-1], (rows[ns[-1]]["rss_kb"] - rows[ns[-2]]["rss_kb"]) / (ns[-1] - ns[-2])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", required=True, help="build directory with bench/peers-cradle")
    ap.add_argument("--vs", help="a second build directory, run in turn with the first")
    ap.add_argument("--n", default="1000,10000,100000")
    ap.add_argument("--method", default="adams")
    ap.add_argument("--rtol", type=float, default=1e-7)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    ns = [int(x) for x in args.n.split(",")]
    builds = [("this", args.build)] + ([("vs", args.vs)] if args.vs else [])
    drivers = {tag: os.path.join(b, "bench", "peers-cradle") for tag, b in builds}
    print("# pool:N (bench/peers' packing), t_end %g s, %s rtol %g (atol rtol/100); in-process "
          "CPU, medians of %d, mean over %d rounds" % (T_END, args.method, args.rtol, args.reps,
                                                      args.rounds))
    acc = {tag: {n: [] for n in ns} for tag, _ in builds}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.rounds):
            for n in ns:
                for tag, _ in builds:  # in turn, so a drift of the machine cancels
                    acc[tag][n].append(measure(drivers[tag], n, args, tmp, tag))
        rows = {}
        for tag, b in builds:
            rows[tag] = {}
            for n in ns:
                rs = acc[tag][n]
                row = dict(rs[-1])
                for k in ("cpu", "setup"):
                    row[k] = sum(r[k] for r in rs) / len(rs)
                rows[tag][n] = row
            report("%s (%s)" % (tag, b), ns, rows[tag])
        if args.vs:
            for n in ns:
                a, b = rows["this"][n], rows["vs"][n]
                same = filecmp.cmp(a["vel"], b["vel"], shallow=False)
                print("N=%d: this/vs cpu %.3f, steps %d/%d, events %d/%d, final velocities %s" % (
                    n, a["cpu"] / b["cpu"], a["steps"], b["steps"], a["events"], b["events"],
                    "bit for bit the same" if same else "DIFFERENT"))


if __name__ == "__main__":
    main()
