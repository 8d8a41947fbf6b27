/* Spatial (Morton, Z-order) ordering of owned bodies, so that bodies near in space are near in
 * memory: the contact sweeps then read body data with cache locality at any N. */
#ifndef CCPDEM_BODIES_SPATIAL_ORDER_H
#define CCPDEM_BODIES_SPATIAL_ORDER_H
#include "bodies/body_store.h"

/* Reorder the owned bodies [0, n_owned) of s by the Morton code of their centre in the box
 * [lo, hi] (ties by id, so the order is deterministic). Precondition: no ghosts. */
PetscErrorCode BodyStoreSortSpatially(BodyStore *s, const double lo[3], const double hi[3]);
#endif
