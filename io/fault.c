/* Write-fault injection for tests (io/fault.h): one budget per process. */
#include "io/fault.h"
#include <errno.h>

static struct {
  PetscBool armed;
  size_t    budget, spent; /* bytes this process may write, and has written, while armed */
} fault;

PetscErrorCode IoFaultSetFromOptions(MPI_Comm comm)
{
  PetscInt    after = -1, on_rank = -1;
  PetscMPIInt rank, size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscOptionsBegin(comm, NULL, "Write-fault injection (a test knob)", NULL);
  PetscCall(
    PetscOptionsInt("-io_fail_after_bytes",
                    "For tests: output writes fail with ENOSPC once a rank has written more than N bytes, as on a "
                    "full disk (-1: never)",
                    NULL, after, &after, NULL));
  PetscCall(PetscOptionsInt("-io_fail_rank", "For tests: only this rank's writes fail (-1: every rank's)", NULL,
                            on_rank, &on_rank, NULL));
  PetscOptionsEnd();
  PetscCheck(after >= -1, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-io_fail_after_bytes must be >= 0 (or -1: never), got %" PetscInt_FMT, after);
  PetscCheck(on_rank >= -1 && on_rank < size, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-io_fail_rank must be a rank of this run (0 to %d) or -1 (every rank), got %" PetscInt_FMT, size - 1,
             on_rank);
  fault.armed  = (PetscBool)(after >= 0 && (on_rank < 0 || on_rank == rank));
  fault.budget = after >= 0 ? (size_t)after : 0;
  fault.spent  = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int IoFaultCharge(size_t bytes)
{
  if (!fault.armed) return 0;
  fault.spent += bytes;
  return fault.spent > fault.budget ? ENOSPC : 0;
}
