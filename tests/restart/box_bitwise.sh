#!/bin/bash
# Box-box contacts across a restart (label restart). Usage: box_bitwise.sh CCPDEM WORKDIR
# box_pile.yaml (CCP, 200 steps) and box_pile_penalty.yaml (penalty, 800 steps) are run straight
# through on 1 and on 2 ranks, checkpointing halfway and at the end; a restart from the halfway
# checkpoint on the same rank count must write snapshots byte-identical to the straight run's and an
# identical final checkpoint. Their box-box points are keyed by feature number (collision/box_box.h):
# the CCP's warm-start impulses and the penalty model's friction history must come back under the
# same keys, or the restarted steps differ.
. "$(dirname "$0")/restart_common.bash" "$@"

for model in ccp penalty; do
  scen=$HERE/box_pile.yaml half=100 end=000200
  [ $model = penalty ] && scen=$HERE/box_pile_penalty.yaml half=400 end=000800
  for np in 1 2; do
    run=$W/$model-run$np re=$W/$model-re$np
    $MPI -n $np "$CCPDEM" run "$scen" -o "$run" -checkpoint_every_steps $half -checkpoint_keep 5 > "$run.log" 2>&1 || fail "$model, $np ranks: the run failed: $(tail -3 "$run.log")"
    $MPI -n $np "$CCPDEM" restart "$run/checkpoints/ckpt-000$half.h5" -o "$re" -checkpoint_every_steps $half > "$re.log" 2>&1 || fail "$model, $np ranks: the restart failed: $(tail -3 "$re.log")"
    echo -n "$model, $np ranks: "
    compare_snapshots_after "$run" "$re" $half 1
    cmp -s "$run/checkpoints/ckpt-$end.h5" "$re/checkpoints/ckpt-$end.h5" || fail "$model, $np ranks: the final checkpoint differs after the restart"
  done
  # the halfway checkpoint must hold box-box contacts (both ids >= 0; walls are negative), or the restart proves nothing
  n=$(h5dump -y -d /contacts/ida "$W/$model-run1/checkpoints/ckpt-000$half.h5" 2> /dev/null | sed -n '/DATA {/,/}/p' | tr -s ' ,' '\n' | grep -cE '^[0-9]+$')
  echo "$model: $n box-box contacts stored in the halfway checkpoint"
  [ "${n:-0}" -gt 0 ] || fail "$model: no box-box contact in the halfway checkpoint"
done
[ $fails -eq 0 ] && echo "box restart: all checks passed" || echo "box restart: $fails check(s) FAILED"
[ $fails -eq 0 ]
