/* How ccpdem's arrays grow: every array that is enlarged on demand takes its new capacity from
 * GrowthCapacity, the same rule everywhere. Growing to half again what is needed makes n appends
 * cost O(n) copies in all, and leaves headroom for counts that change a little every step (the
 * contacts of a settled pile), so such arrays are allocated once, at most 1.5 times their use.
 * (The allocation itself stays with each array's owner: some allocate pairs of arrays together,
 * some aligned or from a scratch pool.) */
#ifndef CCPDEM_BASE_GROWTH_H
#define CCPDEM_BASE_GROWTH_H
#include <stddef.h>

/* The capacity for `need` elements of an array that has room for `cap`: cap when that suffices,
 * else need + need / 2 + 8. */
static inline size_t GrowthCapacity(size_t cap, size_t need) { return need <= cap ? cap : need + need / 2 + 8; }
#endif
