#!/bin/bash
# Rolling springs on another rank count (label restart). Usage: rolling_spring_ranks.sh CCPDEM WORKDIR
# rolling_spring.yaml (300 spheres with rolling springs, still moving at 0.4 s: up to 0.6 m/s) is run on one
# rank to its end (step 200) and its checkpoint continued for 20 steps on 1 and on 2 ranks, every step solved
# to 1e-9 m/s (cap 20,000: each must converge). The 2-rank run cuts the pile in two, so its contacts across the
# cut have their springs' state (the torque impulses of the last step, world vectors in the contact memory)
# routed to the rank that owns them and their bodies as ghosts; runs on different rank counts must agree within
# the solver tolerance (GUIDE), not bitwise. Bounds, from the tolerance: each step's velocities are exact to
# about 1e-9 m/s, so after 20 steps of 2 ms the bodies' velocities agree within 1e-8 m/s, their angular
# velocities within 1e-6 rad/s (1e-8 m/s at the 1 cm radius) and positions within 1e-9 m (measured 2026-11-28:
# 2.8e-14 m/s, 3.7e-12 rad/s, 1.5e-16 m). With the springs of the contacts across the cut started unloaded (the
# mutation in tests/mutate.sh) they differ by 3.1e-4 m, 1.1e-2 m/s and 1.6 rad/s.
. "$(dirname "$0")/restart_common.bash" "$@"

$MPI -n 1 "$CCPDEM" run "$HERE/rolling_spring.yaml" -o "$W/base" -checkpoint_every_steps 200 > "$W/base.log" 2>&1 ||
  fail "the 1-rank run failed: $(tail -3 "$W/base.log")"
for np in 1 2; do
  $MPI -n "$np" "$CCPDEM" restart "$W/base/checkpoints/ckpt-000200.h5" --until 0.44 -o "$W/r$np" -ccp_tol 1e-9 \
    -ccp_max_it 20000 -checkpoint_every_steps 20 > "$W/r$np.log" 2>&1 ||
    fail "the $np-rank continuation failed: $(tail -3 "$W/r$np.log")"
  grep -q ", 0 steps not converged" "$W/r$np.log" ||
    fail "$np ranks: a step did not reach 1e-9 m/s: $(grep 'steps not converged' "$W/r$np.log")"
done
last=checkpoints/ckpt-000220.h5
[ "$fails" -eq 0 ] && /usr/bin/python3 - "$W/r1/$last" "$W/r2/$last" << 'PY' ||
import sys
import h5py
import numpy as np

def bodies(path):
    with h5py.File(path, "r") as f:
        order = np.argsort(f["/bodies/id"][:])
        ranks = len(f["/layout/rows_per_rank"][:])
        torque = np.abs(f["/contacts/impulse"][:, 3:6]).max()
        return (f["/bodies/id"][:][order], f["/bodies/pos"][:][order], f["/bodies/vel"][:][order], ranks, torque)

id1, pos1, vel1, ranks1, _ = bodies(sys.argv[1])
id2, pos2, vel2, ranks2, torque = bodies(sys.argv[2])
if ranks2 != 2 or not np.array_equal(id1, id2) or len(id1) != 300:
    sys.exit(f"not a 2-rank run of the same 300 bodies ({ranks2} ranks, {len(id1)} and {len(id2)} bodies)")
dpos = np.abs(pos1 - pos2).max()
dv = np.abs(vel1[:, :3] - vel2[:, :3]).max()
dw = np.abs(vel1[:, 3:] - vel2[:, 3:]).max()
print(f"1 against 2 ranks after 20 steps: positions {dpos:.2e} m, velocities {dv:.2e} m/s, angular {dw:.2e} rad/s; "
      f"largest torque impulse {torque:.2e} N m s")
if torque <= 0:
    sys.exit("the checkpoint holds no torque impulse: the springs carry no state and the test proves nothing")
if dpos > 1e-9 or dv > 1e-8 or dw > 1e-6:
    sys.exit("1 and 2 ranks differ beyond the solver tolerance's bounds (1e-9 m, 1e-8 m/s, 1e-6 rad/s)")
PY
  fail "the 1- and 2-rank continuations differ (above)"
[ $fails -eq 0 ] && echo "rolling springs on 1 and 2 ranks: all checks passed" ||
  echo "rolling springs on 1 and 2 ranks: $fails check(s) FAILED"
[ $fails -eq 0 ]
