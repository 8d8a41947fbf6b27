/* See penalty/tracking.h. */
#include "penalty/tracking.h"
#include "base/vec3.h"

/* App. B: the unit u (and w = n x u) in the plane normal to n maximizing a.u + b.w, a and b the
 * old frame's axes as the body carried them. Since b.(n x u) = u.(b x n), the maximizer is the
 * direction of the in-plane part of a + b x n (the closed form of the paper's theta*). A frame
 * turned edge-on to the plane (a degenerate step) restarts from the fixed tangents of n. */
static void continue_frame(const double n[3], const double a[3], const double b[3], double u[3], double w[3])
{
  double v[3], len;
  v3_cross(v, b, n);
  v3_add(v, v, a);
  v3_axpy(v, -v3_dot(v, n), n);
  len = v3_norm(v);
  if (len < 1e-9) {
    v3_tangents(n, u, w);
    return;
  }
  v3_scale(u, 1.0 / len, v);
  v3_cross(w, n, u);
}

/* The motion of the contact point over one body's surface: from where the old contact point is now
 * (c0, carried by the body) to the new one (c1), in the tangent plane. The paper's C-bar projection
 * keeps the arc length; to first order in the step the arc is its tangential chord, which is what
 * is used here (the normal part of c1 - c0 is the change of overlap, not motion over the surface). */
static void surface_motion(const double c0[3], const double c1[3], const double u[3], const double w[3], double p[2])
{
  double d[3];
  v3_sub(d, c1, c0);
  p[0] = v3_dot(d, u);
  p[1] = v3_dot(d, w);
}

/* atan2(y, x) for the spin angle of one step, which is small: for x > 0 and |y| <= x / 128 the
 * series t - t^3/3 + t^5/5 - t^7/7 of atan(t), t = y / x, is exact to double precision (the first
 * term left out, t^9/9, is below 2e-18 |t|, a hundredth of an ulp), at one division instead of a
 * libm atan2. */
static double step_angle(double y, double x)
{
  if (x > 0 && fabs(y) * 128 <= x) {
    const double t = y / x, t2 = t * t;
    return t * (1 - t2 * (1.0 / 3 - t2 * (1.0 / 5 - t2 * (1.0 / 7))));
  }
  return atan2(y, x);
}

/* The spin angle between the frame (u, w = n x u) continued from A's and the one continued from
 * B's old axes a, b (as B carried them): B's continued u is the in-plane part of v = a + b x n
 * normalized, and atan2 does not need the normalization, nor the normal part of v (u and w are in
 * the plane): the angle of v on (u, w), negated (> 0: A's frame is ahead of B's about n). The
 * degenerate case of continue_frame (v edge-on) takes B's fixed tangents of n. */
static double spin_angle(const double n[3], const double u[3], const double w[3], const double a[3], const double b[3])
{
  double v[3], x, y;
  v3_cross(v, b, n);
  v3_add(v, v, a);
  x = v3_dot(v, u);
  y = -v3_dot(v, w);
  if (x * x + y * y < 1e-18) {
    double ub[3], wb[3];
    v3_tangents(n, ub, wb);
    x = v3_dot(ub, u);
    y = -v3_dot(ub, w);
  }
  return step_angle(y, x);
}

void penalty_track(const PenaltyPose *A, const PenaltyPose *B, const double n[3], const double point[3],
                   const PenaltyHistory *prev, PenaltyTracking *t)
{
  double a[3], b[3], c0[3];

  if (!prev || !penalty_state_has(prev, PENALTY_TOUCHING)) {
    v3_tangents(n, t->u, t->w);
    t->pa[0] = t->pa[1] = t->pb[0] = t->pb[1] = 0;
    t->psi                                    = 0;
    return;
  }
  mat_vec(a, A->R, prev->frame);
  mat_vec(b, A->R, prev->frame + 3);
  continue_frame(n, a, b, t->u, t->w);
  mat_vec(a, B->R, prev->frame);
  mat_vec(b, B->R, prev->frame + 3);
  t->psi = spin_angle(n, t->u, t->w, a, b);
  mat_vec(c0, A->R, prev->arm_a);
  v3_add(c0, c0, A->x);
  surface_motion(c0, point, t->u, t->w, t->pa);
  mat_vec(c0, B->R, prev->arm_b);
  v3_add(c0, c0, B->x);
  surface_motion(c0, point, t->u, t->w, t->pb);
}

void penalty_track_store(const PenaltyPose *A, const PenaltyPose *B, const double point[3], const PenaltyTracking *t,
                         PenaltyHistory *rec)
{
  v3_copy(rec->frame, t->u);
  v3_copy(rec->frame + 3, t->w);
  v3_sub(rec->arm_a, point, A->x);
  v3_sub(rec->arm_b, point, B->x);
}
