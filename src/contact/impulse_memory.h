/* The contact memory: per contact key, what a contact carries from one step to the next (the
 * CCP's impulses for the warm start and its plastic displacement, or the penalty model's friction
 * history), sorted by key, so that it survives reordering, migration and restarts. */
#ifndef CCPDEM_CONTACT_IMPULSE_MEMORY_H
#define CCPDEM_CONTACT_IMPULSE_MEMORY_H
#include "contact/contact_key.h"
#include "base/scratch_pool.h"

#define CONTACT_DOF_MAX 6
/* A CCP contact's memory record: its impulses (CONTACT_DOF_MAX), then its plastic displacement
 * (state that outlives the step: ccp/plasticity.h). */
#define CCP_RECORD_WIDTH   (CONTACT_DOF_MAX + 1)
#define CCP_RECORD_PLASTIC CONTACT_DOF_MAX

/* The per-contact records of one step by key, sorted by key: what the next step starts from and
 * what checkpoints and migration carry. A record is `width` doubles: the CCP's impulses and plastic
 * displacement (CCP_RECORD_WIDTH, what the next step starts from: 80 bytes per contact with the key) or
 * the penalty model's friction history (PENALTY_HISTORY_WIDTH, src/penalty/history.h). One type,
 * so routing (decomp/impulse_routing.c) and checkpoints (io/checkpoint.c) serve both models. */
typedef struct {
  PetscInt    n, capacity;
  PetscInt    width; /* doubles per record; CCP_RECORD_WIDTH after ImpulseMemoryCreate */
  ContactKey *key;
  double     *gamma; /* width per contact */
  ScratchPool
     *pool; /* NULL: key and gamma are arrays of their own; else both in slot `slot` of pool (ImpulseMemoryUsePool) */
  int slot;
} ImpulseMemory;

/* The first index from j on whose key in m is not below k (m sorted); *hit when it equals k.
 * disorder (may be NULL) is set when two keys the seek passes are out of order. */
static inline PetscInt impulse_memory_seek(const ImpulseMemory *m, PetscInt j, const ContactKey *k, PetscBool *hit,
                                           PetscBool *disorder)
{
  int cmp = 1;
  for (; j < m->n && (cmp = contact_key_compare(&m->key[j], k)) < 0; j++)
    if (disorder && j + 1 < m->n && contact_key_compare(&m->key[j], &m->key[j + 1]) > 0) *disorder = PETSC_TRUE;
  *hit = (PetscBool)(j < m->n && cmp == 0);
  return j;
}

PetscErrorCode ImpulseMemoryCreate(ImpulseMemory *m);
PetscErrorCode ImpulseMemoryDestroy(ImpulseMemory *m);
/* Drop the contents and free the arrays (the width stays): for when the records are dead until the
 * next store, e.g. during the solve (the time step), so they do not add to the peak memory. */
PetscErrorCode ImpulseMemoryRelease(ImpulseMemory *m);
/* From the next store on, keep keys and records in slot `slot` of `pool` rather than in arrays of
 * their own (pool NULL: arrays again). m must be empty (ImpulseMemoryRelease, Destroy or Create).
 * For a slot whose other user is dead while m holds records: the time step lends m the solver's
 * packed blocks, dead from the store after a solve to the release before the next, so the memory
 * adds nothing to the peak beside the blocks kept for the next solve. Release and Destroy then
 * free nothing, and another user of the slot may take it only after the release. */
PetscErrorCode ImpulseMemoryUsePool(ImpulseMemory *m, ScratchPool *pool, int slot);
/* Room for n records of m->width doubles; drops the contents. */
PetscErrorCode ImpulseMemoryReserve(ImpulseMemory *m, PetscInt n);
/* Records of `width` doubles from now on; drops the contents. */
PetscErrorCode ImpulseMemorySetWidth(ImpulseMemory *m, PetscInt width);
/* Double buffering of records without copying them: *rec = room for n records of `width` doubles
 * in `next` (its contents dropped) for the caller to write; then ImpulseMemoryAdopt makes them m's. */
PetscErrorCode ImpulseMemoryPrepare(ImpulseMemory *next, PetscInt width, PetscInt n, double **rec);
/* m <- the n records written into next (ImpulseMemoryPrepare) with these keys, sorted by key; m's
 * old storage goes to next, for the next step's ImpulseMemoryPrepare. */
PetscErrorCode ImpulseMemoryAdopt(ImpulseMemory *m, ImpulseMemory *next, PetscInt n, const ContactKey *key);

/* Whether records for the contacts of a match (ImpulseMemoryMatch; n contacts) can be written over
 * m's own: there is room, and no contact's record lies before its slot (match[i] < 0 or
 * match[i] >= i), so writing slot i in key order never overwrites a record a later contact still
 * reads. Records that moved (match[i] > i) must be read before any slot of their chunk of
 * contacts is written (penalty/loads.c copies them aside). */
PetscBool ImpulseMemoryWritableInPlace(const ImpulseMemory *m, const PetscInt match[], PetscInt n);
/* m <- the n entries (key[i], gamma[w i .. w i + w)), w = m->width, in key order, whatever their
 * order here (the arrays must not be m's own). Keys must be unique. */
PetscErrorCode ImpulseMemorySet(ImpulseMemory *m, PetscInt n, const ContactKey *key, const double *gamma);

/* Sort m by key (a no-op when it is): e.g. the blocks of several writers read back as one. */
PetscErrorCode ImpulseMemorySort(ImpulseMemory *m);
#endif
