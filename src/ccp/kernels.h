/* Private: the per-contact kernels behind ccp/problem.h, as static inline functions so that the
 * reference loops (ccp/jacobi.c, ccp/gauss_seidel.c, ccp/apgd.c with -ccp_packed false) inline them:
 * no call and no branch on the method per contact. ccp/problem.c wraps them for everyone else;
 * the packed layout (ccp/pack.c) takes its per-contact steps from here. The fast sweeps are the
 * vectorized ones of ccp/sweep.c, which follow the same formulas. Also the sweeps' per-contact
 * step (CCPMetric). They see a contact, its terms and its bodies' data, never the solver object.
 *
 * Conventions (ccp/problem.h, contact/contact_set.h): a solver body's velocity is 6 doubles, linear then
 * angular, both world frame. Contact c acts between bodies a (A) and b (B) with frame (n, u, w);
 * impulse g = (gn, gu, gw, tn, tu, tw) puts F = gn n + gu u + gw w at B's contact point and -F at
 * A's, and the torque T = tn n + tu u + tw w on B and -T on A. Entries 3-5 of a 3-dof contact are
 * ignored on input and written as zero. */
#ifndef CCPDEM_CCP_KERNELS_H
#define CCPDEM_CCP_KERNELS_H
#include <float.h>
#include <math.h>
#include "ccp/problem.h"
#include "ccp/cone.h"
#include "base/vec3.h"

/* Contact i's 6 multipliers (or gradient entries) in a CONTACT_DOF_MAX-per-contact vector. */
static inline double       *ccp_block(double *x, PetscInt i) { return x + (size_t)CONTACT_DOF_MAX * i; }
static inline const double *ccp_cblock(const double *x, PetscInt i) { return x + (size_t)CONTACT_DOF_MAX * i; }

/* u = D_c^T v without b: B's contact-point velocity relative to A's in (n, u, w), then for 6-dof
 * the relative angular velocity wB - wA in (n, u, w). Reads va, vb (6 each). */
static inline void ccp_kernel_relative_velocity(const Contact *restrict c, const double *restrict va,
                                                const double *restrict vb, double *restrict u)
{
  double pa[3], pb[3], d[3], eu[3], ew[3];
  contact_frame(c, eu, ew);
  v3_cross(pb, vb + 3, c->rb);
  v3_cross(pa, va + 3, c->ra);
  d[0] = vb[0] - va[0] + pb[0] - pa[0];
  d[1] = vb[1] - va[1] + pb[1] - pa[1];
  d[2] = vb[2] - va[2] + pb[2] - pa[2];
  u[0] = v3_dot(c->n, d);
  u[1] = v3_dot(eu, d);
  u[2] = v3_dot(ew, d);
  if (contact_dof(c) == 6) {
    const double dw[3] = {vb[3] - va[3], vb[4] - va[4], vb[5] - va[5]};
    u[3]               = v3_dot(c->n, dw);
    u[4]               = v3_dot(eu, dw);
    u[5]               = v3_dot(ew, dw);
  } else u[3] = u[4] = u[5] = 0;
}

/* g = D_c^T v + b_c + C_c gamma (the CCP gradient of one contact, terms t). */
static inline void ccp_kernel_gradient(const Contact *restrict c, const CCPContactTerms *restrict t,
                                       const double *restrict va, const double *restrict vb,
                                       const double *restrict gamma, double *restrict g)
{
  ccp_kernel_relative_velocity(c, va, vb, g);
  g[0] += t->bn + t->c_lin * gamma[0];
  g[1] += t->c_lin * gamma[1];
  g[2] += t->c_lin * gamma[2];
  if (contact_dof(c) == 6) {
    const double c_rot = ccp_terms_c_rot(c, t);
    g[3] += c_rot * gamma[3] + t->b_rot[0];
    g[4] += c_rot * gamma[4] + t->b_rot[1];
    g[5] += c_rot * gamma[5] + t->b_rot[2];
  }
  if (c->box)
    for (int k = 1; k < 6; k++) g[k] += c->box->b[k];
}

/* A joint block's projection: the clamp of each row into its box (also the projection in any
 * diagonal metric, so the sweeps' metric B_i needs no special case). */
static inline void ccp_kernel_clamp(const RowBox *restrict box, double *restrict g)
{
  for (int k = 0; k < 6; k++) g[k] = g[k] < box->lo[k] ? box->lo[k] : (g[k] > box->hi[k] ? box->hi[k] : g[k]);
}

/* The impulse D_c dg on B: force F and torque T (A gets -F, -T), in the world frame. */
static inline void ccp_kernel_force_torque(const Contact *restrict c, const double *restrict dg, double F[3],
                                           double T[3])
{
  double eu[3], ew[3];
  contact_frame(c, eu, ew);
  F[0] = dg[0] * c->n[0] + dg[1] * eu[0] + dg[2] * ew[0];
  F[1] = dg[0] * c->n[1] + dg[1] * eu[1] + dg[2] * ew[1];
  F[2] = dg[0] * c->n[2] + dg[1] * eu[2] + dg[2] * ew[2];
  T[0] = T[1] = T[2] = 0;
  if (contact_dof(c) == 6) {
    T[0] = dg[3] * c->n[0] + dg[4] * eu[0] + dg[5] * ew[0];
    T[1] = dg[3] * c->n[1] + dg[4] * eu[1] + dg[5] * ew[1];
    T[2] = dg[3] * c->n[2] + dg[4] * eu[2] + dg[5] * ew[2];
  }
}

/* va += M_A^-1 (A's part of D_c dg), vb likewise: F and T on B, -F and -T on A. */
static inline void ccp_kernel_apply(const Contact *restrict c, double ima, const double *restrict Ia, double imb,
                                    const double *restrict Ib, const double *restrict dg, double *restrict va,
                                    double *restrict vb)
{
  double F[3], T[3], m[3], dw[3];
  ccp_kernel_force_torque(c, dg, F, T);
  v3_axpy(vb, imb, F);
  v3_cross(m, c->rb, F);
  v3_add(m, m, T);
  sym_vec(dw, Ib, m);
  v3_add(vb + 3, vb + 3, dw);
  v3_axpy(va, -ima, F);
  v3_cross(m, c->ra, F);
  v3_add(m, m, T);
  sym_vec(dw, Ia, m);
  v3_sub(va + 3, va + 3, dw);
}

/* pa -= A's part of D_c dg (force, moment about A's centre), pb += B's: impulses, no M^-1. */
static inline void ccp_kernel_impulse(const Contact *restrict c, const double *restrict dg, double *restrict pa,
                                      double *restrict pb)
{
  double F[3], T[3], m[3];
  ccp_kernel_force_torque(c, dg, F, T);
  v3_add(pb, pb, F);
  v3_cross(m, c->rb, F);
  v3_add(m, m, T);
  v3_add(pb + 3, pb + 3, m);
  v3_sub(pa, pa, F);
  v3_cross(m, c->ra, F);
  v3_add(m, m, T);
  v3_sub(pa + 3, pa + 3, m);
}

/* d^T C_c d: the compliance's part of d^T N d (terms t; C as in ccp_kernel_gradient). */
static inline double ccp_kernel_compliance_dot(const Contact *c, const CCPContactTerms *t, const double d[6])
{
  const double f = t->c_lin * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  return contact_dof(c) == 6 ? f + ccp_terms_c_rot(c, t) * (d[3] * d[3] + d[4] * d[4] + d[5] * d[5]) : f;
}

/* Whether g (cohesion already shifted out) lies in the cone with these coefficients. A copy of
 * the cheap first test of ccp/cone.c, inlined so that the common sticking contact skips the call (a
 * call spills every live floating-point register of the sweep). */
static inline int ccp_kernel_inside(int dof, double mu, double rho, double sigma, const double *restrict g)
{
  const double gn = g[0];
  if (!(gn >= 0) || g[1] * g[1] + g[2] * g[2] > mu * mu * gn * gn) return 0;
  return dof == 3 || (g[4] * g[4] + g[5] * g[5] <= rho * rho * gn * gn && g[3] * g[3] <= sigma * sigma * gn * gn);
}

/* Project g onto the contact's reaction set: the friction cone shifted by cohesion to
 * gn >= -cohesion_impulse, capped at gn <= yield_impulse (cone_cap; 0: no cap), both of t. */
static inline void ccp_kernel_project(const Contact *restrict c, const CCPContactTerms *restrict t, double *restrict g)
{
  if (c->box) {
    ccp_kernel_clamp(c->box, g);
    return;
  }
  const int dof = contact_dof(c);
  if (dof == 3) g[3] = g[4] = g[5] = 0;
  g[0] += t->cohesion_impulse;
  if (!ccp_kernel_inside(dof, c->mu, c->rho, c->sigma, g)) {
    if (dof == 6) cone_project6(c->mu, c->rho, c->sigma, g);
    else cone_project3(c->mu, g);
  }
  if (t->yield_impulse > 0 && g[0] > t->yield_impulse + t->cohesion_impulse)
    cone_cap(dof, c->mu, c->rho, c->sigma, t->yield_impulse + t->cohesion_impulse, g);
  g[0] -= t->cohesion_impulse;
}

/* Quadratic form of (r x .) with Iinv over an orthonormal frame e_k: sum_k (r x e_k)^T Iinv (r x e_k)
 * = tr(Iinv) |r|^2 - r^T Iinv r, so the trace of N_ii needs no frame. */
static inline double ccp_kernel_arm_trace(const double Iinv[6], const double r[3])
{
  double Ir[3];
  sym_vec(Ir, Iinv, r);
  return (Iinv[0] + Iinv[1] + Iinv[2]) * v3_dot(r, r) - v3_dot(r, Ir);
}

/* Traces of the force rows (tf) and torque rows (tt) of N_ii = D_i^T M^-1 D_i + C_i (C from terms t). */
static inline void ccp_kernel_traces(const Contact *restrict c, const CCPContactTerms *restrict t, double ima,
                                     const double *restrict Ia, double imb, const double *restrict Ib,
                                     double *restrict tf, double *restrict tt)
{
  *tf = 3 * (ima + imb) + ccp_kernel_arm_trace(Ia, c->ra) + ccp_kernel_arm_trace(Ib, c->rb) + 3 * t->c_lin;
  *tt = contact_dof(c) == 6 ? Ia[0] + Ia[1] + Ia[2] + Ib[0] + Ib[1] + Ib[2] + 3 * ccp_terms_c_rot(c, t) : 0;
}

/* The sweeps' per-contact step B_i = diag(f I3, t I3) and the matching projection.
 *
 * Why not the GUIDE's scalar eta_i = dof / trace for a 6-dof contact: force rows of N are ~1/m,
 * torque rows ~1/(m R^2), so trace is dominated by the torque rows and the force rows get a step
 * ~R^2 too small (a sphere resting on a plane took 50x the iterations of its 3-dof twin). Each row
 * group gets its own step, f = 3/tf and t = 3/tt; the projection must then be taken in the metric
 * B_i^-1 for the fixed points to stay the CCP's solutions: with ell = sqrt(t/f), scaling the
 * torque entries by 1/ell maps the set to the cone with rho/ell, sigma/ell, where the Euclidean
 * projection is that metric projection. A 3-dof contact keeps the scalar eta_i. */
typedef struct {
  double f, t;         /* steps of the force and torque rows */
  double inv_f, inv_t; /* their inverses (inv_t = 0 for 3-dof) */
  double ell, il;      /* sqrt(t / f) and its inverse */
} CCPMetric;

/* x rounded to single precision, kept inside its normal range */
static inline float ccp_kernel_single_normal(double x)
{
  /* comparisons, not fmin/fmax: GCC 12.2 (-O2 and -O3) dropped the (double)(float) round trip of
   * (float)fmin(fmax(x, FLT_MIN), FLT_MAX) inlined into a caller, leaving x unrounded */
  return (float)(x < (double)FLT_MIN ? (double)FLT_MIN : x > (double)FLT_MAX ? (double)FLT_MAX : x);
}

/* The seed of a 6-row contact's metric: its force rows' step f = 3 / tf and the scale
 * ell = sqrt(tf / tt) (a row group without mobility or compliance, trace 0, takes the other's
 * trace: any step will do), each rounded to single precision inside its normal range. The packed
 * blocks store the seed (ccp/pack.h: 8 bytes per contact instead of the metric's 48) and the
 * reference loops round it the same, so both paths run the same iteration. A seed that had to be
 * clamped (spheres of radius below about 1e-8 m, say) only gets a step farther from the ideal one. */
static inline void ccp_kernel_metric_seed(double tf, double tt, float *f, float *ell)
{
  if (!(tt > 0)) tt = tf;
  if (!(tf > 0)) tf = tt;
  *f   = ccp_kernel_single_normal(3 / tf);
  *ell = ccp_kernel_single_normal(sqrt(tf / tt));
}

/* The metric from its seed: t = f ell^2, and the inverses from one division (f ell is exact, a
 * product of two singles). It only has to be consistent (ell^2 = t / f, il = 1 / ell, inv_f =
 * 1 / f, to rounding) for the fixed points to be the CCP's solutions; ccp/sweep.c's block_metric
 * computes the same bits, 4 lanes at a time, from the stored seed. */
static inline void ccp_kernel_metric_from_seed(double f, double ell, CCPMetric *restrict m)
{
  const double p = 1 / (f * ell);
  m->f           = f;
  m->ell         = ell;
  m->t           = f * ell * ell;
  m->inv_f       = p * ell;
  m->il          = p * f;
  m->inv_t       = m->inv_f * m->il * m->il;
}

/* The metric of a contact of `dof` rows from its eta and, for 6 rows, its traces (ccp_kernel_traces):
 * for a caller that has computed them anyway (the packing). */
static inline void ccp_kernel_metric_of(int dof, double eta, double tf, double tt, CCPMetric *restrict m)
{
  if (dof == 3) {
    m->f     = eta;
    m->inv_f = 1 / eta;
    m->t = m->inv_t = 0;
    m->ell = m->il = 1;
    return;
  }
  float f, ell;
  ccp_kernel_metric_seed(tf, tt, &f, &ell);
  ccp_kernel_metric_from_seed(f, ell, m);
}

static inline void ccp_kernel_metric(const Contact *restrict c, const CCPContactTerms *restrict t, double ima,
                                     const double *restrict Ia, double imb, const double *restrict Ib,
                                     CCPMetric *restrict m)
{
  double tf = 0, tt = 0;
  if (contact_dof(c) == 6) ccp_kernel_traces(c, t, ima, Ia, imb, Ib, &tf, &tt);
  ccp_kernel_metric_of(contact_dof(c), t->eta, tf, tt, m);
}

/* The GUIDE residual step eta_i = dof / trace(N_ii) from the traces. */
static inline double ccp_kernel_eta(int dof, double tf, double tt) { return dof / (tf + tt); }

/* The metrics of all contacts, kept for a solve by Jacobi and Gauss-Seidel in a gamma-sized work
 * vector (APGD, which needs all its work vectors for iterates, recomputes them per sweep). */
_Static_assert(sizeof(CCPMetric) <= CONTACT_DOF_MAX * sizeof(double),
               "a CCPMetric per contact must fit in a gamma-sized vector");
static inline void ccp_kernel_metrics(const CCPProblem *P, CCPMetric *m)
{
  for (PetscInt i = 0; i < P->ncontacts; i++) {
    const Contact *c = &P->contact[i];
    const size_t   a = (size_t)c->a, b = (size_t)c->b;
    ccp_kernel_metric(c, &P->terms[i], P->inv_mass[a], P->inv_inertia + 6 * a, P->inv_mass[b], P->inv_inertia + 6 * b,
                      &m[i]);
  }
}

/* z <- gamma - s B g, the step of the sweeps (s scales the metric: omega, or 1/L) */
static inline void ccp_kernel_step(const CCPMetric *m, double s, const double gamma[6], const double g[6], double z[6])
{
  const double sf = s * m->f, st = s * m->t;
  for (int k = 0; k < 3; k++) {
    z[k]     = gamma[k] - sf * g[k];
    z[k + 3] = gamma[k + 3] - st * g[k + 3];
  }
}

/* Projection onto the reaction set in the metric B^-1 (see CCPMetric). */
static inline void ccp_kernel_project_metric(const Contact *restrict c, const CCPContactTerms *restrict t,
                                             const CCPMetric *restrict m, double *restrict z)
{
  if (contact_dof(c) == 3 || c->box) {
    ccp_kernel_project(c, t, z);
    return;
  }
  const double rho = c->rho * m->il, sigma = c->sigma * m->il;
  z[3] *= m->il;
  z[4] *= m->il;
  z[5] *= m->il;
  z[0] += t->cohesion_impulse;
  if (!ccp_kernel_inside(6, c->mu, rho, sigma, z)) cone_project6(c->mu, rho, sigma, z);
  if (t->yield_impulse > 0 && z[0] > t->yield_impulse + t->cohesion_impulse)
    cone_cap(6, c->mu, rho, sigma, t->yield_impulse + t->cohesion_impulse, z);
  z[0] -= t->cohesion_impulse;
  z[3] *= m->ell;
  z[4] *= m->ell;
  z[5] *= m->ell;
}

/* |B^-1 d|^2: the square of a change of the multipliers in velocity units. For d = -s B g (an
 * unprojected step) |B^-1 d| is s |g|, the GUIDE residual's value at interior points. */
static inline double ccp_kernel_change2(const CCPMetric *m, const double d[6])
{
  const double f2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2], t2 = d[3] * d[3] + d[4] * d[4] + d[5] * d[5];
  return f2 * m->inv_f * m->inv_f + t2 * m->inv_t * m->inv_t;
}

/* The reference sweeps' update of contact i at velocity v (Jacobi: with relaxation lambda; Gauss-
 * Seidel: lambda = 1): gamma_i += lambda (Proj_i(gamma_i - omega B_i g_i) - gamma_i), and
 * M^-1 D_i (change) added to `target` (Jacobi: the sweep's increment; Gauss-Seidel: v itself, so
 * later contacts see it). Returns |B_i^-1 change|^2. */
static inline double ccp_kernel_relax(const CCPProblem *P, const CCPMetric *m, PetscInt i, const double *v,
                                      double omega, double lambda, double *target)
{
  const Contact         *c = &P->contact[i];
  const CCPContactTerms *t = &P->terms[i];
  const size_t           a = (size_t)c->a, b = (size_t)c->b;
  double                *gi = P->gamma + (size_t)CONTACT_DOF_MAX * i, g[6], d[6];

  ccp_kernel_gradient(c, t, v + 6 * a, v + 6 * b, gi, g);
  ccp_kernel_step(m, omega, gi, g, d);
  ccp_kernel_project_metric(c, t, m, d);
  for (int k = 0; k < 6; k++) {
    d[k] = lambda * (d[k] - gi[k]);
    gi[k] += d[k];
  }
  ccp_kernel_apply(c, P->inv_mass[a], P->inv_inertia + 6 * a, P->inv_mass[b], P->inv_inertia + 6 * b, d, target + 6 * a,
                   target + 6 * b);
  return ccp_kernel_change2(m, d);
}

/* a^T B^-1 b: the inner product of the sweeps' metric */
static inline double ccp_kernel_metric_dot(const CCPMetric *m, const double a[6], const double b[6])
{
  return (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) * m->inv_f + (a[3] * b[3] + a[4] * b[4] + a[5] * b[5]) * m->inv_t;
}

/* Squared norm of the first dof entries of a - b. */
static inline double ccp_kernel_dist2(const Contact *c, const double a[6], const double b[6])
{
  double    s   = 0;
  const int dof = contact_dof(c);
  for (int k = 0; k < dof; k++) s += (a[k] - b[k]) * (a[k] - b[k]);
  return s;
}

/* Square of the GUIDE residual |gamma - Proj(gamma - eta g)| / eta of one contact (sweeps take
 * the max and the sum of squares, so the root is taken once). */
static inline double ccp_kernel_residual2(const Contact *c, const CCPContactTerms *t, const double gamma[6],
                                          const double g[6])
{
  double y[6];
  for (int k = 0; k < 6; k++) y[k] = gamma[k] - t->eta * g[k];
  ccp_kernel_project(c, t, y);
  return ccp_kernel_dist2(c, gamma, y) / (t->eta * t->eta);
}

/* An error unless eta, contact i's ccp_contact_eta (the solve's step), is a usable step. Not collective. */
static inline PetscErrorCode CCPCheckEta(PetscInt i, double eta)
{
  PetscFunctionBegin;
  PetscCheck(eta > 0 && isfinite(eta), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Contact %" PetscInt_FMT " has eta %g (dof / trace of its diagonal block; > 0 needed): two immovable"
             " bodies without compliance cannot be in contact",
             i, eta);
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
