/* Unit test of the cell-grid broadphase (src/collision/broadphase.c) against an O(n^2) brute-force pair
 * list: the pairs (i < j) with |ci - cj| < ri + rj + envelope, enumerated in (i, j) order. The
 * broadphase must return exactly that list, in that order (it promises the (i, j) order), and
 * BroadphaseFindCandidates the same pairs in any order, for:
 *   - 4000 spheres with radii varying by a factor 3 in a cube (dense enough to need pair-buffer
 *     growth), owned and ghost bodies mixed;
 *   - a flat sheet and a line with far outliers (the grid cap must grow the cells instead of
 *     allocating a huge grid);
 *   - bodies stacked at one point (all pairs);
 *   - repeated calls on one Broadphase with growing and shrinking n (buffer reuse), and n = 0, 1;
 *   - a Broadphase whose arrays live in a borrowed pool (as the stepper lends it the solver's
 *     vectors, base/scratch_pool.h) that another user fills with garbage between calls; and the pool's
 *     growth keeps the bytes asked for.
 * Pair membership is a strict inequality on doubles; random coordinates make a pair within
 * rounding (1e-16 relative) of the threshold practically impossible, so the comparison is exact. */
// ctest: labels=unit timeout=60
#include "collision/broadphase.h"
#include "base/memory_policy.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_check.h"

#include "test_random.h"

static PetscErrorCode add_sphere(BodyStore *s, int64_t id, double x, double y, double z, double r)
{
  BodyRecord b = {0};
  PetscFunctionBegin;
  b.id[0]    = id;
  b.pos[0]   = x;
  b.pos[1]   = y;
  b.pos[2]   = z;
  b.quat[0]  = 1;
  b.shape[0] = SHAPE_SPHERE;
  b.size[0] = b.size[1] = b.size[2] = r;
  b.radius[0]                       = r;
  b.mass[0]                         = 1;
  PetscCall(BodyStoreAppendOwned(s, &b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int compare_pairs(const void *pa, const void *pb)
{
  const BodyPair *a = pa, *b = pb;
  if (a->i != b->i) return a->i < b->i ? -1 : 1;
  return (a->j > b->j) - (a->j < b->j);
}

/* BroadphaseFindCandidates (no order promised) must give the pairs of BroadphaseFindPairs, which
 * the caller has just checked against brute force: the same set, each once, i < j. */
static PetscErrorCode compare_candidates(Broadphase *bp, const BodyStore *s, PetscInt n, double envelope,
                                         const char *what)
{
  const BodyPair *cand;
  BodyPair       *sorted, *got;
  const PetscInt  npairs = bp->npairs;
  PetscInt        bad    = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(npairs + 1, &sorted, npairs + 1, &got));
  if (npairs) PetscCall(PetscArraycpy(sorted, bp->pairs, npairs));
  PetscCall(BroadphaseFindCandidates(bp, s, n, envelope, &cand));
  CHECK(bp->npairs == npairs, "%s: %d candidates, %d pairs", what, (int)bp->npairs, (int)npairs);
  if (bp->npairs == npairs) {
    if (npairs) PetscCall(PetscArraycpy(got, cand, npairs));
    for (PetscInt k = 0; k < npairs; k++) bad += !(got[k].i < got[k].j);
    qsort(got, (size_t)npairs, sizeof(BodyPair), compare_pairs);
    for (PetscInt k = 0; k < npairs; k++) bad += got[k].i != sorted[k].i || got[k].j != sorted[k].j;
    CHECK(bad == 0, "%s: %d candidates differ from the sorted pairs", what, (int)bad);
  }
  PetscCall(PetscFree2(sorted, got));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Compare bp's pairs among bodies [0, n) with the brute-force list. */
static PetscErrorCode compare_with_brute_force(Broadphase *bp, const BodyStore *s, PetscInt n, double envelope,
                                               const char *what)
{
  PetscInt k = 0, mismatches = 0;
  PetscFunctionBegin;
  PetscCall(BroadphaseFindPairs(bp, s, n, envelope));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = i + 1; j < n; j++) {
      const double *a = s->pos + 3 * i, *b = s->pos + 3 * j;
      const double  d = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                             (a[2] - b[2]) * (a[2] - b[2]));
      if (!(d < s->radius[i] + s->radius[j] + envelope)) continue;
      if (k < bp->npairs && bp->pairs[k].i == i && bp->pairs[k].j == j) k++;
      else if (mismatches++ < 5)
        printf("  %s: expected pair %d (%d, %d), broadphase has (%d, %d)\n", what, (int)k, (int)i, (int)j,
               k < bp->npairs ? bp->pairs[k].i : -1, k < bp->npairs ? bp->pairs[k].j : -1);
    }
  CHECK(mismatches == 0 && k == bp->npairs, "%s: %d mismatches; brute force matched %d of the broadphase's %d pairs",
        what, (int)mismatches, (int)k, (int)bp->npairs);
  const PetscInt ncells = bp->dims[0] * bp->dims[1] * bp->dims[2];
  printf("%s: %d bodies, %d pairs, grid %dx%dx%d (cell %.3g)\n", what, (int)n, (int)bp->npairs, (int)bp->dims[0],
         (int)bp->dims[1], (int)bp->dims[2], bp->cell);
  /* the grid cap: at most BROADPHASE_MAX_CELLS_PER_BODY cells per body (plus a constant) */
  CHECK(n < 2 || ncells <= BROADPHASE_MAX_CELLS_PER_BODY * n + 64, "%s: %d cells for %d bodies", what, (int)ncells,
        (int)n);
  PetscCall(compare_candidates(bp, s, n, envelope, what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Another user of the pool between detections (the solver): every slot grown and overwritten. */
/* The pool's other user (the solver): its slots freed and taken anew elsewhere (the old blocks held
 * while the new ones are taken, so the addresses change: a broadphase still pointing at its old
 * arrays would read freed memory), then scribbled over. */
static PetscErrorCode scribble_pool(ScratchPool *pool, size_t bytes)
{
  void *hold[SCRATCH_SLOTS];

  PetscFunctionBegin;
  for (int k = 0; k < SCRATCH_SLOTS; k++) {
    hold[k]        = pool->buf[k];
    pool->buf[k]   = NULL;
    pool->bytes[k] = 0;
  }
  for (int k = 0; k < SCRATCH_SLOTS; k++) {
    void *buf;
    PetscCall(ScratchPoolGet(pool, k, bytes, 0, &buf));
    CHECK((uintptr_t)buf % SCRATCH_ALIGN == 0,
          "pool: slot %d starts %d bytes into a cache line (the sweeps' loads would straddle lines)", k,
          (int)((uintptr_t)buf % SCRATCH_ALIGN));
    memset(buf, 0xff, ScratchPoolBytes(pool, k)); /* NaN as doubles, -1 as indices */
  }
  for (int k = 0; k < SCRATCH_SLOTS; k++) MemoryFreeAligned(&hold[k]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* bp's pair array lies inside its pool slot (not in memory the pool gave up) */
static PetscBool pairs_in_pool(const Broadphase *bp, const ScratchPool *pool)
{
  const char *p = (const char *)bp->pairs, *b = (const char *)pool->buf[SCRATCH_BP_PAIRS];
  return (PetscBool)(p >= b && p < b + ScratchPoolBytes(pool, SCRATCH_BP_PAIRS));
}

/* Growth keeps the first `keep` bytes, and only those are promised. */
static PetscErrorCode check_pool_keep(void)
{
  ScratchPool pool;
  char       *buf;
  int         kept = 1;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&pool, sizeof(pool)));
  PetscCall(ScratchPoolGet(&pool, 2, 1000, 0, (void **)&buf));
  for (int i = 0; i < 1000; i++) buf[i] = (char)i;
  PetscCall(ScratchPoolGet(&pool, 2, 100000, 700, (void **)&buf));
  for (int i = 0; i < 700; i++) kept &= buf[i] == (char)i;
  CHECK(kept && ScratchPoolBytes(&pool, 2) >= 100000, "pool: growth kept the first 700 bytes: %d, %zu bytes", kept,
        ScratchPoolBytes(&pool, 2));
  PetscCall(ScratchPoolDestroy(&pool));
  CHECK(ScratchPoolBytes(&pool, 2) == 0 && pool.buf[2] == NULL, "pool: destroyed slots are empty");
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  BodyStore  s;
  Broadphase bp;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(BodyStoreCreate(&s));
  PetscCall(BroadphaseCreate(&bp));

  /* 4000 spheres, radii in [0.5, 1.5], in a cube of side 40 (volume fraction ~0.3); a quarter of
   * them ghosts: the broadphase treats [0, n) alike */
  for (int i = 0; i < 4000; i++)
    PetscCall(add_sphere(&s, i, 40 * urand() - 7, 40 * urand(), 40 * urand() + 100, 0.5 + urand()));
  s.n_owned = 3000;
  s.n_ghost = 1000;
  PetscCall(compare_with_brute_force(&bp, &s, 4000, 0.05, "random cube"));
  PetscCall(compare_with_brute_force(&bp, &s, 4000, 0.0, "random cube, no envelope"));
  PetscCall(compare_with_brute_force(&bp, &s, 1500, 0.3, "first 1500 (reused buffers)"));
  PetscCall(compare_with_brute_force(&bp, &s, 4000, 1.0, "random cube, envelope 1"));
  PetscCall(compare_with_brute_force(&bp, &s, 1, 0.1, "one body"));
  PetscCall(compare_with_brute_force(&bp, &s, 0, 0.1, "no body"));
  {
    Broadphase  lent;
    ScratchPool pool;
    PetscCall(BroadphaseCreate(&lent));
    PetscCall(PetscMemzero(&pool, sizeof(pool)));
    lent.pool = &pool;
    PetscCall(compare_with_brute_force(&lent, &s, 4000, 0.05, "borrowed pool"));
    PetscCall(scribble_pool(&pool, 1 << 20));
    PetscCall(compare_with_brute_force(&lent, &s, 2500, 0.3, "borrowed pool, scribbled over"));
    CHECK(pairs_in_pool(&lent, &pool), "borrowed pool: the pairs outside the pool's slot after the pool moved");
    PetscCall(scribble_pool(&pool, 64));
    PetscCall(compare_with_brute_force(&lent, &s, 4000, 1.0, "borrowed pool, scribbled over, more pairs"));
    CHECK(pairs_in_pool(&lent, &pool), "borrowed pool: the pairs outside the pool's slot after the pool moved");
    CHECK(lent.own.buf[SCRATCH_BP_PAIRS] == NULL, "borrowed pool: the broadphase allocated arrays of its own");
    PetscCall(BroadphaseDestroy(&lent));
    PetscCall(ScratchPoolDestroy(&pool));
  }
  PetscCall(check_pool_keep());
  s.n_owned = 0;
  s.n_ghost = 0;

  /* a flat sheet of 3000 spheres (z = 0) with 2 outliers 1e6 away: without the cap the grid would
   * have ~1e12 cells */
  for (int i = 0; i < 3000; i++) PetscCall(add_sphere(&s, i, 60 * urand(), 60 * urand(), 0, 0.4 + 0.4 * urand()));
  PetscCall(add_sphere(&s, 3000, 1e6, -1e6, 3e5, 1.0));
  PetscCall(add_sphere(&s, 3001, 1e6 + 1.5, -1e6, 3e5, 1.0));
  PetscCall(compare_with_brute_force(&bp, &s, s.n_owned, 0.1, "sheet with far outliers"));
  s.n_owned = 0;

  /* a line of 2000 spheres along x */
  for (int i = 0; i < 2000; i++)
    PetscCall(add_sphere(&s, i, 2000 * urand(), 0.3 * urand(), 0.3 * urand(), 0.5 * urand()));
  PetscCall(compare_with_brute_force(&bp, &s, s.n_owned, 0.01, "line"));
  s.n_owned = 0;

  /* 50 bodies at one point: every pair */
  for (int i = 0; i < 50; i++) PetscCall(add_sphere(&s, i, 1.0, 2.0, 3.0, 0.1));
  PetscCall(compare_with_brute_force(&bp, &s, s.n_owned, 0.0, "coincident"));
  CHECK(bp.npairs == 50 * 49 / 2, "coincident: %d pairs, expected %d", (int)bp.npairs, 50 * 49 / 2);

  PetscCall(BroadphaseDestroy(&bp));
  PetscCall(BodyStoreDestroy(&s));
  if (failures) printf("test_broadphase: %d check(s) FAILED\n", failures);
  else printf("test_broadphase: all checks passed\n");
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
