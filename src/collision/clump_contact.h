/* Contacts of clump bodies (bodies/clump.h) through their member spheres. A sphere body counts as a
 * clump of one member at its centre, a box or ellipsoid body as one member (itself: the box-sphere
 * kernel of collision/narrowphase.h, the ellipsoid-sphere one of collision/ellipsoid_contact.h, against
 * each member sphere of the other body). Each member pair (or member and wall) runs the sphere kernels of
 * collision/narrowphase.h with the members' world centres (pos + R(quat) offset, this step's pose); the point's offsets
 * from the bodies' centres of mass are the caller's (collision/detect.c), so both contact models see a clump as one
 * rigid body.
 *
 * Keys: point k of members (ma of A, mb of B) has sub clump_contact_sub(ma, mb, k); of member m
 * and a wall, clump_contact_sub(m, 0, k). Distinct per pair and the same from step to step while
 * the members touch, so the warm start and the penalty history find them; emitted in increasing
 * sub order, so a pair's contacts stay in key order. Not collective; nothing is allocated. */
#ifndef CCPDEM_COLLISION_CLUMP_CONTACT_H
#define CCPDEM_COLLISION_CLUMP_CONTACT_H
#include "bodies/body_store.h"
#include "bodies/clump.h"
#include "bodies/walls.h"
#include "collision/narrowphase.h"

static inline int32_t clump_contact_sub(int ma, int mb, int k)
{
  return ((int32_t)ma * CLUMP_MAX_MEMBERS + mb) * NARROW_MAX_POINTS + k;
}

/* Receives each point (normal from A, or the wall, to B) and its sub. */
typedef void (*ClumpPointFn)(void *ctx, const ContactPoint *pt, int32_t sub);

/* The most points bodies A and B give (the product of their member counts), and wall w and body B. */
int collision_clump_pair_max_points(const Clump *clumps, const BodyStore *s, PetscInt A, PetscInt B);
int collision_clump_wall_max_points(const Clump *clumps, const Wall *w, const BodyStore *s, PetscInt B);

/* The points of bodies A and B (storage indices; at least one a clump; not both boxes or ellipsoids) with gap
 * below envelope, to emit in sub order. */
void collision_clump_pair_points(const Clump *clumps, const BodyStore *s, PetscInt A, PetscInt B, double envelope,
                                 ClumpPointFn emit, void *ctx);
/* The points of wall w and clump body B with gap below envelope, to emit in sub order. */
void collision_clump_wall_points(const Clump *clumps, const Wall *w, const BodyStore *s, PetscInt B, double envelope,
                                 ClumpPointFn emit, void *ctx);
#endif
