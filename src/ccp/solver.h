/* CCP solvers (projected Jacobi, projected Gauss-Seidel, APGD, the interior-point method) behind one object.
 * Lifecycle: Create -> SetFromOptions -> Solve (many times) -> Destroy.
 * Options (prefix -ccp_): -ccp_type jacobi|gauss-seidel|apgd|ipm, -ccp_max_it, -ccp_tol (m/s),
 * -ccp_jacobi_omega, -ccp_jacobi_lambda, -ccp_gs_omega, -ccp_check_interval (Jacobi and
 * Gauss-Seidel sweeps between exact residual checks), -ccp_apgd_check_interval,
 * -ccp_apgd_lipschitz_initial|grow|decay|keep, -ccp_apgd_scaling,
 * -ccp_packed (false: the reference per-contact loops instead of the packed, vectorized layout),
 * -ccp_simd generic|avx2|avx512vl (the highest instantiation of the packed kernels allowed: base/simd4_isa.h),
 * -ccp_ipm_* (the interior-point method's, ccp/ipm.h; its KSP's PETSc options with prefix -ccp_ipm_). */
#ifndef CCPDEM_CCP_SOLVER_H
#define CCPDEM_CCP_SOLVER_H
#include "ccp/problem.h"
#include "ccp/coupling.h"
#include "ccp/solve_stats.h"
#include "scenario/scenario.h"
#include "base/scratch_pool.h"

typedef struct _p_CCPSolver *CCPSolver;

PetscErrorCode CCPSolverCreate(MPI_Comm comm, CCPSolver *s);
/* Defaults from the scenario's solver block, then the options database overrides. */
PetscErrorCode CCPSolverSetFromScenario(CCPSolver s, SolverType type, PetscInt max_it, double tol);
PetscErrorCode CCPSolverSetFromOptions(CCPSolver s);
/* Whether the solvers will run on the packed layout (-ccp_packed, default true), for the checks of
 * a scenario (step/population.h) before or without a solver. */
PetscErrorCode CCPSolverPackedOption(PetscBool *packed);
/* Solve P in place: on entry gamma holds the warm start; on exit gamma is the best iterate found
 * and vel = v_free + M^-1 D gamma for it. Local, unless a coupling is set (then collective). */
PetscErrorCode CCPSolverSolve(CCPSolver s, CCPProblem *P, CCPSolveStats *stats);
PetscErrorCode CCPSolverGetType(CCPSolver s, SolverType *type);
/* The -ccp_type (solver.type) name of type: "jacobi", "gauss-seidel", "apgd" or "ipm" (static storage). */
const char    *CCPSolverTypeName(SolverType type);
PetscErrorCode CCPSolverGetTolerance(CCPSolver s, double *tol);

/* Couple the solves over ranks (ccp/coupling.h); NULL (the default) makes them local. */
PetscErrorCode CCPSolverSetCoupling(CCPSolver s, const CCPCoupling *coupling);
/* msg "" if s's method and options can be coupled over ranks, else what to change (for a bad-input report). */
PetscErrorCode CCPSolverCheckCoupling(CCPSolver s, char *msg, size_t len);
/* The pool of s's packed vectors (base/scratch_pool.h): dead between solves, so collision detection
 * may borrow it for its arrays (Broadphase.pool) instead of holding arrays of its own; it lives as
 * long as s. -ccp_release_layout empties it after each solve. */
PetscErrorCode CCPSolverScratch(CCPSolver s, ScratchPool **pool);
PetscErrorCode CCPSolverDestroy(CCPSolver *s);
#endif
