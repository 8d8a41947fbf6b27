#!/bin/bash
# -ccp_type ipm in a run against APGD (label ccp). Usage: test_ipm_run.sh CCPDEM REPO WORKDIR
# tests/ccp/bed.yaml (216 spheres, 6-dof contacts, 6 layers settling onto a floor: the layers' 0.2 mm gaps close
# over the first 10 steps, up to 0.14 m/s) is run twice on one rank, with APGD and with the interior-point method,
# both to 1e-8 m/s (a solve cap of 20,000 APGD iterations, 200 Newton iterations; measured: at most 12 APGD
# iterations and 12 Newton iterations a step). Every step of both runs must reach the tolerance, the IPM's
# steps must have taken linear (CG) iterations (the solve really was the IPM's), and every body's velocity and
# angular velocity in every step's snapshot must agree within 1e-6 m/s (rad/s): two solutions of the same
# well-posed CCPs to 1e-8 m/s, whose trajectories part only by what the tolerance leaves (measured: at most
# 6.6e-8 m/s, 3e-11 rad/s). Fails, e.g., with the predictor-corrector's second-order term of the wrong sign in
# src/ccp/ipm.c (steps not converged).
. "$(dirname "$0")/../script_common.sh" "$@"
bed=$REPO/tests/ccp/bed.yaml
"$CCPDEM" run "$bed" -o "$W/apgd" -ccp_tol 1e-8 -ccp_max_it 20000 > "$W/apgd.log" 2>&1 ||
  fail "the APGD run failed: $(tail -3 "$W/apgd.log")"
"$CCPDEM" run "$bed" -o "$W/ipm" -ccp_type ipm -ccp_tol 1e-8 -ccp_max_it 200 > "$W/ipm.log" 2>&1 ||
  fail "the IPM run failed: $(tail -3 "$W/ipm.log")"
for m in apgd ipm; do
  csv=$W/$m/timeseries.csv
  [ -f "$csv" ] || { fail "$m: no time series"; continue; }
  # columns: converged (8); 30 steps
  read -r steps bad < <(awk -F, 'NR > 1 { n++; if ($8 != 1) b++ } END { print n + 0, b + 0 }' "$csv")
  [ "$steps" -eq 30 ] || fail "$m: $steps steps in the time series, 30 expected"
  [ "$bad" -eq 0 ] || fail "$m: $bad steps did not reach 1e-8 m/s"
  echo "  $m: $steps steps, $bad not converged, $(awk -F, 'NR > 1 { s += $5 } END { print s }' "$csv") iterations"
done
grep -q "linear iterations [1-9]" "$W/ipm.log" || fail "the IPM run reports no linear iterations: $(tail -4 "$W/ipm.log")"
/usr/bin/python3 - "$W/apgd/snapshots" "$W/ipm/snapshots" << 'PY' || fail "velocities differ (above)"
import h5py, numpy as np, os, sys
a_dir, b_dir = sys.argv[1], sys.argv[2]
names = sorted(n for n in os.listdir(a_dir) if n.endswith(".h5"))
if len(names) < 30 or sorted(os.listdir(b_dir)) != sorted(os.listdir(a_dir)):
    sys.exit(print(f"snapshots: {len(names)} of APGD, not the same files as the IPM's") or 1)
worst = {"velocity": 0.0, "angular_velocity": 0.0}
for n in names:
    with h5py.File(os.path.join(a_dir, n)) as a, h5py.File(os.path.join(b_dir, n)) as b:
        ia, ib = np.argsort(a["bodies/id"][:]), np.argsort(b["bodies/id"][:])
        for k in worst:
            worst[k] = max(worst[k], float(np.abs(a["bodies/" + k][:][ia] - b["bodies/" + k][:][ib]).max()))
print(f"  {len(names)} snapshots: largest difference of velocity {worst['velocity']:.2e} m/s, "
      f"angular velocity {worst['angular_velocity']:.2e} rad/s (bound 1e-6)")
sys.exit(0 if max(worst.values()) <= 1e-6 else 1)
PY
finish test_ipm_run
