#!/bin/bash
# Distributed runs through the binary (label restart). Usage: distributed_bitwise.sh CCPDEM WORKDIR
#  1. Two runs of the restart pile on 2 ranks (load balancing every 20 steps) write byte-identical
#     snapshots (cmp).
#  2. A restart on 2 ranks from the step-90 checkpoint (of 200) writes snapshots byte-identical to the
#     uninterrupted run's (the cuts, the body order and the warm-start memory come back as they
#     were); the same for a pour from an emitter (pour.yaml: checkpoint at step 90 of 200, while
#     the emitter is still pouring: its state and the id counter come back too). Step 90 is not a
#     multiple of either run's balance interval (20, and the default 100): a balancing schedule
#     counted from the restart instead of from step 0 balances at other steps and moves the cuts
#     elsewhere, which changes the distributed solves' bits.
#  3. Restarts of that 2-rank checkpoint on 1 and 3 ranks run to the end with every body (owned or
#     counted as having left the domain: this pile's solves stop at 40 iterations, far from
#     converged, so runs on other rank counts part ways and a few bodies may fly out).
#  4. Bad decompositions are refused at start on 2 ranks, with one "ccpdem: error:" line, exit 2 and
#     no output directory: a process grid that does not match the rank count, a domain whose
#     subdomains are narrower than the ghost halo, and the (sequential) Gauss-Seidel solver.
. "$(dirname "$0")/restart_common.bash" "$@"
SCEN=$HERE/pile.yaml

for run in a b; do
  $MPI -n 2 "$CCPDEM" run "$SCEN" -o "$W/$run" -balance_interval 20 -checkpoint_every_steps 90 -checkpoint_keep 5 > "$W/$run.log" 2>&1 || fail "2-rank run $run failed: $(tail -3 "$W/$run.log")"
done
echo "1. two 2-rank runs:"
compare_snapshots_after "$W/a" "$W/b" -1 2

echo "2. 2-rank restarts from step 90:"
$MPI -n 2 "$CCPDEM" restart "$W/a/checkpoints/ckpt-000090.h5" -o "$W/r2" -balance_interval 20 > "$W/r2.log" 2>&1 || fail "2-rank restart failed: $(tail -3 "$W/r2.log")"
compare_snapshots_after "$W/a" "$W/r2" 90 2

$MPI -n 2 "$CCPDEM" run "$HERE/pour.yaml" -o "$W/pour" -checkpoint_every_steps 90 -checkpoint_keep 5 > "$W/pour.log" 2>&1 || fail "2-rank pour failed: $(tail -3 "$W/pour.log")"
$MPI -n 2 "$CCPDEM" restart "$W/pour/checkpoints/ckpt-000090.h5" -o "$W/pour_r" > "$W/pour_r.log" 2>&1 || fail "2-rank pour restart failed: $(tail -3 "$W/pour_r.log")"
compare_snapshots_after "$W/pour" "$W/pour_r" 90 2

echo "3. restarts on other rank counts:"
for np in 1 3; do
  $MPI -n $np "$CCPDEM" restart "$W/a/checkpoints/ckpt-000090.h5" -o "$W/r$np" > "$W/r$np.log" 2>&1 || fail "$np-rank restart failed: $(tail -3 "$W/r$np.log")"
  last=$(tail -1 "$W/r$np/timeseries.csv" | cut -d, -f1)
  summary=$(grep -o "bodies [0-9]* ([0-9]* left the domain)" "$W/r$np.log")
  kept=$(echo "$summary" | awk '{print $2}'); left=$(echo "$summary" | tr -d '(' | awk '{print $3}')
  [ "$last" = 200 ] || fail "$np-rank restart ended at step $last, expected 200"
  [ "$((kept + left))" -eq 300 ] || fail "$np-rank restart: $summary: not the 300 bodies of the checkpoint"
  echo "  $np ranks: step $last, $summary"
done

echo "4. bad decompositions:"
cat > "$W/narrow.yaml" <<'YAML'
domain: {min: [-1.5, -3, -1], max: [1.5, 3, 4]}
gravity: [0, 0, -9.8]
time: {step: 0.01, end: 0.1}
contact: {model: ccp, envelope: 0.01, max_recovery_speed: 0.5}
solver: {type: apgd, max_iterations: 100, tolerance: 1.0e-8}
materials:
  - {name: m, density: 1000, friction: 0.5}
walls:
  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}
bodies:
  - {shape: sphere, radius: 1.0, position: [0, 0, 1.0], material: m}
YAML
refused() { # expected text, scenario, options...
  local expect=$1 scen=$2; shift 2
  local out=$W/refused rc nerr
  rm -rf "$out"
  $MPI -n 2 "$CCPDEM" run "$scen" -o "$out" "$@" > "$W/refused.log" 2>&1; rc=$?
  nerr=$(grep -c "^ccpdem: error:" "$W/refused.log")
  [ "$rc" -eq 2 ] || fail "$*: exit $rc, expected 2"
  [ "$nerr" -eq 1 ] || fail "$*: $nerr error lines, expected 1: $(cat "$W/refused.log")"
  grep "^ccpdem: error:" "$W/refused.log" | grep -q "$expect" || fail "$*: the error lacks '$expect': $(grep "ccpdem: error" "$W/refused.log")"
  [ ! -e "$out" ] || fail "$*: the refused run created $out"
  echo "  refused: $(grep "^ccpdem: error:" "$W/refused.log")"
}
refused "has 3 subdomains but the run has 2 MPI ranks" "$SCEN" -decomp_grid 3,1,1
refused "less than the halo" "$W/narrow.yaml" -decomp_grid 2,1,1
refused "gauss-seidel is sequential" "$SCEN" -ccp_type gauss-seidel

[ $fails -eq 0 ] && echo "distributed runs: all checks passed" || echo "distributed runs: $fails check(s) FAILED"
[ $fails -eq 0 ]
