#!/bin/bash
# Moving walls across a restart (label restart). Usage: moving_walls_bitwise.sh CCPDEM WORKDIR
# moving_walls.yaml (CCP: a drum that starts turning, turning end planes, an oscillating box) and
# moving_walls_penalty.yaml (the same walls, the penalty model) are run straight through with two
# checkpoints, on 1 and on 2 ranks; a restart from the first checkpoint on the same rank count must
# write snapshots byte-identical to the straight run's, and an identical last checkpoint. A wall's
# pose is a function of time: the restart rebuilds it (and the velocity it gives the contacts, and
# its turn over the last step that the penalty model's tracking reads) from the scenario and the time.
. "$(dirname "$0")/restart_common.bash" "$@"

check() { # scenario, checkpoint step, the later snapshots' steps, the last checkpoint's step
  local scen=$1 ck=$2 snaps=$3 last=$4 name
  name=$(basename "$scen" .yaml)
  for np in 1 2; do
    $MPI -n $np "$CCPDEM" run "$HERE/$scen" -o "$W/$name-run$np" -checkpoint_every_steps "$ck" -checkpoint_keep 5 > "$W/$name-run$np.log" 2>&1 || fail "$name, $np ranks: the run failed: $(tail -3 "$W/$name-run$np.log")"
    $MPI -n $np "$CCPDEM" restart "$W/$name-run$np/checkpoints/ckpt-$(printf %06d "$ck").h5" -o "$W/$name-re$np" -checkpoint_every_steps "$ck" > "$W/$name-re$np.log" 2>&1 || fail "$name, $np ranks: the restart failed: $(tail -3 "$W/$name-re$np.log")"
    local n=0 s f
    for s in $snaps; do
      f=snapshots/snap-$(printf %06d "$s").h5
      cmp -s "$W/$name-run$np/$f" "$W/$name-re$np/$f" && n=$((n + 1)) || fail "$name, $np ranks: $f after the restart differs from the straight run's"
    done
    f=checkpoints/ckpt-$(printf %06d "$last").h5
    cmp -s "$W/$name-run$np/$f" "$W/$name-re$np/$f" || fail "$name, $np ranks: the step-$last checkpoint differs after the restart"
    echo "$name, $np ranks: $n snapshots after the restart byte-identical to the straight run's; step-$last checkpoints identical: $(cmp -s "$W/$name-run$np/$f" "$W/$name-re$np/$f" && echo yes || echo no)"
  done
}
check moving_walls.yaml 50 "100 150" 150
check moving_walls_penalty.yaml 200 "300 400" 400
[ $fails -eq 0 ] && echo "moving walls restart: all checks passed" || echo "moving walls restart: $fails check(s) FAILED"
[ $fails -eq 0 ]
