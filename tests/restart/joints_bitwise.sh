#!/bin/bash
# Joints across a restart (label restart). Usage: joints_bitwise.sh CCPDEM WORKDIR
# A run of joints.yaml (prismatic cart with seal friction carrying a revolute double pendulum, and
# a prescribed motion) checkpointed at step 100 of 200; the restart from that checkpoint writes
# snapshots byte-identical to the uninterrupted run's: the joints come back from the scenario
# (anchors in the bodies' frames at time 0) and their warm-start impulses from the checkpoint.
# The same on 2 ranks with the cut balanced every 20 steps (it then falls between the cart and
# the pendulum, so the cart-link hinge is computed across ranks with the cart as a bonded ghost),
# kept short (80 steps, restart at 30, solves to 1e-7 m/s: every APGD iteration synchronizes the
# ranks, slow when the 2 cores are shared): the run and its restart must agree byte for byte, and
# the snapshots must show both ranks owning bodies. Step 30 is not a multiple of the balance
# interval: a balancing schedule counted from the restart (balancing at 50 and 70 instead of 40, 60
# and 80) puts the cut elsewhere and changes the distributed solves' bits.
. "$(dirname "$0")/restart_common.bash" "$@"
"$CCPDEM" run "$HERE/joints.yaml" -o "$W/a" -checkpoint_every_steps 100 > "$W/a.log" 2>&1 || fail "run failed: $(tail -3 "$W/a.log")"
"$CCPDEM" restart "$W/a/checkpoints/ckpt-000100.h5" -o "$W/r" > "$W/r.log" 2>&1 || fail "restart failed: $(tail -3 "$W/r.log")"
compare_snapshots_after "$W/a" "$W/r" 100 2
opts="-balance_interval 20 -decomp_grid 2,1,1 -ccp_tol 1e-7"
sed 's/end: 0.2}/end: 0.08}/; s/snapshot_interval: 0.02/snapshot_interval: 0.01/' "$HERE/joints.yaml" > "$W/joints2.yaml"
$MPI -n 2 "$CCPDEM" run "$W/joints2.yaml" -o "$W/a2" -checkpoint_every_steps 30 -checkpoint_keep 3 $opts > "$W/a2.log" 2>&1 || fail "2-rank run failed: $(tail -3 "$W/a2.log")"
$MPI -n 2 "$CCPDEM" restart "$W/a2/checkpoints/ckpt-000030.h5" -o "$W/r2" $opts > "$W/r2.log" 2>&1 || fail "2-rank restart failed: $(tail -3 "$W/r2.log")"
compare_snapshots_after "$W/a2" "$W/r2" 30 5
ranks=$(h5dump -d /bodies/rank -y -w 0 "$W/a2/snapshots/snap-000080.h5" 2>/dev/null | sed -n '/DATA {/,/}/p' | tr -d ' \n' | sed 's/DATA{//; s/}//' | tr ',' '\n' | sort -u | tr '\n' ' ')
echo "owner ranks at step 80 on 2 ranks: $ranks"
[ "$ranks" = "0 1 " ] || fail "both ranks should own bodies at step 80, owners: '$ranks'"
[ "$fails" -eq 0 ] && echo "joints restart: all checks passed"
exit $((fails > 0))
