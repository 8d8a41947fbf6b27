#!/bin/bash
# -ccp_type ipm on a large uniform bed from a cold start (label ccp). Usage: test_ipm_big_cold.sh CCPDEM REPO WORKDIR
# tests/ccp/big_cold.yaml: 72,000 touching spheres on a lattice (213,600 contacts, 6-dof), one step, one Newton
# iteration and no polish. Cold, every contact of the lattice has the same stiffness, so the cluster set-up sorts
# some 200,000 equal keys; PETSc's quicksort recursed 130,000 levels deep there and the run died of a stack overflow
# (exit 139 after 20 s, as the 10^5 bed of bench_solver did cold). The run must end with exit 0, its one step
# solved by the IPM (a linear iteration reported) and not converged in one Newton iteration (so the run did reach
# the Newton system); measured 2026-11-28: 6 s.
. "$(dirname "$0")/../script_common.sh" "$@"
"$CCPDEM" run "$REPO/tests/ccp/big_cold.yaml" -o "$W/run" -ccp_ipm_polish 0 > "$W/run.log" 2>&1 ||
  fail "the run failed (exit $?): $(tail -3 "$W/run.log")"
grep -q "contacts 213600, solver iterations 1 in all, 1 steps not converged" "$W/run.log" ||
  fail "not the step expected: $(grep 'solver iterations' "$W/run.log")"
grep -q "linear iterations [1-9]" "$W/run.log" || fail "no linear iterations reported: $(tail -3 "$W/run.log")"
finish test_ipm_big_cold
