// ctest: timeout=60 ranks=3
/* Safe output files (io/output_file.h, io/run_dir.h, io/h5.h IoH5Output), at any rank count:
 *  1. Temporary names: two for the same file differ, have the form DIR/.NAME.<pid>-<16 hex>.tmp,
 *     and are recognised as temporaries (as are the fixed .NAME.tmp of earlier versions).
 *  2. Exclusive creation (rank 0): a symbolic link to a victim, a dangling link and a regular file
 *     at the name are all refused (EEXIST or ELOOP) and left as they were: the victim keeps its
 *     bytes, the dangling link's target is not created.
 *  3. A text file (IoText) appears under its final name only when committed, replacing a link
 *     there rather than writing through it; one that fails (its stream on /dev/full: ENOSPC)
 *     leaves neither a final file nor a temporary.
 *  4. A run directory: RunDirInspect lists ccpdem's names (a link counts), RunDirClear without
 *     `all` removes only writers' temporaries, with `all` the run's files (a link removed, not
 *     followed) and nothing that is not ccpdem's.
 *  5. An HDF5 output file whose writes fail on the last rank only (-io_fail_after_bytes with
 *     -io_fail_rank) fails on every rank with the same line naming the file and ENOSPC, and leaves
 *     neither the file nor a temporary; the same file without the fault is written whole. */
#define _GNU_SOURCE /* mkdtemp, nftw */
#include <petscsys.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "io/fault.h"
#include "io/h5.h"
#include "io/output_file.h"
#include "io/run_dir.h"
#include "test_check.h"
#include "test_files.h"

static void WriteFile(const char *path, const char *text)
{
  FILE *fp = fopen(path, "w");
  CHECK(fp && fputs(text, fp) >= 0 && fclose(fp) == 0, "cannot write %s", path);
}

/* Whether path holds exactly text. */
static PetscBool Holds(const char *path, const char *text)
{
  char   buf[256] = "";
  FILE  *fp       = fopen(path, "r");
  size_t n        = fp ? fread(buf, 1, sizeof(buf) - 1, fp) : 0;

  if (fp) fclose(fp);
  buf[n] = 0;
  return (PetscBool)(fp && !strcmp(buf, text));
}

static void TempNames(const char *base)
{
  char      path[PETSC_MAX_PATH_LEN], a[PETSC_MAX_PATH_LEN], b[PETSC_MAX_PATH_LEN];
  long      pid;
  unsigned  hex_len;
  PetscBool distinct;

  TestJoinPath(path, base, "snap-000010.h5");
  CHECK(IoTempName(path, a, sizeof(a)) == 0 && IoTempName(path, b, sizeof(b)) == 0, "IoTempName failed");
  distinct = (PetscBool)(strcmp(a, b) != 0);
  CHECK(distinct, "two temporary names of %s are the same: %s", path, a);
  hex_len = 0;
  {
    int       at  = 0;
    const int got = sscanf(a + strlen(base) + 1, ".snap-000010.h5.%ld-%n", &pid, &at);
    hex_len       = got == 1 ? (unsigned)strspn(a + strlen(base) + 1 + at, "0123456789abcdef") : 0;
    CHECK(got == 1 && pid == (long)getpid() && hex_len == 16 && !strcmp(a + strlen(base) + 1 + at + 16, ".tmp"),
          "temporary name %s is not DIR/.snap-000010.h5.<pid>-<16 hex>.tmp", a);
  }
  CHECK(IoIsTempName(strrchr(a, '/') + 1, "snap-") && IoIsTempName(".ckpt-000003.h5.tmp", "ckpt-") &&
          IoIsTempName(".run.id.tmp", "run.id") && !IoIsTempName("snap-000010.h5", "snap-") &&
          !IoIsTempName(".snap-000010.h5", "snap-") && !IoIsTempName(".ckpt-000003.h5.tmp", "snap-"),
        "IoIsTempName misjudges a name");
  CHECK(IoTempName(path, a, strlen(path) + 8) == ENAMETOOLONG, "IoTempName does not refuse a short buffer");
  printf("  temporary names: distinct, %s\n", strrchr(b, '/') + 1);
}

static void Exclusive(const char *base)
{
  char victim[PETSC_MAX_PATH_LEN], ghost[PETSC_MAX_PATH_LEN], link1[PETSC_MAX_PATH_LEN], link2[PETSC_MAX_PATH_LEN],
    plain[PETSC_MAX_PATH_LEN], fresh[PETSC_MAX_PATH_LEN];
  int fd;

  TestJoinPath(victim, base, "victim");
  TestJoinPath(ghost, base, "ghost");
  TestJoinPath(link1, base, ".link.tmp");
  TestJoinPath(link2, base, ".dangling.tmp");
  TestJoinPath(plain, base, ".plain.tmp");
  TestJoinPath(fresh, base, ".fresh.tmp");
  WriteFile(victim, "victim\n");
  WriteFile(plain, "plain\n");
  CHECK(symlink(victim, link1) == 0 && symlink(ghost, link2) == 0, "cannot plant the links");
  fd = IoCreateExclusive(link1);
  CHECK(fd < 0 && (errno == EEXIST || errno == ELOOP), "a link to a file was not refused (fd %d, %s)", fd,
        strerror(errno));
  fd = IoCreateExclusive(link2);
  CHECK(fd < 0 && (errno == EEXIST || errno == ELOOP), "a dangling link was not refused (fd %d)", fd);
  fd = IoCreateExclusive(plain);
  CHECK(fd < 0 && errno == EEXIST, "an existing file was not refused (fd %d)", fd);
  CHECK(Holds(victim, "victim\n") && Holds(plain, "plain\n") && access(ghost, F_OK) != 0,
        "a refused exclusive create changed a file or created a link's target");
  fd = IoCreateExclusive(fresh);
  CHECK(fd >= 0 && close(fd) == 0, "a fresh name was not created: %s", strerror(errno));
  printf("  exclusive creation: link, dangling link and file refused and untouched; a fresh name created\n");
}

static void Text(const char *base)
{
  char   victim[PETSC_MAX_PATH_LEN], final[PETSC_MAX_PATH_LEN], failed[PETSC_MAX_PATH_LEN];
  IoText t;

  TestJoinPath(victim, base, "victim2");
  TestJoinPath(final, base, "text.txt");
  TestJoinPath(failed, base, "failed.txt");
  WriteFile(victim, "victim\n");
  CHECK(symlink(victim, final) == 0, "cannot plant a link at %s", final);
  CHECK(IoTextCreate(&t, final) == 0, "IoTextCreate: %s", strerror(t.errnum));
  CHECK(IoTextPrintf(&t, "line %d\n", 1) == 0, "IoTextPrintf failed");
  CHECK(Holds(victim, "victim\n"), "the text went through the link before its commit");
  CHECK(IoTextCommit(&t, PETSC_FALSE) == 0, "IoTextCommit: %s", strerror(t.errnum));
  {
    struct stat st;
    CHECK(lstat(final, &st) == 0 && S_ISREG(st.st_mode) && Holds(final, "line 1\n") && Holds(victim, "victim\n"),
          "the committed text did not replace the link with a file of its own");
  }
  CHECK(IoTextCreate(&t, failed) == 0, "IoTextCreate: %s", strerror(t.errnum));
  fclose(t.fp);
  t.fp = fopen("/dev/full", "w");
  (void)IoTextPrintf(&t, "%s\n", "a line that does not fit");
  CHECK(IoTextCommit(&t, PETSC_FALSE) == ENOSPC && IoTextClose(&t) == ENOSPC, "a write to a full disk was not ENOSPC");
  CHECK(access(failed, F_OK) != 0, "a failed text appeared under its final name");
  printf("  text files: a link at the final name replaced, not followed; a failed write leaves nothing\n");
}

static void RunDir(const char *base)
{
  char           dir[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN], elsewhere[PETSC_MAX_PATH_LEN], failed[256];
  RunDirContents c;
  RunId          id;

  TestJoinPath(dir, base, "run");
  TestJoinPath(elsewhere, base, "elsewhere");
  CHECK(mkdir(dir, 0777) == 0 && mkdir(elsewhere, 0777) == 0, "cannot make %s", dir);
  CHECK(RunDirInspect(dir, &c) == 0 && !c.present[0] && !c.id_valid, "an empty directory holds '%s'", c.present);
  CHECK(RunIdNew(&id) == 0 && RunIdValid(id.hex) && RunIdWrite(dir, &id) == 0, "cannot write run.id");
  TestJoinPath(path, dir, "checkpoints");
  CHECK(mkdir(path, 0777) == 0, "cannot make %s", path);
  TestJoinPath(path, dir, "checkpoints/ckpt-000010.h5");
  WriteFile(path, "ckpt\n");
  TestJoinPath(path, dir, "checkpoints/.ckpt-000020.h5.12-0011223344556677.tmp");
  WriteFile(path, "partial\n");
  TestJoinPath(path, dir, "checkpoints/notes.txt");
  WriteFile(path, "mine\n");
  TestJoinPath(path, elsewhere, "snap-000000.h5");
  WriteFile(path, "not ccpdem's\n");
  TestJoinPath(path, dir, "snapshots");
  CHECK(symlink(elsewhere, path) == 0, "cannot plant a link at %s", path);
  TestJoinPath(path, dir, ".timeseries.csv.5-0011223344556677.tmp");
  WriteFile(path, "partial\n");
  TestJoinPath(path, dir, "notes.txt");
  WriteFile(path, "mine\n");
  CHECK(RunDirInspect(dir, &c) == 0 && !strcmp(c.present, "run.id, snapshots/, checkpoints/") && c.id_valid &&
          !strcmp(c.id.hex, id.hex),
        "RunDirInspect: '%s', id %s", c.present, c.id.hex);
  CHECK(RunDirClear(dir, PETSC_FALSE, failed, sizeof(failed)) == 0, "RunDirClear (temporaries): %s", failed);
  TestJoinPath(path, dir, "checkpoints");
  CHECK(TestTemporaries(dir) == 0 && TestTemporaries(path) == 0, "temporaries left after RunDirClear");
  TestJoinPath(path, dir, "checkpoints/ckpt-000010.h5");
  CHECK(access(path, F_OK) == 0, "RunDirClear without all removed a checkpoint");
  CHECK(RunDirClear(dir, PETSC_TRUE, failed, sizeof(failed)) == 0, "RunDirClear (all): %s", failed);
  CHECK(RunDirInspect(dir, &c) == 0 && !strcmp(c.present, "checkpoints/"), "after RunDirClear: '%s'", c.present);
  TestJoinPath(path, dir, "checkpoints/notes.txt");
  CHECK(Holds(path, "mine\n"), "RunDirClear removed a file that is not ccpdem's from checkpoints/");
  TestJoinPath(path, dir, "notes.txt");
  CHECK(Holds(path, "mine\n"), "RunDirClear removed a file that is not ccpdem's");
  TestJoinPath(path, elsewhere, "snap-000000.h5");
  CHECK(Holds(path, "not ccpdem's\n"), "RunDirClear followed the link snapshots/");
  printf("  run directory: inspected, temporaries cleared, the run's files cleared, others kept, links not followed\n");
}

/* One HDF5 output file of rows int64 per rank (values rank * 1000 + i) and an attribute. */
static PetscErrorCode WriteRowsFile(MPI_Comm comm, const char *path, PetscInt rows, char *err, size_t errlen)
{
  IoH5Output  out;
  IoH5Rows    layout;
  int64_t    *v;
  const int   answer = 42;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMalloc1(rows, &v));
  for (PetscInt i = 0; i < rows; i++) v[i] = rank * 1000 + i;
  PetscCall(IoH5RowsCreate(comm, rows, &layout));
  PetscCall(IoH5OutputBegin(comm, path, &out));
  for (int pass = 0; pass < 2; pass++) {
    if (pass) PetscCall(IoH5OutputCreate(&out));
    PetscCall(IoH5WriteAttribute(&out, "answer", H5T_NATIVE_INT, &answer));
    PetscCall(IoH5CreateGroup(&out, "g"));
    PetscCall(IoH5WriteRows(&out, "/g/a", H5T_NATIVE_INT64, 1, &layout, v));
    PetscCall(IoH5WriteRows(&out, "/g/b", H5T_NATIVE_INT64, 1, &layout, v));
  }
  PetscCall(IoH5OutputFinish(&out, err, errlen));
  PetscCall(IoH5RowsDestroy(&layout));
  PetscCall(PetscFree(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Agreement(MPI_Comm comm, const char *base)
{
  char        path[PETSC_MAX_PATH_LEN], err[1024], fail_rank[16], expect[PETSC_MAX_PATH_LEN + 64];
  PetscMPIInt rank, size;
  int         same, all_same;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  TestJoinPath(path, base, "rows.h5");
  /* 1000 rows of 8 bytes per rank: the last rank's budget of 4000 bytes runs out in /g/a */
  snprintf(fail_rank, sizeof(fail_rank), "%d", size - 1);
  PetscCall(PetscOptionsSetValue(NULL, "-io_fail_after_bytes", "4000"));
  PetscCall(PetscOptionsSetValue(NULL, "-io_fail_rank", fail_rank));
  PetscCall(IoFaultSetFromOptions(comm));
  PetscCall(WriteRowsFile(comm, path, 1000, err, sizeof(err)));
  snprintf(expect, sizeof(expect), "writing %s: No space left on device", path);
  CHECK(!strcmp(err, expect), "rank %d: the failure reads '%s', not '%s'", rank, err, expect);
  {
    char root[sizeof(err)];
    PetscCall(PetscStrncpy(root, err, sizeof(root)));
    PetscCallMPI(MPI_Bcast(root, sizeof(root), MPI_CHAR, 0, comm));
    same = !strcmp(root, err);
    PetscCallMPI(MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_LAND, comm));
    CHECK(all_same, "rank %d: the ranks report different failures", rank);
  }
  if (rank == 0)
    CHECK(access(path, F_OK) != 0 && TestTemporaries(base) == 0, "a failed write left %s or a temporary", path);
  PetscCall(PetscOptionsClearValue(NULL, "-io_fail_after_bytes"));
  PetscCall(PetscOptionsClearValue(NULL, "-io_fail_rank"));
  PetscCall(IoFaultSetFromOptions(comm));
  PetscCall(WriteRowsFile(comm, path, 1000, err, sizeof(err)));
  CHECK(!err[0], "rank %d: the write without a fault failed: %s", rank, err);
  if (rank == 0) {
    struct stat st;
    CHECK(stat(path, &st) == 0 && (size_t)st.st_size > 2 * 8000 * (size_t)size && TestTemporaries(base) == 0,
          "the file written without a fault is missing or short, or a temporary is left");
    printf("  HDF5 output on %d rank(s): a failure on rank %d is every rank's, nothing left; written whole without\n",
           size, size - 1);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  PetscMPIInt rank;
  char        base[PETSC_MAX_PATH_LEN], h5dir[PETSC_MAX_PATH_LEN];
  int         total;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(TestMakeTempDir(comm, "output-file", base));
  if (rank == 0) { /* the file-system parts: one process */
    TempNames(base);
    Exclusive(base);
    Text(base);
    RunDir(base);
    TestJoinPath(h5dir, base, "h5");
    CHECK(mkdir(h5dir, 0777) == 0, "cannot make %s", h5dir);
  }
  PetscCallMPI(MPI_Bcast(h5dir, sizeof(h5dir), MPI_CHAR, 0, comm));
  PetscCall(Agreement(comm, h5dir));
  PetscCallMPI(MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, comm));
  if (rank == 0) {
    if (!total) nftw(base, TestRemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
    printf("%s (%d failures)\n", total ? "FAILED" : "PASSED", total);
  }
  PetscCall(PetscFinalize());
  return total ? 1 : 0;
}
