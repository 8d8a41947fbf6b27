// ctest: labels=unit timeout=120
/* The packed, vectorized solver path (ccp/pack.h, ccp/sweep.c; the default) against the reference
 * per-contact loops (-ccp_packed false, validated against dense solutions in test_ccp_solvers) on
 * random problems: mixed 3/6-dof, all 3-dof and all 6-dof contacts, contact counts that leave
 * padding lanes, cohesion, compliance, two walls with prescribed velocities, shared bodies
 * within a block. The two paths run the same iteration on the same data and differ only in the
 * order of floating-point sums (contacts are reordered by body inside the packed layout), so
 * after a fixed number of iterations their impulses and velocities must agree to rounding.
 * Gauss-Seidel sweeps conflict-free blocks in the packed order (another order than the reference's),
 * so for it, as for converged APGD, the converged velocities are compared. The packed kernels
 * run in every build: AVX2+FMA with AVX-512VL's registers, AVX2+FMA (where the CPU has them) and
 * portable (-ccp_simd generic). Timeout 120 s: 25 s in a `ctest -j2` on the 2 cores at load 10-15,
 * 10 s in one beside a CPU-bound process. */
#include <petscsys.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <float.h>
#include "ccp/kernels.h"
#include "ccp/pack.h"
#include "ccp_single.h"
#include "ccp/packed_inertia.h"
#include "ccp/solver.h"
#include "base/simd4_isa.h"
#include "base/vec3.h"

#include "test_check.h"

#include "test_random.h"

typedef struct {
  PetscInt         nbodies, nc;
  double          *inv_mass, *inv_inertia, *vel_free, *vel, *gamma, *gamma0;
  Contact         *contact;
  CCPContactTerms *terms;
} Problem;

/* Whether random_problem gives its 6-dof contacts rolling springs (c_roll, b_rot: the layout's brot). */
static PetscBool with_springs = PETSC_FALSE;

/* nmoving bodies then 2 walls; contacts between nearby bodies (|a - b| small, so blocks share
 * bodies), random terms (the solve sets eta), a random warm start */
static PetscErrorCode random_problem(Problem *P, PetscInt nmoving, PetscInt nc, int dof_mode /* 3, 6, or 0 = mixed */)
{
  PetscFunctionBeginUser;
  P->nbodies = nmoving + 2;
  P->nc      = nc;
  PetscCall(PetscCalloc5(P->nbodies, &P->inv_mass, 6 * P->nbodies, &P->inv_inertia, 6 * P->nbodies, &P->vel_free,
                         6 * P->nbodies, &P->vel, 6 * nc, &P->gamma));
  PetscCall(PetscCalloc3(nc, &P->contact, nc, &P->terms, 6 * nc, &P->gamma0));
  for (PetscInt j = 0; j < nmoving; j++) {
    P->inv_mass[j] = 0.5 + urand();
    random_spd(P->inv_inertia + 6 * j, 3.0);
    ccp_single_body(&P->inv_mass[j], P->inv_inertia + 6 * j);
  }
  for (PetscInt k = 0; k < 6 * P->nbodies; k++) P->vel_free[k] = srand1();
  for (PetscInt i = 0; i < nc; i++) {
    Contact *c = &P->contact[i];
    c->b       = (int32_t)(urand() * nmoving);
    if (urand() < 0.15) c->a = (int32_t)(nmoving + (urand() < 0.5)); /* a wall */
    else do {
        const int near = c->b + (int)(7 * srand1()); /* PetscMax evaluates its arguments twice */
        c->a           = (int32_t)PetscMin(PetscMax(near, 0), nmoving - 1);
      } while (c->a == c->b);
    const int dof  = dof_mode ? dof_mode : (urand() < 0.5 ? 3 : 6); /* a 6-dof contact gets rho, sigma > 0 below */
    double    n[3] = {srand1(), srand1(), srand1()};
    v3_scale(c->n, 1 / v3_norm(n), n);
    for (int q = 0; q < 3; q++) {
      c->ra[q] = 0.5 * srand1();
      c->rb[q] = 0.5 * srand1();
    }
    c->mu                        = urand() < 0.1 ? 0 : 0.2 + 0.5 * urand();
    c->rho                       = dof == 6 ? 0.01 + 0.05 * urand() : 0;
    c->sigma                     = dof == 6 ? 0.01 + 0.05 * urand() : 0;
    P->terms[i].bn               = srand1();
    P->terms[i].c_lin            = urand() < 0.5 ? 0 : 0.1 * urand();
    P->terms[i].cohesion_impulse = urand() < 0.3 ? 0.2 * urand() : 0;
    if (with_springs && dof == 6) {
      P->terms[i].c_roll = 0.5 * urand();
      for (int k = 0; k < 3; k++) P->terms[i].b_rot[k] = 0.5 * srand1();
    }
    for (int k = 0; k < dof; k++) P->gamma0[6 * i + k] = urand() < 0.3 ? 0 : srand1();
    ccp_single_inputs(c, &P->terms[i]); /* both paths solve the same problem */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode free_problem(Problem *P)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree5(P->inv_mass, P->inv_inertia, P->vel_free, P->vel, P->gamma));
  PetscCall(PetscFree3(P->contact, P->terms, P->gamma0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The solvers' view of P */
static CCPProblem problem_view(Problem *P)
{
  return (CCPProblem){.nbodies     = P->nbodies,
                      .inv_mass    = P->inv_mass,
                      .inv_inertia = P->inv_inertia,
                      .vel_free    = P->vel_free,
                      .vel         = P->vel,
                      .ncontacts   = P->nc,
                      .contact     = P->contact,
                      .gamma       = P->gamma,
                      .terms       = P->terms};
}

/* Solve from the warm start gamma0 with the packed path or the reference; impulses and velocities out. */
static PetscErrorCode solve(Problem *P, SolverType type, PetscInt max_it, double tol, PetscBool packed, Simd4Isa isa,
                            double *gamma, double *vel, CCPSolveStats *st)
{
  CCPSolver  s;
  CCPProblem view = problem_view(P);

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(P->gamma, P->gamma0, 6 * P->nc));
  PetscCall(PetscOptionsSetValue(NULL, "-ccp_packed", packed ? "true" : "false"));
  PetscCall(PetscOptionsSetValue(NULL, "-ccp_simd", simd4_isa_name(isa)));
  PetscCall(CCPSolverCreate(PETSC_COMM_SELF, &s));
  PetscCall(CCPSolverSetFromScenario(s, type, max_it, tol));
  PetscCall(CCPSolverSetFromOptions(s));
  PetscCall(CCPSolverSolve(s, &view, st));
  PetscCall(CCPSolverSolve(s, &view, st)); /* again, warm: the kept layout memory is reused */
  PetscCall(PetscArraycpy(P->gamma, P->gamma0, 6 * P->nc));
  PetscCall(CCPSolverSolve(s, &view, st));
  PetscCall(CCPSolverDestroy(&s));
  PetscCall(PetscOptionsClearValue(NULL, "-ccp_packed"));
  PetscCall(PetscOptionsClearValue(NULL, "-ccp_simd"));
  PetscCall(PetscArraycpy(gamma, P->gamma, 6 * P->nc));
  PetscCall(PetscArraycpy(vel, P->vel, 6 * P->nbodies));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static double max_abs(const double *x, size_t n)
{
  double m = 0;
  for (size_t k = 0; k < n; k++) m = PetscMax(m, fabs(x[k]));
  return m;
}

static double max_diff(const double *x, const double *y, size_t n)
{
  double m = 0;
  for (size_t k = 0; k < n; k++) m = PetscMax(m, fabs(x[k] - y[k]));
  return m;
}

/* Tolerances. Jacobi, 40 sweeps: each sweep is a contraction in exact arithmetic up to the kinks
 * of the projections, so rounding differences (1e-16 relative per operation, summed in another
 * order) grow at most mildly: 1e-9 relative to the largest impulse leaves 10^6 of headroom yet
 * catches any wrong coefficient, index or lane (those give O(1) differences). APGD, 40
 * iterations: its backtracking test and restart compare computed quantities, so a rounding
 * difference could in principle flip a decision; the same 1e-9 holds on these problems and a
 * flipped decision would show as an O(1e-3+) difference. Converged solves (tol 1e-10 m/s): the
 * velocities of two solutions within the tolerance differ by O(tol), hence 1e-7 m/s. */
static PetscErrorCode compare(PetscInt nmoving, PetscInt nc, int dof_mode, const char *name)
{
  static const char *names[] = {"jacobi", "gauss-seidel", "apgd"};
  Problem            P;

  PetscFunctionBeginUser;
  PetscCall(random_problem(&P, nmoving, nc, dof_mode));
  double *g1, *g2, *v1, *v2, *gw[2], *vw[2]; /* gw, vw: the AVX-512VL build's Jacobi and APGD results */
  PetscCall(PetscMalloc4(6 * nc, &g1, 6 * nc, &g2, 6 * P.nbodies, &v1, 6 * P.nbodies, &v2));
  PetscCall(PetscMalloc4(6 * nc, &gw[0], 6 * nc, &gw[1], 6 * P.nbodies, &vw[0], 6 * P.nbodies, &vw[1]));
  for (int run = 0; run < 6; run++) {
    const int      t   = run % 2 ? SOLVER_APGD : SOLVER_JACOBI;
    const Simd4Isa isa = (Simd4Isa)(SIMD4_AVX512VL - run / 2); /* each instantiation (those this CPU lacks fall back to
                                                                  the best it has), the portable one last */
    CCPSolveStats s1, s2;
    PetscCall(solve(&P, (SolverType)t, 40, 0.0, PETSC_TRUE, isa, g1, v1, &s1));
    PetscCall(solve(&P, (SolverType)t, 40, 0.0, PETSC_FALSE, isa, g2, v2, &s2));
    const double gs = PetscMax(max_abs(g2, 6 * nc), 1), dg = max_diff(g1, g2, 6 * nc) / gs,
                 dv = max_diff(v1, v2, 6 * P.nbodies) / PetscMax(max_abs(v2, 6 * P.nbodies), 1);
    printf("  %-22s %-7s %-7s 40 it: |d gamma| %.1e, |d v| %.1e (relative), residual %.3e vs %.3e, iterations %d vs "
           "%d\n",
           name, names[t], simd4_isa_name(simd4_isa(isa)), dg, dv, s1.res_max, s2.res_max, (int)s1.iterations,
           (int)s2.iterations);
    CHECK(dg < 1e-9 && dv < 1e-9, "%s %s: packed and reference differ by %.2e (gamma), %.2e (v)", name, names[t], dg,
          dv);
    /* Once both residuals are at rounding level, APGD's divergence stop (ccp_diverged) is decided
     * by rounding noise, which the fused multiply-adds of the vector builds change: the 1-contact
     * problem gets there within the 40 iterations. */
    const PetscBool at_rounding = (PetscBool)(s1.res_max < 1e-12 && s2.res_max < 1e-12);
    CHECK(s1.iterations == s2.iterations || at_rounding, "%s %s: %d vs %d iterations", name, names[t],
          (int)s1.iterations, (int)s2.iterations);
    /* the AVX-512VL build only has more registers: the same operations, the AVX2 build's bits */
    if (isa == SIMD4_AVX512VL) {
      PetscCall(PetscArraycpy(gw[run % 2], g1, 6 * nc));
      PetscCall(PetscArraycpy(vw[run % 2], v1, 6 * P.nbodies));
    } else if (isa == SIMD4_AVX2 && simd4_cpu_isa() == SIMD4_AVX512VL)
      CHECK(!memcmp(gw[run % 2], g1, sizeof(double) * 6 * nc) &&
              !memcmp(vw[run % 2], v1, sizeof(double) * 6 * P.nbodies),
            "%s %s: the AVX-512VL and AVX2 builds differ", name, names[t]);
    /* 3-dof contacts keep zero torque impulses */
    for (PetscInt i = 0; i < nc; i++)
      if (contact_dof(&P.contact[i]) == 3)
        CHECK(g1[6 * i + 3] == 0 && g1[6 * i + 4] == 0 && g1[6 * i + 5] == 0,
              "%s: 3-dof contact %d got torque impulses", name, (int)i);
  }
  /* Converged solves; Gauss-Seidel sweeps the packed blocks in another order than the reference,
   * so only its converged velocities can be compared. */
  for (int t = 1; t < 3; t++) {
    CCPSolveStats s1, s2;
    PetscCall(solve(&P, (SolverType)t, 20000, 1e-10, PETSC_TRUE, SIMD4_AVX512VL, g1, v1, &s1));
    PetscCall(solve(&P, (SolverType)t, 20000, 1e-10, PETSC_FALSE, SIMD4_AVX512VL, g2, v2, &s2));
    const double dv = max_diff(v1, v2, 6 * P.nbodies);
    printf("  %-22s %-7s to 1e-10: converged %d/%d in %d/%d iterations, |d v| %.1e m/s\n", name, names[t],
           (int)s1.converged, (int)s2.converged, (int)s1.iterations, (int)s2.iterations, dv);
    CHECK(s1.converged && s2.converged, "%s %s: packed converged %d, reference %d", name, names[t], (int)s1.converged,
          (int)s2.converged);
    if (s1.converged && s2.converged)
      CHECK(dv < 1e-7, "%s %s: converged velocities differ by %.2e m/s", name, names[t], dv);
  }
  PetscCall(PetscFree4(g1, g2, v1, v2));
  PetscCall(PetscFree4(gw[0], gw[1], vw[0], vw[1]));
  PetscCall(free_problem(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* APGD's packed iteration against the reference loops wherever its bookkeeping branches: the
 * cap (1, 2, 3, 7, 40 iterations: the last iterate's residual then takes a pass of its own; 0:
 * the warm start is returned), the tolerance (the step made from a converged iterate is dropped);
 * a first step that fails the step test about 10 times (L0 1e-3) and L0 1e3; every iterate
 * checked (its best iterate stays among the three rotating buffers), every 4th (the best ages out
 * of them and moves to P->gamma; the reference keeps a fourth buffer instead) or only at the cap
 * and the warm start (from a warm start that 40 iterations made, which often stays the best).
 * The same iteration, so at the caps the same iteration counts and, as in compare, impulses and
 * velocities within 1e-9 relative; converged solves (whose counts rounding may shift by a few
 * percent over hundreds of iterations), both converged (or the one that did not within 1% above
 * the tolerance) and velocities within 1e-7 m/s. */
static PetscErrorCode compare_apgd_paths(PetscInt nmoving, PetscInt nc, int dof_mode, const char *name)
{
  static const PetscInt caps[] = {0, 1, 2, 3, 7, 40, 20000};
  static const char    *L0[] = {"1e-3", "1", "1e3"}, *interval[] = {"1", "4", "1000"};
  Problem               P;
  int                   runs = 0, agree = 0;
  double                worst = 0;

  PetscFunctionBeginUser;
  PetscCall(random_problem(&P, nmoving, nc, dof_mode));
  double *g1, *g2, *v1, *v2;
  PetscCall(PetscMalloc4(6 * nc, &g1, 6 * nc, &g2, 6 * P.nbodies, &v1, 6 * P.nbodies, &v2));
  for (int simd = 0; simd < 4; simd++) {
    if (simd == 2) { /* warm start from 40 iterations */
      CCPSolveStats st;
      PetscCall(solve(&P, SOLVER_APGD, 40, 0, PETSC_TRUE, SIMD4_AVX512VL, g1, v1, &st));
      PetscCall(PetscArraycpy(P.gamma0, g1, 6 * nc));
    }
    for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++)
      for (int l = 0; l < 3; l++)
        for (int k = 0; k < 3; k++) {
          const double  tol = caps[c] > 1000 ? 1e-10 : 0;
          CCPSolveStats s1, s2;
          PetscCall(PetscOptionsSetValue(NULL, "-ccp_apgd_lipschitz_initial", L0[l]));
          PetscCall(PetscOptionsSetValue(NULL, "-ccp_apgd_check_interval", interval[k]));
          PetscCall(
            solve(&P, SOLVER_APGD, caps[c], tol, PETSC_TRUE, simd % 2 ? SIMD4_AVX512VL : SIMD4_GENERIC, g1, v1, &s1));
          PetscCall(solve(&P, SOLVER_APGD, caps[c], tol, PETSC_FALSE, SIMD4_GENERIC, g2, v2, &s2));
          PetscCall(PetscOptionsClearValue(NULL, "-ccp_apgd_check_interval"));
          PetscCall(PetscOptionsClearValue(NULL, "-ccp_apgd_lipschitz_initial"));
          const double gs = PetscMax(max_abs(g2, 6 * nc), 1), dg = max_diff(g1, g2, 6 * nc) / gs,
                       dv = max_diff(v1, v2, 6 * P.nbodies);
          const double vs = tol > 0 ? 1 : PetscMax(max_abs(v2, 6 * P.nbodies), 1), lim = tol > 0 ? 1e-7 : 1e-9;
          /* at the tolerance's edge the two may part: a solve stops on the residual of its
           * updated velocities, then reports that of velocities made anew, which differ by the
           * drift of ccp/apgd.c's V(gamma+) (measured 0.4% of the residual, 1.0033e-10 against the
           * tolerance 1e-10, after 491 iterations on this problem) */
          const PetscBool edge = (PetscBool)(tol > 0 && PetscMax(s1.res_max, s2.res_max) < 1.01 * tol);
          const PetscBool ok   = (PetscBool)((tol > 0 || (s1.iterations == s2.iterations && dg < lim)) &&
                                           (s1.converged == s2.converged || edge) && dv / vs < lim);
          CHECK(ok,
                "%s %s%s cap %d L0 %s check interval %s: packed and reference APGD differ (iterations %d vs %d, "
                "converged %d vs %d, residual %.6e vs %.6e, |d gamma| %.1e, |d v| %.1e)",
                name, simd % 2 ? "simd" : "generic", simd >= 2 ? " warm" : "", (int)caps[c], L0[l], interval[k],
                (int)s1.iterations, (int)s2.iterations, (int)s1.converged, (int)s2.converged, s1.res_max, s2.res_max,
                dg, dv / vs);
          runs++;
          agree += ok;
          worst = PetscMax(worst, dv / vs);
        }
  }
  printf("  %-22s apgd packed vs reference: %d/%d solves agree (largest |d v| %.1e)\n", name, agree, runs, worst);
  PetscCall(PetscFree4(g1, g2, v1, v2));
  PetscCall(free_problem(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The knobs added with the packed path reject values that make no sense, with an error (not a crash). */
static PetscErrorCode check_options(void)
{
  static const char *bad[][2] = {
    {"-ccp_check_interval", "0"},
    {"-ccp_apgd_lipschitz_initial", "-1"},
    {"-ccp_apgd_lipschitz_grow", "1"},
    {"-ccp_apgd_lipschitz_decay", "1.5"},
    {"-ccp_simd", "avx3"},
  };

  PetscFunctionBeginUser;
  printf("  options: each out-of-range value is rejected\n");
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
    CCPSolver s;
    PetscCall(CCPSolverCreate(PETSC_COMM_SELF, &s));
    PetscCall(PetscOptionsSetValue(NULL, bad[k][0], bad[k][1]));
    PetscErrorCode err = CCPSolverSetFromOptions(s);
    PetscCall(PetscOptionsClearValue(NULL, bad[k][0]));
    CHECK(err != 0, "%s %s was accepted", bad[k][0], bad[k][1]);
    PetscCall(CCPSolverDestroy(&s));
  }
  PetscCall(PetscPopErrorHandler());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The layout's storage: a problem of 3-dof contacts only gets blocks of CCP_BLOCK3_BYTES (its
 * kernels never read the 6-dof part), any 6-dof contact the full CCPBlock; the body records start
 * on a cache line (whole lines per record, the sweeps' prefetch). Unpacking the packed warm start gives
 * it back exactly, so the blocks' lanes do not overlap; so does a stash (CCPPackedStash). */
static PetscErrorCode check_layout(PetscInt nmoving, PetscInt nc, int dof_mode, size_t expect_bytes, const char *name)
{
  Problem    P;
  CCPPacked  pk = {0};
  CCPProblem view;

  PetscFunctionBeginUser;
  PetscCall(random_problem(&P, nmoving, nc, dof_mode));
  view = problem_view(&P);
  PetscCall(PetscArraycpy(P.gamma, P.gamma0, 6 * P.nc));
  PetscCall(CCPPackedBuild(&pk, &view, 1, PETSC_FALSE, CCP_SLOTS_SWEEP));
  CHECK(pk.blk_bytes == expect_bytes, "%s: blocks of %zu bytes, expected %zu", name, pk.blk_bytes, expect_bytes);
  CHECK((uintptr_t)pk.body % 64 == 0, "%s: the body records start %d bytes into a cache line", name,
        (int)((uintptr_t)pk.body % 64));
  PetscCall(PetscArrayzero(P.gamma, 6 * P.nc));
  CCPPackedUnpackGamma(&pk, pk.g[0], &view);
  CHECK(!memcmp(P.gamma, P.gamma0, sizeof(double) * 6 * P.nc), "%s: the packed warm start does not unpack to itself",
        name);
  /* APGD's stash of a packed vector in P->gamma's storage comes back bit for bit, padding lanes included */
  const size_t len = ccp_packed_len(&pk);
  double      *x, *back;
  PetscCall(PetscMalloc2(len, &x, len, &back));
  for (size_t k = 0; k < len; k++) x[k] = srand1();
  PetscCall(CCPPackedStash(&pk, x, &view));
  for (size_t k = 0; k < len; k++) pk.g[0][k] = 0; /* (what the solve's passes would overwrite) */
  CCPPackedUnstash(&pk, &view, back);
  CHECK(!memcmp(x, back, sizeof(double) * len),
        "%s: a stashed packed vector (%zu doubles, %d contacts) does not come back", name, len, (int)P.nc);
  PetscCall(PetscFree2(x, back));
  PetscCall(CCPPackedDestroy(&pk));
  PetscCall(free_problem(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Inputs that are not single-precision numbers: the blocks hold them rounded, and the tangents'
 * us and wt are those of the rounded normal (ccp/pack.h: the sweeps rebuild the frame from it).
 * Computed from the unrounded normal, us would be off by about 1e-8 relative; so would it if
 * the packing's rounding were dropped (GCC 12's SLP vectorizer dropped such round trips). */
static PetscErrorCode check_rounded_frames(void)
{
  Problem    P;
  CCPPacked  pk = {0};
  CCPProblem view;
  int        lanes = 0, bad = 0, unrounded = 0;

  PetscFunctionBeginUser;
  PetscCall(random_problem(&P, 40, 61, 0));
  for (PetscInt i = 0; i < P.nc; i++) {
    double n[3];
    v3_copy(n, P.contact[i].n);
    v3_scale(P.contact[i].n, 1 / v3_norm(n), n); /* unit in double: generally not single any more */
    for (int k = 0; k < 3; k++) unrounded += (double)(float)P.contact[i].n[k] != P.contact[i].n[k];
  }
  view = problem_view(&P);
  PetscCall(CCPPackedBuild(&pk, &view, 1, PETSC_FALSE, CCP_SLOTS_SWEEP));
  for (PetscInt slot = 0; slot < pk.nblk * CCP_LANES; slot++) {
    const PetscInt  i = pk.perm[slot];
    const CCPBlock *K = ccp_block_at(&pk, slot / CCP_LANES);
    const int       l = (int)(slot % CCP_LANES);
    if (i < 0) continue;
    double nf[3], u[3], w[3], us;
    for (int k = 0; k < 3; k++) {
      nf[k] = K->n[k][l];
      bad += nf[k] != ccp_single(P.contact[i].n[k]);
    }
    v3_tangents_scaled(nf, u, w, &us);
    bad += K->us[l] != us || K->wt[l] != w[v3_tangent_axis(nf)];
    lanes++;
  }
  printf("  rounded inputs: %d of %d normal entries not single; %d contacts, %d with a stored n or frame not that of "
         "the rounded n\n",
         unrounded, 3 * (int)P.nc, lanes, bad);
  CHECK(unrounded > 0 && lanes == P.nc && bad == 0, "the packed frames are not those of the rounded normals (%d of %d)",
        bad, lanes);
  PetscCall(CCPPackedDestroy(&pk));
  PetscCall(free_problem(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The layout of P as it is: *err is what the build returned (pk destroyed by the caller either way). */
static PetscErrorCode build_layout(Problem *P, CCPPacked *pk, PetscErrorCode *err)
{
  CCPProblem view = problem_view(P);

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(P->gamma, P->gamma0, 6 * P->nc));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  *err = CCPPackedBuild(pk, &view, 1, PETSC_FALSE, CCP_SLOTS_SWEEP);
  PetscCall(PetscPopErrorHandler());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The layout of P with body 0's inverse inertia R diag(d) R^T, R the rotation of the quaternion q
 * (normalized here): *err is what the build returned (pk destroyed by the caller either way). */
static PetscErrorCode build_turned_body(Problem *P, double q[4], const double d[3], double R[9], CCPPacked *pk,
                                        PetscErrorCode *err)
{
  PetscFunctionBeginUser;
  quat_normalize(q);
  quat_to_matrix(q, R);
  sym_rotate_diag(P->inv_inertia, R, d);
  PetscCall(build_layout(P, pk, err));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The build's backstop (ccp/pack.c): a body whose world inverse inertia single-precision rounding
 * makes indefinite is rejected with an error, not solved with a wrong inertia. The matrices: for each
 * pair of axes (x, y), (x, z), (y, z), the 2x2 block [[1, b], [b, a]] on it and 1 on the third axis,
 *   a = 1 + 2^-22 (a float),  b = 1 + 2^-24 + 2^-30,
 * positive definite (a - b^2 = 2^-23 - 2^-29 - ..., about 2^-23: principal values about 2, 1 and
 * 2^-24, 3e7 apart); b rounds up to the float 1 + 2^-23, whose square exceeds a by 2^-46. Each entry
 * is given, not computed, and the minors' products are exact in double or within 2^-53 of a 2^-23
 * margin, so every build (FMA contraction or not) finds the same signs, and each off-diagonal entry's
 * own rounding decides. (A rotated diag(1, 1e-12, 1e-12) is no such test: rounded, it is rank 1 with
 * minors of exactly 0, semidefinite, and was rejected only where a build checked some entries
 * unrounded.) A rotated body with principal values 1 and 1e-4 is taken: rounding moves 1e-4 by at
 * most about 1e-7. */
static PetscErrorCode check_inertia_rounding(void)
{
  const double   a = 1 + ldexp(1, -22), b = 1 + ldexp(1, -24) + ldexp(1, -30);
  const char    *pairs[3] = {"xy", "xz", "yz"};
  double         q[4] = {1, 2, 3, 4}, R[9], d[3] = {1, 1e-4, 1e-4};
  Problem        P;
  CCPPacked      pk = {0};
  PetscErrorCode err;

  PetscFunctionBeginUser;
  PetscCall(random_problem(&P, 40, 61, 6));
  for (int p = 0; p < 3; p++) { /* (xx, yy, zz, xy, xz, yz): a on the pair's second axis, b off the diagonal */
    double J[6]       = {1, 1, 1, 0, 0, 0};
    J[p == 0 ? 1 : 2] = a;
    J[3 + p]          = b;
    PetscCall(PetscArraycpy(P.inv_inertia, J, 6));
    PetscCall(build_layout(&P, &pk, &err));
    printf("  inverse inertia that rounding makes indefinite (%s block): build %s\n", pairs[p],
           err ? "rejected it" : "took it");
    CHECK(err == PETSC_ERR_SUP, "inverse inertia indefinite after rounding (%s block): the build returned %d", pairs[p],
          (int)err);
    PetscCall(CCPPackedDestroy(&pk));
  }
  PetscCall(build_turned_body(&P, q, d, R, &pk, &err));
  printf("  inverse inertia with principal values 1, 1e-4: build %s\n", err ? "rejected it" : "took it");
  CHECK(err == 0, "principal values 1, 1e-4: the build returned %d", (int)err);
  PetscCall(CCPPackedDestroy(&pk));
  PetscCall(free_problem(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The largest |x^T (J' - J) x| / x^T J x over x = the principal axes (the columns of R) and 20
 * random directions, J' being the packed record's world inverse inertia of body 0 and J = R diag(d) R^T. */
static double inertia_rounding_error(const CCPPacked *pk, const double R[9], const double d[3])
{
  const CCPBodyMass *B = ccp_body_mass(pk, 0);
  double             J[6], E[6], worst = 0;
  sym_rotate_diag(J, R, d);
  for (int k = 0; k < 6; k++) E[k] = (double)B->I[k] - J[k];
  for (int t = 0; t < 23; t++) {
    double x[3], Jx[3], Ex[3];
    for (int k = 0; k < 3; k++) x[k] = t < 3 ? R[3 * k + t] : srand1();
    sym_vec(Jx, J, x);
    sym_vec(Ex, E, x);
    const double e = fabs(v3_dot(x, Ex)) / v3_dot(x, Jx);
    if (e > worst) worst = e;
  }
  return worst;
}

/* The bound of ccp/packed_inertia.h, which the scenario checks apply (step/population.c): principal
 * moments PACKED_MAX_MOMENT_RATIO apart, in 2000 random orientations, keep the packed record's
 * inverse inertia within PACKED_INERTIA_ACCURACY in every direction tried; ten times further
 * apart they do not in some orientation (the bound is what is needed, within that factor). */
static PetscErrorCode check_inertia_bound(void)
{
  Problem P;
  double  worst[2] = {0, 0};

  PetscFunctionBeginUser;
  PetscCall(random_problem(&P, 4, 5, 6));
  for (int beyond = 0; beyond < 2; beyond++)
    for (int trial = 0; trial < 2000; trial++) {
      const double ratio = PACKED_MAX_MOMENT_RATIO * (beyond ? 10 : 1);
      double       q[4] = {srand1(), srand1(), srand1(), srand1()}, R[9], d[3] = {1, 1, 1};
      d[trial % 3] = 1 / ratio;                      /* inverse moments 1, 1, 1 / ratio: one moment large */
      if (trial % 2) d[(trial + 1) % 3] = 1 / ratio; /* 1, 1 / ratio, 1 / ratio: two large, a rod's */
      CCPPacked      pk = {0};
      PetscErrorCode err;
      PetscCall(build_turned_body(&P, q, d, R, &pk, &err));
      CHECK(beyond || !err, "principal moments %g apart: the build returned %d", ratio, (int)err);
      const double e = err ? INFINITY : inertia_rounding_error(&pk, R, d);
      if (e > worst[beyond]) worst[beyond] = e;
      PetscCall(CCPPackedDestroy(&pk));
    }
  printf("  inverse inertia rounded to single: worst relative error %.3g at moments %.3g apart (bound %g), %.3g at 10 "
         "times that\n",
         worst[0], PACKED_MAX_MOMENT_RATIO, PACKED_INERTIA_ACCURACY, worst[1]);
  CHECK(worst[0] <= PACKED_INERTIA_ACCURACY,
        "moments %g apart: the rounded inverse inertia is %.3g off in some direction, more than %g",
        PACKED_MAX_MOMENT_RATIO, worst[0], PACKED_INERTIA_ACCURACY);
  CHECK(worst[1] > PACKED_INERTIA_ACCURACY,
        "moments %g apart: the rounded inverse inertia stayed within %g (%.3g): the bound is looser than 10x",
        10 * PACKED_MAX_MOMENT_RATIO, PACKED_INERTIA_ACCURACY, worst[1]);
  PetscCall(free_problem(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The sweeps' metric from its single-precision seed (ccp/kernels.h): the seed is rounded to
 * single (a compiler that drops the round trip makes the reference loops' metric differ from the
 * packed one's by 1e-8 relative: compare above then fails at 1e-9), kept finite and positive
 * even for traces outside single's range or 0, and the metric built from it is consistent:
 * f inv_f = t inv_t = ell il = 1 and ell^2 f = t, each to 4 ulps (a few roundings). */
static PetscErrorCode check_metric_seed(void)
{
  static const double traces[] = {4.827612799154372, 0.1, 3, 1e-300, 1e300, 1e-45, 1e45, 0};
  const int           n        = (int)(sizeof(traces) / sizeof(traces[0]));
  int                 cases    = 0;

  PetscFunctionBeginUser;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      if (traces[i] == 0 && traces[j] == 0) continue; /* eta would be infinite: CCPCheckEta stops the solve first */
      float f, ell;
      ccp_kernel_metric_seed(traces[i], traces[j], &f, &ell);
      const PetscBool normal = (PetscBool)(f >= FLT_MIN && f <= FLT_MAX && ell >= FLT_MIN && ell <= FLT_MAX);
      const PetscBool zero   = (PetscBool)((traces[i] > 0 && traces[j] > 0) ||
                                         ell == 1); /* a zero trace takes the other's */
      CHECK(normal && zero,
            "traces %g, %g gave the seed f %.9g, ell %.9g: not in single's normal range, or a zero trace not the "
            "other's",
            traces[i], traces[j], (double)f, (double)ell);
      CCPMetric m;
      ccp_kernel_metric_of(6, 1, traces[i], traces[j], &m);
      const double eps = 4 * DBL_EPSILON;
      const double e1 = fabs(m.f * m.inv_f - 1), e2 = fabs(m.t * m.inv_t - 1), e3 = fabs(m.ell * m.il - 1),
                   e4 = fabs(m.ell * m.ell * m.f / m.t - 1);
      CHECK(m.f == f && m.ell == ell, "traces %g, %g: the metric (f %.17g, ell %.17g) is not its seed's", traces[i],
            traces[j], m.f, m.ell);
      CHECK(e1 <= eps && e2 <= eps && e3 <= eps && e4 <= eps,
            "traces %g, %g: inconsistent metric (f inv_f - 1 = %.1e, t inv_t - 1 = %.1e, ell il - 1 = %.1e, ell^2 f / "
            "t - 1 = %.1e)",
            traces[i], traces[j], e1, e2, e3, e4);
      cases++;
    }
  float f, ell;
  ccp_kernel_metric_seed(traces[0], traces[1], &f, &ell);
  printf("  metric seed: %d pairs of traces checked; f = 3 / %.17g = %.17g in single\n", cases, traces[0], (double)f);
  CHECK(f == ccp_single(3 / traces[0]) && ell == ccp_single(sqrt(traces[0] / traces[1])),
        "the seed of traces %g, %g is not their f and ell rounded to single", traces[0], traces[1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  rng_state = 0x243F6A8885A308D3ull; /* this test's seed */
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  printf("test_ccp_packed: packed (vectorized) solver path vs the reference loops\n");
  PetscCall(compare(40, 61, 0, "mixed, 61 contacts"));
  PetscCall(compare(40, 62, 3, "3-dof, 62 contacts"));
  PetscCall(compare(40, 63, 6, "6-dof, 63 contacts"));
  PetscCall(compare(3, 1, 6, "6-dof, 1 contact"));
  PetscCall(compare(300, 500, 0, "mixed, 500 contacts"));
  PetscCall(
    PetscOptionsSetValue(NULL, "-ccp_jacobi_lambda", "0.7")); /* the sweep's instantiation with a relaxation multiply */
  PetscCall(compare(40, 61, 0, "mixed, 61, lambda 0.7"));
  PetscCall(PetscOptionsClearValue(NULL, "-ccp_jacobi_lambda"));
  PetscCall(compare_apgd_paths(40, 61, 0, "mixed, 61 contacts"));
  PetscCall(compare_apgd_paths(40, 62, 3, "3-dof, 62 contacts"));
  PetscCall(compare_apgd_paths(300, 500, 6, "6-dof, 500 contacts"));
  PetscCall(check_layout(40, 62, 3, CCP_BLOCK3_BYTES, "3-dof layout"));
  PetscCall(check_layout(40, 61, 0, CCP_BLOCK6_BYTES, "mixed layout"));
  PetscCall(check_layout(40, 63, 6, CCP_BLOCK6_BYTES, "6-dof layout"));
  PetscCall(check_layout(3, 1, 3, CCP_BLOCK3_BYTES,
                         "3-dof layout, 1 contact")); /* longer than P->gamma: all in the tail but 6 */
  PetscCall(check_layout(3, 1, 6, CCP_BLOCK6_BYTES, "6-dof layout, 1 contact"));
  with_springs = PETSC_TRUE; /* the layout with brot and the sweeps' DOF_SPRINGS against the reference loops */
  PetscCall(check_layout(40, 61, 0, sizeof(CCPBlock), "mixed layout with rolling springs"));
  PetscCall(compare_apgd_paths(300, 500, 0, "mixed with rolling springs, 500 contacts"));
  with_springs = PETSC_FALSE;
  PetscCall(check_rounded_frames());
  PetscCall(check_metric_seed());
  PetscCall(check_inertia_rounding());
  PetscCall(check_inertia_bound());
  PetscCall(check_options());
  printf(failures ? "FAILED (%d failures)\n" : "PASSED (0 failures)\n", failures);
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
