#!/bin/bash
# Clumps across a restart (label restart). Usage: clump_bitwise.sh CCPDEM WORKDIR
# clump_pour.yaml (40 trimers from a random fill thrown onto a floor, 200 steps) is run straight through with
# checkpoints every 100 steps, on 1 and on 2 ranks. A restart from the step-100 checkpoint on the
# same rank count must write snapshots (steps 150, 200) byte-identical to the straight run's and
# an identical step-200 checkpoint: the clumps' poses, the template index in their shape data and
# the member-pair contacts' warm-start impulses came back exactly. The 1-rank checkpoint restarted
# on 2 ranks (any-rank restart) must run to the end and keep every clump. The snapshots hold the
# members (/clump_members) and the XDMF index draws them.
. "$(dirname "$0")/restart_common.bash" "$@"
SCEN=$HERE/clump_pour.yaml

for np in 1 2; do straight_and_restart "$SCEN" $np 000200 2; done
$MPI -n 2 "$CCPDEM" restart "$W/run1/checkpoints/ckpt-000100.h5" -o "$W/re1on2" -checkpoint_every_steps 100 > "$W/re1on2.log" 2>&1 || fail "restart of the 1-rank checkpoint on 2 ranks failed: $(tail -3 "$W/re1on2.log")"
# the members for ParaView: 40 clumps x 3 members in every snapshot, listed in the XDMF index
rows=$(h5ls "$W/run1/snapshots/snap-000200.h5/clump_members/radius" 2>&1)
echo "$rows" | grep -q "{120}" || fail "snapshot step 200 does not hold 120 clump members: $rows"
grep -q 'Grid Name="clump members"' "$W/run1/snapshots.xmf" || fail "snapshots.xmf has no clump members grid"
info=$("$CCPDEM" info "$W/re1on2/checkpoints/ckpt-000200.h5" 2>&1)
echo "$info" | grep -q "bodies 40 (0 left" || fail "the 1-rank checkpoint restarted on 2 ranks does not end with 40 bodies: $info"
[ $fails -eq 0 ] && echo "clump restart: all checks passed" || echo "clump restart: $fails check(s) FAILED"
[ $fails -eq 0 ]
