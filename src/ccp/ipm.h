/* A primal-dual interior-point method for one step's relaxed CCP: `-ccp_type ipm` (CCPSolve_IPM of ccp/method.h,
 * on one process: on several ranks step/model_ccp.c gathers the step's CCP onto rank 0, decomp/ccp_gather.h), also
 * driven directly by tests/bench/bench_ipm.c; docs/history/ccp-solver-ipm.md has its measurements.
 *
 * The CCP of ccp/problem.h as a second-order-cone QP: minimize 1/2 g^T N g + r^T g subject to
 * G_i g_i in K_i for every contact i, where G_i maps the contact's multipliers onto Lorentz cones:
 *   3-dof: (mu gn, gu, gw) in L3;  6-dof: (mu gn, gu, gw) in L3, (rho gn, tu, tw) in L3, (sigma gn, tn) in L2,
 * the cones ccp/cone.h projects onto. The dual variable z_i of the cone constraint gives the contact
 * velocity u_i = N_i g + r_i = G_i^T z_i in the dual cones. Nesterov-Todd scaling and Mehrotra's
 * predictor-corrector (the iteration of CVXOPT's coneqp: Vandenberghe 2010, "The CVXOPT linear and
 * quadratic cone program solvers"; for the CCP: Mangoni, Tasora, Garziera 2018). Each Newton system
 * (N + H) dg = f, H = G^T W^-2 G (+ the compliance) block diagonal per contact, is solved in velocity
 * space through K = M + D H^-1 D^T (movable bodies only, block size 6) with a PETSc KSP of prefix
 * -ccp_ipm_. Its default (settings' cluster_pc): CG preconditioned by block Jacobi over clusters of bodies joined by
 * the contacts with a stiff cone direction, stiffest first, each block factored by profile Cholesky, with a relative
 * tolerance that follows mu (adaptive_rtol): the configuration measured fastest and robust on the 6-dof beds. With
 * cluster_pc false, or -ccp_ipm_ksp_type preonly -ccp_ipm_pc_type cholesky, a direct Cholesky factorization
 * (CHOLMOD where PETSc has it); -ccp_ipm_pc_type gamg with -ccp_ipm_mg_levels_ksp_type richardson
 * -ccp_ipm_mg_levels_pc_type sor for algebraic multigrid (GAMG's default Chebyshev smoother made CG fail on these
 * systems). One KSP set-up and two solves per Newton iteration. The stopping test is the GUIDE residual of the
 * iterate (ccp_residual), the one every method reports.
 *
 * A block whose coefficient is 0 (a frictionless wall's tangential pair) is held at 0 instead of
 * forming a cone (its interior would be empty).
 * In a run (`-ccp_type ipm`, CCPSolve_IPM) the IPM hands its best iterate to APGD, the polish, when it stops above
 * the tolerance (settings' handover and polish_it): degenerate steps (no strict complementarity, e.g. first impacts)
 * leave its residual falling only like sqrt(mu) until rounding stops it, and a few APGD iterations finish.
 * Scope: one process (a solver on PETSC_COMM_SELF, or a communicator of one rank); rigid or compliant contacts (no
 * cohesion, yield force or joint blocks: CCPIpmSolve refuses them with PETSC_ERR_SUP; a run refuses them at set-up). */
#ifndef CCPDEM_CCP_IPM_H
#define CCPDEM_CCP_IPM_H
#include "ccp/problem.h"

typedef struct {
  PetscInt max_it;      /* Newton iterations at most */
  double   tol;         /* m/s: stop when the GUIDE residual max of the iterate is at most this */
  PetscInt monitor;     /* 1: one line per iteration on stdout */
  double   start_shift; /* the start's distance from the cones' boundaries, in typical impulses and speeds (<= 0: 10) */
  PetscBool probe;      /* also solve every Newton system with a second KSP, prefix -ccp_ipm_probe_ (default CG +
                           GAMG, rtol 1e-6), whose solution is not used: its iteration counts along the path of
                           the first KSP's directions (the monitor prints them per iteration) */
  const double *centre; /* NULL, or 3 per solver body of the problem (world frame, m; walls' entries unused): the
                           bodies' centres, which near_null and cluster_coarse need */
  PetscBool near_null;  /* K is given the rigid-body near-null space of the movable bodies (MatSetNearNullSpace),
                           which GAMG interpolates in either KSP: the 3 translations (v_i = e_k, w_i = 0) and the 3
                           rotations about their centroid c (v_i = e_k x (x_i - c), w_i = e_k, the world frame of
                           the problem's angular velocities), under which every contact between movable bodies has
                           zero relative velocity up to its gap. Without it GAMG's default for block size 6 is the
                           6 constant vectors: translations and each body spinning about its own centre */
  PetscBool adaptive_rtol; /* set the first KSP's relative tolerance each iteration to min(rtol_max, mu / mu0) (mu0:
                              the start's mu), at least the KSP's own rtol: loose early, tight as mu -> 0 */
  double    rtol_max;      /* the loosest adaptive tolerance (<= 0: 1e-2) */
  PetscBool cluster_pc;    /* the probe KSP's preconditioner (without the probe: the first KSP's) is block Jacobi over
                              clusters of movable bodies joined by stuck contacts (every direction of every cone
                              stiffer than cluster_ratio times the contact's effective mass), each block of K
                              factored (cluster_dense); a cluster grows in contact order to at most cluster_max bodies;
                              rebuilt every iteration */
  double   cluster_ratio;  /* <= 0: 1e3 */
  PetscInt cluster_max;    /* <= 0: 64 */
  PetscInt cluster_coarse; /* with cluster_pc and centre: a two-level preconditioner, the cluster block Jacobi B and a
                              coarse correction C = P (P^T K P)^-1 P^T on the span P of each cluster's 6 rigid-body
                              vectors (clusters of >= 2 bodies; a body in no cluster has no coarse column):
                              0 none (B alone), 1 multiplicative, coarse-B-coarse (the balancing preconditioner
                              C + (I - C K) B (I - K C), symmetric positive definite for any SPD B; one extra product
                              with K per application), 2 additive (B + C) */
  PetscBool cluster_strongest; /* the clusters of cluster_pc joined by every contact with a direction stiffer than
                                  cluster_ratio (not only the stuck ones), the stiffest first: the cap then cuts
                                  the softest couplings */
  PetscBool cluster_dense;     /* cluster_pc's blocks factored densely with their bodies in body order; otherwise (with
                                  centre) the bodies ordered along each cluster's longest extent and the blocks
                                  factored by profile (envelope) Cholesky, the same blocks permuted */
  PetscBool cluster_check;     /* with monitor: compare each block's solve of a test vector with a dense factor's in
                                  body order, the largest relative difference printed per iteration (costs a dense
                                  factor per block) */
  PetscBool handover;          /* stop early, on the best iterate, for a polish (CCPSolve_IPM sets it with polish_it):
                                  when the iterate is within IPM_HANDOVER_NEAR of tol and its residual falls more
                                  slowly than mu^IPM_HANDOVER_RATE over two Newton iterations, or when the best
                                  residual, below the start's, has not improved for IPM_STALL iterations once mu is
                                  below IPM_STALL_MU times the start's (ipm.c says why); the stats' stop says which */
  PetscInt polish_it;          /* -ccp_type ipm only (CCPSolve_IPM): when the IPM ends above the tolerance, at most
                                  this many APGD iterations (ccp/apgd.c, reference loops) from its returned iterate on
                                  the same problem; 0: no polish; < 0: the solve's iteration cap (-ccp_max_it) */
} CCPIpmSettings;

typedef enum {
  IPM_STOP_CONVERGED, /* the residual met tol */
  IPM_STOP_CAP,       /* max_it Newton iterations */
  IPM_STOP_ROUNDING,  /* a scaled block stayed indefinite after the back-off, or a cluster block of K did */
  IPM_STOP_SLOW,      /* handover: near tol and falling like sqrt(mu) or slower */
  IPM_STOP_STALL      /* handover: no new best residual */
} CCPIpmStop;

typedef struct {
  PetscInt   iterations;        /* Newton iterations taken */
  PetscInt   linear_iterations; /* KSP iterations over all solves (a direct solve counts 1 per solve) */
  PetscInt   linear_max;        /* the most KSP iterations of one solve */
  PetscInt   linear_failures;   /* solves whose KSP did not converge (the direction is used anyway) */
  double     res_max, res_rms;  /* GUIDE residual (m/s) of the returned gamma */
  double     res_start;         /* GUIDE residual max (m/s) of the starting point */
  PetscBool  converged;         /* res_max <= tol */
  CCPIpmStop stop;              /* why the Newton iterations ended */
  double     seconds_total, seconds_assemble, seconds_setup, seconds_solve; /* wall time: all, K's assembly, KSP
                                                                                set-up (factorization), KSP solves */
  PetscInt probe_iterations, probe_max, probe_failures; /* the probe KSP's (settings' probe), as the first's */
  double   probe_seconds, probe_error;                  /* its set-ups and solves; its largest relative error
                                                           |y_probe - y| / |y| against the first KSP's solution */
} CCPIpmStats;

/* Solve P in place: P->gamma in: the starting point (a warm start, or zeros), out: the last iterate when it meets
 * set->tol, else the best (lowest GUIDE residual max) of the iterates; P->vel out: v_free + M^-1 D gamma of it.
 * P must carry its bodies as arrays (inv_mass, inv_inertia,
 * vel_free; P->body NULL) and its terms as an array with eta set (ccp_contact_eta), as the reference
 * loops' problems do. Not collective (PETSC_COMM_SELF objects); reads the options of prefixes -ccp_ipm_ and
 * -ccp_ipm_probe_ (IpmKSPCreate). Errors: a problem outside the scope above (PETSC_ERR_SUP), a non-finite iterate
 * (PETSC_ERR_FP), bad KSP options (as CCPIpmCheckOptions). */
PetscErrorCode CCPIpmSolve(CCPProblem *P, const CCPIpmSettings *set, CCPIpmStats *stats);
/* Create and destroy the KSPs a solve with settings set would use, reading their options: a bad KSP or PC type,
 * the cluster block Jacobi on both KSPs, or a PREONLY KSP without a factorization is an error
 * (PETSC_ERR_ARG_UNKNOWN_TYPE, PETSC_ERR_ARG_INCOMP) with one message naming the option. Not collective. */
PetscErrorCode CCPIpmCheckOptions(const CCPIpmSettings *set);
#endif
