/* The per-step statistics of all ranks in one collective: STEP_SUMS values summed and STEP_MAXES
 * values maximized by a single MPI_Allreduce with a combined operation, instead of one reduction
 * per statistic (each collective costs a round trip, and on an oversubscribed machine a
 * scheduling quantum). Counts travel as doubles: exact below 2^53. */
#ifndef CCPDEM_STEP_STEP_REDUCE_H
#define CCPDEM_STEP_STEP_REDUCE_H
#include "step/simulation.h"

/* The sums end with STEP_MOVE_SUMS counts of the migration decision (decomp/migration.h
 * ExchangeMovesLocal), which ride on this reduction in a distributed penalty run. */
/* The maxima end with the RUN_FLAGS run flags. STEP_SUM_MOVES, STEP_MAX_FLAGS: where those start. */
enum {
  STEP_MOVE_SUMS = 4,
  STEP_SUM_MOVES = 7,
  STEP_SUMS      = STEP_SUM_MOVES + STEP_MOVE_SUMS,
  STEP_MAX_FLAGS = 6,
  STEP_MAXES     = STEP_MAX_FLAGS + RUN_FLAGS
};

/* sum_out = the sums of sum_in over the ranks of comm, max_out the maxima of max_in. Collective. */
PetscErrorCode StepReduce(MPI_Comm comm, const double sum_in[STEP_SUMS], const double max_in[STEP_MAXES],
                          double sum_out[STEP_SUMS], double max_out[STEP_MAXES]);
#endif
