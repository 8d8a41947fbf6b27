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
#include "ccp/kernels.h"

PetscErrorCode CCPSolve_GaussSeidel(CCPSolver s, CCPProblem *P, CCPSolveStats *stats)
{
  PetscFunctionBegin;
  PetscCheck(!CCPCoupled(s), s->comm, PETSC_ERR_SUP, "Gauss-Seidel is sequential over all contacts and cannot run on several ranks: use solver type apgd (or jacobi)");
  if (s->packed) PetscCall(CCPPackedSweepSolve(s, P, PETSC_TRUE, stats));
  else PetscCall(CCPReferenceSweepSolve(s, P, PETSC_TRUE, stats));
  PetscFunctionReturn(PETSC_SUCCESS);
}
