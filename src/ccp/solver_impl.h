/* Private: the solver object and the per-method entry points. */
#ifndef CCPDEM_CCP_SOLVER_IMPL_H
#define CCPDEM_CCP_SOLVER_IMPL_H
#include "ccp/solver.h"
#include "ccp/pack.h"
#include <math.h>

struct _p_CCPSolver {
  MPI_Comm   comm;
  SolverType type;
  PetscInt   max_it;        /* iteration cap per solve */
  double     tol;           /* m/s, on the GUIDE residual max */
  double     jacobi_omega;  /* eq. 46 step scale omega (multiplies eta_i) */
  double     jacobi_lambda; /* eq. 46 relaxation lambda in (0, 1] */
  double     gs_omega;      /* Gauss-Seidel over-relaxation of eta_i */
  PetscInt   check_interval; /* Jacobi, Gauss-Seidel: sweeps between exact residual checks */
  PetscInt   apgd_check_interval; /* APGD: iterations between exact residual checks */
  CCPCoupling coupling;      /* over ranks; all NULL: local */
  PetscBool  packed;        /* run the solvers on the packed layout (ccp/pack.h); else the reference loops */
  Simd4Isa   simd;          /* packed kernels: the best instantiation the CPU runs up to this one */
  PetscBool  release_layout; /* free the packed layout and workspace after each solve (lower peak memory, fresh pages per solve) */
  double     apgd_L0;       /* APGD initial Lipschitz estimate (in the metric of the per-contact steps) */
  double     apgd_L_grow;   /* APGD backtracking factor on L (> 1) */
  double     apgd_L_decay;  /* APGD factor on L after each accepted iteration (in (0, 1]) */
  CCPPacked  pk;            /* the packed layout, rebuilt by each solve (memory kept unless release_layout) */
  /* workspace of the reference loops, grown on demand (freed after each solve with release_layout) */
  size_t     ngamma_cap, nvel_cap;
  double    *work_g[6];     /* gamma-sized vectors */
  double    *work_v[3];     /* velocity-sized vectors */
  double    *vel_out;       /* with release_layout, the velocities of a problem without its own (CCPSolverOutputVelocity) */
  size_t     nbody_cap;
  double    *ref_body[3];   /* the reference loops' solver bodies, filled from a body source: inverse mass, inertia, free velocity */
  size_t     nterms_cap;
  CCPContactTerms *ref_terms; /* the reference loops' contact terms, eta included (CCPReferenceProblem) */
};

PetscErrorCode CCPSolve_Jacobi(CCPSolver s, CCPProblem *P, CCPSolveStats *stats);
PetscErrorCode CCPSolve_GaussSeidel(CCPSolver s, CCPProblem *P, CCPSolveStats *stats);
PetscErrorCode CCPSolve_APGD(CCPSolver s, CCPProblem *P, CCPSolveStats *stats);
/* The coupling's calls (ccp/solver.h); nothing on a local solve. */
static inline PetscErrorCode CCPCouplingMark(CCPSolver s, const double *v, size_t stride)
{
  return s->coupling.mark ? s->coupling.mark(s->coupling.ctx, v, stride) : PETSC_SUCCESS;
}
static inline PetscErrorCode CCPCouplingSum(CCPSolver s, double *v, size_t stride)
{
  return s->coupling.sum ? s->coupling.sum(s->coupling.ctx, v, stride) : PETSC_SUCCESS;
}
static inline PetscErrorCode CCPCouplingReduce(CCPSolver s, double *x, int n)
{
  return s->coupling.reduce ? s->coupling.reduce(s->coupling.ctx, x, n) : PETSC_SUCCESS;
}
static inline PetscBool CCPCoupled(CCPSolver s) { return (PetscBool)(s->coupling.sum != NULL); }

/* An error unless eta, contact i's ccp_contact_eta (the solve's step), is a usable step. */
static inline PetscErrorCode CCPCheckEta(PetscInt i, double eta)
{
  PetscFunctionBegin;
  PetscCheck(eta > 0 && isfinite(eta), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Contact %" PetscInt_FMT " has eta %g (dof / trace of its diagonal block; > 0 needed): two immovable bodies without compliance cannot be in contact", i, eta);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* P->vel NULL (ccp/problem.h): P->vel <- the solve's own buffer for nbodies velocities. Call it
 * once the solve's scratch pool is dead (slot SCRATCH_SOLVE_VELOCITIES: resident pages, no new
 * ones), or before a solve that does not use the pool. */
PetscErrorCode CCPSolverOutputVelocity(CCPSolver s, CCPProblem *P);
/* Ensure workspace for P. */
PetscErrorCode CCPSolverEnsureWork(CCPSolver s, const CCPProblem *P);
/* The checkpointed sweeps of ccp/jacobi.c (gauss_seidel false) and ccp/gauss_seidel.c (true) on the
 * reference loops (-ccp_packed false; ccp/sweep_reference.c): exact residual checks as
 * ccp_need_check says, best iterate kept, ccp_finish. */
PetscErrorCode CCPReferenceSweepSolve(CCPSolver s, CCPProblem *P, PetscBool gauss_seidel, CCPSolveStats *stats);
#endif
