/* What the three friction loads of a contact share (penalty/friction.h): computed once per contact
 * so that the slide, roll and spin loads take no square root or division of their own while they
 * stick. */
#include "penalty/friction.h"
#include <math.h>

void penalty_friction_prepare(PenaltyFrictionState *c)
{
  c->R_eff      = 1.0 / (c->kappa_a + c->kappa_b);
  c->N_over_K_E = c->K_E > 0 ? c->N / c->K_E : 0;
  c->root_IK    = sqrt(c->I_ij * c->K_E);
  c->inv_h      = 1.0 / c->h;
  c->a_spin     = c->set->spinning == PENALTY_SPINNING_HERTZ && c->N > 0 && isfinite(c->R_eff)
                  ? cbrt(3 * c->N * c->R_eff / (4 * c->pair->E_eff))
                  : 0;
  c->K_R        = penalty_roll_stiffness(c);
  c->K_psi      = penalty_spin_stiffness(c);
}
