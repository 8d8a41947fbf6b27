/* Exact contact geometry for one pair of shapes. Each function returns the number of contact
 * points written (0 when the gap is not below the envelope) and fills, per point, the unit normal
 * n from the first shape to the second, the point on each surface (world) and the signed gap phi.
 * Boxes are given by centre, orientation (w, x, y, z) and half extents. */
#ifndef CCPDEM_COLLISION_NARROWPHASE_H
#define CCPDEM_COLLISION_NARROWPHASE_H
#include "base/vec3.h"

#define NARROW_MAX_POINTS    8 /* the most points of one pair (two boxes: collision/box_box.h) */
#define NARROW_VERTEX_POINTS 4 /* the most points of plane-box, cylinder-box and mesh-sphere: the deepest */

typedef struct {
  double n[3];  /* unit normal from shape 1 to shape 2 */
  double p1[3]; /* point on shape 1's surface (world) */
  double p2[3]; /* point on shape 2's surface (world) */
  double phi;   /* signed gap along n: (p2 - p1) . n */
} ContactPoint;

/* The sphere kernels are inline: detection runs one per contact (the box ones are rare). */
static inline int narrow_sphere_sphere(const double c1[3], double r1, const double c2[3], double r2, double envelope,
                                       ContactPoint *out)
{
  double d[3], dist, phi;

  v3_sub(d, c2, c1);
  dist = v3_norm(d);
  phi  = dist - r1 - r2;
  if (!(phi < envelope)) return 0;
  if (dist > 0) v3_scale(out->n, 1.0 / dist, d);
  else v3_set(out->n, 0, 0, 1); /* coincident centres: any direction is a valid normal; pick a fixed one */
  v3_copy(out->p1, c1);
  v3_axpy(out->p1, r1, out->n);
  v3_copy(out->p2, c2);
  v3_axpy(out->p2, -r2, out->n);
  out->phi = phi;
  return 1;
}

/* plane (point, unit normal) against sphere: normal = plane normal */
static inline int narrow_plane_sphere(const double p[3], const double nrm[3], const double c[3], double r,
                                      double envelope, ContactPoint *out)
{
  double d[3], height, phi;

  v3_sub(d, c, p);
  height = v3_dot(d, nrm); /* signed distance of the centre above the plane */
  phi    = height - r;
  if (!(phi < envelope)) return 0;
  v3_copy(out->n, nrm);
  v3_copy(out->p1, c);
  v3_axpy(out->p1, -height, nrm);
  v3_copy(out->p2, c);
  v3_axpy(out->p2, -r, nrm);
  out->phi = phi;
  return 1;
}

/* box (as shape 1) against sphere (shape 2) */
int narrow_box_sphere(const double bc[3], const double bq[4], const double he[3], const double c[3], double r,
                      double envelope, ContactPoint *out);
/* plane against box: up to NARROW_VERTEX_POINTS points (the box's vertices below the envelope; the deepest if more) */
int narrow_plane_box(const double p[3], const double nrm[3], const double bc[3], const double bq[4], const double he[3],
                     double envelope, ContactPoint *out);
#endif
