#!/bin/bash
# Moving walls across a restart (label restart). Usage: moving_walls_bitwise.sh CCPDEM WORKDIR
# moving_walls.yaml (CCP: a drum that starts turning, turning end planes, an oscillating box) and
# moving_walls_penalty.yaml (the same walls, the penalty model) are run straight through with two
# checkpoints, on 1 and on 2 ranks; a restart from the first checkpoint on the same rank count must
# write snapshots byte-identical to the straight run's, and an identical last checkpoint. A wall's
# pose is a function of time: the restart rebuilds it (and the velocity it gives the contacts, and
# its turn over the last step that the penalty model's tracking reads) from the scenario and the time.
# mesh_motion.yaml and mesh_motion_penalty.yaml do the same with moving mesh walls (a faceted drum and
# a blade, whose STL files this script writes beside copies of the scenarios): a mesh's pose too is
# rebuilt from the time, and its triangles from the file, which the restart reads again.
. "$(dirname "$0")/restart_common.bash" "$@"

# tube_stl R Y0 Y1 N: a tube about the y axis from Y0 to Y1 of N flat facets touching the cylinder of
# radius R at their middles (tests/test_mesh.h TestTubeMesh), as ASCII STL on stdout.
tube_stl() {
  awk -v R="$1" -v y0="$2" -v y1="$3" -v n="$4" 'BEGIN {
    pi = atan2(0, -1); rc = R / cos(pi / n); print "solid tube"
    for (k = 0; k < n; k++) {
      x0 = rc * cos(2 * pi * k / n); z0 = rc * sin(2 * pi * k / n)
      x1 = rc * cos(2 * pi * (k + 1) / n); z1 = rc * sin(2 * pi * (k + 1) / n)
      facet(x0, y0, z0, x1, y0, z1, x1, y1, z1); facet(x0, y0, z0, x1, y1, z1, x0, y1, z0)
    }
    print "endsolid tube" }
  function facet(ax, ay, az, bx, by, bz, cx, cy, cz) {
    printf "facet normal 0 0 0\n outer loop\n  vertex %.17g %.17g %.17g\n", ax, ay, az
    printf "  vertex %.17g %.17g %.17g\n  vertex %.17g %.17g %.17g\n", bx, by, bz, cx, cy, cz
    print " endloop\nendfacet" }'
}
tube_stl 0.1 -0.035 0.035 48 > "$W/tube.stl"
cat > "$W/blade.stl" << 'STL'
solid blade
facet normal 0 0 1
 outer loop
  vertex -0.02 -0.025 0
  vertex 0.02 -0.025 0
  vertex 0.02 0.025 0
 endloop
endfacet
facet normal 0 0 1
 outer loop
  vertex -0.02 -0.025 0
  vertex 0.02 0.025 0
  vertex -0.02 0.025 0
 endloop
endfacet
endsolid blade
STL
cp "$HERE/mesh_motion.yaml" "$HERE/mesh_motion_penalty.yaml" "$W/"

check() { # scenario (a path), checkpoint step, the later snapshots' steps, the last checkpoint's step
  local scen=$1 ck=$2 snaps=$3 last=$4 name
  name=$(basename "$scen" .yaml)
  for np in 1 2; do
    $MPI -n $np "$CCPDEM" run "$scen" -o "$W/$name-run$np" -checkpoint_every_steps "$ck" -checkpoint_keep 5 > "$W/$name-run$np.log" 2>&1 || fail "$name, $np ranks: the run failed: $(tail -3 "$W/$name-run$np.log")"
    $MPI -n $np "$CCPDEM" restart "$W/$name-run$np/checkpoints/ckpt-$(printf %06d "$ck").h5" -o "$W/$name-re$np" -checkpoint_every_steps "$ck" > "$W/$name-re$np.log" 2>&1 || fail "$name, $np ranks: the restart failed: $(tail -3 "$W/$name-re$np.log")"
    local n=0 s f
    for s in $snaps; do
      f=snapshots/snap-$(printf %06d "$s").h5
      cmp -s "$W/$name-run$np/$f" "$W/$name-re$np/$f" && n=$((n + 1)) || fail "$name, $np ranks: $f after the restart differs from the straight run's"
    done
    f=checkpoints/ckpt-$(printf %06d "$last").h5
    cmp -s "$W/$name-run$np/$f" "$W/$name-re$np/$f" || fail "$name, $np ranks: the step-$last checkpoint differs after the restart"
    echo "$name, $np ranks: $n snapshots after the restart byte-identical to the straight run's; step-$last checkpoints identical: $(cmp -s "$W/$name-run$np/$f" "$W/$name-re$np/$f" && echo yes || echo no)"
  done
}
check "$HERE/moving_walls.yaml" 50 "100 150" 150
check "$HERE/moving_walls_penalty.yaml" 200 "300 400" 400
check "$W/mesh_motion.yaml" 50 "100 150" 150
check "$W/mesh_motion_penalty.yaml" 200 "300 400" 400
[ $fails -eq 0 ] && echo "moving walls restart: all checks passed" || echo "moving walls restart: $fails check(s) FAILED"
[ $fails -eq 0 ]
