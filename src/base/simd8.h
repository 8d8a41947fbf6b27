/* Eight lanes of doubles (one zmm register with AVX-512F) for a kernel written against the lane
 * helpers of base/simd4.h, here with the same names for 8 lanes: a translation unit includes one of the
 * two headers. Only penalty/kernel8.c does (the penalty model's block kernel, src/penalty/block_lanes.h);
 * records are still read and written 4 doubles (32 bytes) at a time and transposed, so the record
 * layouts the 4-lane code relies on serve both. */
#ifndef CCPDEM_BASE_SIMD8_H
#define CCPDEM_BASE_SIMD8_H
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "base/simd4_isa.h"
#include "base/simd_quad.h"

#define SIMD8_LANES 8

typedef double    v8d __attribute__((vector_size(SIMD8_LANES * sizeof(double))));
typedef int64_t   v8l __attribute__((vector_size(SIMD8_LANES * sizeof(double))));
typedef simd_quad v8q; /* a quad: 4 doubles of one record (base/simd_quad.h) */

/* a macro, not a function (see base/simd4.h) */
#define vst(p, x) \
  do { \
    const v8d vst_value_ = (x); \
    memcpy((p), &vst_value_, sizeof(vst_value_)); \
  } while (0)
ALWAYS_INLINE v8d splat(double a) { return (v8d){a, a, a, a, a, a, a, a}; }
ALWAYS_INLINE v8d sel(v8l m, v8d a, v8d b) { return (v8d)((m & (v8l)a) | (~m & (v8l)b)); }

ALWAYS_INLINE v8d vsqrt(v8d x)
{
  v8d r;
  for (int l = 0; l < SIMD8_LANES; l++) r[l] = sqrt(x[l]);
  return r;
}

typedef int64_t v8ql __attribute__((vector_size(4 * sizeof(int64_t))));
/* whether any lane of a comparison mask is set: the halves, then the quad, or-ed */
ALWAYS_INLINE int simd8_any(v8l m)
{
  const v8ql q = __builtin_shufflevector(m, m, 0, 1, 2, 3) | __builtin_shufflevector(m, m, 4, 5, 6, 7);
  return (q[0] | q[1] | q[2] | q[3]) != 0;
}

/* x[k] = entry (offset + k) of the 8 records p[l], k < 4: one quad load per record, two quad
 * transposes, and the halves joined */
ALWAYS_INLINE void gather4(const double *const p[SIMD8_LANES], int offset, v8d x[4])
{
  v8q lo[4], hi[4], clo[4], chi[4];
  for (int l = 0; l < 4; l++) {
    lo[l] = quad_load(p[l] + offset);
    hi[l] = quad_load(p[4 + l] + offset);
  }
  quad_transpose(lo, clo);
  quad_transpose(hi, chi);
  for (int k = 0; k < 4; k++) x[k] = __builtin_shufflevector(clo[k], chi[k], 0, 1, 2, 3, 4, 5, 6, 7);
}
/* entry (offset + k) of record p[l] = x[k][l], k < 4, for the lanes l not in `skip` (bit l) */
ALWAYS_INLINE void scatter4(double *const p[SIMD8_LANES], int offset, const v8d x[4], int skip)
{
  v8q lo[4], hi[4], rlo[4], rhi[4];
  for (int k = 0; k < 4; k++) {
    lo[k] = __builtin_shufflevector(x[k], x[k], 0, 1, 2, 3);
    hi[k] = __builtin_shufflevector(x[k], x[k], 4, 5, 6, 7);
  }
  quad_transpose(lo, rlo);
  quad_transpose(hi, rhi);
  for (int l = 0; l < 4; l++) {
    if (!(skip >> l & 1)) memcpy(p[l] + offset, &rlo[l], sizeof(v8q));
    if (!(skip >> (4 + l) & 1)) memcpy(p[4 + l] + offset, &rhi[l], sizeof(v8q));
  }
}
#endif
