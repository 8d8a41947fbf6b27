/* The stick/slip update shared by the three friction loads of the penalty model (paper sec. 3.1,
 * 3.2, 3.3): a micro-deflection x (a vector of dim 1 or 2 components) grows by the step's
 * increment, then is capped at the end of the step by the threshold of its mode:
 *   stick: |x| > static threshold  -> x scaled back onto it, mode becomes slip;
 *   slip:  |x| > kinetic threshold -> x scaled back onto it; else mode becomes stick.
 * The elastic load is then stiffness * x, so it never exceeds mu_s N (stick) or mu_k N (slip). */
#ifndef CCPDEM_PENALTY_DEFLECTION_H
#define CCPDEM_PENALTY_DEFLECTION_H
#include "penalty/history.h"
#include <math.h>

/* Inline: called five times per contact and step with dim 1 or 2, which the compiler then unrolls. */

/* x[dim] += dx[dim], then capped as above; *mode is PENALTY_STICK or PENALTY_SLIP (as a double, as
 * the history stores it). change[dim] = what the damping acts on: x minus the x before the step
 * while the deflection sticks, 0 when it was capped (slipping). The paper damps the raw increment
 * (eq. 1b); but a capped deflection is not a spring in motion, and damping its increment would put
 * a viscous drag K_D v on a sliding contact (hundreds of N in sec. 4.1) where the paper's results
 * show the kinetic load mu_k N alone (E_f = 1.899 N and a = 0.525 m/s^2 for the brick, the
 * constant torques of sec. 4.2-4.4). So a slipping contact carries exactly its kinetic load. */
static inline void penalty_deflection_update(int dim, double x[], const double dx[], double cap_static,
                                             double cap_kinetic, double *mode, double change[])
{
  double old[2], norm2 = 0, cap;

  for (int k = 0; k < dim; k++) {
    old[k] = x[k];
    x[k] += dx[k];
    norm2 += x[k] * x[k];
  }
  cap = *mode == PENALTY_STICK ? cap_static : cap_kinetic;
  if (norm2 > cap * cap) { /* beyond the threshold of the mode: back onto it, slipping */
    const double scale = cap / sqrt(norm2);
    for (int k = 0; k < dim; k++) {
      x[k] *= scale;
      change[k] = 0;
    }
    *mode = PENALTY_SLIP;
    return;
  }
  if (*mode == PENALTY_SLIP) *mode = PENALTY_STICK; /* below the kinetic threshold: it sticks again */
  for (int k = 0; k < dim; k++) change[k] = x[k] - old[k];
}

/* The load of a micro-deflection: out[dim] = K x + D_h change (elastic plus damping, eqs. 1b, 2,
 * 3b; D_h = D / h, the damping coefficient over the step), kept within |out| <= K cap_static (the static limit mu_s N
 * or its roll/spin counterpart). The paper leaves the damping part out of the decision to yield but does not bound it;
 * unbounded, the damping of a contact that keeps re-sticking (its normal load varies as the body rocks) holds a body
 * that Coulomb friction cannot hold: a brick on a 0.35 rad incline (tan a > mu_s) creeps at 0.6 mm/s instead of
 * sliding. With the bound, friction never exceeds the static limit. */
static inline void penalty_deflection_load(int dim, double K, double D_h, const double x[], const double change[],
                                           double cap_static, double out[])
{
  const double limit = K * cap_static;
  double       norm2 = 0;
  for (int k = 0; k < dim; k++) {
    out[k] = K * x[k] + D_h * change[k];
    norm2 += out[k] * out[k];
  }
  if (norm2 > limit * limit) {
    const double scale = limit / sqrt(norm2);
    for (int k = 0; k < dim; k++) out[k] *= scale;
  }
}
#endif
