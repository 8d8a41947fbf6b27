/* See bodies/wall_motion.h. The pose at tau = 0 is the scenario's bit for bit (nothing is
 * rotated or added), and a motion without rotation only adds its translation, so a wall that has
 * not started moving, and a box gate, sit exactly where the scenario puts them. */
#include "bodies/wall_motion.h"
#include "base/vec3.h"
#include <stdint.h>
#include <string.h>

double wall_motion_tau(const WallMotion *m, double t)
{
  const double c = t < m->start ? m->start : t > m->end ? m->end : t;
  return c - m->start;
}

/* The translation of the motion after tau s in motion. */
static void translation(const WallMotion *m, double tau, double d[3])
{
  const double s = m->frequency > 0 ? sin(2 * M_PI * m->frequency * tau) : 0;
  for (int k = 0; k < 3; k++) d[k] = m->velocity[k] * tau + m->amplitude[k] * s;
}

/* x = the motion's map (rotation R about the axis point, then translation d) of x0 */
static void map_point(const WallMotion *m, const double R[9], const double d[3], const double x0[3], double x[3])
{
  double r[3], Rr[3];
  if (m->omega != 0) {
    v3_sub(r, x0, m->axis_point);
    mat_vec(Rr, R, r);
    v3_add(x, m->axis_point, Rr);
  } else v3_copy(x, x0);
  v3_add(x, x, d);
}

static void rotation(const WallMotion *m, double tau, double R[9])
{
  double t[3];
  v3_scale(t, m->omega * tau, m->axis);
  rotation_of_vector(t, R);
}

void wall_motion_point(const WallMotion *m, double t, const double x0[3], double x[3])
{
  const double tau = wall_motion_tau(m, t);
  double       R[9], d[3];
  if (tau == 0) {
    v3_copy(x, x0);
    return;
  }
  rotation(m, tau, R);
  translation(m, tau, d);
  map_point(m, R, d, x0, x);
}

int wall_motion_stays_inside(const WallMotion *m, const double x0[3], double t_end, const double lo[3],
                             const double hi[3], double *t, double x[3])
{
  const int64_t nsample = (int64_t)fmin(1e6, fmax(1000.0, 40 * m->frequency * t_end));
  for (int64_t k = 0; k <= nsample; k++) {
    *t = t_end * (double)k / (double)nsample;
    wall_motion_point(m, *t, x0, x);
    for (int a = 0; a < 3; a++)
      if (!(x[a] >= lo[a] && x[a] <= hi[a])) return 0;
  }
  return 1;
}

void wall_pose_at(const Wall *w0, double t, double h, Wall *w)
{
  const WallMotion *m = &w0->motion;
  double            tau, R[9], d[3], rate[3], mid, tau_mid, tau_prev;

  memcpy(w, w0, sizeof(*w));
  if (!m->moving) return;
  tau = wall_motion_tau(m, t);
  v3_copy(w->pivot, m->axis_point);
  if (tau > 0) {
    rotation(m, tau, R);
    translation(m, tau, d);
    v3_add(w->pivot, m->axis_point, d); /* the axis travels with the translation, and the turn leaves it */
    map_point(m, R, d, w0->center, w->center);
    map_point(m, R, d, w0->point, w->point);
    if (m->omega != 0) {
      const double half  = 0.5 * m->omega * tau;
      const double dq[4] = {cos(half), sin(half) * m->axis[0], sin(half) * m->axis[1], sin(half) * m->axis[2]};
      mat_vec(w->normal, R, w0->normal);
      mat_vec(w->axis, R, w0->axis);
      quat_turn(w->quat, dq);
    }
  }
  /* the velocity field over the step [t, t + h], at its midpoint: v(x) = v_trans + omega axis x (x - axis(t)) */
  mid     = t + 0.5 * h;
  tau_mid = wall_motion_tau(m, mid);
  v3_set(w->velocity, 0, 0, 0);
  v3_set(w->omega, 0, 0, 0);
  if (mid >= m->start && mid < m->end) {
    double       axis_now[3], r[3], wr[3];
    const double c = m->frequency > 0 ? 2 * M_PI * m->frequency * cos(2 * M_PI * m->frequency * tau_mid) : 0;
    for (int k = 0; k < 3; k++) rate[k] = m->velocity[k] + m->amplitude[k] * c;
    v3_scale(w->omega, m->omega, m->axis);
    translation(m, tau_mid, d);
    v3_add(axis_now, m->axis_point, d);
    v3_sub(r, w->center, axis_now);
    v3_cross(wr, w->omega, r);
    v3_add(w->velocity, rate, wr);
  }
  tau_prev = wall_motion_tau(m, t - h);
  v3_scale(w->turn, m->omega * (tau - tau_prev), m->axis);
  /* every point within reach of the axis (the domain) moves at most |v| + 2 pi f |A| + |omega| (reach + |d|),
   * |d| <= |v| tau + |A|: integrated over tau */
  {
    const double v = v3_norm(m->velocity), a = v3_norm(m->amplitude), om = fabs(m->omega);
    w->travel = (v + 2 * M_PI * m->frequency * a + om * (m->reach + a)) * tau + 0.5 * om * v * tau * tau;
  }
}
