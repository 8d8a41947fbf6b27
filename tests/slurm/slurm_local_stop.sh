#!/usr/bin/env bash
# Stop the private SLURM that slurm_local.sh started under DIR: cancel its jobs (so no job
# process outlives slurmd), then stop slurmd, slurmctld and munged by the PIDs in DIR's pid files
# only (never by name: other SLURM or munge daemons on this host are left alone).
#   Usage: slurm_local_stop.sh DIR      Exit 0 when none of the three is left running.
set -uo pipefail
D=${1:?usage: slurm_local_stop.sh DIR}
export SLURM_CONF=$D/slurm.conf
log() { echo "slurm_local_stop: $*"; }

# alive PIDFILE NAME: the recorded process exists and is NAME (a stale pid file whose pid was
# reused by an unrelated process must not get it killed).
alive() {
  local pid
  pid=$(cat "$1" 2> /dev/null) && [ -n "$pid" ] && kill -0 "$pid" 2> /dev/null &&
    [ "$(cat "/proc/$pid/comm" 2> /dev/null)" = "$2" ]
}

# stop PIDFILE NAME: SIGTERM, up to 10 s to exit, then SIGKILL.
stop() {
  local pid
  alive "$1" "$2" || return 0
  pid=$(cat "$1")
  kill -TERM "$pid" 2> /dev/null
  for _ in $(seq 1 100); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2> /dev/null; then
    log "$2 ($pid) ignored SIGTERM: SIGKILL"
    kill -KILL "$pid" 2> /dev/null
    sleep 0.2
  fi
  log "$2 ($pid) stopped"
}

if [ -f "$SLURM_CONF" ] && alive "$D/run/slurmctld.pid" slurmctld; then
  jobs=$(squeue -h -o %i 2> /dev/null | tr '\n' ' ')
  if [ -n "${jobs// /}" ]; then
    log "cancelling jobs $jobs"
    # shellcheck disable=SC2086 # a list of job ids
    scancel $jobs 2> /dev/null
    for _ in $(seq 1 150); do
      [ -z "$(squeue -h -t PD,R,CG,RQ,S -o %i 2> /dev/null)" ] && break
      sleep 0.2
    done
  fi
fi
left=0
for daemon in "run/slurmd.pid slurmd" "run/slurmctld.pid slurmctld" "munge/munged.pid munged"; do
  read -r pidfile name <<< "$daemon"
  stop "$D/$pidfile" "$name"
  alive "$D/$pidfile" "$name" && { log "$name still running"; left=1; }
done
# munged's socket directory (slurm_local.sh made it outside DIR): only a name it would have made
sockdir=$(cat "$D/munge/socket_dir" 2> /dev/null)
case $sockdir in
  /run/ccpdem-munge.* | /tmp/ccpdem-munge.* | /dev/shm/ccpdem-munge.*)
    alive "$D/munge/munged.pid" munged || rm -rf -- "$sockdir" ;;
esac
exit $left
