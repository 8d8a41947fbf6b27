/* Cell-grid broadphase.
 *
 * 1. Grid over the bounding box of the bodies (not the domain: bodies may be anywhere) with cell
 *    >= 2 r_max + envelope, so every overlapping pair sits in the same or adjacent cells. The cell
 *    is grown when the grid would have more than BROADPHASE_MAX_CELLS_PER_BODY cells per body
 *    (sparse or flat clouds, a pile with a few bodies rolled far away), which keeps memory O(n).
 *    8 (4 bytes each), not 4: a settled pile whose bounding box the strays make 4 times its own
 *    area grew the cell by 16-30%, and the candidates per body by 1.6-2.2 times.
 * 2. Counting sort of the bodies by cell (CSR). The bodies' centres and radii are copied in cell
 *    order, so the pair search reads memory sequentially whatever the storage order.
 * 3. Each cell is tested against itself and the 13 neighbours of the forward half-shell, so each
 *    pair is found once. With x the fastest grid index, the half-shell is 5 contiguous slot ranges:
 *    the rest of the own cell plus the cell at x+1, and the x-rows of 3 cells at (y+1, z),
 *    (y-1, z+1), (y, z+1), (y+1, z+1).
 * 4. BroadphaseFindPairs only: counting sort of the pairs by the lower index, then a small sort
 *    of each row by the other: the order is (i, j), independent of the grid.
 *
 * Workspace: the header has fields only for the CSR and the output, so the extra buffers live in
 * the same pool slots (base/scratch_pool.h), reused across calls:
 *   - cell_body's block: nbody_cap body indices, then nbody_cap + 1 PetscInt of scratch (the cell
 *     of each body while binning, the row starts while sorting pairs), then the packed
 *     (x, y, z, r) of the bodies in cell order (4 nbody_cap doubles, 64-byte aligned offset);
 *   - pairs' block: pairs_cap unsorted pairs as found, then pairs_cap sorted pairs (bp->pairs). */
#include "collision/broadphase.h"
#include "base/growth.h"
#include <math.h>
#include <string.h>

/* offset of the packed coordinates in cell_body's block, in doubles */
static size_t bp_packed_offset(PetscInt cap)
{
  const size_t bytes = (2 * (size_t)cap + 1) * sizeof(PetscInt);
  return (bytes + 63) / 64 * 8;
}
static PetscInt *bp_scratch(const Broadphase *bp) { return bp->cell_body + bp->nbody_cap; }
static double   *bp_packed(const Broadphase *bp) { return (double *)bp->cell_body + bp_packed_offset(bp->nbody_cap); }
static BodyPair *bp_raw(const Broadphase *bp) { return bp->pairs - bp->pairs_cap; }

PetscErrorCode BroadphaseCreate(Broadphase *bp)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(bp, sizeof(*bp)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BroadphaseDestroy(Broadphase *bp)
{
  PetscFunctionBegin;
  PetscCall(ScratchPoolDestroy(&bp->own));
  PetscCall(PetscMemzero(bp, sizeof(*bp)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The CSR arrays for ncells cells and nbody bodies (contents not kept). */
static PetscErrorCode BroadphaseReserve(Broadphase *bp, PetscInt ncells, PetscInt nbody)
{
  ScratchPool *pool = BroadphaseScratch(bp);
  void        *block;

  PetscFunctionBegin;
  PetscCall(ScratchPoolGet(pool, SCRATCH_BP_CELLS, sizeof(PetscInt) * ((size_t)ncells + 1), 0, &block));
  bp->cell_start = (PetscInt *)block;
  PetscCall(
    ScratchPoolGet(pool, SCRATCH_BP_BODIES, sizeof(double) * (bp_packed_offset(nbody) + 4 * (size_t)nbody), 0, &block));
  bp->cell_body = (PetscInt *)block;
  bp->nbody_cap = nbody;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Point bp at the pair block holding at least `need` pairs per half, keeping the nraw unsorted
 * pairs found so far (they lead the block). */
static PetscErrorCode BroadphaseGrowPairs(Broadphase *bp, PetscInt nraw, size_t need)
{
  ScratchPool *pool = BroadphaseScratch(bp);
  BodyPair    *block;

  PetscFunctionBegin;
  need = GrowthCapacity((size_t)bp->pairs_cap, PetscMax(need, (size_t)1024));
  PetscCheck(need < (size_t)PETSC_MAX_INT / 2, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "Broadphase: more than %" PetscInt_FMT " candidate pairs; a few very large bodies among many small ones "
             "make the cell grid inefficient (bounded size ratios assumed)",
             bp->pairs_cap);
  PetscCall(ScratchPoolGet(pool, SCRATCH_BP_PAIRS, 2 * sizeof(BodyPair) * need, sizeof(BodyPair) * (size_t)nraw,
                           (void **)&block));
  bp->pairs_cap = (PetscInt)PetscMin(ScratchPoolBytes(pool, SCRATCH_BP_PAIRS) / (2 * sizeof(BodyPair)),
                                     (size_t)PETSC_MAX_INT / 2);
  bp->pairs     = block + bp->pairs_cap;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscInt bp_cell_coord(double x, double lo, double inv_cell, PetscInt dim)
{
  const PetscInt k = (PetscInt)((x - lo) * inv_cell); /* x >= lo: truncation is floor */
  return k < dim ? k : dim - 1;                       /* rounding at the upper edge */
}

/* Bounding box, largest radius and a cell size giving at most ~BROADPHASE_MAX_CELLS_PER_BODY cells per body. */
static PetscErrorCode BroadphaseSetGrid(Broadphase *bp, const BodyStore *s, PetscInt n, double envelope)
{
  double lo[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL},
         hi[3] = {-PETSC_MAX_REAL, -PETSC_MAX_REAL, -PETSC_MAX_REAL};
  double rmax = 0, check = 0, cell, max_cells = BROADPHASE_MAX_CELLS_PER_BODY * (double)n + 64;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) {
    const double *x = s->pos + 3 * (size_t)i, r = s->radius[i];
    for (int d = 0; d < 3; d++) {
      lo[d] = x[d] < lo[d] ? x[d] : lo[d];
      hi[d] = x[d] > hi[d] ? x[d] : hi[d];
    }
    rmax = r > rmax ? r : rmax;
    check += x[0] + x[1] + x[2] + r; /* NaN or Inf anywhere makes this non-finite */
  }
  check += (hi[0] - lo[0]) + (hi[1] - lo[1]) + (hi[2] - lo[2]); /* extents overflow for |x| ~ 1e308 */
  PetscCheck(isfinite(check), PETSC_COMM_SELF, PETSC_ERR_FP,
             "Broadphase: a body position or radius is NaN or Inf; the time step probably diverged (reduce the time "
             "step or add compliance)");
  /* A hair above 2 r_max + envelope, so rounding in the cell coordinates cannot split a touching
   * pair across non-adjacent cells. */
  cell = (2 * rmax + envelope) * (1 + 1e-9);
  if (!(cell > 0)) cell = 1; /* point bodies and no envelope: any cell size works */
  for (;;) {
    double cells = 1;
    for (int d = 0; d < 3; d++) cells *= floor((hi[d] - lo[d]) / cell) + 1;
    if (cells <= max_cells) break;
    cell *= PetscMax(1.01, cbrt(cells / max_cells));
  }
  for (int d = 0; d < 3; d++) {
    bp->origin[d] = lo[d];
    bp->dims[d]   = (PetscInt)floor((hi[d] - lo[d]) / cell) + 1;
  }
  bp->cell = cell;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CSR of the bodies by cell, with their packed coordinates in the same (cell) order. */
static void BroadphaseBin(Broadphase *bp, const BodyStore *s, PetscInt n)
{
  const PetscInt ncells = bp->dims[0] * bp->dims[1] * bp->dims[2];
  const double   inv    = 1.0 / bp->cell;
  PetscInt      *start = bp->cell_start, *cell_of = bp_scratch(bp);
  double        *packed = bp_packed(bp);

  for (PetscInt c = 0; c <= ncells; c++) start[c] = 0;
  for (PetscInt i = 0; i < n; i++) {
    const double  *x = s->pos + 3 * (size_t)i;
    const PetscInt c = bp_cell_coord(x[0], bp->origin[0], inv, bp->dims[0]) +
                       bp->dims[0] * (bp_cell_coord(x[1], bp->origin[1], inv, bp->dims[1]) +
                                      bp->dims[1] * bp_cell_coord(x[2], bp->origin[2], inv, bp->dims[2]));
    cell_of[i] = c;
    start[c + 1]++;
  }
  for (PetscInt c = 0; c < ncells; c++) start[c + 1] += start[c];
  /* scatter in increasing body index, using start[c] as cell c's cursor ... */
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt slot  = start[cell_of[i]]++;
    const double  *x     = s->pos + 3 * (size_t)i;
    bp->cell_body[slot]  = i;
    packed[4 * slot + 0] = x[0];
    packed[4 * slot + 1] = x[1];
    packed[4 * slot + 2] = x[2];
    packed[4 * slot + 3] = s->radius[i];
  }
  /* ... which leaves start[c] at the end of cell c: shift back by one */
  for (PetscInt c = ncells; c > 0; c--) start[c] = start[c - 1];
  start[0] = 0;
}

typedef double bp_v2d __attribute__((vector_size(2 * sizeof(double))));

/* The bodies in packed slots [b0, b1) within reach of body ia (a: its packed x, y, z and radius +
 * envelope), written from out on as (lower, higher) index pairs; returns the end of what it wrote.
 * Branch-free: every candidate is written, and kept by advancing out only on a hit (hits are
 * rare and unpredictable, so a branch would mispredict). (dx, dy) and (dz, reach) are each one
 * 2-lane subtraction and square: reach = r_b - (-r_a) is r_b + r_a exactly. */
static inline BodyPair *bp_range(const double *P, const PetscInt *body, PetscInt b0, PetscInt b1, const double a[4],
                                 int32_t ia, BodyPair *out)
{
  const bp_v2d axy = {a[0], a[1]}, azr = {a[2], -a[3]};
  for (PetscInt b = b0; b < b1; b++) {
    bp_v2d xy, zr;
    memcpy(&xy, P + 4 * b, sizeof(xy));
    memcpy(&zr, P + 4 * b + 2, sizeof(zr));
    xy -= axy;
    zr -= azr;
    xy *= xy;
    zr *= zr;
    const int32_t ib = (int32_t)body[b];
    out->i           = ia < ib ? ia : ib;
    out->j           = ia < ib ? ib : ia;
    out += xy[0] + xy[1] + zr[0] < zr[1];
  }
  return out;
}

/* Pairs of the half-shell search into the unsorted half of the pair block. */
static PetscErrorCode BroadphaseSearch(Broadphase *bp, double envelope, PetscInt *nraw_out)
{
  const PetscInt  d0 = bp->dims[0], d1 = bp->dims[1], d2 = bp->dims[2];
  const PetscInt *start = bp->cell_start, *body = bp->cell_body;
  const double   *P = bp_packed(bp);
  /* the x-rows of the half-shell other than the own one: (dy, dz) */
  static const int rows[4][2] = {{1, 0}, {-1, 1}, {0, 1}, {1, 1}};
  PetscInt         nraw       = 0;

  PetscFunctionBegin;
  for (PetscInt iz = 0; iz < d2; iz++)
    for (PetscInt iy = 0; iy < d1; iy++)
      for (PetscInt ix = 0; ix < d0; ix++) {
        const PetscInt c = ix + d0 * (iy + d1 * iz);
        /* ranges [lo[r], hi[r]): r = 0 the rest of the own cell and x+1 (lo set per body), then the rows' */
        PetscInt lo[5], hi[5], nr = 1, rows_len = 0;
        if (start[c] == start[c + 1]) continue;
        hi[0] = start[ix + 1 < d0 ? c + 2 : c + 1];
        for (int r = 0; r < 4; r++) {
          const PetscInt y = iy + rows[r][0], z = iz + rows[r][1];
          if (y < 0 || y >= d1 || z >= d2) continue;
          const PetscInt rowc = d0 * (y + d1 * z);
          lo[nr]              = start[rowc + (ix > 0 ? ix - 1 : 0)];
          hi[nr]              = start[rowc + (ix + 1 < d0 ? ix + 2 : ix + 1)];
          if (lo[nr] < hi[nr]) {
            rows_len += hi[nr] - lo[nr];
            nr++;
          }
        }
        for (PetscInt a = start[c]; a < start[c + 1]; a++) {
          const double  pa[4] = {P[4 * a], P[4 * a + 1], P[4 * a + 2], P[4 * a + 3] + envelope};
          const int32_t ia    = (int32_t)body[a];
          const size_t  need  = (size_t)nraw +
                              (size_t)(hi[0] - (a + 1) + rows_len); /* every candidate of body a written */
          if (PetscUnlikely(need > (size_t)bp->pairs_cap)) PetscCall(BroadphaseGrowPairs(bp, nraw, need));
          BodyPair *const raw = bp_raw(bp), *out = raw + nraw;
          lo[0] = a + 1;
          for (int r = 0; r < nr; r++) out = bp_range(P, body, lo[r], hi[r], pa, ia, out);
          nraw = (PetscInt)(out - raw);
        }
      }
  *nraw_out = nraw;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int bp_compare_j(const void *a, const void *b)
{
  const int32_t ja = ((const BodyPair *)a)->j, jb = ((const BodyPair *)b)->j;
  return (ja > jb) - (ja < jb);
}

/* Counting sort of the raw pairs by i into bp->pairs, then each row by j. */
static void BroadphaseSortPairs(Broadphase *bp, PetscInt n, PetscInt nraw)
{
  PetscInt       *row = bp_scratch(bp);
  const BodyPair *raw = bp_raw(bp);
  BodyPair       *out = bp->pairs;

  for (PetscInt i = 0; i <= n; i++) row[i] = 0;
  for (PetscInt k = 0; k < nraw; k++) row[raw[k].i + 1]++;
  for (PetscInt i = 0; i < n; i++) row[i + 1] += row[i];
  for (PetscInt k = 0; k < nraw; k++) out[row[raw[k].i]++] = raw[k];
  /* row[i] is now the end of row i */
  for (PetscInt i = 0, b = 0; i < n; b = row[i++]) {
    const PetscInt e = row[i];
    if (e - b > 32) {
      qsort(out + b, (size_t)(e - b), sizeof(BodyPair), bp_compare_j);
      continue;
    }
    for (PetscInt k = b + 1; k < e; k++) { /* insertion sort: rows hold a handful of pairs */
      const BodyPair t = out[k];
      PetscInt       m = k;
      for (; m > b && out[m - 1].j > t.j; m--) out[m] = out[m - 1];
      out[m] = t;
    }
  }
  bp->npairs = nraw;
}

/* Steps 1-3: the pairs in the unsorted half of the pair block, *nraw of them. */
static PetscErrorCode BroadphaseFindRaw(Broadphase *bp, const BodyStore *s, PetscInt n, double envelope, PetscInt *nraw)
{
  PetscFunctionBegin;
  PetscCheck(n >= 0 && n <= s->n_owned + s->n_ghost, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "BroadphaseFindPairs: n = %" PetscInt_FMT " must lie in [0, owned + ghosts = %" PetscInt_FMT "]", n,
             s->n_owned + s->n_ghost);
  PetscCheck(envelope >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "BroadphaseFindPairs: envelope %g must be >= 0",
             envelope);
  PetscCheck((size_t)n <= (size_t)INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "BroadphaseFindPairs: %" PetscInt_FMT " bodies on one rank exceed the 32-bit pair indices; use more ranks",
             n);
  bp->npairs = *nraw = 0;
  if (n < 2) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(BroadphaseSetGrid(bp, s, n, envelope));
  PetscCall(BroadphaseReserve(bp, bp->dims[0] * bp->dims[1] * bp->dims[2], n));
  bp->pairs_cap = 0; /* the pool's slot may have changed hands since the last call */
  PetscCall(BroadphaseGrowPairs(bp, 0, 0));
  BroadphaseBin(bp, s, n);
  PetscCall(BroadphaseSearch(bp, envelope, nraw));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BroadphaseFindPairs(Broadphase *bp, const BodyStore *s, PetscInt n, double envelope)
{
  PetscInt nraw;

  PetscFunctionBegin;
  PetscCall(BroadphaseFindRaw(bp, s, n, envelope, &nraw));
  if (nraw) BroadphaseSortPairs(bp, n, nraw);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BroadphaseFindCandidates(Broadphase *bp, const BodyStore *s, PetscInt n, double envelope,
                                        const BodyPair **pairs)
{
  PetscInt nraw;

  PetscFunctionBegin;
  PetscCall(BroadphaseFindRaw(bp, s, n, envelope, &nraw));
  bp->npairs = nraw;
  *pairs     = nraw ? bp_raw(bp) : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
