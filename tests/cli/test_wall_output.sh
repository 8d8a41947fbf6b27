#!/bin/bash
# Walls and contact forces in the output (label cli; README "Outputs"): the walls' loads in
# OUT/walls.csv and the snapshots, the contact network (output.contacts), and the XDMF grids that
# draw them. Usage: test_wall_output.sh CCPDEM REPO WORKDIR
#  1. tests/cli/stack_walls.yaml (CCP) on 1 rank: the last snapshot holds the 10 contacts (floor and
#     column, column and column, and the touching neighbour), each normal force the weight of the
#     spheres above it, the floor's force and torque the sums of them, the box wall's loads 0;
#     walls.csv holds a row per snapshot that matches the snapshots bitwise.
#  2. The same on 2 ranks: the same contacts, forces within the tolerance of 1; a restart from a
#     checkpoint at the same rank count rewrites the later snapshots' walls and contacts and
#     walls.csv bitwise.
#  3. Every DataItem of snapshots.xmf names a dataset of its file with the dimensions given, and the
#     grids of the walls (a quad, a hexahedron) and the contacts (lines) are there.
#  4. Penalty model: neither output.contacts nor a snapshot after every step changes a bit of the
#     bodies (on 1 rank a step before a snapshot keeps its loads per contact and sums them apart),
#     and the floor carries the weight.
. "$(dirname "$0")/../script_common.sh" "$@"
export OMPI_MCA_mpi_yield_when_idle=1
MPI="mpiexec --quiet --oversubscribe --allow-run-as-root"
S=$REPO/tests/cli/stack_walls.yaml
PY=/usr/bin/python3

"$CCPDEM" run "$S" -o "$W/one" -checkpoint_every_steps 20 -checkpoint_keep 10 > "$W/one.log" 2>&1 ||
  fail "the 1-rank run failed: $(tail -2 "$W/one.log")"
$MPI -n 2 "$CCPDEM" run "$S" -o "$W/two" -checkpoint_every_steps 20 -checkpoint_keep 10 > "$W/two.log" 2>&1 ||
  fail "the 2-rank run failed: $(tail -2 "$W/two.log")"

# 1 and 2: the loads against the weights, and 2 ranks against 1
$PY - "$W/one" "$W/two" <<'PY' || fail "the wall loads or the contact network are wrong (above)"
import csv, math, sys
import h5py, numpy as np
bad = 0
def check(ok, what):
    global bad
    if not ok:
        print("  wrong:", what); bad += 1
m = 2000 * 4 / 3 * math.pi * 0.01**3            # a sphere of the scenario
W = m * 9.81
rows = list(csv.DictReader(open(sys.argv[1] + "/timeseries.csv")))
# The bound of a contact force's error: a body at rest carries m g plus m dv/h for its velocity change
# dv over the step (at most twice the largest speed of the step and the one before, from the run's
# own time series), and the solver leaves each velocity within its tolerance 1e-9 m/s: per sphere
# above the contact m (2 v_max + 1e-9) / h. Measured: errors up to 2.6e-8 N for bounds of 2.3e-8 N per sphere.
v_max = max(float(r["max_speed"]) for r in rows[-2:])
per_sphere = m * (2 * v_max + 1e-9) / 0.002
above = {(-1, 0): 3, (0, 1): 2, (1, 2): 1, (-1, 3): 3, (3, 4): 2, (4, 5): 1, (-1, 6): 1, (3, 6): 0, (-1, 7): 2,
         (7, 8): 1}
nets = {}
for run in sys.argv[1:]:
    with h5py.File(run + "/snapshots/snap-000050.h5", "r") as f:
        c = f["contacts"]
        net = {(int(a), int(b)): (float(fn), np.asarray(ft), np.asarray(p))
               for a, b, fn, ft, p in zip(c["id_a"][:], c["id_b"][:], c["normal_force"][:], c["tangential_force"][:],
                                          c["point"][:])}
        check(len(net) == len(c["id_a"]) == 10, f"{run}: {len(c['id_a'])} contacts, expected 10, each once")
        check(set(net) == set(above), f"{run}: contacts {sorted(net)}")
        for key, n in above.items():
            fn, ft = net.get(key, (math.nan, None, None))[:2]
            check(abs(fn - n * W) <= n * per_sphere + 1e-12, f"{run}: contact {key}: normal force {fn!r}, expected {n} m g = {n * W!r}")
            check(ft is not None and np.abs(ft).max() <= 3 * per_sphere, f"{run}: contact {key}: tangential force {ft}")
        force, torque, point = f["walls/force"][:], f["walls/torque"][:], f["walls/torque_point"][:]
        floor = [v for k, v in net.items() if k[0] == -1]
        check(abs(force[0][2] + 9 * W) <= 9 * per_sphere, f"{run}: floor force {force[0]}, expected -9 m g = {-9 * W}")
        # the floor's torque about its point (0, 0, 0): sum of x F_z over its contacts, -0.1 m g here
        ty = sum(p[0] * fn for fn, ft, p in floor)
        check(abs(torque[0][1] - ty) <= 1e-12 and abs(ty + 0.1 * W) <= 0.2 * 9 * per_sphere,
              f"{run}: floor torque {torque[0]}, expected (0, {ty}, 0) = -0.1 m g")
        check(np.all(force[1] == 0) and np.all(torque[1] == 0), f"{run}: the untouched box wall has loads {force[1]}")
        check(np.allclose(point, [[0, 0, 0], [0.15, 0, 0.1]], atol=0), f"{run}: torque points {point}")
        check(list(f["walls/type"][:]) == [0, 1], "wall types")
    nets[run] = net
    # walls.csv: a row per snapshot, the snapshots' values bitwise
    series = list(csv.DictReader(open(run + "/walls.csv")))
    check([r["step"] for r in series] == ["0", "10", "20", "30", "40", "50"], f"{run}: walls.csv steps")
    check(float(series[-1]["wall0_fz_N"]) == force[0][2] and float(series[-1]["wall0_ty_Nm"]) == torque[0][1],
          f"{run}: walls.csv's last row differs from the snapshot")
    check(all(float(v) == 0 for k, v in series[0].items() if k.startswith("wall0_f")), f"{run}: step 0 has loads")
# 2 ranks against 1: the same contacts; forces within the tolerance's bound (the CCP's forces on a
# determinate stack are unique; different rank counts sum in another order)
one, two = nets[sys.argv[1]], nets[sys.argv[2]]
for key in one:
    if key in two:
        check(abs(one[key][0] - two[key][0]) <= 3 * per_sphere, f"contact {key}: {one[key][0]} on 1 rank, {two[key][0]} on 2")
print(f"  10 contacts on 1 and 2 ranks, forces = the weight above within {per_sphere:.2g} N per sphere (m g = {W:.6g} N)")
sys.exit(1 if bad else 0)
PY

# 2: a restart at the same rank count gives the same walls, contacts and walls.csv, bitwise
cp -a "$W/two" "$W/two-r"
$MPI -n 2 "$CCPDEM" restart "$W/two-r/checkpoints/ckpt-000020.h5" > "$W/restart.log" 2>&1 ||
  fail "the restart failed: $(tail -2 "$W/restart.log")"
for s in 30 40 50; do
  for g in walls contacts; do
    h5diff -q "$W/two/snapshots/snap-0000$s.h5" "$W/two-r/snapshots/snap-0000$s.h5" /$g /$g ||
      fail "step $s: /$g differs after the restart"
  done
done
cmp -s "$W/two/walls.csv" "$W/two-r/walls.csv" || fail "walls.csv differs after the restart"

# 3: the XDMF index against the files
$PY - "$W/one" <<'PY' || fail "snapshots.xmf does not match the snapshots (above)"
import sys, xml.etree.ElementTree as ET
import h5py
run = sys.argv[1]
root = ET.parse(run + "/snapshots.xmf").getroot()
bad, items, grids = 0, 0, set()
for grid in root.iter("Grid"):
    topo = grid.find("Topology")
    if topo is None:
        continue
    grids.add((grid.get("Name"), topo.get("TopologyType")))
    for item in grid.iter("DataItem"):
        items += 1
        name, dset = item.text.split(":")
        dims = tuple(int(d) for d in item.get("Dimensions").split())
        with h5py.File(run + "/" + name, "r") as f:
            if dset not in f or f[dset].shape != dims:
                print("  wrong:", item.text, dims, f[dset].shape if dset in f else "missing"); bad += 1
    n = int(topo.get("NumberOfElements"))
    for att in grid.findall("Attribute"):  # one value per cell or point
        first = int(att.find("DataItem").get("Dimensions").split()[0])
        if att.get("Center") == "Cell" and first != n:
            print("  wrong: cell attribute", att.get("Name"), first, n); bad += 1
for want in [("plane walls", "Quadrilateral"), ("box walls", "Hexahedron"), ("contacts", "Polyline")]:
    if want not in grids:
        print("  missing grid", want); bad += 1
print(f"  snapshots.xmf: {items} data items, each a dataset of its file with its dimensions; grids {sorted(grids)}")
sys.exit(1 if bad else 0)
PY

# 4: the penalty model, contacts on and off
sed 's/{model: ccp, envelope: 0.002, max_recovery_speed: 0.5}/{model: penalty, envelope: 0.001}/; /^solver:/d
     s/time: {step: 0.002, end: 0.1}/time: {step: 1.0e-4, end: 0.2}/; s/snapshot_interval: 0.02/snapshot_interval: 0.05/
     s/friction: 0.5}/friction: 0.5, young_modulus: 2.0e6, poisson_ratio: 0.3, restitution: 0.1}/' "$S" > "$W/pen.yaml"
sed 's/, contacts: true//' "$W/pen.yaml" > "$W/pen-off.yaml"
grep -q "model: penalty" "$W/pen.yaml" && ! grep -q "contacts: true" "$W/pen-off.yaml" || fail "the penalty scenarios were not made"
"$CCPDEM" run "$W/pen.yaml" -o "$W/pen" > "$W/pen.log" 2>&1 || fail "the penalty run failed: $(tail -2 "$W/pen.log")"
"$CCPDEM" run "$W/pen-off.yaml" -o "$W/pen-off" > "$W/pen-off.log" 2>&1 || fail "the penalty run failed: $(tail -2 "$W/pen-off.log")"
for f in "$W"/pen-off/snapshots/snap-*.h5; do
  h5diff -q "$f" "$W/pen/snapshots/${f##*/}" /bodies /bodies || fail "penalty: /bodies of ${f##*/} differ with output.contacts"
done
# a step that records its loads (one before a snapshot) sums the bodies' loads from per-contact loads on one
# rank (step/model_penalty.c SumLoads), other steps directly: a snapshot after every step changes no bit
sed 's/end: 0.2}/end: 0.002}/; s/snapshot_interval: 0.05/snapshot_interval: 1.0e-4/' "$W/pen-off.yaml" > "$W/pen-every.yaml"
sed 's/end: 0.2}/end: 0.002}/; s/snapshot_interval: 0.05/snapshot_interval: 0/' "$W/pen-off.yaml" > "$W/pen-end.yaml"
"$CCPDEM" run "$W/pen-every.yaml" -o "$W/pen-every" > "$W/pen-every.log" 2>&1 || fail "the penalty run failed"
"$CCPDEM" run "$W/pen-end.yaml" -o "$W/pen-end" > "$W/pen-end.log" 2>&1 || fail "the penalty run failed"
[ "$(ls "$W/pen-every/snapshots" | wc -l)" -eq 21 ] || fail "penalty: not a snapshot after every step"
h5diff -q "$W/pen-every/snapshots/snap-000020.h5" "$W/pen-end/snapshots/snap-000020.h5" /bodies /bodies ||
  fail "penalty: the bodies differ with a snapshot after every step"
$PY - "$W/pen" <<'PY' || fail "penalty: the floor does not carry the weight (above)"
import csv, math, sys
W = 2000 * 4 / 3 * math.pi * 0.01**3 * 9.81
row = list(csv.DictReader(open(sys.argv[1] + "/walls.csv")))[-1]
fz = float(row["wall0_fz_N"])
# the penalty springs oscillate about the static load, damped (restitution 0.1): measured 3e-5 of
# it at 0.15 s and 5e-8 at 0.2 s, the row checked; 1e-4 of it
print(f"  penalty: floor force {fz:.10g} N, weight 9 m g = {9 * W:.10g} N")
sys.exit(0 if abs(fz + 9 * W) <= 1e-4 * 9 * W else 1)
PY
finish test_wall_output
