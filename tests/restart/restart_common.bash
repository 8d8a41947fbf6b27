# Sourced by the restart scripts (not a test itself: *.sh are the tests) with their arguments
# CCPDEM WORKDIR: sets CCPDEM, W (fresh and empty), HERE (tests/restart), MPI (mpiexec for root
# and oversubscription, ranks yielding when idle) and fail (count a check).
set -u
CCPDEM=$1
W=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
rm -rf "$W" && mkdir -p "$W"
MPI="mpiexec --oversubscribe --allow-run-as-root"
export OMPI_MCA_mpi_yield_when_idle=1

# compare_snapshots_after A R STEP MIN: every snapshot of run A after STEP must be byte-identical to
# the one of the same name in run R; fewer than MIN compared is a failure too. Uses the caller's fail.
compare_snapshots_after() {
  local a=$1 r=$2 after=$3 min=$4 n=0 f step
  for f in "$a"/snapshots/snap-*.h5; do
    step=$(basename "$f" .h5); step=$((10#${step#snap-}))
    [ "$step" -gt "$after" ] || continue
    n=$((n + 1))
    cmp -s "$f" "$r/snapshots/$(basename "$f")" || fail "$r/snapshots/$(basename "$f") differs from $f"
  done
  [ "$n" -ge "$min" ] || fail "only $n snapshots after step $after compared"
  echo "$n snapshots after the restart at step $after byte-identical to the uninterrupted run's"
}

# straight_and_restart SCEN NP LAST MIN [EVERY]: SCEN run straight on NP ranks into $W/runNP with checkpoints
# every EVERY steps (default 100), then restarted from its step-EVERY checkpoint into $W/reNP on NP ranks; the
# restart's snapshots after step EVERY (at least MIN) and its step-LAST checkpoint must be byte-identical to the
# straight run's.
straight_and_restart() {
  local scen=$1 np=$2 last=$3 min=$4 every=${5:-100}
  $MPI -n "$np" "$CCPDEM" run "$scen" -o "$W/run$np" -checkpoint_every_steps "$every" -checkpoint_keep 5 > "$W/run$np.log" 2>&1 || fail "$np-rank run failed: $(tail -3 "$W/run$np.log")"
  $MPI -n "$np" "$CCPDEM" restart "$W/run$np/checkpoints/ckpt-$(printf %06d "$every").h5" -o "$W/re$np" -checkpoint_every_steps "$every" > "$W/re$np.log" 2>&1 || fail "$np-rank restart failed: $(tail -3 "$W/re$np.log")"
  compare_snapshots_after "$W/run$np" "$W/re$np" "$every" "$min"
  cmp -s "$W/run$np/checkpoints/ckpt-$last.h5" "$W/re$np/checkpoints/ckpt-$last.h5" || fail "$np ranks: the step-$((10#$last)) checkpoint differs after the restart"
}
