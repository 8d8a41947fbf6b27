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
