#!/usr/bin/env bash
# The solver benchmark (issue 33; docs/performance.md): every CCP solver on the same settled
# problems, to 1e-4 m/s warm and cold, and steps at the defaults (tests/bench/bench_solver.c says
# what it measures). Problems: beds of 10^4 spheres at 8, 16 and 32 layers and of 10^5 at 8, each
# with 3-dof and 6-dof contacts, and the paper pile (jobs/pile/paper.yaml) in its pour at t = 7.5 s (steps that
# stop at the job's cap, mostly for their rolling rows) and at rest at t = 15 s. Builds first.
#
# The problems are made once and cached in CACHE (default out/bench_solver): bench_solver settles
# the beds (bed-*.h5; on the 2-core VM, loaded, 1 to 4 minutes per 10^4 bed and about 10 per 10^5
# bed), and this script makes the pile's checkpoints (paper-pile-7.5s.h5 and paper-pile-15s.h5, the
# run's log beside them) by running jobs/pile/paper.yaml to 15 s on NP_PILE ranks (default 1: on a
# shared machine two ranks wait on each other; on the idle 2-core VM 2 ranks took under 2 minutes).
# `rm -r CACHE` (or one of its files) makes them again; a rebuilt ccpdem keeps using them, so that
# builds compare on the same problems.
#
# Caps: 20000 iterations per solve; Jacobi and Gauss-Seidel 2000 (they need more than 20000 on the
# 6-dof beds); on the 10^5 beds every solver 2000 and the sweeps 300. "cap" in the output marks a
# solve the cap stopped short of 1e-4 m/s. Arguments go to bench_solver after these and override
# them (e.g. -solvers apgd,admm, -beds 10000x8, -caps apgd=50000; -rolling_compliance 0.01: the 6-dof beds with
# rolling springs, settled with them and cached apart).
# Usage: jobs/bench_solver.sh [bench_solver options]   (environment: CACHE, BUILD_DIR, NP_PILE)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$repo/jobs/build.sh"
build=${BUILD_DIR:-$repo/build}
cache=${CACHE:-$repo/out/bench_solver}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
mkdir -p "$cache"

pile=$cache/paper-pile-15s.h5
pour=$cache/paper-pile-7.5s.h5
if [ ! -f "$pile" ] || [ ! -f "$pour" ]; then
  run=$(mktemp -d "$cache/paper-run.XXXXXX")
  trap 'rm -rf "$run"' EXIT
  echo "bench_solver.sh: making the paper pile at 7.5 s and 15 s once (jobs/pile/paper.yaml, ${NP_PILE:-1}" \
    "rank(s)) -> $pour, $pile"
  # two checkpoints: in the pour (7.5 s, step 1500) and at the end (15 s, step 3000)
  mpiexec -n "${NP_PILE:-1}" "$build/ccpdem" run "$repo/jobs/pile/paper.yaml" -o "$run" -checkpoint_interval 7.5 \
    -progress_interval 60 > "$cache/paper-pile-15s.log" 2>&1 ||
    {
      tail -5 "$cache/paper-pile-15s.log"
      echo "bench_solver.sh: the paper pile's run failed (log: $cache/paper-pile-15s.log)"
      exit 1
    }
  mv "$run"/checkpoints/ckpt-001500.h5 "$pour"
  mv "$run"/checkpoints/ckpt-003000.h5 "$pile"
  rm -rf "$run"
  trap - EXIT
  tail -3 "$cache/paper-pile-15s.log"
fi

changes=$(git -C "$repo" diff --quiet HEAD || echo ' + local changes')
echo "bench_solver.sh: commit $(git -C "$repo" rev-parse --short HEAD)$changes, cache $cache"
exec "$build/tests/bench_solver" -cache "$cache" -pile "$pour,$pile" -cap 20000 \
  -caps jacobi=2000,gauss-seidel=2000,'*:bed-100k=2000',jacobi:bed-100k=300,gauss-seidel:bed-100k=300 "$@"
