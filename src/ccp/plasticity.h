/* Elasto-plastic contacts (slides sec. 3, "Modeling plasticity"): a compliant contact whose normal
 * reaction is bounded by a yield force F_y, with a plastic displacement delta_p kept per contact.
 *
 * Model (normal direction only; friction, rolling and spinning are the cone's as before):
 *   overlap delta = -phi, split into elastic and plastic parts, delta = delta_e + delta_p;
 *   force F = K delta_e (+ the dashpot, ccp/law.h) in 0 <= F <= F_y (the yield surface);
 *   associative flow: delta_p grows only while F = F_y, and never shrinks.
 * In the CCP step this is (a) the elastic gap phi + delta_p in the compliant row (ccp/law.h),
 * (b) the box 0 <= gamma_n <= F_y h on the normal row, i.e. the cone capped at gamma_n <= F_y h
 * (cone_cap, exact), and (c) after the solve the return map of the plastic displacement:
 *     delta_p <- max(delta_p, delta_new - F_y C),   delta_new = -(phi + h u_n)
 * with u_n the solved normal velocity and C = 1/K the pair's compliance: the spring may not stretch
 * beyond F_y / K. With gamma_n < F_y h the row holds h u_n + phi + delta_p + C gamma_n / h = 0
 * (alpha = 0), so delta_new - delta_p < F_y C and nothing changes; at the cap it gives
 * delta_new - delta_p >= F_y C and the update makes the spring carry exactly F_y. (With a dashpot,
 * alpha > 0, the spring-only return map ignores the dashpot's share of F_y during the flow: the
 * plastic displacement is then low by at most alpha u_n while yielding, 0 at rest.)
 * Rigid (C = 0) and yielding is rigid-perfectly-plastic: delta_p follows the overlap beyond F_y.
 *
 * delta_p lives in Contact.plastic, travels in the ImpulseMemory (keyed by the body-id pair, like
 * the warm-start impulses, so it survives migration and checkpoints), and is dropped when the
 * contact leaves the active set (the bodies separate beyond the envelope), as a per-contact
 * history in LAMMPS is. */
#ifndef CCPDEM_CCP_PLASTICITY_H
#define CCPDEM_CCP_PLASTICITY_H
#include "ccp/pairs.h"

/* After the solve (P->vel solved): update Contact.plastic of every contact whose pair (cp; its
 * step h) has a yield force. Reads phi, bn, compliance, yield_force, plastic; writes plastic.
 * Not collective. */
void PlasticityUpdate(const CCPProblem *P, const ContactPairs *cp);
#endif
