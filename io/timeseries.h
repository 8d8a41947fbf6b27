/* OUT/timeseries.csv: one row per step (GUIDE "Files"), written by rank 0. */
#ifndef CCPDEM_TIMESERIES_H
#define CCPDEM_TIMESERIES_H
#include <stdio.h>
#include "step_stats.h"

typedef struct {
  FILE *fp;                   /* rank 0 only */
} Timeseries;

/* Collective. Creates (or with append, opens for appending and drops rows with step >= first_step,
 * so a restart never duplicates rows) OUT/timeseries.csv and writes the header if new. */
PetscErrorCode TimeseriesOpen(MPI_Comm comm, const char *outdir, PetscBool append, PetscInt first_step, Timeseries *ts);
/* Collective (rank 0 writes). wall_io is the output time of the previous step. */
PetscErrorCode TimeseriesWrite(MPI_Comm comm, Timeseries *ts, const StepStats *st, double wall_io);
PetscErrorCode TimeseriesClose(Timeseries *ts);
#endif
