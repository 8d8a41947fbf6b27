/* Output files written safely (README "Outputs"): each under a temporary name of its own in its
 * final directory (DIR/.NAME.<pid>-<16 random hex digits>.tmp), created exclusively (an existing
 * file or a planted symbolic link at that name is refused, never followed or overwritten), flushed
 * to disk, renamed into place, and the directory flushed; and the ranks' agreement on how a write
 * went, so that a failure on one rank stops every rank at the same point. Failures here are errno
 * values (0: none), not PETSc errors: the writers agree on them first and then report one line
 * ("writing PATH: reason", IoFailureMessage). */
#ifndef CCPDEM_IO_OUTPUT_FILE_H
#define CCPDEM_IO_OUTPUT_FILE_H
#include <petscsys.h>
#include <stdio.h>

/* Not collective. tmp <- DIR/.NAME.<pid>-<16 hex digits from getrandom(2)>.tmp for path DIR/NAME,
 * a name no other writer uses; 0 or an errno (ENAMETOOLONG when it does not fit len). */
int IoTempName(const char *path, char *tmp, size_t len);
/* Whether directory entry `entry` is a temporary of a writer (IoTempName's form, or the fixed
 * .NAME.tmp of earlier ccpdem versions) of a file whose name starts with prefix. */
PetscBool IoIsTempName(const char *entry, const char *prefix);
/* Not collective. Opens path for writing, creating it with O_CREAT|O_EXCL|O_NOFOLLOW (mode 0666 &
 * ~umask): an existing file or symbolic link there, a dangling one included, is refused (EEXIST)
 * and left as it is. Returns the descriptor, or -1 with errno set. */
int IoCreateExclusive(const char *path);
/* Not collective. Flushes a directory (or a file) to disk: open(2) + fsync; 0 or an errno. */
int IoSyncPath(const char *path);
/* Not collective. The directory part of path ("." when it has none) into dir[len]. */
void IoDirName(const char *path, char *dir, size_t len);

/* A text file one process writes: created under a temporary name (IoTextCreate), written
 * (IoTextPrintf), and put in place (IoTextCommit: flush, fsync, rename, fsync of the directory),
 * after which it may stay open for appending (the time series) and IoTextSync flushes it to disk.
 * The first failure is kept in errnum; every later call does nothing and returns it. */
typedef struct {
  FILE *fp;                       /* NULL when closed */
  char  path[PETSC_MAX_PATH_LEN]; /* the final name */
  char  tmp[PETSC_MAX_PATH_LEN];  /* the temporary name until committed, then "" */
  int   errnum;                   /* 0, or the errno of the first failure */
} IoText;

/* Starts t as a new temporary for path; returns t->errnum. */
int IoTextCreate(IoText *t, const char *path);
/* printf to t (counted by the fault injection, io/fault.h); returns t->errnum. */
int IoTextPrintf(IoText *t, const char *fmt, ...) PETSC_ATTRIBUTE_FORMAT(2, 3);
/* Flushes t's buffered text to the file (fflush) and, with sync, to disk (fsync); returns t->errnum. */
int IoTextFlush(IoText *t, PetscBool sync);
/* Flush, fsync, rename to the final name, fsync of the directory; with keep_open the stream stays
 * open for appending, else it is closed. Returns t->errnum. */
int IoTextCommit(IoText *t, PetscBool keep_open);
/* Closes t: its temporary, if not committed, is removed. Returns t->errnum (with a failed close's). */
int IoTextClose(IoText *t);

/* Collective. *agreed <- 0 when local is 0 on every rank, else the first failing rank's local (an
 * errno), on every rank. */
PetscErrorCode IoAgree(MPI_Comm comm, int local, int *agreed);
/* err <- "writing PATH: reason" for errno errnum ("" when errnum is 0). */
void IoFailureMessage(char *err, size_t errlen, const char *path, int errnum);
#endif
