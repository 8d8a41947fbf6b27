/* Reading a snapshot back (not collective: one process, e.g. rank 0 of `ccpdem analyze`). */
#ifndef CCPDEM_IO_SNAPSHOT_READ_H
#define CCPDEM_IO_SNAPSHOT_READ_H
#include <petscsys.h>

typedef struct {
  PetscInt n;      /* bodies */
  double  *pos;    /* 3 per body */
  double  *radius; /* bounding radius */
  int64_t  step;
  double   time;
} SnapshotBodies;

/* Positions and radii of every body of snapshot path (or of a LAMMPS text dump with the columns
 * x y z radius, for comparing a peer code's pile; its time is NaN). A missing or foreign file returns
 * PETSC_SUCCESS with err set (one line, for a bad-input report) and nothing allocated. */
PetscErrorCode SnapshotReadBodies(const char *path, SnapshotBodies *b, char *err, size_t errlen);
PetscErrorCode SnapshotBodiesDestroy(SnapshotBodies *b);
#endif
