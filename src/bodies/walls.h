/* Fixed or prescribed-motion walls, replicated on every rank. */
#ifndef CCPDEM_BODIES_WALLS_H
#define CCPDEM_BODIES_WALLS_H

typedef enum {
  WALL_PLANE = 0,
  WALL_BOX   = 1,
  WALL_MESH  = 2
} WallType;

struct TriMesh; /* collision/trimesh.h */

typedef struct {
  WallType type;
  double   point[3], normal[3]; /* plane: a point on it and the unit outward normal (bodies live on +normal side) */
  double   center[3];           /* box: centre (moves with velocity) */
  double   half_extents[3];     /* box */
  double   quat[4];             /* box orientation (w, x, y, z), body -> world */
  double   velocity[3];         /* prescribed linear velocity (m/s); planes: 0 */
  int      material;            /* index into the scenario's materials */
  /* mesh: the triangles of file (scaled by scale) placed at center with orientation quat: world =
   * R(quat) reference + center. file: the path as the scenario resolved it, owned by the scenario;
   * mesh: loaded by step/ (step/wall_meshes.h) and owned there, NULL until then. */
  char                 *file;
  double                scale;
  const struct TriMesh *mesh;
} Wall;

/* Global id of wall k in contact keys: negative, so a wall is always body A of its contacts. */
static inline long long wall_global_id(int k) { return -1 - (long long)k; }
#endif
