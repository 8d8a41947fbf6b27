#!/usr/bin/env bash
# The test suite from a clean clone: install, build, and run every ctest.
# Extra arguments go to ctest (e.g. -L unit, -R cone, -j 2).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# the test-only tools: a local SLURM for the batch tests, matplotlib for the scaling report, cvxopt and h5py for
# the FCLIB tests (an independent solve of a dumped problem; damaged files), numpy and h5py for the Python reader's test
export CCPDEM_PACKAGES_EXTRA="${CCPDEM_PACKAGES_EXTRA:-} munge slurmctld slurmd slurm-client python3-matplotlib python3-cvxopt python3-h5py python3-numpy"
"$repo/jobs/build.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
cd "${BUILD_DIR:-$repo/build}"
exec ctest --output-on-failure "$@"
