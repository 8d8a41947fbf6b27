/* A quad: the 4 doubles of a record that one 32-byte load brings in, and the 4x4 transpose that
 * turns the quads of 4 records into 4 values per lane and back. Shared by the lane helpers of
 * base/simd4.h (one quad per lane vector) and base/simd8.h (two). */
#ifndef CCPDEM_BASE_SIMD_QUAD_H
#define CCPDEM_BASE_SIMD_QUAD_H
#include <stdint.h>

#include <string.h>

#ifndef ALWAYS_INLINE
#define ALWAYS_INLINE static inline __attribute__((always_inline))
#endif

typedef double  simd_quad __attribute__((vector_size(4 * sizeof(double))));
typedef int64_t simd_quad_index __attribute__((vector_size(4 * sizeof(int64_t))));

/* the 4 doubles at p (any alignment) */
ALWAYS_INLINE simd_quad quad_load(const double *p)
{
  simd_quad r;
  memcpy(&r, p, sizeof(r));
  return r;
}

/* rows r[l] (4 entries of record l) <-> columns c[k] (entry k of the 4 records) */
ALWAYS_INLINE void quad_transpose(const simd_quad r[4], simd_quad c[4])
{
  const simd_quad_index lo = {0, 4, 2, 6}, hi = {1, 5, 3, 7}, first = {0, 1, 4, 5}, second = {2, 3, 6, 7};
  const simd_quad       t0 = __builtin_shuffle(r[0], r[1], lo), t1 = __builtin_shuffle(r[0], r[1], hi);
  const simd_quad       t2 = __builtin_shuffle(r[2], r[3], lo), t3 = __builtin_shuffle(r[2], r[3], hi);
  c[0] = __builtin_shuffle(t0, t2, first);
  c[1] = __builtin_shuffle(t1, t3, first);
  c[2] = __builtin_shuffle(t0, t2, second);
  c[3] = __builtin_shuffle(t1, t3, second);
}
#endif
