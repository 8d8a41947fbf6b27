/* What a CCP solve reports (CCPSolverSolve of ccp/solver.h; each method of ccp/method.h fills it). */
#ifndef CCPDEM_CCP_SOLVE_STATS_H
#define CCPDEM_CCP_SOLVE_STATS_H
#include <petscsys.h>

typedef struct {
  PetscInt iterations;        /* -ccp_type ipm: its Newton iterations (the polish's APGD iterations not included) */
  PetscInt passes;            /* passes over the contacts that made a step: APGD's accepted and rejected steps; the
                                 sweeps' iterations; -ccp_type ipm: Newton iterations + polish_iterations, so that
                                 passes - iterations are the polish's where only these two are carried */
  PetscInt linear_iterations; /* iterations of a linear solver inside the method (KSP), summed over the solve; 0 for
                                 the methods without one: Jacobi, Gauss-Seidel and APGD do not write it, so a caller
                                 starts from a zeroed struct (SimulationStep's StepWork is) */
  PetscInt polish_iterations; /* -ccp_type ipm: APGD iterations of the polish from the IPM's iterate (ccp/ipm.h); 0 for
                                 the other methods (CCPSolverSolve clears it) */
  double    res_max, res_rms; /* GUIDE residual (m/s) at the returned gamma */
  PetscBool converged;        /* res_max <= tolerance */
  PetscBool improved;         /* an iterate's residual was below the warm start's: the returned gamma is not the warm
                                 start */
  /* The solve stopped early on a step it found unsolvable (ccp/apgd.c's test: no solution, or an exact solution
     with explosive speeds; docs/design.md "Physics and numerics"), the same on every rank; only APGD tests, the other
     methods leave it PETSC_FALSE (CCPSolverSolve clears it). The returned gamma is still the best iterate. */
  PetscBool infeasible;
  PetscInt  infeasible_contact; /* with infeasible: this rank's contact (problem index) whose -b_n gamma_n is the
                                   largest at the iterate that showed it, -1 when this rank has none pushing apart */
  double infeasible_share;      /* that contact's -b_n gamma_n (J), to pick the largest over ranks */
} CCPSolveStats;
#endif
