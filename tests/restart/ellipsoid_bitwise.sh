#!/bin/bash
# Ellipsoids across a restart (label restart). Usage: ellipsoid_bitwise.sh CCPDEM WORKDIR
# ellipsoid_tumble.yaml (an ellipsoid landing tilted and spinning on a floor, penalty model, 400
# steps) is run straight through with checkpoints every 100 steps, on 1 and on 2 ranks. A restart from
# the step-100 checkpoint on the same rank count must write snapshots (steps 200 to 400) byte-identical
# to the straight run's and an identical step-400 checkpoint: the shape, the semi-axes and the contact's
# roll and spin history came back exactly. The 1-rank checkpoint restarted on 2 ranks (any-rank
# restart) must end with the same pose and velocities, bit for bit (one body, one contact, computed
# by its owner alike). The snapshots hold shape 3 and the semi-axes in /bodies/half_extents.
. "$(dirname "$0")/restart_common.bash" "$@"
SCEN=$HERE/ellipsoid_tumble.yaml

for np in 1 2; do straight_and_restart "$SCEN" $np 000400 3; done
$MPI -n 2 "$CCPDEM" restart "$W/run1/checkpoints/ckpt-000100.h5" -o "$W/re1on2" -checkpoint_every_steps 100 > "$W/re1on2.log" 2>&1 || fail "restart of the 1-rank checkpoint on 2 ranks failed: $(tail -3 "$W/re1on2.log")"
for d in position quaternion velocity angular_velocity; do
  h5diff "$W/run1/snapshots/snap-000400.h5" "$W/re1on2/snapshots/snap-000400.h5" "/bodies/$d" > /dev/null || fail "the 1-rank checkpoint restarted on 2 ranks ends with another /bodies/$d"
done
shape=$(h5dump -d /bodies/shape "$W/run1/snapshots/snap-000400.h5" 2>&1 | grep -A1 "DATA {" | tail -1)
echo "$shape" | grep -q "(0): 3" || fail "snapshot step 400 does not hold shape 3 (ellipsoid): $shape"
axes=$(h5dump -d /bodies/half_extents "$W/run1/snapshots/snap-000400.h5" 2>&1 | grep -A1 "DATA {" | tail -1)
echo "$axes" | grep -q "(0,0): 0.2, 0.12, 0.5" || fail "snapshot step 400 does not hold the semi-axes: $axes"
[ $fails -eq 0 ] && echo "ellipsoid restart: all checks passed" || echo "ellipsoid restart: $fails check(s) FAILED"
[ $fails -eq 0 ]
