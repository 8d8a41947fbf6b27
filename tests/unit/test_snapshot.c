// ctest: ranks=2;3
/* Snapshots and their XDMF index, read back with plain HDF5 calls written here (independent of the
 * writer): every dataset's type, shape and values, world-frame angular velocity against a rotation
 * computed here (Rodrigues' formula), the step/time attributes, the row layout (each rank's rows in
 * rank order, as one block), ranks without bodies, an empty snapshot, a 7-digit step, a
 * well-formed snapshots.xmf whose data items name existing datasets with the declared dimensions
 * and types, no temporary files and no leaked HDF5 handles, and errors (not hangs) on every rank
 * for an output directory that cannot be created. Correct at any rank count:
 *   mpiexec -n 3 --oversubscribe ./test_snapshot */
#define _GNU_SOURCE /* nftw, mkdtemp */
#include <petscsys.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hdf5.h>
#include "bodies/body_store.h"
#include "io/snapshot.h"

#define NB 9 /* bodies in the test system */
#include "test_check.h"

/* ---- the test system: body g of NB, spheres (even g) and boxes (odd g) ---- */

static int64_t BodyId(int g) { return 1000 + 37 * g; } /* not the storage order */

static void Axis(int g, double k[3], double *angle)
{
  double n;
  k[0] = 1;
  k[1] = g;
  k[2] = 2 - g;
  n    = sqrt(k[0] * k[0] + k[1] * k[1] + k[2] * k[2]);
  for (int c = 0; c < 3; c++) k[c] /= n;
  *angle = 0.3 * g + 0.1;
}

static void MakeBody(int g, BodyRecord *b)
{
  double k[3], a;

  memset(b, 0, sizeof(*b));
  Axis(g, k, &a);
  b->id[0]   = BodyId(g);
  b->pos[0]  = 0.5 * g;
  b->pos[1]  = -0.25 * g + 1.0 / 3.0;
  b->pos[2]  = 0.1 * g * g;
  b->quat[0] = cos(a / 2);
  for (int c = 0; c < 3; c++) b->quat[c + 1] = sin(a / 2) * k[c];
  b->vel[0]     = g;
  b->vel[1]     = -1.0 / 7.0;
  b->vel[2]     = 0.5;
  b->vel[3]     = 0.2 * g - 1;
  b->vel[4]     = 3.0;
  b->vel[5]     = -g / 3.0; /* body frame */
  b->mass[0]    = 1.0 + g;
  b->inertia[0] = b->inertia[1] = b->inertia[2] = 0.1;
  if (g % 2 == 0) {
    b->shape[0] = SHAPE_SPHERE;
    b->size[0] = b->size[1] = b->size[2] = 0.01 * (g + 1);
    b->radius[0]                         = b->size[0];
  } else {
    b->shape[0]  = SHAPE_BOX;
    b->size[0]   = 0.1 + 0.01 * g;
    b->size[1]   = 0.05;
    b->size[2]   = 0.02 + 0.001 * g;
    b->radius[0] = sqrt(b->size[0] * b->size[0] + b->size[1] * b->size[1] + b->size[2] * b->size[2]);
  }
  b->material[0] = g % 3;
}

/* World-frame angular velocity by Rodrigues' rotation of the body-frame one about the axis-angle
 * the quaternion was made from (independent of the quaternion-to-matrix code). */
static void WorldOmega(int g, double w[3])
{
  BodyRecord    b;
  double        k[3], a, kxv[3], kv;
  const double *v = &b.vel[3];

  MakeBody(g, &b);
  Axis(g, k, &a);
  kxv[0] = k[1] * v[2] - k[2] * v[1];
  kxv[1] = k[2] * v[0] - k[0] * v[2];
  kxv[2] = k[0] * v[1] - k[1] * v[0];
  kv     = k[0] * v[0] + k[1] * v[1] + k[2] * v[2];
  for (int c = 0; c < 3; c++) w[c] = v[c] * cos(a) + kxv[c] * sin(a) + k[c] * kv * (1 - cos(a));
}

/* Distributions: who owns body g, and in which local order (descending g, so rows are not sorted
 * by id). ALL_ON_LAST leaves every rank but the last one empty. */
typedef enum {
  ROUND_ROBIN,
  ALL_ON_LAST,
  NOBODY
} Distribution;

static int Owner(Distribution d, int g, int size)
{
  if (d == ROUND_ROBIN) return g % size;
  if (d == ALL_ON_LAST) return size - 1;
  return -1;
}

static PetscErrorCode BuildStore(Distribution d, int rank, int size, BodyStore *s)
{
  PetscFunctionBegin;
  PetscCall(BodyStoreCreate(s));
  for (int g = NB - 1; g >= 0; g--) {
    BodyRecord b;
    if (Owner(d, g, size) != rank) continue;
    MakeBody(g, &b);
    PetscCall(BodyStoreAppendOwned(s, &b));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The bodies in file row order: rank 0's rows, then rank 1's, ..., each in local order. */
static int ExpectedRows(Distribution d, int size, int order[NB], int owner[NB])
{
  int n = 0;
  for (int r = 0; r < size; r++)
    for (int g = NB - 1; g >= 0; g--)
      if (Owner(d, g, size) == r) {
        order[n] = g;
        owner[n] = r;
        n++;
      }
  return n;
}

/* ---- reading the snapshot back ---- */

/* class, size in bytes and (integers) signedness of a dataset or attribute type. */
static void CheckType(const char *what, hid_t type, H5T_class_t cls, size_t bytes)
{
  CHECK(H5Tget_class(type) == cls && H5Tget_size(type) == bytes, "%s: type class %d size %zu, want class %d size %zu",
        what, (int)H5Tget_class(type), H5Tget_size(type), (int)cls, bytes);
  if (cls == H5T_INTEGER) CHECK(H5Tget_sign(type) == H5T_SGN_2, "%s: unsigned integer, want signed", what);
}

/* Reads /bodies/<name> after checking its type and shape (n) or (n x width); returns NULL if absent. */
static void *ReadDataset(hid_t file, const char *name, hid_t memtype, H5T_class_t cls, size_t bytes, int width,
                         hsize_t n)
{
  char    path[64], what[96];
  hid_t   dset, type, space;
  hsize_t dims[2] = {0, 0};
  int     ndims;
  void   *buf;

  snprintf(path, sizeof(path), "/bodies/%s", name);
  snprintf(what, sizeof(what), "dataset %s", path);
  if (H5Lexists(file, "/bodies", H5P_DEFAULT) <= 0 || H5Lexists(file, path, H5P_DEFAULT) <= 0) {
    CHECK(0, "%s missing", what);
    return NULL;
  }
  dset  = H5Dopen2(file, path, H5P_DEFAULT);
  type  = H5Dget_type(dset);
  space = H5Dget_space(dset);
  CheckType(what, type, cls, bytes);
  ndims = H5Sget_simple_extent_ndims(space);
  H5Sget_simple_extent_dims(space, dims, NULL);
  if (width == 1)
    CHECK(ndims == 1 && dims[0] == n, "%s: rank %d dims %llu, want (%llu)", what, ndims, (unsigned long long)dims[0],
          (unsigned long long)n);
  else
    CHECK(ndims == 2 && dims[0] == n && dims[1] == (hsize_t)width, "%s: rank %d dims %llu x %llu, want %llu x %d", what,
          ndims, (unsigned long long)dims[0], (unsigned long long)dims[1], (unsigned long long)n, width);
  buf = calloc(n * width + 1, 8);
  if (ndims >= 1 && H5Sget_simple_extent_npoints(space) == (hssize_t)(n * width) && n > 0)
    CHECK(H5Dread(dset, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0, "%s: read failed", what);
  H5Sclose(space);
  H5Tclose(type);
  H5Dclose(dset);
  return buf;
}

static void CheckAttribute(hid_t file, const char *name, hid_t memtype, H5T_class_t cls, void *value)
{
  char  what[64];
  hid_t attr, type, space;

  snprintf(what, sizeof(what), "attribute %s", name);
  if (H5Aexists(file, name) <= 0) {
    CHECK(0, "%s missing", what);
    return;
  }
  attr  = H5Aopen(file, name, H5P_DEFAULT);
  type  = H5Aget_type(attr);
  space = H5Aget_space(attr);
  CheckType(what, type, cls, 8);
  CHECK(H5Sget_simple_extent_npoints(space) == 1, "%s is not a scalar", what);
  CHECK(H5Aread(attr, memtype, value) >= 0, "%s: read failed", what);
  H5Sclose(space);
  H5Tclose(type);
  H5Aclose(attr);
}

/* Rank 0: opens snap-<step>.h5 and checks all of it against distribution d on size ranks. */
static void CheckSnapshot(const char *outdir, int64_t step, double time, Distribution d, int size)
{
  char      path[PETSC_MAX_PATH_LEN];
  int       order[NB], owner[NB];
  const int n = ExpectedRows(d, size, order, owner);
  hid_t     file;
  int64_t   step_read = -1, *id;
  double    time_read = -1, *pos, *quat, *vel, *angvel, *radius, *half;
  int32_t  *material, *rank, *shape;
  int       checked = 0;

  snprintf(path, sizeof(path), "%s/snapshots/snap-%06lld.h5", outdir, (long long)step);
  H5E_BEGIN_TRY { file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT); }
  H5E_END_TRY;
  CHECK(file >= 0, "cannot open %s", path);
  if (file < 0) return;
  CheckAttribute(file, "step", H5T_NATIVE_INT64, H5T_INTEGER, &step_read);
  CheckAttribute(file, "time", H5T_NATIVE_DOUBLE, H5T_FLOAT, &time_read);
  CHECK(step_read == step && time_read == time, "%s: attributes step %lld time %.17g, want %lld %.17g", path,
        (long long)step_read, time_read, (long long)step, time);
  id       = ReadDataset(file, "id", H5T_NATIVE_INT64, H5T_INTEGER, 8, 1, n);
  pos      = ReadDataset(file, "position", H5T_NATIVE_DOUBLE, H5T_FLOAT, 8, 3, n);
  quat     = ReadDataset(file, "quaternion", H5T_NATIVE_DOUBLE, H5T_FLOAT, 8, 4, n);
  vel      = ReadDataset(file, "velocity", H5T_NATIVE_DOUBLE, H5T_FLOAT, 8, 3, n);
  angvel   = ReadDataset(file, "angular_velocity", H5T_NATIVE_DOUBLE, H5T_FLOAT, 8, 3, n);
  radius   = ReadDataset(file, "radius", H5T_NATIVE_DOUBLE, H5T_FLOAT, 8, 1, n);
  material = ReadDataset(file, "material", H5T_NATIVE_INT32, H5T_INTEGER, 4, 1, n);
  rank     = ReadDataset(file, "rank", H5T_NATIVE_INT32, H5T_INTEGER, 4, 1, n);
  shape    = ReadDataset(file, "shape", H5T_NATIVE_INT32, H5T_INTEGER, 4, 1, n);
  half     = ReadDataset(file, "half_extents", H5T_NATIVE_DOUBLE, H5T_FLOAT, 8, 3, n);
  if (id && pos && quat && vel && angvel && radius && material && rank && shape && half) {
    for (int i = 0; i < n; i++) {
      BodyRecord b;
      double     w[3], wn;
      const int  g = order[i];

      MakeBody(g, &b);
      WorldOmega(g, w);
      wn = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
      /* Row i must be body g (rank blocks in rank order, local order inside: the hyperslab offsets).
       * Stored values are the IEEE doubles/integers given, bit for bit: compared exactly. */
      CHECK(id[i] == b.id[0], "%s row %d: id %lld, want %lld", path, i, (long long)id[i], (long long)b.id[0]);
      CHECK(rank[i] == owner[i], "%s row %d: rank %d, want %d", path, i, rank[i], owner[i]);
      CHECK(material[i] == b.material[0] && shape[i] == b.shape[0], "%s row %d: material %d shape %d, want %d %d", path,
            i, material[i], shape[i], b.material[0], b.shape[0]);
      CHECK(radius[i] == b.radius[0], "%s row %d: radius %.17g, want %.17g", path, i, radius[i], b.radius[0]);
      for (int c = 0; c < 3; c++) {
        const double want_half = b.shape[0] == SHAPE_SPHERE ? b.size[0] : b.size[c];
        CHECK(pos[3 * i + c] == b.pos[c], "%s row %d: position[%d] %.17g, want %.17g", path, i, c, pos[3 * i + c],
              b.pos[c]);
        CHECK(vel[3 * i + c] == b.vel[c], "%s row %d: velocity[%d] %.17g, want %.17g", path, i, c, vel[3 * i + c],
              b.vel[c]);
        CHECK(half[3 * i + c] == want_half, "%s row %d: half_extents[%d] %.17g, want %.17g", path, i, c,
              half[3 * i + c], want_half);
        /* Two rotation formulas in double precision differ by a few ulps of |w| (|w| <= 4 here):
         * 1e-14 |w| allows ~50 ulps and is far below any frame mistake (O(|w|)). */
        CHECK(fabs(angvel[3 * i + c] - w[c]) <= 1e-14 * wn,
              "%s row %d: angular_velocity[%d] %.17g, want (world frame) %.17g", path, i, c, angvel[3 * i + c], w[c]);
      }
      for (int c = 0; c < 4; c++)
        CHECK(quat[4 * i + c] == b.quat[c], "%s row %d: quaternion[%d] %.17g, want %.17g", path, i, c, quat[4 * i + c],
              b.quat[c]);
      checked++;
    }
  }
  free(id);
  free(pos);
  free(quat);
  free(vel);
  free(angvel);
  free(radius);
  free(material);
  free(rank);
  free(shape);
  free(half);
  CHECK(H5Fclose(file) >= 0, "close %s", path);
  printf("  %s: attributes, 10 datasets (types, shapes), %d rows checked\n", path, checked);
}

/* ---- the XDMF file ---- */

static void JoinPath(char buf[PETSC_MAX_PATH_LEN], const char *dir, const char *name)
{
  if (snprintf(buf, PETSC_MAX_PATH_LEN, "%s/%s", dir, name) >= PETSC_MAX_PATH_LEN) {
    printf("FAIL: path %s/%s too long\n", dir, name);
    exit(1);
  }
}

/* Value of attribute name="..." inside the tag text [tag, end); "" if absent. */
static void TagAttribute(const char *tag, const char *end, const char *name, char *out, size_t size)
{
  char key[64];
  out[0] = '\0';
  snprintf(key, sizeof(key), " %s=\"", name);
  const char *p = strstr(tag, key);
  if (!p || p >= end) return;
  p += strlen(key);
  const char *q = strchr(p, '"');
  if (!q || q >= end || (size_t)(q - p) >= size) return;
  memcpy(out, p, q - p);
  out[q - p] = '\0';
}

typedef struct {
  int64_t step;
  double  time;
} GridSeen;

/* Checks one <DataItem Dimensions=.. NumberType=.. Precision=.. Format="HDF">file:/path</DataItem>
 * against the HDF5 file it names (relative to outdir) and returns the leading dimension. */
static const char *const dataset_names[10]    = {"id",     "position", "quaternion", "velocity", "angular_velocity",
                                                 "radius", "material", "rank",       "shape",    "half_extents"};
static const char *const box_dataset_names[8] = {"id",       "position", "quaternion",  "velocity", "angular_velocity",
                                                 "material", "rank",     "half_extents"};
#define BODIES_MASK 0x3ffu        /* every /bodies dataset: bits 0-9 */
#define BOXES_MASK  (0xffu << 10) /* every /boxes dataset: bits 10-17 */

static long long CheckDataItem(const char *outdir, const char *tag, const char *tag_end, const char *text,
                               size_t text_len, unsigned *mask)
{
  char      dims_s[64], ntype[16], prec[8], format[16], item[PETSC_MAX_PATH_LEN], file[PETSC_MAX_PATH_LEN];
  long long want[2] = {-1, -1};
  int       nwant;
  hsize_t   dims[2] = {0, 0};
  hid_t     fid, dset, type, space;
  char     *colon;

  TagAttribute(tag, tag_end, "Dimensions", dims_s, sizeof(dims_s));
  TagAttribute(tag, tag_end, "NumberType", ntype, sizeof(ntype));
  TagAttribute(tag, tag_end, "Precision", prec, sizeof(prec));
  TagAttribute(tag, tag_end, "Format", format, sizeof(format));
  nwant = sscanf(dims_s, "%lld %lld", &want[0], &want[1]);
  CHECK(!strcmp(format, "HDF") && nwant >= 1, "DataItem with Format '%s' Dimensions '%s'", format, dims_s);
  if (text_len >= sizeof(item)) text_len = sizeof(item) - 1;
  memcpy(item, text, text_len);
  item[text_len] = '\0';
  colon          = strstr(item, ".h5:");
  CHECK(colon && !strncmp(item, "snapshots/snap-", 15), "DataItem text '%s' is not snapshots/snap-*.h5:/path", item);
  if (!colon) return -1;
  colon[3] = '\0';
  JoinPath(file, outdir, item);
  H5E_BEGIN_TRY { fid = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT); }
  H5E_END_TRY;
  CHECK(fid >= 0, "DataItem names %s, which does not open", file);
  if (fid < 0) return -1;
  H5E_BEGIN_TRY { dset = H5Dopen2(fid, colon + 4, H5P_DEFAULT); }
  H5E_END_TRY;
  CHECK(dset >= 0, "DataItem names dataset %s, absent from %s", colon + 4, file);
  for (int k = 0; k < 10; k++)
    if (!strncmp(colon + 4, "/bodies/", 8) && !strcmp(colon + 12, dataset_names[k])) *mask |= 1u << k;
  for (int k = 0; k < 8; k++)
    if (!strncmp(colon + 4, "/boxes/", 7) && !strcmp(colon + 11, box_dataset_names[k])) *mask |= 1u << (10 + k);
  if (dset >= 0) {
    type            = H5Dget_type(dset);
    space           = H5Dget_space(dset);
    const int ndims = H5Sget_simple_extent_dims(space, dims, NULL);
    CHECK(ndims == nwant && (long long)dims[0] == want[0] && (ndims == 1 || (long long)dims[1] == want[1]),
          "%s:%s has %d dims %llu %llu, DataItem declares '%s'", file, colon + 4, ndims, (unsigned long long)dims[0],
          (unsigned long long)dims[1], dims_s);
    const H5T_class_t cls = !strcmp(ntype, "Float") ? H5T_FLOAT : !strcmp(ntype, "Int") ? H5T_INTEGER : H5T_NO_CLASS;
    CHECK(H5Tget_class(type) == cls && H5Tget_size(type) == (size_t)atoi(prec),
          "%s:%s: DataItem says %s/%s, file has class %d size %zu", file, colon + 4, ntype, prec,
          (int)H5Tget_class(type), H5Tget_size(type));
    H5Sclose(space);
    H5Tclose(type);
    H5Dclose(dset);
  }
  H5Fclose(fid);
  return want[0];
}

/* Rank 0: parses OUT/snapshots.xmf with a small tag-balance checker (prolog, comments, open,
 * close and empty tags; quoted attributes; no stray '<' or '&' in text) and checks that the
 * temporal collection lists exactly the steps/times in want, each grid's DataItems naming existing
 * datasets of the declared shape and type, with the topology's element count. */
static void CheckXdmf(const char *outdir, int nwant, const GridSeen *want)
{
  char        path[PETSC_MAX_PATH_LEN], stack[32][32], *xml = NULL;
  int         depth = 0, roots = 0, ngrids = 0, ok = 1, items = 0;
  long        len;
  FILE       *fp;
  GridSeen    seen[16];
  long long   grid_rows = -1;
  unsigned    grid_mask = 0, want_mask = 0; /* datasets seen in the current point grid, and wanted */
  int         point_grids = 0, box_grids = 0;
  const char *p, *item_tag = NULL, *item_tag_end = NULL, *item_text = NULL;

  snprintf(path, sizeof(path), "%s/snapshots.xmf", outdir);
  fp = fopen(path, "r");
  CHECK(fp, "%s missing", path);
  if (!fp) return;
  fseek(fp, 0, SEEK_END);
  len = ftell(fp);
  rewind(fp);
  xml = calloc(len + 1, 1);
  CHECK(fread(xml, 1, len, fp) == (size_t)len, "short read of %s", path);
  fclose(fp);

  for (p = xml; *p && ok;) {
    if (*p != '<') { /* character data */
      const char *next = strchr(p, '<');
      const char *stop = next ? next : p + strlen(p);
      for (const char *c = p; c < stop; c++)
        if (*c == '&' || *c == '>') {
          CHECK(0, "%s: unescaped '%c' in text at offset %ld", path, *c, (long)(c - xml));
          ok = 0;
        }
      if (depth == 0)
        for (const char *c = p; c < stop; c++)
          if (!strchr(" \t\r\n", *c)) {
            CHECK(0, "%s: text outside the root element", path);
            ok = 0;
            break;
          }
      p = stop;
      continue;
    }
    if (!strncmp(p, "<!--", 4)) {
      const char *e = strstr(p + 4, "-->");
      CHECK(e, "%s: unterminated comment", path);
      if (!e) {
        ok = 0;
        break;
      }
      p = e + 3;
      continue;
    }
    if (!strncmp(p, "<?", 2)) {
      const char *e = strstr(p, "?>");
      CHECK(e && p == xml, "%s: processing instruction not at the start", path);
      if (!e) {
        ok = 0;
        break;
      }
      p = e + 2;
      continue;
    }
    /* a tag: find its end outside quotes */
    const char *q   = p + 1;
    int         inq = 0;
    for (; *q && (inq || *q != '>'); q++) {
      if (*q == '"') inq = !inq;
      else if (*q == '<' && !inq) break;
    }
    CHECK(*q == '>', "%s: unterminated tag at offset %ld", path, (long)(p - xml));
    if (*q != '>') {
      ok = 0;
      break;
    }
    const int   closing = p[1] == '/', empty = q[-1] == '/';
    char        name[32];
    const char *n0 = p + 1 + closing;
    size_t      nl = strcspn(n0, " \t\r\n/>");
    if (nl == 0 || nl >= sizeof(name)) {
      CHECK(0, "%s: bad tag name at offset %ld", path, (long)(p - xml));
      ok = 0;
      break;
    }
    memcpy(name, n0, nl);
    name[nl] = '\0';
    if (closing) {
      CHECK(depth > 0 && !strcmp(stack[depth - 1], name), "%s: </%s> closes <%s>", path, name,
            depth ? stack[depth - 1] : "(nothing)");
      if (!(depth > 0 && !strcmp(stack[depth - 1], name))) {
        ok = 0;
        break;
      }
      depth--;
      if (!strcmp(name, "DataItem") && item_tag) {
        const long long rows = CheckDataItem(outdir, item_tag, item_tag_end, item_text, p - item_text, &grid_mask);
        CHECK(rows == grid_rows, "%s: a DataItem of grid %d has %lld rows, the topology %lld", path, ngrids, rows,
              grid_rows);
        item_tag = NULL;
        items++;
      }
    } else {
      char value[64];
      if (depth == 0) roots++;
      if (!strcmp(name, "Grid")) {
        char      gname[64];
        long long st = -1;
        TagAttribute(p, q, "GridType", value, sizeof(value));
        TagAttribute(p, q, "Name", gname, sizeof(gname));
        if (sscanf(gname, "step %lld", &st) == 1 &&
            ngrids < 16) { /* a time step: one grid, or a collection of bodies and boxes */
          seen[ngrids].step = st;
          seen[ngrids].time = NAN;
          ngrids++;
        }
        if (!strcmp(value, "Uniform")) { /* a point grid: all bodies, or the boxes */
          if (point_grids > 0)
            CHECK(grid_mask == want_mask,
                  "%s point grid %d does not show every dataset of its group (mask %x, want %x)", path, point_grids - 1,
                  grid_mask, want_mask);
          grid_mask = 0;
          want_mask = strcmp(gname, "boxes") ? BODIES_MASK : BOXES_MASK;
          box_grids += want_mask == BOXES_MASK;
          point_grids++;
        }
      } else if (!strcmp(name, "Time") && ngrids > 0) {
        TagAttribute(p, q, "Value", value, sizeof(value));
        seen[ngrids - 1].time = strtod(value, NULL);
      } else if (!strcmp(name, "Topology")) {
        TagAttribute(p, q, "NumberOfElements", value, sizeof(value));
        grid_rows = atoll(value);
      } else if (!strcmp(name, "DataItem")) {
        item_tag     = p;
        item_tag_end = q;
        item_text    = q + 1;
      }
      if (!empty) {
        CHECK(depth < 32, "%s: nested too deep", path);
        if (depth >= 32) {
          ok = 0;
          break;
        }
        snprintf(stack[depth++], sizeof(stack[0]), "%s", name);
      }
    }
    p = q + 1;
  }
  CHECK(ok && depth == 0 && roots == 1 && !strncmp(xml, "<?xml", 5),
        "%s: not well formed (depth %d at end, %d root elements)", path, depth, roots);
  CHECK(ngrids == nwant, "%s lists %d snapshots, want %d", path, ngrids, nwant);
  for (int k = 0; k < ngrids && k < nwant; k++) /* time printed with %.17g: read back exactly */
    CHECK(seen[k].step == want[k].step && seen[k].time == want[k].time,
          "%s grid %d: step %lld time %.17g, want %lld %.17g", path, k, (long long)seen[k].step, seen[k].time,
          (long long)want[k].step, want[k].time);
  if (point_grids > 0)
    CHECK(grid_mask == want_mask, "%s point grid %d does not show every dataset of its group (mask %x, want %x)", path,
          point_grids - 1, grid_mask, want_mask);
  CHECK(point_grids == ngrids + box_grids, "%s: %d point grids for %d steps and %d box grids", path, point_grids,
        ngrids, box_grids);
  CHECK(items == 10 * ngrids + 8 * box_grids,
        "%s: %d DataItems for %d steps and %d box grids, want 10 each (one per /bodies dataset) and 8 per box grid",
        path, items, ngrids, box_grids);
  printf("  %s: well formed, %d steps in order (%d with a box grid), %d data items match their datasets\n", path,
         ngrids, box_grids, items);
  free(xml);
}

/* No temporary (dot) files left in dir. */
static void CheckNoTemporaries(const char *dir)
{
  DIR           *d = opendir(dir);
  struct dirent *e;
  CHECK(d, "cannot list %s", dir);
  if (!d) return;
  while ((e = readdir(d)))
    if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      CHECK(0, "temporary file %s/%s left behind", dir, e->d_name);
  closedir(d);
}

/* Writes a snapshot of distribution d and checks on every rank that no HDF5 file or object in one
 * was left open (dataspaces and property lists cannot be counted through the public API). */
static PetscErrorCode WriteAndCheckLeaks(MPI_Comm comm, const char *outdir, PetscInt step, double time, Distribution d,
                                         int rank, int size)
{
  BodyStore s;
  ssize_t   open_ids;
  char      err[1024];

  PetscFunctionBegin;
  PetscCall(BuildStore(d, rank, size, &s));
  PetscCall(SnapshotWrite(comm, outdir, step, time, &s, NULL, err, sizeof(err)));
  CHECK(!err[0], "rank %d: SnapshotWrite failed: %s", rank, err);
  open_ids = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
  CHECK(open_ids == 0, "rank %d: %lld HDF5 files/objects left open after SnapshotWrite", rank, (long long)open_ids);
  PetscCall(BodyStoreDestroy(&s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int RemoveEntry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(path);
}

int main(int argc, char **argv)
{
  MPI_Comm     comm;
  PetscMPIInt  rank, size;
  char         base[PETSC_MAX_PATH_LEN] = "", outdir[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN];
  const double t7 = 7 * 0.005, t20 = 0.1, tbig = 1234567 * 0.005, t12 = 12 * 0.005;
  int          total;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (rank == 0) printf("test_snapshot on %d rank(s), %d bodies (spheres and boxes)\n", size, NB);
  if (rank == 0) {
    snprintf(base, sizeof(base), "%s/ccpdem-test-snapshot-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    PetscCheck(mkdtemp(base), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "mkdtemp %s: %s", base, strerror(errno));
  }
  PetscCallMPI(MPI_Bcast(base, sizeof(base), MPI_CHAR, 0, comm));
  JoinPath(outdir, base, "out/run"); /* does not exist: SnapshotWrite creates it */

  /* Bodies on every rank; then none anywhere (left out of the index); then all on the last rank
   * (the others write nothing) at a step needing 7 digits. */
  PetscCall(WriteAndCheckLeaks(comm, outdir, 7, t7, ROUND_ROBIN, rank, size));
  PetscCall(WriteAndCheckLeaks(comm, outdir, 20, t20, NOBODY, rank, size));
  PetscCall(WriteAndCheckLeaks(comm, outdir, 1234567, tbig, ALL_ON_LAST, rank, size));
  if (rank == 0) {
    const GridSeen want[2] = {{7, t7}, {1234567, tbig}};
    CheckSnapshot(outdir, 7, t7, ROUND_ROBIN, size);
    CheckSnapshot(outdir, 20, t20, NOBODY, size);
    CheckSnapshot(outdir, 1234567, tbig, ALL_ON_LAST, size);
    CheckXdmf(outdir, 2, want);
    JoinPath(path, outdir, "snapshots");
    CheckNoTemporaries(path);
    CheckNoTemporaries(outdir);
  }
  PetscCallMPI(MPI_Barrier(comm));
  /* A restart from step 10 writes step 12: the index lists 7 and 12, not the abandoned 1234567. */
  PetscCall(WriteAndCheckLeaks(comm, outdir, 12, t12, ROUND_ROBIN, rank, size));
  if (rank == 0) {
    const GridSeen want[2] = {{7, t7}, {12, t12}};
    CheckSnapshot(outdir, 12, t12, ROUND_ROBIN, size);
    CheckXdmf(outdir, 2, want);
  }

  /* An output directory that cannot be created (a path through a regular file) is a failure on
   * every rank, naming the path; a step and time that differ between ranks are an error. */
  {
    char           blocked[PETSC_MAX_PATH_LEN], msg[1024];
    BodyStore      s;
    PetscErrorCode err;

    JoinPath(path, base, "plain-file");
    JoinPath(blocked, path, "out");
    if (rank == 0) {
      FILE *fp = fopen(path, "w");
      PetscCheck(fp && fclose(fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot create %s", path);
    }
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(BuildStore(ROUND_ROBIN, rank, size, &s));
    PetscCall(SnapshotWrite(comm, blocked, 1, 0.005, &s, NULL, msg, sizeof(msg)));
    CHECK(msg[0], "rank %d: SnapshotWrite into %s succeeded", rank, blocked);
    CHECK(strstr(msg, path), "rank %d: failure '%s' does not name %s", rank, msg, path);
    if (size > 1) {
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      err = SnapshotWrite(comm, outdir, rank == 0 ? 30 : 31, 0.15, &s, NULL, msg, sizeof(msg));
      PetscCall(PetscPopErrorHandler());
      CHECK(err != 0, "rank %d: SnapshotWrite accepted different steps on different ranks", rank);
    }
    PetscCall(BodyStoreDestroy(&s));
    if (rank == 0)
      printf("  unwritable output directory%s: error on every rank\n", size > 1 ? " and rank-dependent step" : "");
  }

  PetscCallMPI(MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, comm));
  if (rank == 0 && total == 0) nftw(base, RemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
  if (rank == 0) printf("%s (%d failures)\n", total ? "FAILED" : "PASSED", total);
  PetscCall(PetscFinalize());
  return total ? 1 : 0;
}
