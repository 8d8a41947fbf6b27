/* The snapshot files of an output directory (io/snapshot_scan.h). */
#include "io/snapshot_scan.h"
#include "base/growth.h"
#include "io/h5.h"
#include "io/output_file.h"
#include "io/wall_output.h"
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Rows of a 2-D dataset of width 3 (its first dimension), or -1. */
static long long Rows3(hid_t file, const char *name)
{
  hid_t     dset = H5Dopen2(file, name, H5P_DEFAULT), space = -1;
  long long rows = -1;
  hsize_t   dims[2];

  if (dset >= 0 && (space = H5Dget_space(dset)) >= 0 && H5Sget_simple_extent_ndims(space) == 2 &&
      H5Sget_simple_extent_dims(space, dims, NULL) == 2 && dims[1] == 3)
    rows = (long long)dims[0];
  if (space >= 0 && H5Sclose(space) < 0) rows = -1;
  if (dset >= 0 && H5Dclose(dset) < 0) rows = -1;
  return rows;
}

/* Rows3 of /<group>/<name>, 0 when the group or the dataset is absent (-1: unreadable). */
static long long OptionalRows3(hid_t file, const char *group, const char *name)
{
  char path[96];

  if (snprintf(path, sizeof(path), "/%s", group) >= (int)sizeof(path)) return -1;
  if (H5Lexists(file, path, H5P_DEFAULT) <= 0) return 0;
  if (snprintf(path, sizeof(path), "/%s/%s", group, name) >= (int)sizeof(path)) return -1;
  if (H5Lexists(file, path, H5P_DEFAULT) <= 0) return 0;
  return Rows3(file, path);
}

/* snap-<at least 6 digits>.h5 -> step. Anything else (temporary files included) is not a snapshot. */
static PetscBool ParseSnapshotName(const char *name, int64_t *step)
{
  const char  *digits = name + 5;
  const size_t nd     = strncmp(name, "snap-", 5) ? 0 : strspn(digits, "0123456789");

  if (nd < 6 || nd > 18 || strcmp(digits + nd, ".h5")) return PETSC_FALSE;
  *step = strtoll(digits, NULL, 10);
  return PETSC_TRUE;
}

static herr_t ReadScalarAttribute(hid_t loc, const char *name, hid_t memtype, void *value)
{
  const hid_t attr = H5Aopen(loc, name, H5P_DEFAULT);
  herr_t      status;

  if (attr < 0) return -1;
  status = H5Aread(attr, memtype, value);
  if (H5Aclose(attr) < 0) status = -1;
  return status;
}

/* Step, time and row counts of a snapshot file. Returns a negative value, with HDF5's error stack
 * silenced, if path is not a readable snapshot; closes everything it opened either way. */
static int ReadSnapshotEntry(const char *path, SnapshotEntry *e)
{
  int   status = -1;
  hid_t file;

  H5E_BEGIN_TRY
  {
    file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file >= 0) {
      const long long rows = Rows3(file, "/bodies/position"), boxes = OptionalRows3(file, "boxes", "position"),
                      contacts = OptionalRows3(file, "contacts", "point"),
                      walls    = OptionalRows3(file, "walls", "force"),
                      members  = OptionalRows3(file, "clump_members", "position");
      int                   nkinds;
      const WallOutputKind *kinds    = WallOutputKinds(&nkinds);
      PetscBool             cells_ok = (PetscBool)(nkinds <= SNAPSHOT_WALL_KINDS_MAX);

      for (int k = 0; k < nkinds && cells_ok; k++) {
        char            group[64];
        const long long n = snprintf(group, sizeof(group), "walls/%s", kinds[k].name) < (int)sizeof(group)
                            ? OptionalRows3(file, group, "vertices")
                            : -1;
        cells_ok          = (PetscBool)(n >= 0 && n % kinds[k].nodes_per_cell == 0);
        if (cells_ok) e->wall_cells[k] = (hsize_t)(n / kinds[k].nodes_per_cell);
      }
      if (ReadScalarAttribute(file, "step", H5T_NATIVE_INT64, &e->step) >= 0 &&
          ReadScalarAttribute(file, "time", H5T_NATIVE_DOUBLE, &e->time) >= 0 && rows >= 0 && boxes >= 0 &&
          contacts >= 0 && walls >= 0 && members >= 0 && cells_ok) {
        e->rows         = (hsize_t)rows;
        e->box_rows     = (hsize_t)boxes;
        e->contact_rows = (hsize_t)contacts;
        e->member_rows  = (hsize_t)members;
        e->walls        = (hsize_t)walls;
        status          = 0;
      }
      if (H5Fclose(file) < 0) status = -1;
    }
  }
  H5E_END_TRY;
  return status;
}

static int CompareSteps(const void *a, const void *b)
{
  const int64_t sa = ((const SnapshotEntry *)a)->step, sb = ((const SnapshotEntry *)b)->step;
  return (sa > sb) - (sa < sb);
}

/* The snapshots of OUT/snapshots with 0 < rows and step <= last_step, sorted by step. *entries is
 * PetscMalloc'ed (free with PetscFree); a missing directory means no snapshots. */
PetscErrorCode SnapshotScan(const char *outdir, PetscInt64 last_step, PetscBool warn, SnapshotEntry **entries,
                            size_t *count)
{
  char           dirpath[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN];
  DIR           *dir;
  struct dirent *ent;
  size_t         cap = 16;

  PetscFunctionBegin;
  *count = 0;
  PetscCall(PetscMalloc1(cap, entries));
  PetscCall(IoPathPrintf(dirpath, sizeof(dirpath), "%s/snapshots", outdir));
  dir = opendir(dirpath);
  if (!dir) {
    PetscCheck(errno == ENOENT, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Cannot list %s: %s", dirpath, strerror(errno));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (errno = 0; (ent = readdir(dir)); errno = 0) {
    SnapshotEntry e = {0};
    int64_t       name_step;

    if (!ParseSnapshotName(ent->d_name, &name_step) || name_step > (int64_t)last_step) continue;
    PetscCall(IoPathPrintf(path, sizeof(path), "%s/%s", dirpath, ent->d_name));
    if (ReadSnapshotEntry(path, &e) < 0 || e.step != name_step) {
      if (warn)
        PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR,
                               "Warning: %s is not a readable ccpdem snapshot of step %" PRId64
                               "; left out of %s/snapshots.xmf\n",
                               path, name_step, outdir));
      continue;
    }
    if (e.rows == 0) continue;
    PetscCall(PetscStrncpy(e.file, ent->d_name, sizeof(e.file)));
    if (*count == cap) {
      cap = GrowthCapacity(cap, cap + 1);
      PetscCall(PetscRealloc(cap * sizeof(**entries), entries));
    }
    (*entries)[(*count)++] = e;
  }
  PetscCheck(errno == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Cannot list %s: %s", dirpath, strerror(errno));
  PetscCheck(closedir(dir) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Cannot close directory %s: %s", dirpath,
             strerror(errno));
  qsort(*entries, *count, sizeof(**entries), CompareSteps);
  PetscFunctionReturn(PETSC_SUCCESS);
}
