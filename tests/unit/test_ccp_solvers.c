// ctest: labels=unit timeout=120
/* The three CCP solvers (projected Jacobi, projected Gauss-Seidel, APGD) on problems with known
 * answers, against an independent dense reference, on an unsolvable (jammed) step, and timed on a
 * ~5000-sphere lattice (printed, not asserted).
 *
 * Tolerances. Where the solution is unique (N positive definite), the returned gamma is within a
 * bound derived from the solver tolerance: in the eta-scaled variables x = B^-1/2 gamma, B =
 * diag(eta_i), the CCP is the affine VI with N' = B^1/2 N B^1/2 over scaled cones, whose natural
 * residual has norm sqrt(sum_i eta_i res_i^2) <= tol sqrt(sum_i eta_i) for the GUIDE residuals
 * res_i; the error bound for strongly monotone VIs (Facchinei & Pang, Prop. 6.3.1) gives
 *   |x - x*| <= (1 + L') / m' |natural residual|,  m', L' = extreme eigenvalues of N',
 * so |gamma - gamma*| <= sqrt(eta_max) (1 + L') / m' sqrt(sum eta) tol, and the velocities, v - v* =
 * M^-1 D (gamma - gamma*), are within |M^-1 D|_F times that. m', L' and M^-1 D come from the dense
 * matrices assembled in ccp_dense.h (not from the code under test). */
#include <petscsys.h>
#include <petsctime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "ccp/solver.h"
#include "ccp_dense.h"
#include "ccp_single.h"

#include "test_check.h"

#include "test_random.h"

static const double H = 0.01, GRAV = 9.81, V_RECOVER = 0.1;
/* m != 1 so that a missing factor m shows. The radius, the friction coefficients below, 1/m (0.5)
 * and 1/I (80, to 1e-16) are dyadic, hence exactly the single-precision inputs and inverse masses
 * the packed layout holds (ccp_single.h): the analytic answers are those of the problem solved. */
static const double MASS = 2, RADIUS = 0.125;
#define INERTIA (0.4 * MASS * RADIUS * RADIUS)
static const char *const NAMES[3] = {"jacobi", "gauss-seidel", "apgd"};

/* ---------------------------------------------------------------- problem building */

typedef struct {
  PetscInt         nbodies, ncontacts, cap;
  double          *inv_mass, *inv_inertia, *vel_free, *vel, *gamma;
  Contact         *contact;
  CCPContactTerms *terms;
} Sys;

static PetscErrorCode SysCreate(Sys *S, PetscInt nbodies, PetscInt cap)
{
  PetscFunctionBeginUser;
  S->nbodies   = nbodies;
  S->ncontacts = 0;
  S->cap       = cap;
  PetscCall(PetscCalloc5(nbodies, &S->inv_mass, 6 * nbodies, &S->inv_inertia, 6 * nbodies, &S->vel_free, 6 * nbodies,
                         &S->vel, 6 * cap, &S->gamma));
  PetscCall(PetscCalloc2(cap, &S->contact, cap, &S->terms));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SysDestroy(Sys *S)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree5(S->inv_mass, S->inv_inertia, S->vel_free, S->vel, S->gamma));
  PetscCall(PetscFree2(S->contact, S->terms));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A solid sphere of MASS and RADIUS with free velocity v (linear, angular world) plus gravity. */
static void sys_sphere(Sys *S, PetscInt j, const double v[6])
{
  S->inv_mass[j] = 1 / MASS;
  for (int k = 0; k < 3; k++) S->inv_inertia[6 * j + k] = 1 / INERTIA;
  ccp_single_body(&S->inv_mass[j], S->inv_inertia + 6 * j);
  for (int k = 0; k < 6; k++) S->vel_free[6 * j + k] = v ? v[k] : 0;
  S->vel_free[6 * j + 2] -= GRAV * H;
}

/* 3-dof with rho = sigma = 0, else 6-dof (contact_dof) */
static void sys_contact(Sys *S, int a, int b, const double n[3], const double ra[3], const double rb[3], double phi,
                        double mu, double rho, double sigma, double c_lin)
{
  CCPContactTerms *t = &S->terms[S->ncontacts];
  Contact         *c = &S->contact[S->ncontacts++];
  memset(c, 0, sizeof(*c));
  memset(t, 0, sizeof(*t));
  c->a = a;
  c->b = b;
  v3_copy(c->n, n);
  v3_copy(c->ra, ra);
  v3_copy(c->rb, rb);
  c->phi   = phi;
  c->mu    = mu;
  c->rho   = rho;
  c->sigma = sigma;
  t->bn    = PetscMax(phi / H, -V_RECOVER);
  t->c_lin = c_lin;        /* the torque rows get c_lin / |rb|^2: ccp_terms_c_rot */
  ccp_single_inputs(c, t); /* the dense reference solves the problem the packed layout holds */
}

static CCPProblem sys_problem(Sys *S)
{
  CCPProblem P = {.nbodies     = S->nbodies,
                  .inv_mass    = S->inv_mass,
                  .inv_inertia = S->inv_inertia,
                  .vel_free    = S->vel_free,
                  .vel         = S->vel,
                  .ncontacts   = S->ncontacts,
                  .contact     = S->contact,
                  .gamma       = S->gamma,
                  .terms       = S->terms};
  return P;
}

/* eta from the trace, as the stepper does; zero warm start */
static void sys_prepare(Sys *S)
{
  CCPProblem P = sys_problem(S);
  for (PetscInt i = 0; i < S->ncontacts; i++) S->terms[i].eta = contact_dof(&S->contact[i]) / ccp_contact_trace(&P, i);
  for (PetscInt k = 0; k < 6 * S->ncontacts; k++) S->gamma[k] = 0;
}

/* nx x ny x nz spheres (ids in lattice order) on a floor wall (last body), neighbours along the
 * axes with random gaps in [0, 0.05 R] (so every step is solvable), random velocities.
 * tree: keep only a spanning comb (all vertical links, x links in the row y = 0 of the bottom
 * layer, y links in the bottom layer) and one floor contact, so that N is nonsingular.
 * dof: 3, 6 or 0 (each contact 3 or 6 at random). Contacts in key order, walls first. */
static PetscErrorCode build_lattice(Sys *S, int nx, int ny, int nz, int dof, double compliance, PetscBool tree)
{
  const PetscInt nb = nx * ny * nz, wall = nb;
  const double   up[3] = {0, 0, 1}, ax[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

  PetscFunctionBeginUser;
  PetscCall(SysCreate(S, nb + 1, 4 * nb));
  for (PetscInt j = 0; j < nb; j++) {
    const double v[6] = {0.5 * srand1(), 0.5 * srand1(), 0.5 * srand1(), 5 * srand1(), 5 * srand1(), 5 * srand1()};
    sys_sphere(S, j, v);
  }
  for (int ix = 0; ix < nx; ix++)
    for (int iy = 0; iy < ny; iy++) {
      if (tree && (ix || iy)) continue;
      const int    j     = ix + nx * iy;
      const double ra[3] = {2 * RADIUS * ix, 2 * RADIUS * iy, 0}, rb[3] = {0, 0, -RADIUS};
      const int    d = dof ? dof : (urand() < 0.5 ? 3 : 6);
      sys_contact(S, (int)wall, j, up, ra, rb, 0.05 * RADIUS * urand(), 0.2 + 0.4 * urand(),
                  d == 6 ? 0.002 * urand() : 0, d == 6 ? 0.002 * urand() : 0, compliance / MASS);
    }
  for (int iz = 0; iz < nz; iz++)
    for (int iy = 0; iy < ny; iy++)
      for (int ix = 0; ix < nx; ix++) {
        const int j = ix + nx * (iy + ny * iz), step[3] = {1, nx, nx * ny};
        const int has[3] = {ix + 1 < nx && (!tree || (iz == 0 && iy == 0)), iy + 1 < ny && (!tree || iz == 0),
                            iz + 1 < nz};
        for (int k = 0; k < 3; k++) {
          if (!has[k]) continue;
          double ra[3], rb[3];
          v3_scale(ra, RADIUS, ax[k]);
          v3_scale(rb, -RADIUS, ax[k]);
          const int d = dof ? dof : (urand() < 0.5 ? 3 : 6);
          sys_contact(S, j, j + step[k], ax[k], ra, rb, 0.05 * RADIUS * urand(), 0.2 + 0.4 * urand(),
                      d == 6 ? 0.002 * urand() : 0, d == 6 ? 0.002 * urand() : 0, compliance / MASS);
        }
      }
  sys_prepare(S);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- solving */

/* Solve S in place from its current gamma (warm start); options database may override. */
static PetscErrorCode run(Sys *S, SolverType type, double tol, PetscInt max_it, CCPSolveStats *st)
{
  CCPSolver  s;
  CCPProblem P = sys_problem(S);

  PetscFunctionBeginUser;
  PetscCall(CCPSolverCreate(PETSC_COMM_SELF, &s));
  PetscCall(CCPSolverSetFromScenario(s, type, max_it, tol));
  PetscCall(CCPSolverSetFromOptions(s));
  PetscCall(CCPSolverSolve(s, &P, st));
  PetscCall(CCPSolverDestroy(&s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool all_finite(const Sys *S)
{
  for (PetscInt k = 0; k < 6 * S->ncontacts; k++)
    if (!isfinite(S->gamma[k])) return PETSC_FALSE;
  for (PetscInt k = 0; k < 6 * S->nbodies; k++)
    if (!isfinite(S->vel[k])) return PETSC_FALSE;
  return PETSC_TRUE;
}

typedef struct {
  double gamma, vel; /* 2-norm bounds on gamma - gamma*, v - v* per unit residual tolerance */
  double lmin, lmax; /* spectrum of N' */
} Bound;

/* The error bound of the header comment, per unit of tolerance. */
static PetscErrorCode error_bound(Sys *S, Bound *B)
{
  CCPProblem P = sys_problem(S);
  DenseCCP   d;
  double     eta_max = 0, eta_sum = 0, fro = 0;

  PetscFunctionBeginUser;
  PetscCall(DenseCCPCreate(&P, &d));
  PetscCall(dense_scaled_spectrum(&P, &d, &B->lmin, &B->lmax));
  for (PetscInt i = 0; i < S->ncontacts; i++) {
    eta_max = PetscMax(eta_max, S->terms[i].eta);
    eta_sum += S->terms[i].eta;
  }
  for (PetscInt k = 0; k < d.nr * d.nx; k++) fro += d.MinvD[k] * d.MinvD[k];
  B->gamma = B->lmin > 0 ? sqrt(eta_max) * (1 + B->lmax) / B->lmin * sqrt(eta_sum) : PETSC_INFINITY;
  B->vel   = sqrt(fro) * B->gamma;
  PetscCall(DenseCCPDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static double dist_gamma(const Sys *S, const double *ref)
{
  double s = 0;
  for (PetscInt k = 0; k < 6 * S->ncontacts; k++) s += (S->gamma[k] - ref[k]) * (S->gamma[k] - ref[k]);
  return sqrt(s);
}
static double dist_vel(const Sys *S, const double *ref)
{
  double s = 0;
  for (PetscInt k = 0; k < 6 * S->nbodies; k++) s += (S->vel[k] - ref[k]) * (S->vel[k] - ref[k]);
  return sqrt(s);
}

/* Solve with every method at tolerance tol and compare with (gamma*, v*). */
static PetscErrorCode check_all_methods(Sys *S, const char *name, double tol, PetscInt max_it, const double *gref,
                                        const double *vref, double ref_res)
{
  Bound B;

  PetscFunctionBeginUser;
  PetscCall(error_bound(S, &B));
  CHECK(B.lmin > 0, "%s: N' is singular (lambda_min %g): the test needs a unique solution", name, B.lmin);
  /* the reference's own residual adds its own bound; 1e-13 absorbs rounding of O(1) numbers */
  const double eg = B.gamma * (tol + ref_res) + 1e-13, ev = B.vel * (tol + ref_res) + 1e-13;
  for (int t = 0; t < 3; t++) {
    CCPSolveStats st;
    for (PetscInt k = 0; k < 6 * S->ncontacts; k++) S->gamma[k] = 0;
    PetscCall(run(S, (SolverType)t, tol, max_it, &st));
    const double dg = dist_gamma(S, gref), dv = dist_vel(S, vref);
    printf("  %-22s %-12s it %6" PetscInt_FMT " res %.1e  |gamma-ref| %.1e (bound %.1e)  |v-ref| %.1e (bound %.1e)\n",
           name, NAMES[t], st.iterations, st.res_max, dg, eg, dv, ev);
    CHECK(st.converged && st.res_max <= tol, "%s/%s: not converged (res %g, tol %g)", name, NAMES[t], st.res_max, tol);
    CHECK(dg <= eg, "%s/%s: |gamma - ref| = %g > bound %g", name, NAMES[t], dg, eg);
    CHECK(dv <= ev, "%s/%s: |v - ref| = %g > bound %g", name, NAMES[t], dv, ev);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- analytic cases */

/* One sphere (body 0) on a floor wall (body 1), touching: phi = 0, b = 0. */
static PetscErrorCode sphere_on_floor(Sys *S, const double v[6], double mu, double rho, double sigma)
{
  const double up[3] = {0, 0, 1}, ra[3] = {0, 0, 0}, rb[3] = {0, 0, -RADIUS};

  PetscFunctionBeginUser;
  PetscCall(SysCreate(S, 2, 1));
  sys_sphere(S, 0, v);
  sys_contact(S, 1, 0, up, ra, rb, 0, mu, rho, sigma, 0);
  sys_prepare(S);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* World force and torque impulses of contact 0 from its multipliers. */
static void world_impulse(const Sys *S, double F[3], double T[3])
{
  const Contact *c = &S->contact[0];
  const double  *g = S->gamma;
  double         u[3], w[3];
  contact_frame(c, u, w);
  for (int q = 0; q < 3; q++) {
    F[q] = g[0] * c->n[q] + g[1] * u[q] + g[2] * w[q];
    T[q] = g[3] * c->n[q] + g[4] * u[q] + g[5] * w[q];
  }
}

/* Express world (F, T) of contact 0 as multipliers, for comparisons in the frame. */
static void frame_impulse(const Sys *S, const double F[3], const double T[3], double g[6])
{
  const Contact *c = &S->contact[0];
  double         u[3], w[3];
  contact_frame(c, u, w);
  g[0] = v3_dot(F, c->n);
  g[1] = v3_dot(F, u);
  g[2] = v3_dot(F, w);
  g[3] = v3_dot(T, c->n);
  g[4] = v3_dot(T, u);
  g[5] = v3_dot(T, w);
}

static PetscErrorCode test_resting(void)
{
  PetscFunctionBeginUser;
  printf("(1) sphere resting on a plane: gn = m g h, v = 0\n");
  for (int dof = 3; dof <= 6; dof += 3) {
    Sys          S;
    const double zero[6] = {0}, F[3] = {0, 0, MASS * GRAV * H};
    double       gref[6], vref[12]   = {0};
    PetscCall(sphere_on_floor(&S, NULL, 0.5, dof == 6 ? 0x1p-7 : 0, dof == 6 ? 0x1p-7 : 0)); /* 0.0078 m */
    frame_impulse(&S, F, zero, gref);
    PetscCall(check_all_methods(&S, dof == 3 ? "resting 3-dof" : "resting 6-dof", 1e-10, 10000, gref, vref, 0));
    PetscCall(SysDestroy(&S));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sliding at u0 = 1 m/s along x. The CCP is the relaxed (convexified) problem (paper sec. 4, eq.
 * 28): a sliding contact separates at u_n = mu |u_t|, so the answer is not the textbook gn = m g h
 * but, with k = 1 + m R^2 / I (rotation picked up from the friction torque):
 *   gn = m (g h + mu u0) / (1 + k mu^2),  F = (-mu gn, 0, gn),  v_x = u0 - mu gn / m,
 *   v_z = gn / m - g h = mu u_t,  w_y = R mu gn / I,  u_t = v_x - R w_y = u0 - k mu gn / m > 0
 * (valid while u0 > k mu g h: the step does not stop the slip). A 6-dof contact with vanishing
 * rolling and spinning friction (1e-12 m: with both 0 it is a 3-dof one, contact_dof) must give
 * the same. */
static PetscErrorCode test_sliding(void)
{
  const double mu = 0.25, u0 = 1, k = 1 + MASS * RADIUS * RADIUS / INERTIA;
  const double gn = MASS * (GRAV * H + mu * u0) / (1 + k * mu * mu);

  PetscFunctionBeginUser;
  printf("(2) sphere sliding at 1 m/s on a plane, mu = %g: relaxed-CCP answer gn = %.6f (m g h = %.6f), gt = mu gn\n",
         mu, gn, MASS * GRAV * H);
  for (int dof = 3; dof <= 6; dof += 3) {
    Sys          S;
    const double v0[6] = {u0, 0, 0, 0, 0, 0}, zero[3] = {0}, F[3] = {-mu * gn, 0, gn};
    double       gref[6], vref[12] = {0};
    const double r = dof == 6 ? 1e-12 : 0;
    PetscCall(sphere_on_floor(&S, v0, mu, r, r));
    frame_impulse(&S, F, zero, gref);
    vref[0] = u0 - mu * gn / MASS;
    vref[2] = gn / MASS - GRAV * H;
    vref[4] = RADIUS * mu * gn / INERTIA;
    CHECK(fabs(vref[2] - mu * (vref[0] - RADIUS * vref[4])) < 1e-14,
          "sliding reference inconsistent"); /* u_n = mu u_t */
    PetscCall(
      check_all_methods(&S, dof == 3 ? "sliding 3-dof" : "sliding 6-dof r=s=1e-12", 1e-10, 10000, gref, vref, 0));
    double Fw[3], Tw[3];
    world_impulse(&S, Fw, Tw);
    /* direction and magnitude in world terms; 1e-6 gn is far above the error bound printed above */
    CHECK(Fw[0] < 0 && fabs(fabs(Fw[0]) - mu * Fw[2]) < 1e-6 * gn,
          "sliding: friction %g does not oppose the slip with |gt| = mu gn (%g)", Fw[0], mu * Fw[2]);
    PetscCall(SysDestroy(&S));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Spinning at w0 about the normal, sigma > 0 (6-dof). Relaxed CCP: u_n = sigma |w_n| after the
 * step, so  gn = (g h + sigma w0) / (1/m + sigma^2 / I),  tn = -sigma gn,
 *   w_z = w0 - sigma gn / I,  v_z = gn / m - g h = sigma w_z;  no sliding or rolling impulse. */
static PetscErrorCode test_spinning(void)
{
  const double sigma = 0x1p-9, w0 = 10, mu = 0.375, rho = 0x1p-8; /* 0.00195 m, 0.0039 m */
  const double gn = (GRAV * H + sigma * w0) / (1 / MASS + sigma * sigma / INERTIA);
  Sys          S;
  const double v0[6] = {0, 0, 0, 0, 0, w0}, F[3] = {0, 0, gn}, T[3] = {0, 0, -sigma * gn};
  double       gref[6], vref[12] = {0};

  PetscFunctionBeginUser;
  printf("(3) sphere spinning at %g rad/s on a plane, sigma = %g m: tn = -sigma gn, gn = %.6f (m g h = %.6f)\n", w0,
         sigma, gn, MASS * GRAV * H);
  PetscCall(sphere_on_floor(&S, v0, mu, rho, sigma));
  frame_impulse(&S, F, T, gref);
  vref[5] = w0 - sigma * gn / INERTIA;
  vref[2] = gn / MASS - GRAV * H;
  CHECK(vref[5] > 0 && fabs(vref[2] - sigma * vref[5]) < 1e-14, "spinning reference inconsistent");
  PetscCall(check_all_methods(&S, "spinning 6-dof", 1e-10, 10000, gref, vref, 0));
  PetscCall(SysDestroy(&S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A column of K touching spheres on the floor: v = 0, contact j (0 = floor) carries (K - j) m g h. */
static PetscErrorCode build_stack(Sys *S, int K, int dof)
{
  const double up[3] = {0, 0, 1}, ra[3] = {0, 0, RADIUS}, rb[3] = {0, 0, -RADIUS}, origin[3] = {0, 0, 0};

  PetscFunctionBeginUser;
  PetscCall(SysCreate(S, K + 1, K));
  for (int j = 0; j < K; j++) sys_sphere(S, j, NULL);
  sys_contact(S, K, 0, up, origin, rb, 0, 0.5, dof == 6 ? 0x1p-7 : 0, dof == 6 ? 0x1p-7 : 0, 0);
  for (int j = 0; j + 1 < K; j++)
    sys_contact(S, j, j + 1, up, ra, rb, 0, 0.5, dof == 6 ? 0x1p-7 : 0, dof == 6 ? 0x1p-7 : 0, 0);
  sys_prepare(S);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode test_stack(void)
{
  const int K = 10;

  PetscFunctionBeginUser;
  printf("(4) column of %d spheres on the floor: v = 0, contact j carries (K - j) m g h\n", K);
  for (int dof = 3; dof <= 6; dof += 3) {
    Sys    S;
    double gref[6 * 10] = {0}, vref[6 * 11] = {0};
    PetscCall(build_stack(&S, K, dof));
    for (int j = 0; j < K; j++) gref[6 * j] = (K - j) * MASS * GRAV * H;
    PetscCall(check_all_methods(&S, dof == 3 ? "stack 3-dof" : "stack 6-dof", 1e-8, 200000, gref, vref, 0));
    /* iteration counts to 1e-4 and 1e-6 m/s (reported, from a zero warm start) */
    for (int t = 0; t < 3; t++) {
      CCPSolveStats st4, st6;
      for (PetscInt k = 0; k < 6 * S.ncontacts; k++) S.gamma[k] = 0;
      PetscCall(run(&S, (SolverType)t, 1e-4, 200000, &st4));
      for (PetscInt k = 0; k < 6 * S.ncontacts; k++) S.gamma[k] = 0;
      PetscCall(run(&S, (SolverType)t, 1e-6, 200000, &st6));
      printf("  stack %d-dof %-12s iterations to 1e-4: %6" PetscInt_FMT ", to 1e-6: %6" PetscInt_FMT "\n", dof,
             NAMES[t], st4.iterations, st6.iterations);
      CHECK(st4.converged && st6.converged, "stack/%s did not reach 1e-4 / 1e-6", NAMES[t]);
    }
    PetscCall(SysDestroy(&S));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- dense reference */

/* Dense accelerated projected gradient (FISTA with gradient restart) on N, r of ccp_dense.h with
 * the fixed step 1/L' in the eta-scaled metric (L' = lambda_max(N'), known here), run until its
 * own dense residual is below 1e-12 m/s. Independent of the matrix-free operators and of the
 * solvers' step control; it shares only the cone projection (tested in test_cone). */
static PetscErrorCode dense_reference(Sys *S, double *gref, double *vref, double *res_out)
{
  CCPProblem P = sys_problem(S);
  DenseCCP   d;
  double     lmin, lmax, theta = 1, res = PETSC_INFINITY;
  double    *x, *xp, *y, *g;
  PetscInt   nx, it;

  PetscFunctionBeginUser;
  PetscCall(DenseCCPCreate(&P, &d));
  PetscCall(dense_scaled_spectrum(&P, &d, &lmin, &lmax));
  nx = d.nx;
  PetscCall(PetscCalloc4(nx, &x, nx, &xp, nx, &y, nx, &g));
  for (it = 0; it < 2000000 && res > 1e-12; it++) {
    for (PetscInt i = 0; i < nx; i++) { /* g = N y + r */
      double s = d.r[i];
      for (PetscInt j = 0; j < nx; j++) s += d.N[i * nx + j] * y[j];
      g[i] = s;
    }
    double uphill = 0;
    for (PetscInt i = 0; i < S->ncontacts; i++) {
      const Contact         *c    = &S->contact[i];
      const CCPContactTerms *t    = &S->terms[i];
      double                 z[6] = {0};
      for (PetscInt j = d.col[i]; j < d.col[i + 1]; j++) z[j - d.col[i]] = y[j] - t->eta / lmax * g[j];
      ccp_project(c, t, z);
      for (PetscInt j = d.col[i]; j < d.col[i + 1]; j++) {
        xp[j] = x[j];
        x[j]  = z[j - d.col[i]];
        uphill += g[j] * (x[j] - xp[j]);
      }
    }
    const double theta_next = 0.5 * theta * (sqrt(theta * theta + 4) - theta);
    double       beta       = theta * (1 - theta) / (theta * theta + theta_next);
    theta                   = theta_next;
    if (uphill > 0) {
      beta  = 0;
      theta = 1;
    }
    for (PetscInt j = 0; j < nx; j++) y[j] = x[j] + beta * (x[j] - xp[j]);
    if (it % 50 == 0) { /* dense GUIDE residual of x */
      res = 0;
      for (PetscInt i = 0; i < S->ncontacts; i++) {
        const Contact         *c     = &S->contact[i];
        const CCPContactTerms *t     = &S->terms[i];
        double                 gi[6] = {0}, xi[6] = {0}, z[6];
        for (PetscInt j = d.col[i]; j < d.col[i + 1]; j++) {
          double s = d.r[j];
          for (PetscInt q = 0; q < nx; q++) s += d.N[j * nx + q] * x[q];
          gi[j - d.col[i]] = s;
          xi[j - d.col[i]] = x[j];
        }
        for (int k = 0; k < 6; k++) z[k] = xi[k] - t->eta * gi[k];
        ccp_project(c, t, z);
        double s = 0;
        for (int k = 0; k < contact_dof(c); k++) s += (xi[k] - z[k]) * (xi[k] - z[k]);
        res = PetscMax(res, sqrt(s) / t->eta);
      }
    }
  }
  for (PetscInt k = 0; k < 6 * S->ncontacts; k++) gref[k] = 0;
  for (PetscInt i = 0; i < S->ncontacts; i++)
    for (PetscInt j = d.col[i]; j < d.col[i + 1]; j++) gref[6 * i + j - d.col[i]] = x[j];
  for (PetscInt r = 0; r < d.nr; r++) {
    double s = S->vel_free[r];
    for (PetscInt j = 0; j < nx; j++) s += d.MinvD[r * nx + j] * x[j];
    vref[r] = s;
  }
  *res_out = res;
  printf("  dense reference: %" PetscInt_FMT " unknowns, lambda(N') in [%.2e, %.2e], %" PetscInt_FMT
         " iterations, residual %.1e\n",
         nx, lmin, lmax, it, res);
  PetscCall(PetscFree4(x, xp, y, g));
  PetscCall(DenseCCPDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* (5a) lattice with compliance: strongly convex; (5b) spanning comb without compliance: N
 * nonsingular; (5a') the lattice of (5a) whose 6-dof contacts have rolling springs: c_roll on their
 * torque rows and a random b_rot (a loaded spring's last torque, of either sign). All: unique gamma,
 * compared with the dense reference under the error bound. */
static PetscErrorCode test_random_unique(void)
{
  static const char *const names[3] = {"lattice, compliance", "comb, no compliance", "lattice, springs"};
  PetscFunctionBeginUser;
  printf("(5) random well-posed problems vs a dense reference (gaps >= 0, random velocities, mixed 3/6-dof)\n");
  for (int kind = 0; kind < 3; kind++) {
    Sys             S;
    double         *gref, *vref, rres = 0;
    const PetscBool tree = (PetscBool)(kind == 1);
    PetscInt        springs = 0;
    PetscCall(build_lattice(&S, 2, 2, 3, 0, tree ? 0 : 0.05, tree));
    for (PetscInt i = 0; i < S.ncontacts && kind == 2; i++) {
      if (contact_dof(&S.contact[i]) != 6) continue;
      S.terms[i].c_roll = 0.5 / (RADIUS * RADIUS);
      for (int k = 0; k < 3; k++) S.terms[i].b_rot[k] = 0.2 * (urand() - 0.5);
      springs++;
    }
    if (kind == 2) CHECK(springs > 0, "the lattice has no 6-dof contact for the springs");
    PetscCall(PetscMalloc2(6 * S.ncontacts, &gref, 6 * S.nbodies, &vref));
    PetscCall(dense_reference(&S, gref, vref, &rres));
    PetscCall(check_all_methods(&S, names[kind], 1e-9, 400000, gref, vref, rres));
    PetscCall(PetscFree2(gref, vref));
    PetscCall(SysDestroy(&S));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* (5c) full lattice, no compliance: N singular (more contact rows than body dofs), gamma not
 * unique, the velocities are. Check the VI conditions directly with the dense u = N gamma + r.
 * From res_i <= tol (Moreau decomposition of gamma - eta g): dist(u_i, dual cone) <= tol, hence
 * the violation mu|u_t| + rho|w_r| + sigma|w_s| - u_n <= (1 + mu + rho + sigma) tol (that function is
 * Lipschitz with that constant); gamma_i in the cone (it is a projection; 1e-12 for rounding);
 * and |gamma_i . u_i| <= tol (eta_i (|u_i| + tol) + |gamma_i|). Velocities of the three methods
 * are printed (no bound: N is singular). */
static PetscErrorCode test_random_vi(void)
{
  Sys          S;
  DenseCCP     d;
  double      *vel[3];
  const double tol = 1e-9;

  PetscFunctionBeginUser;
  PetscCall(build_lattice(&S, 2, 2, 3, 0, 0, PETSC_FALSE));
  CCPProblem P = sys_problem(&S);
  PetscCall(DenseCCPCreate(&P, &d));
  printf("  lattice, no compliance: %" PetscInt_FMT " contacts, %" PetscInt_FMT " unknowns for %" PetscInt_FMT
         " body dofs (N singular)\n",
         S.ncontacts, d.nx, 6 * (S.nbodies - 1));
  for (int t = 0; t < 3; t++) {
    CCPSolveStats st;
    double        worst_dual = 0, worst_cone = 0, worst_comp = 0;
    PetscCall(PetscMalloc1(6 * S.nbodies, &vel[t]));
    for (PetscInt k = 0; k < 6 * S.ncontacts; k++) S.gamma[k] = 0;
    PetscCall(run(&S, (SolverType)t, tol, 400000, &st));
    PetscCall(PetscArraycpy(vel[t], S.vel, 6 * S.nbodies));
    CHECK(st.converged, "VI lattice/%s: not converged (res %g)", NAMES[t], st.res_max);
    for (PetscInt i = 0; i < S.ncontacts; i++) {
      const Contact *c    = &S.contact[i];
      const double  *x    = S.gamma + 6 * i;
      double         u[6] = {0}, un = 0, xn = 0, dot = 0;
      for (int k = 0; k < contact_dof(c); k++) {
        double s = d.r[d.col[i] + k];
        for (PetscInt j = 0; j < S.ncontacts; j++)
          for (int q = 0; q < contact_dof(&S.contact[j]); q++)
            s += d.N[(d.col[i] + k) * d.nx + d.col[j] + q] * S.gamma[6 * j + q];
        u[k] = s;
        un += s * s;
        xn += x[k] * x[k];
        dot += s * x[k];
      }
      const double viol = c->mu * hypot(u[1], u[2]) + c->rho * hypot(u[4], u[5]) + c->sigma * fabs(u[3]) - u[0];
      const double cone = PetscMax(PetscMax(hypot(x[1], x[2]) - c->mu * x[0], hypot(x[4], x[5]) - c->rho * x[0]),
                                   fabs(x[3]) - c->sigma * x[0]);
      worst_dual        = PetscMax(worst_dual, viol / ((1 + c->mu + c->rho + c->sigma) * tol));
      worst_cone        = PetscMax(worst_cone, PetscMax(cone, -x[0]));
      worst_comp        = PetscMax(worst_comp, fabs(dot) / (tol * (S.terms[i].eta * (sqrt(un) + tol) + sqrt(xn))));
    }
    printf("  VI lattice %-12s it %6" PetscInt_FMT
           " res %.1e: dual-cone violation %.2f of bound, cone violation %.1e, complementarity %.2f of bound\n",
           NAMES[t], st.iterations, st.res_max, worst_dual, worst_cone, worst_comp);
    CHECK(worst_dual <= 1 && worst_cone <= 1e-12 && worst_comp <= 1,
          "VI lattice/%s: optimality conditions violated (%g, %g, %g)", NAMES[t], worst_dual, worst_cone, worst_comp);
  }
  double spread = 0;
  for (PetscInt k = 0; k < 6 * S.nbodies; k++)
    spread = PetscMax(spread, PetscMax(fabs(vel[0][k] - vel[2][k]), fabs(vel[1][k] - vel[2][k])));
  printf("  VI lattice: largest velocity difference between methods %.1e m/s (not asserted: N singular)\n", spread);
  for (int t = 0; t < 3; t++) PetscCall(PetscFree(vel[t]));
  PetscCall(DenseCCPDestroy(&d));
  PetscCall(SysDestroy(&S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- robustness */

/* GUIDE "ill-posed": two spheres pressed between two walls with overlap 0.5% R at each of the three
 * contacts. The impulse loop gamma~ = (1, 0, 0) at every contact has D gamma~ = 0 and b^T gamma~ =
 * 3 b_n < 0, so the CCP has no solution. For any gamma the gradient g has g . gamma~ = b^T gamma~
 * (N gamma~ = 0), so its distance to the dual cone is at least |b^T gamma~| / |gamma~| = sqrt(3) |b_n|;
 * each res_i bounds contact i's distance (Moreau decomposition of gamma_i - eta_i g_i), hence
 * sqrt(sum res_i^2) >= sqrt(3) |b_n|: the RMS (and the max) residual is at least |b_n|. */
static PetscErrorCode test_jammed(void)
{
  const double ex[3] = {1, 0, 0}, mex[3] = {-1, 0, 0}, overlap = 0.005 * RADIUS;

  PetscFunctionBeginUser;
  printf("(6) jammed: two spheres between two walls, overlap %.1e m at 3 contacts (no solution)\n", overlap);
  for (int dof = 3; dof <= 6; dof += 3) {
    Sys          S;
    const double L[3] = {-RADIUS, 0, 0}, Rt[3] = {RADIUS, 0, 0}, o[3] = {0, 0, 0};
    PetscCall(SysCreate(&S, 4, 3));
    sys_sphere(&S, 0, NULL);
    sys_sphere(&S, 1, NULL);
    const double rho = dof == 6 ? 0x1p-7 : 0;
    sys_contact(&S, 2, 0, ex, o, L, -overlap, 0.5, rho, rho, 0);   /* left wall - sphere 0 */
    sys_contact(&S, 3, 1, mex, o, Rt, -overlap, 0.5, rho, rho, 0); /* right wall - sphere 1 */
    sys_contact(&S, 0, 1, ex, Rt, L, -overlap, 0.5, rho, rho, 0);  /* sphere 0 - sphere 1 */
    sys_prepare(&S);
    const double floor_res = fabs(S.terms[0].bn);
    for (int t = 0; t < 3; t++) {
      CCPSolveStats st;
      double        gmax = 0, vmax = 0;
      for (PetscInt k = 0; k < 6 * S.ncontacts; k++) S.gamma[k] = 0;
      PetscCall(run(&S, (SolverType)t, 1e-6, 3000, &st));
      for (PetscInt k = 0; k < 6 * S.ncontacts; k++) gmax = PetscMax(gmax, fabs(S.gamma[k]));
      for (PetscInt k = 0; k < 6 * S.nbodies; k++) vmax = PetscMax(vmax, fabs(S.vel[k]));
      printf("  jammed %d-dof %-12s it %5" PetscInt_FMT
             " converged %d res max %.3e rms %.3e (>= %.3e) max|gamma| %.2e max|v| %.2e\n",
             dof, NAMES[t], st.iterations, (int)st.converged, st.res_max, st.res_rms, floor_res, gmax, vmax);
      CHECK(all_finite(&S) && isfinite(st.res_max), "jammed/%s: non-finite result", NAMES[t]);
      CHECK(!st.converged, "jammed/%s: claims convergence on an unsolvable step", NAMES[t]);
      /* the lower bound holds for any gamma; 1e-12 relative for rounding */
      CHECK(st.res_rms >= floor_res * (1 - 1e-12), "jammed/%s: RMS residual %g below the provable floor %g", NAMES[t],
            st.res_rms, floor_res);
    }
    PetscCall(SysDestroy(&S));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Projected Jacobi with a step far beyond 2 / lambda_max diverges (omega = 5 on the stack: the
 * normal rows' lambda_max(B N) is ~0.75, so omega lambda ~ 4 > 2): the solver must detect it, stop,
 * return its best (finite) iterate and say it did not converge. The best is never worse than the
 * warm start (gamma = 0: residual g h, the approach speed at the floor contact). */
static PetscErrorCode test_jacobi_divergence(void)
{
  Sys           S;
  CCPSolveStats st;

  PetscFunctionBeginUser;
  PetscCall(build_stack(&S, 10, 3));
  printf("(7) projected Jacobi with omega = 5 on the 3-dof stack (diverges)\n");
  PetscCall(PetscOptionsSetValue(NULL, "-ccp_jacobi_omega", "5"));
  PetscCall(run(&S, SOLVER_JACOBI, 1e-8, 100000, &st));
  PetscCall(PetscOptionsClearValue(NULL, "-ccp_jacobi_omega"));
  printf("  it %" PetscInt_FMT " converged %d res %.3e (warm start %.3e)\n", st.iterations, (int)st.converged,
         st.res_max, GRAV * H);
  CHECK(all_finite(&S) && isfinite(st.res_max), "diverging Jacobi returned non-finite values");
  CHECK(!st.converged && st.iterations < 100000,
        "diverging Jacobi: converged %d after %" PetscInt_FMT " iterations: the divergence was not detected",
        (int)st.converged, st.iterations);
  /* 1e-12 relative: rounding of the residual of the same iterate */
  CHECK(st.res_max <= GRAV * H * (1 + 1e-12), "diverging Jacobi returned residual %g, worse than the warm start's %g",
        st.res_max, GRAV * H);
  PetscCall(SysDestroy(&S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* APGD's sparse residual checks (ccp/apgd.c, apgd_check): its iterates do not depend on which
 * iterations are checked, so the first checked iterate below the tolerance may come later than
 * the first iterate below it: with the default schedule, and with the indicator near the tolerance
 * alone (the near_tol checks pushed out to 1000), within 3 iterations here. */
static PetscErrorCode test_apgd_checks(void)
{
  PetscFunctionBeginUser;
  printf("(8) APGD: residual checked every iteration vs the default schedule vs only near the tolerance\n");
  for (int dof = 3; dof <= 6; dof += 3) {
    Sys           S;
    CCPSolveStats every, dflt, near_tol;
    PetscCall(build_stack(&S, 10, dof));
    PetscCall(PetscOptionsSetValue(NULL, "-ccp_apgd_check_interval", "1"));
    PetscCall(run(&S, SOLVER_APGD, 1e-6, 100000, &every));
    PetscCall(PetscOptionsClearValue(NULL, "-ccp_apgd_check_interval"));
    for (PetscInt k = 0; k < 6 * S.ncontacts; k++) S.gamma[k] = 0;
    PetscCall(run(&S, SOLVER_APGD, 1e-6, 100000, &dflt));
    for (PetscInt k = 0; k < 6 * S.ncontacts; k++) S.gamma[k] = 0;
    PetscCall(PetscOptionsSetValue(NULL, "-ccp_apgd_check_interval", "1000"));
    PetscCall(run(&S, SOLVER_APGD, 1e-6, 100000, &near_tol));
    PetscCall(PetscOptionsClearValue(NULL, "-ccp_apgd_check_interval"));
    printf("  stack %d-dof: iterations to 1e-6 m/s %" PetscInt_FMT " (every), %" PetscInt_FMT
           " (default), %" PetscInt_FMT " (only near the tolerance)\n",
           dof, every.iterations, dflt.iterations, near_tol.iterations);
    CHECK(every.converged && dflt.converged && near_tol.converged,
          "APGD with sparse checks did not converge on the %d-dof stack", dof);
    CHECK(dflt.iterations >= every.iterations && dflt.iterations < every.iterations + 4,
          "APGD default checks: %" PetscInt_FMT " iterations vs %" PetscInt_FMT " checking each", dflt.iterations,
          every.iterations);
    CHECK(near_tol.iterations >= every.iterations && near_tol.iterations < every.iterations + 4,
          "APGD checking near the tolerance only: %" PetscInt_FMT " iterations vs %" PetscInt_FMT " checking each",
          near_tol.iterations, every.iterations);
    PetscCall(SysDestroy(&S));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The passes over the contacts each solve reports (CCPSolveStats.passes): one per iteration for the
 * sweeps; for APGD its iterations plus its rejected steps. From L0 = 2^-40 (-ccp_apgd_lipschitz_initial)
 * the first step is rejected until L reaches the curvature dNd / dBd of the step tried, which is at
 * least the smallest eigenvalue of B N on the cone's directions; on this stack that is far above
 * 2^-20, so at least 10 growths of L by the default 4 (rejected passes) come before the first
 * iteration. */
static PetscErrorCode test_passes(void)
{
  PetscFunctionBeginUser;
  printf("(8b) passes over the contacts: the sweeps' iterations; APGD's iterations and rejected steps\n");
  for (int t = 0; t < 3; t++) {
    Sys           S;
    CCPSolveStats st, low;
    PetscCall(build_stack(&S, 10, 6));
    PetscCall(run(&S, (SolverType)t, 1e-6, 2000, &st));
    printf("  %-12s %" PetscInt_FMT " iterations, %" PetscInt_FMT " passes\n", NAMES[t], st.iterations, st.passes);
    if (t != SOLVER_APGD)
      CHECK(st.passes == st.iterations, "%s: %" PetscInt_FMT " passes for %" PetscInt_FMT " iterations (one each)",
            NAMES[t], st.passes, st.iterations);
    else {
      CHECK(st.passes >= st.iterations,
            "APGD: %" PetscInt_FMT " passes for %" PetscInt_FMT " iterations (at least one each)", st.passes,
            st.iterations);
      for (PetscInt k = 0; k < 6 * S.ncontacts; k++) S.gamma[k] = 0;
      PetscCall(PetscOptionsSetValue(NULL, "-ccp_apgd_lipschitz_initial", "9.094947017729282e-13"));
      PetscCall(run(&S, SOLVER_APGD, 1e-6, 2000, &low));
      PetscCall(PetscOptionsClearValue(NULL, "-ccp_apgd_lipschitz_initial"));
      printf("  apgd from L0 = 2^-40: %" PetscInt_FMT " iterations, %" PetscInt_FMT " passes\n", low.iterations,
             low.passes);
      CHECK(low.passes >= low.iterations + 10,
            "APGD from L0 = 2^-40: %" PetscInt_FMT " passes for %" PetscInt_FMT
            " iterations: the rejected steps were not counted",
            low.passes, low.iterations);
      /* the default backtracking growth is 4 (ccp/solver.c: fewer passes than 2 on settled piles):
       * the same solve with -ccp_apgd_lipschitz_grow 4 is the same, with 2 it backtracks more */
      CCPSolveStats grown[2];
      const char   *grow[2] = {"4", "2"};
      for (int g = 0; g < 2; g++) {
        for (PetscInt k = 0; k < 6 * S.ncontacts; k++) S.gamma[k] = 0;
        PetscCall(PetscOptionsSetValue(NULL, "-ccp_apgd_lipschitz_initial", "9.094947017729282e-13"));
        PetscCall(PetscOptionsSetValue(NULL, "-ccp_apgd_lipschitz_grow", grow[g]));
        PetscCall(run(&S, SOLVER_APGD, 1e-6, 2000, &grown[g]));
        PetscCall(PetscOptionsClearValue(NULL, "-ccp_apgd_lipschitz_grow"));
        PetscCall(PetscOptionsClearValue(NULL, "-ccp_apgd_lipschitz_initial"));
        printf("  apgd from L0 = 2^-40, growth %s: %" PetscInt_FMT " iterations, %" PetscInt_FMT " passes\n", grow[g],
               grown[g].iterations, grown[g].passes);
      }
      CHECK(grown[0].passes == low.passes && grown[0].iterations == low.iterations,
            "APGD: the default run (%" PetscInt_FMT " passes) is not the run with growth 4 (%" PetscInt_FMT ")",
            low.passes, grown[0].passes);
      CHECK(grown[1].passes - grown[1].iterations > low.passes - low.iterations,
            "APGD: growth 2 backtracked %" PetscInt_FMT " times, not more than the default's %" PetscInt_FMT,
            grown[1].passes - grown[1].iterations, low.passes - low.iterations);
    }
    PetscCall(SysDestroy(&S));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The APGD aids of ccp/apgd.c, each behind an option and off by default. Per-contact diagonal
 * scaling (reference loops): the solution does not depend on the iteration's metric, so it must
 * reach the dense reference within check_all_methods' bound (a wrong metric projection would stall
 * above the tolerance or land elsewhere). Keeping L: a solver whose
 * first solve starts from L0 = 2^-40 backtracks at least 10 times before its first step to reach
 * the step's curvature (test_passes); its second solve of the same problem with
 * -ccp_apgd_lipschitz_keep starts where the first ended and skips those, so it backtracks at least
 * 10 times fewer (without the option the two solves are the same: measured 26 and 9 backtracks
 * with it; the others come from the decay 0.9 per iteration, which lets L fall below the curvature
 * again). */
static PetscErrorCode test_apgd_aids(void)
{
  const char *const opts[][2][2] = {
    {{"-ccp_apgd_scaling", "diagonal"}, {"-ccp_packed", "false"}},
  };

  PetscFunctionBeginUser;
  printf("(8c) APGD aids: diagonal scaling vs the dense reference; L kept\n");
  for (int tree = 0; tree < 2; tree++) {
    Sys     S;
    double *gref, *vref, rres = 0;
    Bound   B;
    PetscCall(build_lattice(&S, 2, 2, 3, 0, tree ? 0 : 0.05, (PetscBool)tree));
    PetscCall(PetscMalloc2(6 * S.ncontacts, &gref, 6 * S.nbodies, &vref));
    PetscCall(dense_reference(&S, gref, vref, &rres));
    PetscCall(error_bound(&S, &B));
    const double tol = 1e-9, eg = B.gamma * (tol + rres) + 1e-13, ev = B.vel * (tol + rres) + 1e-13;
    for (size_t o = 0; o < sizeof(opts) / sizeof(*opts); o++) {
      CCPSolveStats st;
      for (int k = 0; k < 2; k++)
        if (opts[o][k][0]) PetscCall(PetscOptionsSetValue(NULL, opts[o][k][0], opts[o][k][1]));
      for (PetscInt k = 0; k < 6 * S.ncontacts; k++) S.gamma[k] = 0;
      PetscCall(run(&S, SOLVER_APGD, tol, 400000, &st));
      for (int k = 0; k < 2; k++)
        if (opts[o][k][0]) PetscCall(PetscOptionsClearValue(NULL, opts[o][k][0]));
      const double dg = dist_gamma(&S, gref), dv = dist_vel(&S, vref);
      printf("  %-6s %-20s %-9s it %6" PetscInt_FMT " res %.1e  |gamma-ref| %.1e (bound %.1e)  |v-ref| %.1e (bound "
             "%.1e)\n",
             tree ? "comb" : "lattice", opts[o][0][0], opts[o][0][1], st.iterations, st.res_max, dg, eg, dv, ev);
      CHECK(st.converged && st.res_max <= tol, "APGD %s %s: not converged (res %g, tol %g)", opts[o][0][0],
            opts[o][0][1], st.res_max, tol);
      CHECK(dg <= eg && dv <= ev, "APGD %s %s: |gamma - ref| = %g (bound %g), |v - ref| = %g (bound %g)", opts[o][0][0],
            opts[o][0][1], dg, eg, dv, ev);
    }
    PetscCall(PetscFree2(gref, vref));
    PetscCall(SysDestroy(&S));
  }
  {
    Sys           S;
    CCPSolver     s;
    CCPSolveStats st[2];
    PetscCall(build_stack(&S, 10, 6));
    PetscCall(CCPSolverCreate(PETSC_COMM_SELF, &s));
    PetscCall(CCPSolverSetFromScenario(s, SOLVER_APGD, 2000, 1e-6));
    PetscCall(PetscOptionsSetValue(NULL, "-ccp_apgd_lipschitz_initial", "9.094947017729282e-13"));
    PetscCall(PetscOptionsSetValue(NULL, "-ccp_apgd_lipschitz_keep", "true"));
    PetscCall(CCPSolverSetFromOptions(s));
    PetscCall(PetscOptionsClearValue(NULL, "-ccp_apgd_lipschitz_keep"));
    PetscCall(PetscOptionsClearValue(NULL, "-ccp_apgd_lipschitz_initial"));
    for (int k = 0; k < 2; k++) {
      CCPProblem P = sys_problem(&S);
      for (PetscInt j = 0; j < 6 * S.ncontacts; j++) S.gamma[j] = 0;
      PetscCall(CCPSolverSolve(s, &P, &st[k]));
      printf("  L kept, solve %d from L0 = 2^-40: %" PetscInt_FMT " iterations, %" PetscInt_FMT " passes\n", k + 1,
             st[k].iterations, st[k].passes);
    }
    CHECK(st[0].converged && st[1].converged, "APGD with L kept did not converge");
    CHECK(st[1].passes - st[1].iterations <= st[0].passes - st[0].iterations - 10,
          "APGD with L kept: the second solve backtracked %" PetscInt_FMT " times (the first %" PetscInt_FMT
          "): it did not start from the first one's L",
          st[1].passes - st[1].iterations, st[0].passes - st[0].iterations);
    PetscCall(CCPSolverDestroy(&s));
    PetscCall(SysDestroy(&S));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Zero contacts; warm start at the exact solution; max_it = 0; options. */
static PetscErrorCode test_edges(void)
{
  PetscFunctionBeginUser;
  printf("(9) edge cases: no contacts, exact warm start, max_it 0, options\n");
  for (int t = 0; t < 3; t++) {
    Sys           S;
    CCPSolveStats st;
    const double  v0[6] = {0.1, 0.2, 0.3, 1, 2, 3};
    PetscCall(SysCreate(&S, 2, 1));
    sys_sphere(&S, 0, v0);
    PetscCall(run(&S, (SolverType)t, 1e-8, 100, &st));
    CHECK(st.iterations == 0 && st.converged && st.res_max == 0 && S.vel[2] == S.vel_free[2] &&
            S.vel[5] == S.vel_free[5],
          "%s: no contacts must give 0 iterations and v = v_free", NAMES[t]);
    PetscCall(SysDestroy(&S));

    /* resting sphere, warm start gn = m g h: g = -g h + gn / m = 0 to rounding (1e-15 m/s) */
    PetscCall(sphere_on_floor(&S, NULL, 0.5, 0, 0));
    S.gamma[0] = MASS * GRAV * H;
    PetscCall(run(&S, (SolverType)t, 1e-12, 100, &st));
    CHECK(st.iterations == 0 && st.converged,
          "%s: exact warm start took %" PetscInt_FMT " iterations (converged %d, res %g)", NAMES[t], st.iterations,
          (int)st.converged, st.res_max);
    S.gamma[0] = 0;
    PetscCall(run(&S, (SolverType)t, 1e-12, 0, &st));
    CHECK(st.iterations == 0 && !st.converged && fabs(st.res_max - GRAV * H) < 1e-15,
          "%s: max_it 0 must return the warm start (res %g, expected %g)", NAMES[t], st.res_max, GRAV * H);
    PetscCall(SysDestroy(&S));
  }
  {
    CCPSolver  s;
    SolverType type;
    double     tol;
    PetscCall(CCPSolverCreate(PETSC_COMM_SELF, &s));
    PetscCall(CCPSolverSetFromScenario(s, SOLVER_APGD, 50, 1e-5));
    PetscCall(PetscOptionsSetValue(NULL, "-ccp_type", "gauss-seidel"));
    PetscCall(PetscOptionsSetValue(NULL, "-ccp_tol", "1e-7"));
    PetscCall(CCPSolverSetFromOptions(s));
    PetscCall(CCPSolverGetType(s, &type));
    PetscCall(CCPSolverGetTolerance(s, &tol));
    CHECK(type == SOLVER_GAUSS_SEIDEL && tol == 1e-7, "options did not override the scenario (type %d tol %g)",
          (int)type, tol);
    PetscCall(PetscOptionsClearValue(NULL, "-ccp_type"));
    PetscCall(PetscOptionsClearValue(NULL, "-ccp_tol"));
    const char *const bad[][2] = {{"-ccp_jacobi_lambda", "1.5"}, {"-ccp_apgd_check_interval", "0"}};
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
      PetscCall(PetscOptionsSetValue(NULL, bad[k][0], bad[k][1]));
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      PetscErrorCode err = CCPSolverSetFromOptions(s);
      PetscCall(PetscPopErrorHandler());
      PetscCall(PetscOptionsClearValue(NULL, bad[k][0]));
      CHECK(err != 0, "%s %s was accepted", bad[k][0], bad[k][1]);
    }
    PetscCall(CCPSolverDestroy(&s));
    PetscCall(CCPSolverDestroy(&s)); /* NULL is fine */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- timing (printed only) */

static PetscErrorCode bench(void)
{
  const int n = 17; /* 4913 spheres */

  PetscFunctionBeginUser;
  printf("(10) timing: %d^3 sphere lattice, ~3 contacts per sphere, fixed 50 iterations (tol 0), ns per "
         "contact-iteration\n",
         n);
  for (int dof = 3; dof <= 6; dof += 3) {
    Sys S;
    PetscCall(build_lattice(&S, n, n, n, dof, 0, PETSC_FALSE));
    for (int t = 0; t < 3; t++) {
      CCPSolveStats  st;
      PetscLogDouble t0, t1;
      for (PetscInt k = 0; k < 6 * S.ncontacts; k++) S.gamma[k] = 0;
      PetscCall(PetscTime(&t0));
      PetscCall(run(&S, (SolverType)t, 0, 50, &st));
      PetscCall(PetscTime(&t1));
      printf("  %d-dof %-12s %" PetscInt_FMT " contacts: %5.1f ns (res after %" PetscInt_FMT " it: %.2e)\n", dof,
             NAMES[t], S.ncontacts, 1e9 * (t1 - t0) / ((double)S.ncontacts * st.iterations), st.iterations, st.res_max);
    }
    PetscCall(SysDestroy(&S));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  rng_state = 0x2545F4914F6CDD1Dull; /* this test's seed */
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  printf("test_ccp_solvers: Jacobi, Gauss-Seidel and APGD against analytic and dense answers\n");
  PetscCall(test_resting());
  PetscCall(test_sliding());
  PetscCall(test_spinning());
  PetscCall(test_stack());
  PetscCall(test_random_unique());
  PetscCall(test_random_vi());
  PetscCall(test_jammed());
  PetscCall(test_jacobi_divergence());
  PetscCall(test_apgd_checks());
  PetscCall(test_passes());
  PetscCall(test_apgd_aids());
  PetscCall(test_edges());
  PetscCall(bench());
  printf("%s (%d failure%s)\n", failures ? "FAILED" : "PASSED", failures, failures == 1 ? "" : "s");
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
