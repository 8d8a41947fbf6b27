#!/usr/bin/env bash
# The main job from a clean clone: install, build, and run the embedded default scenario (two piles
# poured side by side, with and without rolling friction; the summary prints both angles of repose)
# on NP MPI ranks (default: the machine's cores, at most 2).
# Extra arguments go to `ccpdem run` (e.g. -o OUT, -log_view, or a scenario file).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$repo/jobs/build.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
np=${NP:-$(( $(nproc) < 2 ? $(nproc) : 2 ))}
exec mpiexec -n "$np" "${BUILD_DIR:-$repo/build}/ccpdem" run "$@"
