/* See contact/impulse_memory.h. */
#include "contact/impulse_memory.h"
#include "base/growth.h"
#include <string.h>

PetscErrorCode ImpulseMemoryCreate(ImpulseMemory *m)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(m, sizeof(*m)));
  m->width = CCP_RECORD_WIDTH;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Give back m's storage (a pool's slot is only forgotten): empty, no storage. */
static PetscErrorCode ImpulseMemoryDrop(ImpulseMemory *m)
{
  PetscFunctionBegin;
  if (m->pool) m->key = NULL, m->gamma = NULL;
  else PetscCall(PetscFree2(m->key, m->gamma));
  m->n = m->capacity = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ImpulseMemoryDestroy(ImpulseMemory *m)
{
  PetscFunctionBegin;
  PetscCall(ImpulseMemoryDrop(m));
  PetscCall(PetscMemzero(m, sizeof(*m)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ImpulseMemoryRelease(ImpulseMemory *m) { return ImpulseMemoryDrop(m); }

PetscErrorCode ImpulseMemoryUsePool(ImpulseMemory *m, ScratchPool *pool, int slot)
{
  PetscFunctionBegin;
  PetscCheck(!m->key && m->n == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "ImpulseMemoryUsePool needs an empty memory: call ImpulseMemoryRelease first");
  m->pool = pool;
  m->slot = slot;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ImpulseMemorySetWidth(ImpulseMemory *m, PetscInt width)
{
  PetscFunctionBegin;
  PetscCheck(width > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "ImpulseMemorySetWidth: width %" PetscInt_FMT " must be > 0", width);
  PetscCall(ImpulseMemoryDestroy(m));
  m->width = width;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ImpulseMemoryReserve(ImpulseMemory *m, PetscInt n)
{
  PetscFunctionBegin;
  if (n <= m->capacity && m->key) PetscFunctionReturn(PETSC_SUCCESS);
  if (m->pool) { /* the keys, then the records from the next 64 bytes on (the pool keeps headroom) */
    const size_t kb = ((size_t)(n + 1) * sizeof(ContactKey) + 63) / 64 * 64;
    char        *buf;
    PetscCall(ScratchPoolGet(m->pool, m->slot, kb + (size_t)(n + 1) * m->width * sizeof(double), 0, (void **)&buf));
    m->key      = (ContactKey *)buf;
    m->gamma    = (double *)(buf + kb);
    m->capacity = n;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscFree2(m->key, m->gamma));
  m->capacity = (PetscInt)GrowthCapacity((size_t)m->capacity, (size_t)n);
  PetscCall(PetscMalloc2(m->capacity + 1, &m->key, (size_t)(m->capacity + 1) * m->width, &m->gamma));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ImpulseMemoryPrepare(ImpulseMemory *next, PetscInt width, PetscInt n, double **rec)
{
  PetscFunctionBegin;
  if (next->width != width) PetscCall(ImpulseMemorySetWidth(next, width));
  PetscCall(ImpulseMemoryReserve(next, n));
  next->n = 0;
  *rec    = next->gamma;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ImpulseMemoryAdopt(ImpulseMemory *m, ImpulseMemory *next, PetscInt n, const ContactKey *key)
{
  ImpulseMemory swap;

  PetscFunctionBegin;
  PetscCheck(next->width == m->width && n <= next->capacity && next->key, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "ImpulseMemoryAdopt: %" PetscInt_FMT " records of width %" PetscInt_FMT
             " were not prepared (ImpulseMemoryPrepare) for a memory of width %" PetscInt_FMT,
             n, next->width, m->width);
  PetscCheck(contact_keys_sorted(key, n), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "ImpulseMemoryAdopt needs the keys sorted: call ContactSetSortByKey first");
  PetscCheck(!m->pool && !next->pool, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "ImpulseMemoryAdopt swaps arrays of their own, not a pool's slot (ImpulseMemoryUsePool)");
  if (n) PetscCall(PetscArraycpy(next->key, key, n));
  next->n = n;
  swap    = *m;
  *m      = *next;
  *next   = swap;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscBool ImpulseMemoryWritableInPlace(const ImpulseMemory *m, const PetscInt match[], PetscInt n)
{
  PetscInt behind = 0;
  if (n > m->capacity || !m->gamma) return PETSC_FALSE;
  for (PetscInt i = 0; i < n; i++) behind |= match[i] >= 0 && match[i] < i; /* no early exit: a branch-free pass */
  return (PetscBool)!behind;
}

PetscErrorCode ImpulseMemorySet(ImpulseMemory *m, PetscInt n, const ContactKey *key, const double *gamma)
{
  const size_t w = (size_t)m->width;
  PetscInt    *perm;

  PetscFunctionBegin;
  PetscCall(ImpulseMemoryReserve(m, n));
  PetscCall(PetscMalloc1(n + 1, &perm));
  for (PetscInt i = 0; i < n; i++) perm[i] = i;
  if (n > 1)
    PetscCall(PetscTimSort(n, perm, sizeof(PetscInt), contact_key_index_compare,
                           (void *)key)); /* PETSc 3.18's reads out of bounds at n = 0 */
  for (PetscInt i = 0; i < n; i++) {
    PetscCheck(i == 0 || contact_key_compare(&key[perm[i - 1]], &key[perm[i]]) < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "ImpulseMemorySet: contact (%lld, %lld, %d) is remembered twice; keys must be unique",
               (long long)key[perm[i]].ida, (long long)key[perm[i]].idb, (int)key[perm[i]].sub);
    m->key[i] = key[perm[i]];
    memcpy(m->gamma + w * i, gamma + w * perm[i], sizeof(double) * w);
  }
  m->n = n;
  PetscCall(PetscFree(perm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ImpulseMemorySort(ImpulseMemory *m)
{
  ContactKey *key;
  double     *gamma;

  PetscFunctionBegin;
  if (contact_keys_sorted(m->key, m->n)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc2(m->n, &key, (size_t)m->n * m->width, &gamma));
  PetscCall(PetscArraycpy(key, m->key, m->n));
  PetscCall(PetscArraycpy(gamma, m->gamma, (size_t)m->n * m->width));
  PetscCall(ImpulseMemorySet(m, m->n, key, gamma));
  PetscCall(PetscFree2(key, gamma));
  PetscFunctionReturn(PETSC_SUCCESS);
}
