#!/bin/bash
# Messages (label cli; README "Command line"). Usage: test_messages.sh CCPDEM REPO WORKDIR
#  1. Plausibility warnings, never fatal: check and run of tests/restart/pile.yaml (spheres of r = 10 mm,
#     h = 2 ms) print none; with rolling_friction 0.1 (a LIGGGHTS user's dimensionless coefficient, 10 times the
#     radius) exactly one "ccpdem: warning:" line naming materials[0].rolling_friction, exit 0, on 1 and on 2
#     ranks (printed once, by rank 0); with time.step 5 ms (more than a tenth of the 45 ms a sphere of 10 mm
#     takes to fall through its radius) one line naming time.step; a run with both still runs to its end; a clump
#     emitter (tests/restart/clump_emitter_pour.yaml, members of r = 10 mm, bounding radius 18 mm) at 5 ms warns
#     by its members' radius (a sphere of 18 mm falls through its radius in 61 ms, a tenth of which is above 5 ms).
#  2. A runtime failure (-fclib_dir a path that cannot be a directory) prints exactly one line on stderr,
#     "ccpdem: error: ...", exit 1, no PETSc trace; -debug_trace gives PETSc's trace instead.
#  3. The progress line: on a batch log (no terminal) the last line reads "done in X s" (no "ETA 0 s s"); under
#     mpiexec the default interval is 2 s; -progress_interval 0 prints a line each step.
. "$(dirname "$0")/../script_common.sh" "$@"
export OMPI_MCA_mpi_yield_when_idle=1
MPI="mpiexec --quiet --oversubscribe --allow-run-as-root"
pile=$REPO/tests/restart/pile.yaml
cd "$W" || exit 1

echo "1. plausibility warnings"
# warns NAME COUNT PATTERN COMMAND...: exit 0 and COUNT warning lines, each matching PATTERN
warns() {
  local name=$1 count=$2 pattern=$3 rc; shift 3
  "$@" > "$W/out" 2> "$W/err"; rc=$?
  [ $rc -eq 0 ] || fail "$name: exit $rc: $(tail -3 "$W/err")"
  [ "$(grep -c '^ccpdem: warning:' "$W/err")" -eq "$count" ] || fail "$name: $(grep -c '^ccpdem: warning:' "$W/err") warnings, want $count: $(cat "$W/err")"
  [ "$count" -eq 0 ] || [ "$(grep '^ccpdem: warning:' "$W/err" | grep -cE "$pattern")" -eq "$count" ] || fail "$name: the warning lacks '$pattern': $(cat "$W/err")"
  [ "$count" -eq 0 ] || echo "  $name: $(grep '^ccpdem: warning:' "$W/err" | head -1)"
}
warns "check of the plain pile" 0 "" "$CCPDEM" check "$pile"
warns "run of the plain pile" 0 "" "$CCPDEM" run "$pile" -o "$W/plain" -set time.end=0.02
warns "rolling_friction 0.1 (check)" 1 "materials\[0\].rolling_friction = 0.1 m is longer than the smallest radius of the bodies of material 'grit' \(0.01 m\)" \
  "$CCPDEM" check "$pile" -set "materials[0].rolling_friction=0.1"
warns "rolling_friction 0.1 (check, 2 ranks)" 1 "materials\[0\].rolling_friction" \
  $MPI -n 2 "$CCPDEM" check "$pile" -set "materials[0].rolling_friction=0.1"
warns "time.step 5 ms (check)" 1 "time.step 0.005 s is longer than a tenth of the time the smallest body \(radius 0.01 m\) takes to fall through its radius \(0.045" \
  "$CCPDEM" check "$pile" -set time.step=0.005
warns "clump emitter, time.step 5 ms (check)" 1 \
  "time.step 0.005 s is longer than a tenth of the time the smallest body \(radius 0.01 m\)" \
  "$CCPDEM" check "$REPO/tests/restart/clump_emitter_pour.yaml" -set time.step=0.005
warns "both (run, 2 ranks)" 2 "materials\[0\].spinning_friction|time.step" \
  $MPI -n 2 "$CCPDEM" run "$pile" -o "$W/both" -set time.end=0.05 -set time.step=0.005 -set "materials[0].spinning_friction=0.05"
grep -q "finished 10 steps to t = 0.05 s" "$W/out" || fail "the run with warnings did not run to its end: $(tail -3 "$W/out")"

echo "2. a runtime failure"
zero=(-set time.end=0.01 -set "materials[0].rolling_friction=0" -set "materials[0].spinning_friction=0")
"$CCPDEM" run "$pile" -o "$W/fail" "${zero[@]}" -fclib_dump 1 -fclib_dir /dev/null/x > "$W/out" 2> "$W/err"; rc=$?
[ $rc -eq 1 ] || fail "the failing run: exit $rc, want 1: $(cat "$W/err")"
[ "$(wc -l < "$W/err")" -eq 1 ] || fail "the failing run: $(wc -l < "$W/err") lines on stderr, want 1: $(head -5 "$W/err")"
grep -q "^ccpdem: error: -fclib_dump: creating /dev/null/x: Not a directory$" "$W/err" || fail "the failing run's line: $(cat "$W/err")"
echo "  $(cat "$W/err") (exit 1)"
"$CCPDEM" run "$pile" -o "$W/fail2" "${zero[@]}" -fclib_dump 1 -fclib_dir /dev/null/x -debug_trace > "$W/out" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "the failing run with -debug_trace: exit $rc, want 1"
grep -q "PETSC ERROR" "$W/out" || fail "-debug_trace printed no PETSc trace: $(head -5 "$W/out")"

echo "3. progress lines"
"$CCPDEM" run "$pile" -o "$W/progress" > "$W/out" 2> "$W/err" || fail "the progress run failed: $(tail -3 "$W/err")"
last=$(grep '^step ' "$W/err" | tail -1)
echo "$last" | grep -qE '^step 200/200 .* steps/s  done in [0-9.]+ s$' || fail "the last progress line: '$last'"
grep -q 'ETA [0-9]* s s' "$W/err" && fail "a progress line reads 'ETA N s s'"
lines=$(grep -c '^step ' "$W/err")
# the default interval without a terminal, as the run reads it (PETSc's listing: <current : default>)
out=$($MPI -n 2 "$CCPDEM" run "$pile" -o "$W/help" -help petsc 2>&1 < /dev/null)
echo "$out" | grep -qE -- '-progress_interval <2\. : 2\.>' || fail "the default progress interval under mpiexec is not 2 s: $(echo "$out" | grep -- -progress_interval)"
"$CCPDEM" run "$pile" -o "$W/progress2" -set time.end=0.1 -progress_interval 0 > "$W/out" 2> "$W/err" || fail "the run with -progress_interval 0 failed"
[ "$(grep -c '^step ' "$W/err")" -eq 51 ] || fail "-progress_interval 0: $(grep -c '^step ' "$W/err") lines for 50 steps, want 51 (each step and the last)"
echo "  $lines progress line(s), the last: $last; 2 s by default under mpiexec; one a step with -progress_interval 0"
finish test_messages
