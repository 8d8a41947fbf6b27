/* The reproducible random numbers of fills and emitters: splitmix64 (Steele, Lea, Flood 2014), a
 * tiny, well-mixed generator whose whole state is one 64-bit word, so a stream is fixed by its
 * seed on any rank count. */
#ifndef CCPDEM_BASE_RANDOM_H
#define CCPDEM_BASE_RANDOM_H
#include <math.h>
#include <stdint.h>

static inline uint64_t splitmix64(uint64_t *state)
{
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z          = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z          = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static inline double uniform01(uint64_t *state) { return (double)(splitmix64(state) >> 11) * 0x1.0p-53; }

/* standard normal (Box-Muller; two uniforms per draw, the second root unused: simpler to replay) */
static inline double normal01(uint64_t *state)
{
  const double u = 1.0 - uniform01(state), v = uniform01(state); /* u in (0, 1] */
  return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}
#endif
