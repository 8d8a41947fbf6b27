// ctest: labels=unit timeout=60
/* The matrix-free CCP operators of ccp/problem.h against a dense D assembled in the test
 * (ccp_dense.h, from the convention written in contact/contact_set.h / ccp/problem.h), on random contacts
 * (3-dof, 6-dof, mixed; two walls of zero inverse mass with nonzero velocities). Checks: D^T v + b, M^-1 D g,
 * adjointness, velocity from impulses, gradient N g + r, diagonal block traces, and the GUIDE residual at known
 * solutions. */
#include <petscsys.h>
#include <stdint.h>
#include <stdio.h>
#include "ccp/problem.h"
#include "base/vec3.h"
#include "ccp_dense.h"

#include "test_check.h"

#include "test_random.h"

typedef struct {
  PetscInt         nbodies, nmoving, nc;
  double          *inv_mass, *inv_inertia, *vel_free, *vel, *gamma;
  Contact         *contact;
  CCPContactTerms *terms;
} Problem;

/* nmoving bodies, then 2 walls (zero inverse mass and inertia, prescribed velocity) */
static PetscErrorCode random_problem(Problem *P, PetscInt nmoving, PetscInt nc, int dof_mode /* 3, 6, or 0 = mixed */)
{
  PetscFunctionBeginUser;
  P->nmoving = nmoving;
  P->nbodies = nmoving + 2;
  P->nc      = nc;
  PetscCall(PetscCalloc5(P->nbodies, &P->inv_mass, 6 * P->nbodies, &P->inv_inertia, 6 * P->nbodies, &P->vel_free,
                         6 * P->nbodies, &P->vel, 6 * nc, &P->gamma));
  PetscCall(PetscCalloc2(nc, &P->contact, nc, &P->terms));
  for (PetscInt j = 0; j < nmoving; j++) {
    P->inv_mass[j] = 0.5 + urand();
    random_spd(P->inv_inertia + 6 * j, 3.0);
  }
  for (PetscInt k = 0; k < 6 * P->nbodies; k++) P->vel_free[k] = srand1();
  for (PetscInt i = 0; i < nc; i++) {
    Contact *c = &P->contact[i];
    /* b moving; a another moving body or a wall */
    c->b = (int32_t)(urand() * nmoving);
    do c->a = (int32_t)(urand() * P->nbodies);
    while (c->a == c->b);
    const int dof  = dof_mode ? dof_mode : (urand() < 0.5 ? 3 : 6); /* a 6-dof contact gets rho, sigma > 0 below */
    double    n[3] = {srand1(), srand1(), srand1()};
    v3_scale(c->n, 1 / v3_norm(n), n);
    for (int q = 0; q < 3; q++) {
      c->ra[q] = srand1();
      c->rb[q] = srand1();
    }
    c->mu             = 0.2 + 0.5 * urand();
    c->rho            = dof == 6 ? 0.01 + 0.05 * urand() : 0;
    c->sigma          = dof == 6 ? 0.01 + 0.05 * urand() : 0;
    P->terms[i].bn    = srand1();
    P->terms[i].c_lin = 0.1 * urand();
    for (int k = 0; k < dof; k++) P->gamma[6 * i + k] = srand1();
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode free_problem(Problem *P)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree5(P->inv_mass, P->inv_inertia, P->vel_free, P->vel, P->gamma));
  PetscCall(PetscFree2(P->contact, P->terms));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static CCPProblem view(Problem *P)
{
  CCPProblem q = {.nbodies     = P->nbodies,
                  .inv_mass    = P->inv_mass,
                  .inv_inertia = P->inv_inertia,
                  .vel_free    = P->vel_free,
                  .vel         = P->vel,
                  .ncontacts   = P->nc,
                  .contact     = P->contact,
                  .gamma       = P->gamma,
                  .terms       = P->terms};
  return q;
}

/* Symmetric 3x3 (xx, yy, zz, xy, xz, yz) inverse by cofactors, as a full row-major matrix. */
static void sym_inverse(const double S[6], double Minv[9])
{
  const double a = S[0], b = S[3], c = S[4], d = S[1], e = S[5], f = S[2];
  const double A = d * f - e * e, B = -(b * f - c * e), C = b * e - c * d;
  const double det     = a * A + b * B + c * C;
  const double full[9] = {A, B, C, B, a * f - c * c, -(a * e - b * c), C, -(a * e - b * c), a * d - b * b};
  for (int k = 0; k < 9; k++) Minv[k] = full[k] / det;
}

/* Relative error of x against reference ref, scaled by max(|ref|, scale). */
static double relerr(double x, double ref, double scale) { return fabs(x - ref) / fmax(fabs(ref), scale); }

/* Operators vs the dense matrix, for a random problem. 1e-12: every entry is a sum of at most a
 * few dozen O(1) products, so double rounding is ~1e-15; 1e-12 leaves room yet catches any sign,
 * index or transposition mistake (those are O(1)). */
static PetscErrorCode check_against_dense(int dof_mode, const char *name)
{
  Problem        P;
  DenseCCP       d;
  const PetscInt nmov = 7, nc = 16;
  double         worst_u = 0, worst_dv = 0, worst_adj = 0, worst_tr = 0, worst_vel = 0, worst_grad = 0;

  PetscFunctionBeginUser;
  PetscCall(random_problem(&P, nmov, nc, dof_mode));
  CCPProblem Q = view(&P);
  PetscCall(DenseCCPCreate(&Q, &d));
  const PetscInt nr = d.nr, nx = d.nx;
  double        *v, *w;
  PetscCall(PetscMalloc2(nr, &v, nr, &w));

  /* D^T v + b; the unused entries of a 3-dof contact are zero */
  for (PetscInt k = 0; k < nr; k++) v[k] = srand1();
  for (PetscInt i = 0; i < nc; i++) {
    double u[6];
    ccp_contact_velocity(&Q, i, v, u);
    for (int k = 0; k < 6; k++) {
      double ref = k == 0 ? P.terms[i].bn : 0;
      if (k < contact_dof(&P.contact[i]))
        for (PetscInt r = 0; r < nr; r++) ref += d.D[r * nx + d.col[i] + k] * v[r];
      worst_u = fmax(worst_u, relerr(u[k], ref, 1));
    }
  }
  CHECK(worst_u < 1e-12, "%s: D^T v + b differs from dense by %g", name, worst_u);

  /* M^-1 D g for each contact separately, and for all of them (ccp_velocity_from_impulses) */
  for (PetscInt i = 0; i < nc; i++) {
    const double *g = P.gamma + 6 * i;
    for (PetscInt r = 0; r < nr; r++) w[r] = 0;
    ccp_apply_impulse(&Q, i, g, w);
    for (PetscInt r = 0; r < nr; r++) {
      double ref = 0;
      for (int k = 0; k < contact_dof(&P.contact[i]); k++) ref += d.MinvD[r * nx + d.col[i] + k] * g[k];
      worst_dv = fmax(worst_dv, relerr(w[r], ref, 1));
    }
  }
  CHECK(worst_dv < 1e-12, "%s: M^-1 D g differs from dense by %g", name, worst_dv);
  ccp_velocity_from_impulses(&Q, P.gamma, P.vel);
  for (PetscInt r = 0; r < nr; r++) {
    double ref = P.vel_free[r];
    for (PetscInt i = 0; i < nc; i++)
      for (int k = 0; k < contact_dof(&P.contact[i]); k++) ref += d.MinvD[r * nx + d.col[i] + k] * P.gamma[6 * i + k];
    worst_vel = fmax(worst_vel, relerr(P.vel[r], ref, 1));
  }
  CHECK(worst_vel < 1e-12, "%s: v_free + M^-1 D gamma differs from dense by %g", name, worst_vel);

  /* Adjointness <D^T v, g> = <v, M (M^-1 D g)> over the moving bodies, with the walls at rest
   * (their M is infinite, so M (M^-1 D g) says nothing there). M is inverted here, by cofactors. */
  for (PetscInt k = 6 * nmov; k < nr; k++) v[k] = 0;
  for (PetscInt i = 0; i < nc; i++) {
    const double *g = P.gamma + 6 * i;
    double        u[6], lhs = 0, rhs = 0, scale = 0;
    ccp_contact_velocity(&Q, i, v, u);
    u[0] -= P.terms[i].bn;
    for (int k = 0; k < contact_dof(&P.contact[i]); k++) {
      lhs += u[k] * g[k];
      scale += fabs(u[k] * g[k]);
    }
    for (PetscInt r = 0; r < nr; r++) w[r] = 0;
    ccp_apply_impulse(&Q, i, g, w);
    for (PetscInt j = 0; j < nmov; j++) {
      double J[9], Jw[3];
      sym_inverse(P.inv_inertia + 6 * j, J);
      mat_vec(Jw, J, w + 6 * j + 3);
      for (int q = 0; q < 3; q++) rhs += v[6 * j + q] * w[6 * j + q] / P.inv_mass[j] + v[6 * j + 3 + q] * Jw[q];
    }
    worst_adj = fmax(worst_adj, fabs(lhs - rhs) / fmax(scale, 1e-300));
  }
  CHECK(worst_adj < 1e-12, "%s: <D^T v, g> != <v, M M^-1 D g>: relative %g", name, worst_adj);

  /* N = D^T M^-1 D + C: diagonal block traces, and the gradient N gamma + r */
  for (PetscInt i = 0; i < nc; i++) {
    double ref = 0;
    for (PetscInt j = d.col[i]; j < d.col[i + 1]; j++) ref += d.N[j * nx + j];
    worst_tr = fmax(worst_tr, relerr(ccp_contact_trace(&Q, i), ref, 1));
  }
  CHECK(worst_tr < 1e-12, "%s: trace of N_ii differs from dense by %g", name, worst_tr);
  for (PetscInt i = 0; i < nc; i++) {
    double g[6];
    ccp_contact_gradient(&Q, i, P.vel, P.gamma + 6 * i, g);
    for (int k = 0; k < contact_dof(&P.contact[i]); k++) {
      const PetscInt row = d.col[i] + k;
      double         ref = d.r[row];
      for (PetscInt j = 0; j < nc; j++)
        for (int q = 0; q < contact_dof(&P.contact[j]); q++) ref += d.N[row * nx + d.col[j] + q] * P.gamma[6 * j + q];
      worst_grad = fmax(worst_grad, relerr(g[k], ref, 1));
    }
  }
  CHECK(worst_grad < 1e-12, "%s: gradient differs from dense N gamma + r by %g", name, worst_grad);
  printf("  %-6s D^T v %.1e, M^-1 D g %.1e, v(gamma) %.1e, adjoint %.1e, trace %.1e, gradient %.1e\n", name, worst_u,
         worst_dv, worst_vel, worst_adj, worst_tr, worst_grad);
  PetscCall(PetscFree2(v, w));
  PetscCall(DenseCCPDestroy(&d));
  PetscCall(free_problem(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The GUIDE residual at solutions built by hand: one contact of a sphere (body 0) on a wall
 * (body 1), normal +z. The residual is zero at a solution of the one-contact VI:
 *   gamma in Y, g = N gamma + r in the dual cone, gamma . g = 0,
 * and is computed here from gamma and a velocity that gives the chosen g. */
static PetscErrorCode check_residual(void)
{
  double  inv_mass[2] = {0.5, 0}, inv_inertia[12] = {2, 2, 2, 0, 0, 0}, vel_free[12] = {0}, vel[12] = {0}, gamma[6];
  Contact c         = {0};
  CCPContactTerms t = {0};
  CCPProblem      Q = {.nbodies     = 2,
                       .inv_mass    = inv_mass,
                       .inv_inertia = inv_inertia,
                       .vel_free    = vel_free,
                       .vel         = vel,
                       .ncontacts   = 1,
                       .contact     = &c,
                       .gamma       = gamma,
                       .terms       = &t};
  const double    R = 0.1, rho = 0.02, sigma = 0.03; /* the 6-dof cases' rolling and spinning friction */

  PetscFunctionBeginUser;
  c.a = 1;
  c.b = 0;
  v3_set(c.n, 0, 0, 1);
  v3_set(c.rb, 0, 0, -R);
  c.mu = 0.4;

  /* (a) separating: gamma = 0, sphere moving up at 1 m/s: g = (1, 0, ...) is in the dual cone */
  for (int dof = 3; dof <= 6; dof += 3) {
    c.rho   = dof == 6 ? rho : 0; /* contact_dof: 6 with rolling or spinning friction */
    c.sigma = dof == 6 ? sigma : 0;
    t.eta   = dof / ccp_contact_trace(&Q, 0);
    for (int k = 0; k < 6; k++) gamma[k] = vel[k] = 0;
    vel[2] = 1;
    double g[6], rmax, rrms;
    ccp_contact_gradient(&Q, 0, vel, gamma, g);
    ccp_residual(&Q, gamma, vel, &rmax, &rrms);
    CHECK(ccp_contact_residual(&c, &t, gamma, g) == 0 && rmax == 0,
          "dof %d separating: residual %g (max %g), expected 0", dof, ccp_contact_residual(&c, &t, gamma, g), rmax);
    /* approaching at 1 m/s with no impulse: Proj(-eta g) = (eta, 0, ...), residual exactly 1 m/s */
    vel[2] = -1;
    ccp_residual(&Q, gamma, vel, &rmax, &rrms);
    CHECK(fabs(rmax - 1) < 1e-15 && fabs(rrms - 1) < 1e-15, "dof %d approaching: residual %g, expected 1", dof, rmax);
  }

  /* (b) 3-dof sliding: gamma = p (1, mu, 0) on the cone's surface, g = s (mu, -1, 0) along the
   * outward normal's negative: relative slip -s along u (opposing the friction force) and the
   * relaxation's normal velocity s mu. Residual 0 up to rounding (1e-14 on O(1) numbers). */
  {
    const double p = 0.7, sl = 0.3;
    c.rho = c.sigma = 0; /* 3-dof */
    t.eta           = 3 / ccp_contact_trace(&Q, 0);
    double gam[6] = {p, c.mu * p, 0, 0, 0, 0}, g[6] = {sl * c.mu, -sl, 0, 0, 0, 0};
    CHECK(ccp_contact_residual(&c, &t, gam, g) < 1e-14, "3-dof sliding solution: residual %g, expected 0",
          ccp_contact_residual(&c, &t, gam, g));
    /* with cohesion the cone's apex moves to gn = -cohesion_impulse: the same point shifted */
    t.cohesion_impulse = 0.25;
    gam[0] -= 0.25;
    CHECK(ccp_contact_residual(&c, &t, gam, g) < 1e-14, "3-dof sliding solution with cohesion: residual %g, expected 0",
          ccp_contact_residual(&c, &t, gam, g));
    /* cohesion lets gn < 0: gamma = (-0.1, 0, 0) with g = 0 (sticking, inside the shifted cone) */
    double gc[6] = {-0.1, 0, 0, 0, 0, 0}, z[6] = {0};
    CHECK(ccp_contact_residual(&c, &t, gc, z) == 0, "cohesive sticking: residual %g, expected 0",
          ccp_contact_residual(&c, &t, gc, z));
    double pc[6] = {-0.1, 0, 0, 0, 0, 0};
    ccp_project(&c, &t, pc);
    CHECK(pc[0] == -0.1, "projection with cohesion moved an admissible gn = -0.1 to %g", pc[0]);
    t.cohesion_impulse = 0;
  }

  /* (c) 6-dof with all three cones active: gamma = p (1, mu, 0, sigma, rho, 0); g is a positive
   * combination of the three constraints' inward normals: s1 (mu, -1, 0, 0, 0, 0) + s2 (sigma, 0,
   * 0, -1, 0, 0) + s3 (rho, 0, 0, 0, -1, 0). */
  {
    const double p = 0.5, s1 = 0.2, s2 = 0.05, s3 = 0.1;
    c.rho         = rho; /* 6-dof */
    c.sigma       = sigma;
    t.eta         = 6 / ccp_contact_trace(&Q, 0);
    double gam[6] = {p, c.mu * p, 0, c.sigma * p, c.rho * p, 0};
    double g[6]   = {s1 * c.mu + s2 * c.sigma + s3 * c.rho, -s1, 0, -s2, -s3, 0};
    CHECK(ccp_contact_residual(&c, &t, gam, g) < 1e-14,
          "6-dof sliding+spinning+rolling solution: residual %g, expected 0", ccp_contact_residual(&c, &t, gam, g));
    /* away from the solution the residual is positive */
    g[1] += 0.1;
    CHECK(ccp_contact_residual(&c, &t, gam, g) > 1e-3, "6-dof perturbed point: residual %g, expected > 0",
          ccp_contact_residual(&c, &t, gam, g));
  }
  /* (d) max and RMS over contacts: two copies of the contact, one at a solution, one approaching */
  {
    Contact         cc[2]  = {c, c};
    CCPContactTerms tt[2]  = {t, t};
    double          gg[12] = {0}, vv[12] = {0};
    CCPProblem      Q2 = {.nbodies     = 2,
                          .inv_mass    = inv_mass,
                          .inv_inertia = inv_inertia,
                          .vel_free    = vel_free,
                          .vel         = vv,
                          .ncontacts   = 2,
                          .contact     = cc,
                          .gamma       = gg,
                          .terms       = tt};
    cc[0].rho = cc[0].sigma = cc[1].rho = cc[1].sigma = 0; /* 3-dof */
    tt[0].eta = tt[1].eta = 3 / ccp_contact_trace(&Q2, 0);
    tt[0].bn              = 2; /* separating by the stabilization term: g = (2 - 1, 0, 0) */
    tt[1].bn              = 0; /* approaching at 1 m/s: residual 1 */
    vv[2]                 = -1;
    double rmax, rrms;
    ccp_residual(&Q2, gg, vv, &rmax, &rrms);
    CHECK(fabs(rmax - 1) < 1e-15 && fabs(rrms - sqrt(0.5)) < 1e-15, "max/rms over contacts: %g, %g, expected 1, %g",
          rmax, rrms, sqrt(0.5));
  }
  printf("  residual: zero at hand-built solutions (separating, sliding 3-dof, cohesive, 6-dof all cones active), 1 "
         "m/s when approaching\n");
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  rng_state = 0x9E3779B97F4A7C15ull; /* this test's seed */
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  printf("test_ccp_ops: matrix-free CCP operators vs a dense D built in the test\n");
  PetscCall(check_against_dense(3, "3-dof"));
  PetscCall(check_against_dense(6, "6-dof"));
  PetscCall(check_against_dense(0, "mixed"));
  PetscCall(check_residual());
  printf("%s (%d failure%s)\n", failures ? "FAILED" : "PASSED", failures, failures == 1 ? "" : "s");
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
