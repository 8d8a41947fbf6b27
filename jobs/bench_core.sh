#!/usr/bin/env bash
# The core benchmark (docs/performance.md): settled piles of 10^4, 10^5 and 10^6 spheres on one
# rank. Builds first. Usage: jobs/bench_core.sh [sizes...]   (default: 10000 100000 1000000)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$repo/jobs/build.sh"
sizes=${*:-10000 100000 1000000}
for n in $sizes; do
  # timed steps capped at 50 APGD iterations at every size, so that their cost per body and step
  # compares across N (the locality target); at 10^6 the solves to 1e-4 would take hours: capped too
  caps="-conv_cap 20000 -step_cap 50"
  [ "$n" -ge 1000000 ] && caps="-conv_cap 100 -step_cap 50"
  # each pile in a process of its own, as a run is: with both in one process, the 6-dof pile's
  # memory at 10^4 counted what the 3-dof one left in the heap (1508-1531 bytes per body with
  # APGD, against 1452-1469 alone; docs/performance.md "Core")
  for dof in 3 6; do
    "${BUILD_DIR:-$repo/build}/tests/bench_core" -n "$n" -dof "$dof" $caps
  done
done
