/* Fixed or prescribed-motion walls, replicated on every rank. */
#ifndef CCPDEM_BODIES_WALLS_H
#define CCPDEM_BODIES_WALLS_H

typedef enum {
  WALL_PLANE = 0,
  WALL_BOX   = 1
} WallType;

typedef struct {
  WallType type;
  double   point[3], normal[3]; /* plane: a point on it and the unit outward normal (bodies live on +normal side) */
  double   center[3];           /* box: centre (moves with velocity) */
  double   half_extents[3];     /* box */
  double   quat[4];             /* box orientation (w, x, y, z), body -> world */
  double   velocity[3];         /* prescribed linear velocity (m/s); planes: 0 */
  int      material;            /* index into the scenario's materials */
} Wall;

/* Global id of wall k in contact keys: negative, so a wall is always body A of its contacts. */
static inline long long wall_global_id(int k) { return -1 - (long long)k; }
#endif
