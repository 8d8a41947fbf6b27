/* The bookkeeping the CCP methods share (ccp/method.h): the sweeps' exact residual checks and the end
 * of a solve, on the packed layout and on the reference loops. */
#include "ccp/method.h"
#include <string.h>

/* A check's decision given the iterate's exact residual: c's state, best residual and (on the first
 * check) the warm start's; *improved: the caller keeps a copy of the iterate as the best. */
static void sweeps_decide(CCPSweepChecks *c, double res_max, PetscBool *improved)
{
  const PetscBool last = (PetscBool)(c->it == c->set->max_it);
  c->state             = ccp_checkpoint_decide(res_max, c->set->tol, last, &c->best_res, improved);
  if (c->it == 0) c->res_start = c->best_res;
}

static void sweeps_start(CCPSweepChecks *c, const CCPSettings *set, const double *gamma, double *best)
{
  *c = (CCPSweepChecks){set, gamma, best, 0, PETSC_INFINITY, PETSC_INFINITY, CCP_CONTINUE};
}

/* After sweep c->it, whose largest change was `change`: whether to check the next iterate. */
static PetscBool sweeps_advance(CCPSweepChecks *c, double change)
{
  const PetscBool check = ccp_need_check(c->set->tol, change, c->best_res, c->it, c->set->check_interval);
  c->it++;
  return (PetscBool)(check || c->it == c->set->max_it);
}

/* The iterate a sweep solve returns: the best checked one when the solve stopped without converging. */
static const double *sweeps_result(const CCPSweepChecks *c)
{
  return c->state == CCP_STOP && c->best_res < PETSC_INFINITY ? c->best : c->gamma;
}

/* The check of the packed iterate c->gamma at the bodies' velocities. */
static PetscErrorCode sweeps_check_packed(CCPSweepChecks *c, const CCPSolveContext *ctx)
{
  const CCPPacked *pk = &ctx->work->pk;
  double           res_max, res_rms;
  PetscBool        improved;

  PetscFunctionBegin;
  PetscCall(CCPPackedResidual(pk, ctx->coupling, c->gamma, CCP_SLOT_V, &res_max, &res_rms));
  sweeps_decide(c, res_max, &improved);
  if (improved) PetscCall(PetscArraycpy(c->best, c->gamma, ccp_packed_len(pk)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSweepsStartPacked(const CCPSolveContext *ctx, const CCPProblem *P, PetscBool conflict_free,
                                    CCPSweepChecks *c)
{
  CCPPacked *pk = &ctx->work->pk;

  PetscFunctionBegin;
  PetscCall(CCPPackedBuild(pk, P, 2, conflict_free, CCP_SLOTS_SWEEP));
  pk->simd = ctx->set->simd;
  PetscCall(CCPPackedVelocity(pk, ctx->coupling, P, pk->g[0], PETSC_TRUE));
  sweeps_start(c, ctx->set, pk->g[0], pk->g[1]);
  PetscCall(sweeps_check_packed(c, ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSweepsNextPacked(CCPSweepChecks *c, const CCPSolveContext *ctx, double change)
{
  PetscFunctionBegin;
  if (sweeps_advance(c, change)) PetscCall(sweeps_check_packed(c, ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSweepsFinishPacked(const CCPSweepChecks *c, const CCPSolveContext *ctx, CCPProblem *P,
                                     CCPSolveStats *stats)
{
  PetscFunctionBegin;
  stats->improved = (PetscBool)(c->best_res < c->res_start);
  PetscCall(CCPFinishPacked(ctx, P, sweeps_result(c), c->it, stats));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The check of the reference iterate P->gamma at P->vel. */
static void sweeps_check_reference(CCPSweepChecks *c, const CCPProblem *P)
{
  double    res_max, res_rms;
  PetscBool improved;

  ccp_residual(P, c->gamma, P->vel, &res_max, &res_rms);
  sweeps_decide(c, res_max, &improved);
  if (improved) memcpy(c->best, c->gamma, (size_t)CONTACT_DOF_MAX * P->ncontacts * sizeof(double));
}

PetscErrorCode CCPSweepsStartReference(const CCPSolveContext *ctx, CCPProblem *P, CCPMetric **metric, CCPSweepChecks *c)
{
  PetscFunctionBegin;
  PetscCall(CCPWorkspaceEnsure(ctx->work, P));
  *metric = (CCPMetric *)ctx->work->work_g[1]; /* per-contact steps, computed once */
  ccp_kernel_metrics(P, *metric);
  ccp_velocity_from_impulses(P, P->gamma, P->vel);
  sweeps_start(c, ctx->set, P->gamma, ctx->work->work_g[0]);
  sweeps_check_reference(c, P);
  PetscFunctionReturn(PETSC_SUCCESS);
}

void ccp_sweeps_next_reference(CCPSweepChecks *c, const CCPProblem *P, double change)
{
  if (sweeps_advance(c, change)) sweeps_check_reference(c, P);
}

void ccp_sweeps_finish_reference(const CCPSweepChecks *c, CCPProblem *P, CCPSolveStats *stats)
{
  stats->improved = (PetscBool)(c->best_res < c->res_start);
  ccp_finish_reference(P, sweeps_result(c), c->it, c->set->tol, stats);
}

/* stats' counts and verdict once res_max is set */
static void finish_stats(CCPSolveStats *stats, PetscInt iterations, double tol)
{
  stats->iterations = stats->passes = iterations; /* (APGD counts its passes after) */
  stats->converged                  = (PetscBool)(stats->res_max <= tol);
}

void ccp_finish_reference(CCPProblem *P, const double *gamma, PetscInt iterations, double tol, CCPSolveStats *stats)
{
  if (gamma != P->gamma) memcpy(P->gamma, gamma, (size_t)CONTACT_DOF_MAX * P->ncontacts * sizeof(double));
  ccp_velocity_from_impulses(P, P->gamma, P->vel);
  ccp_residual(P, P->gamma, P->vel, &stats->res_max, &stats->res_rms);
  finish_stats(stats, iterations, tol);
}

PetscErrorCode CCPFinishPacked(const CCPSolveContext *ctx, CCPProblem *P, const double *x, PetscInt iterations,
                               CCPSolveStats *stats)
{
  PetscFunctionBegin;
  PetscCall(CCPPackedFinish(&ctx->work->pk, ctx->coupling, P, x, &stats->res_max, &stats->res_rms));
  PetscCall(CCPWorkspaceOutputVelocity(ctx->work, ctx->set->release_layout, P)); /* x and the pool are dead now */
  CCPPackedVelocityOut(&ctx->work->pk, P);
  finish_stats(stats, iterations, ctx->set->tol);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPCheckReferenceLocal(const CCPSolveContext *ctx, const char *method)
{
  PetscFunctionBegin;
  PetscCheck(ctx->set->packed || !CCPCoupled(ctx->coupling), ctx->comm, PETSC_ERR_SUP,
             "The reference %s loops (-ccp_packed false) are single-rank only: drop -ccp_packed false to run on"
             " several ranks",
             method);
  PetscFunctionReturn(PETSC_SUCCESS);
}
