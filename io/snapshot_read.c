/* See snapshot_read.h. */
#include "io/snapshot_read.h"
#include "io/h5.h"
#include <math.h>
#include <string.h>
#include <unistd.h>

static PetscErrorCode ReadBodies(const char *path, SnapshotBodies *b, char *err, size_t errlen)
{
  hid_t     file, fapl;
  hsize_t   n = 0, nr = 0;
  PetscBool found_pos, found_r;
  IoH5Rows  rows;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(b, sizeof(*b)));
  err[0] = 0;
  if (access(path, R_OK)) {
    snprintf(err, errlen, "%s cannot be read; give the path of a snapshot, e.g. out/snapshots/snap-000600.h5", path);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  CCPDEM_H5_ID(fapl, H5Pcreate(H5P_FILE_ACCESS));
  CCPDEM_H5(H5Pset_fapl_mpio(fapl, PETSC_COMM_SELF, MPI_INFO_NULL)); /* the row reader's transfers are MPI-IO ones */
  file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  CCPDEM_H5(H5Pclose(fapl));
  if (file < 0) {
    snprintf(err, errlen, "%s is not an HDF5 file; give a ccpdem snapshot (OUT/snapshots/snap-NNNNNN.h5)", path);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(IoH5DatasetRows(file, "/bodies/position", &n, &found_pos));
  PetscCall(IoH5DatasetRows(file, "/bodies/radius", &nr, &found_r));
  if (!found_pos || !found_r || n != nr || H5Aexists(file, "step") <= 0 || H5Aexists(file, "time") <= 0) {
    snprintf(err, errlen,
             "%s is not a ccpdem snapshot (no /bodies/position and /bodies/radius of equal rows, or no step and time); "
             "give OUT/snapshots/snap-NNNNNN.h5",
             path);
    CCPDEM_H5(H5Fclose(file));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(IoH5ReadAttribute(file, "step", H5T_NATIVE_INT64, &b->step));
  PetscCall(IoH5ReadAttribute(file, "time", H5T_NATIVE_DOUBLE, &b->time));
  b->n = (PetscInt)n;
  PetscCall(PetscMalloc2(3 * n + 1, &b->pos, n + 1, &b->radius));
  PetscCall(IoH5RowsCreateSplit(PETSC_COMM_SELF, n, &rows));
  PetscCall(IoH5ReadRows(file, "/bodies/position", H5T_NATIVE_DOUBLE, 3, &rows, b->pos, err, errlen));
  if (!err[0]) PetscCall(IoH5ReadRows(file, "/bodies/radius", H5T_NATIVE_DOUBLE, 1, &rows, b->radius, err, errlen));
  PetscCall(IoH5RowsDestroy(&rows));
  CCPDEM_H5(H5Fclose(file));
  if (err[0]) PetscCall(SnapshotBodiesDestroy(b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A LAMMPS text dump with the columns x y z radius (write_dump ... custom FILE x y z radius), for
 * measuring a peer code's pile with the same analysis. Returns 1 if path is not such a dump. */
static int ReadLammpsDump(const char *path, SnapshotBodies *b)
{
  FILE     *fp = fopen(path, "r");
  char      line[512];
  long long step = 0, n = -1;
  int       ok = 0;

  if (!fp) return 1;
  if (fgets(line, sizeof line, fp) && !strncmp(line, "ITEM: TIMESTEP", 14) && fscanf(fp, "%lld ", &step) == 1 &&
      fgets(line, sizeof line, fp) && !strncmp(line, "ITEM: NUMBER OF ATOMS", 21) && fscanf(fp, "%lld ", &n) == 1 &&
      n >= 0) {
    while (fgets(line, sizeof line, fp) && strncmp(line, "ITEM: ATOMS", 11)) {}
    if (!strcmp(line, "ITEM: ATOMS x y z radius\n") && !PetscMalloc2(3 * n + 1, &b->pos, n + 1, &b->radius)) {
      long long i = 0;
      while (i < n &&
             fscanf(fp, "%lf %lf %lf %lf", &b->pos[3 * i], &b->pos[3 * i + 1], &b->pos[3 * i + 2], &b->radius[i]) == 4)
        i++;
      ok      = i == n;
      b->n    = (PetscInt)n;
      b->step = step;
      b->time = NAN; /* not in the dump */
      if (!ok) PetscFree2(b->pos, b->radius);
    }
  }
  fclose(fp);
  return !ok;
}

PetscErrorCode SnapshotReadBodies(const char *path, SnapshotBodies *b, char *err, size_t errlen)
{
  H5E_auto2_t    old_func;
  void          *old_data;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(b, sizeof(*b)));
  err[0] = 0;
  if (!ReadLammpsDump(path, b)) PetscFunctionReturn(PETSC_SUCCESS);
  CCPDEM_H5(H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data));
  CCPDEM_H5(H5Eset_auto2(H5E_DEFAULT, NULL, NULL)); /* a foreign file gets our one line, not HDF5's stack */
  ierr = ReadBodies(path, b, err, errlen);
  CCPDEM_H5(H5Eset_auto2(H5E_DEFAULT, old_func, old_data));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SnapshotBodiesDestroy(SnapshotBodies *b)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(b->pos, b->radius));
  PetscCall(PetscMemzero(b, sizeof(*b)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
