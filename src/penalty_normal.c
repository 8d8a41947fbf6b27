/* See penalty_normal.h. */
#include "penalty_normal.h"
#include <math.h>

static double shear_modulus(const Material *m) { return m->young_modulus / (2 * (1 + m->poisson_ratio)); }

void penalty_pair(const Material *a, const Material *b, PenaltyPair *p)
{
#define PAIR_MIN(x, y) ((x) < (y) ? (x) : (y))
  p->E_eff       = 1.0 / ((1 - a->poisson_ratio * a->poisson_ratio) / a->young_modulus + (1 - b->poisson_ratio * b->poisson_ratio) / b->young_modulus);
  p->G_eff       = 1.0 / ((2 - a->poisson_ratio) / shear_modulus(a) + (2 - b->poisson_ratio) / shear_modulus(b));
  p->restitution = PAIR_MIN(a->restitution, b->restitution);
  p->beta        = -log(p->restitution) / sqrt(log(p->restitution) * log(p->restitution) + M_PI * M_PI);
  p->mu_s        = PAIR_MIN(a->friction, b->friction);
  p->mu_k        = PAIR_MIN(a->kinetic_friction, b->kinetic_friction);
  p->eta_r       = PAIR_MIN(a->rolling_resistance, b->rolling_resistance);
  p->eta_psi     = PAIR_MIN(a->spinning_resistance, b->spinning_resistance);
  if (a->tangential_stiffness > 0 && b->tangential_stiffness > 0) p->K_E = PAIR_MIN(a->tangential_stiffness, b->tangential_stiffness);
  else p->K_E = a->tangential_stiffness > 0 ? a->tangential_stiffness : b->tangential_stiffness;
#undef PAIR_MIN
}

double penalty_normal_force(const PenaltySettings *set, const PenaltyPair *p, double delta, double vn, double R_eff, double m_eff, double *stiffness)
{
  const double beta = p->beta;
  double       elastic, k, c, f;

  if (set->normal == PENALTY_NORMAL_HOOKE) {
    k       = set->normal_stiffness;
    elastic = k * delta;
    c       = 2 * beta * sqrt(m_eff * k);
  } else {
    k       = 2 * p->E_eff * sqrt(R_eff * delta);
    elastic = 4.0 / 3.0 * p->E_eff * sqrt(R_eff) * delta * sqrt(delta);
    c       = 2 * sqrt(5.0 / 6.0) * beta * sqrt(m_eff * k);
  }
  *stiffness = k;
  f          = elastic - c * vn;
  return f > 0 ? f : 0;
}
