/* How ccpdem's arrays grow: every array that is enlarged on demand takes its new capacity from
 * GrowthCapacity, so that n appends cost O(n) copies in all and a run's arrays settle at most a
 * factor 2 above their largest use. (The allocation itself stays with each array's owner: some
 * allocate pairs of arrays together, some aligned or from a scratch pool.) */
#ifndef CCPDEM_BASE_GROWTH_H
#define CCPDEM_BASE_GROWTH_H
#include <stddef.h>

#define GROWTH_MIN_ELEMENTS 16 /* the smallest capacity a grown array gets */

/* The capacity for `need` elements of an array that has room for `cap`: cap when that suffices,
 * else the largest of need, 2 cap and GROWTH_MIN_ELEMENTS. */
static inline size_t GrowthCapacity(size_t cap, size_t need)
{
  size_t grown = 2 * cap;
  if (need <= cap) return cap;
  if (grown < need) grown = need;
  return grown < GROWTH_MIN_ELEMENTS ? GROWTH_MIN_ELEMENTS : grown;
}
#endif
