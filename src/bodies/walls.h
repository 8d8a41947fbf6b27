/* Fixed or prescribed-motion walls, replicated on every rank.
 *
 * A wall's prescribed motion (WallMotion) makes its pose a pure function of time, so every rank
 * evaluates it alone (bodies/wall_motion.h) and a restart needs only the scenario and the time.
 * A box's older `velocity` key instead moves its centre by h v each step (integrator_move_walls),
 * and its centre is stored in checkpoints. */
#ifndef CCPDEM_BODIES_WALLS_H
#define CCPDEM_BODIES_WALLS_H

/* Wall kinds; the scenario's wall reader, the narrowphase (collision_wall_body_points) and the
 * penalty sides (penalty/side.h) switch on it. */
typedef enum {
  WALL_PLANE    = 0,
  WALL_BOX      = 1,
  WALL_CYLINDER = 2,
  WALL_MESH     = 3
} WallType;

struct TriMesh; /* collision/trimesh.h */

/* A prescribed motion, active for start <= t < end (before: the initial pose; after: the pose at
 * end). With tau = min(max(t, start), end) - start the motion moves every point x of the wall to
 *   axis_point + Rot(axis, omega tau) (x - axis_point) + velocity tau + amplitude sin(2 pi frequency tau):
 * a turn about the axis through axis_point, then the translation (the axis travels with it). */
typedef struct {
  int    moving;        /* 0: no motion (the other fields unused) */
  double velocity[3];   /* constant linear velocity (m/s) */
  double axis_point[3]; /* rotation: a point on the axis (m), the axis's unit direction */
  double axis[3];
  double omega;        /* angular speed about axis (rad/s, right-handed) */
  double amplitude[3]; /* oscillation: displacement amplitude (m) */
  double frequency;    /* Hz; 0: no oscillation */
  double start, end;   /* s; end INFINITY when the scenario gives none */
  double reach;        /* the largest distance from axis_point to a corner of the domain (m), for travel */
} WallMotion;

typedef struct {
  WallType   type;
  double     point[3], normal[3]; /* plane: a point on it and the unit outward normal (bodies live on +normal side) */
  double     center[3];       /* box: centre; plane: its point; cylinder: the axis point (the wall's reference point) */
  double     half_extents[3]; /* box */
  double     quat[4];         /* box and mesh orientation (w, x, y, z), body -> world */
  double     axis[3];         /* cylinder: unit axis direction */
  double     radius;          /* cylinder: radius (m) */
  double     half_length;     /* cylinder: half its length about the axis point (m); INFINITY: unbounded */
  int        inside;          /* cylinder: 1 bodies inside (a drum), 0 outside (a pillar) */
  double     velocity[3];     /* velocity of the reference point (m/s) over the next step; planes without motion: 0 */
  double     omega[3];        /* world angular velocity (rad/s) over the next step; 0 without motion */
  double     turn[3];         /* rotation vector of the wall over the last step (rad): 0 without motion */
  double     travel;          /* bound on how far any wall point within the domain moved since t = 0 (m) */
  double     pivot[3];        /* with a motion: its rotation axis point now (m), a turning mesh's torque point */
  int        material;        /* index into the scenario's materials */
  WallMotion motion;          /* prescribed motion; motion.moving 0: none */
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
