/* CCP solvers (projected Jacobi, projected Gauss-Seidel, APGD) behind one object.
 * Lifecycle: Create -> SetFromOptions -> Solve (many times) -> Destroy.
 * Options (prefix -ccp_): -ccp_type jacobi|gauss-seidel|apgd, -ccp_max_it, -ccp_tol (m/s),
 * -ccp_jacobi_omega, -ccp_jacobi_lambda, -ccp_gs_omega, -ccp_check_interval (Jacobi and
 * Gauss-Seidel sweeps between exact residual checks), -ccp_apgd_check_interval, -ccp_apgd_lipschitz_initial|grow|decay,
 * -ccp_packed (false: the reference per-contact loops instead of the packed, vectorized layout),
 * -ccp_simd generic|avx2|avx512vl (the highest instantiation of the packed kernels allowed: base/simd4_isa.h). */
#ifndef CCPDEM_CCP_SOLVER_H
#define CCPDEM_CCP_SOLVER_H
#include "ccp/problem.h"
#include "scenario/scenario.h"
#include "base/scratch_pool.h"

typedef struct _p_CCPSolver *CCPSolver;

typedef struct {
  PetscInt  iterations;
  PetscInt  passes;            /* passes over the contacts that made a step: APGD's accepted and rejected steps; the sweeps' iterations */
  double    res_max, res_rms;  /* GUIDE residual (m/s) at the returned gamma */
  PetscBool converged;         /* res_max <= tolerance */
  PetscBool improved;          /* an iterate's residual was below the warm start's: the returned gamma is not the warm start */
} CCPSolveStats;

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
PetscErrorCode CCPSolverGetTolerance(CCPSolver s, double *tol);

/* Coupling of one solve over several ranks (decomp/velocity_coupling.h provides it). Each rank
 * passes its own contacts and its solver bodies (owned, ghosts, walls); the methods then call:
 *   mark(ctx, v, stride)   before a pass that adds impulse contributions to the velocities v
 *                          (body i's 6 values at v + stride i): remember the ghosts' values;
 *   sum(ctx, v, stride)    after it: every copy of a shared body gets its value at the mark plus
 *                          the contributions added since by all ranks (the owner sums, in a fixed
 *                          order, then copies to the ghosts);
 *   reduce(ctx, x, n)      x[0 .. n-1) summed over ranks, x[n-1] the maximum (one Allreduce);
 *   owned(ctx)             the count of owned bodies (APGD sums over the bodies count each once).
 * With a coupling the solve is collective: every rank takes part in every iteration, whatever
 * its contacts, and the iterates are those of one solve of all contacts together (up to the
 * order of floating-point sums). Supported by the packed APGD and Jacobi methods.
 * NULL (the default) makes the solve local. The coupling must outlive the solves. */
typedef struct {
  void *ctx;
  PetscErrorCode (*mark)(void *ctx, const double *v, size_t stride);
  PetscErrorCode (*sum)(void *ctx, double *v, size_t stride);
  PetscErrorCode (*reduce)(void *ctx, double *x, int n);
  PetscInt (*owned)(void *ctx); /* how many of the solver bodies, from the first, this rank owns (the rest: ghosts, walls) */
} CCPCoupling;
PetscErrorCode CCPSolverSetCoupling(CCPSolver s, const CCPCoupling *coupling);
/* msg "" if s's method and options can be coupled over ranks, else what to change (for a bad-input report). */
PetscErrorCode CCPSolverCheckCoupling(CCPSolver s, char *msg, size_t len);
/* The pool of s's packed vectors (base/scratch_pool.h): dead between solves, so collision detection
 * may borrow it for its arrays (Broadphase.pool) instead of holding arrays of its own; it lives as
 * long as s. -ccp_release_layout empties it after each solve. */
PetscErrorCode CCPSolverScratch(CCPSolver s, ScratchPool **pool);
PetscErrorCode CCPSolverDestroy(CCPSolver *s);
#endif
