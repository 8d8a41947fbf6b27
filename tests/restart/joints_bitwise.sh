#!/bin/bash
# Joints across a restart (label restart). Usage: joints_bitwise.sh CCPDEM WORKDIR
# A run of joints.yaml (prismatic cart with seal friction carrying a revolute double pendulum, and
# a prescribed motion) checkpointed at step 100 of 200; the restart from that checkpoint writes
# snapshots byte-identical to the uninterrupted run's: the joints come back from the scenario
# (anchors in the bodies' frames at time 0) and their warm-start impulses from the checkpoint.
set -u
CCPDEM=$1
W=$2
HERE=$(cd "$(dirname "$0")" && pwd)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
rm -rf "$W" && mkdir -p "$W"
"$CCPDEM" run "$HERE/joints.yaml" -o "$W/a" -checkpoint_every_steps 100 > "$W/a.log" 2>&1 || fail "run failed: $(tail -3 "$W/a.log")"
"$CCPDEM" restart "$W/a/checkpoints/ckpt-000100.h5" -o "$W/r" > "$W/r.log" 2>&1 || fail "restart failed: $(tail -3 "$W/r.log")"
n=0
for f in "$W"/a/snapshots/snap-*.h5; do
  step=$(basename "$f" .h5); step=$((10#${step#snap-}))
  [ "$step" -gt 100 ] || continue
  n=$((n + 1))
  cmp -s "$f" "$W/r/snapshots/$(basename "$f")" || fail "$W/r/snapshots/$(basename "$f") differs from $f"
done
[ "$n" -ge 2 ] || fail "only $n snapshots after step 100 compared"
echo "$n snapshots after the restart at step 100 byte-identical to the uninterrupted run's"
[ "$fails" -eq 0 ] && echo "joints restart: all checks passed"
exit $((fails > 0))
