#!/bin/bash
# SIGKILL during and between the checkpoint writes of a run that checkpoints every 3 steps, 12 trials
# (label restart). Usage: kill_during_checkpoint.sh CCPDEM WORKDIR
# Each trial picks a target step (reproducible, spread over steps 3..90) and watches the run's
# checkpoint folder: 8 trials kill the run when the temporary of a checkpoint at or after the target
# appears (.ckpt-NNNNNN.h5.<pid>-<random>.tmp: the write is under way; 4 at once, 4 after 0-5 ms more, so the kill
# lands in different phases of it), 4 when a finished ckpt-NNNNNN.h5 at or after the target appears
# (plus 0-5 ms: between writes or at the start of the next). The handshake is the file itself, not
# a fixed wait, so a slow machine shifts the kill but not what it hits; the watch polls with bash
# builtins only (no process per poll). Then:
#  - at least 2 of the 8 write trials must leave a temporary behind (the kill hit a write; measured
#    6 of 8 with writes of ~17 ms, most of it the fsync: a watcher slowed down by load, or a disk
#    that writes in less than the poll's 1 ms, sees some temporaries only after their rename);
#  - the newest ckpt-*.h5 left behind restarts (`ccpdem restart --until 0.44`, exit 0): a
#    half-written temporary never carries a final name (it would be refused);
#  - the restart deletes the stale temporaries, its time series ends with each step 1..220 once,
#    and its snapshot of step 200 is identical (h5diff, exact) to an uninterrupted run's.
. "$(dirname "$0")/restart_common.bash" "$@"
SCEN=$HERE/pile.yaml
WRITE_TRIALS=8
TRIALS=12
shopt -s nullglob
exec {never}<> <(:) # a pipe that nobody writes: `read -t` on it sleeps without starting a process
nap() { read -r -t "$1" -u "$never" _; }

"$CCPDEM" run "$SCEN" -o "$W/ref" > "$W/ref.log" 2>&1 || { echo "FAIL: reference run"; exit 1; }

# newest_step DIR PATTERN_PREFIX SUFFIX: the largest step among DIR/PREFIX<step>SUFFIX, -1 if none
newest_step() {
  local best=-1 f s
  for f in "$1"/"$2"*"$3"; do
    s=${f##*/"$2"}; s=$((10#${s%"$3"}))
    [ "$s" -gt "$best" ] && best=$s
  done
  echo "$best"
}

RANDOM=12345 # reproducible targets and delays
in_write=0
for trial in $(seq 1 $TRIALS); do
  out=$W/t$trial
  target=$((3 * (1 + RANDOM % 30)))
  delay=$(printf '0.%03d' $((trial <= WRITE_TRIALS / 2 ? 0 : RANDOM % 6)))
  if [ "$trial" -le "$WRITE_TRIALS" ]; then watch=.ckpt-; suffix=.h5.*.tmp; else watch=ckpt-; suffix=.h5; fi
  "$CCPDEM" run "$SCEN" -o "$out" -checkpoint_every_steps 3 > "$out.log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2> /dev/null; do
    seen=-1
    for f in "$out"/checkpoints/"$watch"*$suffix; do
      s=${f##*/"$watch"}; s=$((10#${s:0:6})) # the step: the 6 digits after the prefix
      [ "$s" -gt "$seen" ] && seen=$s
    done
    [ "$seen" -ge "$target" ] && break
    nap 0.001
  done
  nap "$delay"
  kill -9 "$pid" 2> /dev/null
  wait "$pid" 2> /dev/null
  ckpt=$(newest_step "$out/checkpoints" ckpt- .h5)
  tmps=("$out"/checkpoints/.ckpt-*.h5.*.tmp)
  hit=${#tmps[@]}
  [ "$trial" -le "$WRITE_TRIALS" ] && [ "$hit" -gt 0 ] && in_write=$((in_write + 1))
  echo "  trial $trial: target step $target, killed $delay s after a $watch*$suffix appeared; newest checkpoint step $ckpt, temporaries left $hit"
  if [ "$ckpt" -lt 0 ]; then
    fail "trial $trial: no checkpoint to restart from"
    continue
  fi
  ckpt=$(printf '%s/checkpoints/ckpt-%06d.h5' "$out" "$ckpt")
  if ! "$CCPDEM" restart "$ckpt" --until 0.44 -checkpoint_every_steps 50 > "$out.restart.log" 2>&1; then
    fail "trial $trial: restart of $(basename "$ckpt") failed: $(grep error "$out.restart.log")"
    continue
  fi
  tmps=("$out"/checkpoints/.ckpt-*.h5.*.tmp)
  [ ${#tmps[@]} -eq 0 ] || fail "trial $trial: stale temporaries left after the restart"
  [ "$(tail -n +2 "$out/timeseries.csv" | cut -d, -f1 | tr '\n' ' ')" = "$(seq 1 220 | tr '\n' ' ')" ] || fail "trial $trial: time-series steps are not 1..220 once each"
  h5diff -q "$W/ref/snapshots/snap-000200.h5" "$out/snapshots/snap-000200.h5" > /dev/null || fail "trial $trial: snapshot 200 differs from the uninterrupted run"
  rm -rf "$out"
done
echo "kill trials: $TRIALS, of the $WRITE_TRIALS aimed at a checkpoint write $in_write left a half-written temporary"
[ "$in_write" -ge 2 ] || fail "only $in_write of $WRITE_TRIALS kills aimed at a checkpoint write hit one (at least 2 expected)"
if [ "$fails" -ne 0 ]; then echo "kill_during_checkpoint: $fails check(s) FAILED"; exit 1; fi
echo "kill_during_checkpoint: all checks passed"
