#!/usr/bin/env bash
# Start a private single-node SLURM on localhost (munged + slurmctld + slurmd, as root, no systemd)
# whose every file lives under DIR but munged's socket (a directory of its own below /run or /tmp,
# so that DIR may lie anywhere, also below a 0700 directory), for the batch tests (label slurm).
#   Usage: slurm_local.sh DIR      then: source DIR/env.sh (sets SLURM_CONF); stop: slurm_local_stop.sh DIR
# Knobs: SLURM_LOCAL_CTLD_PORT / SLURM_LOCAL_SLURMD_PORT (default: the first free pair of 16817 /
# 16818, 16819 / 16820, ... 16835 / 16836, so two test suites on one host each get their own; not the
# standard 6817 / 6818, so a system SLURM on this host is not disturbed, and below the ephemeral
# port range),
# SLURM_LOCAL_EXTRA_CONF (lines appended to slurm.conf), SLURM_LOCAL_TIMEOUT (s until idle, 30).
# Exits non-zero, with the reason and the daemon's log tail, when a daemon does not come up.
set -uo pipefail
D=${1:?usage: slurm_local.sh DIR}
TIMEOUT=${SLURM_LOCAL_TIMEOUT:-30}
T0=$(date +%s%N)
log() { echo "slurm_local: $*"; }
die() { echo "slurm_local: ERROR: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (slurmd launches the jobs)"
for b in munged munge unmunge slurmctld slurmd scontrol sinfo sbatch; do
  command -v "$b" > /dev/null || die "$b not found (apt-get install munge slurmctld slurmd slurm-client)"
done
for pf in "$D/munge/munged.pid" "$D/run/slurmctld.pid" "$D/run/slurmd.pid"; do
  [ -s "$pf" ] && kill -0 "$(cat "$pf")" 2> /dev/null && die "$pf: pid $(cat "$pf") still alive: run slurm_local_stop.sh $D first"
done
# A port in use (a system SLURM, or another private one) would only show later in a daemon's log.
in_use() { (: <> "/dev/tcp/127.0.0.1/$1") 2> /dev/null; }
if [ -n "${SLURM_LOCAL_CTLD_PORT:-}${SLURM_LOCAL_SLURMD_PORT:-}" ]; then
  CTLD_PORT=${SLURM_LOCAL_CTLD_PORT:-16817}
  SLURMD_PORT=${SLURM_LOCAL_SLURMD_PORT:-$((CTLD_PORT + 1))}
  for port in "$CTLD_PORT" "$SLURMD_PORT"; do
    in_use "$port" && die "port $port is in use (another SLURM?): choose free ones with SLURM_LOCAL_CTLD_PORT / SLURM_LOCAL_SLURMD_PORT"
  done
else
  CTLD_PORT=""
  for p in $(seq 16817 2 16835); do
    in_use "$p" || in_use $((p + 1)) || { CTLD_PORT=$p; break; }
  done
  [ -n "$CTLD_PORT" ] || die "ports 16817-16836 are all in use (other SLURMs?): choose free ones with SLURM_LOCAL_CTLD_PORT / SLURM_LOCAL_SLURMD_PORT"
  SLURMD_PORT=$((CTLD_PORT + 1))
fi

# Remove only what this script creates (never "rm -rf DIR": DIR comes from the caller); a wiped
# StateSaveLocation means no jobs of an earlier cluster come back.
mkdir -p "$D" || die "cannot create $D"
D=$(cd "$D" && pwd)
rm -rf "$D"/munge "$D"/state "$D"/spool "$D"/log "$D"/run "$D"/slurm.conf "$D"/env.sh
mkdir -p "$D"/munge "$D"/state "$D"/spool "$D"/log "$D"/run
# munged refuses a socket directory that is not a+x, and a key that is not 0600.
chmod 755 "$D" "$D/munge"

# start NAME PIDFILE LOGFILE COMMAND...: run a daemon that forks itself into the background; it must
# exit 0 and leave a pid file naming a live process, else print why (its log tail) and give up.
start() {
  local name=$1 pf=$2 lf=$3 pid
  shift 3
  if "$@" 2>> "$lf"; then
    for _ in $(seq 1 50); do
      pid=$(cat "$pf" 2> /dev/null)
      [ -n "$pid" ] && kill -0 "$pid" 2> /dev/null && return 0
      sleep 0.1
    done
  fi
  echo "slurm_local: $name is not running; last lines of $lf:" >&2
  tail -n 15 "$lf" >&2 2> /dev/null
  die "$name did not start"
}

# munge with a private key and socket: nothing from /etc/munge or /run/munge is used. munged
# refuses a socket unless every directory above it is executable by all, which a checkout below a
# 0700 directory (/root, mktemp -d) is not: so the socket gets a directory of its own, made here
# below the first of /run, /tmp, /dev/shm whose ancestors all allow that, and recorded for the stop
# script (slurm_local_stop.sh removes it).
all_can_enter() { # DIR: every directory from DIR up to / has o+x
  local d=$1
  while :; do
    [ -d "$d" ] && [ -n "$(find "$d" -maxdepth 0 -perm -o+x)" ] || return 1
    [ "$d" = / ] && return 0
    d=$(dirname "$d")
  done
}
SOCKDIR=""
for base in /run /tmp /dev/shm; do
  all_can_enter "$base" && [ -w "$base" ] && SOCKDIR=$(mktemp -d "$base/ccpdem-munge.XXXXXX" 2> /dev/null) && break
done
[ -n "$SOCKDIR" ] || die "no directory for munged's socket: /run, /tmp and /dev/shm are not writable or not open to all"
chmod 755 "$SOCKDIR"
echo "$SOCKDIR" > "$D/munge/socket_dir"
SOCK=$SOCKDIR/munge.socket
dd if=/dev/urandom of="$D/munge/munge.key" bs=1024 count=1 status=none && chmod 600 "$D/munge/munge.key"
start munged "$D/munge/munged.pid" "$D/munge/munged.log" munged --socket="$SOCK" \
  --key-file="$D/munge/munge.key" --log-file="$D/munge/munged.log" \
  --pid-file="$D/munge/munged.pid" --seed-file="$D/munge/munged.seed"
munge -n -S "$SOCK" | unmunge -S "$SOCK" > /dev/null || die "munge self-test through $SOCK failed"

# The hardware line of `slurmd -C` without its NodeName: the node is called localhost (slurmd -N).
HW=$(slurmd -C 2> /dev/null | head -1 | sed -n 's/^NodeName=[^ ]* //p')
[ -n "$HW" ] || die "cannot read the hardware from 'slurmd -C'"
cat > "$D/slurm.conf" << EOF
# Private single-node cluster written by tests/slurm/slurm_local.sh
ClusterName=ccpdemci
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
AuthType=auth/munge
AuthInfo=socket=$SOCK
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
# no cgroups and no systemd in a container
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# no slurmdbd (so no sacct): one text line per finished job instead
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$D/log/jobcomp.txt
# plain "srun app" of an Open MPI program needs PMIx
MpiDefault=pmix
MailProg=/bin/true
ReturnToService=2
# start jobs (and release dependent jobs) at once instead of after the default 3 s delays
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
# cancel a job whose dependency failed rather than leave it pending for ever (22.05: not in
# SchedulerParameters)
DependencyParameters=kill_invalid_depend
# finished jobs stay visible to scontrol/squeue for 5 minutes (the tests read their exit codes)
MinJobAge=300
NodeName=localhost $HW State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
${SLURM_LOCAL_EXTRA_CONF:-}
EOF
export SLURM_CONF=$D/slurm.conf
echo "export SLURM_CONF=$SLURM_CONF" > "$D/env.sh"

# A bad config or a busy port shows in their logs. slurmd is told which node it is: the host is
# not called localhost.
start slurmctld "$D/run/slurmctld.pid" "$D/log/slurmctld.log" slurmctld -f "$SLURM_CONF"
start slurmd "$D/run/slurmd.pid" "$D/log/slurmd.log" slurmd -f "$SLURM_CONF" -N localhost

st=
for _ in $(seq 1 $((TIMEOUT * 10))); do
  st=$(sinfo -h -n localhost -o %T 2> /dev/null)
  [ "$st" = idle ] && break
  sleep 0.1
done
if [ "$st" != idle ]; then
  tail -n 10 "$D/log/slurmctld.log" "$D/log/slurmd.log" >&2
  die "node not idle after ${TIMEOUT}s (state '$st')"
fi
log "up in $((($(date +%s%N) - T0) / 1000000)) ms: munged $(cat "$D/munge/munged.pid"), slurmctld $(cat "$D/run/slurmctld.pid"), slurmd $(cat "$D/run/slurmd.pid"); ports $CTLD_PORT/$SLURMD_PORT; source $D/env.sh"
