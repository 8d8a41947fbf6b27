#!/usr/bin/env bash
# The paper's pile in ccpdem (CCP, h = 5 ms) and in LAMMPS (penalty DEM, jobs/pile/lammps/pile.in,
# dt = 35 us) in one invocation on NP ranks (default 2) of the same machine: both wall times and
# both angles of repose at 15 s (ccpdem analyze repose on ccpdem's last snapshot and on LAMMPS'
# final dump), side by side.
# Usage: jobs/pile/compare_lammps.sh [OUT] (environment: RHO in m, default 0.01; NP; CCPDEM)
# Needs the Debian package lammps (`apt-get install lammps`: the lmp executable).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${1:-$repo/out/compare_lammps}
rho=${RHO:-0.01}
np=${NP:-2}
ccpdem=${CCPDEM:-$repo/build/ccpdem}
command -v lmp > /dev/null || { echo "compare_lammps.sh: no lmp; apt-get install lammps" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
mkdir -p "$out/lammps"
RHOS=$rho NP=$np CCPDEM=$ccpdem bash "$here/paper_sweep.sh" "$out/ccpdem" > "$out/ccpdem.log"
ccpdem_line=$(tail -n 1 "$out/ccpdem/repose.csv") # rho,angle,uncertainty,wall
start=$(date +%s.%N)
mpiexec -n "$np" lmp -in "$here/lammps/pile.in" -var rho "$rho" -var out "$out/lammps" -var steps 428572 -log "$out/lammps/log.lammps" -screen none
lammps_wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
lammps_angle=$("$ccpdem" analyze repose "$out/lammps/final.xyzr" | head -1)
echo "rho = $rho m, 10,000 spheres, 15 s, $np ranks:"
echo "  ccpdem: $(echo "$ccpdem_line" | cut -d, -f4) s wall; angle of repose: $(echo "$ccpdem_line" | cut -d, -f2) deg (± $(echo "$ccpdem_line" | cut -d, -f3))"
echo "  LAMMPS: $lammps_wall s wall; ${lammps_angle}"
