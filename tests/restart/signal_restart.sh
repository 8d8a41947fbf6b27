#!/bin/bash
# Restart through the ccpdem binary (label restart). Usage: signal_restart.sh CCPDEM WORKDIR
#  1. SIGUSR1, SIGTERM and SIGINT (Ctrl-C) mid-run: exit 3 (requeue) with a checkpoint; `ccpdem
#     restart` of the newest checkpoint reaches the end; every snapshot both runs wrote is identical
#     to the uninterrupted run's (h5diff without tolerance compares values exactly), and the time
#     series has each step 1..200 once with the same figures as the uninterrupted run. A SIGINT
#     ignored at start (a script's background job) stays ignored; a second Ctrl-C ends the run.
#     SIGUSR1 while the run is still starting up (building its bodies): exit 3 with a checkpoint
#     of the first step, not a killed process. Each signal waits for a handshake (the run's
#     handlers are in), none for a fixed time.
#  2. --until: extends a finished run (exit 0, rows up to the new end, no duplicates); an end time
#     not after the checkpoint is bad input (exit 2, one "ccpdem: error:" line).
#  3. Bad checkpoints through the binary: truncated, a flipped data byte, a snapshot, a missing file,
#     a text file: exit 2 and exactly one "ccpdem: error:" line; `ccpdem info` accepts a checkpoint
#     and a snapshot and refuses a text file.
. "$(dirname "$0")/restart_common.bash" "$@"
SCEN=$HERE/pile.yaml

"$CCPDEM" run "$SCEN" -o "$W/ref" > "$W/ref.log" 2>&1 || fail "uninterrupted run failed: $(tail -3 "$W/ref.log")"

rows() { [ -f "$1/timeseries.csv" ] && tail -n +2 "$1/timeseries.csv" | wc -l || echo 0; }

# The figures of a time series without the wall-time columns (12-16 differ from run to run).
figures() { cut -d, -f1-11 "$1/timeseries.csv"; }

check_series() { # dir, expected last step
  local dir=$1 last=$2
  local n dups
  n=$(tail -n +2 "$dir/timeseries.csv" | wc -l)
  dups=$(tail -n +2 "$dir/timeseries.csv" | cut -d, -f1 | sort -n | uniq -d | wc -l)
  [ "$n" -eq "$last" ] || fail "$dir: $n time-series rows, expected $last"
  [ "$dups" -eq 0 ] || fail "$dir: $dups duplicated steps in the time series"
  [ "$(tail -n +2 "$dir/timeseries.csv" | cut -d, -f1 | tr '\n' ' ')" = "$(seq 1 "$last" | tr '\n' ' ')" ] || fail "$dir: steps are not 1..$last in order"
}

# bit_set MASKNAME PID SIGNAL: whether /proc/PID/status's MASKNAME (SigCgt: caught, SigIgn:
# ignored) has SIGNAL's bit (signal number n is bit n - 1)
bit_set() {
  local mask
  mask=$(awk -v k="$1:" '$1 == k {print $2}' "/proc/$2/status" 2> /dev/null)
  [ -n "$mask" ] && (( (0x$mask >> ($(kill -l "$3") - 1)) & 1 ))
}

# pause_after_rows DIR PID N LAST: the handshake before a signal. Waits until run PID has written N
# time-series rows (so its handlers are in: they are installed before the first step) and stops it
# there (SIGSTOP), so that the signal, sent while it is stopped and delivered when it continues,
# lands mid-run however fast the machine is. 0 if paused mid-run; 1 (with the reason) if not.
pause_after_rows() {
  local dir=$1 pid=$2 n=$3 last=$4 t0=$SECONDS
  until [ "$(rows "$dir")" -ge "$n" ]; do
    kill -0 "$pid" 2> /dev/null || { echo "the run ended after $(rows "$dir") rows, before row $n"; return 1; }
    [ $((SECONDS - t0)) -lt 300 ] || { echo "no row $n after 300 s"; return 1; }
    sleep 0.002
  done
  kill -STOP "$pid"
  [ "$(rows "$dir")" -lt "$last" ] || { echo "the run had finished its $last steps when it was paused"; return 1; }
}

# interrupt_and_restart SIGNAL: SIGNAL mid-run (INT as Ctrl-C sends it: to the process group of a
# run started with SIGINT at its default, by an interactive shell), exit 3 with a checkpoint, and the
# restart continues exactly as the uninterrupted run.
interrupt_and_restart() {
  local sig=$1 out=$W/$1 pid rc ckpt why target
  if [ "$sig" = INT ]; then
    # its own process group with SIGINT not ignored, as a foreground job in a terminal
    setsid env --default-signal=INT "$CCPDEM" run "$SCEN" -o "$out" -checkpoint_keep 3 > "$out.log" 2>&1 &
    pid=$!
    target=-$pid
  else
    "$CCPDEM" run "$SCEN" -o "$out" -checkpoint_keep 3 > "$out.log" 2>&1 &
    pid=$!
    target=$pid
  fi
  why=$(pause_after_rows "$out" "$pid" 40 200) || { fail "$sig: no mid-run signal: $why"; kill -KILL "$pid" 2> /dev/null; wait "$pid"; return; }
  if [ "$sig" != INT ]; then
    # a background job of this script: started with SIGINT ignored, which ccpdem leaves so
    bit_set SigIgn "$pid" INT && ! bit_set SigCgt "$pid" INT || fail "$sig: SIGINT ignored at start is not left ignored"
  fi
  kill -s "$sig" -- "$target"
  kill -CONT "$pid"
  wait "$pid"; rc=$?
  [ "$rc" -eq 3 ] || { fail "$sig: exit code $rc, expected 3 (requeue): $(tail -3 "$out.log")"; return; }
  ckpt=$(ls "$out"/checkpoints/ckpt-*.h5 2> /dev/null | sort | tail -1)
  [ -n "$ckpt" ] || { fail "$sig: no checkpoint written"; return; }
  echo "$sig: stopped with exit 3 after $(rows "$out") steps, checkpoint $(basename "$ckpt")"
  "$CCPDEM" restart "$ckpt" > "$out.restart.log" 2>&1 || { fail "$sig: restart failed: $(tail -3 "$out.restart.log")"; return; }
  check_series "$out" 200
  [ "$(figures "$out")" = "$(figures "$W/ref")" ] || fail "$sig: time-series figures differ from the uninterrupted run"
  for snap in "$W"/ref/snapshots/snap-*.h5; do
    h5diff -q "$snap" "$out/snapshots/$(basename "$snap")" > /dev/null || fail "$sig: $(basename "$snap") differs from the uninterrupted run"
  done
  echo "$sig: restart reached step 200; snapshots identical to the uninterrupted run ($(ls "$W"/ref/snapshots/snap-*.h5 | wc -l) files), time series complete"
}

interrupt_and_restart USR1
interrupt_and_restart TERM
interrupt_and_restart INT

# USR1 while the run starts up (building 100,000 random spheres takes ~0.5 s): not fatal; the run
# checkpoints after its first step and exits 3
cat > "$W/slow.yaml" <<'YAML'
domain: {min: [-1.1, -1.1, -0.05], max: [1.1, 1.1, 0.6]}
gravity: [0, 0, -9.81]
time: {step: 0.005, end: 0.05}
solver: {type: apgd, max_iterations: 5, tolerance: 1.0e-4}
materials:
  - {name: gravel, density: 2028, friction: 0.6}
walls:
  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: gravel}
fills:
  - {type: random, region: {min: [-1, -1, 0.01], max: [1, 1, 0.44]}, radius: 0.01, count: 100000, seed: 1, material: gravel}
YAML
"$CCPDEM" run "$W/slow.yaml" -o "$W/early" > "$W/early.log" 2>&1 &
pid=$!
# Signal once main() has installed its handler: before that the process is still being loaded,
# which no batch system's signal can tell apart (on a loaded machine a fixed 0.1 s was sometimes
# too early).
t0=$SECONDS
until bit_set SigCgt "$pid" USR1 || [ $((SECONDS - t0)) -ge 60 ]; do sleep 0.02; done
kill -USR1 "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 3 ] || fail "USR1 during start-up: exit $rc, expected 3 (requeue): $(tail -2 "$W/early.log")"
[ -f "$W/early/checkpoints/ckpt-000001.h5" ] || fail "USR1 during start-up: no checkpoint of step 1"
echo "USR1 during start-up: exit $rc, checkpoint of step 1"

# Ctrl-C twice: the first asks for the checkpoint, the second ends the run at once (its handler is
# reset to the default by the first). The 100,000 spheres' steps take over 0.1 s each, so the second
# comes while the step the first interrupted is still running.
setsid env --default-signal=INT "$CCPDEM" run "$W/slow.yaml" -o "$W/twice" > "$W/twice.log" 2>&1 &
pid=$!
if why=$(pause_after_rows "$W/twice" "$pid" 1 10); then
  kill -INT -- "-$pid"
  kill -CONT "$pid"
  t0=$SECONDS
  while bit_set SigCgt "$pid" INT && [ $((SECONDS - t0)) -lt 60 ]; do sleep 0.001; done
  kill -INT -- "-$pid" 2> /dev/null
  wait "$pid"
  rc=$?
  if [ "$rc" -eq 130 ]; then
    echo "Ctrl-C twice: the second ended the run (exit $rc)"
  else
    fail "Ctrl-C twice: exit $rc, expected 130 (ended by SIGINT): $(tail -2 "$W/twice.log")"
  fi
else
  fail "Ctrl-C twice: $why"
  kill -KILL "$pid" 2> /dev/null
  wait "$pid"
fi

# checkpoints by simulated time: -checkpoint_interval 0.1 s = every 50 steps
"$CCPDEM" run "$SCEN" -o "$W/bytime" -checkpoint_interval 0.1 -checkpoint_keep 10 > "$W/bytime.log" 2>&1 || fail "run with -checkpoint_interval failed"
got=$(cd "$W/bytime/checkpoints" && ls ckpt-*.h5 | tr '\n' ' ')
[ "$got" = "ckpt-000050.h5 ckpt-000100.h5 ckpt-000150.h5 ckpt-000200.h5 " ] || fail "-checkpoint_interval 0.1: got checkpoints $got"
echo "-checkpoint_interval 0.1: $got"

# --until on a finished run that wrote a final checkpoint
"$CCPDEM" run "$SCEN" -o "$W/until" -checkpoint_every_steps 100 > "$W/until.log" 2>&1 || fail "run with checkpoints failed"
"$CCPDEM" restart "$W/until/checkpoints/ckpt-000200.h5" --until 0.44 > "$W/until2.log" 2>&1 || fail "--until 0.44 failed: $(tail -3 "$W/until2.log")"
check_series "$W/until" 220
echo "--until 0.44: extended to step 220, time series complete"

expect_bad() { # description, then the command
  local what=$1 rc out n
  shift
  out=$("$@" 2>&1); rc=$?
  n=$(printf '%s\n' "$out" | grep -c "^ccpdem: error:")
  if [ "$rc" -ne 2 ] || [ "$n" -ne 1 ]; then
    fail "$what: exit $rc with $n error lines, expected exit 2 and one line: $out"
  else
    echo "refused $what: $(printf '%s\n' "$out" | grep "^ccpdem: error:")"
  fi
}

expect_bad "--until before the checkpoint" "$CCPDEM" restart "$W/until/checkpoints/ckpt-000200.h5" --until 0.1
expect_bad "--until without a number" "$CCPDEM" restart "$W/until/checkpoints/ckpt-000200.h5" --until soon
expect_bad "--until equal to the checkpoint's time" "$CCPDEM" restart "$W/until/checkpoints/ckpt-000100.h5" --until 0.2
expect_bad "restart at the end time without --until" "$CCPDEM" restart "$W/until/checkpoints/ckpt-000200.h5"

GOOD=$W/until/checkpoints/ckpt-000100.h5
size=$(stat -c %s "$GOOD")
head -c $((size / 2)) "$GOOD" > "$W/truncated.h5"
expect_bad "truncated checkpoint" "$CCPDEM" restart "$W/truncated.h5" -o "$W/x"
cp "$GOOD" "$W/flipped.h5"
offset=$(h5dump -p -H -d /bodies/vel "$GOOD" | awk '/OFFSET/ {print $2}')
printf '\x55' | dd of="$W/flipped.h5" bs=1 seek=$((offset + 100)) conv=notrunc status=none
cmp -s "$GOOD" "$W/flipped.h5" && fail "the byte flip did not change the file"
expect_bad "flipped byte in /bodies/vel" "$CCPDEM" restart "$W/flipped.h5" -o "$W/x"
expect_bad "snapshot as checkpoint" "$CCPDEM" restart "$W/ref/snapshots/snap-000100.h5" -o "$W/x"
expect_bad "missing checkpoint" "$CCPDEM" restart "$W/none.h5" -o "$W/x"
echo "not hdf5" > "$W/text.h5"
expect_bad "text file" "$CCPDEM" restart "$W/text.h5" -o "$W/x"
[ -e "$W/x" ] && fail "a refused restart created its output directory"

"$CCPDEM" info "$GOOD" > "$W/info.log" 2>&1 && grep -q "checkpoint" "$W/info.log" && grep -q "step 100" "$W/info.log" || fail "info on a checkpoint: $(cat "$W/info.log")"
"$CCPDEM" info "$W/ref/snapshots/snap-000100.h5" > "$W/info2.log" 2>&1 && grep -q "snapshot" "$W/info2.log" || fail "info on a snapshot: $(cat "$W/info2.log")"
expect_bad "info on a text file" "$CCPDEM" info "$W/text.h5"
cat "$W/info.log"

if [ "$fails" -ne 0 ]; then echo "signal_restart: $fails check(s) FAILED"; exit 1; fi
echo "signal_restart: all checks passed"
