#!/bin/bash
# -ccp_type ipm's polish (APGD from the interior point's iterate) on a problem the IPM alone leaves above the
# tolerance (label fclib). Usage: test_fclib_ipm_polish.sh CCPDEM REPO WORKDIR
# The main job's scenario (jobs/pile/default.yaml) with rolling and spinning friction 0 (3-dof contacts, as FCLIB
# holds them) is run to step 49, the first spheres' impact on the floor (15 contacts), and that step is dumped. Its
# solution has no strict complementarity, so the IPM's GUIDE residual falls only like sqrt(mu) until rounding stops
# it (measured 2026-11-28: 11 Newton iterations, 3.8e-4 m/s, a cluster block of K no longer positive definite).
# Checked, with -ccp_type ipm to 1e-9 m/s:
# - with the default polish the solve reaches 1e-9 m/s and reports its polish iterations (measured: 4 APGD
#   iterations, 3e-13 m/s); with -ccp_ipm_polish 0 (the polish off: the mutation) it does not;
# - its u agrees within 1e-8 m/s with an independent solve by APGD alone on the double-precision reference loops to
#   1e-12 m/s (no IPM code): u = H^T v + w is unique (M positive definite) and both residuals are below 1e-9 m/s;
#   measured 6.5e-13 m/s, while the IPM alone's u is 2.4e-4 m/s away, so the bound tells the two apart;
# - and within 1e-5 m/s with tests/fclib/cone_qp.py (cvxopt, no ccpdem code), whose own interior point suffers the
#   same degeneracy: it ends "optimal" 2.7e-6 m/s from both ccpdem solutions above (which agree to 6.5e-13).
. "$(dirname "$0")/../script_common.sh" "$@"
zero=()
for m in 0 2; do
  zero+=(-set "materials[$m].rolling_friction=0" -set "materials[$m].spinning_friction=0")
done
"$CCPDEM" run "$REPO/jobs/pile/default.yaml" -o "$W/run" -set time.end=0.25 "${zero[@]}" -fclib_dump 49 \
  -fclib_dir "$W/fclib" > "$W/run.log" 2>&1 || fail "the dumping run failed: $(tail -3 "$W/run.log")"
p=$W/fclib/fclib-000049.hdf5
[ -f "$p" ] || { fail "no dumped problem $p"; finish test_fclib_ipm_polish; exit; }
out=$("$CCPDEM" fclib solve "$p" -ccp_type ipm -ccp_tol 1e-9 -ccp_max_it 100 -o "$W/ipm.hdf5" 2>&1) ||
  fail "the polished IPM solve failed: $out"
echo "$out" | grep "solve (ipm)"
echo "$out" | grep -q "reached the tolerance" || fail "the IPM with its polish did not reach 1e-9 m/s: $out"
echo "$out" | grep -q "linear iterations, [1-9][0-9]* polish (APGD) iterations" ||
  fail "the solve reports no polish iterations: $out"
out=$("$CCPDEM" fclib solve "$p" -ccp_type ipm -ccp_tol 1e-9 -ccp_max_it 100 -ccp_ipm_polish 0 2>&1) ||
  fail "the IPM solve without the polish failed: $out"
echo "$out" | grep "solve (ipm)"
echo "$out" | grep -q "did NOT reach the tolerance" ||
  fail "the IPM alone reached 1e-9 m/s: the problem no longer needs the polish: $out"
echo "$out" | grep -q " 0 polish (APGD) iterations" || fail "-ccp_ipm_polish 0 still polished: $out"
out=$("$CCPDEM" fclib solve "$p" -ccp_tol 1e-12 -ccp_max_it 100000 -ccp_packed false -o "$W/apgd.hdf5" 2>&1) ||
  fail "the APGD solve failed: $out"
echo "$out" | grep -q "reached the tolerance" || fail "APGD did not reach 1e-12 m/s: $out"
/usr/bin/python3 - "$W/ipm.hdf5" "$W/apgd.hdf5" << 'PY' || fail "u of the IPM + polish differs from APGD's (above)"
import h5py, numpy as np, sys
with h5py.File(sys.argv[1]) as a, h5py.File(sys.argv[2]) as b:
    d = float(np.abs(a["solution/u"][:] - b["solution/u"][:]).max())
print(f"  u of the IPM + polish against APGD's: largest difference {d:.2e} m/s (bound 1e-8)")
sys.exit(0 if d <= 1e-8 else 1)
PY
/usr/bin/python3 "$REPO/tests/fclib/cone_qp.py" "$p" "$W/ipm.hdf5" 1e-5 ||
  fail "u differs from cvxopt's by more than 1e-5"
finish test_fclib_ipm_polish
