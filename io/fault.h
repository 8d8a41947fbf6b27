/* Write-fault injection, a test knob (README "Outputs"): with -io_fail_after_bytes N, the output
 * writers of this process (snapshots, checkpoints, the time series, the XDMF index, run.id) fail
 * with ENOSPC ("No space left on device") as soon as they have handed more than N bytes to files
 * in all (HDF5 rows and attributes, text), and so does every write, close and flush after that, as
 * on a disk that has filled up. -io_fail_rank R limits it to rank R (default: every rank counts its
 * own bytes). Each failure happens after the real call it stands for, so that a collective write
 * is entered by every rank as it would be when the disk fills. Off by default. */
#ifndef CCPDEM_IO_FAULT_H
#define CCPDEM_IO_FAULT_H
#include <petscsys.h>

/* Collective. Reads and checks -io_fail_after_bytes and -io_fail_rank and arms (or disarms) the
 * injection of this process. */
PetscErrorCode IoFaultSetFromOptions(MPI_Comm comm);
/* Not collective. Counts bytes this process has just written; returns ENOSPC when the armed
 * budget is exceeded (bytes = 0: whether it is, for a close or a flush), else 0. */
int IoFaultCharge(size_t bytes);
#endif
