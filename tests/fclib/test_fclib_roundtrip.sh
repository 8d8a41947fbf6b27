#!/bin/bash
# FCLIB out and back in through the binary (label fclib). Usage: test_fclib_roundtrip.sh CCPDEM REPO WORKDIR
#  1. A run with -fclib_dump writes the chosen steps' files and prints one line each; its time series
#     and snapshots are the same bits as the same run without the option (the dump only reads).
#  2. Round trip: `ccpdem fclib solve` of each file with the run's solver settings (drop.yaml's solver
#     block as -ccp_* options), started from the file's first guess (the run's warm start), gives the
#     run's impulses (the file's /solution r) and velocities u. Tolerance 1e-9 relative to the largest impulse: the same method, options and
#     initial iterate on the same problem, rebuilt from the file up to the rounding of M^-1 and
#     f = M v_free (1e-16 relative), so the iterates agree to rounding (measured: 5e-15 relative);
#     1e-9 leaves room for rounding carried through the iteration's branches (restarts, step tests)
#     while a wrongly rebuilt contact (a flipped tangent, a wrong offset or mass) moves r by far more.
#  3. The same dumps from a 2-rank run: step 1's problem (M, H, f, w, mu) is the same bits as the
#     1-rank file (rank 0 gathers and orders rows by body id and contact key), and its solution u is
#     within 10 x the solver tolerance of the 1-rank one (GUIDE "Distributed run").
#  4. Refused before anything is written (exit 2, one error line): a step below 1, and scenarios with
#     what FCLIB cannot hold (rolling friction, compliance).
. "$(dirname "$0")/../script_common.sh" "$@"
drop=$REPO/tests/fclib/drop.yaml
steps="1 10 20 30 40 60"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

"$CCPDEM" run "$drop" -o "$W/one" -fclib_dump 1,10,20,30,40,60 -fclib_dir "$W/one/fclib" > "$W/one.log" 2>&1 ||
  fail "the dumping run failed: $(tail -3 "$W/one.log")"
"$CCPDEM" run "$drop" -o "$W/plain" > "$W/plain.log" 2>&1 || fail "the plain run failed: $(tail -3 "$W/plain.log")"
[ "$(grep -c "CCP written to" "$W/one.log")" -eq 6 ] || fail "not one line per dumped step: $(grep written "$W/one.log")"
[ "$(cut -d, -f1-11 "$W/one/timeseries.csv" | md5sum)" = "$(cut -d, -f1-11 "$W/plain/timeseries.csv" | md5sum)" ] ||
  fail "-fclib_dump changed the run's time series"
for f in "$W"/plain/snapshots/*.h5; do
  h5diff -q "$f" "$W/one/snapshots/$(basename "$f")" > /dev/null 2>&1 || fail "-fclib_dump changed $(basename "$f")"
done

for s in $steps; do
  p=$W/one/fclib/$(printf 'fclib-%06d.hdf5' "$s")
  [ -f "$p" ] || { fail "step $s was not dumped"; continue; }
  "$CCPDEM" fclib solve "$p" -ccp_type apgd -ccp_tol 1e-9 -ccp_max_it 20000 -o "$W/rt-$s.hdf5" > "$W/rt-$s.log" 2>&1 || { fail "fclib solve of step $s failed: $(tail -3 "$W/rt-$s.log")"; continue; }
  grep -q "started from the file's first guess" "$W/rt-$s.log" || fail "step $s: the solve did not start from the file's guess"
  /usr/bin/python3 - "$p" "$W/rt-$s.hdf5" "$s" <<'PY' || fail "step $s: the round trip's impulses differ from the run's"
import sys, h5py, numpy as np
run, back, step = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r"), sys.argv[3]
r0, r1 = np.array(run["solution/r"]), np.array(back["solution/r"])
u0, u1 = np.array(run["solution/u"]), np.array(back["solution/u"])
dr, du, scale = np.max(np.abs(r0 - r1)), np.max(np.abs(u0 - u1)), np.max(np.abs(r0))
print(f"  step {step}: {len(r0) // 3} contacts, max |r - r_run| = {dr:.2e} N s (max |r| {scale:.2e}), max |u - u_run| = {du:.2e} m/s")
sys.exit(0 if scale > 0 and dr <= 1e-9 * scale and du <= 1e-9 * max(np.max(np.abs(u0)), 1e-3) else 1)
PY
done

mpiexec --oversubscribe --allow-run-as-root -n 2 "$CCPDEM" run "$drop" -o "$W/two" -fclib_dump 1,60 -fclib_dir "$W/two/fclib" > "$W/two.log" 2>&1 ||
  fail "the 2-rank dumping run failed: $(tail -3 "$W/two.log")"
h5diff "$W/one/fclib/fclib-000001.hdf5" "$W/two/fclib/fclib-000001.hdf5" /fclib_global > "$W/h5diff.log" 2>&1 ||
  fail "step 1's problem from 2 ranks differs from the 1-rank one: $(head -5 "$W/h5diff.log")"
/usr/bin/python3 - "$W/one/fclib/fclib-000001.hdf5" "$W/two/fclib/fclib-000001.hdf5" <<'PY' || fail "step 1's solution on 2 ranks is not within 10 x tolerance of 1 rank's"
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
du = np.max(np.abs(np.array(a["solution/u"]) - np.array(b["solution/u"])))
print(f"  step 1 on 2 ranks: max |u - u_1rank| = {du:.2e} m/s (bound 1e-8: 10 x the scenario's 1e-9 m/s)")
sys.exit(0 if du <= 1e-8 else 1)
PY

refused() { # expected text, arguments of ccpdem run...
  local expect=$1 out rc; shift
  out=$("$CCPDEM" run "$@" 2>&1); rc=$?
  [ $rc -eq 2 ] || fail "run $*: exit $rc, expected 2"
  [ "$(echo "$out" | grep -c '^ccpdem: error:')" -eq 1 ] || fail "run $*: not one error line: $out"
  echo "$out" | grep -q -- "$expect" || fail "run $*: the error lacks '$expect': $out"
  echo "  refused: $(echo "$out" | grep '^ccpdem: error:')"
}
refused "-fclib_dump step 0 is not a step" "$drop" -o "$W/bad" -fclib_dump 0
refused "rolling or spinning friction" "$REPO/tests/restart/pile.yaml" -o "$W/bad" -fclib_dump 5
sed 's/friction: 0.4}/friction: 0.4, compliance: 1.0e-7}/' "$drop" > "$W/compliant.yaml"
refused "have a compliance" "$W/compliant.yaml" -o "$W/bad" -fclib_dump 5
[ -e "$W/bad" ] && fail "a refused run created its output directory"
finish test_fclib_roundtrip
