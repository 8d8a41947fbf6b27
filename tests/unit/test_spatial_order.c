/* Morton ordering of the owned bodies (src/bodies/spatial_order.c): a permutation that moves every field
 * of a body together, orders the bodies by Z-order code (recomputed here by a plain bit loop, not
 * the library's bit tricks), and gives the same order whatever order the bodies start in. */
#include <petscsys.h>
#include "bodies/spatial_order.h"
#include "test_check.h"
#include "test_random.h"

static uint64_t morton_reference(const double x[3], const double lo[3], const double hi[3])
{
  uint64_t c[3], code = 0;
  for (int k = 0; k < 3; k++) {
    double t = (x[k] - lo[k]) / (hi[k] - lo[k]);
    t        = t < 0 ? 0 : (t > 1 ? 1 : t);
    c[k]     = (uint64_t)(t * 2097151.0);
  }
  for (int bit = 20; bit >= 0; bit--)
    for (int k = 2; k >= 0; k--) code = code << 1 | ((c[k] >> bit) & 1);
  return code;
}

static PetscErrorCode Fill(BodyStore *s, PetscInt n, int reversed)
{
  PetscFunctionBegin;
  for (PetscInt j = 0; j < n; j++) {
    const PetscInt i     = reversed ? n - 1 - j : j;
    BodyRecord     r     = {0};
    uint64_t       saved = rng_state;
    rng_state            = 1000 + (uint64_t)i; /* body i's data depend on i only */
    r.id[0]              = i;
    for (int k = 0; k < 3; k++) r.pos[k] = urand();
    r.vel[0]  = (double)i; /* a second field that must travel with the body */
    r.mass[0] = 1;
    rng_state = saved;
    PetscCall(BodyStoreAppendOwned(s, &r));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const PetscInt n     = 5000;
  const double   lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  BodyStore      a, b;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(BodyStoreCreate(&a));
  PetscCall(BodyStoreCreate(&b));
  PetscCall(Fill(&a, n, 0));
  PetscCall(Fill(&b, n, 1));
  PetscCall(BodyStoreSortSpatially(&a, lo, hi));
  PetscCall(BodyStoreSortSpatially(&b, lo, hi));
  CHECK(a.n_owned == n, "sorting changed the body count to %d", (int)a.n_owned);
  {
    char *seen;
    PetscCall(PetscCalloc1(n, &seen));
    for (PetscInt i = 0; i < n; i++) {
      const int64_t id = a.id[i];
      CHECK(id >= 0 && id < n && !seen[id], "id %lld lost or duplicated", (long long)id);
      if (id >= 0 && id < n) seen[id] = 1;
      CHECK(a.vel[6 * i] == (double)id, "body %lld: its velocity did not move with it", (long long)id);
      if (i)
        CHECK(morton_reference(a.pos + 3 * (i - 1), lo, hi) <= morton_reference(a.pos + 3 * i, lo, hi),
              "bodies %d and %d out of Z-order", (int)i - 1, (int)i);
      CHECK(a.id[i] == b.id[i], "position %d: order depends on the starting order (%lld vs %lld)", (int)i,
            (long long)a.id[i], (long long)b.id[i]);
    }
    PetscCall(PetscFree(seen));
  }
  printf("spatial order: %d bodies permuted with their fields, Z-order non-decreasing, independent of the starting "
         "order\n",
         (int)n);
  PetscCall(BodyStoreDestroy(&a));
  PetscCall(BodyStoreDestroy(&b));
  PetscCall(PetscFinalize());
  if (failures) printf("test_spatial_order: %d check(s) FAILED\n", failures);
  return failures ? 1 : 0;
}
