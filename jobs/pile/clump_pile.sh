#!/usr/bin/env bash
# Clumps against spheres of the same volume, both without rolling friction (jobs/pile/clump_pile.yaml):
# pours both piles on NP ranks (default 2) into OUT (default out/clump_pile) and prints their angles
# of repose from the run's summary. The clumps' pile must be the steeper one: exit 1 if it is not.
# Usage: bash jobs/pile/clump_pile.sh [OUT]   (environment: NP, CCPDEM, CCPDEM_ARGS: extra run options)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:-$here/../../out/clump_pile}
mkdir -p "$out"
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1 mpiexec -n "${NP:-2}" \
  "${CCPDEM:-$here/../../build/ccpdem}" run "$here/clump_pile.yaml" -o "$out" -progress_interval 60 ${CCPDEM_ARGS:-} \
  > "$out/run.log" 2>&1 || { tail -5 "$out/run.log" >&2; exit 1; }
grep "angle of repose" "$out/run.log"
# "  angle of repose (NAME, ...): A deg (± U), ..." -> A for spheres and clumps
angle() { sed -n "s/.*angle of repose ($1, [^)]*): \([0-9.]*\) deg.*/\1/p" "$out/run.log"; }
spheres=$(angle spheres)
clumps=$(angle clumps)
[ -n "$spheres" ] && [ -n "$clumps" ] || { echo "a pile has no usable flank" >&2; exit 1; }
awk -v s="$spheres" -v d="$clumps" 'BEGIN {
  printf "spheres %.1f deg, clumps %.1f deg: %s\n", s, d, (d > s ? "the clumps pile steeper" : "NOT steeper")
  exit !(d > s) }'
