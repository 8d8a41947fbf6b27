/* The XDMF index of the snapshots: rebuilt from the directory each time, so it stays right across
 * restarts, deleted files and runs killed between a snapshot and its index update. */
#include "io/xdmf.h"
#include "base/growth.h"
#include "io/h5.h"
#include "io/output_file.h"
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int64_t step;
  double  time;
  hsize_t rows, box_rows; /* /bodies and /boxes rows (0 boxes: no /boxes group, or empty) */
  char    file[32];       /* snap-<step>.h5 */
} SnapshotEntry;

/* The per-body datasets shown as point attributes (the writer is io/snapshot.c). */
typedef struct {
  const char *name, *attribute_type, *number_type;
  int         width, precision;
} PointAttribute;

static const PointAttribute point_attributes[] = {
  {"radius", "Scalar", "Float", 1, 8},
  {"velocity", "Vector", "Float", 3, 8},
  {"angular_velocity", "Vector", "Float", 3, 8},
  {"id", "Scalar", "Int", 1, 8},
  {"rank", "Scalar", "Int", 1, 4},
  {"material", "Scalar", "Int", 1, 4},
  {"shape", "Scalar", "Int", 1, 4},
  {"half_extents", "Vector", "Float", 3, 8},
  {"quaternion", "Matrix", "Float", 4, 8},
};

/* The box bodies again, in their own grid (/boxes: the writer's BOX_DATASETS). */
static const PointAttribute box_attributes[] = {
  {"half_extents", "Vector", "Float", 3, 8},
  {"quaternion", "Matrix", "Float", 4, 8},
  {"velocity", "Vector", "Float", 3, 8},
  {"angular_velocity", "Vector", "Float", 3, 8},
  {"id", "Scalar", "Int", 1, 8},
  {"rank", "Scalar", "Int", 1, 4},
  {"material", "Scalar", "Int", 1, 4},
};

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

/* Step, time and row count of a snapshot file. Returns a negative value, with HDF5's error stack
 * silenced, if path is not a readable snapshot; closes everything it opened either way. */
static int ReadSnapshotEntry(const char *path, SnapshotEntry *e)
{
  int   status = -1;
  hid_t file;

  H5E_BEGIN_TRY
  {
    file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file >= 0) {
      const long long rows  = Rows3(file, "/bodies/position"),
                      boxes = H5Lexists(file, "/boxes", H5P_DEFAULT) > 0 ? Rows3(file, "/boxes/position") : 0;
      if (ReadScalarAttribute(file, "step", H5T_NATIVE_INT64, &e->step) >= 0 &&
          ReadScalarAttribute(file, "time", H5T_NATIVE_DOUBLE, &e->time) >= 0 && rows >= 0 && boxes >= 0) {
        e->rows     = (hsize_t)rows;
        e->box_rows = (hsize_t)boxes;
        status      = 0;
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
static PetscErrorCode ScanSnapshots(const char *outdir, PetscInt64 last_step, SnapshotEntry **entries, size_t *count)
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
    SnapshotEntry e;
    int64_t       name_step;

    if (!ParseSnapshotName(ent->d_name, &name_step) || name_step > (int64_t)last_step) continue;
    PetscCall(IoPathPrintf(path, sizeof(path), "%s/%s", dirpath, ent->d_name));
    if (ReadSnapshotEntry(path, &e) < 0 || e.step != name_step) {
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

/* Text to the index; a failure is kept in t (io/output_file.h) and ends the writing there. */
static PetscErrorCode Emit(IoText *t, const char *fmt, ...) PETSC_ATTRIBUTE_FORMAT(2, 3);
static PetscErrorCode Emit(IoText *t, const char *fmt, ...)
{
  char    line[512];
  va_list ap;
  int     len;

  PetscFunctionBegin;
  va_start(ap, fmt);
  len = vsnprintf(line, sizeof(line), fmt, ap);
  va_end(ap);
  PetscCheck(len >= 0 && (size_t)len < sizeof(line), PETSC_COMM_SELF, PETSC_ERR_PLIB, "XDMF line too long: %.60s",
             line);
  (void)IoTextPrintf(t, "%s", line);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* <DataItem> for dataset /<group>/<name> of e's file, rows x width. */
static PetscErrorCode EmitDataItem(IoText *t, const SnapshotEntry *e, hsize_t rows, const char *group, const char *name,
                                   int width, const char *number_type, int precision)
{
  PetscFunctionBegin;
  PetscCall(Emit(t, "          <DataItem Dimensions=\"%llu", (unsigned long long)rows));
  if (width > 1) PetscCall(Emit(t, " %d", width));
  PetscCall(Emit(t, "\" NumberType=\"%s\" Precision=\"%d\" Format=\"HDF\">snapshots/%s:/%s/%s</DataItem>\n",
                 number_type, precision, e->file, group, name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One Polyvertex grid over /<group> of e's file: a point per row with the given attributes. */
static PetscErrorCode EmitPoints(IoText *t, const SnapshotEntry *e, const char *name, const char *group, hsize_t rows,
                                 const PointAttribute *attrs, size_t nattrs, PetscBool with_time)
{
  PetscFunctionBegin;
  PetscCall(Emit(t, "      <Grid Name=\"%s\" GridType=\"Uniform\">\n", name));
  if (with_time) PetscCall(Emit(t, "        <Time Value=\"%.17g\"/>\n", e->time));
  PetscCall(Emit(t, "        <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%llu\" NodesPerElement=\"1\"/>\n",
                 (unsigned long long)rows));
  PetscCall(Emit(t, "        <Geometry GeometryType=\"XYZ\">\n"));
  PetscCall(EmitDataItem(t, e, rows, group, "position", 3, "Float", 8));
  PetscCall(Emit(t, "        </Geometry>\n"));
  for (size_t k = 0; k < nattrs; k++) {
    PetscCall(Emit(t, "        <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"Node\">\n", attrs[k].name,
                   attrs[k].attribute_type));
    PetscCall(EmitDataItem(t, e, rows, group, attrs[k].name, attrs[k].width, attrs[k].number_type, attrs[k].precision));
    PetscCall(Emit(t, "        </Attribute>\n"));
  }
  PetscCall(Emit(t, "      </Grid>\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One time step: all bodies as points; with boxes, a spatial collection of that grid and the boxes' own. */
static PetscErrorCode EmitGrid(IoText *t, const SnapshotEntry *e)
{
  const size_t nb = sizeof(point_attributes) / sizeof(point_attributes[0]),
               nx = sizeof(box_attributes) / sizeof(box_attributes[0]);
  char name[64];

  PetscFunctionBegin;
  snprintf(name, sizeof(name), "step %" PRId64, e->step);
  if (!e->box_rows) {
    PetscCall(EmitPoints(t, e, name, "bodies", e->rows, point_attributes, nb, PETSC_TRUE));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(Emit(t, "      <Grid Name=\"%s\" GridType=\"Collection\" CollectionType=\"Spatial\">\n", name));
  PetscCall(Emit(t, "        <Time Value=\"%.17g\"/>\n", e->time));
  PetscCall(EmitPoints(t, e, "bodies", "bodies", e->rows, point_attributes, nb, PETSC_FALSE));
  PetscCall(EmitPoints(t, e, "boxes", "boxes", e->box_rows, box_attributes, nx, PETSC_FALSE));
  PetscCall(Emit(t, "      </Grid>\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode XdmfWriteSnapshotIndex(const char *outdir, PetscInt64 last_step, int *errnum)
{
  char           path[PETSC_MAX_PATH_LEN];
  SnapshotEntry *entries;
  size_t         count;
  IoText         t;

  PetscFunctionBegin;
  PetscCall(ScanSnapshots(outdir, last_step, &entries, &count));
  PetscCall(IoPathPrintf(path, sizeof(path), "%s/snapshots.xmf", outdir));
  (void)IoTextCreate(&t, path);
  PetscCall(Emit(&t, "<?xml version=\"1.0\" ?>\n"));
  PetscCall(Emit(&t, "<!-- ccpdem snapshots: one point per body (spheres and boxes), and the boxes again in a grid of "
                     "their own; see io/xdmf.h -->\n"));
  PetscCall(Emit(&t, "<Xdmf Version=\"3.0\">\n  <Domain>\n"));
  PetscCall(Emit(&t, "    <Grid Name=\"bodies\" GridType=\"Collection\" CollectionType=\"Temporal\">\n"));
  for (size_t k = 0; k < count && !t.errnum; k++) PetscCall(EmitGrid(&t, &entries[k]));
  PetscCall(Emit(&t, "    </Grid>\n  </Domain>\n</Xdmf>\n"));
  (void)IoTextCommit(&t, PETSC_FALSE);
  *errnum = IoTextClose(&t);
  PetscCall(PetscFree(entries));
  PetscFunctionReturn(PETSC_SUCCESS);
}
