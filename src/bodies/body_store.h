/* The body store: struct of arrays, owned bodies in [0, n_owned), ghosts in [n_owned, n_owned + n_ghost).
 *
 * Every body carries a 64-bit global id that never changes (creation order), so results do not
 * depend on storage order or rank count. The field list is one X-macro, so growing, permuting and
 * (later) packing for migration cannot drift from the fields. Velocities are 6 per body: linear in
 * the world frame (0-2), angular in the BODY frame (3-5), as in the papers. */
#ifndef CCPDEM_BODIES_BODY_STORE_H
#define CCPDEM_BODIES_BODY_STORE_H
#include <petscsys.h>
#include <stdint.h>
#include "bodies/shapes.h"

/* X(type, name, components per body) */
#define BODY_FIELDS(X) \
  X(int64_t, id, 1)       /* global id */ \
  X(double, pos, 3)       /* centre of mass, world (m) */ \
  X(double, quat, 4)      /* orientation (w, x, y, z), body -> world */ \
  X(double, vel, 6)       /* linear world (m/s), angular body frame (rad/s) */ \
  X(double, mass, 1)      /* kg */ \
  X(double, inertia, 3)   /* principal moments, body frame (kg m^2) */ \
  X(int32_t, shape, 1)    /* ShapeKind */ \
  X(double, size, 3)      /* sphere: radius in [0]; box: half extents */ \
  X(double, radius, 1)    /* bounding radius (m) */ \
  X(int32_t, material, 1) /* index into the scenario's materials */

typedef struct {
  PetscInt n_owned, n_ghost, capacity;
#define BODY_FIELD_DECL(type, name, width) type *name;
  BODY_FIELDS(BODY_FIELD_DECL)
#undef BODY_FIELD_DECL
} BodyStore;

/* One body as a plain record, for creating bodies and moving them between stores. */
typedef struct {
#define BODY_RECORD_DECL(type, name, width) type name[width];
  BODY_FIELDS(BODY_RECORD_DECL)
#undef BODY_RECORD_DECL
} BodyRecord;

PetscErrorCode BodyStoreCreate(BodyStore *s);
PetscErrorCode BodyStoreDestroy(BodyStore *s);
/* Make room for at least n bodies in total (owned + ghost); keeps contents. */
PetscErrorCode BodyStoreReserve(BodyStore *s, PetscInt n);
/* Append an owned body. Precondition: no ghosts (n_ghost == 0). */
PetscErrorCode BodyStoreAppendOwned(BodyStore *s, const BodyRecord *b);
void           BodyStoreGet(const BodyStore *s, PetscInt i, BodyRecord *b);
void           BodyStoreSet(BodyStore *s, PetscInt i, const BodyRecord *b);
/* Reorder the first n bodies: new slot k receives old body order[k]. */
PetscErrorCode BodyStorePermute(BodyStore *s, PetscInt n, const PetscInt *order);
/* Remove owned body i (swap with the last owned one). Precondition: no ghosts. */
void BodyStoreRemoveOwned(BodyStore *s, PetscInt i);
#endif
