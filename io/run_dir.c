/* The run id and the run's files in an output directory (io/run_dir.h). */
#include "io/run_dir.h"
#include "io/output_file.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* The top-level names of a run's files (README "Outputs"), and the folders of its HDF5 files with
 * the prefix of the files ccpdem writes there. */
static const char *const run_files[] = {"run.id", "timeseries.csv", "snapshots.xmf", "walls.csv"};
static const struct {
  const char *dir, *prefix;
} run_folders[] = {
  {"snapshots", "snap-"},
  {"checkpoints", "ckpt-"},
};
#define N_FILES   (sizeof(run_files) / sizeof(run_files[0]))
#define N_FOLDERS (sizeof(run_folders) / sizeof(run_folders[0]))

int RunIdNew(RunId *id)
{
  unsigned char r[RUN_ID_HEX / 2];
  size_t        got = 0;

  while (got < sizeof(r)) { /* getrandom(2) may return fewer bytes, or be interrupted */
    const ssize_t k = getrandom(r + got, sizeof(r) - got, 0);
    if (k < 0 && errno != EINTR) return errno;
    if (k > 0) got += (size_t)k;
  }
  for (size_t i = 0; i < sizeof(r); i++) snprintf(id->hex + 2 * i, 3, "%02x", r[i]);
  return 0;
}

PetscBool RunIdValid(const char *s)
{
  return (PetscBool)(strlen(s) == RUN_ID_HEX && strspn(s, "0123456789abcdef") == RUN_ID_HEX);
}

/* OUT/run.id's id into *id (id->hex "" when the file holds no run id); 0, or an errno other than
 * ENOENT. The file is read without following a symbolic link. */
static int ReadRunId(const char *path, RunId *id)
{
  char    buf[RUN_ID_HEX + 3] = "";
  ssize_t n;
  int     fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

  id->hex[0] = 0;
  if (fd < 0) return errno == ENOENT || errno == ELOOP ? 0 : errno;
  n = read(fd, buf, sizeof(buf) - 1);
  (void)close(fd); /* read-only */
  if (n < 0) return errno;
  buf[n] = 0;
  if (n > 0 && buf[n - 1] == '\n') buf[n - 1] = 0;
  if (RunIdValid(buf)) memcpy(id->hex, buf, RUN_ID_HEX + 1);
  return 0;
}

int RunDirInspect(const char *outdir, RunDirContents *c)
{
  char        path[PETSC_MAX_PATH_LEN];
  struct stat st;

  memset(c, 0, sizeof(*c));
  for (size_t k = 0; k < N_FILES + N_FOLDERS; k++) {
    const char *name = k < N_FILES ? run_files[k] : run_folders[k - N_FILES].dir;
    if (snprintf(path, sizeof(path), "%s/%s", outdir, name) >= (int)sizeof(path)) return ENAMETOOLONG;
    if (lstat(path, &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) continue;
      return errno;
    }
    snprintf(c->present + strlen(c->present), sizeof(c->present) - strlen(c->present), "%s%s%s",
             c->present[0] ? ", " : "", name, k < N_FILES ? "" : "/");
  }
  if (snprintf(path, sizeof(path), "%s/run.id", outdir) >= (int)sizeof(path)) return ENAMETOOLONG;
  {
    const int err = ReadRunId(path, &c->id);
    if (err) return err;
  }
  c->id_valid = (PetscBool)(c->id.hex[0] != 0);
  return 0;
}

/* Removes path (a file or a symbolic link; absent is fine); 0 or an errno, path in failed. */
static int RemoveFile(const char *path, char *failed, size_t len)
{
  if (unlink(path) == 0 || errno == ENOENT) return 0;
  snprintf(failed, len, "%s", path);
  return errno;
}

/* Removes dir's entries that a run wrote: temporaries (IoIsTempName) of names starting with one of
 * the n prefixes and, with with_h5, the files PREFIX<digits>.h5. 0, or an errno (path in failed). */
static int ClearEntries(const char *dir, const char *const *prefixes, size_t n, PetscBool with_h5, char *failed,
                        size_t len)
{
  char           path[PETSC_MAX_PATH_LEN];
  DIR           *d = opendir(dir);
  struct dirent *e;
  int            err = 0;

  if (!d) {
    if (errno == ENOENT) return 0;
    snprintf(failed, len, "%s", dir);
    return errno;
  }
  for (errno = 0; !err && (e = readdir(d)); errno = 0) {
    PetscBool ours = PETSC_FALSE;
    for (size_t k = 0; k < n && !ours; k++) {
      const size_t p = strlen(prefixes[k]), l = strlen(e->d_name);
      ours = IoIsTempName(e->d_name, prefixes[k]);
      if (with_h5 && !strncmp(e->d_name, prefixes[k], p) && l > p + 3 && !strcmp(e->d_name + l - 3, ".h5") &&
          strspn(e->d_name + p, "0123456789") == l - p - 3)
        ours = PETSC_TRUE; /* PREFIX<digits>.h5 */
    }
    if (!ours) continue;
    if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path)) err = ENAMETOOLONG;
    else err = RemoveFile(path, failed, len);
  }
  if (!err && errno) {
    err = errno;
    snprintf(failed, len, "%s", dir);
  }
  (void)closedir(d); /* only read */
  return err;
}

int RunDirClear(const char *outdir, PetscBool all, char *failed, size_t len)
{
  char        path[PETSC_MAX_PATH_LEN];
  struct stat st;
  int         err = 0;

  for (size_t k = 0; k < N_FOLDERS; k++) {
    if (snprintf(path, sizeof(path), "%s/%s", outdir, run_folders[k].dir) >= (int)sizeof(path)) return ENAMETOOLONG;
    if (lstat(path, &st) != 0) continue;
    if (!S_ISDIR(st.st_mode)) {
      if (all) err = RemoveFile(path, failed, len); /* a link or a file: removed, not followed */
    } else if (!(err = ClearEntries(path, &run_folders[k].prefix, 1, all, failed, len)) && all && rmdir(path) != 0 &&
               errno != ENOTEMPTY && errno != EEXIST) { /* files of others stay, and so does the folder */
      err = errno;
      snprintf(failed, len, "%s", path);
    }
    if (err) return err;
  }
  if ((err = ClearEntries(outdir, run_files, N_FILES, PETSC_FALSE, failed, len)) || !all) return err;
  for (size_t k = 0; k < N_FILES; k++) { /* run.id last: an interrupted clear still shows a run here */
    if (snprintf(path, sizeof(path), "%s/%s", outdir, run_files[N_FILES - 1 - k]) >= (int)sizeof(path))
      return ENAMETOOLONG;
    if ((err = RemoveFile(path, failed, len))) return err;
  }
  return 0;
}

int RunIdWrite(const char *outdir, const RunId *id)
{
  char   path[PETSC_MAX_PATH_LEN];
  IoText t;

  if (snprintf(path, sizeof(path), "%s/run.id", outdir) >= (int)sizeof(path)) return ENAMETOOLONG;
  IoTextCreate(&t, path);
  IoTextPrintf(&t, "%s\n", id->hex);
  IoTextCommit(&t, PETSC_FALSE);
  return IoTextClose(&t);
}
