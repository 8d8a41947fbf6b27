/* Slide friction of the penalty model (paper sec. 3.1). See penalty/friction.h. */
#include "penalty/friction.h"
#include "penalty/deflection.h"
#include <math.h>

void penalty_slide(const PenaltyFrictionState *c, PenaltyHistory *hist, const double pa[2], const double pb[2],
                   double force_b[2])
{
  const double dS[2] = {pa[0] - pb[0], pa[1] - pb[1]}; /* eq. 1a */
  const double cap_s = c->pair->mu_s * c->N_over_K_E;
  double       K_D, change[2], load[2], mode = penalty_mode(hist, PENALTY_SLIDE_SLIP);

  if (c->K_E <= 0) { /* no stiffness (a zero-radius Hertz-Mindlin contact): no friction */
    force_b[0] = force_b[1] = 0;
    return;
  }
  K_D = c->set->slide_damping * 2 * sqrt(c->m_ij * c->K_E);
  penalty_deflection_update(2, hist->slide, dS, cap_s, c->pair->mu_k * c->N_over_K_E, &mode, change);
  penalty_set_mode(hist, PENALTY_SLIDE_SLIP, mode);
  penalty_deflection_load(2, c->K_E, K_D * c->inv_h, hist->slide, change, cap_s, load); /* eq. 1b */
  force_b[0] = -load[0];
  force_b[1] = -load[1];
}
