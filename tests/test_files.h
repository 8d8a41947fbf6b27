/* File helpers of the test programs that write output directories: paths, temporaries, clean-up. */
#ifndef CCPDEM_TEST_FILES_H
#define CCPDEM_TEST_FILES_H
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <petscsys.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* buf <- dir/name; fails the test run rather than truncate. */
static inline void TestJoinPath(char buf[PETSC_MAX_PATH_LEN], const char *dir, const char *name)
{
  if (snprintf(buf, PETSC_MAX_PATH_LEN, "%s/%s", dir, name) >= PETSC_MAX_PATH_LEN) {
    printf("FAIL: path %s/%s too long\n", dir, name);
    exit(1);
  }
}

/* Entries of dir whose name starts with '.' (a writer's temporaries), "." and ".." aside. */
static inline int TestTemporaries(const char *dir)
{
  DIR           *d = opendir(dir);
  struct dirent *e;
  int            n = 0;

  if (!d) return 0;
  while ((e = readdir(d)))
    if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(d);
  return n;
}

/* nftw callback removing every entry: nftw(dir, TestRemoveEntry, 16, FTW_DEPTH | FTW_PHYS). */
static inline int TestRemoveEntry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(path);
}

/* Collective. Rank 0 makes a new directory $TMPDIR/ccpdem-test-NAME-XXXXXX (default /tmp); its
 * path in base on every rank. */
static inline PetscErrorCode TestMakeTempDir(MPI_Comm comm, const char *name, char base[PETSC_MAX_PATH_LEN])
{
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    snprintf(base, PETSC_MAX_PATH_LEN, "%s/ccpdem-test-%s-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
    PetscCheck(mkdtemp(base), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "mkdtemp %s: %s", base, strerror(errno));
  }
  PetscCallMPI(MPI_Bcast(base, PETSC_MAX_PATH_LEN, MPI_CHAR, 0, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
