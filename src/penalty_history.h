/* The friction history of one penalty contact (paper sec. 2-3): what the contact-point tracking
 * of the next step starts from. Kept per contact key (id A, id B, sub) in an ImpulseMemory of
 * width PENALTY_HISTORY_WIDTH (src/contacts.h), so migration (decomp/impulse_routing.c) and
 * checkpoints (io/checkpoint.c) carry it as they carry the CCP's impulses.
 *
 * Vectors in the tangent plane (micro-deflections) are stored as components on the contact frame
 * (u, w) of the step that wrote them: the next step's frame is the continuation of that one (App.
 * B), so the same components on the new frame carry the deflection along with the contact. The
 * frame and the contact point are stored in world coordinates as of the step that wrote them (the
 * point as its arm from each body's centre): at the next step each body's rotation over that step
 * and its centre's new place carry them along as the body moved, the "painted cross and dot" of
 * sec. 2.1 (penalty_tracking.h). B's copy of the frame is A's (the counter-spin of sec. 3.1), so
 * one frame serves both. */
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
  double frame[6];       /* u then w of the contact frame (world) */
  double arm_a[3];       /* the contact point minus A's centre (world) */
  double arm_b[3];       /* the contact point minus B's centre (world) */
} PenaltyHistory;

#define PENALTY_HISTORY_WIDTH ((PetscInt)(sizeof(PenaltyHistory) / sizeof(double)))
_Static_assert(sizeof(PenaltyHistory) == 24 * sizeof(double), "PenaltyHistory must be an array of doubles without padding");

enum { PENALTY_STICK = 0, PENALTY_SLIP = 1 };
#endif
