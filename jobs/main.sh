#!/usr/bin/env bash
# The main job from a clean clone: install, build, and run the embedded default scenario.
# Extra arguments go to `ccpdem run` (e.g. -o OUT, -log_view, or a scenario file).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$repo/jobs/build.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec "${BUILD_DIR:-$repo/build}/ccpdem" run "$@"
