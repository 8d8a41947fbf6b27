/* Spin friction of the penalty model (paper sec. 3.3). See penalty/friction.h. */
#include "penalty/friction.h"
#include "penalty/deflection.h"
#include <math.h>

double penalty_spin_stiffness(const PenaltyFrictionState *c)
{
  /* K = kappa_a + kappa_b = 1 / R_eff: 1 / R for a sphere on a plane (the paper's K = 5 for R = 0.2 m) */
  if (c->pointed || !(c->kappa_a + c->kappa_b > 0)) return 0;
  if (c->set->spinning == PENALTY_SPINNING_HERTZ) return c->pair->eta_psi * c->K_E * c->a_spin * c->a_spin;
  return c->pair->eta_psi * c->K_E * c->R_eff * c->R_eff;
}

double penalty_spin(const PenaltyFrictionState *c, PenaltyHistory *hist, double psi)
{
  const int    hertz = c->set->spinning == PENALTY_SPINNING_HERTZ;
  const double K     = hertz ? 1.0 / c->a_spin : c->kappa_a + c->kappa_b;
  const double R_s   = hertz ? c->a_spin : c->R_eff; /* 1 / K */
  const double K_psi = c->K_psi;
  double       D_psi_h, cap_s, change, load, mode = penalty_mode(hist, PENALTY_SPIN_SLIP);

  if (K_psi <= 0) return 0;
  /* D_psi = spin_damping 2 sqrt(I_ij K_psi), K_psi = eta_psi K_E R_s^2: 2 R_s sqrt(eta_psi) sqrt(I_ij K_E) */
  D_psi_h = c->set->spin_damping * 2 * R_s * c->pair->root_eta_psi * c->root_IK * c->inv_h;
  cap_s   = K * c->pair->mu_s * c->N_over_K_E;
  penalty_deflection_update(1, &hist->spin, &psi, cap_s, K * c->pair->mu_k * c->N_over_K_E, &mode,
                            &change); /* eq. 3 and its thresholds */
  penalty_set_mode(hist, PENALTY_SPIN_SLIP, mode);
  penalty_deflection_load(1, K_psi, D_psi_h, &hist->spin, &change, cap_s, &load);
  return -load; /* eq. 3b, on A */
}
