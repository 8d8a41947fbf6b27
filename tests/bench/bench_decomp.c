/* Decomposition benchmark (issue: Distributed memory; a program, not a test). Continues a settled
 * pile from a checkpoint on this run's ranks and prints what the targets ask for:
 *   iterations to reach the tolerance (default 1e-4 m/s) per step, the same solve as on one rank
 *     (the iteration count of the distributed APGD is the outer iteration count: one pass over the
 *     rank's contacts, one velocity exchange and one Allreduce per iteration);
 *   imbalance (max / mean owned bodies) with the uniform cuts and after load balancing;
 *   seconds per step, seconds in communication per step (the largest over ranks);
 *   bytes sent per step per rank, and per owned body.
 * Usage: mpiexec -n P bench_decomp CHECKPOINT [-steps K (measured steps, default 10)]
 *        [-ccp_tol T (default: the scenario's)] [-ccp_max_it M (default 20000)]
 * The first step after the restart places the bodies and balances (not measured); the next K steps
 * are measured with the cuts fixed. jobs/bench_decomp.sh prepares the piles and runs it. */
#include "step/simulation.h"
#include <stdio.h>

int main(int argc, char **argv)
{
  Simulation  sim;
  char        err[1024] = "", file[PETSC_MAX_PATH_LEN] = "";
  PetscInt    steps = 10, its = 0, its_max = 0, unconverged = 0;
  PetscMPIInt size;
  PetscBool   has_file;
  double      tol, before, after, t_step = 0, t_comm = 0, bytes = 0, owned_mean;
  PetscInt64  bodies;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (argc > 1 && argv[1][0] != '-') PetscCall(PetscStrncpy(file, argv[1], sizeof(file)));
  has_file = (PetscBool)(file[0] != 0);
  PetscCheck(has_file, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "usage: bench_decomp CHECKPOINT [-steps K]");
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &steps, NULL));
  {
    PetscBool set;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-ccp_max_it", &set));
    if (!set) PetscCall(PetscOptionsSetValue(NULL, "-ccp_max_it", "20000"));
  }
  /* placement step with uniform cuts, then balance once and keep the cuts */
  PetscCall(PetscOptionsSetValue(NULL, "-balance_interval", "0"));
  PetscCall(PetscOptionsSetValue(NULL, "-balance_threshold", "0")); /* uniform cuts until SimulationBalance */
  PetscCall(SimulationCreateFromCheckpoint(PETSC_COMM_WORLD, file, &sim, err, sizeof(err)));
  PetscCheck(sim, PETSC_COMM_WORLD, PETSC_ERR_FILE_UNEXPECTED, "%s", err);
  PetscCall(SimulationStep(sim));
  before = SimulationLastStep(sim)->imbalance;
  PetscCall(SimulationBalance(sim)); /* the next step migrates to the new cuts */
  PetscCall(SimulationStep(sim));    /* migrates: not measured */
  after = SimulationLastStep(sim)->imbalance;
  for (PetscInt k = 0; k < steps; k++) {
    double t0 = MPI_Wtime(), dt, comm;
    PetscCall(SimulationStep(sim));
    dt = MPI_Wtime() - t0;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    comm = SimulationLastStep(sim)->wall_comm;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &comm, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    t_step += dt;
    t_comm += comm;
    its += SimulationLastStep(sim)->iterations;
    its_max = PetscMax(its_max, SimulationLastStep(sim)->iterations);
    unconverged += !SimulationLastStep(sim)->converged;
    bytes += (double)SimulationLastStep(sim)->bytes_sent / size;
  }
  bodies     = SimulationLastStep(sim)->bodies;
  owned_mean = (double)bodies / size;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "bench_decomp %s: %d ranks, %" PetscInt64_FMT " bodies, %" PetscInt64_FMT
                        " contacts, %" PetscInt64_FMT " ghosts\n",
                        file, size, bodies, SimulationLastStep(sim)->contacts, SimulationLastStep(sim)->ghosts));
  PetscCall(CCPSolverGetTolerance(SimulationSolver(sim), &tol));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  iterations to %.0e m/s: mean %.1f, max %" PetscInt_FMT " over %" PetscInt_FMT
                        " steps (%" PetscInt_FMT " not converged)\n",
                        tol, (double)its / steps, its_max, steps, unconverged));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  imbalance (max/mean owned bodies): uniform cuts %.3f, after balancing %.3f\n", before,
                        after));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  seconds per step %.4f, of which communication %.4f (%.1f%%)\n",
                        t_step / steps, t_comm / steps, 100 * t_comm / t_step));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  bytes sent per step per rank %.3e, per owned body %.1f, per owned body and iteration %.3f\n",
                        bytes / steps, bytes / steps / owned_mean, its ? bytes / its / owned_mean : 0.0));
  PetscCall(SimulationDestroy(&sim));
  PetscCall(PetscFinalize());
  return 0;
}
