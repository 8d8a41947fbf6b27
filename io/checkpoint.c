/* Checkpoint writer and reader; the format is documented in checkpoint.h. */
#include "io/checkpoint.h"
#include "base/growth.h"
#include "io/h5.h"
#include "penalty/history.h"
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the checkpoint checksum hashes values as they lie in memory, assumed little-endian (as stored)"
#endif

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME  0x100000001b3ULL
#define WHY_MAX    512

/* HDF5 memory type of a BODY_FIELDS array; a field of a new C type needs a line here. */
#define FIELD_MEMTYPE(ptr) \
  _Generic((ptr), int64_t * : H5T_NATIVE_INT64, int32_t * : H5T_NATIVE_INT32, double * : H5T_NATIVE_DOUBLE)

static uint64_t Fnv1a(uint64_t h, const void *data, size_t n)
{
  const unsigned char *b = (const unsigned char *)data;
  for (size_t i = 0; i < n; i++) {
    h ^= b[i];
    h *= FNV_PRIME;
  }
  return h;
}

/* This rank's part of the checksum (checkpoint.h) for rows [offset, offset + n_local) of dataset name. */
static uint64_t RowsHash(const char *name, const void *buf, size_t row_bytes, const IoH5Rows *rows)
{
  enum {
    LANES = 8
  }; /* rows hashed side by side: FNV is one multiply chain per row, so eight
        independent chains keep the multiplier busy (the same hashes, ~5x faster) */
  const uint64_t       seed = Fnv1a(FNV_OFFSET, name, strlen(name));
  const unsigned char *b    = (const unsigned char *)buf;
  uint64_t             sum  = 0;
  hsize_t              r    = 0;

  for (; r + LANES <= rows->n_local; r += LANES) {
    uint64_t h[LANES];
    for (int l = 0; l < LANES; l++) h[l] = seed;
    for (size_t i = 0; i < sizeof(uint64_t); i++) /* the global row index, little-endian bytes */
      for (int l = 0; l < LANES; l++) {
        const uint64_t g = rows->offset + r + (hsize_t)l;
        h[l]             = (h[l] ^ (unsigned char)(g >> (8 * i))) * FNV_PRIME;
      }
    for (size_t i = 0; i < row_bytes; i++)
      for (int l = 0; l < LANES; l++) h[l] = (h[l] ^ b[(r + (hsize_t)l) * row_bytes + i]) * FNV_PRIME;
    for (int l = 0; l < LANES; l++) sum += h[l];
  }
  for (; r < rows->n_local; r++) {
    const uint64_t g = rows->offset + r;
    sum += Fnv1a(Fnv1a(seed, &g, sizeof(g)), b + r * row_bytes, row_bytes);
  }
  return sum;
}

/* The root attributes, as one record for the checksum. */
typedef struct {
  int32_t version;
  int64_t step;
  double  time;
  int64_t removed, next_id;
  int32_t last_keep_impulses;
  int64_t bodies, contacts;
  int32_t walls;
} Header;

static uint64_t HeaderHash(const Header *h)
{
  static const char name[] = "@attributes";
  const uint64_t    zero   = 0;
  uint64_t          x      = Fnv1a(Fnv1a(FNV_OFFSET, name, strlen(name)), &zero, sizeof(zero));

  x = Fnv1a(x, &h->version, sizeof(h->version));
  x = Fnv1a(x, &h->step, sizeof(h->step));
  x = Fnv1a(x, &h->time, sizeof(h->time));
  x = Fnv1a(x, &h->removed, sizeof(h->removed));
  x = Fnv1a(x, &h->next_id, sizeof(h->next_id));
  x = Fnv1a(x, &h->last_keep_impulses, sizeof(h->last_keep_impulses));
  x = Fnv1a(x, &h->bodies, sizeof(h->bodies));
  x = Fnv1a(x, &h->contacts, sizeof(h->contacts));
  return Fnv1a(x, &h->walls, sizeof(h->walls));
}

/* ------------------------------------------------------------------ writer */

static PetscErrorCode WriteHashed(hid_t file, const char *name, hid_t memtype, hsize_t width, const IoH5Rows *rows,
                                  const void *buf, uint64_t *sum)
{
  PetscFunctionBegin;
  PetscCall(IoH5WriteRows(file, name, memtype, width, rows, buf));
  *sum += RowsHash(name, buf, width * H5Tget_size(memtype), rows);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WriteBodies(MPI_Comm comm, hid_t file, const BodyStore *s, uint64_t *sum)
{
  IoH5Rows rows;
  hid_t    group;

  PetscFunctionBegin;
  PetscCall(IoH5RowsCreate(comm, s->n_owned, &rows));
  PetscCall(IoH5CreateGroup(file, "bodies", &group));
#define WRITE_FIELD(type, name, width) \
  PetscCall(WriteHashed(file, "/bodies/" #name, FIELD_MEMTYPE(s->name), width, &rows, s->name, sum));
  BODY_FIELDS(WRITE_FIELD)
#undef WRITE_FIELD
  CCPDEM_H5(H5Gclose(group));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The CCP's impulses are /contacts/impulse, the penalty model's friction history /contacts/history. */
const char *CheckpointContactDataset(PetscInt width)
{
  return width == CCP_RECORD_WIDTH ? "/contacts/impulse" : "/contacts/history";
}

static PetscErrorCode WriteContacts(MPI_Comm comm, hid_t file, const ImpulseMemory *m, uint64_t *sum)
{
  const PetscInt n = m->n;
  IoH5Rows       rows;
  hid_t          group;
  int64_t       *ida, *idb;
  int32_t       *sub;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(n + 1, &ida, n + 1, &idb, n + 1, &sub));
  for (PetscInt i = 0; i < n; i++) {
    ida[i] = m->key[i].ida;
    idb[i] = m->key[i].idb;
    sub[i] = m->key[i].sub;
  }
  PetscCall(IoH5RowsCreate(comm, n, &rows));
  PetscCall(IoH5CreateGroup(file, "contacts", &group));
  PetscCall(WriteHashed(file, "/contacts/ida", H5T_NATIVE_INT64, 1, &rows, ida, sum));
  PetscCall(WriteHashed(file, "/contacts/idb", H5T_NATIVE_INT64, 1, &rows, idb, sum));
  PetscCall(WriteHashed(file, "/contacts/sub", H5T_NATIVE_INT32, 1, &rows, sub, sum));
  PetscCall(
    WriteHashed(file, CheckpointContactDataset(m->width), H5T_NATIVE_DOUBLE, (hsize_t)m->width, &rows, m->gamma, sum));
  CCPDEM_H5(H5Gclose(group));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscCall(PetscFree3(ida, idb, sub));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* /layout/grid (3, int64) and /layout/cuts (double, the cuts of x, then y, then z: p_k + 1 each),
 * written by rank 0: a restart on the same grid puts the load balancer's cuts back, so it owns the
 * bodies as the uninterrupted run did (bitwise). */
static PetscErrorCode WriteCuts(MPI_Comm comm, hid_t file, const CheckpointState *st, uint64_t *sum)
{
  const PetscInt ncuts = (PetscInt)(st->grid[0] + st->grid[1] + st->grid[2] + 3);
  PetscMPIInt    rank;
  IoH5Rows       rows;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(IoH5RowsCreate(comm, rank == 0 ? 3 : 0, &rows));
  PetscCall(WriteHashed(file, "/layout/grid", H5T_NATIVE_INT64, 1, &rows, st->grid, sum));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscCall(IoH5RowsCreate(comm, rank == 0 ? ncuts : 0, &rows));
  PetscCall(WriteHashed(file, "/layout/cuts", H5T_NATIVE_DOUBLE, 1, &rows, st->cuts, sum));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* /layout/emitted (int64, one per emitter, rank 0): how many bodies each emitter has made; their
 * random streams are functions of (seed, emitter, step), so that count is the whole emitter state. */
static PetscErrorCode WriteEmitters(MPI_Comm comm, hid_t file, const CheckpointState *st, uint64_t *sum)
{
  PetscMPIInt rank;
  IoH5Rows    rows;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(IoH5RowsCreate(comm, rank == 0 ? (PetscInt)st->n_emitters : 0, &rows));
  PetscCall(WriteHashed(file, "/layout/emitted", H5T_NATIVE_INT64, 1, &rows, st->emitted, sum));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* /layout/rows_per_rank (ranks x 2, int64): each writing rank's (bodies, contacts) rows, so that a
 * restart at the same rank count can give every rank back exactly its rows. */
static PetscErrorCode WriteLayout(MPI_Comm comm, hid_t file, const CheckpointState *st, uint64_t *sum)
{
  const int64_t counts[2] = {st->bodies->n_owned, st->memory->n};
  IoH5Rows      rows;
  hid_t         group;

  PetscFunctionBegin;
  PetscCall(IoH5CreateGroup(file, "layout", &group));
  CCPDEM_H5(H5Gclose(group));
  PetscCall(IoH5RowsCreate(comm, 1, &rows));
  PetscCall(WriteHashed(file, "/layout/rows_per_rank", H5T_NATIVE_INT64, 2, &rows, counts, sum));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscCall(WriteCuts(comm, file, st, sum));
  PetscCall(WriteEmitters(comm, file, st, sum));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* State replicated on every rank, written by rank 0: wall centres and the scenario. */
static PetscErrorCode WriteReplicated(MPI_Comm comm, hid_t file, const CheckpointState *st, uint64_t *sum)
{
  const int   nw = st->n_walls;
  PetscMPIInt rank;
  IoH5Rows    rows;
  hid_t       group;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(IoH5CreateGroup(file, "walls", &group));
  CCPDEM_H5(H5Gclose(group));
  PetscCall(IoH5CreateGroup(file, "scenario", &group));
  CCPDEM_H5(H5Gclose(group));
  PetscCall(IoH5RowsCreate(comm, rank == 0 ? nw : 0, &rows));
  PetscCall(WriteHashed(file, "/walls/center", H5T_NATIVE_DOUBLE, 3, &rows, st->wall_centers, sum));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscCall(IoH5RowsCreate(comm, rank == 0 ? (PetscInt)strlen(st->scenario_text) : 0, &rows));
  PetscCall(WriteHashed(file, "/scenario/text", H5T_NATIVE_UINT8, 1, &rows, st->scenario_text, sum));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscCall(IoH5RowsCreate(comm, rank == 0 ? (PetscInt)strlen(st->scenario_path) : 0, &rows));
  PetscCall(WriteHashed(file, "/scenario/path", H5T_NATIVE_UINT8, 1, &rows, st->scenario_path, sum));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WriteHeader(hid_t file, const Header *h, uint64_t checksum)
{
  PetscFunctionBegin;
  PetscCall(IoH5WriteAttribute(file, "ccpdem_checkpoint_version", H5T_NATIVE_INT32, &h->version));
  PetscCall(IoH5WriteAttribute(file, "step", H5T_NATIVE_INT64, &h->step));
  PetscCall(IoH5WriteAttribute(file, "time", H5T_NATIVE_DOUBLE, &h->time));
  PetscCall(IoH5WriteAttribute(file, "removed", H5T_NATIVE_INT64, &h->removed));
  PetscCall(IoH5WriteAttribute(file, "next_id", H5T_NATIVE_INT64, &h->next_id));
  PetscCall(IoH5WriteAttribute(file, "last_keep_impulses", H5T_NATIVE_INT32, &h->last_keep_impulses));
  PetscCall(IoH5WriteAttribute(file, "bodies", H5T_NATIVE_INT64, &h->bodies));
  PetscCall(IoH5WriteAttribute(file, "contacts", H5T_NATIVE_INT64, &h->contacts));
  PetscCall(IoH5WriteAttribute(file, "walls", H5T_NATIVE_INT32, &h->walls));
  PetscCall(IoH5WriteAttribute(file, "checksum", H5T_NATIVE_UINT64, &checksum));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CompareDescending(const void *a, const void *b)
{
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x < y) - (x > y);
}

/* Rank 0: the rotation of CheckpointWrite (see checkpoint.h). Failures to delete only warn: the
 * new checkpoint is in place and the run can go on. */
static PetscErrorCode PruneOnRoot(const char *dir, int64_t current, PetscInt keep)
{
  DIR           *d = opendir(dir);
  struct dirent *e;
  int64_t       *steps = NULL;
  size_t         n = 0, cap = 0;
  char           path[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  if (!d) {
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "Warning: cannot list %s to delete old checkpoints: %s\n",
                           dir, strerror(errno)));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  while ((e = readdir(d))) {
    long long step;
    int       end = 0;
    if (sscanf(e->d_name, ".ckpt-%lld.h5.tmp%n", &step, &end) == 1 &&
        e->d_name[end] == 0) { /* left by a killed writer */
      PetscCall(IoPathPrintf(path, sizeof(path), "%s/%s", dir, e->d_name));
      if (unlink(path))
        PetscCall(
          PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "Warning: cannot delete %s: %s\n", path, strerror(errno)));
      continue;
    }
    if (sscanf(e->d_name, "ckpt-%lld.h5%n", &step, &end) != 1 || e->d_name[end] != 0) continue;
    if (n == cap) {
      cap   = GrowthCapacity(cap, n + 1);
      steps = (int64_t *)realloc(steps, cap * sizeof(*steps));
      PetscCheck(steps, PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of memory listing %s", dir);
    }
    steps[n++] = step;
  }
  closedir(d);
  qsort(steps, n, sizeof(*steps), CompareDescending);
  for (size_t i = 0, kept = 0; i < n; i++) {
    if (steps[i] <= current && (PetscInt)kept < keep) {
      kept++;
      continue;
    }
    PetscCall(IoPathPrintf(path, sizeof(path), "%s/ckpt-%06" PRId64 ".h5", dir, steps[i]));
    if (unlink(path))
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "Warning: cannot delete old checkpoint %s: %s\n", path,
                             strerror(errno)));
  }
  free(steps);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CheckpointKeepOption(MPI_Comm comm, PetscInt *keep)
{
  PetscFunctionBegin;
  *keep = 2;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-checkpoint_keep", keep, NULL));
  PetscCheck(*keep >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-checkpoint_keep must be >= 1 (the newest checkpoint is always kept), got %" PetscInt_FMT, *keep);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CheckpointWrite(MPI_Comm comm, const CheckpointState *st, const char *outdir, char *path_out,
                               size_t pathlen)
{
  char        dir[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN];
  Header      h;
  uint64_t    local = 0, sum = 0;
  int64_t     n_contacts, total_contacts;
  PetscInt    keep;
  hid_t       file;
  PetscMPIInt rank;

  PetscFunctionBegin;
  n_contacts = st->memory->n;
  PetscCall(CheckpointKeepOption(comm, &keep));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(IoPathPrintf(dir, sizeof(dir), "%s/checkpoints", outdir));
  PetscCall(IoMakeDirs(comm, dir));
  PetscCall(IoPathPrintf(path, sizeof(path), "%s/ckpt-%06" PRId64 ".h5", dir, st->step));
  PetscCall(IoPathPrintf(tmp, sizeof(tmp), "%s/.ckpt-%06" PRId64 ".h5.tmp", dir, st->step));

  PetscCall(IoH5CreateParallel(comm, tmp, &file));
  PetscCall(WriteBodies(comm, file, st->bodies, &local));
  PetscCall(WriteContacts(comm, file, st->memory, &local));
  PetscCall(WriteReplicated(comm, file, st, &local));
  PetscCall(WriteLayout(comm, file, st, &local));
  PetscCallMPI(MPI_Allreduce(&local, &sum, 1, MPI_UINT64_T, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(&n_contacts, &total_contacts, 1, MPI_INT64_T, MPI_SUM, comm));
  memset(&h, 0, sizeof(h));
  h.version            = CHECKPOINT_FORMAT_VERSION;
  h.step               = st->step;
  h.time               = st->time;
  h.removed            = st->removed;
  h.next_id            = st->next_id;
  h.last_keep_impulses = st->last_keep_impulses ? 1 : 0;
  h.contacts           = total_contacts;
  h.walls              = st->n_walls;
  { /* the global body count */
    int64_t nb = st->bodies->n_owned;
    PetscCallMPI(MPI_Allreduce(&nb, &h.bodies, 1, MPI_INT64_T, MPI_SUM, comm));
  }
  sum += HeaderHash(&h);
  PetscCall(WriteHeader(file, &h, sum));
  PetscCall(IoH5ClosePublish(comm, file, tmp, path, dir, "CheckpointWrite (io/checkpoint.c)"));
  if (rank == 0) PetscCall(PruneOnRoot(dir, h.step, keep));
  PetscCallMPI(MPI_Barrier(comm));
  if (path_out) PetscCall(PetscStrncpy(path_out, path, pathlen));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ reader */

/* What a read holds, so that every exit path releases it. */
typedef struct {
  hid_t         file;
  Header        header;
  char         *text, *spath;
  BodyStore     bodies; /* read and verified before any of it is used */
  ImpulseMemory memory;
  double       *centers; /* walls x 3 */
  int64_t       grid[3]; /* the writer's process grid (0 0 0: not stored) */
  double       *cuts;    /* and its cuts, x then y then z */
  int64_t      *emitted; /* bodies made per emitter (NULL: not stored, none made) */
  hsize_t       n_emitted;
  char          why[WHY_MAX]; /* the first reason the file is refused, "" if none */
} Reader;

static PetscErrorCode ReadScalar(Reader *r, const char *name, hid_t memtype, void *value)
{
  hid_t attr, type, space;

  PetscFunctionBegin;
  if (r->why[0]) PetscFunctionReturn(PETSC_SUCCESS);
  if (H5Aexists(r->file, name) <= 0) {
    snprintf(r->why, sizeof(r->why), "attribute %s is missing", name);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  CCPDEM_H5_ID(attr, H5Aopen(r->file, name, H5P_DEFAULT));
  CCPDEM_H5_ID(type, H5Aget_type(attr));
  CCPDEM_H5_ID(space, H5Aget_space(attr));
  if (H5Tget_class(type) != H5Tget_class(memtype) || H5Tget_size(type) != H5Tget_size(memtype) ||
      H5Sget_simple_extent_npoints(space) != 1)
    snprintf(r->why, sizeof(r->why), "attribute %s is not a scalar of the expected type", name);
  else if (H5Aread(attr, memtype, value) < 0) snprintf(r->why, sizeof(r->why), "attribute %s cannot be read", name);
  CCPDEM_H5(H5Sclose(space));
  CCPDEM_H5(H5Tclose(type));
  CCPDEM_H5(H5Aclose(attr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReadHashed(Reader *r, const char *name, hid_t memtype, hsize_t width, const IoH5Rows *rows,
                                 void *buf, uint64_t *sum)
{
  PetscFunctionBegin;
  if (r->why[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(IoH5ReadRows(r->file, name, memtype, width, rows, buf, r->why, sizeof(r->why)));
  if (!r->why[0]) *sum += RowsHash(name, buf, width * H5Tget_size(memtype), rows);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0 looks at the first bytes: an HDF5 file starts with its signature (no user block here). */
static PetscErrorCode CheckSignature(MPI_Comm comm, const char *file, Reader *r)
{
  static const unsigned char signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  unsigned char              head[8];
  int                        state = 0; /* 0 ok, 1 cannot open, 2 not HDF5 */
  int                        err   = 0;
  PetscMPIInt                rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    FILE *fp = fopen(file, "rb");
    if (!fp) {
      state = 1;
      err   = errno;
    } else {
      if (fread(head, 1, sizeof(head), fp) != sizeof(head) || memcmp(head, signature, sizeof(head))) state = 2;
      (void)fclose(fp); /* read-only */
    }
  }
  PetscCallMPI(MPI_Bcast(&state, 1, MPI_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, comm));
  if (state == 1) snprintf(r->why, sizeof(r->why), "cannot open it: %s", strerror(err));
  if (state == 2) snprintf(r->why, sizeof(r->why), "not an HDF5 file");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OpenFile(MPI_Comm comm, const char *file, Reader *r)
{
  hid_t fapl;

  PetscFunctionBegin;
  PetscCall(CheckSignature(comm, file, r));
  if (r->why[0]) PetscFunctionReturn(PETSC_SUCCESS);
  CCPDEM_H5_ID(fapl, H5Pcreate(H5P_FILE_ACCESS));
  CCPDEM_H5(H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL));
  r->file = H5Fopen(file, H5F_ACC_RDONLY, fapl);
  CCPDEM_H5(H5Pclose(fapl));
  if (r->file < 0) snprintf(r->why, sizeof(r->why), "HDF5 cannot open it (truncated or damaged)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A snapshot has step and time and /bodies/id but no checkpoint version. */
static PetscBool IsSnapshot(hid_t file)
{
  return (PetscBool)(H5Aexists(file, "step") > 0 && H5Aexists(file, "time") > 0 &&
                     H5Lexists(file, "bodies", H5P_DEFAULT) > 0 && H5Lexists(file, "/bodies/id", H5P_DEFAULT) > 0);
}

static PetscErrorCode ReadHeader(Reader *r, Header *h, uint64_t *stored_sum)
{
  PetscFunctionBegin;
  memset(h, 0, sizeof(*h));
  if (H5Aexists(r->file, "ccpdem_checkpoint_version") <= 0) {
    snprintf(r->why, sizeof(r->why),
             IsSnapshot(r->file) ? "it is a ccpdem snapshot; restart from a checkpoint (OUT/checkpoints/ckpt-NNNNNN.h5)"
                                 : "it has no ccpdem_checkpoint_version attribute (not written by ccpdem)");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(ReadScalar(r, "ccpdem_checkpoint_version", H5T_NATIVE_INT32, &h->version));
  if (!r->why[0] && h->version != CHECKPOINT_FORMAT_VERSION) {
    snprintf(r->why, sizeof(r->why), "format version %d, but this ccpdem reads version %d", (int)h->version,
             CHECKPOINT_FORMAT_VERSION);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(ReadScalar(r, "step", H5T_NATIVE_INT64, &h->step));
  PetscCall(ReadScalar(r, "time", H5T_NATIVE_DOUBLE, &h->time));
  PetscCall(ReadScalar(r, "removed", H5T_NATIVE_INT64, &h->removed));
  PetscCall(ReadScalar(r, "next_id", H5T_NATIVE_INT64, &h->next_id));
  PetscCall(ReadScalar(r, "last_keep_impulses", H5T_NATIVE_INT32, &h->last_keep_impulses));
  PetscCall(ReadScalar(r, "bodies", H5T_NATIVE_INT64, &h->bodies));
  PetscCall(ReadScalar(r, "contacts", H5T_NATIVE_INT64, &h->contacts));
  PetscCall(ReadScalar(r, "walls", H5T_NATIVE_INT32, &h->walls));
  PetscCall(ReadScalar(r, "checksum", H5T_NATIVE_UINT64, stored_sum));
  if (!r->why[0] && (h->step < 0 || h->bodies < 0 || h->contacts < 0 || h->walls < 0))
    snprintf(r->why, sizeof(r->why), "negative counts in its attributes");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads a replicated byte string (every rank reads all of it) into a new NUL-terminated buffer. */
static PetscErrorCode ReadString(MPI_Comm comm, Reader *r, const char *name, char **out, uint64_t *sum)
{
  hsize_t     n;
  PetscBool   found;
  IoH5Rows    rows, all;
  PetscMPIInt rank;

  PetscFunctionBegin;
  if (r->why[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(IoH5DatasetRows(r->file, name, &n, &found));
  if (!found) {
    snprintf(r->why, sizeof(r->why), "dataset %s is missing", name);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMalloc1(n + 1, out));
  (*out)[n] = 0;
  /* Every rank reads every byte; the checksum counts them once, as rank 0's rows. */
  PetscCall(IoH5RowsCreateSplit(MPI_COMM_SELF, n, &all));
  PetscCall(IoH5ReadRows(r->file, name, H5T_NATIVE_UINT8, 1, &all, *out, r->why, sizeof(r->why)));
  PetscCall(IoH5RowsDestroy(&all));
  if (!r->why[0] && rank == 0) {
    PetscCall(IoH5RowsCreateSplit(MPI_COMM_SELF, n, &rows));
    *sum += RowsHash(name, *out, 1, &rows);
    PetscCall(IoH5RowsDestroy(&rows));
  }
  if (!r->why[0] && strlen(*out) != n) snprintf(r->why, sizeof(r->why), "dataset %s holds a NUL byte", name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReadBodies(MPI_Comm comm, Reader *r, int64_t n, uint64_t *sum)
{
  BodyStore *s = &r->bodies;
  IoH5Rows   rows;

  PetscFunctionBegin;
  PetscCall(IoH5RowsCreateSplit(comm, (hsize_t)n, &rows));
  PetscCall(BodyStoreReserve(s, (PetscInt)rows.n_local));
  s->n_owned = (PetscInt)rows.n_local;
#define READ_FIELD(type, name, width) \
  PetscCall(ReadHashed(r, "/bodies/" #name, FIELD_MEMTYPE(s->name), width, &rows, s->name, sum));
  BODY_FIELDS(READ_FIELD)
#undef READ_FIELD
  PetscCall(IoH5RowsDestroy(&rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReadContacts(MPI_Comm comm, Reader *r, int64_t n, uint64_t *sum)
{
  ImpulseMemory *m = &r->memory;
  IoH5Rows       rows;
  int64_t       *ida, *idb;
  int32_t       *sub;
  PetscInt       nl;

  PetscFunctionBegin;
  PetscCall(IoH5RowsCreateSplit(comm, (hsize_t)n, &rows));
  nl = (PetscInt)rows.n_local;
  /* The record width from the dataset present: impulses (CCP) or friction history (penalty);
   * the caller checks it against the scenario's contact model. */
  PetscCall(ImpulseMemorySetWidth(m, H5Lexists(r->file, "/contacts/history", H5P_DEFAULT) > 0 ? PENALTY_HISTORY_WIDTH
                                                                                              : CCP_RECORD_WIDTH));
  /* Allocated as ImpulseMemoryStore does (PetscMalloc2 of keys and records), so
   * ImpulseMemoryDestroy and later stores manage it. */
  m->capacity = nl;
  PetscCall(PetscMalloc2(nl + 1, &m->key, (size_t)(nl + 1) * m->width, &m->gamma));
  PetscCall(PetscMalloc3(nl + 1, &ida, nl + 1, &idb, nl + 1, &sub));
  PetscCall(ReadHashed(r, "/contacts/ida", H5T_NATIVE_INT64, 1, &rows, ida, sum));
  PetscCall(ReadHashed(r, "/contacts/idb", H5T_NATIVE_INT64, 1, &rows, idb, sum));
  PetscCall(ReadHashed(r, "/contacts/sub", H5T_NATIVE_INT32, 1, &rows, sub, sum));
  PetscCall(
    ReadHashed(r, CheckpointContactDataset(m->width), H5T_NATIVE_DOUBLE, (hsize_t)m->width, &rows, m->gamma, sum));
  for (PetscInt i = 0; i < nl; i++) {
    m->key[i].ida = ida[i];
    m->key[i].idb = idb[i];
    m->key[i].sub = sub[i];
  }
  m->n = r->why[0] ? 0 : nl;
  PetscCall(ImpulseMemorySort(m)); /* several writers' blocks, each sorted, in one read */
  PetscCall(PetscFree3(ida, idb, sub));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Wall centres are replicated: every rank reads all of them; the checksum counts rank 0's. */
static PetscErrorCode ReadWalls(MPI_Comm comm, Reader *r, int nw, uint64_t *sum)
{
  IoH5Rows    all;
  PetscMPIInt rank;

  PetscFunctionBegin;
  if (r->why[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMalloc1(3 * nw + 1, &r->centers));
  PetscCall(IoH5RowsCreateSplit(MPI_COMM_SELF, (hsize_t)nw, &all));
  PetscCall(IoH5ReadRows(r->file, "/walls/center", H5T_NATIVE_DOUBLE, 3, &all, r->centers, r->why, sizeof(r->why)));
  if (!r->why[0] && rank == 0) *sum += RowsHash("/walls/center", r->centers, 3 * sizeof(double), &all);
  PetscCall(IoH5RowsDestroy(&all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* /layout/emitted, replicated (optional: files written before emitters existed have none). */
static PetscErrorCode ReadEmitters(MPI_Comm comm, Reader *r, uint64_t *sum)
{
  PetscBool   found;
  IoH5Rows    all;
  PetscMPIInt rank;

  PetscFunctionBegin;
  if (r->why[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(IoH5DatasetRows(r->file, "/layout/emitted", &r->n_emitted, &found));
  if (!found) {
    r->n_emitted = 0;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (r->n_emitted > (1u << 20)) {
    snprintf(r->why, sizeof(r->why), "dataset /layout/emitted has %llu rows", (unsigned long long)r->n_emitted);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMalloc1(r->n_emitted + 1, &r->emitted));
  PetscCall(IoH5RowsCreateSplit(MPI_COMM_SELF, r->n_emitted, &all));
  PetscCall(IoH5ReadRows(r->file, "/layout/emitted", H5T_NATIVE_INT64, 1, &all, r->emitted, r->why, sizeof(r->why)));
  if (!r->why[0] && rank == 0) *sum += RowsHash("/layout/emitted", r->emitted, sizeof(int64_t), &all);
  PetscCall(IoH5RowsDestroy(&all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The writer's rows per rank: read by every rank (counted once, as rank 0's rows); they must add
 * up to the attributes' counts. At one rank only checked; see checkpoint.h for their later use. */
static PetscErrorCode ReadLayout(MPI_Comm comm, Reader *r, const Header *h, uint64_t *sum)
{
  hsize_t     n;
  PetscBool   found;
  IoH5Rows    all;
  int64_t    *counts, nb = 0, nc = 0;
  PetscMPIInt rank;

  PetscFunctionBegin;
  if (r->why[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(IoH5DatasetRows(r->file, "/layout/rows_per_rank", &n, &found));
  if (!found || n < 1 || n > (1u << 24)) {
    snprintf(r->why, sizeof(r->why), "dataset /layout/rows_per_rank is missing or has %llu rows",
             (unsigned long long)n);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMalloc1(2 * n, &counts));
  PetscCall(IoH5RowsCreateSplit(MPI_COMM_SELF, n, &all));
  PetscCall(IoH5ReadRows(r->file, "/layout/rows_per_rank", H5T_NATIVE_INT64, 2, &all, counts, r->why, sizeof(r->why)));
  if (!r->why[0]) {
    if (rank == 0) *sum += RowsHash("/layout/rows_per_rank", counts, 2 * sizeof(int64_t), &all);
    for (hsize_t k = 0; k < n; k++) {
      nb += counts[2 * k];
      nc += counts[2 * k + 1];
    }
    if (nb != h->bodies || nc != h->contacts)
      snprintf(r->why, sizeof(r->why),
               "its rows per rank add up to %" PRId64 " bodies and %" PRId64 " contacts, not %" PRId64 " and %" PRId64,
               nb, nc, h->bodies, h->contacts);
  }
  PetscCall(IoH5RowsDestroy(&all));
  PetscCall(PetscFree(counts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* /layout/grid and /layout/cuts, replicated: every rank reads them, the checksum counts rank 0's.
 * Optional (checkpoints of format 1 written before the load balancer lack them: uniform cuts). */
static PetscErrorCode ReadCuts(MPI_Comm comm, Reader *r, uint64_t *sum)
{
  hsize_t     ng, nc;
  PetscBool   has_grid, has_cuts;
  IoH5Rows    all;
  PetscMPIInt rank;

  PetscFunctionBegin;
  if (r->why[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(IoH5DatasetRows(r->file, "/layout/grid", &ng, &has_grid));
  PetscCall(IoH5DatasetRows(r->file, "/layout/cuts", &nc, &has_cuts));
  if (!has_grid && !has_cuts) PetscFunctionReturn(PETSC_SUCCESS);
  if (!has_grid || !has_cuts || ng != 3 || nc > 3 * 65) {
    snprintf(r->why, sizeof(r->why), "datasets /layout/grid and /layout/cuts are incomplete");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(IoH5RowsCreateSplit(MPI_COMM_SELF, 3, &all));
  PetscCall(IoH5ReadRows(r->file, "/layout/grid", H5T_NATIVE_INT64, 1, &all, r->grid, r->why, sizeof(r->why)));
  if (!r->why[0] && rank == 0) *sum += RowsHash("/layout/grid", r->grid, sizeof(int64_t), &all);
  PetscCall(IoH5RowsDestroy(&all));
  if (r->why[0]) PetscFunctionReturn(PETSC_SUCCESS);
  if (r->grid[0] < 1 || r->grid[1] < 1 || r->grid[2] < 1 || (hsize_t)(r->grid[0] + r->grid[1] + r->grid[2] + 3) != nc) {
    snprintf(r->why, sizeof(r->why), "dataset /layout/cuts has %llu rows, not the %lld the grid needs",
             (unsigned long long)nc, (long long)(r->grid[0] + r->grid[1] + r->grid[2] + 3));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc1(nc, &r->cuts));
  PetscCall(IoH5RowsCreateSplit(MPI_COMM_SELF, nc, &all));
  PetscCall(IoH5ReadRows(r->file, "/layout/cuts", H5T_NATIVE_DOUBLE, 1, &all, r->cuts, r->why, sizeof(r->why)));
  if (!r->why[0] && rank == 0) *sum += RowsHash("/layout/cuts", r->cuts, sizeof(double), &all);
  PetscCall(IoH5RowsDestroy(&all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The counts in the attributes must match the datasets before anything is allocated from them. */
static PetscErrorCode CheckRows(Reader *r, const char *name, int64_t expected)
{
  hsize_t   n;
  PetscBool found;

  PetscFunctionBegin;
  if (r->why[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(IoH5DatasetRows(r->file, name, &n, &found));
  if (!found) snprintf(r->why, sizeof(r->why), "dataset %s is missing", name);
  else if ((int64_t)n != expected)
    snprintf(r->why, sizeof(r->why), "dataset %s has %llu rows but the attributes say %" PRId64, name,
             (unsigned long long)n, expected);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReadAll(MPI_Comm comm, const char *file, Reader *r)
{
  Header   h;
  uint64_t stored = 0, local = 0, sum = 0;
  int      bad, any_bad;

  PetscFunctionBegin;
  PetscCall(OpenFile(comm, file, r));
  if (r->why[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ReadHeader(r, &h, &stored));
  PetscCall(ReadString(comm, r, "/scenario/text", &r->text, &local));
  PetscCall(ReadString(comm, r, "/scenario/path", &r->spath, &local));
  PetscCall(CheckRows(r, "/walls/center", h.walls));
  PetscCall(CheckRows(r, "/bodies/id", h.bodies));
  PetscCall(CheckRows(r, "/contacts/ida", h.contacts));
  PetscCall(ReadWalls(comm, r, (int)h.walls, &local));
  PetscCall(ReadLayout(comm, r, &h, &local));
  PetscCall(ReadCuts(comm, r, &local));
  PetscCall(ReadEmitters(comm, r, &local));
  if (!r->why[0]) PetscCall(ReadBodies(comm, r, h.bodies, &local));
  if (!r->why[0]) PetscCall(ReadContacts(comm, r, h.contacts, &local));
  /* Ranks agree before comparing, so a failure on one rank is a refusal on all. */
  bad = r->why[0] != 0;
  PetscCallMPI(MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, comm));
  if (any_bad && !bad) snprintf(r->why, sizeof(r->why), "another rank could not read it");
  if (any_bad) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Allreduce(&local, &sum, 1, MPI_UINT64_T, MPI_SUM, comm));
  sum += HeaderHash(&h);
  if (sum != stored)
    snprintf(r->why, sizeof(r->why),
             "checksum mismatch (stored %016" PRIx64 ", computed %016" PRIx64 "): the file is corrupt", stored, sum);
  r->header = h;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Runs call with HDF5's automatic error printing off: a refused file gets our one line, not a stack. */
#define WITH_HDF5_QUIET(call) \
  do { \
    H5E_auto2_t    old_func_; \
    void          *old_data_; \
    PetscErrorCode ierr_; \
    CCPDEM_H5(H5Eget_auto2(H5E_DEFAULT, &old_func_, &old_data_)); \
    CCPDEM_H5(H5Eset_auto2(H5E_DEFAULT, NULL, NULL)); \
    ierr_ = (call); \
    CCPDEM_H5(H5Eset_auto2(H5E_DEFAULT, old_func_, old_data_)); \
    PetscCall(ierr_); \
  } while (0)

static PetscErrorCode ReaderClose(Reader *r)
{
  PetscFunctionBegin;
  if (r->file >= 0) { /* read-only: nothing is lost if closing fails, so that is not reported */
    H5E_auto2_t old_func;
    void       *old_data;
    CCPDEM_H5(H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data));
    CCPDEM_H5(H5Eset_auto2(H5E_DEFAULT, NULL, NULL));
    (void)H5Fclose(r->file);
    CCPDEM_H5(H5Eset_auto2(H5E_DEFAULT, old_func, old_data));
  }
  r->file = -1;
  PetscCall(PetscFree(r->text));
  PetscCall(PetscFree(r->spath));
  PetscCall(PetscFree(r->centers));
  PetscCall(PetscFree(r->cuts));
  PetscCall(PetscFree(r->emitted));
  PetscCall(BodyStoreDestroy(&r->bodies));
  PetscCall(ImpulseMemoryDestroy(&r->memory));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Hands what r read over to st (r keeps nothing of it). */
static PetscErrorCode ReaderHandOver(Reader *r, CheckpointState *st)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(&st->bodies));
  PetscCall(PetscNew(&st->memory));
  *st->bodies = r->bodies;
  *st->memory = r->memory;
  PetscCall(BodyStoreCreate(&r->bodies));
  PetscCall(ImpulseMemoryCreate(&r->memory));
  st->step               = r->header.step;
  st->time               = r->header.time;
  st->removed            = r->header.removed;
  st->next_id            = r->header.next_id;
  st->last_keep_impulses = r->header.last_keep_impulses ? PETSC_TRUE : PETSC_FALSE;
  st->bodies_total       = r->header.bodies;
  st->n_walls            = r->header.walls;
  st->wall_centers       = r->centers;
  st->scenario_text      = r->text;
  st->scenario_path      = r->spath;
  st->cuts               = r->cuts;
  st->n_emitters         = (int64_t)r->n_emitted;
  st->emitted            = r->emitted;
  for (int k = 0; k < 3; k++) st->grid[k] = r->grid[k];
  r->centers = r->cuts = NULL;
  r->text = r->spath = NULL;
  r->emitted         = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CheckpointRead(MPI_Comm comm, const char *file, CheckpointState *st, char *err, size_t errlen)
{
  Reader r;

  PetscFunctionBegin;
  err[0] = 0;
  PetscCall(PetscMemzero(st, sizeof(*st)));
  memset(&r, 0, sizeof(r));
  r.file = -1;
  WITH_HDF5_QUIET(ReadAll(comm, file, &r));
  if (r.why[0]) snprintf(err, errlen, "%s: not a usable ccpdem checkpoint: %s", file, r.why);
  else PetscCall(ReaderHandOver(&r, st));
  PetscCall(ReaderClose(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CheckpointStateDestroy(CheckpointState *st)
{
  PetscFunctionBegin;
  if (st->bodies) PetscCall(BodyStoreDestroy(st->bodies));
  if (st->memory) PetscCall(ImpulseMemoryDestroy(st->memory));
  PetscCall(PetscFree(st->bodies));
  PetscCall(PetscFree(st->memory));
  PetscCall(PetscFree(st->wall_centers));
  PetscCall(PetscFree(st->scenario_text));
  PetscCall(PetscFree(st->scenario_path));
  PetscCall(PetscFree(st->cuts));
  PetscCall(PetscFree(st->emitted));
  PetscCall(PetscMemzero(st, sizeof(*st)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ info */

static PetscErrorCode InspectAll(MPI_Comm comm, const char *file, Reader *r, CheckpointFileInfo *info)
{
  hsize_t   n;
  PetscBool found;

  PetscFunctionBegin;
  PetscCall(OpenFile(comm, file, r));
  if (r->why[0]) PetscFunctionReturn(PETSC_SUCCESS);
  if (H5Aexists(r->file, "ccpdem_checkpoint_version") > 0) {
    info->checkpoint = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!IsSnapshot(r->file)) {
    snprintf(r->why, sizeof(r->why), "neither a ccpdem snapshot nor a checkpoint");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(ReadScalar(r, "step", H5T_NATIVE_INT64, &info->step));
  PetscCall(ReadScalar(r, "time", H5T_NATIVE_DOUBLE, &info->time));
  PetscCall(IoH5DatasetRows(r->file, "/bodies/id", &n, &found));
  info->bodies = (int64_t)n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CheckpointInspect(MPI_Comm comm, const char *file, CheckpointFileInfo *info, char *err, size_t errlen)
{
  Reader r;

  PetscFunctionBegin;
  err[0] = 0;
  PetscCall(PetscMemzero(info, sizeof(*info)));
  memset(&r, 0, sizeof(r));
  r.file = -1;
  WITH_HDF5_QUIET(InspectAll(comm, file, &r, info));
  PetscCall(ReaderClose(&r));
  if (r.why[0]) snprintf(err, errlen, "%s: %s", file, r.why);
  PetscFunctionReturn(PETSC_SUCCESS);
}
