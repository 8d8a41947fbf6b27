/* See step/pile_analysis.h. */
#include "step/pile_analysis.h"
#include "step/simulation_impl.h"

/* Positions and radii of all bodies on rank 0 (x y z r per body); *n there, 0 elsewhere. */
static PetscErrorCode GatherOnRoot(Simulation sim, double **xyzr, PetscInt *n)
{
  const BodyStore *s = &sim->bodies;
  PetscMPIInt      size, rank, n4 = (PetscMPIInt)(4 * s->n_owned), *counts = NULL, *displs = NULL;
  double          *mine;
  PetscInt         total = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(sim->comm, &size));
  PetscCallMPI(MPI_Comm_rank(sim->comm, &rank));
  PetscCall(PetscMalloc1(n4 + 1, &mine));
  for (PetscInt i = 0; i < s->n_owned; i++) {
    for (int k = 0; k < 3; k++) mine[4 * i + k] = s->pos[3 * i + k];
    mine[4 * i + 3] = s->radius[i];
  }
  if (!rank) PetscCall(PetscMalloc2(size, &counts, size, &displs));
  PetscCallMPI(MPI_Gather(&n4, 1, MPI_INT, counts, 1, MPI_INT, 0, sim->comm));
  for (int r = 0; !rank && r < size; r++) {
    displs[r] = (PetscMPIInt)total;
    total += counts[r];
  }
  PetscCall(PetscMalloc1(total + 1, xyzr));
  PetscCallMPI(MPI_Gatherv(mine, n4, MPI_DOUBLE, *xyzr, counts, displs, MPI_DOUBLE, 0, sim->comm));
  *n = total / 4;
  if (!rank) PetscCall(PetscFree2(counts, displs));
  PetscCall(PetscFree(mine));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimulationRepose(Simulation sim, ReposeResult res[], int status[])
{
  const int   np = sim->sc.n_repose;
  double     *xyzr, *pos, *radius;
  PetscInt    n = 0;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(sim->comm, &rank));
  PetscCall(GatherOnRoot(sim, &xyzr, &n));
  PetscCall(PetscMalloc2(3 * n + 1, &pos, n + 1, &radius));
  for (PetscInt i = 0; i < n; i++) {
    for (int k = 0; k < 3; k++) pos[3 * i + k] = xyzr[4 * i + k];
    radius[i] = xyzr[4 * i + 3];
  }
  for (int p = 0; p < np && !rank; p++) {
    size_t kept;
    double floor_z;
    status[p] = repose_angle_x_range((size_t)n, pos, radius, sim->sc.repose[p].x_min, sim->sc.repose[p].x_max, NULL,
                                     &res[p], &kept, &floor_z);
  }
  PetscCallMPI(MPI_Bcast(status, np, MPI_INT, 0, sim->comm));
  PetscCallMPI(MPI_Bcast(res, np * (PetscMPIInt)sizeof(ReposeResult), MPI_BYTE, 0, sim->comm));
  PetscCall(PetscFree2(pos, radius));
  PetscCall(PetscFree(xyzr));
  PetscFunctionReturn(PETSC_SUCCESS);
}
