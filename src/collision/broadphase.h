/* Uniform cell grid broadphase: candidate body pairs whose bounding spheres, grown by the
 * envelope, overlap. O(n) for bounded size ratios. Pairs come out in a deterministic order
 * (by the lower storage index, then the other) so detection never depends on hashing order. */
#ifndef CCPDEM_COLLISION_BROADPHASE_H
#define CCPDEM_COLLISION_BROADPHASE_H
#include "bodies/body_store.h"
#include "base/scratch_pool.h"

typedef struct {
  int32_t i, j;
} BodyPair; /* storage indices, i < j */

/* The grid has at most this many cells per body (+ 64): the cell grows beyond 2 r_max + envelope
 * where the bodies' bounding box is mostly empty. */
#define BROADPHASE_MAX_CELLS_PER_BODY 8

typedef struct {
  /* grid */
  double    origin[3], cell;
  PetscInt  dims[3];
  PetscInt *cell_start, *cell_body; /* CSR: bodies of cell c are cell_body[cell_start[c] .. cell_start[c+1]) */
  PetscInt  nbody_cap;
  /* output */
  PetscInt  npairs, pairs_cap;
  BodyPair *pairs;
  /* Where the arrays live (slots SCRATCH_BP_*): `pool` when set (borrowed, e.g. the solver's,
   * CCPSolverScratch), else `own`. The arrays above stay valid until the pool's next user. */
  ScratchPool *pool;
  ScratchPool  own;
} Broadphase;

PetscErrorCode BroadphaseCreate(Broadphase *bp);
/* Frees its own arrays and forgets a borrowed pool: empty, as created. */
PetscErrorCode BroadphaseDestroy(Broadphase *bp);
/* The pool bp's arrays live in (its own or the borrowed one): collision detection's staging shares it. */
static inline ScratchPool *BroadphaseScratch(Broadphase *bp) { return bp->pool ? bp->pool : &bp->own; }
/* Find candidate pairs among bodies [0, n) of s (owned and ghosts). envelope > 0 widens the test. */
PetscErrorCode BroadphaseFindPairs(Broadphase *bp, const BodyStore *s, PetscInt n, double envelope);
/* The same bp->npairs pairs without the (i, j) sort, in grid order: for callers that order them
 * by something else anyway (collision detection sorts by key). *pairs lives in bp until the next
 * call; the grid (slots SCRATCH_BP_CELLS and SCRATCH_BP_BODIES) is dead on return: the caller may
 * take those slots (collision detection's pair records do). */
PetscErrorCode BroadphaseFindCandidates(Broadphase *bp, const BodyStore *s, PetscInt n, double envelope,
                                        const BodyPair **pairs);
#endif
