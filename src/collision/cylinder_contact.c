/* See collision/cylinder_contact.h. */
#include "collision/cylinder_contact.h"
#include <math.h>

/* The centre x in the wall's axial coordinate s and radial unit vector u (a fixed normal to the
 * axis when x is on it), with rho its distance from the axis. */
static void cylinder_coordinates(const Wall *w, const double x[3], double *s, double u[3], double *rho)
{
  double d[3];
  v3_sub(d, x, w->center);
  *s = v3_dot(d, w->axis);
  v3_axpy(d, -*s, w->axis);
  *rho = v3_norm(d);
  if (*rho > 0) v3_scale(u, 1.0 / *rho, d);
  else {
    double t[3];
    v3_tangents(w->axis, u, t);
  }
}

int narrow_cylinder_sphere(const Wall *w, const double x[3], double r, double envelope, ContactPoint *out)
{
  double s, u[3], rho, phi;

  cylinder_coordinates(w, x, &s, u, &rho);
  if (fabs(s) <= w->half_length) { /* the face */
    phi = w->inside ? w->radius - rho - r : rho - w->radius - r;
    if (!(phi < envelope)) return 0;
    v3_scale(out->n, w->inside ? -1.0 : 1.0, u);
    v3_copy(out->p1, w->center);
    v3_axpy(out->p1, s, w->axis);
    v3_axpy(out->p1, w->radius, u);
  } else { /* the rim circle at the nearer end */
    double q[3], d[3], dist;
    v3_copy(q, w->center);
    v3_axpy(q, s > 0 ? w->half_length : -w->half_length, w->axis);
    v3_axpy(q, w->radius, u);
    v3_sub(d, x, q);
    dist = v3_norm(d);
    phi  = dist - r;
    if (!(phi < envelope)) return 0;
    if (dist > 0) v3_scale(out->n, 1.0 / dist, d);
    else v3_copy(out->n, w->axis);
    v3_copy(out->p1, q);
  }
  v3_copy(out->p2, x);
  v3_axpy(out->p2, -r, out->n);
  out->phi = phi;
  return 1;
}

int narrow_cylinder_box(const Wall *w, const double bc[3], const double bq[4], const double he[3], double envelope,
                        ContactPoint *out)
{
  ContactPoint pt[8];
  double       R[9];
  int          cand[8], ncand = 0, np = 0;

  quat_to_matrix(bq, R);
  for (int m = 0; m < 8; m++) {
    const double local[3] = {(m & 1) ? he[0] : -he[0], (m & 2) ? he[1] : -he[1], (m & 4) ? he[2] : -he[2]};
    double v[3];
    mat_vec(v, R, local);
    v3_add(v, v, bc);
    if (narrow_cylinder_sphere(w, v, 0, envelope, &pt[m])) cand[ncand++] = m;
  }
  /* the deepest NARROW_VERTEX_POINTS (ties: the lower index), in vertex order */
  for (int a = 0; a < ncand; a++) {
    int deeper = 0;
    for (int b = 0; b < ncand; b++) {
      const int ma = cand[a], mb = cand[b];
      if (pt[mb].phi < pt[ma].phi || (pt[mb].phi == pt[ma].phi && mb < ma)) deeper++;
    }
    if (deeper < NARROW_VERTEX_POINTS) out[np++] = pt[cand[a]];
  }
  return np;
}

int cylinder_may_touch(const Wall *w, const double x[3], double r, double envelope)
{
  double s, u[3], rho, gap;
  cylinder_coordinates(w, x, &s, u, &rho);
  if (fabs(s) - r >= w->half_length + envelope) return 0; /* beyond an end by more than the body's reach */
  gap = w->inside ? w->radius - rho - r : rho - w->radius - r;
  if (fabs(s) > w->half_length) { /* near an end: the rim's distance is at least |rho - R| */
    double ds = fabs(s) - w->half_length, dr = rho - w->radius;
    gap = sqrt(ds * ds + dr * dr) - r;
    return gap < envelope;
  }
  return gap < envelope;
}
