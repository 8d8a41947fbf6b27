/* The process's heap policy: large arrays are mapped on their own and given back when freed.
 *
 * Why: a library PETSc loads (SuperLU_dist) switches glibc's malloc to never map and never trim,
 * so every array the step frees (collision staging, arrays regrown as the contact count changes)
 * stays resident and fragments the heap: at N = 10^4 a settled pile held 17 MB free inside a
 * 71 MB heap, 5.8 KB per body of peak RSS instead of 3.6 KB. Call once, after PetscInitialize
 * (which loads that library), before the bodies exist. */
#ifndef CCPDEM_BASE_MEMORY_POLICY_H
#define CCPDEM_BASE_MEMORY_POLICY_H
#include <petscsys.h>

PetscErrorCode MemoryPolicyApply(void);

/* Ask for transparent huge pages on the whole 2 MB pages inside [p, p + bytes) of an array,
 * best before they are first touched (pages touched before stay 4 KB until the kernel merges them). For arrays
 * allocated and freed every step (collision detection's): with 4 KB pages, faulting them in and unmapping them cost
 * more than filling them. Advice only: where it is not supported, nothing changes. */
void MemoryAdviseHugePages(void *p, size_t bytes);

/* *p = bytes (at least 1) starting on a multiple of `align` (a power of two, e.g. 64: records
 * that must not straddle cache lines); what the arrays of records use instead of PetscMalloc,
 * which aligns to 16. Release with MemoryFreeAligned (NULL is fine; *p becomes NULL). */
PetscErrorCode MemoryAllocAligned(size_t bytes, size_t align, const char *what, void **p);
void           MemoryFreeAligned(void **p);
#endif
