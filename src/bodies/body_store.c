#include "bodies/body_store.h"
#include "base/growth.h"
#include <string.h>

PetscErrorCode BodyStoreCreate(BodyStore *s)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BodyStoreDestroy(BodyStore *s)
{
  PetscFunctionBegin;
#define BODY_FIELD_FREE(type, name, width) PetscCall(PetscFree(s->name));
  BODY_FIELDS(BODY_FIELD_FREE)
#undef BODY_FIELD_FREE
  PetscCall(PetscMemzero(s, sizeof(*s)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BodyStoreReserve(BodyStore *s, PetscInt n)
{
  PetscInt cap;

  PetscFunctionBegin;
  if (n <= s->capacity) PetscFunctionReturn(PETSC_SUCCESS);
  cap = (PetscInt)GrowthCapacity((size_t)s->capacity, (size_t)n);
#define BODY_FIELD_GROW(type, name, width) \
  { \
    type *p; \
    PetscCall(PetscMalloc1((size_t)cap *(width), &p)); \
    if (s->name) PetscCall(PetscArraycpy(p, s->name, (size_t)(s->n_owned + s->n_ghost) * (width))); \
    PetscCall(PetscFree(s->name)); \
    s->name = p; \
  }
  BODY_FIELDS(BODY_FIELD_GROW)
#undef BODY_FIELD_GROW
  s->capacity = cap;
  PetscFunctionReturn(PETSC_SUCCESS);
}

void BodyStoreGet(const BodyStore *s, PetscInt i, BodyRecord *b)
{
#define BODY_FIELD_GET(type, name, width) memcpy(b->name, s->name + (size_t)i * (width), sizeof(type) * (width));
  BODY_FIELDS(BODY_FIELD_GET)
#undef BODY_FIELD_GET
}

void BodyStoreSet(BodyStore *s, PetscInt i, const BodyRecord *b)
{
#define BODY_FIELD_SET(type, name, width) memcpy(s->name + (size_t)i * (width), b->name, sizeof(type) * (width));
  BODY_FIELDS(BODY_FIELD_SET)
#undef BODY_FIELD_SET
}

PetscErrorCode BodyStoreAppendOwned(BodyStore *s, const BodyRecord *b)
{
  PetscFunctionBegin;
  PetscCheck(s->n_ghost == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "BodyStoreAppendOwned: drop the ghosts before adding owned bodies");
  PetscCall(BodyStoreReserve(s, s->n_owned + 1));
  BodyStoreSet(s, s->n_owned, b);
  s->n_owned++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

void BodyStoreRemoveOwned(BodyStore *s, PetscInt i)
{
  BodyRecord last;
  BodyStoreGet(s, s->n_owned - 1, &last);
  BodyStoreSet(s, i, &last);
  s->n_owned--;
}

PetscErrorCode BodyStorePermute(BodyStore *s, PetscInt n, const PetscInt *order)
{
  PetscInt lo = 0, hi = n; /* only slots [lo, hi) change: a re-sort of a settled pile moves few bodies */
  char    *scratch;
  size_t   row = 0;

  PetscFunctionBegin;
  while (lo < hi && order[lo] == lo) lo++;
  while (hi > lo && order[hi - 1] == hi - 1) hi--;
  if (lo == hi) PetscFunctionReturn(PETSC_SUCCESS);
#define BODY_FIELD_ROW(type, name, width) row = PetscMax(row, sizeof(type) * (width));
  BODY_FIELDS(BODY_FIELD_ROW)
#undef BODY_FIELD_ROW
  PetscCall(PetscMalloc1(row * (size_t)(hi - lo), &scratch)); /* one buffer for every field */
#define BODY_FIELD_PERMUTE(type, name, width) \
  { \
    type *p = (type *)(void *)scratch; \
    for (PetscInt k = lo; k < hi; k++) \
      memcpy(p + (size_t)(k - lo) * (width), s->name + (size_t)order[k] * (width), sizeof(type) * (width)); \
    PetscCall(PetscArraycpy(s->name + (size_t)lo * (width), p, (size_t)(hi - lo) * (width))); \
  }
  BODY_FIELDS(BODY_FIELD_PERMUTE)
#undef BODY_FIELD_PERMUTE
  PetscCall(PetscFree(scratch));
  PetscFunctionReturn(PETSC_SUCCESS);
}
