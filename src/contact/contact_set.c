#include "contact/contact_set.h"
#include "base/growth.h"
#include "base/memory_policy.h"
#include <string.h>

/* Arrays for cap contacts of cs: the records 64-byte aligned (CONTACT_ALIGN: each spans exactly 4
 * cache lines, and the penalty model's fields share the first), keys and impulses as PETSc gives. */
static PetscErrorCode ContactArraysAlloc(const ContactSet *cs, PetscInt cap, Contact **c, ContactKey **key,
                                         double **gamma)
{
  PetscFunctionBegin;
  PetscCall(MemoryAllocAligned(sizeof(Contact) * (size_t)cap, CONTACT_ALIGN, "the contact records", (void **)c));
  PetscCall(PetscMalloc2((size_t)cap, key, contact_gamma_width(cs) * cap, gamma));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ContactArraysFree(Contact **c, ContactKey **key, double **gamma)
{
  PetscFunctionBegin;
  MemoryFreeAligned((void **)c);
  PetscCall(PetscFree2(*key, *gamma));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ContactSetCreate(ContactSet *cs)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(cs, sizeof(*cs)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ContactSetDestroy(ContactSet *cs)
{
  PetscFunctionBegin;
  PetscCall(ContactArraysFree(&cs->c, &cs->key, &cs->gamma));
  PetscCall(PetscMemzero(cs, sizeof(*cs)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ContactSetReserve(ContactSet *cs, PetscInt n)
{
  PetscInt    cap;
  Contact    *c;
  ContactKey *key;
  double     *gamma;

  PetscFunctionBegin;
  if (n <= cs->capacity) PetscFunctionReturn(PETSC_SUCCESS);
  cap = (PetscInt)GrowthCapacity((size_t)cs->capacity, (size_t)n);
  PetscCall(ContactArraysAlloc(cs, cap, &c, &key, &gamma));
  if (cs->n) {
    PetscCall(PetscArraycpy(c, cs->c, cs->n));
    PetscCall(PetscArraycpy(key, cs->key, cs->n));
    PetscCall(PetscArraycpy(gamma, cs->gamma, (size_t)contact_gamma_width(cs) * cs->n));
  }
  PetscCall(ContactArraysFree(&cs->c, &cs->key, &cs->gamma));
  cs->c        = c;
  cs->key      = key;
  cs->gamma    = gamma;
  cs->capacity = cap;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ContactSetAppendSlot(ContactSet *cs, const ContactKey *k, Contact **slot)
{
  PetscFunctionBegin;
  PetscCheck(cs->n < cs->capacity, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "ContactSetAppendSlot: no room reserved for contact %" PetscInt_FMT, cs->n);
  *slot = contact_set_append_reserved(cs, k);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ContactSetAppend(ContactSet *cs, const Contact *c, const ContactKey *k, PetscInt *index)
{
  Contact *slot;

  PetscFunctionBegin;
  if (cs->n == cs->capacity) PetscCall(ContactSetReserve(cs, cs->n + 1));
  if (index) *index = cs->n;
  PetscCall(ContactSetAppendSlot(cs, k, &slot));
  *slot = *c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

void ContactSetClear(ContactSet *cs)
{
  cs->n        = 0;
  cs->unsorted = PETSC_FALSE;
}

PetscErrorCode ContactSetSortByKey(ContactSet *cs)
{
  PetscInt    *perm;
  Contact     *c;
  ContactKey  *key;
  double      *gamma;
  const size_t w = contact_gamma_width(cs);

  PetscFunctionBegin;
  /* Collision detection emits contacts already in key order: that case costs nothing. */
  if (!cs->unsorted) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(cs->n, &perm));
  for (PetscInt i = 0; i < cs->n; i++) perm[i] = i;
  PetscCall(PetscTimSort(cs->n, perm, sizeof(PetscInt), contact_key_index_compare, cs->key));
  /* Gather into fresh arrays (one pass each) and swap them in. */
  PetscCall(ContactArraysAlloc(cs, cs->capacity, &c, &key, &gamma));
  for (PetscInt i = 0; i < cs->n; i++) {
    c[i]   = cs->c[perm[i]];
    key[i] = cs->key[perm[i]];
    if (w) memcpy(gamma + w * i, cs->gamma + w * perm[i], sizeof(double) * w);
  }
  PetscCall(ContactArraysFree(&cs->c, &cs->key, &cs->gamma));
  cs->c        = c;
  cs->key      = key;
  cs->gamma    = gamma;
  cs->unsorted = PETSC_FALSE;
  PetscCall(PetscFree(perm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same contacts as last step: common in a settled pile. Compared by field, not by memcmp: a
 * key's 4 bytes of padding are never written (left as they were, they made memcmp see
 * differences that are not there, and valgrind report them). */
static inline PetscBool memory_same_keys(const ContactSet *cur, const ImpulseMemory *prev)
{
  if (cur->n != prev->n) return PETSC_FALSE;
  for (PetscInt i = 0; i < cur->n; i++)
    if (contact_key_compare(&cur->key[i], &prev->key[i])) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* same: prev's keys are cur's (memory_same_keys), so cur's flag checks both */
static PetscErrorCode memory_check_sorted(const ContactSet *cur, const ImpulseMemory *prev, PetscBool same)
{
  PetscFunctionBegin;
  PetscCheck(!cur->unsorted && (same || contact_keys_sorted(prev->key, prev->n)), PETSC_COMM_SELF,
             PETSC_ERR_ARG_WRONGSTATE,
             "Matching contacts with the memory needs both sorted by key: call ContactSetSortByKey first");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ImpulseMemoryMatch(const ContactSet *cur, const ImpulseMemory *prev, PetscInt match[], PetscInt *matched)
{
  PetscInt        j = 0, nmatch = 0;
  const PetscBool same = memory_same_keys(cur, prev);

  PetscFunctionBegin;
  PetscCall(memory_check_sorted(cur, prev, same));
  if (same) {
    for (PetscInt i = 0; i < cur->n; i++) match[i] = i;
    if (matched) *matched = cur->n;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* Merge of two sorted key lists: linear in cur->n + prev->n. */
  for (PetscInt i = 0; i < cur->n; i++) {
    PetscBool hit;
    j        = impulse_memory_seek(prev, j, &cur->key[i], &hit, NULL);
    match[i] = hit ? j : -1;
    nmatch += hit;
  }
  if (matched) *matched = nmatch;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ContactSetWarmStart(ContactSet *cur, const ImpulseMemory *prev, double scale, PetscInt *matched)
{
  PetscInt  j = 0, nmatch = 0;
  PetscBool same;

  PetscFunctionBegin;
  PetscCheck(scale >= 0 && scale <= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Warm-start scale %g must lie in [0, 1] (-ccp_warm_start_scale)", scale);
  PetscCheck(prev->width == CCP_RECORD_WIDTH, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "ContactSetWarmStart needs a memory of CCP records (width %d), not of width %" PetscInt_FMT,
             CCP_RECORD_WIDTH, prev->width);
  same = memory_same_keys(cur, prev);
  PetscCall(memory_check_sorted(cur, prev, same));
  /* One merge of the two sorted key lists, copying as it goes (no match array). */
  for (PetscInt i = 0; i < cur->n; i++) {
    PetscBool hit = PETSC_TRUE;
    if (i + 8 < cur->n) /* the contacts are cold after the solve, and 128 bytes apart: fetch ahead the line of
                           contact_dof and plastic */
      __builtin_prefetch(&cur->c[i + 8].plastic, 1);
    if (same) j = i;
    else j = impulse_memory_seek(prev, j, &cur->key[i], &hit, NULL);
    if (hit) {
      contact_set_warm_copy(cur, i, prev->gamma + (size_t)CCP_RECORD_WIDTH * j, scale);
      nmatch++;
    } else {
      memset(contact_gamma(cur, i), 0, sizeof(double) * CONTACT_DOF_MAX);
      cur->c[i].plastic = 0;
    }
  }
  if (matched) *matched = nmatch;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ContactSetWarmBegin(ContactSet *cur, const ImpulseMemory *prev, double scale)
{
  PetscFunctionBegin;
  PetscCheck(scale >= 0 && scale <= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Warm-start scale %g must lie in [0, 1] (-ccp_warm_start_scale)", scale);
  PetscCheck(prev->width == CCP_RECORD_WIDTH, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "ContactSetWarmBegin needs a memory of CCP records (width %d), not of width %" PetscInt_FMT,
             CCP_RECORD_WIDTH, prev->width);
  PetscCheck(!cur->no_impulses, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "ContactSetWarmBegin needs a contact set with impulses");
  cur->warm = (ContactWarmCursor){.prev = prev, .scale = scale};
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ContactSetWarmEnd(ContactSet *cur, PetscInt *matched)
{
  ContactWarmCursor w = cur->warm;

  PetscFunctionBegin;
  PetscCheck(w.prev, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "ContactSetWarmEnd without ContactSetWarmBegin");
  cur->warm.prev = NULL;
  /* the pairs of prev's keys the merge passed were compared on the way; the rest here */
  PetscCheck(!cur->unsorted && !w.disorder && contact_keys_sorted(w.prev->key + w.j, w.prev->n - w.j), PETSC_COMM_SELF,
             PETSC_ERR_ARG_WRONGSTATE,
             "Matching contacts with the memory needs both sorted by key: call ContactSetSortByKey first");
  if (matched) *matched = w.matched;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ImpulseMemoryRekey(ImpulseMemory *m, const ContactSet *cs)
{
  PetscFunctionBegin;
  PetscCheck(cs->n <= m->capacity, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "ImpulseMemoryRekey: %" PetscInt_FMT " records do not fit a memory of %" PetscInt_FMT, cs->n, m->capacity);
  PetscCheck(!cs->unsorted, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "ImpulseMemoryRekey needs the contacts sorted: call ContactSetSortByKey first");
  if (cs->n) PetscCall(PetscArraycpy(m->key, cs->key, cs->n));
  m->n = cs->n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define STORE_PLASTIC_AHEAD 16
PetscErrorCode ImpulseMemoryStore(ImpulseMemory *m, const ContactSet *cs)
{
  PetscFunctionBegin;
  PetscCheck(m->width == CCP_RECORD_WIDTH, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "ImpulseMemoryStore keeps CCP records (width %d), not records of width %" PetscInt_FMT, CCP_RECORD_WIDTH,
             m->width);
  PetscCheck(!cs->unsorted, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "ImpulseMemoryStore needs the contacts sorted by key: call ContactSetSortByKey first");
  PetscCall(ImpulseMemoryReserve(m, cs->n));
  if (cs->n) PetscCall(PetscArraycpy(m->key, cs->key, cs->n));
  for (PetscInt i = 0; i < cs->n; i++) {
    double *rec = m->gamma + (size_t)CCP_RECORD_WIDTH * i;
    /* plastic is all this reads of a record: one line in two, which out of cache the hardware
     * prefetcher left to miss (perf at 10^6: 61% of this loop's samples on that load) */
    if (i + STORE_PLASTIC_AHEAD < cs->n) __builtin_prefetch(&cs->c[i + STORE_PLASTIC_AHEAD].plastic, 0);
    PetscCall(PetscArraycpy(rec, contact_gamma(cs, i), CONTACT_DOF_MAX));
    rec[CCP_RECORD_PLASTIC] = cs->c[i].plastic;
    if (contact_set_torque_state(cs, &cs->c[i])) { /* the springs' state as a world vector (ContactSet) */
      const Contact *c = &cs->c[i];
      const double  *g = contact_gamma(cs, i);
      double         u[3], w[3];
      contact_frame(c, u, w);
      for (int k = 0; k < 3; k++) rec[3 + k] = g[3] * c->n[k] + g[4] * u[k] + g[5] * w[k];
    }
  }
  m->n = cs->n;
  PetscFunctionReturn(PETSC_SUCCESS);
}
