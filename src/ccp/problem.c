/* The CCP's matrix-free operators (ccp/problem.h): thin wrappers of the inline kernels in
 * ccp/kernels.h, plus the whole-problem loops (velocity from impulses, residual). */
#include <string.h>
#include "ccp/kernels.h"

void ccp_contact_relative_velocity(const CCPProblem *P, PetscInt i, const double *v, double u[6])
{
  const Contact *c = &P->contact[i];
  ccp_kernel_relative_velocity(c, v + 6 * (size_t)c->a, v + 6 * (size_t)c->b, u);
}

void ccp_contact_velocity(const CCPProblem *P, PetscInt i, const double *v, double u[6])
{
  CCPContactTerms t;
  ccp_problem_terms(P, i, &t);
  ccp_contact_relative_velocity(P, i, v, u);
  u[0] += t.bn;
  for (int k = 0; k < 3; k++) u[3 + k] += t.b_rot[k];
}

void ccp_apply_impulse(const CCPProblem *P, PetscInt i, const double dg[6], double *v)
{
  const Contact *c = &P->contact[i];
  const size_t   a = (size_t)c->a, b = (size_t)c->b;
  ccp_kernel_apply(c, P->inv_mass[a], P->inv_inertia + 6 * a, P->inv_mass[b], P->inv_inertia + 6 * b, dg, v + 6 * a,
                   v + 6 * b);
}

void ccp_problem_body(const CCPProblem *P, PetscInt i, double *inv_mass, double inv_inertia[6], double vel_free[6])
{
  if (P->body) {
    P->body(P->body_ctx, i, inv_mass, inv_inertia, vel_free);
    return;
  }
  if (inv_mass) *inv_mass = P->inv_mass[i];
  if (inv_inertia) memcpy(inv_inertia, P->inv_inertia + 6 * (size_t)i, 6 * sizeof(double));
  if (vel_free) memcpy(vel_free, P->vel_free + 6 * (size_t)i, 6 * sizeof(double));
}

void ccp_problem_terms(const CCPProblem *P, PetscInt i, CCPContactTerms *t)
{
  const Contact *c = &P->contact[i];
  if (c->box) *t = (CCPContactTerms){.bn = c->box->b[0]};
  else if (P->terms_fn) {
    P->terms_fn(P->terms_ctx, c, t);
    if (P->torque_prev && t->c_roll > 0 && contact_dof(c) == 6)
      for (int k = 0; k < 3; k++) t->b_rot[k] = -t->c_roll * P->torque_prev[3 * (size_t)i + k];
  } else if (P->terms) *t = P->terms[i];
  else *t = (CCPContactTerms){0};
}

double ccp_contact_trace(const CCPProblem *P, PetscInt i)
{
  const Contact  *c = &P->contact[i];
  const size_t    a = (size_t)c->a, b = (size_t)c->b;
  CCPContactTerms t;
  double          tf, tt;
  ccp_problem_terms(P, i, &t);
  ccp_kernel_traces(c, &t, P->inv_mass[a], P->inv_inertia + 6 * a, P->inv_mass[b], P->inv_inertia + 6 * b, &tf, &tt);
  return tf + tt;
}

double ccp_contact_eta(const Contact *c, const CCPContactTerms *t, double ima, const double Ia[6], double imb,
                       const double Ib[6])
{
  double tf, tt;
  ccp_kernel_traces(c, t, ima, Ia, imb, Ib, &tf, &tt);
  return ccp_kernel_eta(contact_dof(c), tf, tt);
}

void ccp_project(const Contact *c, const CCPContactTerms *t, double g[6]) { ccp_kernel_project(c, t, g); }

void ccp_velocity_from_impulses(const CCPProblem *P, const double *gamma, double *v)
{
  memcpy(v, P->vel_free, 6 * (size_t)P->nbodies * sizeof(double));
  for (PetscInt i = 0; i < P->ncontacts; i++) ccp_apply_impulse(P, i, ccp_cblock(gamma, i), v);
}

double ccp_contact_residual(const Contact *c, const CCPContactTerms *t, const double gamma_i[6], const double gi[6])
{
  return sqrt(ccp_kernel_residual2(c, t, gamma_i, gi));
}

void ccp_contact_gradient(const CCPProblem *P, PetscInt i, const double *v, const double gamma_i[6], double gi[6])
{
  const Contact  *c = &P->contact[i];
  CCPContactTerms t;
  ccp_problem_terms(P, i, &t);
  ccp_kernel_gradient(c, &t, v + 6 * (size_t)c->a, v + 6 * (size_t)c->b, gamma_i, gi);
}

void ccp_residual(const CCPProblem *P, const double *gamma, const double *v, double *res_max, double *res_rms)
{
  double mx = 0, sq = 0;
  for (PetscInt i = 0; i < P->ncontacts; i++) {
    const Contact         *c = &P->contact[i];
    const CCPContactTerms *t = &P->terms[i];
    double                 g[6];
    ccp_kernel_gradient(c, t, v + 6 * (size_t)c->a, v + 6 * (size_t)c->b, ccp_cblock(gamma, i), g);
    const double r2 = ccp_kernel_residual2(c, t, ccp_cblock(gamma, i), g);
    if (!isnan(mx) && !(r2 <= mx)) mx = r2; /* a NaN residual sticks: it must not hide as a small max */
    sq += r2;
  }
  *res_max = sqrt(mx);
  *res_rms = P->ncontacts > 0 ? sqrt(sq / P->ncontacts) : 0;
}
