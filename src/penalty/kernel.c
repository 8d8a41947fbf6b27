/* See penalty/kernel.h: the 4-lane instantiations of the block kernel (src/penalty/block_lanes.h on
 * src/base/simd4.h) and the dispatch between them and the 8-lane one (penalty/kernel8.c). */
#include "base/simd4.h"

#define PENALTY_LANES SIMD4_LANES /* contacts per call of block_lanes.h's kernel: one per vector lane */
typedef v4d vd;
typedef v4l vl;
#define lanes_any simd4_any
#include "penalty/block_lanes.h"

__attribute__((noinline)) static int block_loads_generic(const PenaltyContext *ctx, PenaltyBlock *blk)
{
  return block_loads_impl(ctx, blk);
}
#if SIMD4_HAVE_AVX2
SIMD4_AVX2_ATTR __attribute__((noinline)) static int block_loads_avx2(const PenaltyContext *ctx, PenaltyBlock *blk)
{
  return block_loads_impl(ctx, blk);
}
SIMD4_AVX512_ATTR __attribute__((noinline)) static int block_loads_avx512vl(const PenaltyContext *ctx,
                                                                            PenaltyBlock         *blk)
{
  return block_loads_impl(ctx, blk);
}
#endif

int penalty_block_loads(const PenaltyContext *ctx, PenaltyBlock *blk)
{
#if SIMD4_HAVE_AVX2
  switch (simd4_isa(ctx->simd)) {
  case SIMD4_AVX512:
    return penalty_block_loads8(ctx, blk);
  case SIMD4_AVX512VL:
    return block_loads_avx512vl(ctx, blk);
  case SIMD4_AVX2:
    return block_loads_avx2(ctx, blk);
  case SIMD4_GENERIC:
    break;
  }
#endif
  return block_loads_generic(ctx, blk);
}

int penalty_block_lanes(const PenaltyContext *ctx) { return simd4_isa(ctx->simd) == SIMD4_AVX512 ? 8 : 4; }

const char *penalty_block_isa(const PenaltyContext *ctx) { return simd4_isa_name(simd4_isa(ctx->simd)); }

int penalty_block_wanted(const PenaltyContext *ctx)
{
  return !ctx->per_contact && penalty_block_model(ctx) &&
         (ctx->simd == SIMD4_GENERIC || simd4_isa(ctx->simd) != SIMD4_GENERIC);
}
