/* See balance.h. */
#include "decomp/balance.h"

/* Cuts of one axis from its global histogram: interior cut j at the j/p quantile, then at least
 * halo apart (and from the ends), which is feasible because DomainSetHalo accepted the uniform grid. */
static void CutsFromHistogram(const PetscInt64 *count, double lo, double hi, PetscInt p, double halo, double *cuts)
{
  const double width = (hi - lo) / BALANCE_BINS;
  PetscInt64   total = 0, below = 0;
  PetscInt     b = 0;

  for (PetscInt k = 0; k < BALANCE_BINS; k++) total += count[k];
  cuts[0] = lo;
  cuts[p] = hi;
  for (PetscInt j = 1; j < p; j++) {
    const double target = (double)total * (double)j / (double)p;
    while (b < BALANCE_BINS - 1 && (double)(below + count[b]) < target) below += count[b++];
    const double frac = count[b] > 0 ? PetscClipInterval((target - (double)below) / (double)count[b], 0.0, 1.0) : 0.5;
    cuts[j]           = total > 0 ? lo + width * ((double)b + frac) : lo + (hi - lo) * (double)j / (double)p;
  }
  const double gap = halo * (1 + 1e-9); /* so that rounding cannot make a slab narrower than halo */
  for (PetscInt j = 1; j < p; j++) cuts[j] = PetscMax(cuts[j], cuts[j - 1] + gap);
  for (PetscInt j = p - 1; j >= 1; j--) cuts[j] = PetscMin(cuts[j], cuts[j + 1] - gap);
}

PetscErrorCode DomainBalance(Domain d, const BodyStore *s, PetscBool *moved)
{
  MPI_Comm    comm;
  PetscInt    dims[3];
  double      lo[3], hi[3], halo;
  PetscInt64 *local, *global;

  PetscFunctionBegin;
  *moved = PETSC_FALSE;
  PetscCall(DomainGetComm(d, &comm));
  PetscCall(DomainGetGrid(d, dims));
  PetscCall(DomainGetBounds(d, lo, hi));
  PetscCall(DomainGetHalo(d, &halo));
  PetscCall(PetscMalloc2(BALANCE_BINS, &local, BALANCE_BINS, &global));
  for (PetscInt axis = 0; axis < 3; axis++) {
    const double *old;
    double       *cuts;
    PetscBool     same = PETSC_TRUE;

    if (dims[axis] == 1) continue;
    PetscCall(PetscArrayzero(local, BALANCE_BINS));
    for (PetscInt i = 0; i < s->n_owned; i++) {
      const double x = (s->pos[3 * i + axis] - lo[axis]) / (hi[axis] - lo[axis]) * BALANCE_BINS;
      local[PetscClipInterval((PetscInt)x, 0, BALANCE_BINS - 1)]++;
    }
    PetscCallMPI(MPI_Allreduce(local, global, BALANCE_BINS, MPIU_INT64, MPI_SUM, comm));
    PetscCall(PetscMalloc1(dims[axis] + 1, &cuts));
    CutsFromHistogram(global, lo[axis], hi[axis], dims[axis], halo, cuts);
    PetscCall(DomainGetCuts(d, axis, &old));
    for (PetscInt j = 0; j <= dims[axis]; j++) same = (PetscBool)(same && cuts[j] == old[j]);
    if (!same) {
      PetscCall(DomainSetCuts(d, axis, cuts));
      *moved = PETSC_TRUE;
    }
    PetscCall(PetscFree(cuts));
  }
  PetscCall(PetscFree2(local, global));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainImbalance(Domain d, PetscInt n_owned, double *imbalance)
{
  MPI_Comm    comm;
  PetscMPIInt size;
  PetscInt64  mine = n_owned, total, most;

  PetscFunctionBegin;
  PetscCall(DomainGetComm(d, &comm));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Allreduce(&mine, &total, 1, MPIU_INT64, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(&mine, &most, 1, MPIU_INT64, MPI_MAX, comm));
  *imbalance = total > 0 ? (double)most * size / (double)total : 1.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
