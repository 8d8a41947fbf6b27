#!/usr/bin/env bash
# Bitwise comparison of two ccpdem builds, for changes that must not move a single bit (a refactor,
# a build change): both run the same cases, and every snapshot and checkpoint is compared with
# h5diff (exact values, every dataset and attribute) and the time series without its wall-clock
# columns (wall_detect .. wall_io). Two runs differ by design in their run id: OUT/run.id is left
# out, and so are a checkpoint's run_id attribute and the checksum over it (every other attribute
# and every dataset is compared). Outputs that a build adds beside the old ones are allowed where
# listed: OUT/walls.csv and a snapshot's /walls group (the walls and their loads, README
# "Outputs"); every file and group the base build wrote must still be identical.
#
#   bash jobs/compare_builds.sh BASE/ccpdem NEW/ccpdem [WORKDIR]      (exit 0: all cases identical)
#
# Cases (each run by both builds with the same arguments):
#   main      the main job: the embedded default scenario on 2 ranks, checkpoints every 200 steps
#   restart   tests/restart/pile.yaml on 2 ranks to its end, then restarted from its step-100
#             checkpoint into a second directory
#   penalty   tests/restart/penalty_pour.yaml (contact.model penalty) on 2 ranks, checkpoints
#   joints    tests/restart/joints.yaml (every joint type) on 1 rank, checkpoints
#   ranks4    tests/restart/pour.yaml (emitters) on 4 ranks (oversubscribed), checkpoints
set -uo pipefail
base=${1:?usage: compare_builds.sh BASE_CCPDEM NEW_CCPDEM [WORKDIR]}
new=${2:?usage: compare_builds.sh BASE_CCPDEM NEW_CCPDEM [WORKDIR]}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${3:-$(mktemp -d)}
rm -rf "$work" && mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
failed=0

run() { # executable ranks arguments...: one mpiexec of that build
  local exe=$1 np=$2; shift 2
  mpiexec --oversubscribe -n "$np" "$exe" "$@"
}

# one case, both builds: case-name ranks ccpdem-arguments... (-o is added: WORK/<build>/<case>)
one() {
  local name=$1 np=$2; shift 2
  for tag in base new; do
    local exe=$base; [ $tag = new ] && exe=$new
    mkdir -p "$work/$tag"
    run "$exe" "$np" "$@" -o "$work/$tag/$name" > "$work/$tag/$name.log" 2>&1 || { echo "$name: the $tag build failed: $(tail -2 "$work/$tag/$name.log")"; failed=1; }
  done
}

restart_case() { # pile.yaml to its end, then restarted from step 100 into restart2
  one restart 2 run "$repo/tests/restart/pile.yaml" -checkpoint_every_steps 50 -checkpoint_keep 10
  for tag in base new; do
    local exe=$base; [ $tag = new ] && exe=$new
    run "$exe" 2 restart "$work/$tag/restart/checkpoints/ckpt-000100.h5" -o "$work/$tag/restart2" > "$work/$tag/restart2.log" 2>&1 || { echo "restart2: the $tag build failed"; failed=1; }
  done
}

root_attributes() { h5dump -A "$1" 2> /dev/null | sed -n 's/^   ATTRIBUTE "\(.*\)" {$/\1/p'; }

groups() { h5ls "$1" | awk '{print $1}'; }

same_h5() { # two HDF5 files hold the same; checkpoints but for their run_id and checksum; snapshots but for
  # a /walls group that only the new one has
  local a=$1 b=$2 names g n
  names=$(root_attributes "$a")
  [ "$names" = "$(root_attributes "$b")" ] || return 1
  if echo "$names" | grep -qx ccpdem_checkpoint_version; then
    [ "$(groups "$a")" = "$(groups "$b")" ] || return 1
  else
    [ "$(groups "$a")" = "$(groups "$b" | if groups "$a" | grep -qx walls; then cat; else grep -vx walls; fi)" ] || return 1
  fi
  for g in $(groups "$a"); do h5diff -q "$a" "$b" "/$g" "/$g" > /dev/null 2>&1 || return 1; done
  for n in $names; do
    case $n in run_id | checksum) continue ;; esac
    [ "$(h5dump -a "/$n" "$a" | tail -n +2)" = "$(h5dump -a "/$n" "$b" | tail -n +2)" ] || return 1
  done
}

compare() { # the outputs of case $1 of both builds
  local name=$1 a=$work/base/$1 b=$work/new/$1 n=0 bad=0
  if [ "$(cd "$a" && find . -type f ! -name run.id | sort)" != "$(cd "$b" && find . -type f ! -name run.id | sort | if [ -e "$a/walls.csv" ]; then cat; else grep -vx ./walls.csv; fi)" ]; then
    echo "$name: the builds wrote different files"; failed=1; return
  fi
  for f in $(cd "$a" && find . -name '*.h5' | sort); do
    n=$((n + 1))
    same_h5 "$a/$f" "$b/$f" || { echo "$name: $f differs"; bad=1; }
  done
  # the time series without the wall-clock columns (named wall_*)
  local cols
  cols=$(head -1 "$a/timeseries.csv" | tr ',' '\n' | grep -vn '^wall_' | cut -d: -f1 | paste -sd,)
  cmp -s <(cut -d, -f"$cols" "$a/timeseries.csv") <(cut -d, -f"$cols" "$b/timeseries.csv") || { echo "$name: timeseries.csv differs"; bad=1; }
  [ $bad = 0 ] && echo "$name: identical ($n HDF5 files, $(($(wc -l < "$a/timeseries.csv") - 1)) time-series rows)"
  [ $bad = 0 ] || failed=1
}

one main 2 run -checkpoint_every_steps 200
compare main
restart_case
compare restart
compare restart2
one penalty 2 run "$repo/tests/restart/penalty_pour.yaml" -checkpoint_every_steps 100
compare penalty
one joints 1 run "$repo/tests/restart/joints.yaml" -checkpoint_every_steps 50
compare joints
one ranks4 4 run "$repo/tests/restart/pour.yaml" -checkpoint_every_steps 50
compare ranks4
[ $failed = 0 ] && echo "all cases bitwise identical ($work)" || echo "DIFFERENCES ($work)"
exit $failed
