#!/usr/bin/python3
"""Performance model of a ccpdem step, fitted to a measured scaling study, and its predictions.

    time per step T(P) = I x [ t_c(P) (1 + s sqrt(2 ln P))               compute, and the wait for the slowest rank
                              + 2 k lat + b (N/P)^(2/3) / bw              halo exchange (surface)
                              + 2 ceil(log2 P) lat ]                      Allreduce (log P)
    t_c(P) = w m(c) N/P,  c = min(P, cores per node)

N bodies, P ranks, I iterations per step (the distributed APGD does one velocity exchange, a
reverse and a forward scatter to the k neighbours, and one Allreduce per iteration).
Fitted from OUTDIR/scaling.csv (jobs/scaling/report.py) of a study with a 1-rank run and runs on more:
  w  = (1-rank seconds per step) / (I x N)                   seconds per body and iteration, one busy core
  m  = memory contention: the slowdown of one rank's compute when c ranks of a node compute at once,
       measured by running c independent 1-rank copies at the same time (jobs/scaling/kit_device.sh);
       given with --contention c:m,c:m,... and interpolated linearly in c (1 where not given: no contention)
  s  = the wait: on one node the time the runs spend in exchanges and reductions (wall_comm) is almost all
       waiting for the slowest rank (the transfers of a few tens of KB take microseconds), so
       wall_comm / (I t_c(P)) is fitted as s sqrt(2 ln P), the expected excess of the largest of P
       compute times of relative spread s (least squares over the study's runs on 2 or more ranks;
       attributing all of wall_comm to the wait makes s an upper bound)
  b  = (bytes per step per rank at the study's largest P) / (I x (N/P)^(2/3))   bytes per iteration per surface body
The network is not measured (one node: shared memory); its latency lat and bandwidth bw are options with
stated defaults. Neighbours: k = min(26, P - 1) (a 3-D grid: faces, edges, corners). Detection and
integration are folded into w (both are per body).
Predictions are MODEL OUTPUT, not measurements.
Usage: model.py OUTDIR [--latency S (default 2e-6)] [--bandwidth B/s (default 1.0e10)]
                       [--bodies N (strong study size, default: the study's)]
                       [--contention c:m,c:m,...] [--cores-per-node C (default 16)] [--plot FILE.png]
       (several OUTDIRs: a strong and a weak study; --plot: measured efficiencies as points, the model's as lines)
"""
import csv
import math
import sys


def option(argv, name, default):
    return float(argv[argv.index(name) + 1]) if name in argv else default


def contention_table(argv):
    """[(cores, slowdown)] sorted by cores, starting at (1, 1.0)."""
    table = {1: 1.0}
    if "--contention" in argv:
        for item in argv[argv.index("--contention") + 1].split(","):
            c, _, m = item.partition(":")
            try:
                cores, slowdown = int(c), float(m)
            except ValueError:
                cores = slowdown = 0
            if cores < 1 or slowdown <= 0:
                print(f"model.py: --contention takes cores:slowdown pairs such as 4:1.12,16:1.66, not '{item}'",
                      file=sys.stderr)
                sys.exit(2)
            table[cores] = slowdown
    return sorted(table.items())


def contention(table, c):
    """The slowdown at c busy cores, linear between the measured points, the last one beyond them."""
    for (c0, m0), (c1, m1) in zip(table, table[1:]):
        if c <= c1:
            return m0 + (m1 - m0) * (c - c0) / (c1 - c0)
    return table[-1][1]


VALUED = ("--latency", "--bandwidth", "--bodies", "--contention", "--cores-per-node", "--plot")


class Model:
    def __init__(self, w, b, s, iters, lat, bw, table, cores):
        self.w, self.b, self.s, self.iters, self.lat, self.bw = w, b, s, iters, lat, bw
        self.table, self.cores = table, cores

    def compute(self, n, p):
        """t_c: seconds of compute per iteration on each of p ranks."""
        return self.w(n / p) * contention(self.table, min(p, self.cores)) * n / p

    def parts(self, n, p):
        """Seconds per step: compute, wait, halo, reduction."""
        t_c = self.compute(n, p)
        wait = t_c * self.s * math.sqrt(2 * math.log(p)) if p > 1 else 0.0
        k = min(26, p - 1)
        halo = 2 * k * self.lat + self.b * (n / p) ** (2 / 3) / self.bw if p > 1 else 0.0
        reduce = 2 * math.ceil(math.log2(p)) * self.lat if p > 1 else 0.0
        return [self.iters * x for x in (t_c, wait, halo, reduce)]

    def step(self, n, p):
        return sum(self.parts(n, p))


def per_body_cost(points):
    """w(n): seconds per body-iteration on one rank holding n bodies ({n: [w, ...]}), interpolated linearly in
    log n between the 1-rank runs of the studies (the cost per body grows with n as the data leave the caches), held
    constant beyond the smallest and largest n measured."""
    points = sorted((n, sum(ws) / len(ws)) for n, ws in points.items())  # studies of one size: their mean

    def w(n):
        if n <= points[0][0]:
            return points[0][1]
        for (n0, w0), (n1, w1) in zip(points, points[1:]):
            if n <= n1:
                return w0 + (w1 - w0) * math.log(n / n0) / math.log(n1 / n0)
        return points[-1][1]
    return w


def main(argv):
    dirs = [a for a in argv[1:] if not a.startswith("--") and argv[argv.index(a) - 1] not in VALUED]
    if not dirs:
        raise SystemExit(__doc__)
    lat = option(argv, "--latency", 2e-6)
    bw = option(argv, "--bandwidth", 1.0e10)
    cores = int(option(argv, "--cores-per-node", 16))
    table = contention_table(argv)
    studies = {}
    for outdir in dirs:
        with open(f"{outdir}/scaling.csv") as f:
            rows = {int(r["ranks"]): r for r in csv.DictReader(f)}
        if 1 not in rows or len(rows) < 2:
            raise SystemExit(f"model.py: {outdir}/scaling.csv needs a 1-rank run and one on more ranks "
                             f"(has {sorted(rows)})")
        studies[rows[1]["study"]] = rows
    iters = float(next(iter(studies.values()))[1]["iterations_per_step"])
    costs = {}
    for r in studies.values():
        n1 = float(r[1]["bodies"])
        costs.setdefault(n1, []).append(float(r[1]["seconds_per_step"]) / (iters * n1))
    w = per_body_cost(costs)
    first = studies[next(iter(studies))]
    p_big = max(first)
    n_big = float(first[p_big]["bodies"])
    b = float(first[p_big]["bytes_per_step_per_rank"]) / (
        float(first[p_big]["iterations_per_step"]) * (n_big / p_big) ** (2 / 3))
    fit = Model(w, b, 0.0, iters, lat, bw, table, cores)
    # least squares of y = s x over the runs on several ranks: y = comm / (I t_c), x = sqrt(2 ln P)
    sxy = sxx = 0.0
    for rows in studies.values():
        for p in (p for p in rows if p > 1):
            x = math.sqrt(2 * math.log(p))
            y = float(rows[p]["wall_comm_per_step"]) / (iters * fit.compute(float(rows[p]["bodies"]), p))
            sxy += x * y
            sxx += x * x
    fit.s = sxy / sxx
    n_strong = option(argv, "--bodies", float(studies["strong"][1]["bodies"]) if "strong" in studies
                      else 64 * float(studies["weak"][1]["bodies"]))
    n_weak = float(studies["weak"][1]["bodies"]) if "weak" in studies else n_strong / 64  # bodies per rank
    print("MODEL OUTPUT (not measured): ccpdem time per step T(P) = I [t_c (1 + s sqrt(2 ln P)) + 2k lat "
          "+ b (N/P)^(2/3)/bw + 2 ceil(log2 P) lat], t_c = w(N/P) m(c) N/P")
    for name, rows in studies.items():
        n1 = float(rows[1]["bodies"])
        print(f"  fitted from the {name} study (ranks {', '.join(str(p) for p in sorted(rows))}): "
              f"w({n1:.0f}) = {w(n1):.3e} s per body-iteration (1 rank)")
    print(f"  s = {fit.s:.3f} (wait, all runs on several ranks), b = {b:.3g} bytes per iteration per surface body "
          f"({p_big} ranks), I = {iters:.0f} iterations per step")
    print(f"  memory contention m(c) (c busy cores of {cores} per node): "
          + ", ".join(f"{c}: {m:.3f}" for c, m in table) + ("" if len(table) > 1 else " (none given)"))
    print(f"  assumed network: latency {lat:.2g} s per message, bandwidth {bw:.3g} B/s; k = min(26, P-1) neighbours; "
          f"bodies balanced; iterations independent of P (the distributed solve is the 1-rank iteration)")
    for name, rows in studies.items():
        print(f"  the fit against the {name} study (measured s/step : model s/step): "
              + "; ".join(f"P={p}: {float(rows[p]['seconds_per_step']):.4g} : "
                          f"{fit.step(float(rows[p]['bodies']), p):.4g}" for p in sorted(rows)))
    t1_strong = fit.step(n_strong, 1)
    t1_weak = fit.step(n_weak, 1)
    print(f"  strong: N = {n_strong:.0f} bodies in all; weak: N/P = {n_weak:.0f} bodies per rank")
    print(f"  {'ranks':>6} {'strong s/step':>14} {'strong eff.':>11} {'weak s/step':>12} {'weak eff.':>10}"
          f"   weak step: compute / wait / halo / reduce")
    p = 16
    while p <= 4096:
        ts = fit.step(n_strong, p)
        tw = fit.step(n_weak * p, p)
        share = " / ".join(f"{100 * x / tw:.0f}%" for x in fit.parts(n_weak * p, p))
        print(f"  {p:>6} {ts:>14.4g} {100 * t1_strong / (p * ts):>10.1f}% {tw:>12.4g} "
              f"{100 * t1_weak / tw:>9.1f}%   {share}")
        p *= 2
    if "--plot" in argv:
        plot(argv[argv.index("--plot") + 1], studies, fit, n_strong, n_weak)


def plot(path, studies, fit, n_strong, n_weak):
    """Measured efficiency per study (points) and the model's (lines) from 1 to 4096 ranks, one PNG."""
    import matplotlib
    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt
    ranks = [2 ** i for i in range(13)]
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, colour in (("strong", "tab:blue"), ("weak", "tab:orange")):
        n = n_strong if name == "strong" else n_weak
        t1 = fit.step(n, 1)
        model = [t1 / (p * fit.step(n, p)) if name == "strong" else t1 / fit.step(n * p, p) for p in ranks]
        ax.plot(ranks, [100 * e for e in model], "-", color=colour, label=f"{name}: model")
        if name in studies:
            rows = studies[name]
            ax.plot(sorted(rows), [100 * float(rows[p]["efficiency"]) for p in sorted(rows)], "o", color=colour,
                    label=f"{name}: measured")
    ax.plot(ranks, [100 / contention(fit.table, min(p, fit.cores)) for p in ranks], ":", color="grey",
            label="weak bound: memory contention alone")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("MPI ranks (16 per node)")
    ax.set_ylabel("efficiency (%)")
    ax.set_ylim(0, 110)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(f"strong: {n_strong:.0f} bodies; weak: {n_weak:.0f} per rank")
    fig.tight_layout()
    fig.savefig(path, dpi=90)


if __name__ == "__main__":
    main(sys.argv)
