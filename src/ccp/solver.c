/* The CCP solver object (ccp/solver.h): lifecycle, options, argument checks, workspace and the
 * dispatch to one file per method (ccp/jacobi.c, ccp/gauss_seidel.c, ccp/apgd.c, ccp/ipm.c). */
#include "ccp/solver_impl.h"
#include "base/log_events.h"

#define CCP_PACKED_DEFAULT PETSC_TRUE /* -ccp_packed */

static const char *const CCPSolverTypes[]   = {"jacobi", "gauss-seidel", "apgd", "ipm", "SolverType", "SOLVER_", NULL};
static const char *const IpmCoarseNames[]   = {"none", "multiplicative", "additive", "IpmCoarse", "IPM_COARSE_", NULL};
static const char *const ApgdScalingNames[] = {"trace", "diagonal", "ApgdScaling", "APGD_SCALING_", NULL};

PetscErrorCode CCPSolverCreate(MPI_Comm comm, CCPSolver *s)
{
  CCPSolver n;

  PetscFunctionBegin;
  PetscCheck(s, comm, PETSC_ERR_ARG_NULL, "CCPSolverCreate needs the address of a CCPSolver");
  PetscCall(CcpdemLogEventsRegister());
  PetscCall(PetscNew(&n));
  n->comm                    = comm;
  n->type                    = SOLVER_APGD;
  n->set.max_it              = 1000;
  n->set.tol                 = 1e-5;
  n->set.jacobi_omega        = 0.3; /* safe for ~12 contacts per body: see ccp/jacobi.c */
  n->set.jacobi_lambda       = 1.0;
  n->set.gs_omega            = 1.0;
  n->set.check_interval      = 10;
  n->set.apgd_check_interval = 4;
  n->set.packed              = CCP_PACKED_DEFAULT;
  n->set.simd                = SIMD4_AVX512VL; /* the best this CPU runs */
  /* keep it: fresh pages every solve cost more than the memory (docs/design.md "Memory per body") */
  n->set.release_layout = PETSC_FALSE;
  n->set.apgd_L0        = 1.0; /* the mean eigenvalue of B_i N_ii: see ccp/apgd.c */
  /* About log(1/d)/log(g) of the iterations backtrack (an extra pass each): 15% at g = 2 (Mazhar
   * et al.'s value), 7.6% at g = 4. On the bench's settled 10^4 piles (6 solves to 1e-4 m/s on
   * each of 4 piles) g = 4 took 8.8% fewer passes than 2 (10234 against 11219) and 2.2% fewer
   * iterations (docs/history/ccp-solver-layout.md has the other factors measured). */
  n->set.apgd_L_grow = 4.0;
  /* Below 1 lets the step grow back after a spike; 0.95-0.97 left L high for longer, and APGD stalled
   * above 1e-7 m/s on a step of test_distributed_pour; 0.93 with g = 4 failed test_pile_rest and
   * test_repose_sweep (docs/history/ccp-solver-layout.md). */
  n->set.apgd_L_decay = 0.9;
  n->set.apgd_L_keep  = PETSC_FALSE;
  n->set.apgd_scaling = APGD_SCALING_TRACE;
  /* -ccp_type ipm: CG with the stiffest-first cluster blocks (ratio 1, profile factors, no coarse space) and the
   * tolerance following mu took 0.6-0.9x APGD's time on the 32-layer 6-dof bed and converged there cold and warm
   * (docs/history/ccp-solver-ipm.md, the last section). */
  n->set.ipm = (CCPIpmSettings){.start_shift       = 10,
                                .adaptive_rtol     = PETSC_TRUE,
                                .rtol_max          = 1e-2,
                                .cluster_pc        = PETSC_TRUE,
                                .cluster_ratio     = 1,
                                .cluster_max       = 64,
                                .cluster_strongest = PETSC_TRUE,
                                .polish_it         = -1};
  *s         = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolverSetFromScenario(CCPSolver s, SolverType type, PetscInt max_it, double tol)
{
  PetscFunctionBegin;
  PetscCheck(type >= SOLVER_JACOBI && type <= SOLVER_IPM, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "Unknown CCP solver type %d: use jacobi, gauss-seidel, apgd or ipm", (int)type);
  PetscCheck(max_it >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "CCP solver max_iterations %" PetscInt_FMT " is negative: give a count >= 0", max_it);
  PetscCheck(tol >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "CCP solver tolerance %g is negative: give a residual (m/s) >= 0", tol);
  s->type       = type;
  s->set.max_it = max_it;
  s->set.tol    = tol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolverPackedOption(PetscBool *packed)
{
  PetscFunctionBegin;
  *packed = CCP_PACKED_DEFAULT;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-ccp_packed", packed, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The -ccp_ipm_ options into *ipm (inside the caller's PetscOptionsBegin/End). */
static PetscErrorCode IpmOptions(PetscOptionItems *PetscOptionsObject, const char *here, CCPIpmSettings *ipm,
                                 PetscBool *polish_set)
{
  PetscBool monitor = (PetscBool)(ipm->monitor != 0);
  PetscEnum coarse  = (PetscEnum)ipm->cluster_coarse;

  PetscFunctionBegin;
  PetscCall(PetscOptionsBool("-ccp_ipm_monitor", "IPM: one line per Newton iteration (residual, mu, step, CG its)",
                             here, monitor, &monitor, NULL));
  ipm->monitor = monitor;
  PetscCall(
    PetscOptionsReal("-ccp_ipm_start_shift",
                     "IPM: the start's distance from the cones' boundaries, in typical impulses and speeds (> 0)", here,
                     ipm->start_shift, &ipm->start_shift, NULL));
  PetscCall(PetscOptionsBool("-ccp_ipm_adaptive_rtol",
                             "IPM: the KSP's relative tolerance min(-ccp_ipm_rtol_max, mu / mu0) per Newton iteration, "
                             "at least -ccp_ipm_ksp_rtol (inexact Newton)",
                             here, ipm->adaptive_rtol, &ipm->adaptive_rtol, NULL));
  PetscCall(PetscOptionsReal("-ccp_ipm_rtol_max", "IPM: the loosest adaptive relative tolerance, in (0, 1)", here,
                             ipm->rtol_max, &ipm->rtol_max, NULL));
  PetscCall(PetscOptionsBool("-ccp_ipm_cluster_pc",
                             "IPM: the default KSP is CG with the cluster block Jacobi (false: a direct Cholesky "
                             "factorization; with -ccp_ipm_probe: the probe's preconditioner)",
                             here, ipm->cluster_pc, &ipm->cluster_pc, NULL));
  PetscCall(
    PetscOptionsReal("-ccp_ipm_cluster_ratio",
                     "IPM: a cone direction joins a cluster when its stiffness exceeds this times the contact's "
                     "effective mass (> 0)",
                     here, ipm->cluster_ratio, &ipm->cluster_ratio, NULL));
  PetscCall(PetscOptionsInt("-ccp_ipm_cluster_max", "IPM: bodies per cluster block at most (>= 1)", here,
                            ipm->cluster_max, &ipm->cluster_max, NULL));
  PetscCall(PetscOptionsBool("-ccp_ipm_cluster_strongest",
                             "IPM: clusters joined by every contact with a stiff direction, stiffest first (false: "
                             "only by contacts stiff in all directions)",
                             here, ipm->cluster_strongest, &ipm->cluster_strongest, NULL));
  PetscCall(PetscOptionsEnum("-ccp_ipm_cluster_coarse",
                             "IPM: a coarse correction on the clusters' rigid-body vectors (none, multiplicative, "
                             "additive)",
                             here, IpmCoarseNames, coarse, &coarse, NULL));
  ipm->cluster_coarse = (PetscInt)coarse;
  PetscCall(PetscOptionsBool("-ccp_ipm_cluster_dense",
                             "IPM: dense cluster factors in body order instead of profile factors", here,
                             ipm->cluster_dense, &ipm->cluster_dense, NULL));
  PetscCall(PetscOptionsBool("-ccp_ipm_cluster_check",
                             "IPM, with -ccp_ipm_monitor: each cluster factor's solve against a dense factor's", here,
                             ipm->cluster_check, &ipm->cluster_check, NULL));
  PetscCall(
    PetscOptionsBool("-ccp_ipm_probe",
                     "IPM: also solve every Newton system with a second KSP (prefix -ccp_ipm_probe_, default CG "
                     "+ GAMG) whose solution is not used: its iteration counts along the path",
                     here, ipm->probe, &ipm->probe, NULL));
  PetscCall(PetscOptionsBool("-ccp_ipm_near_null", "IPM: give K the bodies' rigid-body near-null space (for GAMG)",
                             here, ipm->near_null, &ipm->near_null, NULL));
  PetscCall(PetscOptionsInt("-ccp_ipm_polish",
                            "IPM: at most this many APGD iterations from the IPM's best iterate when it hands over "
                            "above the tolerance (0: no polish, and the IPM runs to the tolerance, its cap or its "
                            "rounding; default: -ccp_max_it)",
                            here, ipm->polish_it, &ipm->polish_it, polish_set));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The -ccp_ipm_ values in range (polish_set: -ccp_ipm_polish was given; its default, < 0, is the iteration cap), and,
 * for -ccp_type ipm, the KSPs' options (CCPIpmCheckOptions). */
static PetscErrorCode IpmCheck(MPI_Comm comm, SolverType type, const CCPIpmSettings *ipm, PetscBool polish_set)
{
  PetscFunctionBegin;
  PetscCheck(!polish_set || ipm->polish_it >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-ccp_ipm_polish %" PetscInt_FMT " is negative: give a count of APGD iterations >= 0 (0: no polish)",
             ipm->polish_it);
  PetscCheck(ipm->start_shift > 0 && isfinite(ipm->start_shift), comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-ccp_ipm_start_shift %g must be a positive number (typical 10)", ipm->start_shift);
  PetscCheck(ipm->rtol_max > 0 && ipm->rtol_max < 1, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-ccp_ipm_rtol_max %g must be in (0, 1) (typical 1e-2)", ipm->rtol_max);
  PetscCheck(ipm->cluster_ratio > 0 && isfinite(ipm->cluster_ratio), comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-ccp_ipm_cluster_ratio %g must be a positive number (typical 1)", ipm->cluster_ratio);
  PetscCheck(ipm->cluster_max >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-ccp_ipm_cluster_max %" PetscInt_FMT " must be >= 1 (typical 64)", ipm->cluster_max);
  PetscCheck(!ipm->cluster_coarse || ipm->cluster_pc, comm, PETSC_ERR_ARG_INCOMP,
             "-ccp_ipm_cluster_coarse %s needs the cluster preconditioner: drop -ccp_ipm_cluster_pc false",
             IpmCoarseNames[ipm->cluster_coarse]);
  if (type == SOLVER_IPM) PetscCall(CCPIpmCheckOptions(ipm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolverSetFromOptions(CCPSolver s)
{
  CCPSettings       opt               = s->set; /* s keeps its options unless all new ones pass the checks */
  PetscEnum         type              = (PetscEnum)s->type;
  const char *const simd4_isa_names[] = SIMD4_ISA_NAMES;
  const char *const here              = "CCPSolverSetFromOptions";
  PetscBool         polish_set        = PETSC_FALSE;

  PetscFunctionBegin;
  PetscOptionsBegin(s->comm, NULL, "CCP solver options", "CCPSolver");
  PetscCall(PetscOptionsEnum("-ccp_type",
                             "CCP solver: jacobi, gauss-seidel, apgd or ipm (ipm: the whole CCP solved on rank 0)",
                             here, CCPSolverTypes, type, &type, NULL));
  PetscCall(PetscOptionsInt("-ccp_max_it", "Iteration cap per CCP solve", here, opt.max_it, &opt.max_it, NULL));
  PetscCall(PetscOptionsReal("-ccp_tol", "Tolerance on the max GUIDE residual (m/s)", here, opt.tol, &opt.tol, NULL));
  PetscCall(PetscOptionsReal("-ccp_jacobi_omega",
                             "Projected Jacobi step scale omega (times the per-contact step, eta_i for 3-dof), eq. 46",
                             here, opt.jacobi_omega, &opt.jacobi_omega, NULL));
  PetscCall(PetscOptionsReal("-ccp_jacobi_lambda", "Projected Jacobi relaxation lambda in (0, 1], eq. 46", here,
                             opt.jacobi_lambda, &opt.jacobi_lambda, NULL));
  PetscCall(PetscOptionsReal("-ccp_gs_omega",
                             "Projected Gauss-Seidel relaxation omega of the per-contact step, in (0, 2)", here,
                             opt.gs_omega, &opt.gs_omega, NULL));
  PetscCall(PetscOptionsInt("-ccp_check_interval",
                            "Jacobi and Gauss-Seidel: sweeps between exact residual checks (each costs about half a "
                            "sweep; they also keep the best iterate)",
                            here, opt.check_interval, &opt.check_interval, NULL));
  PetscCall(PetscOptionsInt("-ccp_apgd_check_interval",
                            "APGD: iterations between exact residual checks (each costs about a third of an iteration; "
                            "the best iterate is kept among the checked ones; checks also run when the step nears the "
                            "tolerance)",
                            here, opt.apgd_check_interval, &opt.apgd_check_interval, NULL));
  PetscCall(PetscOptionsBool("-ccp_packed",
                             "Run the solvers on the packed, vectorized layout (false: the reference per-contact "
                             "loops: slower, in double precision throughout, so within about 1e-7 relative of the "
                             "packed iterates (which round the contact inputs to single, ccp/pack.h); the same "
                             "operations for Jacobi and APGD, another sweep order for Gauss-Seidel)",
                             here, opt.packed, &opt.packed, NULL));
  PetscCall(PetscOptionsBool("-ccp_release_layout",
                             "Free the packed layout and workspace after each solve: lower peak memory (detection and "
                             "solve buffers never coexist), fresh pages in every solve",
                             here, opt.release_layout, &opt.release_layout, NULL));
  PetscCall(PetscOptionsEnum("-ccp_simd",
                             "Packed kernels: the best instantiation the CPU runs up to this one (avx512vl: AVX2+FMA "
                             "code with AVX-512VL's 32 registers, also what avx512 gives here; avx2; generic: the "
                             "portable build, the same iterates up to fused multiply-adds)",
                             here, simd4_isa_names, (PetscEnum)opt.simd, (PetscEnum *)&opt.simd, NULL));
  if (opt.simd > SIMD4_AVX512VL) opt.simd = SIMD4_AVX512VL; /* these kernels have no 8-lane instantiation */
  PetscCall(PetscOptionsReal("-ccp_apgd_lipschitz_initial",
                             "APGD initial Lipschitz estimate L in the metric of the per-contact steps (1 = mean "
                             "eigenvalue of the diagonal blocks)",
                             here, opt.apgd_L0, &opt.apgd_L0, NULL));
  PetscCall(PetscOptionsReal("-ccp_apgd_lipschitz_grow",
                             "APGD factor on L when a step fails the sufficient-decrease test (> 1)", here,
                             opt.apgd_L_grow, &opt.apgd_L_grow, NULL));
  PetscCall(PetscOptionsReal("-ccp_apgd_lipschitz_decay",
                             "APGD factor on L after each accepted step, in (0, 1] (< 1 lets the step grow back)", here,
                             opt.apgd_L_decay, &opt.apgd_L_decay, NULL));
  PetscCall(
    PetscOptionsBool("-ccp_apgd_lipschitz_keep",
                     "APGD: start each solve from the last solve's final L instead of "
                     "-ccp_apgd_lipschitz_initial (not kept in checkpoints: a restart starts from the initial L)",
                     here, opt.apgd_L_keep, &opt.apgd_L_keep, NULL));
  PetscCall(PetscOptionsEnum("-ccp_apgd_scaling",
                             "APGD per-contact steps: trace (the sweeps' metric) or diagonal (each row group by its "
                             "Delassus diagonal; the reference loops only: -ccp_packed false)",
                             here, ApgdScalingNames, (PetscEnum)opt.apgd_scaling, (PetscEnum *)&opt.apgd_scaling,
                             NULL));
  PetscCall(IpmOptions(PetscOptionsObject, here, &opt.ipm, &polish_set));
  PetscOptionsEnd();
  PetscCall(IpmCheck(s->comm, (SolverType)type, &opt.ipm, polish_set));
  PetscCheck(opt.apgd_scaling == APGD_SCALING_TRACE || !opt.packed, s->comm, PETSC_ERR_ARG_INCOMP,
             "-ccp_apgd_scaling diagonal runs on the reference loops only: add -ccp_packed false, or drop it");
  PetscCheck(opt.apgd_check_interval >= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-ccp_apgd_check_interval %" PetscInt_FMT " must be >= 1 (typical 4)", opt.apgd_check_interval);
  PetscCheck(opt.check_interval >= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-ccp_check_interval %" PetscInt_FMT " must be >= 1 (typical 10)", opt.check_interval);
  PetscCheck(opt.apgd_L0 > 0 && isfinite(opt.apgd_L0), s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-ccp_apgd_lipschitz_initial %g must be a positive number (typical 1)", opt.apgd_L0);
  PetscCheck(opt.apgd_L_grow > 1 && isfinite(opt.apgd_L_grow), s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-ccp_apgd_lipschitz_grow %g must be > 1 (typical 2-4)", opt.apgd_L_grow);
  PetscCheck(opt.apgd_L_decay > 0 && opt.apgd_L_decay <= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-ccp_apgd_lipschitz_decay %g must be in (0, 1] (typical 0.9)", opt.apgd_L_decay);
  PetscCheck(opt.max_it >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-ccp_max_it %" PetscInt_FMT " is negative: give a count >= 0", opt.max_it);
  PetscCheck(opt.tol >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-ccp_tol %g is negative: give a residual (m/s) >= 0",
             opt.tol);
  PetscCheck(opt.jacobi_omega > 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-ccp_jacobi_omega %g must be > 0 (typical 0.2-0.5)", opt.jacobi_omega);
  PetscCheck(opt.jacobi_lambda > 0 && opt.jacobi_lambda <= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-ccp_jacobi_lambda %g must be in (0, 1]", opt.jacobi_lambda);
  PetscCheck(opt.gs_omega > 0 && opt.gs_omega < 2, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-ccp_gs_omega %g must be in (0, 2) (1 is plain Gauss-Seidel)", opt.gs_omega);
  s->type = (SolverType)type;
  s->set  = opt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Check what the methods rely on, once per solve: indices in range, a finite warm
 * start (eta is checked where the solve sets it: CCPCheckEta). Zero the unused entries of 3-dof
 * contacts so that every method may treat all CONTACT_DOF_MAX entries alike. */
static PetscErrorCode CCPProblemCheck(CCPSolver s, CCPProblem *P)
{
  PetscFunctionBegin;
  PetscCheck(P->nbodies >= 0 && P->ncontacts >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "CCP problem with %" PetscInt_FMT " bodies and %" PetscInt_FMT " contacts", P->nbodies, P->ncontacts);
  for (PetscInt i = 0; i < P->ncontacts; i++) {
    const Contact *c = &P->contact[i];
    double        *g = ccp_block(P->gamma, i);
    PetscCheck(c->a >= 0 && c->a < P->nbodies && c->b >= 0 && c->b < P->nbodies && c->a != c->b, s->comm,
               PETSC_ERR_ARG_OUTOFRANGE,
               "Contact %" PetscInt_FMT " joins solver bodies %d and %d, but there are %" PetscInt_FMT
               ": fix the contact's body indices",
               i, (int)c->a, (int)c->b, P->nbodies);
    const int dof = contact_dof(c);
    for (int k = 0; k < dof; k++)
      PetscCheck(isfinite(g[k]), s->comm, PETSC_ERR_FP,
                 "Warm-start impulse %d of contact %" PetscInt_FMT " is %g: pass finite impulses (or zero)", k, i,
                 g[k]);
    if (dof == 3) g[3] = g[4] = g[5] = 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolverSolve(CCPSolver s, CCPProblem *P, CCPSolveStats *stats)
{
  CCPProblem ref;

  PetscFunctionBegin;
  PetscCheck(s && P && stats, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL,
             "CCPSolverSolve needs a solver, a problem and a stats struct (got a NULL)");
  PetscCall(CCPProblemCheck(s, P));
  PetscCall(PetscLogEventBegin(CCPDEM_EVENT_CCP_SOLVE, 0, 0, 0, 0));
  stats->polish_iterations    = 0;           /* only the IPM polishes */
  stats->infeasible           = PETSC_FALSE; /* only APGD tests for it (and the IPM's polish, which is APGD) */
  stats->infeasible_contact   = -1;
  stats->infeasible_share     = 0;
  const CCPSolveContext ctx   = {s->comm, &s->set, &s->coupling, &s->work};
  const PetscBool       alone = (PetscBool)(P->ncontacts == 0 && !CCPCoupled(&s->coupling));
  /* no packed layout below (else CCPFinishPacked gives P->vel its buffer) */
  const PetscBool reference = (PetscBool)(!s->set.packed || s->type == SOLVER_IPM); /* the IPM reads arrays */
  if (reference || alone) PetscCall(CCPWorkspaceOutputVelocity(&s->work, s->set.release_layout, P));
  if (reference) { /* outputs (gamma, vel) still land in P's arrays */
    PetscCall(CCPWorkspaceReferenceProblem(&s->work, P, &ref));
    P = &ref;
  }
  if (alone) { /* coupled: the other ranks' contacts need this rank */
    for (PetscInt i = 0; i < P->nbodies; i++) ccp_problem_body(P, i, NULL, NULL, P->vel + 6 * (size_t)i);
    stats->iterations = stats->passes = 0;
    stats->res_max = stats->res_rms = 0;
    stats->converged                = PETSC_TRUE;
    stats->improved                 = PETSC_FALSE;
  } else {
    switch (s->type) {
    case SOLVER_JACOBI:
      PetscCall(CCPSolve_Jacobi(&ctx, P, stats));
      break;
    case SOLVER_GAUSS_SEIDEL:
      PetscCall(CCPSolve_GaussSeidel(&ctx, P, stats));
      break;
    case SOLVER_APGD:
      PetscCall(CCPSolve_APGD(&ctx, P, stats));
      break;
    case SOLVER_IPM:
      PetscCall(CCPSolve_IPM(&ctx, P, stats));
      break;
    }
  }
  /* Kept between solves, the layout sits beside the next step's detection and warm-start memory,
   * the step's peak (docs/design.md "Memory per body"): the blocks are kept (re-faulting them in every solve
   * costs time), the body records, a quarter of their size, are not. */
  if (s->set.release_layout) PetscCall(CCPWorkspaceRelease(&s->work));
  else PetscCall(CCPPackedReleaseBodies(&s->work.pk));
  PetscCall(PetscLogEventEnd(CCPDEM_EVENT_CCP_SOLVE, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

const char *CCPSolverTypeName(SolverType type)
{
  return type >= SOLVER_JACOBI && type <= SOLVER_IPM ? CCPSolverTypes[type] : "unknown";
}

PetscErrorCode CCPSolverGetType(CCPSolver s, SolverType *type)
{
  PetscFunctionBegin;
  *type = s->type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolverCheckCoupling(CCPSolver s, char *msg, size_t len)
{
  PetscFunctionBegin;
  msg[0] = 0;
  if (s->type == SOLVER_IPM) /* on several ranks the time step gathers the CCP onto rank 0 (step/model_ccp.c) */
    PetscCall(PetscSNPrintf(msg, len,
                            "solver type ipm (the interior-point method) is not coupled over ranks: solve its CCP on "
                            "one rank (the time step gathers it there) or use solver type apgd"));
  else if (s->type == SOLVER_GAUSS_SEIDEL)
    PetscCall(PetscSNPrintf(msg, len,
                            "solver type gauss-seidel is sequential over all contacts and runs on 1 rank only; use "
                            "solver type apgd (or jacobi) on several ranks"));
  else if (!s->set.packed)
    PetscCall(PetscSNPrintf(msg, len,
                            "-ccp_packed false (the reference loops) runs on 1 rank only; drop it to run on"
                            " several ranks"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolverSetCoupling(CCPSolver s, const CCPCoupling *coupling)
{
  PetscFunctionBegin;
  if (coupling) {
    PetscCheck(coupling->mark && coupling->sum && coupling->reduce && coupling->owned, s->comm, PETSC_ERR_ARG_NULL,
               "CCPSolverSetCoupling: the coupling needs mark, sum, reduce and owned");
    s->coupling = *coupling;
  } else PetscCall(PetscMemzero(&s->coupling, sizeof(s->coupling)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolverGetTolerance(CCPSolver s, double *tol)
{
  PetscFunctionBegin;
  *tol = s->set.tol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolverScratch(CCPSolver s, ScratchPool **pool)
{
  PetscFunctionBegin;
  *pool = &s->work.pk.vectors;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolverDestroy(CCPSolver *s)
{
  PetscFunctionBegin;
  if (!s || !*s) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(CCPWorkspaceDestroy(&(*s)->work));
  PetscCall(PetscFree(*s));
  PetscFunctionReturn(PETSC_SUCCESS);
}
