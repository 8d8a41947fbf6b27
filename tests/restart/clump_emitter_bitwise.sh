#!/bin/bash
# A clump emitter across a restart (label restart). Usage: clump_emitter_bitwise.sh CCPDEM WORKDIR
# clump_emitter_pour.yaml (trimers poured by an emitter until t = 0.3 s, 200 steps of 2 ms) is run straight
# through with checkpoints every 100 steps, on 1 and on 2 ranks; step 100 is in the middle of the
# emission. A restart from the step-100 checkpoint on the same rank count must write snapshots (steps
# 150, 200) byte-identical to the straight run's and an identical step-200 checkpoint: the emitter's
# count, the id counter and the orientation stream (drawn from the seed, the emitter and the step) came
# back, so the clumps emitted after the restart have the straight run's ids, poses and velocities.
# The 1-rank checkpoint restarted on 2 ranks (any-rank restart) must end with the same 120 clumps,
# every one within 1e-5 m of its place in the straight 1-rank run and its quaternion within 1e-3.
# Tolerance: the two runs' solves stop at 1e-6 m/s with their sums in another order, so velocities
# differ by up to about 1e-6 m/s per step; over the 100 steps of 2 ms after the restart that is 2e-7 m
# if it adds up, and a jammed heap's solutions within the tolerance differ by up to 20 times that
# (tests/validation/test_distributed_pour.c): 4e-6 m, within 1e-5 m (measured: 4.6e-8 m). The
# quaternion bound, 1e-3 (a turn of 2e-3 rad), is wide of the same drift over a lever of 10 mm and far
# below the distance between two random orientations. A clump emitted after the restart with another
# orientation or at another place (the emitter's state lost) is off by centimetres and by order 1.
. "$(dirname "$0")/restart_common.bash" "$@"
SCEN=$HERE/clump_emitter_pour.yaml

for np in 1 2; do straight_and_restart "$SCEN" $np 000200 2; done
$MPI -n 2 "$CCPDEM" restart "$W/run1/checkpoints/ckpt-000100.h5" -o "$W/re1on2" -checkpoint_every_steps 100 \
  > "$W/re1on2.log" 2>&1 || fail "restart of the 1-rank checkpoint on 2 ranks failed: $(tail -3 "$W/re1on2.log")"
# the checkpoint is in the middle of the emission: fewer than the 120 clumps at step 100
info=$("$CCPDEM" info "$W/run1/checkpoints/ckpt-000100.h5" 2>&1)
made=$(echo "$info" | sed -n 's/.*bodies \([0-9]*\) (.*/\1/p')
{ [ -n "$made" ] && [ "$made" -gt 0 ] && [ "$made" -lt 120 ]; } ||
  fail "the step-100 checkpoint is not in the middle of the emission: $info"
# column DATASET WIDTH of snapshot FILE: one row per body, full precision, in the file's row order
column() {
  h5dump -m '%.17g' -y -w 0 -d "/bodies/$2" "$1" 2> /dev/null | sed -n '/DATA {/,/}/p' | tr -d ' \n' |
    sed 's/DATA{//; s/}//' | tr ',' '\n' | paste -d' ' $(printf -- '- %.0s' $(seq "$3"))
}
# poses FILE: id, position and quaternion of every body, sorted by id (snapshot rows are in any order)
poses() { paste -d' ' <(column "$1" id 1) <(column "$1" position 3) <(column "$1" quaternion 4) | sort -n; }
info=$("$CCPDEM" info "$W/re1on2/checkpoints/ckpt-000200.h5" 2>&1)
echo "$info" | grep -q "bodies 120 (0 left" ||
  fail "the 1-rank checkpoint restarted on 2 ranks does not end with 120 bodies: $info"
worst=$(paste -d' ' <(poses "$W/run1/snapshots/snap-000200.h5") <(poses "$W/re1on2/snapshots/snap-000200.h5") | awk '
  NF != 16 || $1 != $9 { bad++ }
  { for (k = 2; k <= 4; k++) { d = $k - $(k + 8); d = d < 0 ? -d : d; if (d > p) p = d }
    for (k = 5; k <= 8; k++) { d = $k - $(k + 8); d = d < 0 ? -d : d; if (d > q) q = d } }
  END { printf "%d %d %.3g %.3g\n", NR, bad, p, q }')
read -r rows bad dpos dquat <<< "$worst"
echo "1-rank checkpoint restarted on 2 ranks, step 200: $rows bodies, largest differences $dpos m in position," \
  "$dquat in the quaternion"
[ "$rows" -eq 120 ] && [ "$bad" -eq 0 ] ||
  fail "the 1-rank checkpoint restarted on 2 ranks has other bodies at step 200 ($rows rows, $bad with another id)"
awk -v p="$dpos" -v q="$dquat" 'BEGIN { exit !(p <= 1e-5 && q <= 1e-3) }' ||
  fail "the 1-rank checkpoint restarted on 2 ranks ends $dpos m / $dquat from the straight run (bounds 1e-5 m, 1e-3)"
[ $fails -eq 0 ] && echo "clump emitter restart: all checks passed" ||
  echo "clump emitter restart: $fails check(s) FAILED"
[ $fails -eq 0 ]
