/* Materials and the pair parameters two materials give a contact. */
#ifndef CCPDEM_SCENARIO_MATERIALS_H
#define CCPDEM_SCENARIO_MATERIALS_H

#define MATERIAL_NAME_MAX 64

typedef struct {
  char   name[MATERIAL_NAME_MAX];
  double density;            /* kg/m^3 */
  double friction;           /* sliding friction coefficient mu (-) */
  double rolling_friction;   /* rolling friction rho (m): resisting torque <= rho * normal force */
  double spinning_friction;  /* spinning friction sigma (m): |spin torque| <= sigma * normal force */
  double compliance;         /* contact compliance (m/N), 0 = rigid; makes each step strongly convex */
  double cohesion;           /* cohesion force (N): the normal force may pull down to -cohesion */
  double damping;            /* damping time alpha (s) of a compliant contact: dashpot R = alpha K */
  double yield_force;        /* yield force F_y (N) of an elasto-plastic contact, 0 = none (src/ccp/plasticity.h) */
  double rolling_compliance; /* C_r (rad/(N m)) of the rolling and spinning springs, 0 = rigid (src/ccp/law.h) */
  /* penalty model (contact.model penalty; Fang & Negrut's friction): */
  double young_modulus;        /* E (Pa) */
  double poisson_ratio;        /* nu (-) */
  double restitution;          /* coefficient of restitution e in (0, 1]: sets the normal damping */
  double kinetic_friction;     /* mu_k (-), <= friction (mu_s); the scenario defaults it to mu_s */
  double rolling_resistance;   /* eta_r (-), eq. 2b; the legacy rolling model's mu_r */
  double spinning_resistance;  /* eta_psi (-), eq. 3c */
  double tangential_stiffness; /* K_E (N/m); 0 = Hertz-Mindlin 8 G_eff sqrt(R_eff delta) */
} Material;

/* Parameters of one contact between materials a and b. Friction, rolling and spinning friction and
 * cohesion combine by the minimum (the weaker surface limits the pair); compliance by the sum
 * (springs in series); damping by the compliance-weighted mean of the damping times (Kelvin-Voigt
 * elements in series with equal times alpha are one with that alpha; otherwise this is the
 * first-order match at low frequency). The rolling compliance by the sum, as the compliance. The yield force by the
 * minimum of the materials that have one (the softer surface yields first; a material without one never yields), 0 if
 * neither has. */
typedef struct {
  double mu, rho, sigma, compliance, cohesion, damping, yield_force, rolling_compliance;
} PairParams;

static inline void material_pair(const Material *a, const Material *b, PairParams *p)
{
#define CCPDEM_MIN(x, y) ((x) < (y) ? (x) : (y))
  p->mu                 = CCPDEM_MIN(a->friction, b->friction);
  p->rho                = CCPDEM_MIN(a->rolling_friction, b->rolling_friction);
  p->sigma              = CCPDEM_MIN(a->spinning_friction, b->spinning_friction);
  p->cohesion           = CCPDEM_MIN(a->cohesion, b->cohesion);
  p->compliance         = a->compliance + b->compliance;
  p->rolling_compliance = a->rolling_compliance + b->rolling_compliance;
  p->damping     = p->compliance > 0 ? (a->compliance * a->damping + b->compliance * b->damping) / p->compliance : 0;
  p->yield_force = a->yield_force > 0 && b->yield_force > 0 ? CCPDEM_MIN(a->yield_force, b->yield_force)
                                                            : a->yield_force + b->yield_force;
#undef CCPDEM_MIN
}
#endif
