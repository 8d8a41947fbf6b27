/* The position pass of contact.overlap_correction position (a split impulse; docs/design.md "Physics
 * and numerics"): the velocity problem holds rigid overlaps (ccp/law.h, split) and this pass removes
 * them by pseudo-velocities w that move positions only, never the bodies' velocities, so it cannot
 * feed them energy. After the velocity solve (velocities v), one frictionless, normal-only CCP:
 *
 *   minimize 1/2 g^T (D_n^T M^-1 D_n + C) g + b^T g  over  g_n >= 0,   w = M^-1 D_n g,
 *
 * over the step's contacts (joint blocks left out), with the gap the step leaves, phi' = phi +
 * plastic + h D_n^T v: b_n = contact_law_recovery(phi') for a rigid overlap (deeper than the overlap
 * tolerance: pushed back at up to max_recovery_speed), phi' / h for a gap (the pass may not close
 * it), 0 for a compliant overlap (a spring's deflection, not an error: held). Free pseudo-velocities
 * zero, walls immovable. C = OVERLAP_CORRECTION_REGULARIZATION (1/m_a + 1/m_b) on each row makes the
 * problem strongly convex, so it has one solution and is bounded even where overlaps cannot be
 * removed (a body squeezed between walls: |g| <= v_recover sqrt(n) / C_min). */
#ifndef CCPDEM_CCP_OVERLAP_CORRECTION_H
#define CCPDEM_CCP_OVERLAP_CORRECTION_H
#include "ccp/pairs.h"
#include "ccp/solver.h"

/* C over the rows' 1/m_a + 1/m_b: a lone contact has 1 / 1.01 of its overlap removed per step; the slow
 * modes of long chains (N's eigenvalues fall as 1/k^2 along k bodies) over several steps. */
#define OVERLAP_CORRECTION_REGULARIZATION 1e-2

typedef struct _p_OverlapCorrection *OverlapCorrection;

/* Collective on comm. A pass solved by its own CCPSolver (so the velocity solve's outputs stay valid),
 * set like the velocity solve's: type, cap and tolerance, then the -ccp_ options. */
PetscErrorCode OverlapCorrectionCreate(MPI_Comm comm, SolverType type, PetscInt max_it, double tol,
                                       OverlapCorrection *oc);
/* Couple the pass over ranks like the velocity solve (ccp/coupling.h); not collective. */
PetscErrorCode OverlapCorrectionSetCoupling(OverlapCorrection oc, const CCPCoupling *coupling);
/* Not collective. Forms the pass from the solved velocity problem P (its contacts, bodies and vel)
 * and the pairs' parameters cp; *push: whether some contact of this rank has b_n < 0 (no such contact
 * on any rank: the pass has nothing to do and may be skipped by all). */
PetscErrorCode OverlapCorrectionForm(OverlapCorrection oc, const CCPProblem *P, const ContactPairs *cp,
                                     PetscBool *push);
/* Solves the formed pass (collective when coupled): *w <- the pseudo-velocities, 6 per solver body of P
 * (world frame, linear then angular), valid until the next Form; P must be the Form's and alive. */
PetscErrorCode OverlapCorrectionSolve(OverlapCorrection oc, const CCPProblem *P, CCPSolveStats *stats,
                                      const double **w);
PetscErrorCode OverlapCorrectionDestroy(OverlapCorrection *oc);
#endif
