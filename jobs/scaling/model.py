#!/usr/bin/python3
"""Performance model of a ccpdem step, fitted to a measured scaling study, and its predictions.

    time per step T(P) = I x [ w x N/P                                  local work (sweeps, detection)
                              + 2 k (lat + b (N/P)^(2/3) / (2 k bw))     halo exchange (surface)
                              + 2 log2(P) lat ]                          Allreduce (log P)

N bodies, P ranks, I iterations per step (the distributed APGD does one velocity exchange, a
reverse and a forward scatter to the k neighbours, and one Allreduce per iteration).
Fitted from OUTDIR/scaling.csv (jobs/scaling/report.py) of a study with 1- and 2-rank runs:
  w  = (1-rank seconds per step) / (I x N)                  seconds per body and iteration
  b  = (2-rank bytes per step per rank) / (I x (N/2)^(2/3))  bytes per iteration per surface body
The network is not measured here (one node: shared memory); its latency lat and bandwidth bw
are options with stated defaults. Neighbours: k = min(26, P - 1) (a 3-D grid: faces, edges,
corners). Detection and integration are folded into w (both are per body).
Predictions are MODEL OUTPUT, not measurements.
Usage: model.py OUTDIR [--latency S (default 2e-6)] [--bandwidth B/s (default 1.0e10)]
                       [--bodies N (strong study size, default: the study's)]
"""
import csv
import math
import sys


def option(argv, name, default):
    return float(argv[argv.index(name) + 1]) if name in argv else default


def step_time(n, p, iters, w, b, lat, bw):
    k = min(26, p - 1)
    local = w * n / p
    halo = 2 * k * lat + b * (n / p) ** (2 / 3) / bw if p > 1 else 0.0
    reduce = 2 * math.log2(p) * lat if p > 1 else 0.0
    return iters * (local + halo + reduce)


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    outdir = argv[1]
    lat = option(argv, "--latency", 2e-6)
    bw = option(argv, "--bandwidth", 1.0e10)
    with open(f"{outdir}/scaling.csv") as f:
        rows = {int(r["ranks"]): r for r in csv.DictReader(f)}
    if 1 not in rows or 2 not in rows:
        raise SystemExit(f"model.py: {outdir}/scaling.csv needs a 1-rank and a 2-rank run (has {sorted(rows)})")
    one, two = rows[1], rows[2]
    iters = float(one["iterations_per_step"])
    n1, n2 = float(one["bodies"]), float(two["bodies"])
    w = float(one["seconds_per_step"]) / (iters * n1)
    b = float(two["bytes_per_step_per_rank"]) / (float(two["iterations_per_step"]) * (n2 / 2) ** (2 / 3))
    n_strong = option(argv, "--bodies", n1 if one["study"] == "strong" else n1 * 64)
    n_weak = n1  # bodies per rank: the 1-rank run's
    print("MODEL OUTPUT (not measured): ccpdem time per step T(P) = I [w N/P + 2k lat + b (N/P)^(2/3)/bw + 2 log2(P) lat]")
    print(f"  fitted from {outdir}/scaling.csv: w = {w:.3e} s per body-iteration (1 rank), "
          f"b = {b:.3g} bytes per iteration per surface body (2 ranks), I = {iters:.0f} iterations per step")
    print(f"  assumed network: latency {lat:.2g} s per message, bandwidth {bw:.3g} B/s; k = min(26, P-1) neighbours; "
          f"no contention, perfect load balance, iterations independent of P (as measured at 1-4 ranks)")
    t1_strong = step_time(n_strong, 1, iters, w, b, lat, bw)
    t1_weak = step_time(n_weak, 1, iters, w, b, lat, bw)
    print(f"  strong: N = {n_strong:.0f} bodies in all; weak: N/P = {n_weak:.0f} bodies per rank")
    print(f"  {'ranks':>6} {'strong s/step':>14} {'strong eff.':>11} {'weak s/step':>12} {'weak eff.':>10}")
    p = 16
    while p <= 4096:
        ts = step_time(n_strong, p, iters, w, b, lat, bw)
        tw = step_time(n_weak * p, p, iters, w, b, lat, bw)
        print(f"  {p:>6} {ts:>14.4g} {100 * t1_strong / (p * ts):>10.1f}% {tw:>12.4g} {100 * t1_weak / tw:>9.1f}%")
        p *= 2


if __name__ == "__main__":
    main(sys.argv)
