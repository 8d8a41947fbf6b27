/* The statistics of a step (io/timeseries.h StepStats), global over ranks: the sums and maxima of
 * every rank combined in one reduction (step/step_reduce.h), which also carries the run loop's
 * requests (RunFlag), the contact model's maximum (ContactModelOps.local_maximum) and, on several
 * ranks, the counts of a migration decision (PlacementEnd). */
#include "step/simulation_impl.h"
#include "step/step_reduce.h"

_Static_assert((int)STEP_MOVE_SUMS == (int)EXCHANGE_MOVE_COUNTS,
               "the statistics carry the migration decision's counts");

PetscErrorCode StepStatsCompute(Simulation sim, const StepWork *w)
{
  const BodyStore *s              = &sim->bodies;
  StepStats       *st             = &sim->last;
  Placement       *pl             = &sim->place;
  double           sum[STEP_SUMS] = {0}, max[STEP_MAXES] = {0}, gsum[STEP_SUMS], gmax[STEP_MAXES];
  PetscInt         leaving = 0; /* owned bodies out of the domain, removed after the reduction */

  PetscFunctionBegin;
  st->step         = sim->step;
  st->time         = sim->time;
  st->iterations   = w->solve.iterations;
  st->passes       = w->solve.passes;
  st->residual_max = w->solve.res_max;
  st->residual_rms = w->solve.res_rms;
  st->converged    = w->solve.converged;
  /* A solve that returned its warm start unchanged added nothing that could accumulate, and a
   * decay would only take support away (README "Warm start"). */
  st->keep_impulses = (PetscBool)(w->solve.converged || !w->solve.improved);
  st->wall_comm     = w->comm;
  if (pl->moves_pending) {
    leaving = pl->moves_local[0];
    for (int k = 0; k < STEP_MOVE_SUMS; k++) sum[STEP_SUM_MOVES + k] = (double)pl->moves_local[k];
  }
  if (sim->advanced.valid && !leaving) { /* the same sums in the same order */
    max[0] = sim->advanced.max_speed;
    sum[0] = sim->advanced.energy[0];
    sum[1] = sim->advanced.energy[1];
  } else
    for (PetscInt i = 0; i < s->n_owned; i++) {
      if (leaving && DomainOwnerOfPoint(pl->domain, s->pos + 3 * i) < 0) continue; /* as if removed already */
      StepStatsAddBody(s, i, sim->sc.gravity, &max[0], sum);
    }
  sim->advanced.valid = PETSC_FALSE; /* used */
  sum[2]              = (double)(s->n_owned - leaving);
  sum[3]              = (double)(sim->contacts.n - sim->joints.active);
  sum[4]              = (double)pl->exchange.n_ghost; /* the ghosts of this step (0 on one rank) */
  sum[5]              = (double)w->bytes;
  sum[6]              = (double)w->matched;
  max[1]              = (double)(s->n_owned - leaving);
  max[2]              = sim->model->local_maximum ? sim->model->local_maximum(sim) : -INFINITY;
  for (int k = 0; k < RUN_FLAGS; k++) max[STEP_MAX_FLAGS + k] = sim->requests[k] ? 1 : 0;
  PetscCall(StepReduce(sim->comm, sum, max, gsum, gmax));
  for (int k = 0; k < STEP_MOVE_SUMS; k++) pl->moves_global[k] = (PetscInt)gsum[STEP_SUM_MOVES + k];
  st->kinetic_energy   = gsum[0];
  st->potential_energy = gsum[1];
  st->bodies           = (PetscInt64)gsum[2];
  st->contacts         = (PetscInt64)gsum[3];
  st->ghosts           = (PetscInt64)gsum[4];
  st->bytes_sent       = (PetscInt64)gsum[5];
  st->warm_started     = (PetscInt64)gsum[6];
  st->max_speed        = gmax[0];
  st->imbalance        = gsum[2] > 0 ? gmax[1] * sim->size / gsum[2] : 1.0; /* as DomainImbalance */
  for (int k = 0; k < RUN_FLAGS; k++) sim->agreed[k] = (PetscBool)(gmax[STEP_MAX_FLAGS + k] > 0);
  if (sim->model->reduced) PetscCall(sim->model->reduced(sim, gmax[2]));
  PetscFunctionReturn(PETSC_SUCCESS);
}
