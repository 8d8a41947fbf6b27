#!/bin/bash
# What -ccp_type ipm refuses at set-up (label ccp). Usage: test_ipm_refusals.sh CCPDEM REPO WORKDIR
# Each with exactly one error line naming what to change, exit 2 and no output directory written (several ranks
# are not refused: tests/ccp/test_ipm_ranks.sh):
#  1. a scenario with joints, a material with cohesion, one with a yield force (cones the method does not have), from
#     -ccp_type ipm, -set solver.type=ipm and solver.type ipm in a file (refused at that key, with file and line);
#  2. -ccp_ipm_* values out of range (a negative -ccp_ipm_polish among them), and KSP options that are not a solve
#     of the Newton systems;
#  3. on several ranks, contact.overlap_correction position (its position pass would solve with the IPM coupled).
. "$(dirname "$0")/../script_common.sh" "$@"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
bed=$REPO/tests/ccp/bed.yaml
k=0
# refused NPROCS REGEX ARGS...: ccpdem run ARGS on NPROCS ranks exits 2 with one error line matching REGEX.
refused() {
  local np=$1 want=$2 out rc
  shift 2
  k=$((k + 1))
  if [ "$np" -gt 1 ]; then
    out=$(mpiexec --oversubscribe --allow-run-as-root -n "$np" "$CCPDEM" run "$@" -o "$W/out$k" 2>&1)
  else
    out=$("$CCPDEM" run "$@" -o "$W/out$k" 2>&1)
  fi
  rc=$?
  [ $rc -eq 2 ] || fail "$*: exit $rc, 2 expected: $out"
  [ "$(echo "$out" | grep -c '^ccpdem: error:')" -eq 1 ] || fail "$*: not one error line: $out"
  echo "$out" | grep '^ccpdem: error:' | grep -qE -- "$want" || fail "$*: the error does not say '$want': $out"
  [ -e "$W/out$k" ] && fail "$*: the refused run wrote $W/out$k"
  echo "  refused: $(echo "$out" | grep '^ccpdem: error:' | cut -c1-150)"
}
refused 2 "has no joint rows, and the scenario has [0-9]+ joints" "$REPO/tests/fuzz/base_joints.yaml" -ccp_type ipm
refused 1 "has no cohesion or yield force.*'glass' and 'glass' has a cohesion" "$bed" -ccp_type ipm \
  -set "materials[0].cohesion=1"
refused 1 "has no cohesion or yield force.*has a yield force" "$bed" -set solver.type=ipm -set "materials[0].yield_force=5"
# solver.type ipm written in the file: refused at that key, with the file's name and line.
sed -e 's/type: apgd/type: ipm/' -e 's/spinning_friction: 0.002}/spinning_friction: 0.002, cohesion: 0.5}/' "$bed" \
  > "$W/ipm_cohesion.yaml"
refused 1 "ipm_cohesion.yaml:9: key 'solver.type': ipm .*materials\[0\] \('glass'\) has a cohesion" \
  "$W/ipm_cohesion.yaml"
refused 1 "-ccp_ipm_cluster_ratio .*must be a positive number" "$bed" -ccp_type ipm -ccp_ipm_cluster_ratio 0
refused 1 "-ccp_ipm_cluster_max .*must be >= 1" "$bed" -ccp_type ipm -ccp_ipm_cluster_max 0
refused 1 "-ccp_ipm_rtol_max .*must be in \(0, 1\)" "$bed" -ccp_type ipm -ccp_ipm_rtol_max 1
refused 1 "-ccp_ipm_start_shift .*must be a positive number" "$bed" -ccp_type ipm -ccp_ipm_start_shift -1
refused 1 "-ccp_ipm_polish -1 is negative: give a count of APGD iterations >= 0" "$bed" -ccp_type ipm \
  -ccp_ipm_polish -1
refused 1 "Unknown option bogus for -ccp_ipm_cluster_coarse" "$bed" -ccp_type ipm -ccp_ipm_cluster_coarse bogus
refused 1 "-ccp_ipm_cluster_coarse additive needs the cluster preconditioner" "$bed" -ccp_type ipm \
  -ccp_ipm_cluster_pc false -ccp_ipm_cluster_coarse additive
refused 1 "-ccp_ipm_ksp_type preonly applies the cluster block Jacobi once" "$bed" -ccp_type ipm -ccp_ipm_ksp_type preonly
refused 1 "-ccp_ipm_ksp_type preonly with -ccp_ipm_pc_type jacobi is not a solve" "$bed" -ccp_type ipm \
  -ccp_ipm_ksp_type preonly -ccp_ipm_pc_type jacobi
refused 1 "Unable to find requested KSP type nosuch" "$bed" -ccp_type ipm -ccp_ipm_ksp_type nosuch
refused 1 "both shell" "$bed" -ccp_type ipm -ccp_ipm_probe -ccp_ipm_pc_type shell
refused 2 "solver type ipm with contact.overlap_correction position runs on 1 rank only" "$bed" -ccp_type ipm \
  -set contact.overlap_correction=position
finish test_ipm_refusals
