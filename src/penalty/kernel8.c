/* The 8-lane instantiation of the penalty model's block kernel (src/penalty/block_lanes.h on
 * src/base/simd8.h): 512-bit vectors, for CPUs with AVX-512F/VL/DQ (penalty/kernel.c dispatches to it
 * with -penalty_simd avx512, the default where the CPU has them). On a 512-bit machine it does a
 * block's arithmetic in the instructions the 4-lane code spends on half of it. */
#include "base/simd8.h"

#if SIMD4_HAVE_AVX2
#define PENALTY_LANES SIMD8_LANES /* contacts per call of block_lanes.h's kernel: one per vector lane */
typedef v8d vd;
typedef v8l vl;
#define lanes_any simd8_any
#include "penalty/block_lanes.h"

SIMD8_AVX512_ATTR __attribute__((noinline)) int penalty_block_loads8(const PenaltyContext *ctx, PenaltyBlock *blk)
{
  return block_loads_impl(ctx, blk);
}
#endif
