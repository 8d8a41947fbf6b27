/* Collision detection for one step: broadphase + narrowphase over bodies and walls, producing the
 * active contact set (pairs with gap below the envelope) with normals, offsets and pair parameters,
 * sorted by key. Contact body indices are solver-body indices: bodies [0, nb) then walls. */
#ifndef CCPDEM_COLLISION_DETECT_H
#define CCPDEM_COLLISION_DETECT_H
#include "bodies/body_store.h"
#include "bodies/walls.h"
#include "bodies/clump.h"
#include "scenario/materials.h"
#include "contact/contact_set.h"
#include "collision/broadphase.h"

typedef struct {
  double          envelope;
  const Material *materials;
  const Wall     *walls;
  int             nwalls;
  const Clump    *clumps; /* the clump bodies' templates (bodies/clump.h); NULL when there are none */
} CollisionSettings;

/* Detect all contacts among bodies [0, nb) of s and between them and the walls. A body-body
 * contact is kept only where its body A (smaller id) is owned, a wall contact where its body is
 * owned: every contact belongs to exactly one rank. cs is cleared first. */
PetscErrorCode CollisionDetect(const CollisionSettings *set, const BodyStore *s, PetscInt nb, Broadphase *bp,
                               ContactSet *cs);
#endif
