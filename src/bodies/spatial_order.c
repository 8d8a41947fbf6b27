#include "bodies/spatial_order.h"

typedef struct {
  uint64_t code, id;
  PetscInt index;
} MortonKey;

/* Spread the low 21 bits of x so that there are two zero bits between each. */
static uint64_t spread3(uint64_t x)
{
  x &= 0x1fffff;
  x = (x | x << 32) & 0x1f00000000ffffULL;
  x = (x | x << 16) & 0x1f0000ff0000ffULL;
  x = (x | x << 8) & 0x100f00f00f00f00fULL;
  x = (x | x << 4) & 0x10c30c30c30c30c3ULL;
  x = (x | x << 2) & 0x1249249249249249ULL;
  return x;
}

static int CompareMorton(const void *pa, const void *pb, void *ctx)
{
  (void)ctx;
  const MortonKey *a = pa, *b = pb;
  if (a->code != b->code) return a->code < b->code ? -1 : 1;
  return a->id < b->id ? -1 : (a->id > b->id);
}

PetscErrorCode BodyStoreSortSpatially(BodyStore *s, const double lo[3], const double hi[3])
{
  const PetscInt n = s->n_owned;
  MortonKey     *keys;
  PetscInt      *order;

  PetscFunctionBegin;
  PetscCheck(s->n_ghost == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "BodyStoreSortSpatially: drop the ghosts first");
  if (n < 2) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc2(n, &keys, n, &order));
  for (PetscInt i = 0; i < n; i++) {
    uint64_t c[3];
    for (int k = 0; k < 3; k++) {
      double t = (s->pos[3 * i + k] - lo[k]) / (hi[k] - lo[k]);
      t        = t < 0 ? 0 : (t > 1 ? 1 : t);
      c[k]     = (uint64_t)(t * 2097151.0);
    }
    keys[i].code  = spread3(c[0]) | spread3(c[1]) << 1 | spread3(c[2]) << 2;
    keys[i].id    = (uint64_t)s->id[i];
    keys[i].index = i;
  }
  /* The bodies are still in last sort's order but for those that crossed a Morton cell since:
   * TimSort takes that near-sorted run in about one pass (the qsort before it took n log n). */
  PetscCall(PetscTimSort(n, keys, sizeof(*keys), CompareMorton, NULL));
  for (PetscInt i = 0; i < n; i++) order[i] = keys[i].index;
  PetscCall(BodyStorePermute(s, n, order)); /* touches only the slots that change */
  PetscCall(PetscFree2(keys, order));
  PetscFunctionReturn(PETSC_SUCCESS);
}
