/* The ccp/solver.h coupling over a PetscSF of owned bodies (roots) and ghosts (leaves). See
 * velocity_coupling.h. */
#include "decomp/velocity_coupling.h"
#include "base/growth.h"
#include <petscsf.h>

struct _p_VelocityCoupling {
  MPI_Comm      comm;
  PetscSF       sf;      /* roots: owned bodies; leaves: ghosts 0 .. n_ghost - 1 */
  MPI_Datatype  unit6;   /* one body's 6 velocity values */
  MPI_Op        sum_max; /* sum of all entries but the last, maximum of the last */
  PetscInt      n_owned, n_ghost, n_shared, n_copies;
  PetscInt     *shared;      /* owned bodies with ghost copies elsewhere */
  double       *root, *leaf; /* 6 n_owned (shared entries used), 6 n_ghost */
  double       *mark;        /* 6 n_ghost: the ghosts' velocities at the mark */
  size_t        owned_cap, ghost_cap;
  CouplingStats stats;
};

/* MPI user op: inout[k] += in[k] for k < n - 1; inout[n-1] = max (NaN wins, so a diverging rank is seen). */
static void SumMaxOp(void *in, void *inout, int *len, MPI_Datatype *type)
{
  const double *a = (const double *)in;
  double       *b = (double *)inout;
  (void)type;
  for (int k = 0; k < *len - 1; k++) b[k] += a[k];
  if (*len > 0 && !(a[*len - 1] <= b[*len - 1])) b[*len - 1] = a[*len - 1];
}

PetscErrorCode VelocityCouplingCreate(MPI_Comm comm, VelocityCoupling *vcp)
{
  VelocityCoupling vc;

  PetscFunctionBegin;
  PetscCall(PetscNew(&vc));
  vc->comm = comm;
  PetscCallMPI(MPI_Type_contiguous(6, MPI_DOUBLE, &vc->unit6));
  PetscCallMPI(MPI_Type_commit(&vc->unit6));
  PetscCallMPI(MPI_Op_create(SumMaxOp, 1, &vc->sum_max));
  *vcp = vc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VelocityCouplingDestroy(VelocityCoupling *vcp)
{
  VelocityCoupling vc = *vcp;

  PetscFunctionBegin;
  if (!vc) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscSFDestroy(&vc->sf));
  PetscCallMPI(MPI_Type_free(&vc->unit6));
  PetscCallMPI(MPI_Op_free(&vc->sum_max));
  PetscCall(PetscFree2(vc->shared, vc->root));
  PetscCall(PetscFree2(vc->leaf, vc->mark));
  PetscCall(PetscFree(*vcp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VelocityCouplingSetUp(VelocityCoupling vc, const Exchange *ex)
{
  PetscSFNode *iremote;

  PetscFunctionBegin;
  PetscCall(PetscSFDestroy(&vc->sf));
  vc->n_owned = ex->n_owned;
  vc->n_ghost = ex->n_ghost;
  if ((size_t)ex->n_owned + 1 > vc->owned_cap) {
    PetscCall(PetscFree2(vc->shared, vc->root));
    vc->owned_cap = GrowthCapacity(vc->owned_cap, (size_t)ex->n_owned + 1);
    PetscCall(PetscMalloc2(vc->owned_cap, &vc->shared, 6 * vc->owned_cap, &vc->root));
  }
  if ((size_t)ex->n_ghost + 1 > vc->ghost_cap) {
    PetscCall(PetscFree2(vc->leaf, vc->mark));
    vc->ghost_cap = GrowthCapacity(vc->ghost_cap, (size_t)ex->n_ghost + 1);
    PetscCall(PetscMalloc2(6 * vc->ghost_cap, &vc->leaf, 6 * vc->ghost_cap, &vc->mark));
  }
  PetscCheck(ex->shared_start, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "VelocityCouplingSetUp: the exchange was built without its copy lists (skip_copy_lists)");
  vc->n_shared = 0;
  for (PetscInt i = 0; i < ex->n_owned; i++)
    if (ex->shared_start[i + 1] > ex->shared_start[i]) vc->shared[vc->n_shared++] = i;
  vc->n_copies = ex->shared_start[ex->n_owned];
  PetscCall(PetscMalloc1(ex->n_ghost, &iremote));
  for (PetscInt g = 0; g < ex->n_ghost; g++) {
    iremote[g].rank  = ex->ghost_owner_rank[g];
    iremote[g].index = ex->ghost_owner_index[g];
  }
  PetscCall(PetscSFCreate(vc->comm, &vc->sf));
  PetscCall(PetscSFSetGraph(vc->sf, ex->n_owned, ex->n_ghost, NULL, PETSC_COPY_VALUES, iremote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(vc->sf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Mark(void *ctx, const double *v, size_t stride)
{
  VelocityCoupling vc = (VelocityCoupling)ctx;

  PetscFunctionBegin;
  for (PetscInt g = 0; g < vc->n_ghost; g++) {
    const double *src = v + stride * (size_t)(vc->n_owned + g);
    for (int k = 0; k < 6; k++) vc->mark[6 * g + k] = src[k];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Sum(void *ctx, double *v, size_t stride)
{
  VelocityCoupling vc = (VelocityCoupling)ctx;
  const double     t0 = MPI_Wtime();

  PetscFunctionBegin;
  PetscCheck(vc->sf, vc->comm, PETSC_ERR_ARG_WRONGSTATE,
             "VelocityCoupling: call VelocityCouplingSetUp after each ghost build");
  for (PetscInt g = 0; g < vc->n_ghost; g++) { /* what this rank's pass added to its ghosts */
    const double *x = v + stride * (size_t)(vc->n_owned + g);
    for (int k = 0; k < 6; k++) vc->leaf[6 * g + k] = x[k] - vc->mark[6 * g + k];
  }
  for (PetscInt j = 0; j < vc->n_shared; j++) {
    const PetscInt i = vc->shared[j];
    for (int k = 0; k < 6; k++) vc->root[6 * i + k] = v[stride * (size_t)i + k];
  }
  PetscCall(PetscSFReduceBegin(vc->sf, vc->unit6, vc->leaf, vc->root, MPI_SUM));
  PetscCall(PetscSFReduceEnd(vc->sf, vc->unit6, vc->leaf, vc->root, MPI_SUM));
  PetscCall(PetscSFBcastBegin(vc->sf, vc->unit6, vc->root, vc->leaf, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(vc->sf, vc->unit6, vc->root, vc->leaf, MPI_REPLACE));
  for (PetscInt j = 0; j < vc->n_shared; j++) {
    const PetscInt i = vc->shared[j];
    for (int k = 0; k < 6; k++) v[stride * (size_t)i + k] = vc->root[6 * i + k];
  }
  for (PetscInt g = 0; g < vc->n_ghost; g++) {
    double *x = v + stride * (size_t)(vc->n_owned + g);
    for (int k = 0; k < 6; k++) x[k] = vc->leaf[6 * g + k];
  }
  vc->stats.bytes_sent += (PetscInt64)(vc->n_ghost + vc->n_copies) * 6 * (PetscInt64)sizeof(double);
  vc->stats.sums++;
  vc->stats.seconds += MPI_Wtime() - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Reduce(void *ctx, double *x, int n)
{
  VelocityCoupling vc = (VelocityCoupling)ctx;
  const double     t0 = MPI_Wtime();

  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, vc->sum_max, vc->comm));
  vc->stats.bytes_sent += (PetscInt64)n * (PetscInt64)sizeof(double);
  vc->stats.reductions++;
  vc->stats.seconds += MPI_Wtime() - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscInt Owned(void *ctx) { return ((VelocityCoupling)ctx)->n_owned; }

PetscErrorCode VelocityCouplingGetHooks(VelocityCoupling vc, CCPCoupling *hooks)
{
  PetscFunctionBegin;
  hooks->ctx    = vc;
  hooks->mark   = Mark;
  hooks->sum    = Sum;
  hooks->reduce = Reduce;
  hooks->owned  = Owned;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VelocityCouplingGetStats(VelocityCoupling vc, CouplingStats *st)
{
  PetscFunctionBegin;
  *st = vc->stats;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode VelocityCouplingResetStats(VelocityCoupling vc)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(&vc->stats, sizeof(vc->stats)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
