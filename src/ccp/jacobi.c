/* Projected Jacobi: the fixed-point iteration of the paper's eq. 46 with K = 0,
 *
 *   gamma+ = lambda Proj(gamma - omega B (N gamma + r)) + (1 - lambda) gamma,
 *
 * B = diag(B_i), the per-contact step of ccp/kernels.h: eta_i for a 3-dof contact; for a 6-dof
 * contact separate force and torque steps with the matching metric projection (the GUIDE's
 * scalar eta_i would make the force rows ~R^2 too slow). Every contact's gradient is taken at the
 * same velocity v = v_free + M^-1 D gamma; the changes M^-1 D (gamma+ - gamma) accumulate in a
 * per-body increment dv in contact order and are added to v after the sweep, so the result
 * depends on nothing but the contact order. gamma is updated in place: contact i's update reads
 * only v and gamma_i.
 *
 * Step size: a projected gradient step in the B metric, stable when omega lambda < 2 /
 * lambda_max(B N). lambda_max is about 1.3 for a sphere on a plane and grows with the contacts per
 * body (on a random lattice with 6 neighbours per sphere omega = 1 diverged, 0.7 converged), hence
 * the default omega = 0.3 for dense packs. Too large a step makes the residual blow up; that is
 * detected and the best iterate returned.
 *
 * Convergence checks as in ccp/gauss_seidel.c: the exact residual when the sweep's largest change
 * |B_i^-1 change| / (omega lambda) reaches the tolerance, and every -ccp_check_interval sweeps (which also
 * keeps a copy of the best iterate).
 *
 * Two implementations of the same iteration: the packed one (default; ccp/pack.h, vectorized
 * blocks of 4 contacts, contacts in an order of their own; on several ranks with a coupling) and the
 * reference loops over the problem's contacts (-ccp_packed false; one rank). They differ only in the
 * order of floating-point sums. */
#include "ccp/method.h"

/* One sweep of the reference loops: every contact's update (ccp_kernel_relax) at the same velocity
 * P->vel, its M^-1 D_i (change) added to dv in contact order; then dv is added to P->vel and zeroed.
 * Returns the largest |B_i^-1 change|^2. */
static double jacobi_sweep_reference(CCPProblem *P, const CCPMetric *metric, double omega, double lambda, double *dv)
{
  double *v = P->vel, change2 = 0;

  for (PetscInt i = 0; i < P->ncontacts; i++)
    ccp_keep_max(&change2, ccp_kernel_relax(P, &metric[i], i, v, omega, lambda, dv));
  for (size_t k = 0; k < 6 * (size_t)P->nbodies; k++) {
    v[k] += dv[k];
    dv[k] = 0;
  }
  return change2;
}

/* The reference sweeps, in the problem's contact order (one rank). */
static PetscErrorCode JacobiReference(const CCPSolveContext *ctx, CCPProblem *P, CCPSolveStats *stats)
{
  const double   omega = ctx->set->jacobi_omega, lambda = ctx->set->jacobi_lambda;
  CCPMetric     *metric;
  CCPSweepChecks checks;

  PetscFunctionBegin;
  PetscCall(CCPSweepsStartReference(ctx, P, &metric, &checks));
  double *dv = ctx->work->work_v[0]; /* the sweep's increments */
  PetscCall(PetscArrayzero(dv, 6 * (size_t)P->nbodies));
  while (!ccp_sweeps_done(&checks)) {
    const double change2 = jacobi_sweep_reference(P, metric, omega, lambda, dv);
    ccp_sweeps_next_reference(&checks, P, sqrt(change2) / (omega * lambda));
  }
  ccp_sweeps_finish_reference(&checks, P, stats);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The packed sweeps (ccp_sweep_jacobi), each a pass over this rank's contacts between the coupling's
 * mark and sum, so that a shared body's velocity gets every rank's changes. */
static PetscErrorCode JacobiPacked(const CCPSolveContext *ctx, CCPProblem *P, CCPSolveStats *stats)
{
  const double   omega = ctx->set->jacobi_omega, lambda = ctx->set->jacobi_lambda;
  CCPPacked     *pk = &ctx->work->pk;
  CCPSweepChecks checks;

  PetscFunctionBegin;
  PetscCall(CCPSweepsStartPacked(ctx, P, PETSC_FALSE, &checks));
  while (!ccp_sweeps_done(&checks)) {
    PetscCall(CCPPackedMark(pk, ctx->coupling));
    double change2[2] = {0, ccp_sweep_jacobi(pk, pk->g[0], omega, lambda)};
    PetscCall(CCPPackedSum(pk, ctx->coupling));
    PetscCall(CCPCouplingReduce(ctx->coupling, change2, 2)); /* change2[1]: the largest change over all ranks */
    PetscCall(CCPSweepsNextPacked(&checks, ctx, sqrt(change2[1]) / (omega * lambda)));
  }
  PetscCall(CCPSweepsFinishPacked(&checks, ctx, P, stats));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolve_Jacobi(const CCPSolveContext *ctx, CCPProblem *P, CCPSolveStats *stats)
{
  PetscFunctionBegin;
  PetscCall(CCPCheckReferenceLocal(ctx, "Jacobi"));
  if (ctx->set->packed) PetscCall(JacobiPacked(ctx, P, stats));
  else PetscCall(JacobiReference(ctx, P, stats));
  PetscFunctionReturn(PETSC_SUCCESS);
}
