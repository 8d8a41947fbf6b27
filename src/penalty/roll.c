/* Roll friction of the penalty model (paper sec. 3.2) and the legacy constant-torque model it is
 * compared with (App. A.2). See penalty/friction.h. */
#include "penalty/friction.h"
#include "penalty/deflection.h"
#include "base/vec3.h"

double penalty_roll_stiffness(const PenaltyFrictionState *c)
{
  if (c->pointed || !(c->kappa_a + c->kappa_b > 0)) return 0;
  return 4 * c->pair->eta_r * c->K_E * c->R_eff * c->R_eff;
}

/* One body's roll micro-deflection: Theta += kappa p, capped; the moment K_R Theta + D_R dTheta / h.
 * D_R and the thresholds are the pair's, the same for both bodies: computed once by the caller. */
static void roll_one(double K_R, double D_R_h, double cap_s, double cap_k, double kappa, const double p[2],
                     double theta[2], PenaltyHistory *hist, PenaltyState slip, double moment[2])
{
  const double dtheta[2] = {kappa * p[0], kappa * p[1]}; /* eq. 2 */
  double       change[2], mode = penalty_mode(hist, slip);

  penalty_deflection_update(2, theta, dtheta, cap_s, cap_k, &mode, change);
  penalty_set_mode(hist, slip, mode);
  penalty_deflection_load(2, K_R, D_R_h, theta, change, cap_s, moment);
}

void penalty_roll(const PenaltyFrictionState *c, PenaltyHistory *hist, const double pa[2], const double pb[2],
                  double moment_a[2], double moment_b[2])
{
  const double K_R        = c->K_R;
  const double half_kappa = 0.5 * (c->kappa_a + c->kappa_b);
  double       D_R_h, cap_s, cap_k;

  if (K_R <= 0) {
    moment_a[0] = moment_a[1] = moment_b[0] = moment_b[1] = 0;
    return;
  }
  /* D_R = roll_damping 2 sqrt(I_ij K_R), K_R = 4 eta_r K_E R_eff^2: 4 R_eff sqrt(eta_r) sqrt(I_ij K_E) */
  D_R_h = c->set->roll_damping * 4 * c->R_eff * c->pair->root_eta_r * c->root_IK * c->inv_h;
  cap_s = c->pair->mu_s * c->N_over_K_E * half_kappa; /* eq. 2c: mu N (kappa_a + kappa_b) / (2 K_E) */
  cap_k = c->pair->mu_k * c->N_over_K_E * half_kappa;
  roll_one(K_R, D_R_h, cap_s, cap_k, c->kappa_a, pa, hist->roll_a, hist, PENALTY_ROLL_A_SLIP, moment_a);
  roll_one(K_R, D_R_h, cap_s, cap_k, c->kappa_b, pb, hist->roll_b, hist, PENALTY_ROLL_B_SLIP, moment_b);
}
void penalty_roll_legacy(const PenaltyFrictionState *c, const double n[3], const double omega_rel[3],
                         double torque_a[3])
{
  const double kappa = c->kappa_a + c->kappa_b;
  double       wt[3], len;
  v3_copy(wt, omega_rel);
  v3_axpy(wt, -v3_dot(wt, n), n); /* the rolling part; spin is the tracking model's */
  len = v3_norm(wt);
  if (c->pointed || !(kappa > 0) || len == 0) {
    v3_set(torque_a, 0, 0, 0);
    return;
  }
  v3_scale(torque_a, -c->pair->eta_r * c->N / (kappa * len), wt); /* eq. 8, mu_r R_eff F_n */
}
