#!/bin/bash
# Planted symbolic links are never followed (label cli; README "Outputs"). Usage: test_output_symlinks.sh CCPDEM REPO WORKDIR
# A victim directory V outside OUT holds files with known contents; links to them, and dangling
# links to names in V, are planted where ccpdem writes. Whatever ccpdem writes, every victim file
# keeps its bytes, no dangling target is created, and nothing else appears in V (checked by
# listing and md5, the victim check; no strace needed: a write through a link would change a
# victim or create a target).
#  1. run: links at the fixed temporary names of earlier versions, OUT/.timeseries.csv.tmp and
#     OUT/.snapshots.xmf.tmp (real files there would have been overwritten), and at OUT/.run.id.tmp.
#  2. restart into its own directory: links at the fixed temporary names of the snapshots and
#     checkpoints it writes (.snap-NNNNNN.h5.tmp, .ckpt-NNNNNN.h5.tmp), and in place of a snapshot
#     and a checkpoint it rewrites (the rename replaces the link, which becomes a file of its own);
#     temporaries of killed writers (regular files with the names of today's and of earlier
#     versions) are removed when the restart claims the directory.
#  3. run --overwrite into a directory whose snapshots/ is a link to a directory of V and whose
#     timeseries.csv is a link to a victim: the links are removed, not what they point to.
# Unique temporary names (pid and 64 random bits) cannot be planted in advance; that they are
# created exclusively (O_CREAT|O_EXCL|O_NOFOLLOW, H5F_ACC_EXCL) is tested in unit/test_output_file.
. "$(dirname "$0")/../script_common.sh" "$@"
V=$W/victim
mkdir -p "$V/dir"
for f in ts xmf snap ckpt final_snap final_ckpt ts2 dir/snap-000000.h5; do echo "victim $f, not to be touched" > "$V/$f"; done
victims() { (cd "$V" && find . -exec ls -ld --time-style=+ {} + | awk '{print $1, $5, $NF}' | sort; find . -type f -exec md5sum {} + | sort); }
before=$(victims)
cp "$REPO/tests/cli/outputs.yaml" "$W/s.yaml" # 30 steps, snapshots every 5
run_ok() { # log command...
  local log=$1; shift
  "$@" > "$log" 2>&1 || fail "$* failed: $(tail -3 "$log")"
}
O=$W/out

# 1. run
mkdir -p "$O"
ln -s "$V/ts" "$O/.timeseries.csv.tmp"
ln -s "$V/xmf" "$O/.snapshots.xmf.tmp"
ln -s "$V/ghost_id" "$O/.run.id.tmp"
run_ok "$W/run.log" "$CCPDEM" run "$W/s.yaml" -o "$O" -checkpoint_every_steps 10 -checkpoint_keep 5
[ "$(victims)" = "$before" ] || fail "run: a victim file outside OUT changed or appeared: $(diff <(echo "$before") <(victims))"
[ -f "$O/timeseries.csv" ] && [ ! -L "$O/timeseries.csv" ] && [ "$(wc -l < "$O/timeseries.csv")" = 31 ] || fail "run: no time series of 30 rows"
echo "  run: links at the old temporary names of the time series, the index and run.id not followed"

# 2. restart into its own directory from step 10
for s in 15 20 25 30; do ln -s "$V/snap" "$O/snapshots/.snap-0000$s.h5.tmp"; done
for s in 20 30; do ln -s "$V/ghost_ckpt$s" "$O/checkpoints/.ckpt-0000$s.h5.tmp"; done
rm "$O/snapshots/snap-000020.h5" "$O/checkpoints/ckpt-000030.h5"
ln -s "$V/final_snap" "$O/snapshots/snap-000020.h5"
ln -s "$V/final_ckpt" "$O/checkpoints/ckpt-000030.h5"
echo partial > "$O/snapshots/.snap-000025.h5.4242-0123456789abcdef.tmp"
echo partial > "$O/checkpoints/.ckpt-000040.h5.tmp"
echo partial > "$O/.timeseries.csv.77-fedcba9876543210.tmp"
run_ok "$W/restart.log" "$CCPDEM" restart "$O/checkpoints/ckpt-000010.h5" -checkpoint_every_steps 10 -checkpoint_keep 5
[ "$(victims)" = "$before" ] || fail "restart: a victim file outside OUT changed or appeared: $(diff <(echo "$before") <(victims))"
for f in snapshots/snap-000020.h5 checkpoints/ckpt-000030.h5; do
  [ -f "$O/$f" ] && [ ! -L "$O/$f" ] || fail "restart: $f is not a file of its own"
done
h5dump -a /step "$O/snapshots/snap-000020.h5" 2> /dev/null | grep -q "(0): 20" || fail "restart: snap-000020.h5 is not the snapshot of step 20"
left=$(cd "$O" && find . -name '.*.tmp' | sort | tr '\n' ' ')
[ -z "$left" ] || fail "restart: temporaries left: $left"
echo "  restart: links at old temporary names and at final names not followed; killed writers' temporaries removed"

# 3. --overwrite removes links, not their targets
ln -s "$V/dir" "$W/out3_snapshots"
mkdir -p "$W/out3"
mv "$W/out3_snapshots" "$W/out3/snapshots"
ln -s "$V/ts2" "$W/out3/timeseries.csv"
run_ok "$W/over.log" "$CCPDEM" run "$W/s.yaml" -o "$W/out3" --overwrite
[ "$(victims)" = "$before" ] || fail "--overwrite: a victim file outside OUT changed or went: $(diff <(echo "$before") <(victims))"
[ -d "$W/out3/snapshots" ] && [ ! -L "$W/out3/snapshots" ] && [ -f "$W/out3/snapshots/snap-000030.h5" ] ||
  fail "--overwrite: snapshots/ is not a directory of its own with the new snapshots"
echo "  --overwrite: links at snapshots/ and timeseries.csv removed, their targets untouched"
finish test_output_symlinks
