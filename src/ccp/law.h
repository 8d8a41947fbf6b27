/* The per-step terms of a contact's normal law that the CCP sees (GUIDE "Time step" step 3 and
 * "When the exact CCP is ill-posed"; slides sec. 3 "Damping and VI"): the stabilization b_n and the
 * Tikhonov diagonal c of the force rows, in  g_n = D_n^T v + b_n + c gamma_n.
 *
 * Rigid (compliance 0): b_n = phi / h, and for an overlap max(min(phi + delta, 0) / h, -v_recover),
 * c = 0: an overlap no deeper than the overlap tolerance delta is held (u_n >= 0) rather than pushed
 * apart, a deeper one is pushed back to depth delta. Why: with delta = 0 a jammed pack whose
 * contacts overlap asks every contact to separate at once, which often has no solution (GUIDE
 * "When the exact CCP is ill-posed"); with delta above the overlaps the solver leaves behind,
 * v = 0 is feasible for every held contact, so a pile at rest is a solution and steps converge.
 *
 * Compliant, overlapping (compliance C = 1/K > 0, phi < 0): a Kelvin-Voigt spring-dashpot taken
 * implicitly over the step, F = K (-phi_new) - R u_new with phi_new = phi + h u_new and
 * R = alpha K (alpha = the pair's `damping`, s: stiffness-proportional damping, the slides'
 * E = -(h^2 K + h R)). Solving gamma = h F for u_new gives the row
 *     u_new + phi / (h + alpha) + C / (h (h + alpha)) gamma >= 0  (complementary to gamma >= 0),
 * so b_n = phi / (h + alpha), c = C / (h (h + alpha)); alpha = 0 is the plain Tikhonov N + C with
 * C / h^2. At rest (u = 0) the row gives gamma / h = -phi / C: the static deflection is F / K
 * whatever alpha and h. No recovery clamp here: the deflection is the spring's, not an error to
 * be removed, and the spring itself bounds the separation speed.
 * Plastic (ccp/plasticity.h): everything above acts on the elastic gap phi + plastic, the gap to the
 * dented surface, not to the original one.
 * Split (contact.overlap_correction position): a rigid overlap is held, b_n = max(phi, 0) / h = 0, and
 * removed by a pass of its own that moves positions only (ccp/overlap_correction.h), so it never feeds
 * the velocities. Why: then every rigid b_n >= 0 and each step's problem is bounded below. Proof: on
 * a direction d of the reaction cones with N d = 0 (D d = 0 on every movable body), r^T d = b^T d +
 * (the walls' velocities)^T D d = sum b_n d_n >= 0 (b_n >= 0, d_n >= 0 in the cones; walls at rest or not
 * closing in), so no impulse loop lowers the objective without end (compliant rows: C > 0 bounds them).
 * Compliant with a gap (phi >= 0): phi / h and C / h^2 (no dashpot before touching: phi / (h + alpha)
 * would push bodies apart before they meet).
 * Rolling springs (the pair's rolling_compliance C_r, rad/(N m); 6-dof contacts): an elastic-perfectly-
 * plastic torsion spring on the torque rows, elastic angle theta = C_r T, so that its state is the last
 * step's torque impulse gamma_prev. With theta_new = theta + h w_new and theta = C_r gamma_prev / h the
 * torque rows read  w_new + c_roll gamma + b_rot  (complementary to the rolling cone), c_roll = C_r / h^2,
 * b_rot = -c_roll gamma_prev: a stuck row turns by -C_r (T - T_prev), at rest not at all (a Tikhonov term
 * alone, b_rot = 0, would creep at C_r T / h); at the cone's edge the row slides (plastic). contact_law_terms
 * gives c_roll; b_rot comes from the problem's torque_prev (ccp_problem_terms). */
#ifndef CCPDEM_CCP_LAW_H
#define CCPDEM_CCP_LAW_H
#include "ccp/problem.h"
#include "scenario/materials.h"

/* The push-apart term of a rigid elastic gap phi < 0: max(min(phi + delta, 0) / h, -v_recover), delta the
 * overlap tolerance (0 or negative: the overlap is held or pushed apart, never pulled in). */
static inline double contact_law_recovery(double phi, double h, double v_recover, double overlap_tolerance)
{
  const double held = phi + overlap_tolerance < 0 ? phi + overlap_tolerance : 0; /* the part pushed apart */
  return held / h > -v_recover ? held / h : -v_recover;
}

/* bn and c_lin of contact c whose pair has parameters pp (its compliance and damping); split: the
 * velocity problem of contact.overlap_correction position (rigid overlaps held, bn = 0). */
static inline void contact_law_normal(const Contact *c, const PairParams *pp, double h, double v_recover,
                                      double overlap_tolerance, PetscBool split, double *bn, double *c_lin)
{
  const double phi = c->phi + c->plastic; /* the elastic gap */
  if (pp->compliance > 0 && phi < 0) {
    const double tau = h + pp->damping;
    *bn              = phi / tau;
    *c_lin           = pp->compliance / (h * tau);
  } else if (phi < 0 && pp->compliance == 0) {
    *bn    = split ? 0 : contact_law_recovery(phi, h, v_recover, overlap_tolerance);
    *c_lin = 0;
  } else {
    *bn    = phi / h;
    *c_lin = pp->compliance / (h * h);
  }
}

/* All the CCP's terms of contact c over the step h (eta, the solve's, not set): the normal law's,
 * and the pair's cohesion and yield forces as impulses. */
static inline void contact_law_terms(const Contact *c, const PairParams *pp, double h, double v_recover,
                                     double overlap_tolerance, PetscBool split, CCPContactTerms *t)
{
  contact_law_normal(c, pp, h, v_recover, overlap_tolerance, split, &t->bn, &t->c_lin);
  t->cohesion_impulse = pp->cohesion * h;
  t->yield_impulse    = pp->yield_force * h;
  t->c_roll           = pp->rolling_compliance / (h * h);
  t->b_rot[0] = t->b_rot[1] = t->b_rot[2] = 0; /* the last step's torques: ccp_problem_terms */
}
#endif
