/* See penalty/normal.h. */
#include "penalty/normal.h"
#include <math.h>

static double shear_modulus(const Material *m) { return m->young_modulus / (2 * (1 + m->poisson_ratio)); }

/* Restitution of a linear spring-dashpot of damping ratio z whose force may not pull: the contact
 * ends when k delta + c delta' = 0, at phase wd t* = pi - atan2(2 z sqrt(1 - z^2), 1 - 2 z^2), before
 * the overlap is gone; the rebound speed there over the impact speed is
 *   exp(-z th / s) (-cos th + z / s sin th),  th = wd t*, s = sqrt(1 - z^2).
 * (Without the clamp it would be exp(-pi z / s), the usual -ln e / sqrt(ln^2 e + pi^2) inverse.) */
static double clamped_restitution(double z)
{
  const double s = sqrt(1 - z * z), th = M_PI - atan2(2 * z * s, 1 - 2 * z * z);
  return exp(-z * th / s) * (-cos(th) + z / s * sin(th));
}

/* The damping ratio whose clamped restitution is e (bisection: it falls from 1 at z = 0). */
static double damping_ratio(double e)
{
  double lo = 0, hi = 1 - 1e-12;
  if (e >= 1) return 0;
  for (int it = 0; it < 100; it++) {
    const double mid = 0.5 * (lo + hi);
    if (clamped_restitution(mid) > e) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

void penalty_pair(const Material *a, const Material *b, PenaltyPair *p)
{
#define PAIR_MIN(x, y) ((x) < (y) ? (x) : (y))
  p->E_eff         = 1.0 / ((1 - a->poisson_ratio * a->poisson_ratio) / a->young_modulus +
                    (1 - b->poisson_ratio * b->poisson_ratio) / b->young_modulus);
  p->G_eff         = 1.0 / ((2 - a->poisson_ratio) / shear_modulus(a) + (2 - b->poisson_ratio) / shear_modulus(b));
  p->restitution   = PAIR_MIN(a->restitution, b->restitution);
  p->beta          = damping_ratio(p->restitution);
  p->damping_hooke = 2 * p->beta;
  p->damping_hertz = 2 * sqrt(5.0 / 6.0) * p->beta;
  p->mu_s          = PAIR_MIN(a->friction, b->friction);
  p->mu_k          = PAIR_MIN(a->kinetic_friction, b->kinetic_friction);
  p->eta_r         = PAIR_MIN(a->rolling_resistance, b->rolling_resistance);
  p->eta_psi       = PAIR_MIN(a->spinning_resistance, b->spinning_resistance);
  p->root_eta_r    = sqrt(p->eta_r);
  p->root_eta_psi  = sqrt(p->eta_psi);
  if (a->tangential_stiffness > 0 && b->tangential_stiffness > 0)
    p->K_E = PAIR_MIN(a->tangential_stiffness, b->tangential_stiffness);
  else p->K_E = a->tangential_stiffness > 0 ? a->tangential_stiffness : b->tangential_stiffness;
#undef PAIR_MIN
}

double penalty_normal_force(const PenaltySettings *set, const PenaltyPair *p, double delta, double vn, double R_eff,
                            double m_eff, double *stiffness, double *radius)
{
  double elastic, k, c, f, a = 0;

  if (set->normal == PENALTY_NORMAL_HOOKE) {
    k       = set->normal_stiffness;
    elastic = k * delta;
    c       = p->damping_hooke * sqrt(m_eff * k);
  } else { /* one square root: k = 2 E_eff a and the force 4/3 E_eff sqrt(R_eff) delta^3/2 = 2/3 k delta */
    a       = sqrt(R_eff * delta);
    k       = 2 * p->E_eff * a;
    elastic = (2.0 / 3.0) * k * delta;
    c       = p->damping_hertz * sqrt(m_eff * k);
  }
  *stiffness = k;
  *radius    = a;
  f          = elastic - c * vn;
  return f > 0 ? f : 0;
}
