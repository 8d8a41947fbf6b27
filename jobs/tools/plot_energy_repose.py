#!/usr/bin/env python3
"""Kinetic energy and angle of repose against time for one run, as a PNG (matplotlib, Agg backend).

    python3 jobs/tools/plot_energy_repose.py OUT [--ccpdem build/ccpdem] [--x-range A,B] [-o OUT/energy_repose.png]

The kinetic energy is the time series' (every step); the angle of repose is measured in each
snapshot by `ccpdem analyze repose` (src/analysis/repose.h: the same measurement as the run's
analysis.repose), left out where the snapshot has no pile with a usable flank yet. Prints one line
per snapshot (time, angle) and the file written.
"""
import argparse
import os
import re
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ccpdem_read  # noqa: E402

_ANGLE = re.compile(r"angle of repose: ([-+0-9.eE]+) deg")


def repose_angle(ccpdem, snapshot, x_range):
    """The angle of repose (degrees) of snapshot by `ccpdem analyze repose`, or None where it finds no pile."""
    cmd = [ccpdem, "analyze", "repose", snapshot] + (["--x-range", x_range] if x_range else [])
    run = subprocess.run(cmd, capture_output=True, text=True)
    m = _ANGLE.search(run.stdout)
    return float(m.group(1)) if run.returncode == 0 and m else None


def main():
    """Parse the arguments, measure, plot; exit 0 when the PNG was written."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir", help="the run's output directory (timeseries.csv, snapshots/)")
    ap.add_argument("--ccpdem", default="ccpdem", help="the ccpdem executable (default: ccpdem on PATH)")
    ap.add_argument("--x-range", default=None, help="A,B: measure the pile with A <= x <= B only")
    ap.add_argument("-o", "--output", default=None, help="the PNG (default OUT/energy_repose.png)")
    args = ap.parse_args()
    out = args.output or os.path.join(args.outdir, "energy_repose.png")

    ts = ccpdem_read.read_timeseries(args.outdir)
    times, angles = [], []
    for step, path in ccpdem_read.list_snapshots(args.outdir):
        angle = repose_angle(args.ccpdem, path, args.x_range)
        t = ccpdem_read.read_snapshot(path)["time"]
        print(f"t = {t:.6g} s: angle of repose {'-' if angle is None else f'{angle:.2f} deg'}")
        if angle is not None:
            times.append(t)
            angles.append(angle)

    fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(7, 6))
    ax1.semilogy(ts["time"], ts["kinetic_energy"])
    ax1.set_ylabel("kinetic energy (J)")
    ax2.plot(times, angles, "o-")
    ax2.set_ylabel("angle of repose (deg)")
    ax2.set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
