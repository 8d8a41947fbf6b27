/* Which instantiation of a 4-lane kernel family (base/simd4.h) runs: kept apart from base/simd4.h so that the
 * code choosing one (options, tests) needs none of the vector types. */
#ifndef CCPDEM_BASE_SIMD4_ISA_H
#define CCPDEM_BASE_SIMD4_ISA_H

/* The instantiations of a kernel family, from the least the CPU must have: the portable code, AVX2+FMA,
 * and AVX2+FMA compiled with AVX-512F/VL enabled. The last still works on 4 lanes of 256 bits; what
 * it brings is 32 vector registers instead of 16, so a large kernel (penalty/kernel.c, the 6-dof
 * CCP sweeps) no longer spills its lanes to the stack (figures in the README); the arithmetic is
 * the same, and so are the results' bits (checked: snapshots of CCP piles with each solver and of the
 * penalty benchmark). INSTANTIATE(suffix, attr) is the caller's macro; simd4_isa(cap) picks at run
 * time the best instantiation this CPU runs, up to cap (the -penalty_simd / -ccp_simd options). */
typedef enum {
  SIMD4_GENERIC,
  SIMD4_AVX2,
  SIMD4_AVX512VL,
  SIMD4_AVX512
} Simd4Isa;
/* SIMD4_AVX512: a family that also has an 8-lane instantiation (src/base/simd8.h: 512-bit vectors,
 * AVX-512F/VL/DQ) runs it; the others run their AVX512VL one. */
/* names for PetscOptionsEnum: the values, the type's name, the prefix, NULL */
#define SIMD4_ISA_NAMES \
  { \
    "generic", "avx2", "avx512vl", "avx512", "Simd4Isa", "SIMD4_", NULL \
  }
static inline const char *simd4_isa_name(Simd4Isa isa)
{
  return isa == SIMD4_AVX512 ? "avx512" : isa == SIMD4_AVX512VL ? "avx512vl" : isa == SIMD4_AVX2 ? "avx2" : "generic";
}

#if defined(__x86_64__) && defined(__GNUC__)
#define SIMD4_AVX2_ATTR   __attribute__((target("avx2,fma")))
#define SIMD4_AVX512_ATTR __attribute__((target("avx2,fma,avx512f,avx512vl")))
#define SIMD8_AVX512_ATTR __attribute__((target("avx2,fma,avx512f,avx512vl,avx512dq")))
/* whether the CPU runs the 8-lane instantiations */
static inline int simd8_cpu_supported(void)
{
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
}
/* the best 4-lane instantiation the CPU runs */
static inline Simd4Isa simd4_cpu_isa(void)
{
  static int      known = 0;
  static Simd4Isa isa   = SIMD4_GENERIC;
  if (!known) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      isa = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") ? SIMD4_AVX512VL : SIMD4_AVX2;
    known = 1;
  }
  return isa;
}
#define SIMD4_HAVE_AVX2 1
#else
#define SIMD4_HAVE_AVX2 0
static inline int      simd8_cpu_supported(void) { return 0; }
static inline Simd4Isa simd4_cpu_isa(void) { return SIMD4_GENERIC; }
#endif
/* the instantiation to run: the best this CPU has, up to cap */
static inline Simd4Isa simd4_isa(Simd4Isa cap)
{
  if (cap == SIMD4_AVX512 && simd8_cpu_supported()) return SIMD4_AVX512;
  return simd4_cpu_isa() < cap ? simd4_cpu_isa() : cap;
}
#endif
