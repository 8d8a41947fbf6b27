/* OUT/walls.csv from the snapshots (io/wall_series.h). Doubles with 17 significant digits: they
 * read back bitwise. */
#include "io/wall_series.h"
#include "io/h5.h"
#include "io/output_file.h"
#include "io/snapshot_scan.h"
#include <inttypes.h>

/* The n x 3 dataset /walls/<name> of file into buf; a negative value if it is not that. HDF5's
 * error printing is the caller's to silence. */
static herr_t ReadWallRows(hid_t file, const char *name, hsize_t n, double *buf)
{
  char    path[64];
  hid_t   dset, space = -1;
  hsize_t dims[2];
  herr_t  status = -1;

  snprintf(path, sizeof(path), "/walls/%s", name);
  dset = H5Dopen2(file, path, H5P_DEFAULT);
  if (dset >= 0 && (space = H5Dget_space(dset)) >= 0 && H5Sget_simple_extent_ndims(space) == 2 &&
      H5Sget_simple_extent_dims(space, dims, NULL) == 2 && dims[0] == n && dims[1] == 3)
    status = H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
  if (space >= 0 && H5Sclose(space) < 0) status = -1;
  if (dset >= 0 && H5Dclose(dset) < 0) status = -1;
  return status;
}

/* force, torque and torque point (9 per wall, wall by wall) of the snapshot at path; a negative
 * value, with HDF5's error stack silenced, if it cannot be read. */
static int ReadWallLoads(const char *path, int n_walls, double *rows)
{
  static const char *const names[3] = {"force", "torque", "torque_point"};
  double                  *part     = rows + 9 * n_walls; /* scratch after the rows: 3 per wall */
  int                      status   = 0;
  hid_t                    file;

  H5E_BEGIN_TRY
  {
    file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) status = -1;
    for (int p = 0; p < 3 && !status; p++) {
      status = ReadWallRows(file, names[p], (hsize_t)n_walls, part) < 0 ? -1 : 0;
      for (int k = 0; k < n_walls && !status; k++)
        for (int c = 0; c < 3; c++) rows[9 * k + 3 * p + c] = part[3 * k + c];
    }
    if (file >= 0 && H5Fclose(file) < 0) status = -1;
  }
  H5E_END_TRY;
  return status;
}

PetscErrorCode WallSeriesWrite(const char *outdir, PetscInt64 last_step, int n_walls, int *errnum)
{
  static const char *const group[3] = {"f", "t", "p"}, *const unit[3] = {"N", "Nm", "m"};
  char           path[PETSC_MAX_PATH_LEN], file[PETSC_MAX_PATH_LEN];
  SnapshotEntry *entries;
  size_t         count;
  double        *rows;
  IoText         t;

  PetscFunctionBegin;
  PetscCall(SnapshotScan(outdir, last_step, PETSC_FALSE, &entries, &count));
  PetscCall(PetscMalloc1(12 * (size_t)n_walls, &rows));
  PetscCall(IoPathPrintf(path, sizeof(path), "%s/walls.csv", outdir));
  (void)IoTextCreate(&t, path);
  (void)IoTextPrintf(&t, "step,time_s");
  for (int k = 0; k < n_walls; k++)
    for (int p = 0; p < 3; p++)
      for (int c = 0; c < 3; c++) (void)IoTextPrintf(&t, ",wall%d_%s%c_%s", k, group[p], "xyz"[c], unit[p]);
  (void)IoTextPrintf(&t, "\n");
  for (size_t e = 0; e < count && !t.errnum; e++) {
    if (entries[e].walls != (hsize_t)n_walls) continue; /* not this scenario's walls */
    PetscCall(IoPathPrintf(file, sizeof(file), "%s/snapshots/%s", outdir, entries[e].file));
    if (ReadWallLoads(file, n_walls, rows) < 0) {
      PetscCall(
        PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "Warning: cannot read /walls of %s; left out of %s\n", file, path));
      continue;
    }
    (void)IoTextPrintf(&t, "%" PRId64 ",%.17g", entries[e].step, entries[e].time);
    for (int v = 0; v < 9 * n_walls; v++) (void)IoTextPrintf(&t, ",%.17g", rows[v]);
    (void)IoTextPrintf(&t, "\n");
  }
  (void)IoTextCommit(&t, PETSC_FALSE);
  *errnum = IoTextClose(&t);
  PetscCall(PetscFree(entries));
  PetscCall(PetscFree(rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}
