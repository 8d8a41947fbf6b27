/* OUT/timeseries.csv: a header line, then one row per step, flushed as written so a killed run
 * keeps every finished step. Doubles are printed with 17 significant digits (they read back
 * bitwise), wall times with 6. Opening for append rewrites the file without the rows at or after
 * the restart step (temporary file, then rename), so a restart never duplicates a step. */
#include "io/timeseries.h"
#include "io/h5.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char header[] = "step,time,bodies,contacts,iterations,residual_max,residual_rms,converged,max_speed,"
                             "kinetic_energy,potential_energy,wall_detect,wall_solve,wall_integrate,wall_comm,wall_io,"
                             "ghosts,imbalance,bytes_sent\n";

/* Opens the existing time series at path for reading, positioned after its header; *in = NULL if
 * there is no file (or an empty one). A file with other columns is refused before anything is
 * written, and left as it is. */
static PetscErrorCode OpenExisting(const char *path, FILE **in)
{
  char   *line = NULL;
  size_t  cap  = 0;
  ssize_t len;

  PetscFunctionBegin;
  *in = fopen(path, "r");
  PetscCheck(*in || errno == ENOENT, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s to continue it: %s", path,
             strerror(errno));
  if (!*in) PetscFunctionReturn(PETSC_SUCCESS);
  len = getline(&line, &cap, *in);
  if (len > 0 && strcmp(line, header)) {
    char shown[201];
    PetscCall(PetscStrncpy(shown, line, sizeof(shown)));
    free(line);
    (void)fclose(*in); /* read-only, and already failing */
    *in = NULL;
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
            "%s has other columns than this ccpdem writes (header '%s'): move it away, or continue into a new output "
            "directory (-o)",
            path, shown);
  }
  free(line);
  if (len <= 0) { /* empty: nothing to keep */
    PetscCheck(!ferror(*in), PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Cannot read %s: %s", path, strerror(errno));
    PetscCheck(fclose(*in) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Cannot close %s: %s", path, strerror(errno));
    *in = NULL;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Copies the complete rows of in (after the header) with step < first_step to out. */
static PetscErrorCode CopyEarlierRows(FILE *in, const char *path, FILE *out, const char *tmp, PetscInt64 first_step)
{
  char   *line = NULL;
  size_t  cap  = 0;
  ssize_t len;
  long    dropped = 0;

  PetscFunctionBegin;
  while ((len = getline(&line, &cap, in)) > 0) {
    char     *end;
    long long step = strtoll(line, &end, 10);

    if (line[len - 1] != '\n' || end == line || *end != ',') { /* a row cut short by a kill, or not ours */
      dropped++;
      continue;
    }
    if (step < first_step)
      PetscCheck(fputs(line, out) >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write %s: %s", tmp,
                 strerror(errno));
  }
  free(line);
  PetscCheck(!ferror(in), PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Cannot read %s: %s", path, strerror(errno));
  if (dropped)
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "Warning: dropped %ld incomplete or unreadable rows of %s\n",
                           dropped, path));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0's part of TimeseriesOpen. */
static PetscErrorCode OpenOnRoot(const char *outdir, PetscBool append, PetscInt64 first_step, FILE **fp)
{
  char  path[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN];
  FILE *in = NULL, *out;

  PetscFunctionBegin;
  PetscCall(IoPathPrintf(path, sizeof(path), "%s/timeseries.csv", outdir));
  PetscCall(IoPathPrintf(tmp, sizeof(tmp), "%s/.timeseries.csv.tmp", outdir));
  if (append) PetscCall(OpenExisting(path, &in));
  out = fopen(tmp, "w");
  PetscCheck(out, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot create %s: %s", tmp, strerror(errno));
  PetscCheck(fputs(header, out) >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write %s: %s", tmp,
             strerror(errno));
  if (in) {
    PetscCall(CopyEarlierRows(in, path, out, tmp, first_step));
    PetscCheck(fclose(in) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Cannot close %s: %s", path, strerror(errno));
  }
  PetscCheck(fclose(out) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write %s: %s", tmp, strerror(errno));
  PetscCall(IoRename(tmp, path));
  *fp = fopen(path, "a");
  PetscCheck(*fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s for appending: %s", path, strerror(errno));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TimeseriesOpen(MPI_Comm comm, const char *outdir, PetscBool append, PetscInt64 first_step,
                              Timeseries *ts)
{
  PetscMPIInt    rank;
  PetscErrorCode err = PETSC_SUCCESS;

  PetscFunctionBegin;
  ts->fp          = NULL;
  ts->failed_step = -1;
  PetscCall(IoMakeDirs(comm, outdir));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) err = OpenOnRoot(outdir, append, first_step, &ts->fp);
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, comm));
  PetscCheck(err == PETSC_SUCCESS, comm, PETSC_ERR_FILE_OPEN, "Cannot start %s/timeseries.csv (see the error above)",
             outdir);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WriteRow(FILE *fp, const StepStats *st, double wall_io)
{
  int len;

  PetscFunctionBegin;
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "TimeseriesWrite: call TimeseriesOpen first");
  len = fprintf(fp,
                "%" PetscInt64_FMT ",%.17g,%" PetscInt64_FMT ",%" PetscInt64_FMT ",%" PetscInt_FMT
                ",%.17g,%.17g,%d,%.17g,%.17g,%.17g,%.6g,%.6g,%.6g,%.6g,%.6g,%" PetscInt64_FMT ",%.6g,%" PetscInt64_FMT
                "\n",
                st->step, st->time, st->bodies, st->contacts, st->iterations, st->residual_max, st->residual_rms,
                st->converged ? 1 : 0, st->max_speed, st->kinetic_energy, st->potential_energy, st->wall_detect,
                st->wall_solve, st->wall_integrate, st->wall_comm, wall_io, st->ghosts, st->imbalance, st->bytes_sent);
  PetscCheck(len >= 0 && fflush(fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write timeseries.csv: %s",
             strerror(errno));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TimeseriesWrite(MPI_Comm comm, Timeseries *ts, const StepStats *st, double wall_io)
{
  PetscMPIInt    rank;
  PetscErrorCode err = PETSC_SUCCESS;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0 && ts->failed_step < 0) err = WriteRow(ts->fp, st, wall_io);
  if (err) ts->failed_step = st->step;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TimeseriesCheck(MPI_Comm comm, const Timeseries *ts)
{
  PetscInt64 failed = ts->failed_step;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Bcast(&failed, 1, MPIU_INT64, 0, comm)); /* so that every rank stops, not only rank 0 */
  PetscCheck(failed < 0, comm, PETSC_ERR_FILE_WRITE,
             "Cannot append step %" PetscInt64_FMT " to the time series (see the error above)", failed);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TimeseriesClose(Timeseries *ts)
{
  FILE *fp = ts->fp;

  PetscFunctionBegin;
  ts->fp = NULL;
  if (fp)
    PetscCheck(fclose(fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot close timeseries.csv: %s",
               strerror(errno));
  PetscFunctionReturn(PETSC_SUCCESS);
}
