#!/bin/bash
# Per-step phase times of the penalty benchmark pile for one or more ccpdem binaries, alternating
# (A/B comparisons on a shared machine: both see the same moments).
# Usage: bash jobs/bench/penalty_phases.sh OUT ROUNDS BIN [BIN ...]
#  OUT: the directory of jobs/bench/penalty_vs_lammps.sh (its settled checkpoint); each round runs
#  every BIN once for 1000 steps from that checkpoint on 1 rank and prints the medians over the
#  steps (from OUT/phases/timeseries.csv, microseconds) of detect, loads ("solve") and integrate,
#  their sum, and the smallest per-step sum.
set -eu
OUT=$1; ROUNDS=$2; shift 2
CKPT=$OUT/settle/checkpoints/ckpt-006000.h5
[ -f "$CKPT" ] || { echo "run jobs/bench/penalty_vs_lammps.sh $OUT first (it settles the pile)"; exit 1; }
for r in $(seq "$ROUNDS"); do
  for bin in "$@"; do
    rm -rf "$OUT/phases"
    "$bin" restart "$CKPT" -o "$OUT/phases" --until 0.7 > "$OUT/phases.log" 2>&1
    python3 - "$bin" "$OUT/phases/timeseries.csv" << 'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[2])))[-1000:]
ph = {k: [float(r['wall_' + k]) * 1e6 for r in rows] for k in ('detect', 'solve', 'integrate')}
total = [sum(v) for v in zip(*ph.values())]
print("%-40s detect %6.1f  solve %6.1f  integrate %6.1f  sum %6.1f  (min %6.1f) us per step" %
      (sys.argv[1][-40:], *(statistics.median(ph[k]) for k in ph), statistics.median(total), min(total)))
PY
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
