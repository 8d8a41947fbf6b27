#!/bin/bash
# `ccpdem fclib solve -ccp_type ipm` against the independent exact solve (label fclib). Usage: test_fclib_ipm.sh
# CCPDEM REPO WORKDIR
# The six problems of test_fclib_cvxopt.sh (steps 1, 10, 20, 30, 40 and 60 of tests/fclib/drop.yaml, dumped by a
# run) are solved by the interior-point method to 1e-9 m/s with at most 100 Newton iterations, with its default
# Newton solve (CG and the cluster block Jacobi) and with the direct one (-ccp_ipm_ksp_type preonly
# -ccp_ipm_pc_type cholesky), and compared with tests/fclib/cone_qp.py (cvxopt, no ccpdem code): u within 1e-6 m/s,
# the issue's bound and test_fclib_cvxopt.sh's. Measured (2026-11-28, with the polish of -ccp_type ipm, its default):
# largest difference 5.4e-9 m/s (default) and 2.4e-9 m/s (direct), on step 60, whose problem cvxopt itself ends with
# status "unknown"; 1.1e-10 to 5.4e-8 elsewhere. The Newton iterations alone do not reach 1e-9 on every problem:
# near mu ~ 1e-12 rounding stops them on their best iterate (docs/history/ccp-solver-ipm.md), on steps 30 and 60
# (-ccp_ipm_polish 0: 4e-9 and 5e-7 m/s); the polish (APGD from that iterate) then reached 1e-9 on 5 of 6 (default;
# step 60 at its cap: 1.2e-9 m/s) and 6 of 6 (direct). Each configuration must reach 1e-9 on at least 4 of the 6, as
# without the polish, and end below 1e-6 m/s on all of them.
. "$(dirname "$0")/../script_common.sh" "$@"
"$CCPDEM" run "$REPO/tests/fclib/drop.yaml" -o "$W/run" -fclib_dump 1,10,20,30,40,60 -fclib_dir "$W/fclib" > "$W/run.log" 2>&1 ||
  fail "the dumping run failed: $(tail -3 "$W/run.log")"
for config in default direct; do
  opts=()
  [ $config = direct ] && opts=(-ccp_ipm_ksp_type preonly -ccp_ipm_pc_type cholesky)
  n=0 reached=0
  for p in "$W"/fclib/fclib-*.hdf5; do
    [ -f "$p" ] || continue
    s="$W/sol-$(basename "$p" .hdf5)-$config.hdf5"
    out=$("$CCPDEM" fclib solve "$p" -ccp_type ipm -ccp_tol 1e-9 -ccp_max_it 100 "${opts[@]}" -o "$s" 2>&1) ||
      { fail "fclib solve $p ($config) failed: $out"; continue; }
    echo "$out" | grep -q "solve (ipm): .* linear iterations" || fail "$p ($config): not an IPM solve: $out"
    echo "$out" | grep -q "reached the tolerance" && reached=$((reached + 1))
    res=$(echo "$out" | sed -n 's/.*residual.*: max \([^ ]*\) m\/s.*/\1/p')
    awk -v r="$res" 'BEGIN { exit !(r != "" && r + 0 < 1e-6) }' || fail "$p ($config): residual $res m/s, not below 1e-6"
    /usr/bin/python3 "$REPO/tests/fclib/cone_qp.py" "$p" "$s" 1e-6 || fail "$p ($config): u differs from the exact solve's"
    n=$((n + 1))
  done
  [ $n -ge 5 ] || fail "$config: only $n problems compared (at least 5 needed)"
  [ $reached -ge 4 ] || fail "$config: $reached of $n solves reached 1e-9 m/s (at least 4 needed)"
  echo "  $config: $n problems compared with the exact solve; $reached reached 1e-9 m/s"
done
# The hand-over rule (src/ccp/ipm.c, IPM_HANDOVER_* and IPM_STALL*), default Newton solve, -ccp_ipm_monitor: each
# of its two parts must hand some problem of the six over to the polish, which then reaches 1e-9 m/s, within 30
# Newton iterations. Which problem takes which part moves with rounding (the order of equal keys in the cluster
# set-up swapped them), so the test asks for each part once, not on a given step. Measured 2026-11-28:
# - "no new best residual" (stall: the iterations reached their best and wander at mu ~ 1e-16): steps 20, 30, 40
#   (24, 20, 21 Newton iterations, then 1-14 APGD) and 60 (17, its polish at the cap of 100: 1.2e-9 m/s);
# - "near the tolerance" (slow: within 10x the tolerance, falling like sqrt(mu)): step 10 (24 + 1).
# Without a hand-over (-ccp_ipm_polish 0) step 10 took 46 Newton iterations.
stall=0 slow=0
for p in "$W"/fclib/fclib-*.hdf5; do
  [ -f "$p" ] || continue
  out=$("$CCPDEM" fclib solve "$p" -ccp_type ipm -ccp_tol 1e-9 -ccp_max_it 100 -ccp_ipm_monitor 2>&1) ||
    { fail "$(basename "$p"): the monitored solve failed: $(echo "$out" | tail -3)"; continue; }
  newton=$(echo "$out" | sed -n 's/.*solve (ipm): \([0-9]*\) Newton iterations.*/\1/p')
  echo "$out" | grep -q "reached the tolerance" && [ -n "$newton" ] && [ "$newton" -le 30 ] || continue
  echo "$out" | grep -q "handing over: no new best residual" && stall=$((stall + 1))
  echo "$out" | grep -q "handing over: near the tolerance" && slow=$((slow + 1))
done
echo "  hand-overs that reached 1e-9 m/s within 30 Newton iterations: $stall by the stall rule, $slow by the slow one"
[ $stall -ge 1 ] || fail "no problem handed over by the stall rule ('no new best residual') and then solved"
[ $slow -ge 1 ] || fail "no problem handed over by the slow rule ('near the tolerance') and then solved"
finish test_fclib_ipm
