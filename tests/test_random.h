/* A seeded uniform generator for test inputs (splitmix64): reproducible, independent of libc. */
#ifndef CCPDEM_TEST_RANDOM_H
#define CCPDEM_TEST_RANDOM_H
#include <stdint.h>
#include "base/vec3.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull; /* assign to reseed */

static inline double urand(void) /* [0, 1) */
{
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z          = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z          = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (double)((z ^ (z >> 31)) >> 11) * 0x1p-53;
}
static inline double srand1(void) { return 2 * urand() - 1; } /* [-1, 1) */

/* Random symmetric positive definite 3x3 as (xx, yy, zz, xy, xz, yz): R diag(d) R^T, d in
 * scale * [0.5, 1.5). */
static inline void random_spd(double S[6], double scale)
{
  double q[4] = {srand1(), srand1(), srand1(), srand1()}, R[9], d[3];
  quat_normalize(q);
  quat_to_matrix(q, R);
  for (int k = 0; k < 3; k++) d[k] = scale * (0.5 + urand());
  sym_rotate_diag(S, R, d);
}
#endif
