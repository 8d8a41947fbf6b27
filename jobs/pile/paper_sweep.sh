#!/usr/bin/env bash
# The rolling-friction paper's study (sec. 6.3): jobs/pile/paper.yaml for rho = sigma in RHOS
# (default "0 0.0025 0.005 0.0075 0.01" m), each run on NP ranks (default 2) into OUT/rho-<rho>,
# then the angle of repose of each final pile (ccpdem analyze repose), OUT/repose.csv
# (rho, angle, uncertainty, wall seconds) and OUT/repose.png (angle against rho).
# Usage: jobs/pile/paper_sweep.sh [OUT]   (environment: RHOS, NP, CCPDEM, CCPDEM_ARGS: extra run
# options, e.g. "-ccp_max_it 50")
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${1:-$repo/out/paper_sweep}
ccpdem=${CCPDEM:-$repo/build/ccpdem}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
mkdir -p "$out"
echo "rho,angle_deg,uncertainty_deg,wall_seconds" > "$out/repose.csv"
for rho in ${RHOS:-0 0.0025 0.005 0.0075 0.01}; do
  dir=$out/rho-$rho
  mkdir -p "$dir"
  start=$(date +%s.%N)
  # the overrides are checked like the file and recorded in the run's checkpoints (README "Command line")
  mpiexec -n "${NP:-2}" "$ccpdem" run "$here/paper.yaml" -o "$dir" -set "materials[0].rolling_friction=$rho" \
    -set "materials[0].spinning_friction=$rho" -progress_interval 60 ${CCPDEM_ARGS:-} > "$dir/run.log" 2>&1 || { tail -5 "$dir/run.log" >&2; exit 1; }
  wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
  last=$(ls "$dir"/snapshots/snap-*.h5 | tail -1)
  line=$("$ccpdem" analyze repose "$last" | head -1) # angle of repose: A deg (± U)
  angle=$(echo "$line" | sed -n 's/angle of repose: \([0-9.]*\) deg (± \([0-9.]*\))/\1,\2/p')
  echo "$rho,$angle,$wall" >> "$out/repose.csv"
  echo "rho = $rho m: $line, $wall s wall"
done
/usr/bin/python3 - "$out" <<'PY'
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
out = sys.argv[1]
rows = list(csv.DictReader(open(f"{out}/repose.csv")))
rho = [1000 * float(r["rho"]) for r in rows]
fig, ax = plt.subplots(figsize=(5, 4))
ax.errorbar(rho, [float(r["angle_deg"]) for r in rows], yerr=[float(r["uncertainty_deg"]) for r in rows], fmt="o-", capsize=3)
ax.set(xlabel="rolling and spinning friction rho = sigma (mm)", ylabel="angle of repose (deg)", title="10,000 spheres of 45 mm, 15 s")
fig.tight_layout()
fig.savefig(f"{out}/repose.png", dpi=100)
print(f"wrote {out}/repose.csv and {out}/repose.png")
PY
