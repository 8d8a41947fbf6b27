/* Verlet neighbour list for collision detection: candidate pairs (body-body and wall-body) within
 * envelope + skin, found by the broadphase and kept in contact-key order, reused while no body or
 * wall has moved more than skin / 2 since the list was built and the storage layout (the ids of
 * bodies [0, nb), owned count, walls) is the one the list was built on. Each step runs the same
 * narrowphase on the candidates in key order: the contacts are bit-identical to CollisionDetect's,
 * in the same (key) order, because every pair within the envelope is a candidate and the
 * narrowphase alone decides; only the broadphase, the staging and the key sort are saved.
 *
 * The rebuild decision is local to each rank and needs no collective: it only chooses which
 * superset of the contacting pairs is searched, never the contacts; ghosts are checked like owned
 * bodies (their positions are this step's), and a ghost that joins or leaves changes the ids. */
#ifndef CCPDEM_COLLISION_NEIGHBOUR_LIST_H
#define CCPDEM_COLLISION_NEIGHBOUR_LIST_H
#include "collision/detect.h"

typedef struct {
  ContactKey key;  /* (id A, id B, 0); first, for the key sort */
  int32_t    a, b; /* solver indices: A a body or a wall (nb + k), B a body */
} NeighbourPair;

typedef struct {
  double         skin;   /* m; 0: rebuilt every step */
  PetscInt       n, cap; /* candidates, in key order */
  NeighbourPair *pair;
  PetscInt       max_points;  /* contact points the candidates can give at most */
  PetscInt       nb, n_owned; /* the layout at the build; nb < 0: not built */
  int            nwalls;
  double         envelope;
  size_t         body_cap;
  int64_t       *id;          /* ids of bodies [0, nb) at the build */
  double        *x0;          /* their centres at the build (3 each), then the walls' centres */
  double        *wall_travel; /* the walls' travel at the build (bodies/walls.h), nwalls of them */
  PetscInt64     builds, steps;
} NeighbourList;

PetscErrorCode NeighbourListCreate(NeighbourList *nl, double skin);
PetscErrorCode NeighbourListDestroy(NeighbourList *nl);
/* As CollisionDetect (same contacts, same order, bit for bit), from the list; rebuilds it first
 * when needed (bp is the broadphase workspace of the rebuild). */
PetscErrorCode CollisionDetectListed(const CollisionSettings *set, const BodyStore *s, PetscInt nb, Broadphase *bp,
                                     NeighbourList *nl, ContactSet *cs);
/* Of CollisionDetectListed's contacts those that touch (gap below 0; keys, point indices and order
 * as there), with only their geometry: a, b, n, rb and phi as it gives them, the record's first
 * cache line (contact/contact_set.h), every other field
 * left unwritten (no ra or sub, no tangent frame, no pair parameters, no fields of the time step). For the
 * penalty model, which reads nothing else (it keeps its own frame and pair constants; the point
 * index is the key's): a tangent frame is a square root and a division per contact, and each
 * further line of the 256-byte record written costs a line read for ownership. Sphere - sphere and
 * plane - sphere pairs take an inline path (no staging), with the same bits. A pair in the envelope
 * but apart is left out: the penalty model gives it neither load nor history; so the list it keeps
 * holds the pairs within the skin alone (a list built for the envelope's contacts is rebuilt). */
PetscErrorCode CollisionDetectListedGeometry(const CollisionSettings *set, const BodyStore *s, PetscInt nb,
                                             Broadphase *bp, NeighbourList *nl, ContactSet *cs);
#endif
