#!/usr/bin/env bash
# Start an MPI program (ccpdem) on the tasks of the current SLURM allocation.
#   Called:  launch.sh PROGRAM [ARGS...]    execs the launcher, so that this process IS the launcher
#            (run.sbatch starts it in its own process group and signals that group).
#   Sourced: defines ccpdem_launcher, which fills the array CCPDEM_LAUNCH (launcher and its options).
# The choice, printed as one line "launch: ...":
#   srun --mpi=pmix  inside a SLURM job when srun exists and SLURM has its PMIx plugin (Debian's
#                    Open MPI is built with PMIx; with --mpi=none or pmi2 its MPI_Init fails);
#   mpirun           otherwise (Open MPI reads the SLURM allocation itself), with --oversubscribe
#                    (more ranks than cores still runs) and, as root, --allow-run-as-root.
# CCPDEM_LAUNCHER=srun|mpirun forces one. The rank count is SLURM_NTASKS when set, else the
# launcher's default (srun: the allocation's tasks, mpirun: the slots it finds).

ccpdem_launcher() {
  local how=${CCPDEM_LAUNCHER:-} why
  if [ -n "$how" ]; then
    why="forced by CCPDEM_LAUNCHER"
  elif [ -z "${SLURM_JOB_ID:-}" ]; then
    how=mpirun why="not inside a SLURM job"
  elif ! command -v srun > /dev/null; then
    how=mpirun why="no srun on PATH"
  elif ! srun --mpi=list 2>&1 | grep -qw pmix; then
    how=mpirun why="srun --mpi=list has no pmix plugin"
  else
    how=srun why="SLURM job $SLURM_JOB_ID and srun has the pmix plugin"
  fi
  case $how in
    srun) CCPDEM_LAUNCH=(srun --mpi=pmix) ;;
    mpirun)
      CCPDEM_LAUNCH=(mpirun --oversubscribe)
      if [ "$(id -u)" = 0 ]; then
        CCPDEM_LAUNCH+=(--allow-run-as-root)
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      fi ;;
    *) echo "launch: CCPDEM_LAUNCHER='$how' is neither srun nor mpirun" >&2; return 2 ;;
  esac
  [ -n "${SLURM_NTASKS:-}" ] && CCPDEM_LAUNCH+=(-n "$SLURM_NTASKS")
  echo "launch: ${CCPDEM_LAUNCH[*]} ($why)"
}

# Called rather than sourced: launch the command line given.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -u
  [ $# -ge 1 ] || { echo "usage: launch.sh PROGRAM [ARGS...]" >&2; exit 2; }
  ccpdem_launcher || exit
  exec "${CCPDEM_LAUNCH[@]}" "$@"
fi
