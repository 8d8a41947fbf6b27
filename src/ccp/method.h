/* Private: what the solver object (ccp/solver.c) hands its methods, one file each (ccp/jacobi.c,
 * ccp/gauss_seidel.c, ccp/apgd.c, ccp/ipm.c), and the bookkeeping they share: when an iterate is the best so
 * far or diverging, the exact residual checks of the sweeps, the end of a solve. A method sees the
 * options, the coupling and the workspace through a CCPSolveContext, never the solver object. */
#ifndef CCPDEM_CCP_METHOD_H
#define CCPDEM_CCP_METHOD_H
#include "ccp/kernels.h"
#include "ccp/workspace.h"
#include "ccp/coupling.h"
#include "ccp/solve_stats.h"
#include "ccp/ipm.h"
#include "base/simd4_isa.h"

/* APGD's per-contact steps B_i (ccp/apgd.c, "Per-contact scaling"): the sweeps' metric (trace) or the
 * diagonal of each contact's Delassus block (diagonal; the reference loops only). */
typedef enum {
  APGD_SCALING_TRACE,
  APGD_SCALING_DIAGONAL
} ApgdScaling;

/* The solver's options (ccp/solver.h lists them; CCPSolverSetFromOptions checks them). */
typedef struct {
  PetscInt    max_it;              /* iteration cap per solve */
  double      tol;                 /* m/s, on the GUIDE residual max */
  double      jacobi_omega;        /* eq. 46 step scale omega (multiplies eta_i) */
  double      jacobi_lambda;       /* eq. 46 relaxation lambda in (0, 1] */
  double      gs_omega;            /* Gauss-Seidel over-relaxation of eta_i */
  PetscInt    check_interval;      /* Jacobi, Gauss-Seidel: sweeps between exact residual checks */
  PetscInt    apgd_check_interval; /* APGD: iterations between exact residual checks */
  double      apgd_L0;             /* APGD initial Lipschitz estimate (in the metric of the per-contact steps) */
  double      apgd_L_grow;         /* APGD backtracking factor on L (> 1) */
  double      apgd_L_decay;        /* APGD factor on L after each accepted iteration (in (0, 1]) */
  PetscBool   apgd_L_keep;         /* APGD: start a solve from the last solve's final L instead of apgd_L0 */
  ApgdScaling apgd_scaling;        /* APGD's per-contact steps */
  PetscBool   packed;              /* run on the packed layout (ccp/pack.h); else the reference loops */
  Simd4Isa    simd;                /* packed kernels: the best instantiation the CPU runs up to this one */
  PetscBool   release_layout;      /* free the packed layout and workspace after each solve (lower peak memory,
                                      fresh pages per solve) */
  CCPIpmSettings ipm;              /* -ccp_type ipm: the -ccp_ipm_ options (its max_it, tol and centre unused: the
                                      solve takes max_it and tol above, the centres from the contacts) */
} CCPSettings;

/* What a method solves with. It changes the workspace only. */
typedef struct {
  MPI_Comm           comm; /* the solver's: where its errors are reported */
  const CCPSettings *set;
  const CCPCoupling *coupling; /* over ranks; hooks NULL: a local solve */
  CCPWorkspace      *work;
} CCPSolveContext;

/* The methods: solve P in place as CCPSolverSolve says (gamma in: the warm start; out: the best
 * iterate found, vel its velocity), P checked by the solver object and with the reference loops'
 * arrays when !ctx->set->packed (CCPWorkspaceReferenceProblem). Collective over the coupling's ranks. */
PetscErrorCode CCPSolve_Jacobi(const CCPSolveContext *ctx, CCPProblem *P, CCPSolveStats *stats);
/* An error (PETSC_ERR_SUP, naming the method) when the reference loops (-ccp_packed false) of
 * `method` are asked to run coupled over ranks: they are single-rank only. */
PetscErrorCode CCPCheckReferenceLocal(const CCPSolveContext *ctx, const char *method);
PetscErrorCode CCPSolve_GaussSeidel(const CCPSolveContext *ctx, CCPProblem *P, CCPSolveStats *stats);
PetscErrorCode CCPSolve_APGD(const CCPSolveContext *ctx, CCPProblem *P, CCPSolveStats *stats);
/* The interior-point method (ccp/ipm.h) on the reference loops' arrays, whatever -ccp_packed says; one rank only (an
 * error with a coupling). When it hands over above the tolerance, the polish: at most settings' ipm.polish_it APGD
 * iterations (CCPSolve_APGD, reference loops) from its best iterate. Newton iterations are its iterations, Newton +
 * polish iterations its passes, the KSP's its linear iterations; infeasible only as the polish's APGD finds it. */
PetscErrorCode CCPSolve_IPM(const CCPSolveContext *ctx, CCPProblem *P, CCPSolveStats *stats);

/* ---- The best iterate and divergence (all methods) ---- */

/* An iteration whose residual is not finite, or exceeds this factor times the best residual seen,
 * is diverging (too large a Jacobi step, or an unsolvable step): the method stops and returns
 * its best iterate. Well-posed solves never come near: their residual decreases overall. */
#define CCP_DIVERGENCE_FACTOR 1e8

static inline PetscBool ccp_diverged(double res, double best)
{
  return (PetscBool)(!isfinite(res) || res > CCP_DIVERGENCE_FACTOR * best);
}

/* Whether an iterate of residual res replaces the best so far (residual best): only when lower by
 * more than rounding. Along a direction that changes no velocity (the drift of an unsolvable
 * step, GUIDE "When the exact CCP is ill-posed"; the redundant constraints of a jammed pack) the
 * residuals of the iterates differ only in their last bits; following those would walk the impulses
 * away from the warm start for nothing, in a way that depends on the summation order (the
 * number of ranks). */
#define CCP_IMPROVEMENT_MIN 1e-9
static inline PetscBool ccp_improves(double res, double best)
{
  return (PetscBool)(res < best * (1 - CCP_IMPROVEMENT_MIN));
}

/* Whether to run the exact residual check before the next iteration, given the last iteration's
 * largest change (velocity units): when the change reaches the tolerance tol, when it explodes, and
 * every `interval` iterations. */
static inline PetscBool ccp_need_check(double tol, double change, double best_res, PetscInt it, PetscInt interval)
{
  return (PetscBool)(!(change > tol) || change > CCP_DIVERGENCE_FACTOR * best_res || (it + 1) % interval == 0);
}

/* *max <- x where x is larger (a NaN x propagates: not <= anything) */
static inline void ccp_keep_max(double *max, double x)
{
  if (!(x <= *max)) *max = x;
}

/* ---- The exact residual checks of the sweeps (Jacobi, Gauss-Seidel) ---- */

/* A check's decision: CCP_CONVERGED, CCP_STOP (last iteration, or diverging) or CCP_CONTINUE. */
typedef enum {
  CCP_CONTINUE,
  CCP_CONVERGED,
  CCP_STOP
} CCPCheckpoint;

/* The decision of a checkpoint given the exact residual res_max of the current iterate; *improved
 * tells the caller to keep a copy of it as the best. */
static inline CCPCheckpoint ccp_checkpoint_decide(double res_max, double tol, PetscBool last, double *best_res,
                                                  PetscBool *improved)
{
  *improved = PETSC_FALSE;
  if (res_max <= tol) return CCP_CONVERGED;
  if (ccp_improves(res_max, *best_res)) {
    *best_res = res_max;
    *improved = PETSC_TRUE;
  }
  return last || ccp_diverged(res_max, *best_res) ? CCP_STOP : CCP_CONTINUE;
}

/* A Jacobi or Gauss-Seidel solve's checks: the exact GUIDE residual of the iterate gamma (updated in
 * place by the sweeps) before the first sweep, after the sweeps ccp_need_check picks and at the
 * iteration cap, and a copy of the best iterate checked. Started by CCPSweepsStart*, advanced by
 * CCPSweepsNext* after each sweep, ended by CCPSweepsFinish*. */
typedef struct {
  const CCPSettings *set;
  const double      *gamma;     /* the iterate */
  double            *best;      /* a copy of the best iterate checked */
  PetscInt           it;        /* sweeps done */
  double             best_res;  /* the best checked iterate's residual (INFINITY: none yet) */
  double             res_start; /* the warm start's */
  CCPCheckpoint      state;     /* the last check's decision */
} CCPSweepChecks;

/* Whether the solve has stopped: converged, or the last check said stop. */
static inline PetscBool ccp_sweeps_done(const CCPSweepChecks *c) { return (PetscBool)(c->state != CCP_CONTINUE); }

/* Start a sweep solve on the packed layout: build it from P (the iterate from P's warm start and the
 * best copy; conflict_free: Gauss-Seidel's blocks), the bodies' velocities of the warm start, and
 * check the warm start. */
PetscErrorCode CCPSweepsStartPacked(const CCPSolveContext *ctx, const CCPProblem *P, PetscBool conflict_free,
                                    CCPSweepChecks *c);
/* After a sweep whose largest change |B_i^-1 change| was `change` (velocity units, over all ranks):
 * the check, if ccp_need_check or the cap asks for one. */
PetscErrorCode CCPSweepsNextPacked(CCPSweepChecks *c, const CCPSolveContext *ctx, double change);
/* The end: P->gamma <- the best checked iterate when the solve stopped without converging, else the
 * last; P->vel its velocity; stats. */
PetscErrorCode CCPSweepsFinishPacked(const CCPSweepChecks *c, const CCPSolveContext *ctx, CCPProblem *P,
                                     CCPSolveStats *stats);
/* The same on the reference loops, whose iterate is P->gamma at the velocity P->vel. Start: the
 * workspace for P, the per-contact steps into *metric (a gamma-sized work vector), P->vel <- the
 * warm start's velocity, the check of the warm start. */
PetscErrorCode CCPSweepsStartReference(const CCPSolveContext *ctx, CCPProblem *P, CCPMetric **metric,
                                       CCPSweepChecks *c);
void           ccp_sweeps_next_reference(CCPSweepChecks *c, const CCPProblem *P, double change);
void           ccp_sweeps_finish_reference(const CCPSweepChecks *c, CCPProblem *P, CCPSolveStats *stats);

/* ---- The end of a solve ---- */

/* The returned multipliers gamma (any buffer) go to P->gamma, P->vel is recomputed from them in
 * contact order (so it is exactly v_free + M^-1 D gamma, whatever the method's incremental updates
 * accumulated), and stats get the exact GUIDE residual of what is returned and the iteration count
 * (also as passes: APGD counts its own after). Reference loops. */
void ccp_finish_reference(CCPProblem *P, const double *gamma, PetscInt iterations, double tol, CCPSolveStats *stats);
/* The same on the packed layout, x in packed order; P->vel NULL gets a workspace buffer
 * (CCPWorkspaceOutputVelocity). Collective over the coupling's ranks. */
PetscErrorCode CCPFinishPacked(const CCPSolveContext *ctx, CCPProblem *P, const double *x, PetscInt iterations,
                               CCPSolveStats *stats);
#endif
