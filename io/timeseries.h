/* OUT/timeseries.csv: one row per step (GUIDE "Files"), written by rank 0. */
#ifndef CCPDEM_IO_TIMESERIES_H
#define CCPDEM_IO_TIMESERIES_H
#include "io/output_file.h"

/* What one step did, global over ranks: a row of the time series (GUIDE "Files": its columns are
 * the fields below but warm_started, passes, linear_iterations and keep_impulses), the progress
 * line and the tests read it; the simulation fills it (step/step_stats.c). */
typedef struct {
  PetscInt64 step;             /* number of the step just taken (1 = first) */
  double     time;             /* simulated time after it */
  PetscInt64 bodies, contacts; /* all ranks */
  PetscInt64 warm_started;     /* contacts that found last step's impulse in the memory */
  PetscInt   iterations;
  PetscInt   passes;            /* the solve's passes over the contacts (CCPSolveStats) */
  PetscInt   linear_iterations; /* the solve's linear-solver iterations (CCPSolveStats; 0 for methods without one) */
  double     residual_max, residual_rms;
  PetscBool  converged;
  PetscBool  keep_impulses; /* the next warm start takes this step's impulses whole: it converged, or its
                               solve returned its warm start unchanged (else times -ccp_warm_start_decay) */
  double     max_speed;     /* largest body speed after the step (m/s) */
  double     kinetic_energy, potential_energy;                   /* J; potential relative to the origin, -m g.x */
  double     wall_detect, wall_solve, wall_integrate, wall_comm; /* s */
  PetscInt64 ghosts;                                             /* ghost copies this step, all ranks (0 on one rank) */
  double     imbalance;  /* max / mean owned bodies over ranks (1 on one rank) */
  PetscInt64 bytes_sent; /* bytes sent by all ranks this step (migration, ghosts, solve) */
} StepStats;

typedef struct {
  IoText     text;                     /* rank 0: the file, open for appending once started */
  PetscInt64 failed_step;              /* rank 0: the first step whose row could not be written, or -1 */
  char       path[PETSC_MAX_PATH_LEN]; /* OUT/timeseries.csv */
} Timeseries;

/* Collective. Creates (or with append, rewrites without the rows with step >= first_step, so a
 * restart never duplicates rows) OUT/timeseries.csv: the header and the kept rows go to a unique
 * temporary that is flushed to disk and renamed into place (io/output_file.h), and stays open for
 * the rows to come. A failure: err <- one line on every rank ("writing PATH: reason", or why an
 * existing file cannot be continued: it is then left as it was), else "". */
PetscErrorCode TimeseriesOpen(MPI_Comm comm, const char *outdir, PetscBool append, PetscInt64 first_step,
                              Timeseries *ts, char *err, size_t errlen);
/* Rank 0 writes and flushes the row; not collective, so that the failure of a write (kept in
 * failed_step and ts->text.errnum) travels with a collective the caller makes anyway (the run
 * loop's) instead of one of its own per row. wall_io is the output time of the previous step. */
PetscErrorCode TimeseriesWrite(MPI_Comm comm, Timeseries *ts, const StepStats *st, double wall_io);
/* Collective. Whether rank 0 could write every row so far (with sync, after flushing them to disk:
 * before a checkpoint, so that the time series holds the rows up to it): err <- "" or "writing
 * PATH (step N): reason" on every rank. */
PetscErrorCode TimeseriesCheck(MPI_Comm comm, Timeseries *ts, PetscBool sync, char *err, size_t errlen);
/* Collective. Flushes the rows to disk and closes the file: err as TimeseriesCheck's. Also after a
 * failure (then err may be ignored). */
PetscErrorCode TimeseriesClose(MPI_Comm comm, Timeseries *ts, char *err, size_t errlen);
#endif
