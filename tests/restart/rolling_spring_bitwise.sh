#!/bin/bash
# Rolling springs across a restart (label restart). Usage: rolling_spring_bitwise.sh CCPDEM WORKDIR
# rolling_spring.yaml (a pile whose contacts have rolling springs, 200 steps) is run straight through on 1
# and on 2 ranks, checkpointing halfway and at the end; a restart from the halfway checkpoint on the same
# rank count must write snapshots byte-identical to the straight run's and an identical final checkpoint.
# The springs' state is the contacts' torque impulses of the last step (as world vectors in the memory):
# had a restart lost or misread them, the springs would start unloaded or turned, and the restarted steps
# would differ. The halfway checkpoint must hold nonzero torque impulses, or the test proves nothing.
. "$(dirname "$0")/restart_common.bash" "$@"

for np in 1 2; do
  straight_and_restart "$HERE/rolling_spring.yaml" "$np" 000200 1
done
ckpt=$W/run1/checkpoints/ckpt-000100.h5
torque=$(h5dump -d /contacts/impulse -y -w 0 "$ckpt" 2> /dev/null | sed -n '/DATA {/,/}/p' | tr -d ' \n' |
  sed 's/DATA{//; s/}//' | tr ',' '\n' | awk 'NR % 7 >= 4 && NR % 7 <= 6 { a = $1 < 0 ? -$1 : $1; if (a > m) m = a } END { print m + 0 }')
echo "largest torque impulse in $ckpt: $torque N m s"
awk -v t="$torque" 'BEGIN { exit !(t > 0) }' || fail "the halfway checkpoint holds no torque impulse"
[ $fails -eq 0 ] && echo "rolling spring restart: all checks passed" || echo "rolling spring restart: $fails check(s) FAILED"
[ $fails -eq 0 ]
