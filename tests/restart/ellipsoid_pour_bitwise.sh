#!/bin/bash
# Many ellipsoids across a restart (label restart). Usage: ellipsoid_pour_bitwise.sh CCPDEM WORKDIR
# ellipsoid_pour.yaml (CCP: ellipsoids of two shapes and spheres poured by three emitters into a cylinder-wall
# drum on a mesh floor, 200 steps) and ellipsoid_pour_penalty.yaml (the same walls and bodies under the
# penalty model, 400 steps) are run straight through with checkpoints every 100 (CCP) or 200 (penalty) steps,
# on 1 and on 2 ranks; the first checkpoint falls in the middle of the emission. A restart from it on the same
# rank count must write snapshots byte-identical to the straight run's and an identical last checkpoint: the
# semi-axes, the emitters' counts and orientation streams, the warm-start impulses and the penalty model's
# slide, roll and spin history of ellipsoid contacts came back exactly. At the checkpoint's step the snapshot's
# contact list must hold ellipsoid-ellipsoid, ellipsoid-sphere, ellipsoid-drum (wall 0, id -1) and
# ellipsoid-floor (wall 1, the mesh, id -2) contacts, so each kind's state goes through the restart.
# The 1-rank checkpoint restarted on 2 ranks (any-rank restart) must end with the same bodies (ids, shapes and
# semi-axes exactly) and:
#  - CCP: every position within 1e-5 m of the straight 1-rank run's, quaternion within 1e-3, velocity within
#    1e-4 m/s (angular rates times the largest semi-axis, 12 mm). Tolerance: every solve converges to 1e-6 m/s
#    (the compliance keeps the jammed steps solvable; the script checks that no step stalled) and the two runs
#    sum in another order, so velocities part by about 1e-6 m/s per step; two solutions of a jammed pile
#    within the tolerance differ by up to 20 times that (tests/validation/test_distributed_pour.c): 2e-5 m/s,
#    within 1e-4 m/s (a hundred times the tolerance, that test's momentum bound). Over the 100 steps of 1 ms
#    after the restart that is at most 2e-6 m, within 1e-5 m; the quaternion bound, 1e-3 (a turn of 2e-3 rad,
#    1e-5 m over the 5 mm semi-axes), is clump_emitter_bitwise.sh's. Measured: 2e-9 m, 3e-7, 9e-7 m/s. An
#    ellipsoid emitted after the restart elsewhere or turned otherwise (the emitters' state lost) is off by
#    centimetres and by order 1, one with other semi-axes fails the exact check.
#  - penalty: the same bits. Its loads are summed in contact-key order on any rank count (design.md, "Penalty
#    contact model": determinism), so another rank count changes no sum; measured: identical.
. "$(dirname "$0")/restart_common.bash" "$@"
top=$W

# floor_stl: [-0.15, 0.15]^2 at z = 0 as 4 x 4 squares, each split along its diagonal (32 triangles sharing
# edges and vertices), as ASCII STL on stdout.
floor_stl() {
  awk 'BEGIN {
    print "solid floor"
    for (i = 0; i < 4; i++)
      for (j = 0; j < 4; j++) {
        x0 = -0.15 + 0.075 * i; y0 = -0.15 + 0.075 * j; x1 = x0 + 0.075; y1 = y0 + 0.075
        facet(x0, y0, x1, y0, x1, y1); facet(x0, y0, x1, y1, x0, y1)
      }
    print "endsolid floor" }
  function facet(ax, ay, bx, by, cx, cy) {
    printf "facet normal 0 0 1\n outer loop\n  vertex %.17g %.17g 0\n  vertex %.17g %.17g 0\n", ax, ay, bx, by
    printf "  vertex %.17g %.17g 0\n endloop\nendfacet\n", cx, cy }'
}
floor_stl > "$top/ellipsoid_pour_floor.stl"
cp "$HERE/ellipsoid_pour.yaml" "$HERE/ellipsoid_pour_penalty.yaml" "$top/"

# column FILE DATASET WIDTH: one row per entry, full precision, in the file's row order
column() {
  h5dump -m '%.17g' -y -w 0 -d "$2" "$1" 2> /dev/null | sed -n '/DATA {/,/}/p' | tr -d ' \n' |
    sed 's/DATA{//; s/}//' | tr ',' '\n' | paste -d' ' $(printf -- '- %.0s' $(seq "$3"))
}

# contact_kinds SNAP: the snapshot's contacts counted by kind, "A-B:count" with A and B a body's shape (0 sphere,
# 3 ellipsoid) or w<wall id> (-1 the drum, -2 the mesh floor)
contact_kinds() {
  awk 'FNR == 1 { f++ } f == 1 { id[FNR] = $1 } f == 2 { shape[id[FNR]] = $1 } f == 3 { a[FNR] = $1 }
    f == 4 { n[(a[FNR] < 0 ? "w" a[FNR] : shape[a[FNR]]) "-" shape[$1]]++ }
    END { for (k in n) printf "%s:%d ", k, n[k]; print "" }' \
    <(column "$1" /bodies/id 1) <(column "$1" /bodies/shape 1) <(column "$1" /contacts/id_a 1) \
    <(column "$1" /contacts/id_b 1)
}

# bodies SNAP: id, shape, semi-axes, position, quaternion, velocity, angular velocity of every body, by id
bodies() {
  paste -d' ' <(column "$1" /bodies/id 1) <(column "$1" /bodies/shape 1) <(column "$1" /bodies/half_extents 3) \
    <(column "$1" /bodies/position 3) <(column "$1" /bodies/quaternion 4) <(column "$1" /bodies/velocity 3) \
    <(column "$1" /bodies/angular_velocity 3) | sort -n
}

# compare A B: "rows differing_ids_or_shapes largest_position_difference quaternion velocity" of two snapshots
compare() {
  paste -d' ' <(bodies "$1") <(bodies "$2") | awk '
    NF != 36 || $1 != $19 || $2 != $20 || $3 != $21 || $4 != $22 || $5 != $23 { bad++ }
    function worst(from, to, scale, w,   k, d) {
      for (k = from; k <= to; k++) { d = ($k - $(k + 18)) * scale; d = d < 0 ? -d : d; if (d > w) w = d }
      return w }
    { p = worst(6, 8, 1, p); q = worst(9, 12, 1, q); v = worst(13, 15, 1, v); v = worst(16, 18, 0.012, v) }
    END { printf "%d %d %.3g %.3g %.3g\n", NR, bad, p, q, v }'
}

for model in ccp penalty; do
  W=$top/$model
  mkdir -p "$W"
  if [ $model = ccp ]; then scen=ellipsoid_pour.yaml every=100 last=000200 total=345
  else scen=ellipsoid_pour_penalty.yaml every=200 last=000400 total=242; fi
  ckpt=$(printf %06d $every)
  for np in 1 2; do straight_and_restart "$top/$scen" $np $last 2 $every; done
  $MPI -n 2 "$CCPDEM" restart "$W/run1/checkpoints/ckpt-$ckpt.h5" -o "$W/re1on2" -checkpoint_every_steps $every \
    > "$W/re1on2.log" 2>&1 ||
    fail "$model: restart of the 1-rank checkpoint on 2 ranks failed: $(tail -3 "$W/re1on2.log")"
  info=$("$CCPDEM" info "$W/run1/checkpoints/ckpt-$ckpt.h5" 2>&1)
  made=$(echo "$info" | sed -n 's/.*bodies \([0-9]*\) (.*/\1/p')
  { [ -n "$made" ] && [ "$made" -gt 0 ] && [ "$made" -lt $total ]; } ||
    fail "$model: the step-$every checkpoint is not in the middle of the emission: $info"
  kinds=$(contact_kinds "$W/run1/snapshots/snap-$ckpt.h5")
  echo "$model: step $every ($made bodies), contacts by kind (0 sphere, 3 ellipsoid, w-1 drum, w-2 mesh floor): $kinds"
  for k in 3-3 3-0 w-1-3 w-2-3; do
    [[ " $kinds" =~ \ $k:[1-9] ]] || fail "$model: no $k contact at the checkpoint's step: $kinds"
  done
  [ $model = penalty ] ||
    awk -F, 'FNR > 1 && $8 != 1 { n++ } END { exit n > 0 }' "$W/run1/timeseries.csv" "$W/re1on2/timeseries.csv" ||
    fail "$model: a solve stalled above the tolerance (the bounds below assume converged steps)"
  read -r rows bad dpos dquat dvel <<< \
    "$(compare "$W/run1/snapshots/snap-$last.h5" "$W/re1on2/snapshots/snap-$last.h5")"
  echo "$model: the 1-rank checkpoint restarted on 2 ranks, step $((10#$last)): $rows bodies, largest differences" \
    "$dpos m in position, $dquat in the quaternion, $dvel m/s in velocity"
  [ "$rows" -eq $total ] && [ "$bad" -eq 0 ] ||
    fail "$model: the 1-rank checkpoint restarted on 2 ranks has other bodies ($rows rows of $total, $bad with" \
      "another id, shape or semi-axes)"
  if [ $model = ccp ]; then bounds="1e-5 1e-3 1e-4"; else bounds="0 0 0"; fi
  awk -v p="$dpos" -v q="$dquat" -v v="$dvel" -v b="$bounds" 'BEGIN { split(b, m, " ")
    exit !(p <= m[1] + 0 && q <= m[2] + 0 && v <= m[3] + 0) }' ||
    fail "$model: the 1-rank checkpoint restarted on 2 ranks ends $dpos m / $dquat / $dvel m/s from the straight" \
      "run (bounds $bounds)"
done
[ $fails -eq 0 ] && echo "ellipsoid pour restart: all checks passed" ||
  echo "ellipsoid pour restart: $fails check(s) FAILED"
[ $fails -eq 0 ]
