#!/bin/bash
# Joints across a restart (label restart). Usage: joints_bitwise.sh CCPDEM WORKDIR
# A run of joints.yaml (prismatic cart with seal friction carrying a revolute double pendulum, and
# a prescribed motion) checkpointed at step 100 of 200; the restart from that checkpoint writes
# snapshots byte-identical to the uninterrupted run's: the joints come back from the scenario
# (anchors in the bodies' frames at time 0) and their warm-start impulses from the checkpoint.
. "$(dirname "$0")/restart_common.bash" "$@"
"$CCPDEM" run "$HERE/joints.yaml" -o "$W/a" -checkpoint_every_steps 100 > "$W/a.log" 2>&1 || fail "run failed: $(tail -3 "$W/a.log")"
"$CCPDEM" restart "$W/a/checkpoints/ckpt-000100.h5" -o "$W/r" > "$W/r.log" 2>&1 || fail "restart failed: $(tail -3 "$W/r.log")"
compare_snapshots_after "$W/a" "$W/r" 100 2
[ "$fails" -eq 0 ] && echo "joints restart: all checks passed"
exit $((fails > 0))
