#!/bin/bash
# SLURM batch support through real jobs (label slurm). Usage: test_chain.sh CCPDEM REPO WORKDIR
# Starts a private single-node SLURM under WORKDIR/slurm (tests/slurm/slurm_local.sh; if it
# cannot start, the test fails with the reason, it never skips) and stops it on exit. Then:
#  1. Reference: the restart pile, made slower per step (300 solver iterations, 300 steps), run
#     uninterrupted on 2 ranks with mpiexec.
#  2. Chain: the same run as a 2-job chain (jobs/slurm/chain.sh) with periodic checkpoints. Once
#     ccpdem is stepping, USR1 goes to job 1's batch shell (as --signal=B:USR1 would; after
#     handshakes, not fixed waits, so it lands mid-run on any machine, see interrupt): job 1 must
#     checkpoint mid-run (ccpdem exit 3, turned into exit 0), job 2 must restart from that
#     checkpoint and finish; both COMPLETED with exit code 0.
#  3. Requeue: one run.sbatch job (default requeue mode, mpirun launcher forced), interrupted the
#     same way: it must requeue itself and, run again, continue to the end (Restarts=1).
# For 2 and 3: every snapshot is byte-identical (cmp) to the reference's and timeseries.csv has
# steps 1..300 once each.
#  4. A weak scaling study submitted with jobs/scaling/weak.sh --slurm (1 and 2 ranks, tiny): the
#     two runs and the report job (afterany) complete, and the report writes scaling.csv and plots.
set -u
CCPDEM=$1
REPO=$2
W=$3
STEPS=300
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
rm -rf "$W" && mkdir -p "$W"
since() { awk -v t0="$1" -v t1="$(date +%s.%N)" 'BEGIN {printf "%.1f", t1 - t0}'; }

# What the jobs inherit (sbatch exports the environment): the binary under test, and Open MPI as
# root on a busy 2-core machine.
export CCPDEM
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1

trap 'bash "$REPO/tests/slurm/slurm_local_stop.sh" "$W/slurm" > "$W/slurm_stop.log" 2>&1 || cat "$W/slurm_stop.log"' EXIT
if ! bash "$REPO/tests/slurm/slurm_local.sh" "$W/slurm" > "$W/slurm_start.log" 2>&1; then
  cat "$W/slurm_start.log"
  echo "FAIL: the private SLURM did not start (see above)"
  exit 1
fi
tail -n 1 "$W/slurm_start.log"
. "$W/slurm/env.sh"

sed -e "s/end: 0.4/end: $(awk "BEGIN {print $STEPS * 0.002}")/" \
    -e 's/max_iterations: 40, tolerance: 1.0e-5/max_iterations: 300, tolerance: 1.0e-12/' \
    "$REPO/tests/restart/pile.yaml" > "$W/pile.yaml"
OPTS=(-checkpoint_every_steps 15 -checkpoint_keep 3)
SBATCH_OPTS=(--ntasks=2 --time=5)

t0=$(date +%s.%N)
mpiexec --oversubscribe --allow-run-as-root -n 2 "$CCPDEM" run "$W/pile.yaml" -o "$W/ref" > "$W/ref.log" 2>&1 ||
  { fail "reference run failed: $(tail -3 "$W/ref.log")"; exit 1; }
echo "1. reference: $STEPS steps on 2 ranks in $(since "$t0") s, $(ls "$W"/ref/snapshots | wc -l) snapshots"

rows() { tail -n +2 "$1/timeseries.csv" 2> /dev/null | wc -l; }
# job_field JOB NAME: a field of `scontrol show job` (kept MinJobAge s after the end: no sacct here)
job_field() { scontrol show job -o "$1" 2> /dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# ranks JOB: the pids of the job's ccpdem processes (its MPI ranks)
ranks() {
  local p
  for p in $(scontrol listpids "$1" 2> /dev/null | awk '$1 ~ /^[0-9]+$/ {print $1}'); do
    if [ "$(readlink "/proc/$p/exe" 2> /dev/null)" = "$(readlink -f "$CCPDEM")" ]; then echo "$p"; fi
  done
}

# usr1_pending PID: whether SIGUSR1 (bit 9) waits in PID's pending set (/proc/PID/status ShdPnd)
usr1_pending() {
  local mask
  mask=$(awk '$1 == "ShdPnd:" {print $2}' "/proc/$1/status" 2> /dev/null)
  [ -n "$mask" ] && (( (0x$mask >> 9) & 1 ))
}

# interrupt JOB OUT: USR1 to the job's batch shell only, as SLURM's --signal=B:USR1 does before a
# time limit, landing mid-run whatever the machine's speed. Handshakes, no timing: once ccpdem has
# written STOP_AFTER rows (stepping, past the periodic checkpoints of steps 15 and 30: the restart
# must take the newest, the stop's), its ranks are paused (SIGSTOP); USR1 goes to the batch shell,
# which forwards it through the launcher; once every rank has it pending, the ranks continue and
# stop after their step.
STOP_AFTER=30
interrupt() {
  local n=0 t0=$SECONDS pids p st
  while :; do
    n=$(rows "$2")
    [ "$n" -ge $STOP_AFTER ] && pids=$(ranks "$1") && [ -n "$pids" ] && break
    st=$(job_field "$1" JobState)
    case $st in
      PENDING | RUNNING | CONFIGURING) ;;
      *) fail "job $1 ended ($st) after $n steps, before it was interrupted"; return 1 ;;
    esac
    [ $((SECONDS - t0)) -lt 300 ] || { fail "job $1: $n steps after 300 s, no interruption"; return 1; }
    sleep 0.05
  done
  kill -STOP $pids
  n=$(rows "$2")
  [ "$n" -lt "$STEPS" ] || { kill -CONT $pids; fail "job $1 had done all $n steps when it was paused"; return 1; }
  scancel --signal=USR1 --batch "$1" || fail "scancel --signal=USR1 --batch $1 failed"
  t0=$SECONDS
  for p in $pids; do
    until usr1_pending "$p" || [ $((SECONDS - t0)) -ge 60 ]; do sleep 0.05; done
    usr1_pending "$p" || fail "job $1: USR1 did not reach rank process $p within 60 s"
  done
  kill -CONT $pids
  echo "  USR1 to job $1 after $n steps (ranks $(echo $pids) paused until it reached them)"
}

# wait_jobs JOB...: poll every 0.2 s until every job has ended (at most 400 s). A job held after its requeue
# (Reason=BeginTime, ~2 min) is released with StartTime=now, which also makes SLURM schedule at once
# (a begin time merely passing does not), but only from the second after the hold was first seen:
# slurmd refuses a launch credential from the same second as the revocation of the job's previous
# run ("Job credential revoked", and the job FAILS).
wait_jobs() {
  local j st left t0=$SECONDS
  local -A held=()
  while [ $((SECONDS - t0)) -lt 400 ]; do
    left=0
    for j in "$@"; do
      st=$(job_field "$j" JobState)
      case $st in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE | PREEMPTED) continue ;; esac
      left=1
      if [ "$st" = PENDING ] && [ "$(job_field "$j" Reason)" = BeginTime ]; then
        : "${held[$j]:=$SECONDS}"
        [ $((SECONDS - held[$j])) -ge 2 ] && scontrol update jobid="$j" StartTime=now
      fi
    done
    [ $left -eq 0 ] && return 0
    sleep 0.2
  done
  fail "jobs $* still not finished after 400 s: $(squeue -h -j "$(echo "$@" | tr ' ' ,)" -o '%i %T %r')"
}

ended_ok() { # JOB: COMPLETED with exit code 0:0
  [ "$(job_field "$1" JobState) $(job_field "$1" ExitCode)" = "COMPLETED 0:0" ] ||
    fail "job $1 ended $(job_field "$1" JobState) with exit code $(job_field "$1" ExitCode): $(tail -5 "$2")"
}

expect_log() { # LOG TEXT WHAT: LOG has TEXT
  grep -qF -- "$2" "$1" || fail "$3: '$2' missing from $1"
}

# same_as_ref OUT: all snapshots byte-identical to the reference's, each step once in the series.
same_as_ref() {
  local f n=0
  for f in "$W"/ref/snapshots/snap-*.h5; do
    cmp -s "$f" "$1/snapshots/$(basename "$f")" && n=$((n + 1)) || fail "$1/snapshots/$(basename "$f") differs from the reference (or is missing)"
  done
  [ "$(ls "$1"/snapshots | wc -l)" -eq "$(ls "$W"/ref/snapshots | wc -l)" ] || fail "$1: $(ls "$1"/snapshots | wc -l) snapshots, the reference has $(ls "$W"/ref/snapshots | wc -l)"
  [ "$(tail -n +2 "$1/timeseries.csv" | cut -d, -f1 | tr '\n' ' ')" = "$(seq 1 $STEPS | tr '\n' ' ')" ] ||
    fail "$1/timeseries.csv: steps are not 1..$STEPS once each ($(rows "$1") rows)"
  echo "  $n snapshots byte-identical to the reference's; timeseries.csv has steps 1..$STEPS once each"
}

# stop_step LOG: the step ccpdem checkpointed at when stopped ("checkpointed step N")
stop_step() { sed -n 's/.*stop requested.*checkpointed step \([0-9]*\).*/\1/p' "$1" | head -n 1; }

echo "2. 2-job chain:"
t0=$(date +%s.%N)
ids=$(CCPDEM_SBATCH_OPTS="${SBATCH_OPTS[*]}" bash "$REPO/jobs/slurm/chain.sh" 2 "$W/pile.yaml" "$W/chain" "${OPTS[@]}" 2> "$W/chain_submit.log")
read -r j1 j2 <<< "${ids//$'\n'/ }"
if [ -z "${j2:-}" ]; then
  fail "chain.sh did not print 2 job ids: '$ids' $(cat "$W/chain_submit.log")"
else
  echo "  chain.sh submitted jobs $j1 and $j2"
  interrupt "$j1" "$W/chain"
  wait_jobs "$j1" "$j2"
  L1=$W/chain/slurm-$j1.out L2=$W/chain/slurm-$j2.out
  ended_ok "$j1" "$L1"
  ended_ok "$j2" "$L2"
  s=$(stop_step "$L1")
  [ -n "$s" ] && [ "$s" -lt $STEPS ] || fail "job $j1 was not stopped mid-run by the signal: $(tail -5 "$L1")"
  expect_log "$L1" "got SIGUSR1" "job $j1"
  expect_log "$L1" "chain mode: exit 0" "job $j1"
  expect_log "$L2" "ccpdem restart $W/chain/checkpoints/ckpt-$(printf %06d "${s:-0}").h5" "job $j2"
  expect_log "$L2" "finished the run (exit 0)" "job $j2"
  echo "  job $j1 checkpointed at step ${s:-?} on USR1 and exited 0; job $j2 restarted from it and finished; both COMPLETED 0:0 ($(since "$t0") s)"
  echo "  launcher: $(grep -h '^launch:' "$L1" | head -n 1)"
  same_as_ref "$W/chain"
fi

echo "3. requeue of a single job:"
t0=$(date +%s.%N)
mkdir -p "$W/single"
j=$(sbatch --parsable "${SBATCH_OPTS[@]}" --output="$W/single/slurm-%j.out" --export=ALL,CCPDEM_LAUNCHER=mpirun \
      "$REPO/jobs/slurm/run.sbatch" "$W/pile.yaml" "$W/single" "${OPTS[@]}" 2>&1)
if ! [[ $j =~ ^[0-9]+$ ]]; then
  fail "sbatch run.sbatch failed: $j"
else
  L=$W/single/slurm-$j.out
  interrupt "$j" "$W/single"
  wait_jobs "$j"
  ended_ok "$j" "$L"
  s=$(stop_step "$L")
  [ -n "$s" ] && [ "$s" -lt $STEPS ] || fail "job $j was not stopped mid-run by the signal: $(tail -5 "$L")"
  [ "$(job_field "$j" Restarts)" = 1 ] || fail "job $j: Restarts=$(job_field "$j" Restarts), expected 1"
  expect_log "$L" "requeued job $j" "job $j"
  expect_log "$L" "ccpdem restart $W/single/checkpoints/ckpt-$(printf %06d "${s:-0}").h5" "job $j"
  expect_log "$L" "launch: mpirun" "job $j"
  echo "  job $j checkpointed at step ${s:-?}, requeued itself, ran again from that checkpoint and finished (Restarts=1, COMPLETED 0:0, $(since "$t0") s)"
  same_as_ref "$W/single"
fi

echo "4. weak scaling study submitted with --slurm:"
t0=$(date +%s.%N)
study=$(bash "$REPO/jobs/scaling/weak.sh" "$W/study" --ranks "1 2" --bodies 1000 --steps 6 --iterations 20 --slurm --ccpdem "$CCPDEM" 2>&1) || fail "weak.sh --slurm failed: $study"
jobs=$(echo "$study" | sed -n 's/.*job \([0-9][0-9]*\)$/\1/p' | tr '\n' ' ')
[ "$(echo "$jobs" | wc -w)" -eq 3 ] || fail "weak.sh --slurm did not submit 2 runs and a report job: $study"
wait_jobs $jobs || fail "the study's jobs did not end"
for j in $jobs; do ended_ok "$j" "$W/study/report.log"; done
[ "$(tail -n +2 "$W/study/scaling.csv" 2> /dev/null | cut -d, -f1-3 | tr '\n' ' ')" = "weak,1,1000 weak,2,2000 " ] || fail "the study's report: $(cat "$W/study/scaling.csv" "$W/study/report.log" 2>&1)"
for png in speedup efficiency phases; do [ -s "$W/study/$png.png" ] || fail "no $png.png from the report job"; done
echo "  jobs $jobs (runs at 1 and 2 ranks, then the report) COMPLETED; scaling.csv and the plots written ($(since "$t0") s)"

if [ $fails -ne 0 ]; then
  for f in "$W"/chain/slurm-*.out "$W"/single/slurm-*.out; do [ -f "$f" ] && { echo "--- $f"; cat "$f"; }; done
  echo "slurm chain: $fails check(s) FAILED"
  exit 1
fi
echo "slurm chain: all checks passed"
