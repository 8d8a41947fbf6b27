/* Checkpoint writer and reader; the format is documented in checkpoint.h. */
#include "io/checkpoint.h"
#include "base/growth.h"
#include "io/h5.h"
#include "io/output_file.h"
#include "penalty/history.h"
#include "scenario/scenario.h"
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
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

/* The bytes one body takes in the /bodies datasets (the BODY_FIELDS rows, without a struct's padding). */
#define FIELD_BYTES(type, name, width) +sizeof(type) * (width)
#define BODY_ROW_BYTES                 (0 BODY_FIELDS(FIELD_BYTES))

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

/* A bijective 64-bit finalizer (xor-shifts and odd multipliers, as in MurmurHash3's fmix64) applied
 * to each row's FNV-1a hash before the rows are summed. Without it a row's hash is affine in its
 * last bytes, so the same bit flipped one way in one row and the other way in another row changed
 * the sum by +d and -d and the damage passed the checksum. */
static inline uint64_t MixRow(uint64_t h)
{
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
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
    for (int l = 0; l < LANES; l++) sum += MixRow(h[l]);
  }
  for (; r < rows->n_local; r++) {
    const uint64_t g = rows->offset + r;
    sum += MixRow(Fnv1a(Fnv1a(seed, &g, sizeof(g)), b + r * row_bytes, row_bytes));
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
  char    run_id[RUN_ID_HEX]; /* no NUL: the attribute's bytes */
} Header;

/* The root attributes between the version and the run id, in file order, with their Header fields:
 * the one list the writer and the reader both follow. */
typedef enum {
  HEADER_INT32,
  HEADER_INT64,
  HEADER_DOUBLE
} HeaderType;
static const struct {
  const char *name;
  HeaderType  type;
  size_t      offset;
} header_fields[] = {
  {"step", HEADER_INT64, offsetof(Header, step)},
  {"time", HEADER_DOUBLE, offsetof(Header, time)},
  {"removed", HEADER_INT64, offsetof(Header, removed)},
  {"next_id", HEADER_INT64, offsetof(Header, next_id)},
  {"last_keep_impulses", HEADER_INT32, offsetof(Header, last_keep_impulses)},
  {"bodies", HEADER_INT64, offsetof(Header, bodies)},
  {"contacts", HEADER_INT64, offsetof(Header, contacts)},
  {"walls", HEADER_INT32, offsetof(Header, walls)},
};
#define N_HEADER_FIELDS (sizeof(header_fields) / sizeof(header_fields[0]))

static hid_t HeaderMemType(HeaderType t)
{
  return t == HEADER_INT32 ? H5T_NATIVE_INT32 : t == HEADER_INT64 ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE;
}

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
  x = Fnv1a(x, &h->walls, sizeof(h->walls));
  return MixRow(Fnv1a(x, h->run_id, sizeof(h->run_id)));
}

/* ------------------------------------------------------------------ writer */

static PetscErrorCode WriteHashed(IoH5Output *out, const char *name, hid_t memtype, hsize_t width, const IoH5Rows *rows,
                                  const void *buf, uint64_t *sum)
{
  PetscFunctionBegin;
  PetscCall(IoH5WriteRows(out, name, memtype, width, rows, buf));
  if (!out->measuring) *sum += RowsHash(name, buf, width * H5Tget_size(memtype), rows);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WriteBodies(MPI_Comm comm, IoH5Output *out, const BodyStore *s, uint64_t *sum)
{
  IoH5Rows rows;

  PetscFunctionBegin;
  PetscCall(IoH5RowsCreate(comm, s->n_owned, &rows));
  PetscCall(IoH5CreateGroup(out, "bodies"));
#define WRITE_FIELD(type, name, width) \
  PetscCall(WriteHashed(out, "/bodies/" #name, FIELD_MEMTYPE(s->name), width, &rows, s->name, sum));
  BODY_FIELDS(WRITE_FIELD)
#undef WRITE_FIELD
  PetscCall(IoH5RowsDestroy(&rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The CCP's impulses are /contacts/impulse, the penalty model's friction history /contacts/history. */
const char *CheckpointContactDataset(PetscInt width)
{
  return width == CCP_RECORD_WIDTH ? "/contacts/impulse" : "/contacts/history";
}

static PetscErrorCode WriteContacts(MPI_Comm comm, IoH5Output *out, const ImpulseMemory *m, uint64_t *sum)
{
  const PetscInt n = m->n;
  IoH5Rows       rows;
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
  PetscCall(IoH5CreateGroup(out, "contacts"));
  PetscCall(WriteHashed(out, "/contacts/ida", H5T_NATIVE_INT64, 1, &rows, ida, sum));
  PetscCall(WriteHashed(out, "/contacts/idb", H5T_NATIVE_INT64, 1, &rows, idb, sum));
  PetscCall(WriteHashed(out, "/contacts/sub", H5T_NATIVE_INT32, 1, &rows, sub, sum));
  PetscCall(
    WriteHashed(out, CheckpointContactDataset(m->width), H5T_NATIVE_DOUBLE, (hsize_t)m->width, &rows, m->gamma, sum));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscCall(PetscFree3(ida, idb, sub));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* /layout/grid (3, int64) and /layout/cuts (double, the cuts of x, then y, then z: p_k + 1 each),
 * written by rank 0: a restart on the same grid puts the load balancer's cuts back, so it owns the
 * bodies as the uninterrupted run did (bitwise). */
static PetscErrorCode WriteCuts(MPI_Comm comm, IoH5Output *out, const CheckpointState *st, uint64_t *sum)
{
  const PetscInt ncuts = (PetscInt)(st->grid[0] + st->grid[1] + st->grid[2] + 3);
  PetscMPIInt    rank;
  IoH5Rows       rows;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(IoH5RowsCreate(comm, rank == 0 ? 3 : 0, &rows));
  PetscCall(WriteHashed(out, "/layout/grid", H5T_NATIVE_INT64, 1, &rows, st->grid, sum));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscCall(IoH5RowsCreate(comm, rank == 0 ? ncuts : 0, &rows));
  PetscCall(WriteHashed(out, "/layout/cuts", H5T_NATIVE_DOUBLE, 1, &rows, st->cuts, sum));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* /layout/emitted (int64, one per emitter, rank 0): how many bodies each emitter has made; their
 * random streams are functions of (seed, emitter, step), so that count is the whole emitter state. */
static PetscErrorCode WriteEmitters(MPI_Comm comm, IoH5Output *out, const CheckpointState *st, uint64_t *sum)
{
  PetscMPIInt rank;
  IoH5Rows    rows;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(IoH5RowsCreate(comm, rank == 0 ? (PetscInt)st->n_emitters : 0, &rows));
  PetscCall(WriteHashed(out, "/layout/emitted", H5T_NATIVE_INT64, 1, &rows, st->emitted, sum));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* /layout/rows_per_rank (ranks x 2, int64): each writing rank's (bodies, contacts) rows, so that a
 * restart at the same rank count can give every rank back exactly its rows. */
static PetscErrorCode WriteLayout(MPI_Comm comm, IoH5Output *out, const CheckpointState *st, uint64_t *sum)
{
  const int64_t counts[2] = {st->bodies->n_owned, st->memory->n};
  IoH5Rows      rows;

  PetscFunctionBegin;
  PetscCall(IoH5CreateGroup(out, "layout"));
  PetscCall(IoH5RowsCreate(comm, 1, &rows));
  PetscCall(WriteHashed(out, "/layout/rows_per_rank", H5T_NATIVE_INT64, 2, &rows, counts, sum));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscCall(WriteCuts(comm, out, st, sum));
  PetscCall(WriteEmitters(comm, out, st, sum));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* State replicated on every rank, written by rank 0: wall centres and the scenario. */
static PetscErrorCode WriteReplicated(MPI_Comm comm, IoH5Output *out, const CheckpointState *st, uint64_t *sum)
{
  const int   nw = st->n_walls;
  PetscMPIInt rank;
  IoH5Rows    rows;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(IoH5CreateGroup(out, "walls"));
  PetscCall(IoH5CreateGroup(out, "scenario"));
  PetscCall(IoH5RowsCreate(comm, rank == 0 ? nw : 0, &rows));
  PetscCall(WriteHashed(out, "/walls/center", H5T_NATIVE_DOUBLE, 3, &rows, st->wall_centers, sum));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscCall(IoH5RowsCreate(comm, rank == 0 ? (PetscInt)strlen(st->scenario_text) : 0, &rows));
  PetscCall(WriteHashed(out, "/scenario/text", H5T_NATIVE_UINT8, 1, &rows, st->scenario_text, sum));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscCall(IoH5RowsCreate(comm, rank == 0 ? (PetscInt)strlen(st->scenario_path) : 0, &rows));
  PetscCall(WriteHashed(out, "/scenario/path", H5T_NATIVE_UINT8, 1, &rows, st->scenario_path, sum));
  PetscCall(IoH5RowsDestroy(&rows));
  if (st->scenario_overrides && st->scenario_overrides[0]) { /* replicated: every rank knows whether there are any */
    PetscCall(IoH5RowsCreate(comm, rank == 0 ? (PetscInt)strlen(st->scenario_overrides) : 0, &rows));
    PetscCall(WriteHashed(out, "/scenario/overrides", H5T_NATIVE_UINT8, 1, &rows, st->scenario_overrides, sum));
    PetscCall(IoH5RowsDestroy(&rows));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The type of the run_id attribute: RUN_ID_HEX characters, no terminating NUL. Close with H5Tclose. */
static PetscErrorCode RunIdType(hid_t *type)
{
  PetscFunctionBegin;
  CCPDEM_H5_ID(*type, H5Tcopy(H5T_C_S1));
  CCPDEM_H5(H5Tset_size(*type, RUN_ID_HEX));
  CCPDEM_H5(H5Tset_strpad(*type, H5T_STR_NULLPAD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WriteHeader(IoH5Output *out, const Header *h, uint64_t checksum)
{
  hid_t run_id_type;

  PetscFunctionBegin;
  PetscCall(RunIdType(&run_id_type));
  PetscCall(IoH5WriteAttribute(out, "ccpdem_checkpoint_version", H5T_NATIVE_INT32, &h->version));
  for (size_t k = 0; k < N_HEADER_FIELDS; k++)
    PetscCall(IoH5WriteAttribute(out, header_fields[k].name, HeaderMemType(header_fields[k].type),
                                 (const char *)h + header_fields[k].offset));
  PetscCall(IoH5WriteAttribute(out, "run_id", run_id_type, h->run_id));
  PetscCall(IoH5WriteAttribute(out, "checksum", H5T_NATIVE_UINT64, &checksum));
  CCPDEM_H5(H5Tclose(run_id_type));
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
    if (IoIsTempName(e->d_name, "ckpt-")) { /* left by a killed writer (this one's is renamed already) */
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

/* Every dataset and attribute of the checkpoint of st, into out (one pass of io/h5.h IoH5Output). */
static PetscErrorCode WriteAll(MPI_Comm comm, IoH5Output *out, const CheckpointState *st)
{
  Header   h;
  uint64_t local = 0, sum = 0;
  int64_t  n_contacts = st->memory->n, total_contacts, nb = st->bodies->n_owned;

  PetscFunctionBegin;
  PetscCall(WriteBodies(comm, out, st->bodies, &local));
  PetscCall(WriteContacts(comm, out, st->memory, &local));
  PetscCall(WriteReplicated(comm, out, st, &local));
  PetscCall(WriteLayout(comm, out, st, &local));
  PetscCallMPI(MPI_Allreduce(&local, &sum, 1, MPI_UINT64_T, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(&n_contacts, &total_contacts, 1, MPI_INT64_T, MPI_SUM, comm));
  memset(&h, 0, sizeof(h));
  h.version            = st->scenario_overrides && st->scenario_overrides[0] ? CHECKPOINT_FORMAT_VERSION_OVERRIDES
                                                                             : CHECKPOINT_FORMAT_VERSION;
  h.step               = st->step;
  h.time               = st->time;
  h.removed            = st->removed;
  h.next_id            = st->next_id;
  h.last_keep_impulses = st->last_keep_impulses ? 1 : 0;
  h.contacts           = total_contacts;
  h.walls              = st->n_walls;
  memcpy(h.run_id, st->run_id.hex, RUN_ID_HEX);
  PetscCallMPI(MPI_Allreduce(&nb, &h.bodies, 1, MPI_INT64_T, MPI_SUM, comm)); /* the global body count */
  sum += HeaderHash(&h);
  PetscCall(WriteHeader(out, &h, sum));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CheckpointWrite(MPI_Comm comm, const CheckpointState *st, const char *outdir, char *path_out,
                               size_t pathlen, char *err, size_t errlen)
{
  char        dir[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN];
  PetscInt    keep;
  IoH5Output  out;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCheck(RunIdValid(st->run_id.hex), comm, PETSC_ERR_ARG_WRONG,
             "CheckpointWrite: the state has no run id (io/run_dir.h RunIdNew)");
  PetscCall(CheckpointKeepOption(comm, &keep));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(IoPathPrintf(dir, sizeof(dir), "%s/checkpoints", outdir));
  PetscCall(IoMakeDirs(comm, dir, err, errlen));
  if (err[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(IoPathPrintf(path, sizeof(path), "%s/ckpt-%06" PRId64 ".h5", dir, st->step));
  PetscCall(IoH5OutputBegin(comm, path, &out));
  PetscCall(WriteAll(comm, &out, st)); /* measures */
  PetscCall(IoH5OutputCreate(&out));
  PetscCall(WriteAll(comm, &out, st));
  PetscCall(IoH5OutputFinish(&out, err, errlen)); /* fsync, rename, fsync of the directory */
  if (err[0]) PetscFunctionReturn(PETSC_SUCCESS); /* the previous checkpoints are all still there */
  if (rank == 0) PetscCall(PruneOnRoot(dir, st->step, keep));
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
  char         *overrides; /* /scenario/overrides (NULL: version 6, none) */
  BodyStore     bodies;    /* read and verified before any of it is used */
  ImpulseMemory memory;
  double       *centers; /* walls x 3 */
  int64_t       grid[3]; /* the writer's process grid (0 0 0: not stored) */
  double       *cuts;    /* and its cuts, x then y then z */
  int64_t      *emitted; /* bodies made per emitter (NULL: not stored, none made) */
  hsize_t       n_emitted;
  hsize_t       file_bytes;   /* the file's size: no dataset (none is compressed) holds more */
  char          why[WHY_MAX]; /* the first reason the file is refused, "" if none */
} Reader;

/* A dataset's rows of row_bytes each must fit in the file, checked before anything is allocated for
 * them: a forged or damaged size (3 x 2^30 bodies, a flipped bit in a length) is refused here. */
static void CheckBytes(Reader *r, const char *name, hsize_t rows, size_t row_bytes)
{
  if (r->why[0] || !row_bytes || rows <= r->file_bytes / row_bytes) return;
  snprintf(r->why, sizeof(r->why),
           "dataset %s claims %llu rows of %zu bytes, more than the file's %llu bytes (a damaged or forged size)", name,
           (unsigned long long)rows, row_bytes, (unsigned long long)r->file_bytes);
}

/* Rows split over the ranks of comm must leave each rank a count its arrays can index (PetscInt). */
static PetscErrorCode CheckRowsPerRank(MPI_Comm comm, Reader *r, const char *what, int64_t rows)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  if (r->why[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (rows / size + 1 > PETSC_MAX_INT)
    snprintf(r->why, sizeof(r->why),
             "its %" PRId64 " %s are more than %d ranks can hold (at most %d each); restart on at least %" PRId64
             " ranks",
             rows, what, size, PETSC_MAX_INT - 1, rows / (PETSC_MAX_INT - 1) + 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

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

/* The run_id attribute: RUN_ID_HEX lower-case hex digits (io/run_dir.h). */
static PetscErrorCode ReadRunId(Reader *r, Header *h)
{
  char  hex[RUN_ID_HEX + 1] = "";
  hid_t type;

  PetscFunctionBegin;
  PetscCall(RunIdType(&type));
  PetscCall(ReadScalar(r, "run_id", type, h->run_id));
  CCPDEM_H5(H5Tclose(type));
  memcpy(hex, h->run_id, RUN_ID_HEX);
  if (!r->why[0] && !RunIdValid(hex)) snprintf(r->why, sizeof(r->why), "attribute run_id is not a run id");
  PetscFunctionReturn(PETSC_SUCCESS);
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
  if (!r->why[0] && h->version != CHECKPOINT_FORMAT_VERSION && h->version != CHECKPOINT_FORMAT_VERSION_OVERRIDES) {
    snprintf(r->why, sizeof(r->why), "format version %d, but this ccpdem reads versions %d and %d", (int)h->version,
             CHECKPOINT_FORMAT_VERSION, CHECKPOINT_FORMAT_VERSION_OVERRIDES);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (size_t k = 0; k < N_HEADER_FIELDS; k++)
    PetscCall(
      ReadScalar(r, header_fields[k].name, HeaderMemType(header_fields[k].type), (char *)h + header_fields[k].offset));
  PetscCall(ReadRunId(r, h));
  PetscCall(ReadScalar(r, "checksum", H5T_NATIVE_UINT64, stored_sum));
  if (!r->why[0] && (h->step < 0 || h->bodies < 0 || h->contacts < 0 || h->walls < 0))
    snprintf(r->why, sizeof(r->why), "negative counts in its attributes");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads a replicated byte string (every rank reads all of it, at most max bytes) into a new
 * NUL-terminated buffer. */
static PetscErrorCode ReadString(MPI_Comm comm, Reader *r, const char *name, size_t max, char **out, uint64_t *sum)
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
  CheckBytes(r, name, n, 1);
  if (!r->why[0] && n > max)
    snprintf(r->why, sizeof(r->why), "dataset %s has %llu bytes, more than the %zu it may have", name,
             (unsigned long long)n, max);
  if (r->why[0]) PetscFunctionReturn(PETSC_SUCCESS);
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
  CheckBytes(r, "/walls/center", (hsize_t)nw, 3 * sizeof(double));
  if (r->why[0]) PetscFunctionReturn(PETSC_SUCCESS);
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
  CheckBytes(r, "/layout/emitted", r->n_emitted, sizeof(int64_t));
  if (r->why[0]) PetscFunctionReturn(PETSC_SUCCESS);
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
  CheckBytes(r, "/layout/rows_per_rank", n, 2 * sizeof(int64_t));
  if (r->why[0]) PetscFunctionReturn(PETSC_SUCCESS);
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
  if (H5Fget_filesize(r->file, &r->file_bytes) < 0) snprintf(r->why, sizeof(r->why), "its size cannot be read");
  PetscCall(ReadHeader(r, &h, &stored));
  PetscCall(ReadString(comm, r, "/scenario/text", SCENARIO_TEXT_MAX, &r->text, &local));
  PetscCall(ReadString(comm, r, "/scenario/path", SCENARIO_PATH_MAX - 1, &r->spath, &local));
  if (!r->why[0]) { /* /scenario/overrides in version 7 only, and there always */
    const PetscBool has = (PetscBool)(H5Lexists(r->file, "/scenario/overrides", H5P_DEFAULT) > 0);
    if (has != (h.version == CHECKPOINT_FORMAT_VERSION_OVERRIDES))
      snprintf(r->why, sizeof(r->why), "format version %d %s /scenario/overrides (version %d, and only it, has it)",
               (int)h.version, has ? "but a dataset" : "but no dataset", CHECKPOINT_FORMAT_VERSION_OVERRIDES);
    else if (has) PetscCall(ReadString(comm, r, "/scenario/overrides", SCENARIO_TEXT_MAX, &r->overrides, &local));
  }
  PetscCall(CheckRows(r, "/walls/center", h.walls));
  PetscCall(CheckRows(r, "/bodies/id", h.bodies));
  PetscCall(CheckRows(r, "/contacts/ida", h.contacts));
  CheckBytes(r, "/bodies", (hsize_t)h.bodies, BODY_ROW_BYTES);
  CheckBytes(r, "/contacts", (hsize_t)h.contacts,
             2 * sizeof(int64_t) + sizeof(int32_t) +
               sizeof(double) *
                 (H5Lexists(r->file, "/contacts/history", H5P_DEFAULT) > 0 ? PENALTY_HISTORY_WIDTH : CCP_RECORD_WIDTH));
  PetscCall(CheckRowsPerRank(comm, r, "bodies", h.bodies));
  PetscCall(CheckRowsPerRank(comm, r, "contact records", h.contacts));
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
  PetscCall(PetscFree(r->overrides));
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
  memcpy(st->run_id.hex, r->header.run_id, RUN_ID_HEX);
  st->run_id.hex[RUN_ID_HEX] = 0;
  st->bodies_total           = r->header.bodies;
  st->n_walls                = r->header.walls;
  st->wall_centers           = r->centers;
  st->scenario_text          = r->text;
  st->scenario_path          = r->spath;
  st->scenario_overrides     = r->overrides;
  st->cuts                   = r->cuts;
  st->n_emitters             = (int64_t)r->n_emitted;
  st->emitted                = r->emitted;
  for (int k = 0; k < 3; k++) st->grid[k] = r->grid[k];
  r->centers = r->cuts = NULL;
  r->text = r->spath = r->overrides = NULL;
  r->emitted                        = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An error while reading (an HDF5 call that fails on a damaged file) is a refusal of the file: its
 * first message becomes the reason, and the readers return quietly. */
static PetscErrorCode KeepReadError(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n,
                                    PetscErrorType p, const char *mess, void *ctx)
{
  Reader *r = (Reader *)ctx;

  (void)comm, (void)line, (void)fun, (void)file;
  if (p == PETSC_ERROR_INITIAL && !r->why[0])
    snprintf(r->why, sizeof(r->why), "it cannot be read (%s)", mess && mess[0] ? mess : "an HDF5 call failed");
  return n;
}

/* ReadAll with HDF5's error printing off and its failures kept as the reason to refuse the file
 * (but running out of memory is an error); the ranks agree on the refusal. */
static PetscErrorCode ReadAllRefusing(MPI_Comm comm, const char *file, Reader *r)
{
  H5E_auto2_t    old_func;
  void          *old_data;
  PetscErrorCode ierr;
  int            bad, any_bad;

  PetscFunctionBegin;
  CCPDEM_H5(H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data));
  CCPDEM_H5(H5Eset_auto2(H5E_DEFAULT, NULL, NULL));
  PetscCall(PetscPushErrorHandler(KeepReadError, r));
  ierr = ReadAll(comm, file, r);
  PetscCall(PetscPopErrorHandler());
  CCPDEM_H5(H5Eset_auto2(H5E_DEFAULT, old_func, old_data));
  PetscCheck(ierr != PETSC_ERR_MEM, PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of memory while reading %s", file);
  if (ierr && !r->why[0]) snprintf(r->why, sizeof(r->why), "it cannot be read");
  bad = r->why[0] != 0;
  PetscCallMPI(MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, comm));
  if (any_bad && !bad) snprintf(r->why, sizeof(r->why), "another rank could not read it");
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
  PetscCall(ReadAllRefusing(comm, file, &r));
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
  PetscCall(PetscFree(st->scenario_overrides));
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
