/* CCP solvers (projected Jacobi, projected Gauss-Seidel, APGD) behind one object.
 * Lifecycle: Create -> SetFromOptions -> Solve (many times) -> Destroy.
 * Options (prefix -ccp_): -ccp_type jacobi|gauss-seidel|apgd, -ccp_max_it, -ccp_tol (m/s),
 * -ccp_jacobi_omega, -ccp_jacobi_lambda, -ccp_gs_omega, -ccp_check_interval (Jacobi and
 * Gauss-Seidel sweeps between exact residual checks), -ccp_apgd_lipschitz_initial|grow|decay,
 * -ccp_packed (false: the reference per-contact loops instead of the packed, vectorized layout),
 * -ccp_simd (false: the portable build of the packed kernels instead of AVX2+FMA). */
#ifndef CCPDEM_CCP_SOLVER_H
#define CCPDEM_CCP_SOLVER_H
#include "ccp_problem.h"
#include "scenario.h"

typedef struct _p_CCPSolver *CCPSolver;

typedef struct {
  PetscInt  iterations;
  double    res_max, res_rms;  /* GUIDE residual (m/s) at the returned gamma */
  PetscBool converged;         /* res_max <= tolerance */
} CCPSolveStats;

PetscErrorCode CCPSolverCreate(MPI_Comm comm, CCPSolver *s);
/* Defaults from the scenario's solver block, then the options database overrides. */
PetscErrorCode CCPSolverSetFromScenario(CCPSolver s, SolverType type, PetscInt max_it, double tol);
PetscErrorCode CCPSolverSetFromOptions(CCPSolver s);
/* Solve P in place: on entry gamma holds the warm start; on exit gamma is the best iterate found
 * and vel = v_free + M^-1 D gamma for it. Collective on the solver's communicator only in that
 * it is called by every rank; the core solve itself is local. */
PetscErrorCode CCPSolverSolve(CCPSolver s, CCPProblem *P, CCPSolveStats *stats);
PetscErrorCode CCPSolverGetType(CCPSolver s, SolverType *type);
PetscErrorCode CCPSolverGetTolerance(CCPSolver s, double *tol);
/* Return the last iterate instead of the best one. For a few inner sweeps inside an outer
 * iteration the best by residual is often the warm start itself, which would stall the outer loop. */
PetscErrorCode CCPSolverSetReturnLast(CCPSolver s, PetscBool last);
PetscErrorCode CCPSolverDestroy(CCPSolver *s);
#endif
