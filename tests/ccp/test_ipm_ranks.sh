#!/bin/bash
# -ccp_type ipm on several ranks (label ccp). Usage: test_ipm_ranks.sh CCPDEM REPO WORKDIR
# On several ranks each step's CCP is gathered onto rank 0 in body-id and contact-key order and solved there
# (decomp/ccp_gather.h), so every rank count solves the same problem in the same order. tests/ccp/bed.yaml
# (216 spheres, 6-dof contacts; the first 10 steps, in which the layers' gaps close) runs on 1, 2, 3, 4 and 8
# ranks (8 oversubscribed). Against the 1-rank run, every other run must have:
#  - the same Newton iterations on every step (the time series) and the same linear iterations in all;
#  - after the first step, every body's position, velocity and angular velocity (by id) and every contact's
#    normal and tangential force (by its bodies' ids) bitwise equal: the same problem, solved in the same order;
#  - after every later step, the same within 1e-12 m/s, rad/s, m and 1e-12 of the largest force: the inputs of
#    every step are copies of the same numbers (measured: bitwise equal on all 10 steps), so anything above
#    rounding means another problem or another order was solved (an IPM solve to 1e-6 m/s in another
#    order differs by far more than 1e-12);
#  - bodies on every rank in its snapshots (the decomposition really split them).
# And a failed solve on rank 0 (its KSP made to fail: -ccp_ipm_ksp_max_it 1 with error_if_not_converged) stops all
# 3 ranks with exit 1 and one error line, within 120 s (an error not agreed over ranks would leave the others
# waiting in the scatter).
# Fails, e.g., with the gathered contacts left in rank order (the qsort in decomp/ccp_gather.c removed) or one
# rank's contacts dropped from the gather.
. "$(dirname "$0")/../script_common.sh" "$@"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
bed=$REPO/tests/ccp/bed.yaml
args=(-ccp_type ipm -set time.end=0.02 -set output.contacts=true)
"$CCPDEM" run "$bed" -o "$W/r1" "${args[@]}" > "$W/r1.log" 2>&1 || fail "1 rank: the run failed: $(tail -3 "$W/r1.log")"
for np in 2 3 4 8; do
  mpiexec --oversubscribe --allow-run-as-root -n "$np" "$CCPDEM" run "$bed" -o "$W/r$np" "${args[@]}" \
    > "$W/r$np.log" 2>&1 || fail "$np ranks: the run failed: $(tail -3 "$W/r$np.log")"
  cmp -s <(cut -d, -f1,3-5 "$W/r1/timeseries.csv") <(cut -d, -f1,3-5 "$W/r$np/timeseries.csv") ||
    fail "$np ranks: the steps' bodies, contacts or Newton iterations differ from 1 rank's"
  lin() { grep -o "linear iterations [0-9]*" "$1" | awk '{ print $3 }'; }
  [ -n "$(lin "$W/r1.log")" ] && [ "$(lin "$W/r1.log")" = "$(lin "$W/r$np.log")" ] ||
    fail "$np ranks: linear iterations '$(lin "$W/r$np.log")' against 1 rank's '$(lin "$W/r1.log")'"
  /usr/bin/python3 - "$W/r1/snapshots" "$W/r$np/snapshots" "$np" << 'PY' || fail "$np ranks: differs (above)"
import h5py, numpy as np, os, sys
a_dir, b_dir, np_ = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = sorted(n for n in os.listdir(a_dir) if n.endswith(".h5"))
if len(names) != 11 or sorted(os.listdir(b_dir)) != names:
    sys.exit(print(f"  snapshots: {len(names)} of 1 rank (11 expected), not the same files as {np_} ranks'") or 1)
bad, worst, ranks = 0, 0.0, set()
for n in names[1:]:
    first = n == names[1]
    with h5py.File(os.path.join(a_dir, n)) as a, h5py.File(os.path.join(b_dir, n)) as b:
        ranks |= set(b["bodies/rank"][:].tolist())
        ia, ib = np.argsort(a["bodies/id"][:]), np.argsort(b["bodies/id"][:])
        if not np.array_equal(a["bodies/id"][:][ia], b["bodies/id"][:][ib]):
            bad += 1; print(f"  {n}: not the same bodies"); continue
        d = {k: np.abs(a["bodies/" + k][:][ia] - b["bodies/" + k][:][ib]).max()
             for k in ("position", "velocity", "angular_velocity")}
        ka = a["contacts/id_a"][:] * 2**32 + a["contacts/id_b"][:]
        kb = b["contacts/id_a"][:] * 2**32 + b["contacts/id_b"][:]
        ca, cb = np.argsort(ka), np.argsort(kb)
        if len(ka) == 0 or not np.array_equal(ka[ca], kb[cb]):
            bad += 1; print(f"  {n}: not the same contacts ({len(ka)} against {len(kb)})"); continue
        scale = max(np.abs(a["contacts/normal_force"][:]).max(), 1e-300)
        for k in ("normal_force", "tangential_force"):
            d[k] = np.abs(a["contacts/" + k][:][ca] - b["contacts/" + k][:][cb]).max() / scale
        m = max(d.values())
        worst = max(worst, m)
        if (first and m != 0) or m > 1e-12:
            bad += 1; print(f"  {n}: " + ", ".join(f"{k} {v:.3g}" for k, v in d.items()))
if ranks != set(range(np_)):
    bad += 1; print(f"  bodies on ranks {sorted(ranks)}, {np_} expected")
print(f"  {np_} ranks: {len(names) - 1} steps against 1 rank, largest difference {worst:.3g} (first step: 0 asked)")
sys.exit(1 if bad else 0)
PY
done
out=$(timeout 120 mpiexec --oversubscribe --allow-run-as-root -n 3 "$CCPDEM" run "$bed" -o "$W/fail" "${args[@]}" \
  -ccp_ipm_ksp_error_if_not_converged -ccp_ipm_ksp_max_it 1 2>&1)
rc=$?
[ $rc -eq 1 ] || fail "a failed solve on rank 0: exit $rc, 1 expected: $out"
[ "$(echo "$out" | grep -c '^ccpdem: error:')" -eq 1 ] || fail "a failed solve on rank 0: not one error line: $out"
echo "$out" | grep '^ccpdem: error:' | grep -q "KSPSolve has not converged" ||
  fail "a failed solve on rank 0: the error does not name the KSP: $out"
echo "  a failed solve on rank 0: exit $rc, $(echo "$out" | grep '^ccpdem: error:')"
finish test_ipm_ranks
