/* The CCP solver object (ccp/solver.h): lifecycle, options, argument checks, workspace and the
 * dispatch to one file per method (ccp/jacobi.c, ccp/gauss_seidel.c, ccp/apgd.c). */
#include "ccp/kernels.h"

#define CCP_PACKED_DEFAULT PETSC_TRUE /* -ccp_packed */

static const char *const CCPSolverTypes[] = {"jacobi", "gauss-seidel", "apgd", "SolverType", "SOLVER_", NULL};

static PetscClassId  CCP_CLASSID;
static PetscLogEvent CCP_SOLVE;
static PetscBool     ccp_registered = PETSC_FALSE;

/* PETSc forgets registrations at PetscFinalize; so must we, for a later PetscInitialize. */
static PetscErrorCode CCPSolverFinalizePackage(void)
{
  PetscFunctionBegin;
  ccp_registered = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CCPSolverRegisterLogging(void)
{
  PetscFunctionBegin;
  if (!ccp_registered) {
    PetscCall(PetscClassIdRegister("CCP solver", &CCP_CLASSID));
    PetscCall(PetscLogEventRegister("CCPSolve", CCP_CLASSID, &CCP_SOLVE));
    PetscCall(PetscRegisterFinalize(CCPSolverFinalizePackage));
    ccp_registered = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolverCreate(MPI_Comm comm, CCPSolver *s)
{
  CCPSolver n;

  PetscFunctionBegin;
  PetscCheck(s, comm, PETSC_ERR_ARG_NULL, "CCPSolverCreate needs the address of a CCPSolver");
  PetscCall(CCPSolverRegisterLogging());
  PetscCall(PetscNew(&n));
  n->comm          = comm;
  n->type          = SOLVER_APGD;
  n->max_it        = 1000;
  n->tol           = 1e-5;
  n->jacobi_omega  = 0.3; /* safe for ~12 contacts per body: see ccp/jacobi.c */
  n->jacobi_lambda = 1.0;
  n->gs_omega      = 1.0;
  n->check_interval = 10;
  n->apgd_check_interval = 4;
  n->packed         = CCP_PACKED_DEFAULT;
  n->simd           = SIMD4_AVX512VL; /* the best this CPU runs */
  n->release_layout = PETSC_FALSE; /* keep it: fresh pages every solve cost more than the memory (README "Memory per body") */
  n->apgd_L0        = 1.0; /* the mean eigenvalue of B_i N_ii: see ccp/apgd.c */
  /* About log(1/d)/log(g) of the iterations backtrack (an extra pass each): 15% at g = 2 (Mazhar
   * et al.'s value), 7.6% at g = 4. On the bench's settled 10^4 piles (6 solves to 1e-4 m/s on
   * each of 4 piles) g = 4 took 8.8% fewer passes than 2 (10234 against 11219) and 2.2% fewer
   * iterations; on the two piles tried, 3 and 6 took fewer passes than 2 as well, 8 more on one
   * (docs/performance-history.md, session 19). */
  n->apgd_L_grow    = 4.0;
  /* 0.95-0.97 backtracked less but left L high for longer after a spike, and APGD then stalled
   * above 1e-7 m/s on a step of test_distributed_pour (measured); 0.93 with g = 4 failed
   * test_pile_rest and test_repose_sweep (session 19). */
  n->apgd_L_decay   = 0.9;
  *s               = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolverSetFromScenario(CCPSolver s, SolverType type, PetscInt max_it, double tol)
{
  PetscFunctionBegin;
  PetscCheck(type >= SOLVER_JACOBI && type <= SOLVER_APGD, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "Unknown CCP solver type %d: use jacobi, gauss-seidel or apgd", (int)type);
  PetscCheck(max_it >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "CCP solver max_iterations %" PetscInt_FMT " is negative: give a count >= 0", max_it);
  PetscCheck(tol >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "CCP solver tolerance %g is negative: give a residual (m/s) >= 0", tol);
  s->type   = type;
  s->max_it = max_it;
  s->tol    = tol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolverPackedOption(PetscBool *packed)
{
  PetscFunctionBegin;
  *packed = CCP_PACKED_DEFAULT;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-ccp_packed", packed, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolverSetFromOptions(CCPSolver s)
{
  PetscEnum type = (PetscEnum)s->type;
  PetscReal tol = s->tol, omega = s->jacobi_omega, lambda = s->jacobi_lambda, gs_omega = s->gs_omega;
  PetscReal L0 = s->apgd_L0, grow = s->apgd_L_grow, decay = s->apgd_L_decay;
  const char *const simd4_isa_names[] = SIMD4_ISA_NAMES;

  PetscFunctionBegin;
  PetscOptionsBegin(s->comm, NULL, "CCP solver options", "CCPSolver");
  PetscCall(PetscOptionsEnum("-ccp_type", "CCP solver: jacobi, gauss-seidel or apgd", "CCPSolverSetFromOptions", CCPSolverTypes, type, &type, NULL));
  PetscCall(PetscOptionsInt("-ccp_max_it", "Iteration cap per CCP solve", "CCPSolverSetFromOptions", s->max_it, &s->max_it, NULL));
  PetscCall(PetscOptionsReal("-ccp_tol", "Tolerance on the max GUIDE residual (m/s)", "CCPSolverSetFromOptions", tol, &tol, NULL));
  PetscCall(PetscOptionsReal("-ccp_jacobi_omega", "Projected Jacobi step scale omega (times the per-contact step, eta_i for 3-dof), eq. 46", "CCPSolverSetFromOptions", omega, &omega, NULL));
  PetscCall(PetscOptionsReal("-ccp_jacobi_lambda", "Projected Jacobi relaxation lambda in (0, 1], eq. 46", "CCPSolverSetFromOptions", lambda, &lambda, NULL));
  PetscCall(PetscOptionsReal("-ccp_gs_omega", "Projected Gauss-Seidel relaxation omega of the per-contact step, in (0, 2)", "CCPSolverSetFromOptions", gs_omega, &gs_omega, NULL));
  PetscCall(PetscOptionsInt("-ccp_check_interval", "Jacobi and Gauss-Seidel: sweeps between exact residual checks (each costs about half a sweep; they also keep the best iterate)", "CCPSolverSetFromOptions", s->check_interval, &s->check_interval, NULL));
  PetscCall(PetscOptionsInt("-ccp_apgd_check_interval", "APGD: iterations between exact residual checks (each costs about a third of an iteration; the best iterate is kept among the checked ones; checks also run when the step nears the tolerance)", "CCPSolverSetFromOptions", s->apgd_check_interval, &s->apgd_check_interval, NULL));
  PetscCall(PetscOptionsBool("-ccp_packed", "Run the solvers on the packed, vectorized layout (false: the reference per-contact loops: slower, in double precision throughout, so within about 1e-7 relative of the packed iterates (which round the contact inputs to single, ccp/pack.h); the same operations for Jacobi and APGD, another sweep order for Gauss-Seidel)", "CCPSolverSetFromOptions", s->packed, &s->packed, NULL));
  PetscCall(PetscOptionsBool("-ccp_release_layout", "Free the packed layout and workspace after each solve: lower peak memory (detection and solve buffers never coexist), fresh pages in every solve", "CCPSolverSetFromOptions", s->release_layout, &s->release_layout, NULL));
  PetscCall(PetscOptionsEnum("-ccp_simd", "Packed kernels: the best instantiation the CPU runs up to this one (avx512vl: AVX2+FMA code with AVX-512VL's 32 registers, also what avx512 gives here; avx2; generic: the portable build, the same iterates up to fused multiply-adds)", "CCPSolverSetFromOptions", simd4_isa_names, (PetscEnum)s->simd, (PetscEnum *)&s->simd, NULL));
  if (s->simd > SIMD4_AVX512VL) s->simd = SIMD4_AVX512VL; /* these kernels have no 8-lane instantiation */
  PetscCall(PetscOptionsReal("-ccp_apgd_lipschitz_initial", "APGD initial Lipschitz estimate L in the metric of the per-contact steps (1 = mean eigenvalue of the diagonal blocks)", "CCPSolverSetFromOptions", L0, &L0, NULL));
  PetscCall(PetscOptionsReal("-ccp_apgd_lipschitz_grow", "APGD factor on L when a step fails the sufficient-decrease test (> 1)", "CCPSolverSetFromOptions", grow, &grow, NULL));
  PetscCall(PetscOptionsReal("-ccp_apgd_lipschitz_decay", "APGD factor on L after each accepted step, in (0, 1] (< 1 lets the step grow back)", "CCPSolverSetFromOptions", decay, &decay, NULL));
  PetscOptionsEnd();
  PetscCheck(s->apgd_check_interval >= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-ccp_apgd_check_interval %" PetscInt_FMT " must be >= 1 (typical 4)", s->apgd_check_interval);
  PetscCheck(s->check_interval >= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-ccp_check_interval %" PetscInt_FMT " must be >= 1 (typical 10)", s->check_interval);
  PetscCheck(L0 > 0 && isfinite(L0), s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-ccp_apgd_lipschitz_initial %g must be a positive number (typical 1)", (double)L0);
  PetscCheck(grow > 1 && isfinite(grow), s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-ccp_apgd_lipschitz_grow %g must be > 1 (typical 2-4)", (double)grow);
  PetscCheck(decay > 0 && decay <= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-ccp_apgd_lipschitz_decay %g must be in (0, 1] (typical 0.9)", (double)decay);
  PetscCheck(s->max_it >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-ccp_max_it %" PetscInt_FMT " is negative: give a count >= 0", s->max_it);
  PetscCheck(tol >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-ccp_tol %g is negative: give a residual (m/s) >= 0", (double)tol);
  PetscCheck(omega > 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-ccp_jacobi_omega %g must be > 0 (typical 0.2-0.5)", (double)omega);
  PetscCheck(lambda > 0 && lambda <= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-ccp_jacobi_lambda %g must be in (0, 1]", (double)lambda);
  PetscCheck(gs_omega > 0 && gs_omega < 2, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-ccp_gs_omega %g must be in (0, 2) (1 is plain Gauss-Seidel)", (double)gs_omega);
  s->type          = (SolverType)type;
  s->tol           = tol;
  s->jacobi_omega  = omega;
  s->jacobi_lambda = lambda;
  s->gs_omega      = gs_omega;
  s->apgd_L0       = L0;
  s->apgd_L_grow   = grow;
  s->apgd_L_decay  = decay;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Give back the workspace and the packed layout (-ccp_release_layout): every solve rebuilds them
 * from the problem, and kept between solves they sit beside the next step's collision detection
 * (its staging and the new contacts), which then sets the peak memory (README "Memory per body").
 * The price: fresh pages for them in every solve (measured about 140 ns per contact per solve). */
static PetscErrorCode CCPSolverReleaseWork(CCPSolver s)
{
  PetscFunctionBegin;
  for (int k = 0; k < 6; k++) PetscCall(PetscFree(s->work_g[k]));
  for (int k = 0; k < 3; k++) PetscCall(PetscFree(s->work_v[k]));
  PetscCall(PetscFree3(s->ref_body[0], s->ref_body[1], s->ref_body[2]));
  PetscCall(PetscFree(s->ref_terms));
  s->ngamma_cap = s->nvel_cap = s->nbody_cap = s->nterms_cap = 0;
  PetscCall(CCPPackedDestroy(&s->pk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolverEnsureWork(CCPSolver s, const CCPProblem *P)
{
  const size_t ng = (size_t)CONTACT_DOF_MAX * P->ncontacts, nv = 6 * (size_t)P->nbodies;

  PetscFunctionBegin;
  if (ng > s->ngamma_cap) {
    const size_t cap = ng + ng / 2; /* headroom: the contact count changes every step */
    for (int k = 0; k < 6; k++) {
      PetscCall(PetscFree(s->work_g[k]));
      PetscCall(PetscMalloc1(cap, &s->work_g[k]));
    }
    s->ngamma_cap = cap;
  }
  if (nv > s->nvel_cap) {
    const size_t cap = nv + nv / 2;
    for (int k = 0; k < 3; k++) {
      PetscCall(PetscFree(s->work_v[k]));
      PetscCall(PetscMalloc1(cap, &s->work_v[k]));
    }
    s->nvel_cap = cap;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Check what the methods rely on, once per solve: indices in range, a finite warm
 * start (eta is checked where the solve sets it: CCPSetEta). Zero the unused entries of 3-dof
 * contacts so that every method may treat all CONTACT_DOF_MAX entries alike. */
static PetscErrorCode CCPProblemCheck(CCPSolver s, CCPProblem *P)
{
  PetscFunctionBegin;
  PetscCheck(P->nbodies >= 0 && P->ncontacts >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "CCP problem with %" PetscInt_FMT " bodies and %" PetscInt_FMT " contacts", P->nbodies, P->ncontacts);
  for (PetscInt i = 0; i < P->ncontacts; i++) {
    const Contact *c = &P->contact[i];
    double        *g = ccp_block(P->gamma, i);
    PetscCheck(c->a >= 0 && c->a < P->nbodies && c->b >= 0 && c->b < P->nbodies && c->a != c->b, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
               "Contact %" PetscInt_FMT " joins solver bodies %d and %d, but there are %" PetscInt_FMT ": fix the contact's body indices", i, (int)c->a, (int)c->b, P->nbodies);
    const int      dof = contact_dof(c);
    for (int k = 0; k < dof; k++) PetscCheck(isfinite(g[k]), s->comm, PETSC_ERR_FP, "Warm-start impulse %d of contact %" PetscInt_FMT " is %g: pass finite impulses (or zero)", k, i, g[k]);
    if (dof == 3) g[3] = g[4] = g[5] = 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The reference loops read the bodies and the contact terms from arrays: *R is P with its own
 * bodies, or, for a body source, with s's workspace filled from it; and with s's terms, filled
 * from P's, every contact's eta from the bodies (the packed layout computes the terms and eta
 * per contact into its blocks instead: CCPPackedBuild). */
static PetscErrorCode CCPReferenceProblem(CCPSolver s, CCPProblem *P, CCPProblem *R)
{
  const size_t nb = (size_t)P->nbodies;

  PetscFunctionBegin;
  *R = *P;
  if (P->body) {
    if (nb > s->nbody_cap) {
      const size_t cap = nb + nb / 2 + 1;
      PetscCall(PetscFree3(s->ref_body[0], s->ref_body[1], s->ref_body[2]));
      PetscCall(PetscMalloc3(cap, &s->ref_body[0], 6 * cap, &s->ref_body[1], 6 * cap, &s->ref_body[2]));
      s->nbody_cap = cap;
    }
    for (size_t i = 0; i < nb; i++) ccp_problem_body(P, (PetscInt)i, s->ref_body[0] + i, s->ref_body[1] + 6 * i, s->ref_body[2] + 6 * i);
    R->body        = NULL;
    R->inv_mass    = s->ref_body[0];
    R->inv_inertia = s->ref_body[1];
    R->vel_free    = s->ref_body[2];
  }
  if ((size_t)P->ncontacts > s->nterms_cap) {
    const size_t cap = (size_t)P->ncontacts + (size_t)P->ncontacts / 2 + 1;
    PetscCall(PetscFree(s->ref_terms));
    PetscCall(PetscMalloc1(cap, &s->ref_terms));
    s->nterms_cap = cap;
  }
  for (PetscInt i = 0; i < R->ncontacts; i++) {
    const Contact   *c = &R->contact[i];
    const size_t     a = (size_t)c->a, b = (size_t)c->b;
    CCPContactTerms *t = &s->ref_terms[i];
    ccp_problem_terms(P, i, t);
    t->eta = ccp_contact_eta(c, t, R->inv_mass[a], R->inv_inertia + 6 * a, R->inv_mass[b], R->inv_inertia + 6 * b);
    PetscCall(CCPCheckEta(i, t->eta));
  }
  R->terms    = s->ref_terms;
  R->terms_fn = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolverOutputVelocity(CCPSolver s, CCPProblem *P)
{
  const size_t bytes = 6 * sizeof(double) * (size_t)P->nbodies;

  PetscFunctionBegin;
  if (P->vel) PetscFunctionReturn(PETSC_SUCCESS);
  if (s->release_layout) { /* the pool is emptied at the end of the solve: an array that outlives it */
    PetscCall(PetscFree(s->vel_out));
    PetscCall(PetscMalloc(bytes + sizeof(double), &s->vel_out));
    P->vel = s->vel_out;
  } else PetscCall(ScratchPoolGet(&s->pk.vectors, SCRATCH_SOLVE_VELOCITIES, bytes, 0, (void **)&P->vel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolverSolve(CCPSolver s, CCPProblem *P, CCPSolveStats *stats)
{
  CCPProblem ref;

  PetscFunctionBegin;
  PetscCheck(s && P && stats, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "CCPSolverSolve needs a solver, a problem and a stats struct (got a NULL)");
  PetscCall(CCPProblemCheck(s, P));
  PetscCall(PetscLogEventBegin(CCP_SOLVE, 0, 0, 0, 0));
  if (!s->packed || (P->ncontacts == 0 && !CCPCoupled(s))) PetscCall(CCPSolverOutputVelocity(s, P)); /* no packed layout below (else CCPPackedFinish) */
  if (!s->packed) { /* outputs (gamma, vel) still land in P's arrays */
    PetscCall(CCPReferenceProblem(s, P, &ref));
    P = &ref;
  }
  if (P->ncontacts == 0 && !CCPCoupled(s)) { /* coupled: the other ranks' contacts need this rank */
    for (PetscInt i = 0; i < P->nbodies; i++) ccp_problem_body(P, i, NULL, NULL, P->vel + 6 * (size_t)i);
    stats->iterations = stats->passes = 0;
    stats->res_max = stats->res_rms = 0;
    stats->converged                = PETSC_TRUE;
    stats->improved                 = PETSC_FALSE;
  } else {
    switch (s->type) {
    case SOLVER_JACOBI:
      PetscCall(CCPSolve_Jacobi(s, P, stats));
      break;
    case SOLVER_GAUSS_SEIDEL:
      PetscCall(CCPSolve_GaussSeidel(s, P, stats));
      break;
    case SOLVER_APGD:
      PetscCall(CCPSolve_APGD(s, P, stats));
      break;
    }
  }
  /* Kept between solves, the layout sits beside the next step's detection and warm-start memory,
   * the step's peak (README "Memory per body"): the blocks are kept (re-faulting them in every solve
   * costs time), the body records, a quarter of their size, are not. */
  if (s->release_layout) PetscCall(CCPSolverReleaseWork(s));
  else PetscCall(CCPPackedReleaseBodies(&s->pk));
  PetscCall(PetscLogEventEnd(CCP_SOLVE, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
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
  if (s->type == SOLVER_GAUSS_SEIDEL) PetscCall(PetscSNPrintf(msg, len, "solver type gauss-seidel is sequential over all contacts and runs on 1 rank only; use solver type apgd (or jacobi) on several ranks"));
  else if (!s->packed) PetscCall(PetscSNPrintf(msg, len, "-ccp_packed false (the reference loops) runs on 1 rank only; drop it to run on several ranks"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolverSetCoupling(CCPSolver s, const CCPCoupling *coupling)
{
  PetscFunctionBegin;
  if (coupling) {
    PetscCheck(coupling->mark && coupling->sum && coupling->reduce && coupling->owned, s->comm, PETSC_ERR_ARG_NULL, "CCPSolverSetCoupling: the coupling needs mark, sum, reduce and owned");
    s->coupling = *coupling;
  } else PetscCall(PetscMemzero(&s->coupling, sizeof(s->coupling)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolverGetTolerance(CCPSolver s, double *tol)
{
  PetscFunctionBegin;
  *tol = s->tol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolverScratch(CCPSolver s, ScratchPool **pool)
{
  PetscFunctionBegin;
  *pool = &s->pk.vectors;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolverDestroy(CCPSolver *s)
{
  PetscFunctionBegin;
  if (!s || !*s) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(CCPSolverReleaseWork(*s));
  PetscCall(PetscFree((*s)->vel_out));
  PetscCall(PetscFree(*s));
  PetscFunctionReturn(PETSC_SUCCESS);
}
