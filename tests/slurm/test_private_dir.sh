#!/bin/bash
# The private SLURM starts wherever the checkout lies (label slurm). Usage: test_private_dir.sh CCPDEM REPO WORKDIR
# munged refuses a socket below a directory that not everyone may enter, and CI's clone may lie in
# one (/root, mktemp -d): tests/slurm/slurm_local.sh must start all three daemons with its DIR below
# a 0700 directory, run a job, stop, and leave nothing behind (its socket directory removed).
set -u
CCPDEM=$1
REPO=$2
W=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$W" && mkdir -p "$W/private" && chmod 700 "$W/private"
D=$W/private/slurm
trap 'bash "$REPO/tests/slurm/slurm_local_stop.sh" "$D" > "$W/slurm_stop.log" 2>&1' EXIT
bash "$REPO/tests/slurm/slurm_local.sh" "$D" > "$W/slurm_start.log" 2>&1 ||
  fail "the private SLURM did not start below a 0700 directory: $(tail -n 3 "$W/slurm_start.log")"
. "$D/env.sh"
sockdir=$(cat "$D/munge/socket_dir")
job=$(sbatch --parsable -o "$W/job.out" --wrap "\"$CCPDEM\" -help > /dev/null; echo done") || fail "sbatch refused the job"
for _ in $(seq 1 300); do
  state=$(sacct -n -X -j "$job" -o State 2> /dev/null | tr -d ' ' | head -n 1)
  [ -s "$W/job.out" ] && grep -q done "$W/job.out" && break
  sleep 0.2
done
grep -q done "$W/job.out" 2> /dev/null || fail "job $job did not run (state ${state:-unknown})"
bash "$REPO/tests/slurm/slurm_local_stop.sh" "$D" > "$W/slurm_stop.log" 2>&1 || fail "the daemons did not stop: $(cat "$W/slurm_stop.log")"
trap - EXIT
[ -e "$sockdir" ] && fail "munged's socket directory $sockdir was left behind"
echo "private SLURM below a 0700 directory: started, ran job $job, stopped, socket directory removed"
