/* See penalty_tracking.h. */
#include "penalty_tracking.h"
#include "vec3.h"

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

void penalty_track(const PenaltyPose *A, const PenaltyPose *B, const double n[3], const double point[3], const PenaltyHistory *prev, PenaltyTracking *t)
{
  double a[3], b[3], ub[3], wb[3], c0[3], cross[3];

  if (!prev || !prev->touching) {
    v3_tangents(n, t->u, t->w);
    t->pa[0] = t->pa[1] = t->pb[0] = t->pb[1] = 0;
    t->psi = 0;
    return;
  }
  mat_vec(a, A->R, prev->frame_a);
  mat_vec(b, A->R, prev->frame_a + 3);
  continue_frame(n, a, b, t->u, t->w);
  mat_vec(a, B->R, prev->frame_b);
  mat_vec(b, B->R, prev->frame_b + 3);
  continue_frame(n, a, b, ub, wb);
  v3_cross(cross, ub, t->u);
  t->psi = atan2(v3_dot(cross, n), v3_dot(ub, t->u)); /* > 0: A's frame is ahead of B's about n */
  mat_vec(c0, A->R, prev->point_a);
  v3_add(c0, c0, A->x);
  surface_motion(c0, point, t->u, t->w, t->pa);
  mat_vec(c0, B->R, prev->point_b);
  v3_add(c0, c0, B->x);
  surface_motion(c0, point, t->u, t->w, t->pb);
}

void penalty_track_store(const PenaltyPose *A, const PenaltyPose *B, const double point[3], const PenaltyTracking *t, PenaltyHistory *rec)
{
  double d[3];
  mat_tvec(rec->frame_a, A->R, t->u);
  mat_tvec(rec->frame_a + 3, A->R, t->w);
  mat_tvec(rec->frame_b, B->R, t->u);
  mat_tvec(rec->frame_b + 3, B->R, t->w);
  v3_sub(d, point, A->x);
  mat_tvec(rec->point_a, A->R, d);
  v3_sub(d, point, B->x);
  mat_tvec(rec->point_b, B->R, d);
}
