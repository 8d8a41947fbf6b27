/* Snapshot files (GUIDE "Files"): one collective MPI-IO HDF5 file per output step, each rank
 * writing its owned rows as one hyperslab; the file appears under its final name only once
 * complete (IoH5Output: a unique temporary, close, fsync, rename), and the XDMF index is then
 * rebuilt by rank 0.
 *
 * Besides the GUIDE's datasets, /bodies/shape (int32, ShapeKind) and /bodies/half_extents (n x 3;
 * box half extents, (r, r, r) for a sphere: the half extents of its bounding cube) let ParaView
 * draw boxes, and /boxes/ holds the box bodies alone (id, position, quaternion, half_extents,
 * velocity, angular_velocity (world), rank, material; b rows, possibly 0) for their own grid in the
 * XDMF index. */
#include "io/snapshot.h"
#include "io/h5.h"
#include "base/vec3.h"
#include "io/output_file.h"
#include "io/xdmf.h"
#include <inttypes.h>
#include <string.h>

/* /bodies/<datasets> of the owned bodies [0, s->n_owned). Collective. */
static PetscErrorCode WriteBodies(MPI_Comm comm, IoH5Output *out, const BodyStore *s)
{
  const PetscInt n = s->n_owned;
  IoH5Rows       rows;
  double        *vec3s; /* n x 3 scratch for the fields not stored contiguously */
  int32_t       *ranks;
  PetscMPIInt    rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMalloc2(3 * n + 1, &vec3s, n + 1, &ranks));
  PetscCall(IoH5RowsCreate(comm, n, &rows));
  PetscCall(IoH5CreateGroup(out, "bodies"));

  PetscCall(IoH5WriteRows(out, "/bodies/id", H5T_NATIVE_INT64, 1, &rows, s->id));
  PetscCall(IoH5WriteRows(out, "/bodies/position", H5T_NATIVE_DOUBLE, 3, &rows, s->pos));
  PetscCall(IoH5WriteRows(out, "/bodies/quaternion", H5T_NATIVE_DOUBLE, 4, &rows, s->quat));
  for (PetscInt i = 0; i < n; i++) v3_copy(&vec3s[3 * i], &s->vel[6 * i]);
  PetscCall(IoH5WriteRows(out, "/bodies/velocity", H5T_NATIVE_DOUBLE, 3, &rows, vec3s));
  for (PetscInt i = 0; i < n; i++)
    quat_rotate(&vec3s[3 * i], &s->quat[4 * i], &s->vel[6 * i + 3]); /* body -> world frame */
  PetscCall(IoH5WriteRows(out, "/bodies/angular_velocity", H5T_NATIVE_DOUBLE, 3, &rows, vec3s));
  PetscCall(IoH5WriteRows(out, "/bodies/radius", H5T_NATIVE_DOUBLE, 1, &rows, s->radius));
  PetscCall(IoH5WriteRows(out, "/bodies/material", H5T_NATIVE_INT32, 1, &rows, s->material));
  for (PetscInt i = 0; i < n; i++) ranks[i] = rank;
  PetscCall(IoH5WriteRows(out, "/bodies/rank", H5T_NATIVE_INT32, 1, &rows, ranks));
  PetscCall(IoH5WriteRows(out, "/bodies/shape", H5T_NATIVE_INT32, 1, &rows, s->shape));
  for (PetscInt i = 0; i < n; i++) {
    const double *size = &s->size[3 * i];
    if (s->shape[i] == SHAPE_SPHERE) v3_set(&vec3s[3 * i], size[0], size[0], size[0]);
    else v3_copy(&vec3s[3 * i], size);
  }
  PetscCall(IoH5WriteRows(out, "/bodies/half_extents", H5T_NATIVE_DOUBLE, 3, &rows, vec3s));

  PetscCall(IoH5RowsDestroy(&rows));
  PetscCall(PetscFree2(vec3s, ranks));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* /boxes/<datasets>: the owned box bodies again. Collective (every rank joins, boxes or not). */
static PetscErrorCode WriteBoxes(MPI_Comm comm, IoH5Output *out, const BodyStore *s)
{
  PetscInt    nbox = 0;
  PetscInt   *pick;
  IoH5Rows    rows;
  double     *d;
  int64_t    *ids;
  int32_t    *ints;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMalloc1(s->n_owned + 1, &pick));
  for (PetscInt i = 0; i < s->n_owned; i++)
    if (s->shape[i] == SHAPE_BOX) pick[nbox++] = i;
  PetscCall(PetscMalloc3(4 * nbox + 1, &d, nbox + 1, &ids, nbox + 1, &ints));
  PetscCall(IoH5RowsCreate(comm, nbox, &rows));
  PetscCall(IoH5CreateGroup(out, "boxes"));
  for (PetscInt k = 0; k < nbox; k++) ids[k] = s->id[pick[k]];
  PetscCall(IoH5WriteRows(out, "/boxes/id", H5T_NATIVE_INT64, 1, &rows, ids));
  for (PetscInt k = 0; k < nbox; k++) v3_copy(&d[3 * k], &s->pos[3 * pick[k]]);
  PetscCall(IoH5WriteRows(out, "/boxes/position", H5T_NATIVE_DOUBLE, 3, &rows, d));
  for (PetscInt k = 0; k < nbox; k++) v3_copy(&d[3 * k], &s->size[3 * pick[k]]);
  PetscCall(IoH5WriteRows(out, "/boxes/half_extents", H5T_NATIVE_DOUBLE, 3, &rows, d));
  for (PetscInt k = 0; k < nbox; k++) v3_copy(&d[3 * k], &s->vel[6 * pick[k]]);
  PetscCall(IoH5WriteRows(out, "/boxes/velocity", H5T_NATIVE_DOUBLE, 3, &rows, d));
  for (PetscInt k = 0; k < nbox; k++)
    quat_rotate(&d[3 * k], &s->quat[4 * pick[k]], &s->vel[6 * pick[k] + 3]); /* body -> world frame */
  PetscCall(IoH5WriteRows(out, "/boxes/angular_velocity", H5T_NATIVE_DOUBLE, 3, &rows, d));
  for (PetscInt k = 0; k < nbox; k++)
    for (int c = 0; c < 4; c++) d[4 * k + c] = s->quat[4 * pick[k] + c];
  PetscCall(IoH5WriteRows(out, "/boxes/quaternion", H5T_NATIVE_DOUBLE, 4, &rows, d));
  for (PetscInt k = 0; k < nbox; k++) ints[k] = rank;
  PetscCall(IoH5WriteRows(out, "/boxes/rank", H5T_NATIVE_INT32, 1, &rows, ints));
  for (PetscInt k = 0; k < nbox; k++) ints[k] = s->material[pick[k]];
  PetscCall(IoH5WriteRows(out, "/boxes/material", H5T_NATIVE_INT32, 1, &rows, ints));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscCall(PetscFree3(d, ids, ints));
  PetscCall(PetscFree(pick));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* HDF5 needs identical attribute values on every rank of a parallel file; a mismatch would be
 * silently resolved by one rank's value, so it is an error here. */
static PetscErrorCode CheckSameOnAllRanks(MPI_Comm comm, int64_t step, double time)
{
  int64_t root_step = step;
  double  root_time = time;
  int     same, all_same;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Bcast(&root_step, 1, MPI_INT64_T, 0, comm));
  PetscCallMPI(MPI_Bcast(&root_time, 1, MPI_DOUBLE, 0, comm));
  same = root_step == step && !memcmp(&root_time, &time, sizeof(time)); /* bitwise, so NaN counts as equal */
  PetscCallMPI(MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_LAND, comm));
  PetscCheck(all_same, comm, PETSC_ERR_ARG_WRONG,
             "SnapshotWrite: step or time differ between ranks (rank 0 has step %" PRId64
             ", time %.17g): pass the same values on every rank",
             root_step, root_time);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SnapshotWrite(MPI_Comm comm, const char *outdir, PetscInt64 step, double time, const BodyStore *s,
                             char *err, size_t errlen)
{
  char           dir[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN], index[PETSC_MAX_PATH_LEN];
  const int64_t  step64 = step;
  IoH5Output     out;
  PetscMPIInt    rank;
  PetscErrorCode index_err    = PETSC_SUCCESS;
  int            index_errnum = 0, agreed;

  PetscFunctionBegin;
  PetscCheck(step >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "SnapshotWrite: negative step %" PetscInt64_FMT, step);
  PetscCall(CheckSameOnAllRanks(comm, step64, time));
  PetscCall(IoPathPrintf(dir, sizeof(dir), "%s/snapshots", outdir));
  PetscCall(IoMakeDirs(comm, dir, err, errlen));
  if (err[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(IoPathPrintf(path, sizeof(path), "%s/snap-%06" PRId64 ".h5", dir, step64));
  PetscCall(IoPathPrintf(index, sizeof(index), "%s/snapshots.xmf", outdir));

  PetscCall(IoH5OutputBegin(comm, path, &out));
  for (int pass = 0; pass < 2; pass++) { /* measure, then write (io/h5.h IoH5Output) */
    if (pass) PetscCall(IoH5OutputCreate(&out));
    PetscCall(IoH5WriteAttribute(&out, "step", H5T_NATIVE_INT64, &step64));
    PetscCall(IoH5WriteAttribute(&out, "time", H5T_NATIVE_DOUBLE, &time));
    PetscCall(WriteBodies(comm, &out, s));
    PetscCall(WriteBoxes(comm, &out, s));
  }
  PetscCall(IoH5OutputFinish(&out, err, errlen));
  if (err[0]) PetscFunctionReturn(PETSC_SUCCESS);

  /* Rank 0 rebuilds the index; its outcome is shared so that no rank carries on alone. */
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) index_err = XdmfWriteSnapshotIndex(outdir, step, &index_errnum);
  PetscCallMPI(MPI_Bcast(&index_err, 1, MPI_INT, 0, comm));
  PetscCheck(index_err == PETSC_SUCCESS, comm, PETSC_ERR_PLIB, "Wrote %s but could not update %s (see the error above)",
             path, index);
  PetscCall(IoAgree(comm, index_errnum, &agreed));
  IoFailureMessage(err, errlen, index, agreed);
  PetscFunctionReturn(PETSC_SUCCESS);
}
