/* See penalty_deflection.h. */
#include "penalty_deflection.h"
#include "penalty_history.h"
#include <math.h>

void penalty_deflection_update(int dim, double x[], const double dx[], double cap_static, double cap_kinetic, double *mode, double change[])
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

void penalty_deflection_load(int dim, double K, double D_h, const double x[], const double change[], double cap_static, double out[])
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
