#!/bin/bash
# One run, one output directory (label cli; README "Outputs"). Usage: test_output_dir.sh CCPDEM REPO WORKDIR
#  1. A run writes OUT/run.id (32 hex digits). Running again into OUT is refused: exit 2, one
#     "ccpdem: error:" line naming OUT and --overwrite, and not a byte of OUT changes (every file,
#     dot files included, compared by md5 before and after).
#  2. --overwrite into OUT with another scenario (friction 0.7 instead of 0.5, and a shorter run):
#     exit 0, a new run id, none of the old run's snapshots, checkpoints or time-series rows left,
#     snapshots.xmf listing exactly the new run's frames, and the files that are not ccpdem's (a
#     note in OUT, a file in OUT/snapshots/) still there and unchanged.
#  3. restart continues its own run: into its run directory (no -o), and with -o into a new and
#     into an existing empty directory, where run.id then holds the checkpoint's run id.
#  4. restart into another run's directory is refused (exit 2, one line naming both run ids,
#     nothing changed), so is one into a directory with run files but no run.id, and restart
#     --overwrite (an option of run only).
. "$(dirname "$0")/../script_common.sh" "$@"

cp "$REPO/tests/cli/outputs.yaml" "$W/a.yaml" # 30 steps, snapshots every 5
sed 's/friction: 0.5/friction: 0.7/; s/end: 0.06/end: 0.03/' "$W/a.yaml" > "$W/b.yaml" # 15 steps
grep -q "friction: 0.7" "$W/b.yaml" && grep -q "end: 0.03" "$W/b.yaml" || fail "the second scenario was not made"

digest() { (cd "$1" && find . -type f -exec md5sum {} + | sort); }
refused() { # what expected-text command...
  local what=$1 expect=$2 out rc; shift 2
  out=$("$@" 2>&1); rc=$?
  [ $rc -eq 2 ] || fail "$what: exit $rc, expected 2: $(echo "$out" | tail -2)"
  [ "$(echo "$out" | grep -c '^ccpdem: error:')" -eq 1 ] || fail "$what: not one error line: $out"
  echo "$out" | grep -q -- "$expect" || fail "$what: the error lacks '$expect': $out"
  echo "  refused ($what): $(echo "$out" | grep '^ccpdem: error:')"
}
run_ok() { # log command...
  local log=$1; shift
  "$@" > "$log" 2>&1 || fail "$* failed: $(tail -3 "$log")"
}
run_id() { cat "$1/run.id" 2> /dev/null; }

# 1. a used directory is refused and left as it was
run_ok "$W/a.log" "$CCPDEM" run "$W/a.yaml" -o "$W/a" -checkpoint_every_steps 10
id_a=$(run_id "$W/a")
[[ $id_a =~ ^[0-9a-f]{32}$ ]] || fail "run.id of the first run is '$id_a', not 32 hex digits"
before=$(digest "$W/a")
refused "rerun into a used directory" "output directory '$W/a' holds the files of another run.*--overwrite" \
  "$CCPDEM" run "$W/b.yaml" -o "$W/a"
refused "2 ranks, rerun into a used directory" "--overwrite" \
  mpiexec --oversubscribe --allow-run-as-root -n 2 "$CCPDEM" run "$W/b.yaml" -o "$W/a"
[ "$(digest "$W/a")" = "$before" ] || fail "a refused run changed the files of $W/a"

# 2. --overwrite: the old run's files go, nobody else's
cp -r "$W/a" "$W/a_copy" # its checkpoints, for 4.
echo "my notes" > "$W/a/notes.txt"
echo "keep me" > "$W/a/snapshots/mine.txt"
run_ok "$W/b.log" "$CCPDEM" run "$W/b.yaml" -o "$W/a" --overwrite -checkpoint_every_steps 10
id_b=$(run_id "$W/a")
[[ $id_b =~ ^[0-9a-f]{32}$ && $id_b != "$id_a" ]] || fail "--overwrite: run.id '$id_b' is not a new run id (old $id_a)"
[ "$(ls "$W/a/snapshots" | tr '\n' ' ')" = "mine.txt snap-000000.h5 snap-000005.h5 snap-000010.h5 snap-000015.h5 " ] ||
  fail "--overwrite: snapshots/ holds $(ls "$W/a/snapshots" | tr '\n' ' ')"
[ "$(ls "$W/a/checkpoints" | tr '\n' ' ')" = "ckpt-000010.h5 ckpt-000015.h5 " ] ||
  fail "--overwrite: checkpoints/ holds $(ls "$W/a/checkpoints" | tr '\n' ' ')"
[ "$(tail -n +2 "$W/a/timeseries.csv" | cut -d, -f1 | tr '\n' ' ')" = "$(seq 1 15 | tr '\n' ' ')" ] ||
  fail "--overwrite: the time series does not hold exactly steps 1..15"
frames=$(grep -o 'snapshots/snap-[0-9]*.h5:/bodies/position' "$W/a/snapshots.xmf" | tr '\n' ' ')
[ "$frames" = "snapshots/snap-000000.h5:/bodies/position snapshots/snap-000005.h5:/bodies/position snapshots/snap-000010.h5:/bodies/position snapshots/snap-000015.h5:/bodies/position " ] ||
  fail "--overwrite: snapshots.xmf lists $frames"
[ "$(cat "$W/a/notes.txt")" = "my notes" ] && [ "$(cat "$W/a/snapshots/mine.txt")" = "keep me" ] ||
  fail "--overwrite touched files that are not ccpdem's"
ls -a "$W/a" "$W/a/snapshots" "$W/a/checkpoints" | grep -q '\.tmp$' && fail "--overwrite: temporaries left"
echo "  --overwrite: run id $id_a -> $id_b, only the new run's 4 snapshots, 2 checkpoints and 15 rows; other files kept"

# 3. restart continues its own run
run_ok "$W/r1.log" "$CCPDEM" restart "$W/a_copy/checkpoints/ckpt-000020.h5" --until 0.07
[ "$(run_id "$W/a_copy")" = "$id_a" ] || fail "restart into its own directory changed run.id"
[ "$(tail -1 "$W/a_copy/timeseries.csv" | cut -d, -f1)" = 35 ] || fail "restart into its own directory did not reach step 35"
run_ok "$W/r2.log" "$CCPDEM" restart "$W/a_copy/checkpoints/ckpt-000030.h5" -o "$W/new/deeper" --until 0.07 -checkpoint_every_steps 5
[ "$(run_id "$W/new/deeper")" = "$id_a" ] || fail "restart into a new directory: run.id '$(run_id "$W/new/deeper")', not the checkpoint's $id_a"
mkdir "$W/empty"
run_ok "$W/r3.log" mpiexec --oversubscribe --allow-run-as-root -n 2 "$CCPDEM" restart "$W/a_copy/checkpoints/ckpt-000030.h5" -o "$W/empty" --until 0.07 -checkpoint_every_steps 5
[ "$(run_id "$W/empty")" = "$id_a" ] || fail "restart into an empty directory: run.id '$(run_id "$W/empty")', not $id_a"
run_ok "$W/r4.log" "$CCPDEM" restart "$W/new/deeper/checkpoints/ckpt-000035.h5" --until 0.08
echo "  restart: into its own directory, a new one and an empty one (2 ranks), and on from the new one"

# 4. restart into a foreign directory is refused, nothing changes
before=$(digest "$W/a")
refused "restart into another run's directory" "'$W/a' belongs to another run (its run.id $id_b, the checkpoint's run $id_a)" \
  "$CCPDEM" restart "$W/a_copy/checkpoints/ckpt-000030.h5" -o "$W/a" --until 0.07
refused "2 ranks, restart into another run's directory" "belongs to another run" \
  mpiexec --oversubscribe --allow-run-as-root -n 2 "$CCPDEM" restart "$W/a_copy/checkpoints/ckpt-000030.h5" -o "$W/a" --until 0.07
[ "$(digest "$W/a")" = "$before" ] || fail "a refused restart changed the files of $W/a"
rm "$W/empty/run.id"
before=$(digest "$W/empty")
refused "restart into run files without run.id" "no run.id" \
  "$CCPDEM" restart "$W/empty/checkpoints/ckpt-000035.h5" --until 0.08
[ "$(digest "$W/empty")" = "$before" ] || fail "a refused restart changed the files of $W/empty"
refused "restart --overwrite" "--overwrite is an option of run" \
  "$CCPDEM" restart "$W/a_copy/checkpoints/ckpt-000030.h5" -o "$W/a" --until 0.07 --overwrite
finish test_output_dir
