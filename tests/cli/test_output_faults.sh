#!/bin/bash
# A full disk stops every rank with one line and a checkpoint to go on from (label cli; README
# "Outputs"). Usage: test_output_faults.sh CCPDEM REPO WORKDIR
#  1. Write faults (-io_fail_after_bytes N -io_fail_rank R: writes fail with ENOSPC once rank R, or
#     every rank, has written N bytes) at 1, 2 and 4 ranks, 20 runs each, N = 20 B, then 2 kB ..
#     29 kB (0.3 kB .. 5.7 kB for a rank other than 0, which writes no text and only its share
#     of the rows), and R cycling through "every rank" and each rank, so that the failure lands in
#     run.id, snapshots, the index, checkpoints and time-series rows, on rank 0 or on another rank
#     alone. Each run (40 spheres, 24 steps, a snapshot every 8, a checkpoint every 3) must end
#     within 30 s with exit 1 and exactly one line on stderr (mpiexec --quiet: Open MPI's own
#     banner off), "ccpdem: error: writing OUT/...: No space left on device; " and either "the
#     last good checkpoint is C" or "no checkpoint was written" (then there is none); no temporary
#     may be left; C must restart into OUT (exit 0) and the time series then hold steps 1..24 once
#     each.
#  2. A real full disk, where `mount -t tmpfs` is permitted (root; else this part says so and is
#     left out): OUT on tmpfs of 64, 130 and 210 kB at 1, 2 and 4 ranks, the same checks.
. "$(dirname "$0")/../script_common.sh" "$@"
export OMPI_MCA_mpi_yield_when_idle=1
MPI="mpiexec --quiet --oversubscribe --allow-run-as-root"
sed 's/end: 0.06/end: 0.048/; s/snapshot_interval: 0.01/snapshot_interval: 0.016/' "$REPO/tests/cli/outputs.yaml" > "$W/s.yaml"
grep -q "end: 0.048" "$W/s.yaml" && grep -q "snapshot_interval: 0.016" "$W/s.yaml" || fail "the scenario was not made"
OPTS="-checkpoint_every_steps 3 -progress_interval 1e9"
declare -A where

# check_failed_run NAME OUT RC SECONDS STDERR-FILE [COPY]: the checks of one failed run, then its
# restart (in COPY, a copy of OUT made first, when OUT has no room left)
check_failed_run() {
  local name=$1 out=$2 rc=$3 secs=$4 errf=$5 copy=${6:-} line ckpt left
  [ "$rc" -eq 1 ] || { fail "$name: exit $rc after $secs s, expected 1 within 30 s: $(head -3 "$errf")"; return; }
  [ "$(wc -l < "$errf")" -eq 1 ] || { fail "$name: $(wc -l < "$errf") lines on stderr: $(head -5 "$errf")"; return; }
  line=$(cat "$errf")
  [[ $line =~ ^"ccpdem: error: writing $out/"([^:]+)": No space left on device; "(the last good checkpoint is (.+)|no checkpoint was written)$ ]] ||
    { fail "$name: the line is '$line'"; return; }
  where[${BASH_REMATCH[1]%%[-.]*}]=1
  ckpt=${BASH_REMATCH[3]}
  left=$(find "$out" -name '.*.tmp' 2> /dev/null)
  [ -z "$left" ] || fail "$name: temporaries left: $left"
  if [ -z "$ckpt" ]; then
    ls "$out"/checkpoints/ckpt-*.h5 > /dev/null 2>&1 && fail "$name: 'no checkpoint was written', but there is one"
    return
  fi
  if [ -n "$copy" ]; then
    rm -rf "$copy" && cp -a "$out" "$copy" || { fail "$name: cannot copy $out"; return; }
    ckpt=$copy${ckpt#"$out"}
    out=$copy
  fi
  "$CCPDEM" restart "$ckpt" $OPTS > "$W/restart.log" 2>&1 || { fail "$name: restart of $ckpt failed: $(tail -2 "$W/restart.log")"; return; }
  [ "$(tail -n +2 "$out/timeseries.csv" | cut -d, -f1 | tr '\n' ' ')" = "$(seq 1 24 | tr '\n' ' ')" ] ||
    fail "$name: after the restart of $ckpt the time series does not hold steps 1..24 once each"
  restarted=$((restarted + 1))
}

# one_run NAME OUT COPY NP ARGS...: the run, timed, and its checks (COPY: see check_failed_run)
one_run() {
  local name=$1 out=$2 copy=$3 np=$4 t0 rc launch; shift 4
  t0=$(date +%s)
  launch="$MPI -n $np"
  [ "$np" = 1 ] && launch="" # one rank: no launcher, one process
  timeout 30 $launch "$CCPDEM" run "$W/s.yaml" -o "$out" $OPTS "$@" > "$W/last.log" 2> "$W/last.err"
  rc=$?
  check_failed_run "$name" "$out" $rc $(($(date +%s) - t0)) "$W/last.err" "$copy"
  runs=$((runs + 1))
}

# 1. injected faults
runs=0 restarted=0
for np in 1 2 4; do
  for k in $(seq 1 20); do
    r=$((k % (np + 1) - 1))
    n=$((k == 1 ? 20 : r > 0 ? 300 * (k - 1) : 1500 * (k - 1) + 500)) # a rank other than 0 writes less
    one_run "np $np, N $n, rank $r" "$W/f${np}_$k" "" "$np" -io_fail_after_bytes $n -io_fail_rank $r
  done
done
echo "  injected faults: $runs runs, each exit 1 with one line; $restarted restarted from their last good checkpoint"
echo "  failures landed in: ${!where[*]}"
for w in run snapshots/snap snapshots checkpoints/ckpt timeseries; do
  [ -n "${where[$w]:-}" ] || fail "no injected failure landed in $w (the budgets no longer cover it)"
done

# 2. a real full disk
mnt=$W/tmpfs
mkdir -p "$mnt"
if mount -t tmpfs -o size=64k tmpfs "$mnt" 2> /dev/null; then
  umount "$mnt"
  trap 'umount "$mnt" 2> /dev/null' EXIT
  runs=0 restarted=0
  for np in 1 2 4; do
    for size in 64k 130k 210k; do
      mount -t tmpfs -o size=$size tmpfs "$mnt" || { fail "mount of a $size tmpfs failed"; continue; }
      one_run "tmpfs $size, np $np" "$mnt/out" "$W/full_${np}_$size" "$np"
      umount "$mnt"
    done
  done
  echo "  full tmpfs: $runs runs, each exit 1 with one line; $restarted restarted from their last good checkpoint"
else
  echo "  full tmpfs: mount -t tmpfs is not permitted here; this part is left out"
fi
finish test_output_faults
