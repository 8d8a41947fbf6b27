/* See collision/ellipsoid_contact.h. */
#include "collision/ellipsoid_contact.h"
#include "bodies/ellipsoid.h"

int narrow_plane_ellipsoid(const double p[3], const double nrm[3], const double c[3], const double q[4],
                           const double semi[3], double envelope, ContactPoint *out)
{
  double d[3], down[3], down_b[3], tip_b[3], tip[3], height, s, phi;

  v3_sub(d, c, p);
  height = v3_dot(d, nrm); /* the centre's signed height above the plane */
  v3_scale(down, -1.0, nrm);
  quat_rotate_inv(down_b, q, down);                   /* the outward normal at the deepest point, body frame */
  s   = ellipsoid_support_point(semi, down_b, tip_b); /* that point: s below the centre along nrm */
  phi = height - s;
  if (!(phi < envelope)) return 0;
  quat_rotate(tip, q, tip_b);
  v3_copy(out->n, nrm);
  v3_add(out->p2, c, tip);
  v3_copy(out->p1, out->p2);
  v3_axpy(out->p1, -phi, nrm);
  out->phi = phi;
  return 1;
}

double ellipsoid_closest_point(const double semi[3], const double x[3], double p[3])
{
  const double amin = fmin(semi[0], fmin(semi[1], semi[2])), a2min = amin * amin;
  double       t = 0, lo, hi, f, df, inside = 0;
  int          k;

  for (k = 0; k < 3; k++) inside += x[k] * x[k] / (semi[k] * semi[k]);
  if (inside == 0) { /* the centre: every direction is as near; the shortest axis' tip is nearest */
    k = semi[0] == amin ? 0 : semi[1] == amin ? 1 : 2;
    v3_set(p, 0, 0, 0);
    p[k] = amin;
    return -amin;
  }
  /* a bracket of the root: f(lo) >= 0 >= f(hi) */
  if (inside >= 1) {
    lo = 0;
    hi = sqrt(x[0] * x[0] * semi[0] * semi[0] + x[1] * x[1] * semi[1] * semi[1] + x[2] * x[2] * semi[2] * semi[2]);
  } else {
    double fm = -1;
    lo        = -a2min;
    hi        = 0;
    for (k = 0; k < 3; k++) {
      const double d = semi[k] * semi[k] - a2min;
      if (x[k] != 0) fm = d > 0 ? fm + (semi[k] * x[k] / d) * (semi[k] * x[k] / d) : INFINITY;
    }
    if (fm <= 0) { /* f stays below 0 up to the pole t = -min a^2: the nearest points leave the shortest axes' plane */
      double rest = 1;
      for (k = 0; k < 3; k++) {
        const double d = semi[k] * semi[k] - a2min;
        p[k]           = d > 0 ? semi[k] * semi[k] * x[k] / d : 0;
        rest -= p[k] * p[k] / (semi[k] * semi[k]);
      }
      k    = semi[0] == amin ? 0 : semi[1] == amin ? 1 : 2;
      p[k] = amin * sqrt(fmax(rest, 0)); /* one of the two mirror points */
      {
        double d[3];
        v3_sub(d, x, p);
        return -v3_norm(d);
      }
    }
  }
  for (int it = 0; it < 200; it++) {
    double step, tn;
    f  = -1;
    df = 0;
    for (k = 0; k < 3; k++) {
      const double a2 = semi[k] * semi[k], d = a2 + t, g = semi[k] * x[k] / d;
      f += g * g;
      df -= 2 * g * g / d;
    }
    if (f > 0) lo = t;
    else hi = t;
    step = df < 0 ? -f / df : 0;
    tn   = t + step;
    if (!(tn > lo && tn < hi)) tn = 0.5 * (lo + hi); /* Newton left the bracket (or f' = 0): bisect */
    if (fabs(tn - t) <= 1e-15 * (fabs(t) + a2min)) {
      t = tn;
      break;
    }
    t = tn;
  }
  for (k = 0; k < 3; k++) p[k] = semi[k] * semi[k] * x[k] / (semi[k] * semi[k] + t);
  {
    double d[3];
    v3_sub(d, x, p);
    return inside >= 1 ? v3_norm(d) : -v3_norm(d);
  }
}

int narrow_ellipsoid_sphere(const double c[3], const double q[4], const double semi[3], const double cs[3], double r,
                            double envelope, ContactPoint *out)
{
  double d[3], xb[3], pb[3], nb[3], dist, phi, len;

  v3_sub(d, cs, c);
  if (v3_norm(d) - r - fmax(semi[0], fmax(semi[1], semi[2])) >= envelope) return 0; /* beyond the bounding sphere */
  quat_rotate_inv(xb, q, d);
  dist = ellipsoid_closest_point(semi, xb, pb);
  phi  = dist - r;
  if (!(phi < envelope)) return 0;
  for (int k = 0; k < 3; k++) nb[k] = pb[k] / (semi[k] * semi[k]); /* the outward normal there */
  len = v3_norm(nb);
  v3_scale(nb, 1 / len, nb);
  quat_rotate(out->n, q, nb);
  quat_rotate(out->p1, q, pb);
  v3_add(out->p1, out->p1, c);
  v3_copy(out->p2, cs);
  v3_axpy(out->p2, -r, out->n);
  out->phi = phi;
  return 1;
}
