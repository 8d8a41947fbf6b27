/* Spin friction of the penalty model (paper sec. 3.3). See penalty_friction.h. */
#include "penalty_friction.h"
#include "penalty_deflection.h"
#include <math.h>

double penalty_spin_stiffness(const PenaltyFrictionState *c)
{
  const double K = c->kappa_a + c->kappa_b; /* 1 / R_eff: 1 / R for a sphere on a plane (the paper's K = 5 for R = 0.2 m) */
  if (c->pointed || !(K > 0)) return 0;
  return c->pair->eta_psi * c->K_E / (K * K);
}

double penalty_spin(const PenaltyFrictionState *c, PenaltyHistory *hist, double psi)
{
  const double K     = c->kappa_a + c->kappa_b;
  const double K_psi = c->K_psi;
  const double D_psi = c->set->spin_damping * 2 * sqrt(c->I_ij * K_psi);
  const double cap_s = K * c->pair->mu_s * c->N / c->K_E;
  double       change, load;

  if (K_psi <= 0) return 0;
  penalty_deflection_update(1, &hist->spin, &psi, cap_s, K * c->pair->mu_k * c->N / c->K_E, &hist->spin_mode, &change); /* eq. 3 and its thresholds */
  penalty_deflection_load(1, K_psi, D_psi / c->h, &hist->spin, &change, cap_s, &load);
  return -load; /* eq. 3b, on A */
}
