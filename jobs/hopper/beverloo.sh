#!/usr/bin/env bash
# The hopper discharge study against Beverloo's law (docs/design.md, "Real geometry"; issue 35): the program of
# tests/validation/test_hopper_discharge.c at full size. A flat-bottomed square bin of 24 sphere
# diameters (STL floor with a centred square outlet), 10,000 spheres of d = 10 mm settled once, then
# discharged through outlets of 4, 5.5, 7, 8.5 and 10 d; W from the count of spheres out between 150
# and 700 out. Prints the table (D/d, W, spheres per second) and the fit W = C rho_b sqrt(g)
# (D - k d)^n (n and k fitted, C at n = 5/2, and n at Beverloo's k = 1.4), and fails when the fitted
# exponent is more than 0.25 from 2.5. Builds first.
# Usage: jobs/hopper/beverloo.sh [RANKS] [extra -hopper_* options, e.g. -hopper_count 12000]
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
"$repo/jobs/build.sh"
build=${BUILD_DIR:-$repo/build}
ranks=${1:-1}
shift || true
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
work=$(mktemp -d "${TMPDIR:-/tmp}/beverloo.XXXXXX")
cd "$work" # the STL files the program writes
mpiexec --oversubscribe --bind-to none -n "$ranks" "$build/tests/test_hopper_discharge" -hopper_width 24 \
  -hopper_count 10000 -hopper_outlets 4,5.5,7,8.5,10 -hopper_window 150,700 -hopper_band 0.25 "$@"
rm -rf "$work"
