#!/usr/bin/env bash
# The unit and validation tests under AddressSanitizer and UndefinedBehaviorSanitizer: configures
# and builds ccpdem with -DCCPDEM_SANITIZE=ON (RelWithDebInfo) in its own build directory and runs
# ctest there (labels unit, validation and ccp, the longest validation runs left out: see LONG below).
# Any memory error or undefined behaviour ends its test with the report, and the test fails.
# Needs what jobs/build.sh installs (run it, or tests/run.sh, once first).
#
#   bash jobs/sanitize.sh [ctest arguments]     (e.g. -R cone; default -j 2)
# Environment: SANITIZE_BUILD_DIR (default <repo>/build-sanitize), JOBS (build parallelism, default 2).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${SANITIZE_BUILD_DIR:-$repo/build-sanitize}
# The validation runs of a minute or more in Release (three to four times that sanitized): they add
# no code path the shorter tests do not run (the hopper: its mesh floor and its emitter are test_mesh_floor's
# and test_emitter's paths).
LONG='^validation/(test_pour_no_explosion|test_repose_sweep(_np[0-9]+)?|test_pile_repose|test_pile_rest|'
LONG+='test_pendulum|test_distributed_pour_np[48]|test_hopper_discharge)$'

mkdir -p "$build"
cmake -S "$repo" -B "$build" -DCCPDEM_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "${JOBS:-2}" > "$build/build.log" 2>&1 || { tail -n 40 "$build/build.log"; exit 1; }
grep -E 'warning|error' "$build/build.log" || true
# Leak checking off: Open MPI and PETSc keep their start-up allocations to the end by design, and
# LeakSanitizer would fail every test on them. Everything else reports and stops the process.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
cd "$build"
if [ $# -eq 0 ]; then set -- -j 2; fi
exec ctest --output-on-failure -L 'unit|validation|ccp' -E "$LONG" "$@"
