/* Private to ccp/solver.c: the solver object's fields. The methods see the options, the coupling and
 * the workspace through a CCPSolveContext (ccp/method.h), never this struct. */
#ifndef CCPDEM_CCP_SOLVER_IMPL_H
#define CCPDEM_CCP_SOLVER_IMPL_H
#include "ccp/solver.h"
#include "ccp/method.h"

struct _p_CCPSolver {
  MPI_Comm     comm;
  SolverType   type;
  CCPSettings  set;      /* the options (ccp/method.h) */
  CCPCoupling  coupling; /* over ranks; all NULL: local */
  CCPWorkspace work;     /* the solves' memory: packed layout, reference loops' arrays, output velocities */
};
#endif
