/* Private: the solver object and the per-method entry points. */
#ifndef CCPDEM_CCP_SOLVER_IMPL_H
#define CCPDEM_CCP_SOLVER_IMPL_H
#include "ccp_solver.h"

struct _p_CCPSolver {
  MPI_Comm   comm;
  SolverType type;
  PetscInt   max_it;        /* iteration cap per solve */
  double     tol;           /* m/s, on the GUIDE residual max */
  double     jacobi_omega;  /* eq. 46 step scale omega (multiplies eta_i) */
  double     jacobi_lambda; /* eq. 46 relaxation lambda in (0, 1] */
  double     gs_omega;      /* Gauss-Seidel over-relaxation of eta_i */
  /* workspace, grown on demand */
  size_t     ngamma_cap, nvel_cap;
  double    *work_g[6];     /* gamma-sized vectors */
  double    *work_v[2];     /* velocity-sized vectors */
};

PetscErrorCode CCPSolve_Jacobi(CCPSolver s, CCPProblem *P, CCPSolveStats *stats);
PetscErrorCode CCPSolve_GaussSeidel(CCPSolver s, CCPProblem *P, CCPSolveStats *stats);
PetscErrorCode CCPSolve_APGD(CCPSolver s, CCPProblem *P, CCPSolveStats *stats);
/* Ensure workspace for P. */
PetscErrorCode CCPSolverEnsureWork(CCPSolver s, const CCPProblem *P);
#endif
