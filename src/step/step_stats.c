/* The statistics of a step (io/timeseries.h StepStats), global over ranks: the sums and maxima of
 * every rank combined in one reduction (step/step_reduce.h), which also carries the run loop's
 * requests (RunFlag), the contact model's maximum (ContactModelOps.local_maximum), the lowest id
 * of a body set aside as not finite and, on several ranks, the counts of a migration decision
 * (PlacementEnd). */
#include "step/simulation_impl.h"
#include "step/step_reduce.h"
#include <inttypes.h>
#include <math.h>

_Static_assert((int)STEP_MOVE_SUMS == (int)EXCHANGE_MOVE_COUNTS,
               "the statistics carry the migration decision's counts");

/* Whether a[0 .. n) are all finite: NaN and infinities survive a multiplication by 0, which keeps
 * the sums 0 however large the finite values; four sums, so the adds do not wait on each other. */
static PetscBool AllFinite(const double *a, size_t n)
{
  double acc[4] = {0, 0, 0, 0};
  size_t i      = 0;
  for (; i + 4 <= n; i += 4)
    for (int l = 0; l < 4; l++) acc[l] += a[i + l] * 0.0;
  for (; i < n; i++) acc[0] += a[i] * 0.0;
  return (PetscBool)(acc[0] + acc[1] + acc[2] + acc[3] == 0);
}

void StepSetAsideNonFinite(Simulation sim, StepWork *w)
{
  BodyStore   *s = &sim->bodies;
  const size_t n = (size_t)s->n_owned;

  w->nonfinite = 0;
  if (AllFinite(s->pos, 3 * n) && AllFinite(s->vel, 6 * n) && AllFinite(s->quat, 4 * n)) return;
  for (PetscInt i = s->n_owned - 1; i >= 0; i--) {
    if (AllFinite(s->pos + 3 * i, 3) && AllFinite(s->vel + 6 * i, 6) && AllFinite(s->quat + 4 * i, 4)) continue;
    if (!w->nonfinite || s->id[i] < w->nonfinite_id) w->nonfinite_id = s->id[i];
    w->nonfinite++;
    BodyStoreRemoveOwned(s, i);
    SimulationBodiesRearranged(sim);
  }
}

/* Statistics that are not finite although every body's state is: the lowest id of a body whose
 * terms are not (a speed or an energy overflowed), else -1 (the solve's residual). Collective. */
static PetscErrorCode LowestNonFiniteTerm(Simulation sim, int64_t *id)
{
  const BodyStore *s     = &sim->bodies;
  int64_t          local = INT64_MAX;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < s->n_owned; i++) {
    double speed = 0, energy[2] = {0, 0};
    StepStatsAddBody(s, i, sim->sc.gravity, &speed, energy);
    if (!(isfinite(speed) && isfinite(energy[0]) && isfinite(energy[1]))) local = PetscMin(local, s->id[i]);
  }
  PetscCallMPI(MPI_Allreduce(&local, id, 1, MPI_INT64_T, MPI_MIN, sim->comm));
  if (*id == INT64_MAX) *id = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The error that stops a run whose state is not finite after this step (body id, or -1: the solve). */
static PetscErrorCode NonFiniteError(Simulation sim, int64_t id, const char *what)
{
  PetscFunctionBegin;
  if (id >= 0)
    SETERRQ(sim->comm, PETSC_ERR_FP,
            "step %" PetscInt64_FMT " (t = %g s): body %" PRId64
            " has a non-finite %s, so the run diverged (a time step too long for stiff contacts, or huge values); "
            "nothing of this step was written: rerun or restart from a checkpoint with a smaller time.step",
            sim->step, sim->time, id, what);
  SETERRQ(sim->comm, PETSC_ERR_FP,
          "step %" PetscInt64_FMT " (t = %g s): the contact solve's residual is not finite, so the run diverged; "
          "nothing of this step was written: rerun or restart from a checkpoint with a smaller time.step",
          sim->step, sim->time);
}

PetscErrorCode StepStatsCompute(Simulation sim, const StepWork *w)
{
  const BodyStore *s              = &sim->bodies;
  StepStats       *st             = &sim->last;
  Placement       *pl             = &sim->place;
  double           sum[STEP_SUMS] = {0}, max[STEP_MAXES] = {0}, gsum[STEP_SUMS], gmax[STEP_MAXES];
  PetscInt         leaving = 0; /* owned bodies out of the domain, removed after the reduction */

  PetscFunctionBegin;
  st->step              = sim->step;
  st->time              = sim->time;
  st->iterations        = w->solve.iterations;
  st->passes            = w->solve.passes;
  st->linear_iterations = w->solve.linear_iterations;
  st->residual_max      = w->solve.res_max;
  st->residual_rms      = w->solve.res_rms;
  st->converged         = w->solve.converged;
  /* A solve that returned its warm start unchanged added nothing that could accumulate, and a
   * decay would only take support away (docs/design.md "Warm start"). */
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
  max[3]              = w->nonfinite ? -(double)w->nonfinite_id : -INFINITY; /* ids are exact below 2^53 */
  max[4]              = sum[3];
  max[5]              = sum[2] + sum[3]; /* the work: owned bodies and contacts */
  for (int k = 0; k < RUN_FLAGS; k++) max[STEP_MAX_FLAGS + k] = sim->requests[k] ? 1 : 0;
  PetscCall(StepReduce(sim->comm, sum, max, gsum, gmax));
  if (gmax[3] > -INFINITY) PetscCall(NonFiniteError(sim, (int64_t)-gmax[3], "position, velocity or orientation"));
  if (!(isfinite(gsum[0]) && isfinite(gsum[1]) && isfinite(gmax[0]) && isfinite(w->solve.res_max) &&
        isfinite(w->solve.res_rms))) {
    int64_t id;
    PetscCall(LowestNonFiniteTerm(sim, &id));
    PetscCall(NonFiniteError(sim, id, "speed or energy"));
  }
  for (int k = 0; k < STEP_MOVE_SUMS; k++) pl->moves_global[k] = (PetscInt)gsum[STEP_SUM_MOVES + k];
  st->kinetic_energy     = gsum[0];
  st->potential_energy   = gsum[1];
  st->bodies             = (PetscInt64)gsum[2];
  st->contacts           = (PetscInt64)gsum[3];
  st->ghosts             = (PetscInt64)gsum[4];
  st->bytes_sent         = (PetscInt64)gsum[5];
  st->warm_started       = (PetscInt64)gsum[6];
  st->max_speed          = gmax[0];
  st->imbalance          = gsum[2] > 0 ? gmax[1] * sim->size / gsum[2] : 1.0; /* as DomainImbalance */
  pl->imbalance_contacts = gsum[3] > 0 ? gmax[4] * sim->size / gsum[3] : 1.0;
  pl->imbalance_work     = gsum[2] + gsum[3] > 0 ? gmax[5] * sim->size / (gsum[2] + gsum[3]) : 1.0;
  /* due above the threshold unless whole bodies and contacts allow no better: a few bodies on many ranks
   * would otherwise be rebalanced every step for nothing (and lose the kept ghosts each time) */
  pl->balance_due = (PetscBool)(pl->domain && pl->balance_threshold > 0 && pl->imbalance_work > pl->balance_threshold &&
                                gmax[5] > PetscCeilReal((gsum[2] + gsum[3]) / sim->size) + 1);
  for (int k = 0; k < RUN_FLAGS; k++) sim->agreed[k] = (PetscBool)(gmax[STEP_MAX_FLAGS + k] > 0);
  if (sim->model->reduced) PetscCall(sim->model->reduced(sim, gmax[2]));
  PetscFunctionReturn(PETSC_SUCCESS);
}
