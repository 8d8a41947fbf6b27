#!/bin/bash
# Plastic contact memory across a restart (label restart). Usage: plasticity_bitwise.sh CCPDEM WORKDIR
# A run of plasticity.yaml (a sphere pressed into an elasto-plastic plane, released at 0.1 s)
# checkpointed at step 60, while the contact yields; the checkpoint must hold the contact's plastic
# displacement (the 7th column of /contacts/impulse, between 0.2 and 0.8 mm at that point of the loading: yield starts at
# 0.2 mm, the final dent is 0.8 mm), and the restart from it writes snapshots byte-identical to the
# uninterrupted run's, including those after the release (steps 100-200), where the sphere rests
# in its dent: had the restart lost the plastic displacement, the spring would push the sphere
# back out to an overlap of m g / K = 0.01 mm instead of 0.81 mm, and those snapshots would differ.
# The same run and restart on 2 ranks (the contact's memory is then read back and routed to the
# owner of its body by id) must agree byte for byte too.
. "$(dirname "$0")/restart_common.bash" "$@"
"$CCPDEM" run "$HERE/plasticity.yaml" -o "$W/a" -checkpoint_every_steps 60 -checkpoint_keep 5 > "$W/a.log" 2>&1 || fail "run failed: $(tail -3 "$W/a.log")"
ckpt="$W/a/checkpoints/ckpt-000060.h5"
plastic=$(h5dump -d /contacts/impulse -y -w 0 "$ckpt" 2>/dev/null | sed -n '/DATA {/,/}/p' | tr -d ' \n' | sed 's/DATA{//; s/}//' | tr ',' '\n' | awk 'NR % 7 == 0' | sort -g | tail -1)
echo "largest plastic displacement in $ckpt: ${plastic:-none} m"
awk -v p="${plastic:-0}" 'BEGIN { exit !(p > 2e-4 && p < 8e-4) }' || fail "the checkpoint should hold a plastic displacement between 2e-4 and 8e-4 m, got '${plastic:-none}'"
"$CCPDEM" restart "$ckpt" -o "$W/r" > "$W/r.log" 2>&1 || fail "restart failed: $(tail -3 "$W/r.log")"
compare_snapshots_after "$W/a" "$W/r" 60 6
$MPI -n 2 "$CCPDEM" run "$HERE/plasticity.yaml" -o "$W/a2" -checkpoint_every_steps 60 -checkpoint_keep 5 > "$W/a2.log" 2>&1 || fail "2-rank run failed: $(tail -3 "$W/a2.log")"
$MPI -n 2 "$CCPDEM" restart "$W/a2/checkpoints/ckpt-000060.h5" -o "$W/r2" > "$W/r2.log" 2>&1 || fail "2-rank restart failed: $(tail -3 "$W/r2.log")"
compare_snapshots_after "$W/a2" "$W/r2" 60 6
[ "$fails" -eq 0 ] && echo "plasticity restart: all checks passed"
exit $((fails > 0))
