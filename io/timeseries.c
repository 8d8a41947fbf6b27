/* OUT/timeseries.csv: a header line, then one row per step, flushed as written so a killed run
 * keeps every finished step. Doubles are printed with 17 significant digits (they read back
 * bitwise), wall times with 6. Opening for append rewrites the file without the rows at or after
 * the restart step (a unique temporary, then rename), so a restart never duplicates a step. */
#include "io/timeseries.h"
#include "io/h5.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char header[] = "step,time,bodies,contacts,iterations,residual_max,residual_rms,converged,max_speed,"
                             "kinetic_energy,potential_energy,wall_detect,wall_solve,wall_integrate,wall_comm,wall_io,"
                             "ghosts,imbalance,bytes_sent\n";

/* Opens the existing time series at path for reading, positioned after its header; *in = NULL if
 * there is no file (or an empty one). A file that cannot be read or has other columns: why set
 * (one line), nothing written. */
static PetscErrorCode OpenExisting(const char *path, FILE **in, char *why, size_t whylen)
{
  char   *line = NULL;
  size_t  cap  = 0;
  ssize_t len;

  PetscFunctionBegin;
  *in = fopen(path, "r");
  if (!*in) {
    if (errno != ENOENT) snprintf(why, whylen, "reading %.900s to continue it: %s", path, strerror(errno));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  errno = 0;
  len   = getline(&line, &cap, *in);
  if (len > 0 && strcmp(line, header))
    snprintf(why, whylen,
             "%.700s has other columns than this ccpdem writes (header '%.200s'): move it away, or continue into a new "
             "output directory (-o)",
             path, line);
  else if (len <= 0 && ferror(*in)) snprintf(why, whylen, "reading %.900s: %s", path, strerror(errno ? errno : EIO));
  free(line);
  if (why[0] || len <= 0) { /* refused, or empty: nothing to keep */
    (void)fclose(*in);      /* read-only */
    *in = NULL;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Copies the complete rows of in (after the header) with step < first_step to out. */
static PetscErrorCode CopyEarlierRows(FILE *in, const char *path, IoText *out, PetscInt64 first_step, char *why,
                                      size_t whylen)
{
  char   *line = NULL;
  size_t  cap  = 0;
  ssize_t len;
  long    dropped = 0;

  PetscFunctionBegin;
  errno = 0;
  while (!out->errnum && (len = getline(&line, &cap, in)) > 0) {
    char     *end;
    long long step = strtoll(line, &end, 10);

    if (line[len - 1] != '\n' || end == line || *end != ',') { /* a row cut short by a kill, or not ours */
      dropped++;
      continue;
    }
    if (step < first_step) (void)IoTextPrintf(out, "%s", line);
  }
  free(line);
  if (ferror(in)) snprintf(why, whylen, "reading %.900s: %s", path, strerror(errno ? errno : EIO));
  if (dropped)
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "Warning: dropped %ld incomplete or unreadable rows of %s\n",
                           dropped, path));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0's part of TimeseriesOpen: why <- "" or the one line of a failure. */
static PetscErrorCode OpenOnRoot(Timeseries *ts, PetscBool append, PetscInt64 first_step, char *why, size_t whylen)
{
  FILE *in = NULL;

  PetscFunctionBegin;
  if (append) PetscCall(OpenExisting(ts->path, &in, why, whylen));
  if (why[0]) PetscFunctionReturn(PETSC_SUCCESS);
  (void)IoTextCreate(&ts->text, ts->path);
  (void)IoTextPrintf(&ts->text, "%s", header);
  if (in) {
    PetscCall(CopyEarlierRows(in, ts->path, &ts->text, first_step, why, whylen));
    (void)fclose(in); /* read-only */
  }
  if (!why[0]) (void)IoTextCommit(&ts->text, PETSC_TRUE);
  if (why[0] || ts->text.errnum) {
    (void)IoTextClose(&ts->text); /* the old file stays as it was */
    if (!why[0]) IoFailureMessage(why, whylen, ts->path, ts->text.errnum);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TimeseriesOpen(MPI_Comm comm, const char *outdir, PetscBool append, PetscInt64 first_step,
                              Timeseries *ts, char *err, size_t errlen)
{
  PetscMPIInt rank;
  char        why[1024] = "";

  PetscFunctionBegin;
  PetscCall(PetscMemzero(ts, sizeof(*ts)));
  ts->failed_step = -1;
  PetscCall(IoPathPrintf(ts->path, sizeof(ts->path), "%s/timeseries.csv", outdir));
  PetscCall(IoMakeDirs(comm, outdir, err, errlen));
  if (err[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) PetscCall(OpenOnRoot(ts, append, first_step, why, sizeof(why)));
  PetscCallMPI(MPI_Bcast(why, sizeof(why), MPI_CHAR, 0, comm)); /* so that every rank stops, not only rank 0 */
  PetscCall(PetscStrncpy(err, why, errlen));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TimeseriesWrite(MPI_Comm comm, Timeseries *ts, const StepStats *st, double wall_io)
{
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank != 0 || ts->failed_step >= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(ts->text.fp || ts->text.errnum, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "TimeseriesWrite: call TimeseriesOpen first");
  (void)IoTextPrintf(&ts->text,
                     "%" PetscInt64_FMT ",%.17g,%" PetscInt64_FMT ",%" PetscInt64_FMT ",%" PetscInt_FMT
                     ",%.17g,%.17g,%d,%.17g,%.17g,%.17g,%.6g,%.6g,%.6g,%.6g,%.6g,%" PetscInt64_FMT
                     ",%.6g,%" PetscInt64_FMT "\n",
                     st->step, st->time, st->bodies, st->contacts, st->iterations, st->residual_max, st->residual_rms,
                     st->converged ? 1 : 0, st->max_speed, st->kinetic_energy, st->potential_energy, st->wall_detect,
                     st->wall_solve, st->wall_integrate, st->wall_comm, wall_io, st->ghosts, st->imbalance,
                     st->bytes_sent);
  if (IoTextFlush(&ts->text, PETSC_FALSE)) ts->failed_step = st->step;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective: rank 0's failure (errno and step) on every rank, as err. */
static PetscErrorCode AgreeOnFailure(MPI_Comm comm, const Timeseries *ts, char *err, size_t errlen)
{
  PetscInt64 failure[2] = {ts->text.errnum, ts->failed_step};
  char       path[PETSC_MAX_PATH_LEN + 32];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Bcast(failure, 2, MPIU_INT64, 0, comm)); /* so that every rank stops, not only rank 0 */
  if (failure[1] >= 0)
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s (step %" PetscInt64_FMT ")", ts->path, failure[1]));
  else PetscCall(PetscStrncpy(path, ts->path, sizeof(path)));
  IoFailureMessage(err, errlen, path, (int)failure[0]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TimeseriesCheck(MPI_Comm comm, Timeseries *ts, PetscBool sync, char *err, size_t errlen)
{
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0 && sync) (void)IoTextFlush(&ts->text, PETSC_TRUE);
  PetscCall(AgreeOnFailure(comm, ts, err, errlen));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TimeseriesClose(MPI_Comm comm, Timeseries *ts, char *err, size_t errlen)
{
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0 && ts->text.fp) {
    (void)IoTextFlush(&ts->text, PETSC_TRUE);
    (void)IoTextClose(&ts->text);
  }
  PetscCall(AgreeOnFailure(comm, ts, err, errlen));
  PetscFunctionReturn(PETSC_SUCCESS);
}
