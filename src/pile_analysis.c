/* See pile_analysis.h. */
#include "pile_analysis.h"

/* Positions and radii of all bodies on rank 0 (x y z r per body); *n there, 0 elsewhere. */
static PetscErrorCode GatherOnRoot(const Simulation *sim, double **xyzr, PetscInt *n)
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

PetscErrorCode SimulationRepose(const Simulation *sim, ReposeResult res[], int status[])
{
  const int      np = sim->sc.n_repose;
  double        *xyzr, *pos, *radius;
  unsigned char *keep;
  PetscInt       n = 0;
  PetscMPIInt    rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(sim->comm, &rank));
  PetscCall(GatherOnRoot(sim, &xyzr, &n));
  PetscCall(PetscMalloc3(3 * n + 1, &pos, n + 1, &radius, n + 1, &keep));
  for (PetscInt i = 0; i < n; i++) {
    for (int k = 0; k < 3; k++) pos[3 * i + k] = xyzr[4 * i + k];
    radius[i] = xyzr[4 * i + 3];
  }
  for (int p = 0; p < np && !rank; p++) {
    const ReposeSpec *spec    = &sim->sc.repose[p];
    double            floor_z = PETSC_INFINITY;
    for (PetscInt i = 0; i < n; i++) {
      keep[i] = pos[3 * i] >= spec->x_min && pos[3 * i] <= spec->x_max;
      if (keep[i]) floor_z = PetscMin(floor_z, pos[3 * i + 2] - radius[i]);
    }
    status[p] = repose_angle((size_t)n, pos, radius, keep, floor_z, &res[p]);
  }
  PetscCallMPI(MPI_Bcast(status, np, MPI_INT, 0, sim->comm));
  PetscCallMPI(MPI_Bcast(res, np * (PetscMPIInt)sizeof(ReposeResult), MPI_BYTE, 0, sim->comm));
  PetscCall(PetscFree3(pos, radius, keep));
  PetscCall(PetscFree(xyzr));
  PetscFunctionReturn(PETSC_SUCCESS);
}
