/* Safe output files and the ranks' agreement on write failures (io/output_file.h). */
#include "io/output_file.h"
#include "io/fault.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

/* errno after a failed call, EIO if the call left none */
static int LastError(void) { return errno ? errno : EIO; }

void IoDirName(const char *path, char *dir, size_t len)
{
  const char *slash = strrchr(path, '/');

  if (!slash) snprintf(dir, len, ".");
  else if (slash == path) snprintf(dir, len, "/");
  else snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

int IoTempName(const char *path, char *tmp, size_t len)
{
  const char   *slash = strrchr(path, '/');
  const char   *name  = slash ? slash + 1 : path;
  const int     dirl  = slash ? (int)(slash - path) + 1 : 0; /* the directory with its slash */
  unsigned char r[8];
  size_t        got = 0;
  int           n;

  while (got < sizeof(r)) { /* getrandom(2) may return fewer bytes, or be interrupted */
    const ssize_t k = getrandom(r + got, sizeof(r) - got, 0);
    if (k < 0 && errno != EINTR) return errno;
    if (k > 0) got += (size_t)k;
  }
  n = snprintf(tmp, len, "%.*s.%s.%ld-%02x%02x%02x%02x%02x%02x%02x%02x.tmp", dirl, path, name, (long)getpid(), r[0],
               r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
  return n < 0 || (size_t)n >= len ? ENAMETOOLONG : 0;
}

PetscBool IoIsTempName(const char *entry, const char *prefix)
{
  const size_t n = strlen(entry), p = strlen(prefix);

  return (PetscBool)(entry[0] == '.' && n >= 1 + p + 4 && !strncmp(entry + 1, prefix, p) &&
                     !strcmp(entry + n - 4, ".tmp"));
}

int IoCreateExclusive(const char *path)
{
  return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
}

int IoSyncPath(const char *path)
{
  const int fd  = open(path, O_RDONLY | O_CLOEXEC);
  int       err = 0;

  if (fd < 0) return errno;
  if (fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && !err) err = errno;
  return err ? err : IoFaultCharge(0);
}

int IoTextCreate(IoText *t, const char *path)
{
  int fd;

  memset(t, 0, sizeof(*t));
  if (snprintf(t->path, sizeof(t->path), "%s", path) >= (int)sizeof(t->path)) return t->errnum = ENAMETOOLONG;
  if ((t->errnum = IoTempName(path, t->tmp, sizeof(t->tmp)))) {
    t->tmp[0] = 0;
    return t->errnum;
  }
  fd = IoCreateExclusive(t->tmp);
  if (fd < 0) {
    t->errnum = LastError();
    t->tmp[0] = 0; /* not ours: never removed */
    return t->errnum;
  }
  t->fp = fdopen(fd, "w");
  if (!t->fp) {
    t->errnum = LastError();
    (void)close(fd); /* already failing */
  }
  return t->errnum;
}

int IoTextPrintf(IoText *t, const char *fmt, ...)
{
  va_list ap;
  int     len;

  if (t->errnum) return t->errnum;
  if (!t->fp) return t->errnum = EBADF;
  errno = 0;
  va_start(ap, fmt);
  len = vfprintf(t->fp, fmt, ap);
  va_end(ap);
  t->errnum = len < 0 ? LastError() : IoFaultCharge((size_t)len);
  return t->errnum;
}

int IoTextFlush(IoText *t, PetscBool sync)
{
  if (t->errnum) return t->errnum;
  if (!t->fp) return t->errnum = EBADF;
  errno = 0;
  if (fflush(t->fp) != 0 || (sync && fsync(fileno(t->fp)) != 0)) return t->errnum = LastError();
  return t->errnum = IoFaultCharge(0);
}

int IoTextCommit(IoText *t, PetscBool keep_open)
{
  char dir[PETSC_MAX_PATH_LEN];

  if (IoTextFlush(t, PETSC_TRUE)) return t->errnum;
  if (rename(t->tmp, t->path) != 0) return t->errnum = LastError();
  t->tmp[0] = 0;
  IoDirName(t->path, dir, sizeof(dir));
  if ((t->errnum = IoSyncPath(dir))) return t->errnum;
  if (!keep_open) return IoTextClose(t);
  return 0;
}

int IoTextClose(IoText *t)
{
  if (t->fp) {
    errno = 0;
    if (fclose(t->fp) != 0 && !t->errnum) t->errnum = LastError();
    t->fp = NULL;
  }
  if (t->tmp[0]) { /* never put in place: a failed write leaves nothing behind */
    (void)unlink(t->tmp);
    t->tmp[0] = 0;
  }
  return t->errnum;
}

PetscErrorCode IoAgree(MPI_Comm comm, int local, int *agreed)
{
  PetscMPIInt rank, size, mine, first;
  int         e = local;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  mine = local ? rank : size;
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first < size) PetscCallMPI(MPI_Bcast(&e, 1, MPI_INT, first, comm));
  *agreed = first < size ? e : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

void IoFailureMessage(char *err, size_t errlen, const char *path, int errnum)
{
  if (errnum) snprintf(err, errlen, "writing %s: %s", path, strerror(errnum));
  else if (errlen) err[0] = 0;
}
