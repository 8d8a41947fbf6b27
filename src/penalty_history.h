/* The friction history of one penalty contact (paper sec. 2-3): what the contact-point tracking
 * of the next step starts from. Kept per contact key (id A, id B, sub) in an ImpulseMemory of
 * width PENALTY_HISTORY_WIDTH (src/contacts.h), so migration (decomp/impulse_routing.c) and
 * checkpoints (io/checkpoint.c) carry it as they carry the CCP's impulses.
 *
 * Vectors in the tangent plane (micro-deflections) are stored as components on the contact frame
 * (u, w) of the step that wrote them: the next step's frame is the continuation of that one (App.
 * B), so the same components on the new frame carry the deflection along with the contact. The
 * frame and the contact point are stored in each body's own frame (body coordinates relative to
 * its centre of mass; a wall's relative to its centre with its orientation), so that at the next
 * step they come back in the world as the bodies moved: the "painted cross and dot" of sec. 2.1. */
#ifndef CCPDEM_PENALTY_HISTORY_H
#define CCPDEM_PENALTY_HISTORY_H
#include "contacts.h"

typedef struct {
  double touching;       /* 1: the pair touched (gap < 0) when written; 0: no history (onset next time) */
  double slide[2];       /* S: slide micro-deflection on (u, w) (m), eq. 1a */
  double roll_a[2];      /* Theta_A: roll micro-deflection of body A on (u, w) (rad), eq. 2 */
  double roll_b[2];      /* Theta_B: the same for body B */
  double spin;           /* Psi: spin micro-deflection (rad), eq. 3 */
  double slide_mode;     /* 0 stick (static), 1 slip (kinetic) */
  double roll_mode_a, roll_mode_b, spin_mode;
  double frame_a[6];     /* u then w of the contact frame in A's body coordinates */
  double frame_b[6];     /* the same in B's body coordinates (aligned to A's by the counter-spin) */
  double point_a[3];     /* the contact point in A's body coordinates */
  double point_b[3];     /* the contact point in B's body coordinates */
} PenaltyHistory;

#define PENALTY_HISTORY_WIDTH ((PetscInt)(sizeof(PenaltyHistory) / sizeof(double)))
_Static_assert(sizeof(PenaltyHistory) == 30 * sizeof(double), "PenaltyHistory must be an array of doubles without padding");

enum { PENALTY_STICK = 0, PENALTY_SLIP = 1 };
#endif
