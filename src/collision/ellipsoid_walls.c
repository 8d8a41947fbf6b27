/* See collision/ellipsoid_walls.h. */
#include "collision/ellipsoid_walls.h"
#include "collision/ellipsoid_contact.h"
#include "bodies/ellipsoid.h"
#include <math.h>

/* The ellipsoid's projection across the cylinder's axis: centre d, support matrix M = {m00, m01, m11}
 * in the frame (e1, e2), and sign +1 (inside: the farthest point) or -1 (outside: the nearest). */
typedef struct {
  double d[2], m00, m01, m11, sign;
} RadialProblem;

/* f(t) = u . d + sign s(u), u = (cos t, sin t), with f'(t) in *f1 and f''(t) in *f2. */
static double radial_value(const RadialProblem *rp, double t, double *f1, double *f2)
{
  const double u[2] = {cos(t), sin(t)}, up[2] = {-u[1], u[0]};
  const double Mu[2] = {rp->m00 * u[0] + rp->m01 * u[1], rp->m01 * u[0] + rp->m11 * u[1]};
  const double uMu = u[0] * Mu[0] + u[1] * Mu[1], upMu = up[0] * Mu[0] + up[1] * Mu[1];
  const double upMup = rp->m00 * up[0] * up[0] + 2 * rp->m01 * up[0] * up[1] + rp->m11 * up[1] * up[1];
  const double s = sqrt(uMu), ud = u[0] * rp->d[0] + u[1] * rp->d[1];

  *f1 = up[0] * rp->d[0] + up[1] * rp->d[1] + rp->sign * upMu / s;
  *f2 = -ud + rp->sign * ((upMup - uMu) / s - upMu * upMu / (s * s * s));
  return ud + rp->sign * s;
}

/* The angle t maximising radial_value (the search in collision/ellipsoid_walls.h); *best its value. */
static double radial_maximise(const RadialProblem *rp, double *best)
{
  const double spacing = 2 * M_PI / ELLWALL_SAMPLES;
  double       t = 0, f1, f2, f = -INFINITY;

  for (int k = 0; k < ELLWALL_SAMPLES; k++) {
    const double tk = k * spacing, fk = radial_value(rp, tk, &f1, &f2);
    if (fk > f) {
      f = fk;
      t = tk;
    }
  }
  for (int it = 0; it < 100; it++) {
    double step;
    f = radial_value(rp, t, &f1, &f2);
    if (f1 == 0) break; /* stationary: a maximum, as the best sample's neighbourhood is searched uphill */
    step = f2 < 0 ? -f1 / f2 : 0;
    if (!(f2 < 0 && fabs(step) < spacing)) { /* not concave here, or a long step: go uphill, never losing */
      double g1, g2;
      step = f1 > 0 ? spacing : -spacing;
      while (fabs(step) > 1e-16 && radial_value(rp, t + step, &g1, &g2) < f) step *= 0.5;
    }
    t += step;
    if (fabs(step) <= 1e-12) break;
  }
  *best = radial_value(rp, t, &f1, &f2);
  return t;
}

/* Signed distance from the rim point at angle t (the circle of centre o, radius R in the plane (e1,
 * e2)) to the ellipsoid (centre c, rotation Rq, semi-axes semi): the rim point in pw, its nearest
 * point of the ellipsoid in pb (body frame), and in *slope the distance's derivative in t, the
 * ellipsoid's outward unit normal there (the distance's gradient) along the circle's tangent. */
static double rim_distance(const double o[3], double R, const double e1[3], const double e2[3], const double c[3],
                           const double Rq[9], const double semi[3], double t, double pw[3], double pb[3],
                           double *slope)
{
  double d[3], xb[3], nb[3], tan[3], dist;
  v3_copy(pw, o);
  v3_axpy(pw, R * cos(t), e1);
  v3_axpy(pw, R * sin(t), e2);
  v3_sub(d, pw, c);
  mat_tvec(xb, Rq, d);
  dist = ellipsoid_closest_point(semi, xb, pb);
  for (int k = 0; k < 3; k++) nb[k] = pb[k] / (semi[k] * semi[k]);
  v3_scale(tan, -R * sin(t), e1);
  v3_axpy(tan, R * cos(t), e2);
  mat_tvec(d, Rq, tan);
  *slope = v3_dot(nb, d) / v3_norm(nb);
  return dist;
}

/* The rim circle at the end `end` (+1, -1) of the finite tube w against the ellipsoid. */
static int rim_contact(const Wall *w, int end, const double e1[3], const double e2[3], const double c[3],
                       const double Rq[9], const double semi[3], double envelope, ContactPoint *out)
{
  const double spacing = 2 * M_PI / ELLWALL_SAMPLES, g = 0.5 * (sqrt(5.0) - 1);
  double       o[3], pw[3], pb[3], nb[3], t = 0, best = INFINITY, lo, hi, a, b, fa, fb, phi, slope, slo, shi;

  v3_copy(o, w->center);
  v3_axpy(o, end * w->half_length, w->axis);
#define RIM(t_, s_) rim_distance(o, w->radius, e1, e2, c, Rq, semi, (t_), pw, pb, (s_))
  for (int k = 0; k < ELLWALL_SAMPLES; k++) {
    const double fk = RIM(k * spacing, &slope);
    if (fk < best) {
      best = fk;
      t    = k * spacing;
    }
  }
  /* golden section about the best sample down to 1e-6 rad, where the distance is too flat for its
     values to tell the sides apart; then bisection on the sign of its slope, which stays accurate */
  lo = t - spacing;
  hi = t + spacing;
  a  = hi - g * (hi - lo);
  b  = lo + g * (hi - lo);
  fa = RIM(a, &slope);
  fb = RIM(b, &slope);
  while (hi - lo > 1e-6) {
    if (fa < fb) {
      hi = b;
      b  = a;
      fb = fa;
      a  = hi - g * (hi - lo);
      fa = RIM(a, &slope);
    } else {
      lo = a;
      a  = b;
      fa = fb;
      b  = lo + g * (hi - lo);
      fb = RIM(b, &slope);
    }
  }
  RIM(lo, &slo);
  RIM(hi, &shi);
  if (slo < 0 && shi > 0)
    while (hi - lo > 1e-14) {
      const double mid = 0.5 * (lo + hi);
      RIM(mid, &slope);
      if (slope < 0) lo = mid;
      else hi = mid;
    }
  phi = RIM(0.5 * (lo + hi), &slope);
#undef RIM
  if (!(phi < envelope)) return 0;
  for (int k = 0; k < 3; k++) nb[k] = -pb[k] / (semi[k] * semi[k]); /* into the body: minus the outward normal */
  mat_vec(out->n, Rq, nb);
  v3_scale(out->n, 1 / v3_norm(out->n), out->n);
  v3_copy(out->p1, pw);
  mat_vec(out->p2, Rq, pb);
  v3_add(out->p2, out->p2, c);
  out->phi = phi;
  return 1;
}

int narrow_cylinder_ellipsoid(const Wall *w, const double c[3], const double q[4], const double semi[3],
                              double envelope, ContactPoint *out)
{
  RadialProblem rp;
  double        Rq[9], e1[3], e2[3], g1[3], g2[3], d[3], u[3], ub[3], pb[3], p[3], t, f, sa, phi;

  quat_to_matrix(q, Rq);
  v3_tangents(w->axis, e1, e2);
  mat_tvec(g1, Rq, e1);
  mat_tvec(g2, Rq, e2);
  rp.m00 = rp.m01 = rp.m11 = 0;
  for (int k = 0; k < 3; k++) {
    const double a2 = semi[k] * semi[k];
    rp.m00 += a2 * g1[k] * g1[k];
    rp.m01 += a2 * g1[k] * g2[k];
    rp.m11 += a2 * g2[k] * g2[k];
  }
  v3_sub(d, c, w->center);
  rp.d[0] = v3_dot(d, e1);
  rp.d[1] = v3_dot(d, e2);
  rp.sign = w->inside ? 1.0 : -1.0;
  t       = radial_maximise(&rp, &f);
  v3_scale(u, cos(t), e1);
  v3_axpy(u, sin(t), e2);
  v3_scale(ub, rp.sign, u); /* the support direction: u inside, -u outside */
  mat_tvec(pb, Rq, ub);
  v3_copy(ub, pb);
  ellipsoid_support_point(semi, ub, pb);
  mat_vec(p, Rq, pb);
  v3_add(p, p, c);
  v3_sub(d, p, w->center);
  sa = v3_dot(d, w->axis);
  if (fabs(sa) > w->half_length) return rim_contact(w, sa > 0 ? 1 : -1, e1, e2, c, Rq, semi, envelope, out);
  phi = w->inside ? w->radius - f : f - w->radius;
  if (!(phi < envelope)) return 0;
  v3_scale(out->n, -rp.sign, u);
  v3_copy(out->p1, w->center);
  v3_axpy(out->p1, sa, w->axis);
  v3_axpy(out->p1, w->radius, u);
  v3_copy(out->p2, p);
  out->phi = phi;
  return 1;
}

int narrow_wall_ellipsoid(const Wall *w, const double c[3], const double q[4], const double semi[3], double envelope,
                          ContactPoint out[NARROW_MAX_POINTS])
{
  if (w->type == WALL_PLANE) return narrow_plane_ellipsoid(w->point, w->normal, c, q, semi, envelope, out);
  if (w->type == WALL_CYLINDER) return narrow_cylinder_ellipsoid(w, c, q, semi, envelope, out);
  return 0;
}
