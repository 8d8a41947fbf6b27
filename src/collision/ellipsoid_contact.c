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
