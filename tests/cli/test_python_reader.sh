#!/bin/bash
# The Python reader jobs/tools/ccpdem_read.py and its example (label cli; README "Outputs").
# Usage: test_python_reader.sh CCPDEM REPO WORKDIR
# A small run (tests/cli/outputs.yaml with output.contacts and checkpoints: 40 spheres fall on a
# floor, 30 steps, a snapshot every 5) is read through the module, and what it returns is checked
# against what does not go through it: the run's own text output (the summary's body and contact
# counts, the time series' rows and columns read as text) and plain h5py reads of the files
# (positions, /walls). Then the example plot_energy_repose.py writes its PNG.
. "$(dirname "$0")/../script_common.sh" "$@"
PY=/usr/bin/python3
sed 's/output: {dir: out, snapshot_interval: 0.01}/output: {dir: out, snapshot_interval: 0.01, contacts: true}/' \
  "$REPO/tests/cli/outputs.yaml" > "$W/s.yaml"
grep -q "contacts: true" "$W/s.yaml" || fail "the scenario was not made"
"$CCPDEM" run "$W/s.yaml" -o "$W/out" -checkpoint_every_steps 10 > "$W/run.log" 2>&1 ||
  fail "the run failed: $(tail -2 "$W/run.log")"

PYTHONPATH=$REPO/jobs/tools $PY - "$W/out" "$W/run.log" <<'PY' || fail "the reader disagrees with the run's files (above)"
import math, re, sys
import h5py, numpy as np
import ccpdem_read as cr
out, log = sys.argv[1], open(sys.argv[2]).read()
bad = 0
def check(ok, what):
    global bad
    if not ok:
        print("  wrong:", what); bad += 1
# the time series: every row, the columns as the text has them
text = [line.rstrip("\n").split(",") for line in open(out + "/timeseries.csv")]
ts = cr.read_timeseries(out)
check(list(ts) == text[0], f"columns {list(ts)}")
check(len(ts["step"]) == len(text) - 1 == 30, f"{len(ts['step'])} rows")
check(all(ts["kinetic_energy"][i] == float(text[1 + i][text[0].index("kinetic_energy")]) for i in range(30)),
      "kinetic_energy differs from the text")
# the summary: "bodies N (...), contacts M" of the last step
m = re.search(r"bodies (\d+) \(\d+ left the domain\), contacts (\d+)", log)
check(m is not None, "no summary line")
snaps = cr.list_snapshots(out)
check([s for s, _ in snaps] == [0, 5, 10, 15, 20, 25, 30], f"snapshot steps {[s for s, _ in snaps]}")
last = cr.read_snapshot(snaps[-1][1])
check(last["step"] == 30 and abs(last["time"] - 0.06) < 1e-15, f"step {last['step']}, time {last['time']}")
if m:
    check(len(last["bodies"]["id"]) == int(m.group(1)), f"{len(last['bodies']['id'])} bodies, the run says {m.group(1)}")
    check(len(last["contacts"]["id_a"]) == int(m.group(2)),
          f"{len(last['contacts']['id_a'])} contacts, the run says {m.group(2)}")
# every snapshot's bodies and contacts against the time series' counts of its step
for snap in cr.read_snapshots(out):
    i = int(np.flatnonzero(ts["step"] == snap["step"])[0]) if snap["step"] else None
    n_bodies = ts["bodies"][i] if i is not None else 40
    check(len(snap["bodies"]["id"]) == n_bodies, f"step {snap['step']}: bodies")
    check(np.all(np.diff(snap["bodies"]["id"]) > 0), f"step {snap['step']}: ids not sorted")
    if i is not None:
        check(len(snap["contacts"]["normal_force"]) == ts["contacts"][i], f"step {snap['step']}: contacts")
# one value against a plain h5py read: body 17's position, the floor's force
with h5py.File(snaps[-1][1], "r") as f:
    row = int(np.flatnonzero(f["bodies/id"][()] == 17)[0])
    at = int(np.searchsorted(last["bodies"]["id"], 17))
    check(np.array_equal(last["bodies"]["position"][at], f["bodies/position"][row]), "body 17's position")
    check(np.array_equal(cr.read_wall_series(out)["force"][-1], f["walls/force"][()]), "walls.csv's last row")
    force = f["walls/force"][()]
# the contacts' line ends: B's centre at the step's start, within a step's travel of its position now
c = last["contacts"]
ends_b = c["line_points"][:, 1, :]
pos = last["bodies"]["position"][np.searchsorted(last["bodies"]["id"], c["id_b"])]
check(np.all(np.linalg.norm(ends_b - pos, axis=1) <= 0.002 * 2.0), "line ends are not at the bodies")
# the floor carries what the contacts on it push: the sum of their forces
floor = c["id_a"] == -1
total = -(c["normal_force"][floor][:, None] * c["normal"][floor] + c["tangential_force"][floor]).sum(axis=0)
check(np.allclose(total, force[0], rtol=1e-12, atol=1e-15), f"floor force {force[0]} against its contacts' {total}")
# a checkpoint's bodies: the count of its step, each sphere's mass from its radius and density 2000
ck = cr.read_checkpoint_bodies(out + "/checkpoints/ckpt-000030.h5")
check(ck["step"] == 30 and len(ck["id"]) == len(last["bodies"]["id"]), "checkpoint bodies")
check(np.allclose(ck["mass"], 2000 * 4 / 3 * math.pi * ck["radius"] ** 3, rtol=1e-14), "checkpoint masses")
check(np.array_equal(ck["position"], last["bodies"]["position"]), "checkpoint positions against the snapshot's")
print(f"  read {len(snaps)} snapshots, 30 time-series rows, a checkpoint; {len(c['id_a'])} contacts in the last")
sys.exit(1 if bad else 0)
PY

$PY "$REPO/jobs/tools/plot_energy_repose.py" "$W/out" --ccpdem "$CCPDEM" > "$W/plot.log" 2>&1 ||
  fail "plot_energy_repose.py failed: $(tail -3 "$W/plot.log")"
[ "$(grep -c '^t = ' "$W/plot.log")" -eq 7 ] || fail "plot_energy_repose.py did not report the 7 snapshots"
[ "$(head -c 8 "$W/out/energy_repose.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
  fail "plot_energy_repose.py wrote no PNG"
finish test_python_reader
