#!/bin/bash
# The penalty model's friction history across a restart (label restart). Usage: penalty_bitwise.sh CCPDEM WORKDIR
# penalty_pour.yaml (200 spheres thrown onto a floor, 400 steps; ~260 contacts with slide, roll and
# spin history) is run straight through, checkpointing at steps 200 and 400, on 1 and on 2 ranks.
# A restart from the step-200 checkpoint on the same rank count must write snapshots (steps 300,
# 400) byte-identical to the straight run's, and an identical step-400 checkpoint: the contacts'
# micro-deflections, modes, frames and contact points came back exactly (without them a restart
# would start every contact afresh and the forces, so the snapshots, would differ). The history is
# /contacts/history in the checkpoint; `ccpdem info` must count its contacts as friction history.
. "$(dirname "$0")/restart_common.bash" "$@"
SCEN=$HERE/penalty_pour.yaml

for np in 1 2; do
  $MPI -n $np "$CCPDEM" run "$SCEN" -o "$W/run$np" -checkpoint_every_steps 200 -checkpoint_keep 5 > "$W/run$np.log" 2>&1 || fail "$np-rank run failed: $(tail -3 "$W/run$np.log")"
  $MPI -n $np "$CCPDEM" restart "$W/run$np/checkpoints/ckpt-000200.h5" -o "$W/re$np" -checkpoint_every_steps 200 > "$W/re$np.log" 2>&1 || fail "$np-rank restart failed: $(tail -3 "$W/re$np.log")"
  n=0
  for s in 300 400; do
    f=snapshots/snap-000$s.h5
    cmp -s "$W/run$np/$f" "$W/re$np/$f" && n=$((n + 1)) || fail "$np ranks: $f after the restart differs from the straight run's"
  done
  cmp -s "$W/run$np/checkpoints/ckpt-000400.h5" "$W/re$np/checkpoints/ckpt-000400.h5" || fail "$np ranks: the step-400 checkpoint (bodies and friction history) differs after the restart"
  echo "$np ranks: $n snapshots after the restart byte-identical to the straight run's; step-400 checkpoints identical: $(cmp -s "$W/run$np/checkpoints/ckpt-000400.h5" "$W/re$np/checkpoints/ckpt-000400.h5" && echo yes || echo no)"
done
info=$("$CCPDEM" info "$W/run1/checkpoints/ckpt-000200.h5" 2>&1)
echo "$info" | grep -q "contacts stored: [1-9][0-9]* (penalty friction history)" || fail "ccpdem info does not report the stored friction history: $info"
echo "$info" | grep "contacts stored"
[ $fails -eq 0 ] && echo "penalty restart: all checks passed" || echo "penalty restart: $fails check(s) FAILED"
[ $fails -eq 0 ]
