/* The friction history of one penalty contact (paper sec. 2-3): what the contact-point tracking
 * of the next step starts from. Kept per contact key (id A, id B, sub) in an ImpulseMemory of
 * width PENALTY_HISTORY_WIDTH (src/contact/contact_set.h), so migration (decomp/impulse_routing.c) and
 * checkpoints (io/checkpoint.c) carry it as they carry the CCP's impulses.
 *
 * Vectors in the tangent plane (micro-deflections) are stored as components on the contact frame
 * (u, w) of the step that wrote them: the next step's frame is the continuation of that one (App.
 * B), so the same components on the new frame carry the deflection along with the contact. The
 * frame and the contact point are stored in world coordinates as of the step that wrote them (the
 * point as its arm from each body's centre): at the next step each body's rotation over that step
 * and its centre's new place carry them along as the body moved, the "painted cross and dot" of
 * sec. 2.1 (penalty/tracking.h). B's copy of the frame is A's (the counter-spin of sec. 3.1), so
 * one frame serves both. */
#ifndef CCPDEM_PENALTY_HISTORY_H
#define CCPDEM_PENALTY_HISTORY_H
#include "contact/contact_set.h"

typedef struct {
  double state;     /* PenaltyState flags: touching and which deflections slip (an integer 0..31, exact as a double) */
  double slide[2];  /* S: slide micro-deflection on (u, w) (m), eq. 1a */
  double roll_a[2]; /* Theta_A: roll micro-deflection of body A on (u, w) (rad), eq. 2 */
  double roll_b[2]; /* Theta_B: the same for body B */
  double spin;      /* Psi: spin micro-deflection (rad), eq. 3 */
  double frame[6];  /* u then w of the contact frame (world) */
  double arm_a[3];  /* the contact point minus A's centre (world) */
  double arm_b[3];  /* the contact point minus B's centre (world) */
} PenaltyHistory;

/* 20 doubles, 160 bytes: every step reads and writes each contact's record, so the record's size
 * is the model's memory traffic (the flags in one double instead of five saved a sixth of it). */
#define PENALTY_HISTORY_WIDTH ((PetscInt)(sizeof(PenaltyHistory) / sizeof(double)))
_Static_assert(sizeof(PenaltyHistory) == 20 * sizeof(double),
               "PenaltyHistory must be an array of doubles without padding");

/* A deflection's mode: stick (static threshold) or slip (kinetic), as the stick/slip update takes it. */
enum {
  PENALTY_STICK = 0,
  PENALTY_SLIP  = 1
};

/* The bits of PenaltyHistory.state. A record of zeros: no history (onset next time), all sticking. */
typedef enum {
  PENALTY_TOUCHING    = 1, /* the pair touched (gap < 0) when the record was written */
  PENALTY_SLIDE_SLIP  = 2, /* the slide deflection slips */
  PENALTY_ROLL_A_SLIP = 4, /* A's roll deflection slips */
  PENALTY_ROLL_B_SLIP = 8, /* B's */
  PENALTY_SPIN_SLIP   = 16 /* the spin deflection slips */
} PenaltyState;

static inline int penalty_state_has(const PenaltyHistory *h, PenaltyState bit)
{
  return ((unsigned)h->state & bit) != 0;
}
static inline void penalty_state_put(PenaltyHistory *h, PenaltyState bit, int on)
{
  h->state = (double)(on ? (unsigned)h->state | bit : (unsigned)h->state & ~(unsigned)bit);
}
/* The mode of the deflection whose slip bit is `bit`, and back. */
static inline double penalty_mode(const PenaltyHistory *h, PenaltyState bit)
{
  return penalty_state_has(h, bit) ? PENALTY_SLIP : PENALTY_STICK;
}
static inline void penalty_set_mode(PenaltyHistory *h, PenaltyState bit, double mode)
{
  penalty_state_put(h, bit, mode == PENALTY_SLIP);
}
#endif
