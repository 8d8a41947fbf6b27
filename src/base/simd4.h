/* Four lanes of doubles for the hand-vectorized kernels (ccp/sweep.c, penalty/kernel.c): GCC vector
 * types (ymm with AVX2, pairs of xmm on the generic target), helpers that every such kernel uses,
 * and the dispatch between a generic and an AVX2+FMA instantiation of the same code.
 *
 * Every function taking or returning these vectors is inlined into its kernel (ALWAYS_INLINE): no
 * call passes one, so the ABI note GCC gives for 32-byte vectors without AVX does not apply (the
 * kernels are compiled with -Wno-psabi, CMakeLists.txt). Square roots are written lane by lane;
 * compiled with -fno-math-errno they become one vsqrtpd. */
#ifndef CCPDEM_BASE_SIMD4_H
#define CCPDEM_BASE_SIMD4_H
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "base/simd4_isa.h"
#include "base/simd_quad.h"

#define SIMD4_LANES 4

typedef double  v4d __attribute__((vector_size(SIMD4_LANES * sizeof(double))));
typedef int64_t v4l __attribute__((vector_size(SIMD4_LANES * sizeof(double))));

ALWAYS_INLINE v4d ld(const double *p) { return quad_load(p); }
/* a macro, not a function: a function's vector parameter would be passed by value (see above) */
#define vst(p, x) \
  do { \
    const v4d vst_value_ = (x); \
    memcpy((p), &vst_value_, sizeof(vst_value_)); \
  } while (0)
ALWAYS_INLINE v4d splat(double a) { return (v4d){a, a, a, a}; }

/* lane-wise m ? a : b (m from a comparison: all bits set or none) */
ALWAYS_INLINE v4d sel(v4l m, v4d a, v4d b) { return (v4d)((m & (v4l)a) | (~m & (v4l)b)); }

ALWAYS_INLINE v4d vsqrt(v4d x)
{
  v4d r;
  for (int l = 0; l < SIMD4_LANES; l++) r[l] = sqrt(x[l]);
  return r;
}

/* Whether all / any lanes of a comparison mask are set. On x86-64 the halves combined and one
 * SSE2 movmskpd (baseline, so in both instantiations): 4 instructions, not 4 lane extractions. */
#if defined(__x86_64__)
#include <emmintrin.h>
ALWAYS_INLINE int simd4_all(v4l m)
{
  return _mm_movemask_pd((__m128d)(__builtin_shufflevector(m, m, 0, 1) & __builtin_shufflevector(m, m, 2, 3))) == 3;
}
ALWAYS_INLINE int simd4_any(v4l m)
{
  return _mm_movemask_pd((__m128d)(__builtin_shufflevector(m, m, 0, 1) | __builtin_shufflevector(m, m, 2, 3))) != 0;
}
#else
ALWAYS_INLINE int simd4_all(v4l m) { return (m[0] & m[1] & m[2] & m[3]) != 0; }
ALWAYS_INLINE int simd4_any(v4l m) { return (m[0] | m[1] | m[2] | m[3]) != 0; }
#endif

/* 4x4 transpose: rows r[l] (4 entries of lane l) <-> columns c[k] (entry k of the 4 lanes) */
ALWAYS_INLINE void transpose4(const v4d r[4], v4d c[4]) { quad_transpose(r, c); }

/* x[k] = entry (offset + k) of the 4 records p[l], k < 4: one load per record and a transpose */
ALWAYS_INLINE void gather4(const double *const p[SIMD4_LANES], int offset, v4d x[4])
{
  const v4d r[4] = {ld(p[0] + offset), ld(p[1] + offset), ld(p[2] + offset), ld(p[3] + offset)};
  transpose4(r, x);
}
/* entry (offset + k) of record p[l] = x[k][l], k < 4, for the lanes l not in `skip` (bit l): the
 * inverse of gather4 */
ALWAYS_INLINE void scatter4(double *const p[SIMD4_LANES], int offset, const v4d x[4], int skip)
{
  v4d r[4];
  transpose4(x, r);
  for (int l = 0; l < SIMD4_LANES; l++)
    if (!(skip >> l & 1)) vst(p[l] + offset, r[l]);
}

#endif
