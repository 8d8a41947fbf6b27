/* A contact's inputs and a body's inverse mass and inertia rounded as the packed layout stores
 * them (ccp/pack.h: geometry, friction coefficients, the law's terms and the body records' masses
 * in single precision). Tests that hold the solvers to an
 * independent reference (the reference loops, a dense solve) draw their problems this way, so
 * that both solve the same problem and the tolerances measure the solvers, not that rounding. */
#ifndef CCPDEM_TEST_CCP_SINGLE_H
#define CCPDEM_TEST_CCP_SINGLE_H
#include "ccp/pack.h"

/* x as the packed blocks store a contact's input: rounded to the nearest single. Through a
 * volatile: GCC 12.2 at -O3 lets its SLP vectorizer drop a (double)(float)x round trip of
 * neighbouring fields (seen here: a loop rounding n, ra, rb left most of them unrounded). */
static inline double ccp_single(double x)
{
  volatile float f = (float)x;
  return f;
}

static inline void ccp_single_inputs(Contact *c, CCPContactTerms *t)
{
  for (int k = 0; k < 3; k++) {
    c->n[k]  = ccp_single(c->n[k]);
    c->ra[k] = ccp_single(c->ra[k]);
    c->rb[k] = ccp_single(c->rb[k]);
  }
  c->mu               = ccp_single(c->mu);
  c->rho              = ccp_single(c->rho);
  c->sigma            = ccp_single(c->sigma);
  t->bn               = ccp_single(t->bn);
  t->c_lin            = ccp_single(t->c_lin);
  t->cohesion_impulse = ccp_single(t->cohesion_impulse);
  t->yield_impulse    = ccp_single(t->yield_impulse);
}

/* a body's inverse mass and world inverse inertia (xx, yy, zz, xy, xz, yz) as its packed record holds them */
static inline void ccp_single_body(double *inv_mass, double inv_inertia[6])
{
  *inv_mass = ccp_single(*inv_mass);
  for (int k = 0; k < 6; k++) inv_inertia[k] = ccp_single(inv_inertia[k]);
}
#endif
