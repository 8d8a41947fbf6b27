// ctest: labels=restart timeout=120
/* Checkpoints: bitwise continuation and refusal of bad files.
 *  1. A 300-sphere pile with rolling friction (6-dof contacts), a box wall moving into it and APGD
 *     capped at 40 iterations (most steps do not converge and change their warm start, so the
 *     warm-start decay path is taken and its flag restored)
 *     runs 200 steps in one go; a second copy runs 100 steps, writes a checkpoint, and a simulation
 *     read back from it (SimulationCreateFromCheckpoint) runs the other 100. Every body field, the contact memory,
 *     the wall centres, step, time and counters must be bitwise equal (memcmp): continuing from a
 *     checkpoint must not change a single bit of the result at one rank; the run id (drawn at the
 *     first checkpoint) comes back with it.
 *  2. Refusals, each with err set to one line and no simulation: a missing file, a file that is not
 *     HDF5, a snapshot, a checkpoint truncated to half its size, and copies of a checkpoint with one
 *     byte flipped in each of its datasets (the middle byte of its data, found with H5Dget_offset,
 *     independent of the writer; every dataset the file holds, found by walking its groups, so a
 *     dataset added later is covered too) and one bit flipped in each root attribute. Each must be
 *     caught by the checksum ("checksum mismatch"), except where a check that runs before it sees
 *     the change: the counts (attributes bodies, contacts, walls against the datasets' rows;
 *     /layout/rows_per_rank against them), the format version, and /layout/grid (against the
 *     number of cuts). Three checkpoints are walked: the pile's (CCP impulses), a penalty pour's
 *     (/contacts/history) and tests/restart/pour.yaml's after 20 steps (a non-empty
 *     /layout/emitted); a dataset without data (an empty /layout/emitted) is reported and skipped.
 *     Two changes that cancel in a plain sum of FNV-1a row hashes (bit 4 of /bodies/id set in one
 *     row and cleared in another) must be refused as well. Files with a valid checksum whose body
 *     fields ccpdem would never write (a material index beyond the scenario's, a negative mass, a
 *     quaternion off unit length) are refused by the reader's field checks, naming the body.
 *     Format versions: a penalty pour's checkpoint relabelled format 3 (its history had 24 doubles
 *     then) is refused naming the version, before its checksum is looked at.
 *  3. Rotation: with -checkpoint_keep 2 only the two newest checkpoints remain, and no temporary.
 * Prints the bytes per sphere of a checkpoint. */
#define _GNU_SOURCE
#include "test_util.h"
#include "io/checkpoint.h"
#include "io/snapshot.h"
#include "io/h5.h"
#include "test_penalty_pour.h"
#include <dirent.h>
#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char pile[] =
  "domain: {min: [-0.5, -0.5, -0.1], max: [0.5, 0.5, 1.0]}\n"
  "gravity: [0, 0, -9.81]\n"
  "time: {step: 0.002, end: 0.4}\n"
  "contact: {model: ccp, envelope: 0.002, max_recovery_speed: 0.5}\n"
  "solver: {type: apgd, max_iterations: 40, tolerance: 1.0e-5}\n"
  "materials:\n"
  "  - {name: grit, density: 2000, friction: 0.5, rolling_friction: 0.002, spinning_friction: 0.002}\n"
  "walls:\n"
  "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: grit}\n"
  "  - {type: box, center: [-0.2, 0, 0.04], half_extents: [0.02, 0.15, 0.04], material: grit, velocity: [0.25, 0, 0]}\n"
  "fills:\n"
  "  - {type: random, region: {min: [-0.1, -0.1, 0.01], max: [0.1, 0.1, 0.2]}, radius: 0.01, count: 300, seed: 3, "
  "material: grit}\n"
  "output: {dir: out, snapshot_interval: 0.1}\n";

static int RemoveEntry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

static PetscErrorCode Steps(Simulation sim, int n)
{
  PetscFunctionBegin;
  for (int i = 0; i < n; i++) PetscCall(SimulationStep(sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void CompareSimulations(Simulation a, Simulation b)
{
  const BodyStore *x = SimulationBodies(a), *y = SimulationBodies(b);
  const double     ta = SimulationTime(a), tb = SimulationTime(b);

  CHECK(SimulationStepCount(a) == SimulationStepCount(b) && !memcmp(&ta, &tb, sizeof(double)),
        "step/time differ: %" PetscInt64_FMT "/%.17g vs %" PetscInt64_FMT "/%.17g", SimulationStepCount(a),
        SimulationTime(a), SimulationStepCount(b), SimulationTime(b));
  CHECK(SimulationRemoved(a) == SimulationRemoved(b) && SimulationNextId(a) == SimulationNextId(b),
        "removed/next_id differ");
  CHECK(x->n_owned == y->n_owned, "body counts differ: %" PetscInt_FMT " vs %" PetscInt_FMT, x->n_owned, y->n_owned);
  if (x->n_owned != y->n_owned) return;
    /* Exact equality: the restart replays the same floating-point operations in the same order. */
#define CMP_FIELD(type, name, width) \
  CHECK(!memcmp(x->name, y->name, sizeof(type) * (width) * (size_t)x->n_owned), \
        "body field %s differs after the restart", #name);
  BODY_FIELDS(CMP_FIELD)
#undef CMP_FIELD
  CHECK(SimulationMemory(a)->n == SimulationMemory(b)->n,
        "contact memory sizes differ: %" PetscInt_FMT " vs %" PetscInt_FMT, SimulationMemory(a)->n,
        SimulationMemory(b)->n);
  if (SimulationMemory(a)->n == SimulationMemory(b)->n) {
    int same_keys = 1;
    for (PetscInt i = 0; i < SimulationMemory(a)->n; i++)
      same_keys &= SimulationMemory(a)->key[i].ida == SimulationMemory(b)->key[i].ida &&
                   SimulationMemory(a)->key[i].idb == SimulationMemory(b)->key[i].idb &&
                   SimulationMemory(a)->key[i].sub == SimulationMemory(b)->key[i].sub;
    CHECK(same_keys, "contact memory keys differ");
    CHECK(!memcmp(SimulationMemory(a)->gamma, SimulationMemory(b)->gamma,
                  sizeof(double) * SimulationMemory(a)->width * SimulationMemory(a)->n),
          "contact memory records differ");
  }
  for (int k = 0; k < SimulationScenario(a)->n_walls; k++)
    CHECK(!memcmp(SimulationWalls(a)[k].center, SimulationWalls(b)[k].center, 3 * sizeof(double)),
          "wall %d centre differs", k);
  CHECK(SimulationLastStep(a)->keep_impulses == SimulationLastStep(b)->keep_impulses,
        "last keep_impulses flag differs");
}

static PetscErrorCode CopyFile(const char *from, const char *to, long keep_bytes)
{
  FILE  *in, *out;
  char   buf[65536];
  long   total = 0;
  size_t n;

  PetscFunctionBegin;
  in  = fopen(from, "rb");
  out = fopen(to, "wb");
  PetscCheck(in && out, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot copy %s to %s", from, to);
  while ((n = fread(buf, 1, sizeof(buf), in)) > 0) {
    if (keep_bytes >= 0 && total + (long)n > keep_bytes) n = (size_t)(keep_bytes - total);
    PetscCheck(fwrite(buf, 1, n, out) == n, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "write %s", to);
    total += (long)n;
    if (keep_bytes >= 0 && total >= keep_bytes) break;
  }
  fclose(in);
  PetscCheck(fclose(out) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "close %s", to);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FlipByte(const char *file, long offset)
{
  FILE *fp = fopen(file, "r+b");
  int   c;

  PetscFunctionBegin;
  PetscCheck(fp && offset >= 0 && fseek(fp, offset, SEEK_SET) == 0 && (c = fgetc(fp)) != EOF, PETSC_COMM_SELF,
             PETSC_ERR_FILE_READ, "cannot flip byte %ld of %s", offset, file);
  fseek(fp, offset, SEEK_SET);
  fputc(c ^ 0x10, fp);
  PetscCheck(fclose(fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "close %s", file);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Relabel a checkpoint as format `version`. */
static PetscErrorCode SetVersion(const char *file, int32_t version)
{
  hid_t f, a;

  PetscFunctionBegin;
  f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
  PetscCheck(f >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open %s", file);
  a = H5Aopen(f, "ccpdem_checkpoint_version", H5P_DEFAULT);
  PetscCheck(a >= 0 && H5Awrite(a, H5T_NATIVE_INT32, &version) >= 0 && H5Aclose(a) >= 0 && H5Fclose(f) >= 0,
             PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot relabel %s", file);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The file must be refused: no simulation, a one-line message containing `expect`. */
static PetscErrorCode ExpectRefused(const char *what, const char *file, const char *expect)
{
  Simulation sim                   = NULL;
  char       err[SCENARIO_ERR_MAX] = "";

  PetscFunctionBegin;
  PetscCall(SimulationCreateFromCheckpoint(PETSC_COMM_WORLD, file, &sim, err, sizeof(err)));
  CHECK(!sim && err[0], "%s: accepted", what);
  CHECK(!strchr(err, '\n'), "%s: message is not one line: %s", what, err);
  CHECK(strstr(err, expect) != NULL, "%s: message lacks '%s': %s", what, expect, err);
  printf("  refused %-28s %s\n", what, err);
  if (sim) PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The datasets below group `group` of f, recursively, appended to names[*n] (at most max). */
static PetscErrorCode ListDatasets(hid_t f, const char *group, char names[][128], int max, int *n)
{
  hid_t      g = H5Gopen2(f, group, H5P_DEFAULT);
  H5G_info_t info;

  PetscFunctionBegin;
  PetscCheck(g >= 0 && H5Gget_info(g, &info) >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "cannot list group %s", group);
  for (hsize_t i = 0; i < info.nlinks; i++) {
    char  link[64], full[128];
    hid_t o;
    PetscCheck(H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, link, sizeof(link), H5P_DEFAULT) > 0,
               PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "cannot name link %d of %s", (int)i, group);
    PetscCall(PetscSNPrintf(full, sizeof(full), "%s/%s", strcmp(group, "/") ? group : "", link));
    o = H5Oopen(f, full, H5P_DEFAULT);
    PetscCheck(o >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "cannot open %s", full);
    if (H5Iget_type(o) == H5I_GROUP) PetscCall(ListDatasets(f, full, names, max, n));
    else if (H5Iget_type(o) == H5I_DATASET) {
      PetscCheck(*n < max, PETSC_COMM_SELF, PETSC_ERR_PLIB, "more than %d datasets", max);
      PetscCall(PetscStrncpy(names[(*n)++], full, 128));
    }
    PetscCheck(H5Oclose(o) >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "cannot close %s", full);
  }
  PetscCheck(H5Gclose(g) >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "cannot close group %s", group);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The file offset of the middle byte of dataset name's data, -1 if it has none. */
static long MiddleByte(const char *file, const char *name)
{
  hid_t   f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, name, H5P_DEFAULT);
  haddr_t off  = H5Dget_offset(d);
  hsize_t size = H5Dget_storage_size(d);
  H5Dclose(d);
  H5Fclose(f);
  return off == HADDR_UNDEF || size == 0 ? -1 : (long)off + (long)(size / 2);
}

/* Flips bit 4 of the first byte (little-endian: the low byte) of two rows of the int64 dataset name:
 * the first row whose bit is clear and the first whose bit is set, so one row's value goes up by 16
 * and the other's down by 16 (a damage that cancels in a sum of hashes affine in the row's bytes). */
static PetscErrorCode FlipBitInTwoRows(const char *file, const char *name)
{
  hid_t    f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, name, H5P_DEFAULT), sp = H5Dget_space(d);
  hssize_t n   = H5Sget_simple_extent_npoints(sp);
  haddr_t  off = H5Dget_offset(d);
  int64_t *v;
  long     clear = -1, set = -1;

  PetscFunctionBegin;
  PetscCheck(f >= 0 && d >= 0 && n > 0 && off != HADDR_UNDEF, PETSC_COMM_SELF, PETSC_ERR_FILE_READ,
             "cannot read %s of %s", name, file);
  PetscCall(PetscMalloc1(n, &v));
  PetscCheck(H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ,
             "cannot read %s of %s", name, file);
  for (long k = 0; k < n; k++) {
    if (clear < 0 && !(v[k] & 0x10)) clear = k;
    if (set < 0 && (v[k] & 0x10)) set = k;
  }
  PetscCall(PetscFree(v));
  H5Sclose(sp);
  H5Dclose(d);
  H5Fclose(f);
  PetscCheck(clear >= 0 && set >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s of %s: no two rows differ in bit 4", name,
             file);
  PetscCall(FlipByte(file, (long)off + 8 * clear));
  PetscCall(FlipByte(file, (long)off + 8 * set));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static herr_t AddAttributeName(hid_t loc, const char *name, const H5A_info_t *info, void *ctx)
{
  char(*names)[64] = (char(*)[64])((void **)ctx)[0];
  int *n           = (int *)((void **)ctx)[1];
  (void)loc;
  (void)info;
  if (*n >= 16) return -1;
  snprintf(names[(*n)++], 64, "%s", name);
  return 0;
}

/* Flip the lowest bit of root attribute name (its first byte: the values are little-endian; a string's
 * first character to its neighbouring hex digit). */
static PetscErrorCode FlipAttribute(const char *file, const char *name)
{
  hid_t         f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT), a = H5Aopen(f, name, H5P_DEFAULT), t = H5Aget_type(a);
  unsigned char v[64]; /* the largest attribute: the run id, 32 hex digits and a NUL */

  PetscFunctionBegin;
  PetscCheck(f >= 0 && a >= 0 && t >= 0 && H5Tget_size(t) <= sizeof(v) && H5Aread(a, t, v) >= 0, PETSC_COMM_SELF,
             PETSC_ERR_FILE_READ, "cannot read attribute %s of %s", name, file);
  if (H5Tget_class(t) == H5T_STRING) /* the run id: another hex digit, so the checksum is what refuses it */
    v[0] = (unsigned char)(v[0] <= '9' ? v[0] ^ 1 : 'a' + ((v[0] - 'a') ^ 1));
  else v[0] ^= 1;
  PetscCheck(H5Awrite(a, t, v) >= 0 && H5Tclose(t) >= 0 && H5Aclose(a) >= 0 && H5Fclose(f) >= 0, PETSC_COMM_SELF,
             PETSC_ERR_FILE_WRITE, "cannot write attribute %s of %s", name, file);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What the reader must say about a checkpoint whose dataset or attribute `name` was changed: a
 * check that runs before the checksum sees the counts, the version and the grid; the checksum
 * everything else. */
static const char *ExpectedRefusal(const char *name)
{
  static const struct {
    const char *name, *message;
  } before[] = {{"bodies", "rows but the attributes say"},         {"contacts", "rows but the attributes say"},
                {"walls", "rows but the attributes say"},          {"ccpdem_checkpoint_version", "format version"},
                {"/layout/rows_per_rank", "rows per rank add up"}, {"/layout/grid", "rows, not the"}};
  for (size_t k = 0; k < sizeof(before) / sizeof(before[0]); k++)
    if (!strcmp(name, before[k].name)) return before[k].message;
  return "checksum mismatch";
}

/* Copies of checkpoint `path` (in dir, named after label) with one byte flipped in each dataset
 * and one bit in each root attribute, each of which must be refused (ExpectedRefusal). Counts the
 * datasets and attributes changed into *datasets and *attributes. */
static PetscErrorCode CorruptEach(const char *dir, const char *path, const char *label, int *datasets, int *attributes)
{
  char  names[64][128], attrs[16][64], bad[PETSC_MAX_PATH_LEN + 64], what[256];
  int   n = 0, na = 0;
  hid_t f      = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  void *ctx[2] = {attrs, &na};

  PetscFunctionBegin;
  PetscCheck(f >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open %s", path);
  PetscCall(ListDatasets(f, "/", names, 64, &n));
  PetscCheck(H5Aiterate2(f, H5_INDEX_NAME, H5_ITER_INC, NULL, AddAttributeName, ctx) >= 0, PETSC_COMM_SELF,
             PETSC_ERR_FILE_READ, "cannot list the attributes of %s", path);
  PetscCheck(H5Fclose(f) >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "cannot close %s", path);
  *datasets = *attributes = 0;
  PetscCall(PetscSNPrintf(bad, sizeof(bad), "%s/flipped-%s.h5", dir, label));
  for (int k = 0; k < n; k++) {
    PetscCall(CopyFile(path, bad, -1));
    if (MiddleByte(bad, names[k]) < 0) {
      printf("  %s: %s holds no data, not flipped\n", label, names[k]);
      continue;
    }
    PetscCall(FlipByte(bad, MiddleByte(bad, names[k])));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s: byte flipped in %s", label, names[k]));
    PetscCall(ExpectRefused(what, bad, ExpectedRefusal(names[k])));
    (*datasets)++;
  }
  for (int k = 0; k < na; k++) {
    PetscCall(CopyFile(path, bad, -1));
    PetscCall(FlipAttribute(bad, attrs[k]));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s: bit flipped in attribute %s", label, attrs[k]));
    PetscCall(ExpectRefused(what, bad, ExpectedRefusal(attrs[k])));
    (*attributes)++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CountCheckpointFiles(const char *dir, int *temporaries)
{
  DIR           *d = opendir(dir);
  struct dirent *e;
  int            n = 0;

  *temporaries = 0;
  if (!d) return -1;
  while ((e = readdir(d))) {
    if (!strncmp(e->d_name, "ckpt-", 5)) n++;
    if (strstr(e->d_name, ".tmp")) (*temporaries)++;
  }
  closedir(d);
  return n;
}

int main(int argc, char **argv)
{
  Simulation ref, first, restarted = NULL;
  char       dir[] = "/tmp/ccpdem_test_checkpoint_XXXXXX", path[PETSC_MAX_PATH_LEN], bad[PETSC_MAX_PATH_LEN + 32],
       err[SCENARIO_ERR_MAX] = "";
  struct stat st;
  int         tmps, unconverged = 0, decayed = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsSetValue(NULL, "-checkpoint_keep", "2"));
  if (!mkdtemp(dir)) {
    printf("FAIL: cannot create a temporary directory\n");
    return 1;
  }

  /* 1. bitwise continuation */
  PetscCall(TestSimulationFromText(pile, &ref));
  PetscCall(TestSimulationFromText(pile, &first));
  for (int i = 0; i < 200; i++) {
    PetscCall(SimulationStep(ref));
    unconverged += !SimulationLastStep(ref)->converged;
    decayed += !SimulationLastStep(ref)->keep_impulses;
  }
  printf("reference: 200 steps, %d not converged, %d decayed, %" PetscInt_FMT " bodies, %" PetscInt_FMT
         " contacts remembered\n",
         unconverged, decayed, SimulationBodies(ref)->n_owned, SimulationMemory(ref)->n);
  CHECK(decayed > 20, "only %d steps decayed their warm start: the decay path is not exercised", decayed);
  PetscCall(Steps(first, 100));
  CHECK(!SimulationLastStep(first)->keep_impulses,
        "step 100 keeps its impulses: the checkpoint does not exercise the decay flag");
  PetscCall(SimulationWriteCheckpoint(first, dir, path, sizeof(path), err, sizeof(err)));
  CHECK(!err[0], "checkpoint not written: %s", err);
  CHECK(stat(path, &st) == 0, "checkpoint %s missing", path);
  printf("checkpoint %s: %lld bytes for %" PetscInt_FMT " spheres and %" PetscInt_FMT
         " contacts = %.1f bytes per sphere (contacts and scenario included)\n",
         path, (long long)st.st_size, SimulationBodies(first)->n_owned, SimulationMemory(first)->n,
         (double)st.st_size / SimulationBodies(first)->n_owned);
  PetscCall(SimulationCreateFromCheckpoint(PETSC_COMM_WORLD, path, &restarted, err, sizeof(err)));
  CHECK(restarted && !err[0], "SimulationCreateFromCheckpoint refused its own checkpoint: %s", err);
  if (restarted) {
    CHECK(RunIdValid(SimulationRunId(first)->hex) &&
            !strcmp(SimulationRunId(first)->hex, SimulationRunId(restarted)->hex),
          "the restarted simulation's run id '%s' is not the checkpoint's '%s'", SimulationRunId(restarted)->hex,
          SimulationRunId(first)->hex);
    CompareSimulations(first, restarted); /* the state as read */
    PetscCall(Steps(restarted, 100));
    CompareSimulations(ref, restarted);
    printf("restart after 100 steps + 100 more vs 200 in one go: %s\n", failures ? "DIFFERENT" : "bitwise identical");
  }

  /* 2. refusals */
  PetscCall(PetscSNPrintf(bad, sizeof(bad), "%s/missing.h5", dir));
  PetscCall(ExpectRefused("missing file", bad, "cannot open"));
  PetscCall(PetscSNPrintf(bad, sizeof(bad), "%s/text.h5", dir));
  {
    FILE *fp = fopen(bad, "w");
    fputs("this is not HDF5\n", fp);
    fclose(fp);
  }
  PetscCall(ExpectRefused("not HDF5", bad, "not an HDF5 file"));
  PetscCall(
    SnapshotWrite(PETSC_COMM_WORLD, dir, 100, SimulationTime(first), SimulationBodies(first), NULL, err, sizeof(err)));
  PetscCall(PetscSNPrintf(bad, sizeof(bad), "%s/snapshots/snap-000100.h5", dir));
  PetscCall(ExpectRefused("snapshot", bad, "snapshot"));
  PetscCall(PetscSNPrintf(bad, sizeof(bad), "%s/truncated.h5", dir));
  PetscCall(CopyFile(path, bad, (long)st.st_size / 2));
  PetscCall(ExpectRefused("truncated to half", bad, "truncated"));
  {
    int nd, na;
    PetscCall(CorruptEach(dir, path, "pile", &nd, &na));
    printf("pile checkpoint: %d datasets and %d attributes changed one at a time, each refused\n", nd, na);
    PetscCall(PetscSNPrintf(bad, sizeof(bad), "%s/two-rows.h5", dir));
    PetscCall(CopyFile(path, bad, -1));
    PetscCall(FlipBitInTwoRows(bad, "/bodies/id"));
    PetscCall(
      ExpectRefused("pile: bit 4 flipped up in one row of /bodies/id and down in another", bad, "checksum mismatch"));
    CHECK(nd >= 20 && na == 11, "the pile's checkpoint: %d datasets and %d attributes changed, expected >= 20 and 11",
          nd, na);
  }

  /* the penalty model's history, the emitters' state; format versions */
  {
    Simulation pour;
    char       pdir[PETSC_MAX_PATH_LEN + 16], ppath[PETSC_MAX_PATH_LEN], scen[PETSC_MAX_PATH_LEN + 32];
    int        nd, na;
    Scenario   sc;
    PetscCall(PetscSNPrintf(pdir, sizeof(pdir), "%s/pour", dir));
    PetscCall(TestSimulationFromText(PENALTY_POUR_SCENARIO "output: {dir: out, snapshot_interval: 1}\n", &pour));
    PetscCall(Steps(pour, 20));
    PetscCall(SimulationWriteCheckpoint(pour, pdir, ppath, sizeof(ppath), err, sizeof(err)));
    PetscCall(SimulationDestroy(&pour));
    PetscCall(CorruptEach(dir, ppath, "penalty", &nd, &na));
    CHECK(nd >= 20 && na == 11, "the penalty checkpoint: %d datasets and %d attributes changed, expected >= 20 and 11",
          nd, na);
    PetscCall(SetVersion(ppath, 3));
    PetscCall(ExpectRefused("penalty checkpoint of format 3", ppath, "format version 3"));

    PetscCall(PetscSNPrintf(scen, sizeof(scen), "%s/tests/restart/pour.yaml", CCPDEM_SOURCE_DIR));
    CHECK(!scenario_load_file(scen, &sc, err, sizeof(err)), "%s rejected: %s", scen, err);
    PetscCall(SimulationCreate(PETSC_COMM_WORLD, &sc, &pour, err, sizeof(err)));
    PetscCall(Steps(pour, 20));
    PetscCall(PetscSNPrintf(pdir, sizeof(pdir), "%s/emit", dir));
    PetscCall(SimulationWriteCheckpoint(pour, pdir, ppath, sizeof(ppath), err, sizeof(err)));
    CHECK(SimulationEmitted(pour, 0) > 0, "the pour emitted nothing in 20 steps");
    PetscCall(SimulationDestroy(&pour));
    PetscCall(CorruptEach(dir, ppath, "emitter", &nd, &na));
    CHECK(nd >= 21 && na == 11,
          "the emitter's checkpoint: %d datasets and %d attributes changed, expected >= 21 and 11", nd, na);
  }

  /* 2b. consistent files that ccpdem would not write: a body field changed in memory before the
   * write, so the checksum matches; the reader's field checks must refuse each. */
  {
    BodyStore *bs = SimulationBodies(first);
    char       fdir[PETSC_MAX_PATH_LEN], fpath[PETSC_MAX_PATH_LEN];
    int32_t    material = bs->material[3];
    double     mass = bs->mass[3], q0 = bs->quat[4 * 3];

    PetscCall(PetscSNPrintf(fdir, sizeof(fdir), "%s/forged", dir));
    bs->material[3] = 7; /* the pile has one material */
    PetscCall(SimulationWriteCheckpoint(first, fdir, fpath, sizeof(fpath), err, sizeof(err)));
    bs->material[3] = material;
    PetscCall(ExpectRefused("material index 7 of 1 material", fpath, "material index is not one of"));
    bs->mass[3] = -mass;
    PetscCall(SimulationWriteCheckpoint(first, fdir, fpath, sizeof(fpath), err, sizeof(err)));
    bs->mass[3] = mass;
    PetscCall(ExpectRefused("negative mass", fpath, "mass is not a positive finite number"));
    bs->quat[4 * 3] = q0 + 0.5;
    PetscCall(SimulationWriteCheckpoint(first, fdir, fpath, sizeof(fpath), err, sizeof(err)));
    bs->quat[4 * 3] = q0;
    PetscCall(ExpectRefused("a quaternion of norm > 1", fpath, "not a unit quaternion"));
  }

  /* 3. rotation: steps 100 (above), 110, 120 -> keep 110 and 120 */
  PetscCall(Steps(first, 10));
  PetscCall(SimulationWriteCheckpoint(first, dir, NULL, 0, err, sizeof(err)));
  PetscCall(Steps(first, 10));
  PetscCall(SimulationWriteCheckpoint(first, dir, NULL, 0, err, sizeof(err)));
  {
    char ckdir[PETSC_MAX_PATH_LEN], p110[PETSC_MAX_PATH_LEN + 32], p120[PETSC_MAX_PATH_LEN + 32];
    PetscCall(PetscSNPrintf(ckdir, sizeof(ckdir), "%s/checkpoints", dir));
    PetscCall(PetscSNPrintf(p110, sizeof(p110), "%s/ckpt-000110.h5", ckdir));
    PetscCall(PetscSNPrintf(p120, sizeof(p120), "%s/ckpt-000120.h5", ckdir));
    CHECK(CountCheckpointFiles(ckdir, &tmps) == 2 && tmps == 0,
          "expected exactly 2 checkpoints and no temporaries after keep=2 rotation, got %d and %d",
          CountCheckpointFiles(ckdir, &tmps), tmps);
    CHECK(access(p110, F_OK) == 0 && access(p120, F_OK) == 0,
          "the newest two checkpoints (110, 120) are not the ones kept");
  }

  PetscCall(SimulationDestroy(&ref));
  PetscCall(SimulationDestroy(&first));
  PetscCall(SimulationDestroy(&restarted));
  nftw(dir, RemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
  PetscCall(PetscFinalize());
  return TestFinish("test_checkpoint");
}
