// ctest: ranks=2
/* OUT/timeseries.csv: header, lossless values, rows flushed as written, restart (append) drops the
 * rows at and after the restart step and rows cut short by a kill, a fresh open truncates, a
 * file with other columns is refused, and a row that cannot be written stops every rank at
 * TimeseriesCheck. Runs at any rank count (rank 0 reads the file back).
 * Written values are functions of (step, run), so every row says which run wrote it. */
#define _GNU_SOURCE /* nftw, mkdtemp */
#include <petscsys.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "io/timeseries.h"

#define NCOL 19
static const char header[] =
  "step,time,bodies,contacts,iterations,residual_max,residual_rms,converged,max_speed,"
  "kinetic_energy,potential_energy,wall_detect,wall_solve,wall_integrate,wall_comm,wall_io,ghosts,imbalance,bytes_sent";
#include "test_check.h"
#include "test_files.h"

/* The statistics of step `step` of run `run`, with values that need all 17 digits. */
static void MakeStats(PetscInt step, int run, StepStats *st, double *wall_io)
{
  st->step             = step;
  st->time             = 0.1 * step + run * 1e-3;
  st->bodies           = 100 + run;
  st->contacts         = 7 * step;
  st->iterations       = 3 * step + run;
  st->residual_max     = 1e-7 / 3.0 * step;
  st->residual_rms     = 1e-8 / 7.0 * step;
  st->converged        = (step + run) % 2 ? PETSC_TRUE : PETSC_FALSE;
  st->max_speed        = M_PI * step;
  st->kinetic_energy   = (run + 1) / 3.0;
  st->potential_energy = -9.81 * step / 11.0;
  st->wall_detect      = 1.0 / (step + 7);
  st->wall_solve       = 2.0 / (step + 9);
  st->wall_integrate   = 1e-5 / (step + 3);
  st->wall_comm        = 0;
  st->ghosts           = 11 * step + run;
  st->imbalance        = 1.0 + 0.25 * run;     /* printed with 6 digits: exact in binary */
  st->bytes_sent       = (PetscInt64)48 << 33; /* beyond 32 bits */
  *wall_io             = 12345.678901 / (step + 1);
}

/* Fills the 19 values of a row in column order, from run `run` at step `step`. */
static void ExpectedRow(PetscInt step, int run, double v[NCOL])
{
  StepStats st;
  double    io;
  MakeStats(step, run, &st, &io);
  const double e[NCOL] = {(double)st.step,       st.time,           (double)st.bodies,    (double)st.contacts,
                          (double)st.iterations, st.residual_max,   st.residual_rms,      st.converged ? 1 : 0,
                          st.max_speed,          st.kinetic_energy, st.potential_energy,  st.wall_detect,
                          st.wall_solve,         st.wall_integrate, st.wall_comm,         io,
                          (double)st.ghosts,     st.imbalance,      (double)st.bytes_sent};
  memcpy(v, e, sizeof(e));
}

/* TimeseriesOpen that must succeed. */
static PetscErrorCode Open(MPI_Comm comm, const char *outdir, PetscBool append, PetscInt first_step, Timeseries *ts)
{
  char err[1024];

  PetscFunctionBegin;
  PetscCall(TimeseriesOpen(comm, outdir, append, first_step, ts, err, sizeof(err)));
  CHECK(!err[0], "TimeseriesOpen(%s) failed: %s", outdir, err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* TimeseriesClose that must succeed. */
static PetscErrorCode Close(MPI_Comm comm, Timeseries *ts)
{
  char err[1024];

  PetscFunctionBegin;
  PetscCall(TimeseriesClose(comm, ts, err, sizeof(err)));
  CHECK(!err[0], "TimeseriesClose failed: %s", err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WriteSteps(MPI_Comm comm, Timeseries *ts, PetscInt from, PetscInt to, int run)
{
  PetscFunctionBegin;
  for (PetscInt k = from; k <= to; k++) {
    StepStats st;
    double    io;
    MakeStats(k, run, &st, &io);
    PetscCall(TimeseriesWrite(comm, ts, &st, io));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0: reads path and checks the header and that row k (k = 0, 1, ...) is step steps[k] of run
 * runs[k], and that there are exactly nrows rows. */
static void CheckFile(const char *what, const char *path, int nrows, const PetscInt *steps, const int *runs)
{
  FILE *fp = fopen(path, "r");
  char  line[4096];
  int   row = 0;

  CHECK(fp, "%s: cannot open %s", what, path);
  if (!fp) return;
  CHECK(fgets(line, sizeof(line), fp) && !strncmp(line, header, strlen(header)) && !strcmp(line + strlen(header), "\n"),
        "%s: header is '%s'", what, line);
  while (fgets(line, sizeof(line), fp)) {
    double v[NCOL], e[NCOL];
    char  *p    = line, *end;
    int    ncol = 0;

    CHECK(line[strlen(line) - 1] == '\n', "%s: row %d does not end in a newline", what, row);
    for (; ncol < NCOL; ncol++) {
      v[ncol] = strtod(p, &end);
      if (end == p) break;
      p = end;
      if (*p != ',') {
        ncol++;
        break;
      }
      p++;
    }
    CHECK(ncol == NCOL && *p == '\n', "%s: row %d has %d readable columns, wants %d: %s", what, row, ncol, NCOL, line);
    if (row >= nrows) {
      row++;
      continue;
    }
    ExpectedRow(steps[row], runs[row], e);
    for (int c = 0; c < NCOL; c++) {
      /* Columns 0-10 are printed with %.17g (integers exactly), which round-trips an IEEE double
       * exactly (DBL_DECIMAL_DIG = 17): equality; so are the counts 16 and 18. Wall times (11-15)
       * and the imbalance (17) use %.6g: relative rounding error at most 5e-6. */
      const double tol = c < 11 || c == 16 || c == 18 ? 0.0 : 5e-6 * fabs(e[c]);
      CHECK(fabs(v[c] - e[c]) <= tol, "%s: row %d (step %d run %d) column %d: read %.17g, wrote %.17g", what, row,
            (int)steps[row], runs[row], c, v[c], e[c]);
    }
    row++;
  }
  CHECK(row == nrows, "%s: %d rows, want %d", what, row, nrows);
  fclose(fp);
  printf("  %s: header and %d rows checked\n", what, row);
}

/* buf = dir/name; fails the test run rather than truncate. */
static void JoinPath(char buf[PETSC_MAX_PATH_LEN], const char *dir, const char *name)
{
  if (snprintf(buf, PETSC_MAX_PATH_LEN, "%s/%s", dir, name) >= PETSC_MAX_PATH_LEN) {
    printf("FAIL: path %s/%s too long\n", dir, name);
    exit(1);
  }
}

static int RemoveEntry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(path);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  PetscMPIInt rank;
  char        base[PETSC_MAX_PATH_LEN] = "", outdir[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN];
  Timeseries  ts;
  int         total;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    snprintf(base, sizeof(base), "%s/ccpdem-test-timeseries-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    PetscCheck(mkdtemp(base), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "mkdtemp %s: %s", base, strerror(errno));
  }
  PetscCallMPI(MPI_Bcast(base, sizeof(base), MPI_CHAR, 0, comm));
  JoinPath(outdir, base, "nested/out"); /* does not exist yet: Open creates it */
  JoinPath(path, outdir, "timeseries.csv");

  /* 1. A new run writes steps 1..10; rows are on disk before close (flushed). */
  {
    const PetscInt steps[3] = {1, 2, 3};
    const int      runs[3]  = {0, 0, 0};
    PetscCall(Open(comm, outdir, PETSC_FALSE, 1, &ts));
    PetscCall(WriteSteps(comm, &ts, 1, 3, 0));
    if (rank == 0) CheckFile("before close (flushed rows)", path, 3, steps, runs);
    PetscCall(WriteSteps(comm, &ts, 4, 10, 0));
    PetscCall(Close(comm, &ts));
  }
  /* 2. Restart from step 5: rows 6..10 of run 0 go, run 1 writes 6..12. */
  PetscCall(Open(comm, outdir, PETSC_TRUE, 6, &ts));
  PetscCall(WriteSteps(comm, &ts, 6, 12, 1));
  PetscCall(Close(comm, &ts));
  /* 3. A kill left half a row of step 13; a restart from a checkpoint of step 14 (written before
   * that row) keeps 1..12 and drops the half row although its step is below the restart step. */
  if (rank == 0) {
    FILE *fp = fopen(path, "a");
    PetscCheck(fp && fputs("13,1.2999999", fp) >= 0 && fclose(fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE,
               "cannot append to %s", path);
  }
  PetscCall(Open(comm, outdir, PETSC_TRUE, 15, &ts));
  PetscCall(WriteSteps(comm, &ts, 15, 16, 2));
  PetscCall(Close(comm, &ts));
  if (rank == 0) {
    PetscInt steps[14];
    int      runs[14];
    for (int k = 0; k < 14; k++) {
      steps[k] = k < 12 ? k + 1 : k + 3;
      runs[k]  = k < 5 ? 0 : k < 12 ? 1 : 2;
    }
    CheckFile("after two restarts (no duplicates, half row dropped)", path, 14, steps, runs);
    CHECK(TestTemporaries(outdir) == 0, "temporary files left behind in %s", outdir);
  }
  /* 4. A new run (append = false) starts from the header only. */
  PetscCall(Open(comm, outdir, PETSC_FALSE, 1, &ts));
  PetscCall(Close(comm, &ts));
  if (rank == 0) CheckFile("new run over an old file", path, 0, NULL, NULL);
  /* 5. Append into a directory without a time series: a new file. */
  JoinPath(outdir, base, "fresh");
  JoinPath(path, outdir, "timeseries.csv");
  PetscCall(Open(comm, outdir, PETSC_TRUE, 41, &ts));
  PetscCall(WriteSteps(comm, &ts, 41, 41, 3));
  PetscCall(Close(comm, &ts));
  if (rank == 0) {
    const PetscInt steps[1] = {41};
    const int      runs[1]  = {3};
    CheckFile("append without an existing file", path, 1, steps, runs);
  }
  /* 6. A file with other columns is refused on every rank and left as it was. */
  {
    const char other[]   = "step,time,energy\n1,0.1,5\n";
    char       back[256] = "", msg[1024];
    if (rank == 0) {
      FILE *fp = fopen(path, "w");
      PetscCheck(fp && fputs(other, fp) >= 0 && fclose(fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE,
                 "cannot write %s", path);
    }
    PetscCall(TimeseriesOpen(comm, outdir, PETSC_TRUE, 2, &ts, msg, sizeof(msg)));
    CHECK(strstr(msg, "other columns"), "rank %d: TimeseriesOpen accepted a file with other columns: '%s'", rank, msg);
    CHECK(ts.text.fp == NULL, "rank %d: refused open left a file handle", rank);
    if (rank == 0) {
      FILE  *fp = fopen(path, "r");
      size_t n  = fp ? fread(back, 1, sizeof(back) - 1, fp) : 0;
      if (fp) fclose(fp);
      back[n] = '\0';
      CHECK(!strcmp(back, other), "refused file was changed to '%s'", back);
      printf("  file with other columns: refused on every rank, left unchanged\n");
    }
  }
  /* 7. A row that cannot be written (a full disk: /dev/full on rank 0) is a failure on every rank at
   * TimeseriesCheck, naming the file, the first such step and the reason; the rows before it pass. */
  {
    char msg[1024];
    PetscCall(Open(comm, outdir, PETSC_FALSE, 1, &ts));
    PetscCall(WriteSteps(comm, &ts, 1, 2, 4));
    PetscCall(TimeseriesCheck(comm, &ts, PETSC_TRUE, msg, sizeof(msg)));
    CHECK(!msg[0], "rank %d: TimeseriesCheck failed rows written to a good disk: %s", rank, msg);
    if (rank == 0) {
      CHECK(fclose(ts.text.fp) == 0, "cannot close %s", path);
      ts.text.fp = fopen("/dev/full", "w");
      PetscCheck(ts.text.fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open /dev/full");
    }
    PetscCall(WriteSteps(comm, &ts, 3, 4, 4)); /* fails on rank 0 only, and says nothing yet */
    PetscCall(TimeseriesCheck(comm, &ts, PETSC_FALSE, msg, sizeof(msg)));
    CHECK(strstr(msg, "writing ") && strstr(msg, "timeseries.csv (step 3): No space left on device"),
          "rank %d: TimeseriesCheck after a row written to a full disk says '%s'", rank, msg);
    CHECK(rank != 0 || ts.failed_step == 3, "rank 0: failed step %" PetscInt64_FMT ", expected 3 (the first one)",
          ts.failed_step);
    PetscCall(TimeseriesClose(comm, &ts, msg, sizeof(msg))); /* /dev/full: closing does not hide the failure */
    CHECK(msg[0], "rank %d: TimeseriesClose after a failed row reports nothing", rank);
    if (rank == 0) printf("  full disk: every rank stops at TimeseriesCheck\n");
  }

  PetscCallMPI(MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, comm));
  if (rank == 0 && total == 0) nftw(base, RemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
  if (rank == 0) printf("%s (%d failures)\n", total ? "FAILED" : "PASSED", total);
  PetscCall(PetscFinalize());
  return total ? 1 : 0;
}
