/* Exact contact geometry for one pair of shapes. Each function returns the number of contact
 * points written (0 when the gap is not below the envelope) and fills, per point, the unit normal
 * n from the first shape to the second, the point on each surface (world) and the signed gap phi.
 * Boxes are given by centre, orientation (w, x, y, z) and half extents. */
#ifndef CCPDEM_NARROWPHASE_H
#define CCPDEM_NARROWPHASE_H

#define NARROW_MAX_POINTS 4

typedef struct {
  double n[3];       /* unit normal from shape 1 to shape 2 */
  double p1[3];      /* point on shape 1's surface (world) */
  double p2[3];      /* point on shape 2's surface (world) */
  double phi;        /* signed gap along n: (p2 - p1) . n */
} ContactPoint;

int narrow_sphere_sphere(const double c1[3], double r1, const double c2[3], double r2, double envelope, ContactPoint *out);
/* plane (point, unit normal) against sphere: normal = plane normal */
int narrow_plane_sphere(const double p[3], const double nrm[3], const double c[3], double r, double envelope, ContactPoint *out);
/* box (as shape 1) against sphere (shape 2) */
int narrow_box_sphere(const double bc[3], const double bq[4], const double he[3], const double c[3], double r, double envelope, ContactPoint *out);
/* plane against box: up to 4 points (the box's vertices below the envelope; the deepest 4 if more) */
int narrow_plane_box(const double p[3], const double nrm[3], const double bc[3], const double bq[4], const double he[3], double envelope, ContactPoint *out);
#endif
