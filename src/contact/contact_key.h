/* The key of a contact: (id A, id B, point index), the identity by which whatever a contact carries
 * from step to step is matched, routed between ranks and checkpointed (contact/impulse_memory.h). */
#ifndef CCPDEM_CONTACT_CONTACT_KEY_H
#define CCPDEM_CONTACT_CONTACT_KEY_H
#include <petscsys.h>
#include <stdint.h>

typedef struct {
  int64_t ida, idb; /* global ids of A and B (walls negative) */
  int32_t sub;
} ContactKey;

/* -1, 0, 1 as a < b, a == b, a > b in (ida, idb, sub) order */
static inline int contact_key_compare(const ContactKey *a, const ContactKey *b)
{
  if (a->ida != b->ida) return a->ida < b->ida ? -1 : 1;
  if (a->idb != b->idb) return a->idb < b->idb ? -1 : 1;
  if (a->sub != b->sub) return a->sub < b->sub ? -1 : 1;
  return 0;
}

/* Whether key[0 .. n) is in key order. */
static inline PetscBool contact_keys_sorted(const ContactKey *key, PetscInt n)
{
  for (PetscInt i = 1; i < n; i++)
    if (contact_key_compare(&key[i - 1], &key[i]) > 0) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* For sorting a permutation of indices by the keys ctx (a ContactKey array), stably: equal keys
 * (which detection never makes) keep their index order. */
static inline int contact_key_index_compare(const void *pa, const void *pb, void *ctx)
{
  const ContactKey *key = (const ContactKey *)ctx;
  const PetscInt    a = *(const PetscInt *)pa, b = *(const PetscInt *)pb;
  const int         c = contact_key_compare(&key[a], &key[b]);
  if (c) return c;
  return a < b ? -1 : (a > b);
}
#endif
