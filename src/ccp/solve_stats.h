/* What a CCP solve reports (CCPSolverSolve of ccp/solver.h; each method of ccp/method.h fills it). */
#ifndef CCPDEM_CCP_SOLVE_STATS_H
#define CCPDEM_CCP_SOLVE_STATS_H
#include <petscsys.h>

typedef struct {
  PetscInt iterations;
  PetscInt passes;            /* passes over the contacts that made a step: APGD's accepted and rejected steps; the
                                 sweeps' iterations */
  double    res_max, res_rms; /* GUIDE residual (m/s) at the returned gamma */
  PetscBool converged;        /* res_max <= tolerance */
  PetscBool improved;         /* an iterate's residual was below the warm start's: the returned gamma is not the warm
                                 start */
} CCPSolveStats;
#endif
