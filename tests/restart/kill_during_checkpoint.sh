#!/bin/bash
# SIGKILL at random moments of a run that writes a checkpoint every 3 steps (so many kills land in
# the middle of a checkpoint write), 20 trials (label restart). Usage: kill_during_checkpoint.sh CCPDEM WORKDIR
# Each trial: the newest ckpt-*.h5 left behind must restart (`ccpdem restart --until 0.44`, exit 0),
# a half-written temporary must never carry a final name (it would be refused), the restart deletes
# the stale temporaries, the time series ends with each step 1..220 once, and the snapshot of step
# 200 is identical (h5diff, exact) to the one of an uninterrupted run.
. "$(dirname "$0")/restart_common.bash" "$@"
SCEN=$HERE/pile.yaml
TRIALS=20

"$CCPDEM" run "$SCEN" -o "$W/ref" > "$W/ref.log" 2>&1 || { echo "FAIL: reference run"; exit 1; }

RANDOM=12345 # reproducible kill times
done_trials=0
in_write=0
for attempt in $(seq 1 40); do
  [ "$done_trials" -ge "$TRIALS" ] && break
  out=$W/t$attempt
  "$CCPDEM" run "$SCEN" -o "$out" -checkpoint_every_steps 3 > "$out.log" 2>&1 &
  pid=$!
  # wait for the first checkpoint, then a random 0-400 ms more
  for _ in $(seq 1 2000); do ls "$out"/checkpoints/ckpt-*.h5 > /dev/null 2>&1 && break; kill -0 "$pid" 2> /dev/null || break; sleep 0.005; done
  sleep "0.$(printf '%03d' $((RANDOM % 400)))"
  kill -9 "$pid" 2> /dev/null
  wait "$pid" 2> /dev/null
  ckpt=$(ls "$out"/checkpoints/ckpt-*.h5 2> /dev/null | sort | tail -1)
  [ -n "$ckpt" ] || continue
  ls "$out"/checkpoints/.ckpt-*.tmp > /dev/null 2>&1 && in_write=$((in_write + 1))
  done_trials=$((done_trials + 1))
  if ! "$CCPDEM" restart "$ckpt" --until 0.44 -checkpoint_every_steps 50 > "$out.restart.log" 2>&1; then
    fail "trial $attempt: restart of $(basename "$ckpt") failed: $(grep error "$out.restart.log")"
    continue
  fi
  ls "$out"/checkpoints/.ckpt-*.tmp > /dev/null 2>&1 && fail "trial $attempt: stale temporaries left after the restart"
  [ "$(tail -n +2 "$out/timeseries.csv" | cut -d, -f1 | tr '\n' ' ')" = "$(seq 1 220 | tr '\n' ' ')" ] || fail "trial $attempt: time-series steps are not 1..220 once each"
  h5diff -q "$W/ref/snapshots/snap-000200.h5" "$out/snapshots/snap-000200.h5" > /dev/null || fail "trial $attempt: snapshot 200 differs from the uninterrupted run"
  rm -rf "$out"
done
echo "kill trials with a checkpoint to restart: $done_trials (killed during a checkpoint write: $in_write)"
[ "$done_trials" -ge "$TRIALS" ] || fail "only $done_trials trials had a checkpoint"
if [ "$fails" -ne 0 ]; then echo "kill_during_checkpoint: $fails check(s) FAILED"; exit 1; fi
echo "kill_during_checkpoint: all checks passed"
