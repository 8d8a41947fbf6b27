/* Normal force of the penalty model: Hertz (paper App. C, eq. 15) or Hooke, with a dashpot set from
 * the coefficient of restitution, and the pair's elastic constants. */
#ifndef CCPDEM_PENALTY_NORMAL_H
#define CCPDEM_PENALTY_NORMAL_H
#include "scenario/materials.h"
#include "scenario/scenario.h"

/* Pair constants of two materials. Elastic: E_eff = 1 / ((1 - nu_a^2) / E_a + (1 - nu_b^2) / E_b)
 * (App. C), G_eff = 1 / ((2 - nu_a) / G_a + (2 - nu_b) / G_b) with G = E / (2 (1 + nu)) (Mindlin,
 * eq. 5). Friction and resistance coefficients and the restitution by the minimum (the weaker
 * surface limits the pair, as for the CCP). K_E: the smaller of the materials' tangential_stiffness
 * where both give one, the one given where one does, else 0 (Hertz-Mindlin, penalty/slide.c). */
typedef struct {
  double E_eff, G_eff, restitution;
  double beta;                         /* damping ratio giving the restitution (see penalty_normal_force) */
  double damping_hooke, damping_hertz; /* 2 beta and 2 sqrt(5/6) beta: c = this sqrt(m_eff k_t) */
  double mu_s, mu_k, eta_r, eta_psi;
  double root_eta_r,
    root_eta_psi; /* sqrt(eta_r), sqrt(eta_psi): the roll and spin damping without a square root per contact */
  double K_E;     /* given slide stiffness (N/m), 0 = Hertz-Mindlin */
} PenaltyPair;

void penalty_pair(const Material *a, const Material *b, PenaltyPair *p);

/* The normal force of a contact with overlap delta > 0 (m) closing at speed -vn (vn: normal
 * relative velocity, > 0 separating), effective radius R_eff (m; Hertz only) and effective mass
 * m_eff (kg). Elastic part: Hertz 4/3 E_eff sqrt(R_eff) delta^3/2, Hooke k delta. Dashpot
 * -c vn with c = 2 beta sqrt(m_eff k_t), k_t the tangent stiffness dF/d delta (Hooke: k; Hertz:
 * 2 E_eff sqrt(R_eff delta), with Tsuji's factor sqrt(5/6)). The sum is clamped at 0 (no pull), so
 * the contact ends before the overlap does; beta is the damping ratio for which a Hooke contact
 * with that clamp rebounds at exactly e (the textbook -ln e / sqrt(ln^2 e + pi^2) ignores the
 * clamp: e = 0.5 would rebound at 0.55); for Hertz the same ratio gives e approximately.
 * *stiffness = k_t (for the time-step check); *radius = the Hertz contact radius sqrt(R_eff delta)
 * (m; 0 for Hooke), which the Mindlin slide stiffness 8 G_eff a reuses. */
double penalty_normal_force(const PenaltySettings *set, const PenaltyPair *p, double delta, double vn, double R_eff,
                            double m_eff, double *stiffness, double *radius);
#endif
