/* Body shapes and their mass properties. */
#ifndef CCPDEM_BODIES_SHAPES_H
#define CCPDEM_BODIES_SHAPES_H

typedef enum {
  SHAPE_SPHERE    = 0,
  SHAPE_BOX       = 1,
  SHAPE_CLUMP     = 2,
  SHAPE_ELLIPSOID = 3
} ShapeKind;

/* size[3]: sphere radius in size[0] (size[1] = size[2] = size[0]); box half extents; ellipsoid
 * semi-axes along the body axes (bodies/ellipsoid.h). A clump's
 * size, volume and inertia come from its template (bodies/clump.h), not from these functions. */
static inline double shape_bounding_radius(ShapeKind k, const double size[3])
{
  if (k == SHAPE_SPHERE) return size[0];
  if (k == SHAPE_ELLIPSOID)
    return size[0] > size[1] ? (size[0] > size[2] ? size[0] : size[2]) : (size[1] > size[2] ? size[1] : size[2]);
  return __builtin_sqrt(size[0] * size[0] + size[1] * size[1] + size[2] * size[2]);
}
static inline double shape_volume(ShapeKind k, const double size[3])
{
  if (k == SHAPE_SPHERE) return 4.0 / 3.0 * 3.14159265358979323846 * size[0] * size[0] * size[0];
  if (k == SHAPE_ELLIPSOID) return 4.0 / 3.0 * 3.14159265358979323846 * size[0] * size[1] * size[2];
  return 8.0 * size[0] * size[1] * size[2];
}
/* Principal moments of inertia (body frame) of a solid of mass m. */
static inline void shape_inertia(ShapeKind k, const double size[3], double m, double moments[3])
{
  if (k == SHAPE_SPHERE) {
    moments[0] = moments[1] = moments[2] = 0.4 * m * size[0] * size[0];
  } else if (k == SHAPE_ELLIPSOID) { /* solid ellipsoid: m (b^2 + c^2) / 5, ... */
    const double a2 = size[0] * size[0], b2 = size[1] * size[1], c2 = size[2] * size[2];
    moments[0] = 0.2 * m * (b2 + c2);
    moments[1] = 0.2 * m * (a2 + c2);
    moments[2] = 0.2 * m * (a2 + b2);
  } else {
    const double a = 2 * size[0], b = 2 * size[1], c = 2 * size[2];
    moments[0] = m * (b * b + c * c) / 12.0;
    moments[1] = m * (a * a + c * c) / 12.0;
    moments[2] = m * (a * a + b * b) / 12.0;
  }
}
#endif
