/* The time integrator of both contact models (GUIDE "Time step"): half-implicit symplectic Euler.
 * A body's free velocity M^-1 k = v + h M^-1 (f_ext + f_gyro) comes first (the gyroscopic torque
 * -w x (J w) taken explicitly in the body frame); the contact model adds its response (the CCP's
 * M^-1 D gamma, the penalty loads' h M^-1 F); then the centre moves by h v and the orientation by
 * the exponential map of h w. Inline: the models call these once per body in their hot loops. */
#ifndef CCPDEM_BODIES_INTEGRATOR_H
#define CCPDEM_BODIES_INTEGRATOR_H
#include "bodies/body_store.h"
#include "bodies/walls.h"
#include "base/vec3.h"

/* How the orientation follows the angular velocity: the exponential map evaluated with sincos
 * (quat_integrate_world), or by its series for small angles (quat_integrate_world_series: the same
 * rotation to rounding, faster; the penalty model's many small steps take it). */
typedef enum {
  ORIENTATION_EXACT,
  ORIENTATION_SERIES
} OrientationMap;

/* Body i's free linear velocity v + h g. */
static inline void integrator_free_linear(const BodyStore *s, PetscInt i, const double g[3], double h,
                                          double vel_free[3])
{
  for (int k = 0; k < 3; k++) vel_free[k] = s->vel[6 * i + k] + h * g[k];
}

/* Body i, whose orientation matrix is R: its world inverse inertia (xx, yy, zz, xy, xz, yz), and its
 * free velocity M^-1 k with the angular part converted to the world frame. A moment equal to the
 * one before it takes that one's inverse: the same bits, and a sphere pays one division, not three. */
static inline void integrator_free_velocity(const BodyStore *s, PetscInt i, const double R[9], const double g[3],
                                            double h, double inv_inertia[6], double vel_free[6])
{
  const double *J = s->inertia + 3 * i, *wb = s->vel + 6 * i + 3;
  double        Jinv[3], Jw[3], gyro[3], wnew[3];
  Jinv[0] = 1 / J[0];
  Jinv[1] = J[1] == J[0] ? Jinv[0] : 1 / J[1];
  Jinv[2] = J[2] == J[1] ? Jinv[1] : 1 / J[2];
  sym_rotate_diag(inv_inertia, R, Jinv);
  integrator_free_linear(s, i, g, h, vel_free);
  v3_set(Jw, J[0] * wb[0], J[1] * wb[1], J[2] * wb[2]);
  v3_cross(gyro, wb, Jw);
  for (int k = 0; k < 3; k++) wnew[k] = wb[k] - h * Jinv[k] * gyro[k];
  mat_vec(vel_free + 3, R, wnew);
}

/* Body i (orientation matrix R, of its orientation before the step) takes the step's world
 * velocity vs (linear, angular): its stored velocity (angular in its own frame), its centre and its
 * orientation move on. */
static inline void integrator_move_body(BodyStore *s, PetscInt i, const double R[9], const double vs[6], double h,
                                        OrientationMap map)
{
  double *v = s->vel + 6 * i, *x = s->pos + 3 * i;
  for (int k = 0; k < 3; k++) v[k] = vs[k];
  mat_tvec(v + 3, R, vs + 3);
  v3_axpy(x, h, v);
  if (map == ORIENTATION_SERIES) quat_integrate_world_series(s->quat + 4 * i, vs + 3, h);
  else quat_integrate_world(s->quat + 4 * i, vs + 3, h);
}

/* Body i's centre and orientation moved on by h times the world velocity ws (linear, angular), its
 * stored velocity untouched: a pseudo-velocity's displacement (ccp/overlap_correction.h). */
static inline void integrator_move_pose(BodyStore *s, PetscInt i, const double ws[6], double h)
{
  v3_axpy(s->pos + 3 * i, h, ws);
  quat_integrate_world(s->quat + 4 * i, ws + 3, h);
}

/* The box walls with a prescribed velocity and no motion (bodies/walls.h) move by h times it; walls
 * with a motion take their pose at the new time from bodies/wall_motion.h instead. */
static inline void integrator_move_walls(Wall *walls, int n, double h)
{
  for (int k = 0; k < n; k++)
    if (walls[k].type == WALL_BOX && !walls[k].motion.moving) v3_axpy(walls[k].center, h, walls[k].velocity);
}
#endif
