/* Joints: bilateral constraints, bounded friction rows and prescribed motion as joint blocks of
 * the CCP (GUIDE "Contacts": bilateral rows unbounded, box rows clamped to [-S h, S h]).
 *
 * Each joint is one block of six rows in a frame (n, u, w): three on the relative velocity of an
 * anchor point (B's anchor relative to the point of A at the same place) and three on the
 * relative angular velocity, exactly the Jacobian of a 6-dof contact (ccp/kernels.h), so every
 * solver, packed or not, runs joints with the contacts; only the projection differs (the clamp
 * into each row's box, contact/contact_set.h RowBox) and the stabilization b of all six rows.
 *
 *   type       linear rows (n, u, w)                    angular rows (n, u, w)
 *   fixed      bilateral, world axes                     bilateral
 *   spherical  bilateral, world axes                     free
 *   revolute   bilateral, n = axis                       n free; u, w bilateral (axis kept)
 *   prismatic  n = axis: free, or friction |g| <= S h;   bilateral
 *              u, w bilateral
 *   distance   n = along the anchors: bilateral; u, w free   free
 *   motion     bilateral, world axes, to the prescribed  bilateral to angular_velocity if given,
 *              position x(t + h)                         else free
 *
 * Stabilization (Baumgarte-like with factor 1, as the contacts' phi/h): b = e . (error) / h, so
 * the linearized error vanishes after the step. The position error of the anchors also carries
 * the second-order drift of the exponential map, (Rot(h w) - I - h [w]x) r for each body's lever
 * r, taken with the bodies' current angular velocities: rotating by h w moves an anchor along an
 * arc, not along the tangent the rows see, by ~h^2 w^2 |r| / 2 (5e-6 m per step for a 1 m
 * pendulum at 3 rad/s and h = 1 ms); predicted, the remaining error is O(h^3) (it is not when a
 * step changes the angular velocity abruptly, e.g. a start whose velocities violate the joint).
 * The distance joint also predicts the lengthening h^2 s^2 / (2 |d|) by the anchors' relative
 * velocity s across the line. Angular errors are
 * rotation vectors: 2 vec(q_B (q_A q0)^-1) for fixed and prismatic, a_A x a_B for the revolute
 * axis.
 *
 * Prescribed motion: x(t) = x0 + velocity t + amplitude (1 - cos(2 pi f t)) / (2 pi f), the
 * integral of v(t) = velocity + amplitude sin(2 pi f t) from the body's position x0 in the
 * scenario; the rows ask for x(t + h) after the step, so the motion follows the position, not a
 * drifting sum of velocities. With `until`, the motion releases the body at that time: from the
 * first step starting at t >= until the joint has no block, and the body moves freely from the
 * state the motion left it in.
 *
 * Bodies are the scenario's explicit bodies (global id = index in `bodies:`); anchors and axes
 * are kept in the bodies' frames from their poses in the scenario (time 0), so a restart needs no
 * joint state: the warm-start impulses travel with the contacts' (keys with ida = JOINT_KEY_BASE
 * + joint index, idb = B's id, sub 0). The ground is one extra immovable solver body at rest at
 * the origin.
 *
 * Several ranks: joint j is computed by the rank that owns B (body_b; never the ground), which
 * holds A as a ghost however far it is (JointsBond names the pairs to ghost together); A's share
 * of the impulse reaches A's owner through the ghost like a
 * contact's. The warm-start key names B (idb), and a key with ida < 0 travels with its idb body
 * (decomp/impulse_routing.h), so the joint's memory follows its computing rank through
 * migration, load balancing and restart with no extra code. */
#ifndef CCPDEM_JOINTS_JOINTS_H
#define CCPDEM_JOINTS_JOINTS_H
#include "scenario/scenario.h"
#include "bodies/body_store.h"
#include "contact/contact_set.h"

#define JOINT_KEY_BASE INT64_MIN /* joint j's warm-start key: ida = JOINT_KEY_BASE + j (below every wall) */

typedef struct {
  double pa[3], pb[3];   /* anchors in A's and B's body frames (A ground: world) */
  double axa[3], axb[3]; /* axis in A's and B's frames (revolute, prismatic) */
  double q0[4];          /* relative orientation q_A^-1 q_B at time 0 */
  double length;         /* distance joint: anchor distance at time 0 */
  double x0[3];          /* motion: B's position at time 0 */
} JointFrame;

typedef struct {
  PetscInt         n;
  const JointSpec *spec;     /* the scenario's (the simulation owns it) */
  JointFrame      *frame;    /* per joint */
  RowBox          *rows;     /* this step's rows, per joint (contacts point here) */
  PetscInt        *index;    /* storage index of each explicit body this step (-1: gone) */
  int              nbodies;  /* explicit bodies of the scenario */
  PetscInt         active;   /* joint blocks appended on this rank this step (released motions have none) */
  int             *computed; /* per joint: how many ranks compute it this step (scratch) */
} Joints;

/* From the scenario's joints (none: n = 0 and nothing allocated). */
PetscErrorCode JointsCreate(const Scenario *sc, Joints *J);
PetscErrorCode JointsDestroy(Joints *J);
/* Whether joint j joins two bodies (not the ground); then *guest is A's id and *host B's: the rank
 * that owns B computes the joint and must hold A, however far it is (the placement ghosts the
 * pair: decomp/ghost_bonds.h). Not collective. */
PetscBool JointsBond(const Joints *J, PetscInt j, int64_t *guest, int64_t *host);
/* Append this rank's joint blocks of this step (time t, step h) to cs and sort it by key: those
 * whose B this rank owns (store: owned bodies, then ghosts). ground: the solver index of the
 * ground body (bodies, walls, then it). Collective on comm (one Allreduce of n ints): fails on
 * every rank, naming the joint, if a joined body has left the domain. */
PetscErrorCode JointsAppend(Joints *J, MPI_Comm comm, const BodyStore *s, PetscInt ground, double t, double h,
                            ContactSet *cs);
/* The ground's solver body (CCPBodyFn's outputs): immovable and at rest. */
void JointsGround(double *inv_mass, double inv_inertia[6], double vel_free[6]);
#endif
