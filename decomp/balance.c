/* See balance.h. */
#include "decomp/balance.h"
#include <stdint.h>

/* Cuts of one axis from its global histogram: interior cut j at the j/p quantile, then at least
 * halo apart (and from the ends); uniform where the axis is too short for p slabs of that width. */
static void CutsFromHistogram(const PetscInt64 *count, double lo, double hi, PetscInt p, double halo, double *cuts)
{
  const double width = (hi - lo) / BALANCE_BINS;
  const double gap   = halo * (1 + 1e-9); /* so that rounding cannot make a slab narrower than halo */
  PetscInt64   total = 0, below = 0;
  PetscInt     b = 0;

  for (PetscInt k = 0; k < BALANCE_BINS; k++) total += count[k];
  cuts[0] = lo;
  cuts[p] = hi;
  for (PetscInt j = 1; j < p; j++) {
    const double target = (double)total * (double)j / (double)p;
    while (b < BALANCE_BINS - 1 && (double)(below + count[b]) < target) below += count[b++];
    const double frac = count[b] > 0 ? PetscClipInterval((target - (double)below) / (double)count[b], 0.0, 1.0) : 0.5;
    cuts[j]           = total > 0 && hi - lo >= gap * (double)p ? lo + width * ((double)b + frac)
                                                                : lo + (hi - lo) * (double)j / (double)p;
  }
  if (hi - lo < gap * (double)p) return;
  for (PetscInt j = 1; j < p; j++) cuts[j] = PetscMax(cuts[j], cuts[j - 1] + gap);
  for (PetscInt j = p - 1; j >= 1; j--) cuts[j] = PetscMin(cuts[j], cuts[j + 1] - gap);
}

/* The slab of x among the p slabs of cuts c (clipped to the first and last). */
static PetscInt Slab(const double *c, PetscInt p, double x)
{
  PetscInt a = 0, b = p - 1;

  while (a < b) {
    const PetscInt m = (a + b + 1) / 2;
    if (c[m] <= x) a = m;
    else b = m - 1;
  }
  return a;
}

typedef struct {
  PetscInt dims[3];
  double  *cuts[3]; /* dims[k] + 1 each */
} Candidate;

/* The grids to score: the current one first (so that ties keep it), then with choose_grid every other
 * factorisation of size that keeps the fixed counts and whose uniform slabs are at least w wide. */
static PetscErrorCode Candidates(Domain d, PetscBool choose_grid, double w, PetscInt *n, Candidate **cand)
{
  PetscInt    cur[3], want[3];
  double      lo[3], hi[3];
  PetscMPIInt size;
  MPI_Comm    comm;

  PetscFunctionBegin;
  PetscCall(DomainGetComm(d, &comm));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(DomainGetGrid(d, cur));
  PetscCall(DomainGetGridWanted(d, want));
  PetscCall(DomainGetBounds(d, lo, hi));
  PetscCall(PetscCalloc1(size > 64 ? 4 * size : 256, cand)); /* at most d(size)^2 factorisations */
  *n = 0;
  for (int pass = 0; pass < 2; pass++)
    for (PetscInt a = 1; a <= size; a++)
      for (PetscInt b = 1; a * b <= size; b++) {
        const PetscInt  dims[3] = {a, b, size / (a * b)};
        PetscBool       fits    = (PetscBool)(size % (a * b) == 0);
        const PetscBool is_cur  = (PetscBool)(dims[0] == cur[0] && dims[1] == cur[1] && dims[2] == cur[2]);

        if (!fits || (pass == 0) != is_cur || (pass == 1 && !choose_grid)) continue;
        for (int k = 0; k < 3; k++) {
          if (want[k] && want[k] != dims[k]) fits = PETSC_FALSE;
          if (dims[k] > 1 && (hi[k] - lo[k]) / (double)dims[k] < w) fits = PETSC_FALSE;
        }
        if (!fits) continue;
        for (int k = 0; k < 3; k++) (*cand)[*n].dims[k] = dims[k];
        (*n)++;
      }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainPlan(Domain d, const BodyStore *s, const PetscInt weight[], PetscBool choose_grid, double w,
                          DomainPlanResult *r)
{
  MPI_Comm    comm;
  PetscMPIInt size;
  PetscInt    ncand = 0, cur[3], pick = 0;
  double      lo[3], hi[3], *imb;
  PetscInt64 *hist, *ghist, *score, *gscore, total = 0;
  Candidate  *cand;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  PetscCall(DomainGetComm(d, &comm));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(DomainGetGrid(d, cur));
  PetscCall(DomainGetBounds(d, lo, hi));
  for (int k = 0; k < 3; k++) r->dims[k] = cur[k];
  r->predicted = 1;
  PetscCall(Candidates(d, choose_grid, w, &ncand, &cand));
  if (ncand == 0) { /* no grid fits w (DomainSetHalo will say so): keep the current one */
    PetscCall(PetscFree(cand));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  r->fits = PETSC_TRUE;
  /* the work's histogram along each axis, summed over ranks (one reduction) */
  PetscCall(PetscCalloc2(3 * BALANCE_BINS, &hist, 3 * BALANCE_BINS, &ghist));
  for (PetscInt i = 0; i < s->n_owned; i++)
    for (int k = 0; k < 3; k++) {
      const double x = (s->pos[3 * i + k] - lo[k]) / (hi[k] - lo[k]) * BALANCE_BINS;
      hist[k * BALANCE_BINS + PetscClipInterval((PetscInt)x, 0, BALANCE_BINS - 1)] += weight ? weight[i] : 1;
    }
  PetscCallMPI(MPI_Allreduce(hist, ghist, 3 * BALANCE_BINS, MPIU_INT64, MPI_SUM, comm));
  for (PetscInt b = 0; b < BALANCE_BINS; b++) total += ghist[b];
  /* each candidate's cuts, then its cells' work and its ghosts, summed over ranks (one reduction) */
  PetscCall(PetscCalloc2((size_t)ncand * (size + 1), &score, (size_t)ncand * (size + 1), &gscore));
  for (PetscInt c = 0; c < ncand; c++) {
    PetscInt64 *load = score + c * (size + 1), *ghosts = load + size;
    for (int k = 0; k < 3; k++) {
      PetscCall(PetscMalloc1(cand[c].dims[k] + 1, &cand[c].cuts[k]));
      CutsFromHistogram(ghist + k * BALANCE_BINS, lo[k], hi[k], cand[c].dims[k], w, cand[c].cuts[k]);
    }
    for (PetscInt i = 0; i < s->n_owned; i++) {
      PetscInt slab[3];
      for (int k = 0; k < 3; k++) {
        const PetscInt p = cand[c].dims[k];
        const double  *x = s->pos + 3 * i, *cut = cand[c].cuts[k];
        slab[k] = Slab(cut, p, x[k]);
        if (p > 1 && ((slab[k] > 0 && x[k] - cut[slab[k]] < w) || (slab[k] < p - 1 && cut[slab[k] + 1] - x[k] < w)))
          (*ghosts)++;
      }
      load[(slab[0] * cand[c].dims[1] + slab[1]) * cand[c].dims[2] + slab[2]] += weight ? weight[i] : 1;
    }
  }
  {
    PetscMPIInt n;
    PetscCall(PetscMPIIntCast(ncand * (size + 1), &n));
    PetscCallMPI(MPI_Allreduce(score, gscore, n, MPIU_INT64, MPI_SUM, comm));
  }
  /* the choice (balance.h), on replicated data: the same on every rank */
  PetscCall(PetscMalloc1(ncand, &imb));
  {
    double            best   = PETSC_MAX_REAL, limit;
    PetscInt64        fewest = INT64_MAX;
    const PetscInt64 *g      = gscore;
    for (PetscInt c = 0; c < ncand; c++) {
      PetscInt64 most = 0;
      for (PetscMPIInt q = 0; q < size; q++) most = PetscMax(most, g[c * (size + 1) + q]);
      imb[c] = total > 0 ? (double)most * size / (double)total : 1.0;
      best   = PetscMin(best, imb[c]);
    }
    limit = PetscMax(BALANCE_GRID_ACCEPT, 1.02 * best);
    for (PetscInt c = 0; c < ncand; c++) {
      const PetscInt64 ghosts = g[c * (size + 1) + size];
      if (imb[c] <= limit && ghosts < fewest) {
        fewest = ghosts;
        pick   = c;
      }
    }
    /* candidate 0 is the current grid when it fits w: kept unless clearly worse */
    const PetscBool cur0 = (PetscBool)(cand[0].dims[0] == cur[0] && cand[0].dims[1] == cur[1] &&
                                       cand[0].dims[2] == cur[2]);
    if (cur0 && imb[0] <= limit && (double)g[size] <= 1.1 * (double)fewest) pick = 0;
  }
  r->predicted = imb[pick];
  for (int k = 0; k < 3; k++) r->dims[k] = cand[pick].dims[k];
  r->regridded = (PetscBool)(r->dims[0] != cur[0] || r->dims[1] != cur[1] || r->dims[2] != cur[2]);
  if (r->regridded) PetscCall(DomainSetGrid(d, r->dims));
  r->moved = r->regridded;
  for (int k = 0; k < 3; k++) {
    const double *old;
    PetscBool     same = PETSC_TRUE;
    PetscCall(DomainGetCuts(d, k, &old));
    for (PetscInt j = 0; j <= r->dims[k]; j++) same = (PetscBool)(same && cand[pick].cuts[k][j] == old[j]);
    if (same) continue;
    PetscCall(DomainSetCuts(d, k, cand[pick].cuts[k]));
    r->moved = PETSC_TRUE;
  }
  for (PetscInt c = 0; c < ncand; c++)
    for (int k = 0; k < 3; k++) PetscCall(PetscFree(cand[c].cuts[k]));
  PetscCall(PetscFree(cand));
  PetscCall(PetscFree(imb));
  PetscCall(PetscFree2(hist, ghist));
  PetscCall(PetscFree2(score, gscore));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainBalance(Domain d, const BodyStore *s, PetscBool *moved)
{
  DomainPlanResult r;
  double           w;

  PetscFunctionBegin;
  PetscCall(DomainGetHalo(d, &w));
  PetscCall(DomainPlan(d, s, NULL, PETSC_FALSE, w, &r));
  *moved = r.moved;
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
