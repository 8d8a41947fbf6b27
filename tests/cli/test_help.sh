#!/bin/bash
# ccpdem --version and -help (label cli). Usage: test_help.sh CCPDEM REPO WORKDIR
#  1. --version: exit 0; the version of CMakeLists.txt's project(), the commit the binary was built from (when
#     REPO is a git checkout: HEAD or a commit before it, "-dirty" allowed), the build type, and PETSc, HDF5
#     and MPI versions.
#  2. ccpdem -help: exit 0, nothing on stderr, the usage once, no PETSc option listing (PETSc's device and
#     solver options), at most 110 lines; it lists every option of src/app/option_table.c and every option
#     the sources read (the PetscOptions* calls in src, decomp, io, but PETSc's own families), so that a new
#     option missing from the table fails here, each with a default in brackets; and the progress legend
#     with the '*' of a solve stopped at the iteration cap.
#  3. run -help lists the run options (-decomp_grid, -checkpoint_keep, the penalty model's, -set) and creates
#     no output; check -help, restart -help and fclib -help list theirs; -help petsc still gives PETSc's list.
. "$(dirname "$0")/../script_common.sh" "$@"
cd "$W" || exit 1

echo "1. --version"
out=$("$CCPDEM" --version 2> "$W/err"); rc=$?
[ $rc -eq 0 ] || fail "--version: exit $rc"
[ -s "$W/err" ] && fail "--version wrote to stderr: $(head -3 "$W/err")"
version=$(sed -n 's/^project(ccpdem VERSION \([0-9.]*\).*/\1/p' "$REPO/CMakeLists.txt")
[ -n "$version" ] || fail "no project version in CMakeLists.txt: the sed is broken"
echo "$out" | head -1 | grep -q "^ccpdem $version (commit " || fail "--version's first line: $(echo "$out" | head -1)"
commit=$(echo "$out" | head -1 | sed -n 's/.*(commit \([0-9a-f]\{12\}\)\(-dirty\)\{0,1\})$/\1/p')
if git -C "$REPO" rev-parse HEAD > /dev/null 2>&1; then # a checkout: HEAD, or before it when built before a commit
  [ -n "$commit" ] && git -C "$REPO" merge-base --is-ancestor "$commit" HEAD 2> /dev/null ||
    fail "--version names no commit of HEAD's history: $(echo "$out" | head -1)"
fi
for want in "build: Release" "PETSc|Petsc" "HDF5 [0-9]" "MPI: "; do
  echo "$out" | grep -qE "$want" || fail "--version lacks '$want': $out"
done
echo "$out" | sed 's/^/  /'

echo "2. ccpdem -help"
help=$("$CCPDEM" -help 2> "$W/err"); rc=$?
[ $rc -eq 0 ] || fail "-help: exit $rc"
[ -s "$W/err" ] && fail "-help wrote to stderr: $(head -3 "$W/err")"
[ "$(echo "$help" | grep -c '^Usage:')" -eq 1 ] || fail "-help does not print the usage exactly once"
echo "$help" | grep -qiE 'PETSC ERROR|-device_|-ksp_|-pc_type|-vec_|see below' && fail "-help prints PETSc's option list"
lines=$(echo "$help" | wc -l)
[ "$lines" -le 110 ] || fail "-help has $lines lines, more than 110"
table=$(grep -oE '^ *\{T_[A-Z]+, "-{1,2}[a-z0-9_-]+"' "$REPO/src/app/option_table.c" | grep -oE -- '-{1,2}[a-z0-9_-]+')
[ "$(echo "$table" | wc -l)" -ge 35 ] || fail "only $(echo "$table" | wc -l) options found in option_table.c: the grep is broken"
families=$(sed -n '/petsc_prefixes\[\] = {/,/};/p' "$REPO/src/app/option_check.c" | grep -oE '"[a-z_]+"' | tr -d '"')
[ -n "$families" ] || fail "no PETSc option families found in src/app/option_check.c: the sed is broken"
read_opts=$(grep -rhoE 'PetscOptions[A-Za-z]+\([^;]*"-{1,2}[a-z0-9_]+"' "$REPO"/src "$REPO"/decomp "$REPO"/io |
  grep -oE '"-{1,2}[a-z0-9_]+"' | tr -d '"' | sed 's/^-*//' | sort -u)
[ "$(echo "$read_opts" | wc -l)" -ge 30 ] || fail "only $(echo "$read_opts" | wc -l) options read by the sources: the grep is broken"
n=0
for opt in $table $(for o in $read_opts; do
  petsc=0
  for f in $families; do case $o in "$f"*) petsc=1 ;; esac; done
  [ $petsc = 1 ] || echo "$o"
done); do
  bare=${opt#-}; bare=${bare#-}
  echo "$help" | grep -qE -- "^  -{1,2}$bare( |$)" || fail "-help does not list -$bare"
  echo "$help" | grep -A1 -E -- "^  -{1,2}$bare( |$)" | grep -qE '\[[^]]+\]$' || fail "-help gives no [default] for -$bare"
  n=$((n + 1))
done
echo "  $n options (the table's and those the sources read) listed, each with its default; $lines lines"
echo "$help" | grep -qE '^ *step N/TOTAL .* res R\[\*\]' || fail "-help has no progress legend"
echo "$help" | grep -qE '\* = that solve stopped at the' || fail "-help does not explain the progress line's '*'"

echo "3. each command's -help"
out=$("$CCPDEM" run "$REPO/tests/restart/pile.yaml" -o "$W/run" -help 2>&1); rc=$?
[ $rc -eq 0 ] || fail "run -help: exit $rc"
[ -e "$W/run" ] && fail "run -help created its output directory"
for opt in -decomp_grid -checkpoint_keep -penalty_simd -penalty_per_contact -ghost_update -balance_interval -set \
  -progress_interval --overwrite -ccp_tol -neighbour_skin; do
  echo "$out" | grep -qE -- "^  $opt( |$)" || fail "run -help does not list $opt"
done
echo "$out" | grep -qE -- "^  --until( |$)" && fail "run -help lists restart's --until"
out=$("$CCPDEM" restart -help 2>&1) || fail "restart -help: exit $?"
echo "$out" | grep -qE -- "^  --until T" || fail "restart -help does not list --until"
out=$("$CCPDEM" check -help 2>&1) || fail "check -help: exit $?"
echo "$out" | grep -qE -- "^  -set KEY=VALUE" || fail "check -help does not list -set"
out=$("$CCPDEM" fclib -help 2>&1) || fail "fclib -help: exit $?"
echo "$out" | grep -qE -- "^  -fclib_guess B" || fail "fclib -help does not list -fclib_guess"
out=$("$CCPDEM" run "$REPO/tests/restart/pile.yaml" -o "$W/run" -help petsc 2>&1); rc=$?
[ $rc -eq 0 ] || fail "run -help petsc: exit $rc"
echo "$out" | grep -qE -- "-ccp_tol <" || fail "run -help petsc does not give PETSc's listing of -ccp_tol"
[ -e "$W/run" ] && fail "run -help petsc created its output directory"
echo "  run, restart, check and fclib -help list their options; -help petsc gives PETSc's list"
finish test_help
