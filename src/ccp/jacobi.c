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
 * blocks of 4 contacts, contacts in an order of their own) and the reference loops over the
 * problem's contacts (-ccp_packed false). They differ only in the order of floating-point sums. */
#include "ccp/kernels.h"

PetscErrorCode CCPSolve_Jacobi(CCPSolver s, CCPProblem *P, CCPSolveStats *stats)
{
  PetscFunctionBegin;
  PetscCheck(s->packed || !CCPCoupled(s), s->comm, PETSC_ERR_SUP, "The reference Jacobi loops (-ccp_packed false) are single-rank only: drop -ccp_packed false to run on several ranks");
  if (s->packed) PetscCall(CCPPackedSweepSolve(s, P, PETSC_FALSE, stats));
  else PetscCall(CCPReferenceSweepSolve(s, P, PETSC_FALSE, stats));
  PetscFunctionReturn(PETSC_SUCCESS);
}
