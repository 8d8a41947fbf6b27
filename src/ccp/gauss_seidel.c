/* Projected Gauss-Seidel (block SOR): sweep the contacts in order; for each, take the gradient at
 * the current velocity, update
 *
 *   gamma_i <- Proj_i(gamma_i - omega B_i g_i)
 *
 * and add M^-1 D_i (change) to the velocity at once, so later contacts see it. B_i is the
 * per-contact step of ccp/kernels.h (eta_i for 3-dof; separate force and torque steps, with the
 * matching metric projection, for 6-dof). Forward sweeps only: the order is the contact order
 * (sorted by key), hence deterministic. omega = 1 (default) is plain block Gauss-Seidel; it
 * converges for omega in (0, 2) on well-posed steps.
 *
 * The largest per-contact change |B_i^-1 change| / omega of a sweep goes to zero with the residual
 * (it is |g_i| where the projection is inactive) but is not the GUIDE residual of any one iterate.
 * So the exact residual is evaluated (one extra gradient pass) when that change falls to the
 * tolerance and every -ccp_check_interval sweeps; those checks keep a copy of the best iterate,
 * returned when the sweeps stop without converging (iteration cap, unsolvable or diverging).
 *
 * Two implementations: the packed one (default; ccp/pack.h) sweeps conflict-free blocks of 4
 * contacts (no two share a movable body, so updating a block's lanes at once is the same as one
 * after another) in the packed order, which is deterministic but not the problem's order; the
 * reference loops (-ccp_packed false) sweep in the problem's order. Both are Gauss-Seidel
 * sweeps, in different orders: their iterates differ, not their fixed points. */
#include "ccp/method.h"

/* One sweep of the reference loops: each contact's update (ccp_kernel_relax, lambda 1) at the
 * velocity P->vel, its M^-1 D_i (change) added to P->vel at once. Returns the largest |B_i^-1 change|^2. */
static double gauss_seidel_sweep_reference(CCPProblem *P, const CCPMetric *metric, double omega)
{
  double change2 = 0;

  for (PetscInt i = 0; i < P->ncontacts; i++)
    ccp_keep_max(&change2, ccp_kernel_relax(P, &metric[i], i, P->vel, omega, 1, P->vel));
  return change2;
}

/* The reference sweeps, in the problem's contact order. */
static PetscErrorCode GaussSeidelReference(const CCPSolveContext *ctx, CCPProblem *P, CCPSolveStats *stats)
{
  const double   omega = ctx->set->gs_omega;
  CCPSweepChecks checks;
  CCPMetric     *metric;

  PetscFunctionBegin;
  PetscCall(CCPSweepsStartReference(ctx, P, &metric, &checks));
  while (!ccp_sweeps_done(&checks)) {
    const double change2 = gauss_seidel_sweep_reference(P, metric, omega);
    ccp_sweeps_next_reference(&checks, P, sqrt(change2) / omega);
  }
  ccp_sweeps_finish_reference(&checks, P, stats);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The packed sweeps (ccp_sweep_gauss_seidel) over conflict-free blocks, in the packed order. One rank
 * (CCPSolve_GaussSeidel refuses a coupling): no coupling calls around them. */
static PetscErrorCode GaussSeidelPacked(const CCPSolveContext *ctx, CCPProblem *P, CCPSolveStats *stats)
{
  const double   omega = ctx->set->gs_omega;
  CCPPacked     *pk    = &ctx->work->pk;
  CCPSweepChecks checks;

  PetscFunctionBegin;
  PetscCall(CCPSweepsStartPacked(ctx, P, PETSC_TRUE, &checks));
  while (!ccp_sweeps_done(&checks)) {
    const double change2 = ccp_sweep_gauss_seidel(pk, pk->g[0], omega);
    PetscCall(CCPSweepsNextPacked(&checks, ctx, sqrt(change2) / omega));
  }
  PetscCall(CCPSweepsFinishPacked(&checks, ctx, P, stats));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolve_GaussSeidel(const CCPSolveContext *ctx, CCPProblem *P, CCPSolveStats *stats)
{
  PetscFunctionBegin;
  PetscCheck(!CCPCoupled(ctx->coupling), ctx->comm, PETSC_ERR_SUP,
             "Gauss-Seidel is sequential over all contacts and cannot run on several ranks: use solver type apgd (or"
             " jacobi)");
  if (ctx->set->packed) PetscCall(GaussSeidelPacked(ctx, P, stats));
  else PetscCall(GaussSeidelReference(ctx, P, stats));
  PetscFunctionReturn(PETSC_SUCCESS);
}
