#!/usr/bin/env bash
# The decomposition benchmark (docs/performance.md, "Distributed run"). Builds first, then:
#   1. settles the piles of jobs/bench/ on 2 ranks (once; kept in OUT, default out/bench_decomp):
#      heap_20k (a 20,000-sphere heap), bed_50k and bed_100k (settled beds);
#   2. continues each from its last checkpoint with bench_decomp: the heap on 1, 2 and 4 ranks,
#      solved to 1e-4 m/s (iterations to the tolerance, imbalance); bed_100k on 1 and 2 ranks
#      (strong scaling) and bed_50k on 1 rank against bed_100k on 2 (weak scaling), each step
#      exactly 300 APGD iterations (tolerance 0), so the times compare equal work (the iteration
#      counts to a tolerance are the heap's figures).
# Timing figures are meaningful at 1-2 ranks only on a 2-core machine (4 ranks oversubscribe).
# Usage: jobs/bench_decomp.sh [OUT]
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$repo/jobs/build.sh"
out=${1:-$repo/out/bench_decomp}
build=${BUILD_DIR:-$repo/build}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
mpi="mpiexec --oversubscribe --bind-to none"
mkdir -p "$out"

settled() { # name -> path of its last checkpoint (settling it first if needed)
  local name=$1 dir=$out/$1
  if ! ls "$dir"/checkpoints/ckpt-*.h5 > /dev/null 2>&1; then
    echo "settling $name (2 ranks) ..." >&2
    $mpi -n 2 "$build/ccpdem" run "$repo/jobs/bench/$name.yaml" -o "$dir" -checkpoint_every_steps 100 -checkpoint_keep 1 -progress_interval 60 > "$dir.log" 2>&1
  fi
  ls "$dir"/checkpoints/ckpt-*.h5 | tail -1
}

heap=$(settled heap_20k)
bed50=$(settled bed_50k)
bed100=$(settled bed_100k)
steps=${STEPS:-5}
[ -n "${SKIP_HEAP:-}" ] || for np in 1 2 4; do $mpi -n $np "$build/tests/bench_decomp" "$heap" -steps "$steps"; done
fixed="-ccp_max_it 300 -ccp_tol 0"
for np in 1 2; do $mpi -n $np "$build/tests/bench_decomp" "$bed100" -steps "$steps" $fixed; done
$mpi -n 1 "$build/tests/bench_decomp" "$bed50" -steps "$steps" $fixed
