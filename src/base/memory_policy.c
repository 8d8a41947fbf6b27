#include "base/memory_policy.h"
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

/* Arrays of at least 64 KB are mapped (a fixed threshold: glibc's adaptive one would move them
 * back into the heap after the first free) and the heap top is returned beyond 1 MB free. Why 64 KB,
 * not 256: at 256 KB a 10^4-sphere pile's per-body arrays of 64-256 KB stay in the heap, and what the
 * steps free there fragments it: stepping took 60-70 bytes per body more (APGD, 6-dof pile: 1537-1541
 * against 1469-1471; `bench_core -n 10000`, alternating pairs), with no difference in time that the
 * VM's noise let show (nor in the main job's). */
#define MAP_THRESHOLD_BYTES  (64 * 1024)
#define TRIM_THRESHOLD_BYTES (1024 * 1024)
#define MAX_MAPPED_ARRAYS    65536 /* glibc's default */

PetscErrorCode MemoryPolicyApply(void)
{
  PetscFunctionBegin;
  /* Under AddressSanitizer (jobs/sanitize.sh) malloc is the sanitizer's, which has no such policy and refuses
   * mallopt: the policy is left out there so that the sanitized ccpdem runs. */
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
  PetscCheck(mallopt(M_MMAP_MAX, MAX_MAPPED_ARRAYS) && mallopt(M_MMAP_THRESHOLD, MAP_THRESHOLD_BYTES) &&
               mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES),
             PETSC_COMM_SELF, PETSC_ERR_LIB,
             "glibc refused the heap policy (mallopt): report this with the glibc version; memory per body will be "
             "higher");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MemoryAllocAligned(size_t bytes, size_t align, const char *what, void **p)
{
  PetscFunctionBegin;
  *p = NULL;
  PetscCheck(!posix_memalign(p, align, bytes ? bytes : 1), PETSC_COMM_SELF, PETSC_ERR_MEM,
             "no memory for %s (%zu bytes)", what, bytes);
  PetscFunctionReturn(PETSC_SUCCESS);
}

void MemoryFreeAligned(void **p)
{
  free(*p); /* posix_memalign's */
  *p = NULL;
}

void MemoryAdviseHugePages(void *p, size_t bytes)
{
#if defined(MADV_HUGEPAGE)
  const uintptr_t huge = (uintptr_t)2 << 20, lo = ((uintptr_t)p + huge - 1) & ~(huge - 1),
                  hi = ((uintptr_t)p + bytes) & ~(huge - 1);
  if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}
