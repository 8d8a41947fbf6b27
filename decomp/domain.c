/* The process grid and its geometric queries. See domain.h. */
#include "decomp/domain.h"
#include <math.h>
#include <stdio.h>

struct _p_Domain {
  MPI_Comm     dup;                   /* MPI duplicate of the input communicator (same rank numbers) */
  MPI_Comm     comm;                  /* PETSc's inner duplicate of dup, used for all communication */
  PetscMPIInt  tags[DOMAIN_NUM_TAGS]; /* reserved point-to-point tags on comm */
  PetscMPIInt  rank, size;
  PetscInt     want[3];      /* the counts asked for (grid, then -decomp_grid); 0 = free */
  PetscInt     dims[3];      /* subdomains per axis; dims[0] * dims[1] * dims[2] == size */
  PetscInt     coords[3];    /* this rank's cell */
  double       lo[3], hi[3]; /* the domain box */
  double      *cuts[3];      /* cuts[k][0 .. dims[k]], strictly increasing, ends lo[k] and hi[k] */
  PetscMPIInt *rank_of_cell; /* [(i * dims[1] + j) * dims[2] + l] */
  PetscInt    *cell_of_rank; /* [3 * rank + k]: the inverse map */
  double       halo;         /* halo width set by DomainSetHalo (0 = none) */
};

static const char axis_name[3] = {'x', 'y', 'z'};

/* Slab of axis k holding coordinate x in [lo, hi]: the largest i < dims[k] with cuts[i] <= x. */
static PetscInt SlabOf(const Domain d, int k, double x)
{
  const double *c = d->cuts[k];
  PetscInt      a = 0, b = d->dims[k] - 1;

  while (a < b) { /* invariant: c[a] <= x, and the answer is in [a, b] */
    const PetscInt m = (a + b + 1) / 2;
    if (c[m] <= x) a = m;
    else b = m - 1;
  }
  return a;
}

static PetscMPIInt RankOfCell(const Domain d, PetscInt i, PetscInt j, PetscInt l)
{
  return d->rank_of_cell[(i * d->dims[1] + j) * d->dims[2] + l];
}

/* Distance along one axis from [a, b] to [c0, c1] (0 when they overlap). */
static inline double Gap(double a, double b, double c0, double c1) { return PetscMax(0.0, PetscMax(c0 - b, a - c1)); }

/* Slabs [*first, *last] of axis k whose interval is at distance < r from [a, b]; empty if last < first.
 * Gap < r is "c[i] - b < r and a - c[i+1] < r"; the first holds for a prefix of the slabs, the second
 * for a suffix, so two binary searches find the range, with exactly the comparisons of Gap. */
static void SlabsNear(const Domain d, int k, double a, double b, double r, PetscInt *first, PetscInt *last)
{
  const double *c  = d->cuts[k];
  PetscInt      lo = 0, hi = d->dims[k]; /* first: smallest i with a - c[i+1] < r (dims if none) */

  while (lo < hi) {
    const PetscInt m = (lo + hi) / 2;
    if (a - c[m + 1] < r) hi = m;
    else lo = m + 1;
  }
  *first = lo;
  lo     = -1;
  hi     = d->dims[k] - 1; /* last: largest i with c[i] - b < r (-1 if none) */
  while (lo < hi) {
    const PetscInt m = (lo + hi + 1) / 2;
    if (c[m] - b < r) lo = m;
    else hi = m - 1;
  }
  *last = lo;
  if (!(r > 0)) *last = -1; /* Gap >= 0: nothing is at distance < r <= 0 (or NaN) */
}

/* The process grid asked for (grid, then -decomp_grid) and whether it fits the rank count. */
static PetscErrorCode GridWanted(MPI_Comm comm, const PetscInt grid[3], PetscInt want[3], PetscBool *ok, char msg[],
                                 size_t msglen)
{
  PetscInt    nopt = 3, fixed = 1;
  PetscBool   set = PETSC_FALSE, all_fixed = PETSC_TRUE;
  PetscMPIInt size;

  PetscFunctionBegin;
  *ok    = PETSC_TRUE;
  msg[0] = 0;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  for (int k = 0; k < 3; k++) want[k] = grid ? grid[k] : 0;
  PetscOptionsBegin(comm, NULL, "Domain decomposition", "DomainCreate");
  PetscCall(
    PetscOptionsIntArray("-decomp_grid",
                         "Subdomains per axis px,py,pz (product = number of MPI ranks; 0 = let MPI_Dims_create choose)",
                         "DomainCreate", want, &nopt, &set));
  PetscOptionsEnd();
  if (set && nopt != 3) {
    *ok = PETSC_FALSE;
    PetscCall(PetscSNPrintf(msg, msglen,
                            "option -decomp_grid needs three counts px,py,pz, got %" PetscInt_FMT
                            "; e.g. -decomp_grid %d,1,1",
                            nopt, size));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (int k = 0; k < 3; k++) {
    if (want[k] < 0) {
      *ok = PETSC_FALSE;
      PetscCall(PetscSNPrintf(msg, msglen,
                              "option -decomp_grid %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT
                              " has a negative count; give counts >= 1 (or 0 to let MPI choose)",
                              want[0], want[1], want[2]));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (want[k]) fixed *= want[k];
    else all_fixed = PETSC_FALSE;
  }
  if (all_fixed && fixed != size) {
    *ok = PETSC_FALSE;
    PetscCall(PetscSNPrintf(msg, msglen,
                            "option -decomp_grid %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT
                            " has %" PetscInt_FMT " subdomains but the run has %d MPI ranks; give counts whose product "
                            "is %d, or 0 entries to let MPI choose",
                            want[0], want[1], want[2], fixed, size, size));
  } else if (!all_fixed && size % fixed) {
    *ok = PETSC_FALSE;
    PetscCall(
      PetscSNPrintf(msg, msglen,
                    "option -decomp_grid %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT
                    ": the fixed counts multiply to %" PetscInt_FMT
                    ", which does not divide the %d MPI ranks; change them or run on a multiple of %" PetscInt_FMT
                    " ranks",
                    want[0], want[1], want[2], fixed, size, fixed));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainCheckGrid(MPI_Comm comm, const PetscInt grid[3], PetscBool *ok, char msg[], size_t msglen)
{
  PetscInt want[3];

  PetscFunctionBegin;
  PetscCall(GridWanted(comm, grid, want, ok, msg, msglen));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Install the grid dims (product = size): uniform cuts, and the cells numbered row-major (z fastest),
 * as MPI_Cart_create numbers them. Not collective. */
static PetscErrorCode SetGrid(Domain d, const PetscInt dims[3])
{
  PetscFunctionBegin;
  for (int k = 0; k < 3; k++) {
    PetscCall(PetscFree(d->cuts[k]));
    d->dims[k] = dims[k];
    PetscCall(PetscMalloc1(d->dims[k] + 1, &d->cuts[k]));
    for (PetscInt i = 0; i <= d->dims[k]; i++)
      d->cuts[k][i] = d->lo[k] + (d->hi[k] - d->lo[k]) * (double)i / (double)d->dims[k];
    d->cuts[k][d->dims[k]] = d->hi[k]; /* exact ends */
  }
  for (PetscInt i = 0; i < dims[0]; i++)
    for (PetscInt j = 0; j < dims[1]; j++)
      for (PetscInt l = 0; l < dims[2]; l++) {
        const PetscInt r           = (i * dims[1] + j) * dims[2] + l;
        d->rank_of_cell[r]         = (PetscMPIInt)r;
        d->cell_of_rank[3 * r + 0] = i;
        d->cell_of_rank[3 * r + 1] = j;
        d->cell_of_rank[3 * r + 2] = l;
      }
  for (int k = 0; k < 3; k++) d->coords[k] = d->cell_of_rank[3 * d->rank + k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainCreate(MPI_Comm comm, const double lo[3], const double hi[3], const PetscInt grid[3], Domain *dp)
{
  Domain      d;
  PetscInt    want[3];
  PetscBool   ok;
  char        msg[512];
  PetscMPIInt size, idims[3];
  PetscInt    dims[3];

  PetscFunctionBegin;
  *dp = NULL;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  for (int k = 0; k < 3; k++)
    PetscCheck(lo[k] < hi[k] && isfinite(lo[k]) && isfinite(hi[k]), comm, PETSC_ERR_ARG_OUTOFRANGE,
               "DomainCreate: the domain must have min < max along every axis; along %c it is [%g, %g]", axis_name[k],
               lo[k], hi[k]);
  PetscCall(GridWanted(comm, grid, want, &ok, msg, sizeof(msg)));
  PetscCheck(ok, comm, PETSC_ERR_ARG_INCOMP, "%s", msg);
  for (int k = 0; k < 3; k++) PetscCall(PetscMPIIntCast(want[k], &idims[k]));
  PetscCallMPI(MPI_Dims_create(size, 3, idims));

  PetscCall(PetscNew(&d));
  PetscCallMPI(MPI_Comm_dup(comm, &d->dup));
  PetscCall(PetscCommDuplicate(d->dup, &d->comm, &d->tags[0]));
  for (int t = 1; t < DOMAIN_NUM_TAGS; t++) PetscCall(PetscCommGetNewTag(d->comm, &d->tags[t]));
  PetscCallMPI(MPI_Comm_rank(d->dup, &d->rank));
  d->size = size;
  for (int k = 0; k < 3; k++) {
    d->want[k] = want[k];
    d->lo[k]   = lo[k];
    d->hi[k]   = hi[k];
  }
  PetscCall(PetscMalloc2(size, &d->rank_of_cell, 3 * size, &d->cell_of_rank));
  for (int k = 0; k < 3; k++) dims[k] = idims[k];
  PetscCall(SetGrid(d, dims));
  *dp = d;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainDestroy(Domain *dp)
{
  Domain d = *dp;

  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(PETSC_SUCCESS);
  for (int k = 0; k < 3; k++) PetscCall(PetscFree(d->cuts[k]));
  PetscCall(PetscFree2(d->rank_of_cell, d->cell_of_rank));
  PetscCall(PetscCommDestroy(&d->comm));
  PetscCallMPI(MPI_Comm_free(&d->dup));
  PetscCall(PetscFree(*dp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The halo rule for one axis' cuts: every slab at least w wide when the axis is cut. */
static PetscErrorCode CheckSlabs(const double *c, PetscInt p, int k, double w, PetscBool *ok, char msg[], size_t msglen)
{
  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  if (p < 2) PetscFunctionReturn(PETSC_SUCCESS); /* an uncut axis has no neighbours along it */
  for (PetscInt i = 0; i < p && *ok; i++) {
    if (c[i + 1] - c[i] >= w) continue;
    *ok = PETSC_FALSE;
    if (msg && msglen) /* plain snprintf: PETSc's would print -1 as "-1." */
      snprintf(msg, msglen,
               "subdomain %lld (of %lld) along axis %c, [%g, %g], is %g m wide, less than the halo w = %g m "
               "(2 x largest bounding radius + envelope); use fewer ranks along that axis (-decomp_grid) or a larger "
               "domain",
               (long long)i, (long long)p, axis_name[k], c[i], c[i + 1], c[i + 1] - c[i], w);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainCheckHalo(Domain d, double w, PetscBool *ok, char msg[], size_t msglen)
{
  PetscFunctionBegin;
  if (msg && msglen) msg[0] = 0;
  *ok = PETSC_TRUE;
  for (int k = 0; k < 3 && *ok; k++) PetscCall(CheckSlabs(d->cuts[k], d->dims[k], k, w, ok, msg, msglen));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainSetHalo(Domain d, double w)
{
  PetscBool ok;
  char      msg[512];

  PetscFunctionBegin;
  PetscCheck(w >= 0 && isfinite(w), d->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "DomainSetHalo: the halo width must be a finite number >= 0, got %g", w);
  PetscCall(DomainCheckHalo(d, w, &ok, msg, sizeof(msg)));
  PetscCheck(ok, d->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s", msg);
  d->halo = w;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainSetCuts(Domain d, PetscInt axis, const double cuts[])
{
  PetscInt    p;
  int         finite = 1, all_finite, same = 1, all_same;
  double     *cmax, *cmin;
  PetscBool   ok;
  char        msg[512];
  PetscMPIInt n;

  PetscFunctionBegin;
  PetscCheck(axis >= 0 && axis < 3, d->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "DomainSetCuts: axis must be 0, 1 or 2, got %" PetscInt_FMT, axis);
  p = d->dims[axis];
  for (PetscInt i = 0; i <= p; i++) finite = finite && isfinite(cuts[i]);
  PetscCallMPI(MPI_Allreduce(&finite, &all_finite, 1, MPI_INT, MPI_LAND, d->comm));
  PetscCheck(all_finite, d->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "DomainSetCuts: the cuts along %c are not all finite numbers (on some rank)", axis_name[axis]);
  /* the cuts are replicated data: every rank must pass the same ones */
  PetscCall(PetscMPIIntCast(p + 1, &n));
  PetscCall(PetscMalloc2(p + 1, &cmax, p + 1, &cmin));
  PetscCallMPI(MPI_Allreduce(cuts, cmax, n, MPI_DOUBLE, MPI_MAX, d->comm));
  PetscCallMPI(MPI_Allreduce(cuts, cmin, n, MPI_DOUBLE, MPI_MIN, d->comm));
  for (PetscInt i = 0; i <= p; i++) same = same && cmax[i] == cmin[i];
  PetscCall(PetscFree2(cmax, cmin));
  PetscCallMPI(MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_LAND, d->comm));
  PetscCheck(all_same, d->comm, PETSC_ERR_ARG_INCOMP,
             "DomainSetCuts: the ranks passed different cuts along %c; compute them from replicated data",
             axis_name[axis]);
  /* from here on every rank decides the same */
  PetscCheck(cuts[0] == d->lo[axis] && cuts[p] == d->hi[axis], d->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "DomainSetCuts: the cuts along %c must start at the domain min %g and end at its max %g, got %g and %g",
             axis_name[axis], d->lo[axis], d->hi[axis], cuts[0], cuts[p]);
  for (PetscInt i = 0; i < p; i++)
    PetscCheck(cuts[i] < cuts[i + 1], d->comm, PETSC_ERR_ARG_OUTOFRANGE,
               "DomainSetCuts: the cuts along %c must increase strictly, but cut %" PetscInt_FMT
               " = %g and cut %" PetscInt_FMT " = %g",
               axis_name[axis], i, cuts[i], i + 1, cuts[i + 1]);
  PetscCall(CheckSlabs(cuts, p, (int)axis, d->halo, &ok, msg, sizeof(msg)));
  PetscCheck(ok, d->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s", msg);
  PetscCall(PetscArraycpy(d->cuts[axis], cuts, p + 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainSetGrid(Domain d, const PetscInt dims[3])
{
  PetscInt  prod = 1, lo[3], hi[3];
  PetscBool ok;
  char      msg[512];
  double   *old[3];
  PetscInt  old_dims[3];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(dims, hi, 3, MPIU_INT, MPI_MAX, d->comm));
  PetscCallMPI(MPI_Allreduce(dims, lo, 3, MPIU_INT, MPI_MIN, d->comm));
  for (int k = 0; k < 3; k++)
    PetscCheck(lo[k] == hi[k], d->comm, PETSC_ERR_ARG_INCOMP,
               "DomainSetGrid: the ranks passed different grids; compute it from replicated data");
  for (int k = 0; k < 3; k++) {
    PetscCheck(dims[k] >= 1 && (d->want[k] == 0 || d->want[k] == dims[k]), d->comm, PETSC_ERR_ARG_OUTOFRANGE,
               "DomainSetGrid: %" PetscInt_FMT
               " subdomains along %c, but the grid asked for (-decomp_grid) has %" PetscInt_FMT " (0 = free)",
               dims[k], axis_name[k], d->want[k]);
    prod *= dims[k];
  }
  PetscCheck(prod == d->size, d->comm, PETSC_ERR_ARG_INCOMP,
             "DomainSetGrid: the grid has %" PetscInt_FMT " subdomains but the domain %d ranks", prod, d->size);
  for (int k = 0; k < 3; k++) {
    old[k]      = d->cuts[k];
    old_dims[k] = d->dims[k];
    d->cuts[k]  = NULL;
  }
  PetscCall(SetGrid(d, dims));
  PetscCall(DomainCheckHalo(d, d->halo, &ok, msg, sizeof(msg)));
  if (!ok) { /* put the old grid back, then raise the message on every rank */
    for (int k = 0; k < 3; k++) PetscCall(PetscFree(d->cuts[k]));
    PetscCall(SetGrid(d, old_dims));
    for (int k = 0; k < 3; k++) PetscCall(PetscArraycpy(d->cuts[k], old[k], old_dims[k] + 1));
  }
  for (int k = 0; k < 3; k++) PetscCall(PetscFree(old[k]));
  PetscCheck(ok, d->comm, PETSC_ERR_ARG_OUTOFRANGE, "DomainSetGrid: %s", msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainGetGridWanted(Domain d, PetscInt want[3])
{
  PetscFunctionBegin;
  for (int k = 0; k < 3; k++) want[k] = d->want[k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainGetComm(Domain d, MPI_Comm *comm)
{
  PetscFunctionBegin;
  *comm = d->comm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainGetTag(Domain d, PetscInt which, PetscMPIInt *tag)
{
  PetscFunctionBegin;
  PetscCheck(which >= 0 && which < DOMAIN_NUM_TAGS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "DomainGetTag: tag %" PetscInt_FMT " is not in [0, %d)", which, DOMAIN_NUM_TAGS);
  *tag = d->tags[which];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainGetGrid(Domain d, PetscInt dims[3])
{
  PetscFunctionBegin;
  for (int k = 0; k < 3; k++) dims[k] = d->dims[k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainGetBounds(Domain d, double lo[3], double hi[3])
{
  PetscFunctionBegin;
  for (int k = 0; k < 3; k++) {
    lo[k] = d->lo[k];
    hi[k] = d->hi[k];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainGetCuts(Domain d, PetscInt axis, const double **cuts)
{
  PetscFunctionBegin;
  PetscCheck(axis >= 0 && axis < 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "DomainGetCuts: axis must be 0, 1 or 2, got %" PetscInt_FMT, axis);
  *cuts = d->cuts[axis];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainGetHalo(Domain d, double *w)
{
  PetscFunctionBegin;
  *w = d->halo;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscMPIInt DomainOwnerOfPoint(Domain d, const double x[3])
{
  PetscInt s[3];

  for (int k = 0; k < 3; k++) {
    if (!(x[k] >= d->lo[k] && x[k] <= d->hi[k])) return -1; /* also NaN */
    s[k] = SlabOf(d, k, x[k]);
  }
  return RankOfCell(d, s[0], s[1], s[2]);
}

PetscErrorCode DomainSubdomainBox(Domain d, PetscMPIInt rank, double lo[3], double hi[3])
{
  PetscFunctionBegin;
  PetscCheck(rank >= 0 && rank < d->size, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "DomainSubdomainBox: rank %d is not in [0, %d)", rank, d->size);
  for (int k = 0; k < 3; k++) {
    const PetscInt i = d->cell_of_rank[3 * rank + k];
    lo[k]            = d->cuts[k][i];
    hi[k]            = d->cuts[k][i + 1];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Ranks of the cells in the index ranges [first[k], last[k]] whose box is at distance < r from the
 * box [a, b] (a point when a == b), excluding skip (-1: none), sorted. */
static PetscErrorCode CellsNear(Domain d, const double a[3], const double b[3], double r, PetscMPIInt skip,
                                PetscInt maxn, PetscMPIInt ranks[], PetscInt *n)
{
  PetscInt first[3], last[3];

  PetscFunctionBegin;
  *n = 0;
  for (int k = 0; k < 3; k++) SlabsNear(d, k, a[k], b[k], r, &first[k], &last[k]);
  for (PetscInt i = first[0]; i <= last[0]; i++)
    for (PetscInt j = first[1]; j <= last[1]; j++)
      for (PetscInt l = first[2]; l <= last[2]; l++) {
        const PetscInt    cell[3] = {i, j, l};
        const PetscMPIInt rk      = RankOfCell(d, i, j, l);
        double            d2      = 0;
        for (int k = 0; k < 3; k++) {
          const double g = Gap(a[k], b[k], d->cuts[k][cell[k]], d->cuts[k][cell[k] + 1]);
          d2 += g * g;
        }
        if (rk == skip || !(d2 < r * r)) continue;
        PetscCheck(*n < maxn, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
                   "more than %" PetscInt_FMT " ranks within distance %g; pass a larger array", maxn, r);
        ranks[(*n)++] = rk;
      }
  PetscCall(PetscSortMPIInt(*n, ranks));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainRanksNearPoint(Domain d, const double x[3], double r, PetscInt maxn, PetscMPIInt ranks[],
                                    PetscInt *n)
{
  PetscFunctionBegin;
  PetscCall(CellsNear(d, x, x, r, -1, maxn, ranks, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainGetNeighbors(Domain d, double r, PetscInt *n, PetscMPIInt **ranks)
{
  double lo[3], hi[3];

  PetscFunctionBegin;
  PetscCall(DomainSubdomainBox(d, d->rank, lo, hi));
  PetscCall(PetscMalloc1(d->size, ranks));
  PetscCall(CellsNear(d, lo, hi, r, d->rank, d->size, *ranks, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}
