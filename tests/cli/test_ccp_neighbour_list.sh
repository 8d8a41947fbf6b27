#!/bin/bash
# The CCP model's detection from the neighbour list (-neighbour_skin > 0) through the binary (label
# cli). Usage: test_ccp_neighbour_list.sh CCPDEM REPO WORKDIR
# tests/restart/pile.yaml (300 spheres falling onto a floor and settling, 200 steps) run with a
# skin of 2 mm and with none (full detection every step, the CCP default), at 1 and at 2 ranks:
# every snapshot byte-identical (the list only chooses which superset of the contacting pairs is
# searched; the contacts and their order are CollisionDetect's), and the list reused at least once
# (fewer builds than rank-steps in the summary; otherwise the comparison would prove nothing).
# Both with -ghost_update false: a skin also lets the ghosts be kept on several ranks, with owners
# that lag behind their bodies and so other partial sums in the solve (test_ccp_ghost_update).
. "$(dirname "$0")/../script_common.sh" "$@"
MPI="mpiexec --oversubscribe --allow-run-as-root"
export OMPI_MCA_mpi_yield_when_idle=1
for np in 1 2; do
  for skin in 0 0.002; do
    $MPI -n $np "$CCPDEM" run "$REPO/tests/restart/pile.yaml" -neighbour_skin $skin -ghost_update false -o "$W/r${np}_$skin" > "$W/r${np}_$skin.log" 2>&1 || fail "$np ranks, skin $skin: the run failed: $(tail -3 "$W/r${np}_$skin.log")"
  done
  line=$(grep "neighbour list (skin 0.002 m): built" "$W/r${np}_0.002.log")
  builds=$(echo "$line" | sed -E 's/.*built ([0-9]+) times in ([0-9]+) rank-steps/\1/') steps=$(echo "$line" | sed -E 's/.*built ([0-9]+) times in ([0-9]+) rank-steps/\2/')
  [ -n "$line" ] && [ "$builds" -lt "$steps" ] || fail "$np ranks: the list was never reused (summary: '$line')"
  n=0
  for f in "$W/r${np}_0"/snapshots/snap-*.h5; do
    n=$((n + 1))
    cmp -s "$f" "$W/r${np}_0.002/snapshots/$(basename "$f")" || fail "$np ranks: $(basename "$f") differs with the neighbour list"
  done
  [ $n -ge 5 ] || fail "$np ranks: only $n snapshots compared"
  echo "  $np ranks: $n snapshots byte-identical with and without the list ($line)"
done
finish test_ccp_neighbour_list
