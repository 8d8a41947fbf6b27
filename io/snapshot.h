/* Snapshots (GUIDE "Files"): OUT/snapshots/snap-NNNNNN.h5, written collectively, each rank its own
 * rows (hyperslab), plus OUT/snapshots.xmf, the XDMF temporal collection ParaView opens. */
#ifndef CCPDEM_IO_SNAPSHOT_H
#define CCPDEM_IO_SNAPSHOT_H
#include "bodies/body_store.h"

/* Collective. Writes the owned bodies [0, s->n_owned) of every rank; angular velocity is written in
 * the world frame. Creates OUT/snapshots/ if needed and rewrites OUT/snapshots.xmf to list all
 * snapshots written so far in this output directory (rank 0). A failure to write (a full disk) is
 * agreed by every rank: err <- "writing PATH: reason" on every rank (else ""), and the file that
 * failed is not left behind (io/h5.h IoH5Output). */
PetscErrorCode SnapshotWrite(MPI_Comm comm, const char *outdir, PetscInt64 step, double time, const BodyStore *s,
                             char *err, size_t errlen);
#endif
