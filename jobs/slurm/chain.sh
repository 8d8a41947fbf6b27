#!/usr/bin/env bash
# Submit a chain of N jobs of run.sbatch for one ccpdem run (one output directory), for runs longer
# than a job's time limit. Prints the job ids, one a line, first to last.
#   chain.sh N SCENARIO.yaml OUT [ccpdem options...]
#   CCPDEM_SBATCH_OPTS="--ntasks=8 --time=12:00:00"   extra sbatch options (override the #SBATCH
#                                                    lines of run.sbatch), split on whitespace
#   CCPDEM=/path/to/ccpdem                           passed on to the jobs (default <repo>/build/ccpdem)
#
# How the chain continues:
# - Job k+1 depends on job k with --dependency=afterok, so it starts only after job k ended with
#   exit 0. Each job restarts from the newest (complete) checkpoint in OUT, so it continues where
#   the previous one stopped.
# - A job stopped before its time limit checkpoints and ccpdem exits 3. For afterok that must be a
#   success, so jobs 1..N-1 run with CCPDEM_ON_CHECKPOINT=next: run.sbatch turns exit 3 into 0 and
#   leaves the continuation to the next job. The last job has no successor: it runs with
#   CCPDEM_ON_CHECKPOINT=requeue and requeues itself, so the run still goes on.
# - A job that finds the run finished (OUT/run-complete) exits 0 at once, and so do the rest.
# - Any real failure (ccpdem exit 1 or 2, a crash, the time limit hit without a checkpoint,
#   scancel) ends the chain: --kill-on-invalid-dep=yes cancels the jobs after it instead of leaving
#   them pending for ever. Fix the cause and submit a new chain on the same OUT: it continues.
set -u
die() { echo "chain.sh: $*" >&2; exit 2; }
[ $# -ge 3 ] || die "usage: chain.sh N SCENARIO.yaml OUT [ccpdem options...]"
N=$1 SCEN=$2 OUT=$3
shift 3
[[ $N =~ ^[1-9][0-9]*$ ]] || die "N must be a positive integer, not '$N'"
[ -f "$SCEN" ] || die "no scenario file $SCEN"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The job logs go to OUT, which must exist when the first job starts; absolute paths make the jobs
# independent of the directory they run in.
mkdir -p "$OUT" || die "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)
SCEN=$(cd "$(dirname "$SCEN")" && pwd)/$(basename "$SCEN")

prev=
for i in $(seq 1 "$N"); do
  mode=next
  [ "$i" -eq "$N" ] && mode=requeue
  dep=()
  [ -n "$prev" ] && dep=(--dependency=afterok:"$prev" --kill-on-invalid-dep=yes)
  # shellcheck disable=SC2086 # CCPDEM_SBATCH_OPTS is a list of options
  id=$(sbatch --parsable --output="$OUT/slurm-%j.out" \
         --export=ALL,CCPDEM_ON_CHECKPOINT=$mode,CCPDEM_SLURM_DIR="$here" \
         ${CCPDEM_SBATCH_OPTS:-} "${dep[@]}" "$here/run.sbatch" "$SCEN" "$OUT" "$@") ||
    { echo "chain.sh: sbatch of job $i of $N failed; submitted before it: ${prev:-none}" >&2; exit 1; }
  id=${id%%;*}
  echo "$id"
  prev=$id
done
