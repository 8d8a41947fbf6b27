#!/bin/bash
# Command-line option errors through the binary (label cli). Usage: test_option_errors.sh CCPDEM REPO WORKDIR
#  1. run, restart and check refuse an option that nothing reads: exit 2, one "ccpdem: error:"
#     line naming it, a suggestion when a ccpdem option is near (-ccp_tolerance: -ccp_tol), and run
#     creates no output directory and leaves an existing one's files untouched.
#  2. Options read only in some runs pass where unused (-penalty_simd in a CCP run, -decomp_grid
#     and the checkpoint options), as do PETSc's own read at its finalize (-options_left).
#  3. Bad option values (out of range, not a number, not one of the choices) of the stepper, the
#     solver, the run loop and the checkpoints are bad input too: exit 2 and one "ccpdem: error:
#     command line: ..." line (also on 2 ranks), before the output directory is created; among
#     them -checkpoint_keep, which was read only at the first checkpoint; a value PETSc cannot parse
#     names its option ("-ccp_tol: Input string abc ..."). check refuses what a run refuses before its
#     first step: -ccp_packed, -ccp_type, the solver's ranges and -ccp_type ipm's scope (a scenario with
#     joints).
#  4. Every option the sources read (PetscOptions* calls in src, decomp, io) is in src/app/option_table.c,
#     so that none is refused as unknown in a run that does not read it.
. "$(dirname "$0")/../script_common.sh" "$@"
pile=$REPO/tests/restart/pile.yaml

refused() { # command, expected text, arguments...
  local cmd=$1 expect=$2 out rc; shift 2
  out=$("$CCPDEM" $cmd "$@" 2>&1); rc=$?
  [ $rc -eq 2 ] || fail "$cmd $*: exit $rc, expected 2"
  [ "$(echo "$out" | grep -c '^ccpdem: error:')" -eq 1 ] || fail "$cmd $*: not one error line: $out"
  echo "$out" | grep -q -- "$expect" || fail "$cmd $*: the error lacks '$expect': $out"
  echo "  refused: $(echo "$out" | grep '^ccpdem: error:')"
}
refused run "unknown option -ccp_tolerance .*did you mean -ccp_tol?" "$pile" -ccp_tolerance 1e-3 -o "$W/new"
[ -e "$W/new" ] && fail "a refused run created its output directory"
refused run "unknown option -xyzzy .*remove it" "$pile" -xyzzy -o "$W/new"
refused run "-neighbour_skin must be >= 0" "$pile" -neighbour_skin -1 -o "$W/new"
refused run "command line: -ccp_tol: Input string abc has no numeric value; give a number" "$pile" -ccp_tol abc -o "$W/new"
refused run "Unknown option foo for -ccp_type" "$pile" -ccp_type foo -o "$W/new"
refused run "-checkpoint_keep must be >= 1" "$pile" -checkpoint_every_steps 100 -checkpoint_keep 0 -o "$W/new"
refused run "-progress_interval must be >= 0" "$pile" -progress_interval -2 -o "$W/new"
[ -e "$W/new" ] && fail "a refused run created its output directory"
out=$(mpiexec --oversubscribe --allow-run-as-root -n 2 "$CCPDEM" run "$pile" -ccp_gs_omega 3 -o "$W/new2" 2>&1)
[ "$(echo "$out" | grep -c '^ccpdem: error: command line: -ccp_gs_omega 3. must be in (0, 2)')" -eq 1 ] || fail "2 ranks: not one error line for -ccp_gs_omega 3: $out"
echo "$out" | grep -q "PETSC ERROR" && fail "2 ranks: a PETSc trace for a bad option value: $out"
[ -e "$W/new2" ] && fail "a refused 2-rank run created its output directory"
refused check "unknown option -ccp_warmstart_decay .*did you mean -ccp_warm_start_decay?" "$pile" -ccp_warmstart_decay 0.5
refused check "-ccp_packed: Unknown logical value: abc; give true or false" "$pile" -ccp_packed abc
# check sets the simulation up as a run does: the solver's options and its scope are refused there too
refused check "-ccp_max_it: Input string 1.5 has no integer value.*; give a whole number" "$pile" -ccp_max_it 1.5
refused check "Unknown option foo for -ccp_type" "$pile" -ccp_type foo
refused check "-ccp_ipm_polish -1 is negative" "$pile" -ccp_ipm_polish -1
refused check "-ccp_type ipm (the interior-point method) has no joint rows" "$REPO/tests/restart/joints.yaml" -ccp_type ipm
refused check "-ccp_warm_start_decay must be in \\[0, 1\\]" "$pile" -ccp_warm_start_decay 2

# a finished short run: a refused rerun or restart into it changes none of its files
"$CCPDEM" run "$pile" -o "$W/done" -checkpoint_every_steps 100 > "$W/done.log" 2>&1 || fail "the reference run failed: $(tail -3 "$W/done.log")"
before=$(cd "$W/done" && find . -type f -exec md5sum {} + | sort)
refused run "unknown option -ccp_max_iterations .*did you mean -ccp_max_it?" "$pile" -o "$W/done" -ccp_max_iterations 10
ckpt=$(ls "$W"/done/checkpoints/*.h5 2>/dev/null | head -1)
[ -n "$ckpt" ] || fail "the reference run wrote no checkpoint"
[ -n "$ckpt" ] && refused restart "unknown option -untill" "$ckpt" --until 1 -untill 2
[ -n "$ckpt" ] && refused restart "-ccp_jacobi_lambda 2. must be in (0, 1]" "$ckpt" --until 1 -ccp_jacobi_lambda 2
after=$(cd "$W/done" && find . -type f -exec md5sum {} + | sort)
[ "$before" = "$after" ] || fail "a refused run changed the files of the existing output directory"

# options unused in this run but ccpdem's, and PETSc's finalize-time ones, pass
out=$("$CCPDEM" run "$pile" -o "$W/pass" -penalty_simd avx2 -decomp_grid 1,1,1 -checkpoint_keep 3 2>&1) || fail "a run with unused ccpdem options was refused: $(echo "$out" | tail -3)"
out=$("$CCPDEM" run "$pile" -o "$W/pass2" -ccp_tol 1e-3 -options_left 2>&1) || fail "a run with -options_left was refused: $(echo "$out" | tail -3)"
echo "$out" | grep -q "There are no unused options" || fail "-options_left did not report all options used: $(echo "$out" | tail -5)"

# every option the sources read is in the table, or belongs to a PETSc family that option_check.c lets
# through whole (petsc_prefixes: ccpdem reads -on_error_abort to know whether to print a trace)
list=$REPO/src/app/option_table.c
families=$(sed -n '/petsc_prefixes\[\] = {/,/};/p' "$REPO/src/app/option_check.c" | grep -oE '"[a-z_]+"' | tr -d '"')
[ -n "$families" ] || fail "no PETSc option families found in src/app/option_check.c: the sed is broken"
for opt in $(grep -rhoE 'PetscOptions[A-Za-z]+\([^;]*"-[a-z0-9_]+"' "$REPO"/src "$REPO"/decomp "$REPO"/io | grep -oE '"-[a-z0-9_]+"' | tr -d '"-' | sort -u); do
  petsc=0
  for f in $families; do case $opt in "$f"*) petsc=1 ;; esac; done
  [ $petsc = 1 ] || grep -qE "\"-{1,2}$opt\"" "$list" || fail "option -$opt is read by the sources but not listed in src/app/option_table.c"
  n=$((${n:-0} + 1))
done
[ "${n:-0}" -ge 30 ] || fail "only ${n:-0} options found in the sources: the grep is broken"
echo "  $n options read by the sources, all listed"
finish test_option_errors
