/* OUT/timeseries.csv: one row per step (GUIDE "Files"), written by rank 0. */
#ifndef CCPDEM_TIMESERIES_H
#define CCPDEM_TIMESERIES_H
#include <stdio.h>
#include "step/step_stats.h"

typedef struct {
  FILE    *fp;                /* rank 0 only */
  PetscInt failed_step;       /* rank 0: the first step whose row could not be written, or -1 */
} Timeseries;

/* Collective. Creates (or with append, opens for appending and drops rows with step >= first_step,
 * so a restart never duplicates rows) OUT/timeseries.csv and writes the header if new. */
PetscErrorCode TimeseriesOpen(MPI_Comm comm, const char *outdir, PetscBool append, PetscInt first_step, Timeseries *ts);
/* Rank 0 writes the row; not collective, so that the failure of a write (its message printed, the
 * step kept in failed_step) travels with a collective the caller makes anyway (RUN_FLAG_OUTPUT_FAILED)
 * instead of one of its own per row. wall_io is the output time of the previous step. */
PetscErrorCode TimeseriesWrite(MPI_Comm comm, Timeseries *ts, const StepStats *st, double wall_io);
/* Collective: an error on every rank if a row could not be written (rank 0's failed_step). */
PetscErrorCode TimeseriesCheck(MPI_Comm comm, const Timeseries *ts);
PetscErrorCode TimeseriesClose(Timeseries *ts);
#endif
