#!/usr/bin/python3
"""Gather a scaling study (jobs/scaling/study.sh) into OUTDIR/scaling.csv and draw the plots.

For each run directory OUTDIR/npP: the mean over the steps after the first WARMUP of the wall time
per step and per phase (the time series' wall_detect, wall_solve, wall_integrate, wall_io, rank
0's; the step time is their sum; wall_comm is the part of them spent communicating: migration and
ghosts in detect, the velocity exchanges and reductions in solve), the iterations per step, and
the bytes sent per step per rank. Then, against the smallest rank count P0 of the study:
  strong: speedup = T(P0) / T(P) x P0, efficiency = speedup / P;
  weak:   efficiency = T(P0) / T(P), speedup = efficiency x P / P0 x P0 (scaled speedup).
Plots (PNG): speedup.png (with the ideal line), efficiency.png, phases.png (seconds per step per
phase, stacked, for each rank count).
Usage: report.py OUTDIR [--warmup K (default 2)]
"""
import csv
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

PHASES = ["wall_detect", "wall_solve", "wall_integrate", "wall_io"]  # they add up to the step
COLUMNS = ["study", "ranks", "bodies", "contacts", "steps", "seconds_per_step"] + [p + "_per_step" for p in PHASES + ["wall_comm"]] + [
    "iterations_per_step", "bytes_per_step_per_rank", "speedup", "efficiency", "imbalance_bodies_first", "imbalance_bodies",
    "imbalance_contacts", "imbalance_work"]


def read_study(outdir):
    info = {}
    with open(os.path.join(outdir, "study.txt")) as f:
        for line in f:
            key, _, value = line.strip().partition("=")
            info[key] = value
    return info


def summarize(run_dir, ranks, warmup):
    with open(os.path.join(run_dir, "timeseries.csv")) as f:
        rows = list(csv.DictReader(f))
    kept = rows[warmup:] if len(rows) > warmup else rows
    if not kept:
        raise SystemExit(f"report.py: {run_dir}/timeseries.csv has no steps")
    n = len(kept)
    mean = lambda key: sum(float(r[key]) for r in kept) / n  # noqa: E731
    out = {"ranks": ranks, "bodies": int(kept[-1]["bodies"]), "contacts": int(kept[-1]["contacts"]), "steps": n}
    for p in PHASES + ["wall_comm"]:
        out[p + "_per_step"] = mean(p)
    out["seconds_per_step"] = sum(out[p + "_per_step"] for p in PHASES)
    out["iterations_per_step"] = mean("iterations")
    out["bytes_per_step_per_rank"] = mean("bytes_sent") / ranks
    # imbalance (max/mean over ranks): the bodies' at the first step and their mean over the kept
    # steps from the time series; the contacts' and the work's (bodies + contacts) at the last step
    # from the run's summary line (ccpdem prints it on several ranks; 1 on one rank)
    out["imbalance_bodies_first"] = float(rows[0]["imbalance"])
    out["imbalance_bodies"] = mean("imbalance")
    out["imbalance_contacts"] = out["imbalance_work"] = 1.0
    log = os.path.join(run_dir, "run.log")
    if os.path.exists(log):
        with open(log) as f:
            m = re.search(r"contacts ([0-9.]+), work ([0-9.]+); \d+ rebalances", f.read())
        if m:
            out["imbalance_contacts"], out["imbalance_work"] = float(m.group(1)), float(m.group(2))
    return out


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    outdir = argv[1]
    warmup = int(argv[argv.index("--warmup") + 1]) if "--warmup" in argv else 2
    info = read_study(outdir)
    study = info["study"]
    runs = sorted((int(d[2:]), os.path.join(outdir, d)) for d in os.listdir(outdir) if d.startswith("np") and d[2:].isdigit())
    rows = [summarize(path, p, warmup) for p, path in runs]
    base = rows[0]
    for r in rows:
        ratio = base["seconds_per_step"] / r["seconds_per_step"]
        if study == "strong":
            r["speedup"] = ratio * base["ranks"]
            r["efficiency"] = r["speedup"] / r["ranks"]
        else:
            r["efficiency"] = ratio
            r["speedup"] = ratio * r["ranks"]
        r["study"] = study
    with open(os.path.join(outdir, "scaling.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{r[k]:.6g}" if isinstance(r[k], float) else r[k]) for k in COLUMNS})
    ranks = [r["ranks"] for r in rows]
    label = f"{study} scaling ({info.get('bodies')} bodies{' per rank' if study == 'weak' else ''})"

    fig, ax = plt.subplots(figsize=(5, 4))
    ax.plot(ranks, [r["speedup"] for r in rows], "o-", label="measured")
    ax.plot(ranks, ranks, "k--", label="ideal")
    ax.set(xlabel="MPI ranks", ylabel="scaled speedup" if study == "weak" else "speedup", title=label)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "speedup.png"), dpi=100)

    fig, ax = plt.subplots(figsize=(5, 4))
    ax.plot(ranks, [100 * r["efficiency"] for r in rows], "o-")
    ax.axhline(100, color="k", ls="--")
    ax.set(xlabel="MPI ranks", ylabel="parallel efficiency (%)", title=label, ylim=(0, 120))
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "efficiency.png"), dpi=100)

    fig, ax = plt.subplots(figsize=(5, 4))
    bottom = [0.0] * len(rows)
    for p in PHASES:
        values = [r[p + "_per_step"] for r in rows]
        ax.bar([str(x) for x in ranks], values, bottom=bottom, label=p[5:])
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.plot([str(x) for x in ranks], [r["wall_comm_per_step"] for r in rows], "kD", label="of which comm.")
    ax.set(xlabel="MPI ranks", ylabel="wall seconds per step (rank 0)", title=label)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "phases.png"), dpi=100)
    for r in rows:
        print(f"{study}: {r['ranks']} ranks, {r['bodies']} bodies: {r['seconds_per_step']:.4g} s/step, speedup {r['speedup']:.3f}, "
              f"efficiency {100 * r['efficiency']:.1f}%, {r['bytes_per_step_per_rank']:.3g} bytes/step/rank")
    print(f"wrote {outdir}/scaling.csv, speedup.png, efficiency.png, phases.png")


if __name__ == "__main__":
    main(sys.argv)
