/* OUT/timeseries.csv: one row per step (GUIDE "Files"), written by rank 0. */
#ifndef CCPDEM_IO_TIMESERIES_H
#define CCPDEM_IO_TIMESERIES_H
#include <stdio.h>
#include <petscsys.h>

/* What one step did, global over ranks: a row of the time series (GUIDE "Files": its columns are
 * the fields below but warm_started, passes and keep_impulses), the progress line and the tests
 * read it; the simulation fills it (step/step_stats.c). */
typedef struct {
  PetscInt64 step;             /* number of the step just taken (1 = first) */
  double     time;             /* simulated time after it */
  PetscInt64 bodies, contacts; /* all ranks */
  PetscInt64 warm_started;     /* contacts that found last step's impulse in the memory */
  PetscInt   iterations;
  PetscInt   passes; /* the solve's passes over the contacts (CCPSolveStats) */
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
  FILE      *fp;          /* rank 0 only */
  PetscInt64 failed_step; /* rank 0: the first step whose row could not be written, or -1 */
} Timeseries;

/* Collective. Creates (or with append, opens for appending and drops rows with step >= first_step,
 * so a restart never duplicates rows) OUT/timeseries.csv and writes the header if new. */
PetscErrorCode TimeseriesOpen(MPI_Comm comm, const char *outdir, PetscBool append, PetscInt64 first_step,
                              Timeseries *ts);
/* Rank 0 writes the row; not collective, so that the failure of a write (its message printed, the
 * step kept in failed_step) travels with a collective the caller makes anyway (the run loop's)
 * instead of one of its own per row. wall_io is the output time of the previous step. */
PetscErrorCode TimeseriesWrite(MPI_Comm comm, Timeseries *ts, const StepStats *st, double wall_io);
/* Collective: an error on every rank if a row could not be written (rank 0's failed_step). */
PetscErrorCode TimeseriesCheck(MPI_Comm comm, const Timeseries *ts);
PetscErrorCode TimeseriesClose(Timeseries *ts);
#endif
