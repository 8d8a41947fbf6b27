/* Contact-point tracking (paper sec. 2, App. B): from where the last step's contact frame and
 * contact point are now on each body, the new contact frame (continued from body A's), the spin
 * angle between the frames carried by A and by B, and how far the contact point moved over each
 * surface (p_A, p_B), as components on the new frame. */
#ifndef CCPDEM_PENALTY_TRACKING_H
#define CCPDEM_PENALTY_TRACKING_H
#include "penalty/history.h"

/* Where a body (or wall) is now and how it turned since the history was written (the last step):
 * centre x and the rotation R over that step (row-major, world; rotation_of_vector of h omega for
 * a body, the identity for a wall). */
typedef struct {
  double x[3], R[9];
} PenaltyPose;

typedef struct {
  double u[3], w[3]; /* the contact frame (n, u, w) of this step, right-handed, w = n x u */
  double pa[2];      /* p_A: motion of the contact point over A's surface this step, on (u, w) */
  double pb[2];      /* p_B: the same over B's surface */
  double psi;        /* spin angle (rad): rotation about n taking B's frame onto A's (sec. 2.2) */
} PenaltyTracking;

/* Track the contact with normal n (unit, A to B) at `point` (world) from the history prev (NULL or
 * not touching: onset, a fresh frame and no motion). */
void penalty_track(const PenaltyPose *A, const PenaltyPose *B, const double n[3], const double point[3],
                   const PenaltyHistory *prev, PenaltyTracking *t);

/* Record this step's frame and point (penalty/history.h; the counter-spin of sec. 3.1: B's copy of
 * the frame is A's, so the next spin angle measures only the next step's spin). */
void penalty_track_store(const PenaltyPose *A, const PenaltyPose *B, const double point[3], const PenaltyTracking *t,
                         PenaltyHistory *rec);
#endif
