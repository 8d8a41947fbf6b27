#!/bin/bash
# `ccpdem analyze` through the binary (label cli). Usage: test_analyze.sh CCPDEM REPO WORKDIR
#  1. After the small emitter pour (tests/restart/pour.yaml), `analyze repose` of its last snapshot
#     exits 0 and prints "angle of repose: A deg (± U)" with numbers, and a second line naming the
#     snapshot and the bodies used; --x-range selects (all 300 bodies lie in -1 <= x <= 1).
#  2. Bad input, each one "ccpdem: error:" line and exit 2: a missing file, a file that is not
#     HDF5, an unknown analysis, a malformed --x-range, a selection with no body, and one with
#     too few bodies for a pile; a LAMMPS dump with the columns x y z radius is read (its 20
#     spheres counted, step 7), one with other columns refused.
# The angle itself is validated on synthetic cones by tests/unit/test_repose.c.
. "$(dirname "$0")/../script_common.sh" "$@"

"$CCPDEM" run "$REPO/tests/restart/pour.yaml" -o "$W/pour" > "$W/pour.log" 2>&1 || fail "pour failed: $(tail -3 "$W/pour.log")"
snap=$W/pour/snapshots/snap-000200.h5
out=$("$CCPDEM" analyze repose "$snap" --x-range -1,1 2>&1); rc=$?
[ $rc -eq 0 ] || fail "analyze repose exited $rc: $out"
echo "$out" | head -1 | grep -Eq '^angle of repose: [0-9]+\.[0-9] deg \(± [0-9]+\.[0-9]\)$' || fail "first line is not 'angle of repose: A deg (± U)': $out"
echo "$out" | sed -n 2p | grep -q "snap-000200.h5 (step 200, t = 0.4 s): 300 bodies" || fail "second line does not name the snapshot and its 300 bodies: $out"
echo "  $(echo "$out" | head -1)"

refused() { # expected text, arguments...
  local expect=$1 out rc; shift
  out=$("$CCPDEM" analyze "$@" 2>&1); rc=$?
  [ $rc -eq 2 ] || fail "analyze $*: exit $rc, expected 2"
  [ "$(echo "$out" | grep -c '^ccpdem: error:')" -eq 1 ] || fail "analyze $*: not one error line: $out"
  echo "$out" | grep -q "$expect" || fail "analyze $*: the error lacks '$expect': $out"
  echo "  refused: $out"
}
# a LAMMPS text dump (x y z radius) is read too: a layer of 20 spheres (a pile less than 3 grains
# high is measured as atan(height / extent), src/analysis/repose.h)
{ printf 'ITEM: TIMESTEP\n7\nITEM: NUMBER OF ATOMS\n20\nITEM: BOX BOUNDS ff ff ff\n-1 1\n-1 1\n0 1\nITEM: ATOMS x y z radius\n'
  for k in $(seq 0 19); do echo "0.$k 0 0.01 0.01"; done; } > "$W/peer.xyzr"
out=$("$CCPDEM" analyze repose "$W/peer.xyzr" 2>&1) || fail "analyze repose of a LAMMPS dump: $out"
echo "$out" | sed -n 2p | grep -q "peer.xyzr (step 7): 20 bodies" || fail "the LAMMPS dump's 20 spheres were not read: $out"
echo "  LAMMPS dump: $(echo "$out" | head -1)"
sed 's/ITEM: ATOMS x y z radius/ITEM: ATOMS id x y z/' "$W/peer.xyzr" > "$W/other.xyzr"
refused "is not an HDF5 file" repose "$W/other.xyzr"
echo "not hdf5" > "$W/text.h5"
refused "cannot be read" repose "$W/missing.h5"
refused "is not an HDF5 file" repose "$W/text.h5"
refused "unknown analysis 'volume'" volume "$snap"
refused "is not two numbers" repose "$snap" --x-range 3
refused "no body has 5 <= x <= 6" repose "$snap" --x-range 5,6
refused "do not form a pile" repose "$snap" --x-range 0.09,1

finish "analyze"
