#include "base/scratch_pool.h"
#include "base/memory_policy.h"

PetscErrorCode ScratchPoolGet(ScratchPool *p, int slot, size_t bytes, size_t keep, void **buf)
{
  PetscFunctionBegin;
  PetscCheck(slot >= 0 && slot < SCRATCH_SLOTS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "ScratchPoolGet: slot %d outside [0, %d)", slot, SCRATCH_SLOTS);
  if (bytes > p->bytes[slot]) {
    const size_t grown = bytes + bytes / 2 + 64; /* headroom: the counts change every step */
    void        *q;
    PetscCall(MemoryAllocAligned(grown, SCRATCH_ALIGN, "a scratch buffer", &q));
    keep = PetscMin(keep, p->bytes[slot]);
    if (keep) PetscCall(PetscMemcpy(q, p->buf[slot], keep));
    MemoryFreeAligned(&p->buf[slot]);
    p->buf[slot]   = q;
    p->bytes[slot] = grown;
  }
  *buf = p->buf[slot];
  MemoryAdviseHugePages(*buf, bytes); /* the bytes asked for, not the headroom (ccp/pack.c's grow says why) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ScratchPoolDestroy(ScratchPool *p)
{
  PetscFunctionBegin;
  for (int k = 0; k < SCRATCH_SLOTS; k++) {
    MemoryFreeAligned(&p->buf[k]);
    p->bytes[k] = 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
