/* Numbered buffers that the phases of a step take turns in.
 *
 * Why: the solver's packed multiplier vectors are dead from the end of one solve to the start of
 * the next, and collision detection's arrays are dead outside detection. Each phase holding its
 * own arrays put both sets into the peak memory, and detection, which freed its arrays after each
 * step to keep that peak down, faulted fresh pages in every step (about 50-90 of its 320-370 ns
 * per body at 10^4 spheres, thread CPU time). Sharing the buffers gives each phase memory that is
 * already resident and costs only the larger of the two uses per slot.
 *
 * Slot k is one buffer, as large as the largest request for it so far (plus headroom); its
 * contents are the caller's only until another user takes the slot. Slots in use:
 *   0-6  the solver's packed vectors (ccp/pack.c: pk->g[k] is slot k), during a solve;
 *   0-2  the broadphase's cells, bodies by cell and pairs, during a detection (when it borrows
 *        the solver's pool); then 0-1 collision detection's pair records and their sort buffer
 *        (the grid is dead once the candidate pairs are found): in the slots of the vectors every
 *        method uses, so a method of two vectors (Jacobi, Gauss-Seidel) grows no slot of its own
 *        for them (about 130 bytes per body less in the 3-dof bench pile);
 *   7    the solver's packed blocks, during a solve; the warm-start memory (ImpulseMemoryUsePool)
 *        from the store after a solve to its release before the next (the time step);
 *   0    also the solve's velocities (CCPProblem.vel NULL), from the end of a solve to the pool's
 *        next user. */
#ifndef CCPDEM_BASE_SCRATCH_POOL_H
#define CCPDEM_BASE_SCRATCH_POOL_H
#include <petscsys.h>

#define SCRATCH_SLOTS 8

enum {
  SCRATCH_BP_CELLS         = 0,
  SCRATCH_BP_BODIES        = 1,
  SCRATCH_BP_PAIRS         = 2,
  SCRATCH_PAIR_RECORDS     = 0,
  SCRATCH_PAIR_SORT        = 1,
  SCRATCH_PACKED_BLOCKS    = 7,
  SCRATCH_SOLVE_VELOCITIES = 0
};

typedef struct {
  void  *buf[SCRATCH_SLOTS]; /* SCRATCH_ALIGN-aligned (MemoryAllocAligned) */
  size_t bytes[SCRATCH_SLOTS];
} ScratchPool;

/* *buf <- slot `slot`, grown to at least `bytes`; when it grows, its first `keep` bytes are kept
 * (the rest of the contents never are). The first `bytes` ask for huge pages (base/memory_policy.h).
 * Slots start on a cache line: the sweeps' 32-byte loads of the packed blocks and vectors then
 * never straddle two lines (malloc's large blocks start 16 bytes into a page). */
#define SCRATCH_ALIGN 64
PetscErrorCode ScratchPoolGet(ScratchPool *p, int slot, size_t bytes, size_t keep, void **buf);
/* Bytes slot `slot` holds now (0: none yet). */
static inline size_t ScratchPoolBytes(const ScratchPool *p, int slot) { return p->bytes[slot]; }
/* Free every slot; the pool stays usable (empty). */
PetscErrorCode ScratchPoolDestroy(ScratchPool *p);
#endif
