/* What a CCP solve reports (CCPSolverSolve of ccp/solver.h; each method of ccp/method.h fills it). */
#ifndef CCPDEM_CCP_SOLVE_STATS_H
#define CCPDEM_CCP_SOLVE_STATS_H
#include <petscsys.h>

typedef struct {
  PetscInt iterations;
  PetscInt passes;            /* passes over the contacts that made a step: APGD's accepted and rejected steps; the
                                 sweeps' iterations */
  PetscInt linear_iterations; /* iterations of a linear solver inside the method (KSP), summed over the solve; 0 for
                                 the methods without one: Jacobi, Gauss-Seidel and APGD do not write it, so a caller
                                 starts from a zeroed struct (SimulationStep's StepWork is) */
  double    res_max, res_rms; /* GUIDE residual (m/s) at the returned gamma */
  PetscBool converged;        /* res_max <= tolerance */
  PetscBool improved;         /* an iterate's residual was below the warm start's: the returned gamma is not the warm
                                 start */
} CCPSolveStats;
#endif
