/* Ellipsoid geometry in the body frame: the surface x^2/a^2 + y^2/b^2 + z^2/c^2 = 1 with semi-axes
 * semi = {a, b, c} (each > 0) along the body axes. Pure functions, nothing allocated. */
#ifndef CCPDEM_BODIES_ELLIPSOID_H
#define CCPDEM_BODIES_ELLIPSOID_H
#include <math.h>

/* s(N) = sqrt(a^2 N_x^2 + b^2 N_y^2 + c^2 N_z^2) of a unit direction N: the support distance, the
 * largest N . p over the surface. */
static inline double ellipsoid_support_distance(const double semi[3], const double N[3])
{
  const double ax = semi[0] * N[0], by = semi[1] * N[1], cz = semi[2] * N[2];
  return sqrt(ax * ax + by * by + cz * cz);
}

/* p <- the surface point whose outward unit normal is N (unit): p = diag(a^2, b^2, c^2) N / s(N), the
 * support point along N (the gradient (x/a^2, y/b^2, z/c^2) of the surface is parallel to N there).
 * Returns s(N). */
static inline double ellipsoid_support_point(const double semi[3], const double N[3], double p[3])
{
  const double s = ellipsoid_support_distance(semi, N);
  for (int k = 0; k < 3; k++) p[k] = semi[k] * semi[k] * N[k] / s;
  return s;
}

/* Mean curvature H = (k1 + k2) / 2 (1/m, > 0) at the surface point with outward unit normal N, the
 * paper's spin curvature (Fang & Negrut App. C, Fig. 19). Closed form for the point p above:
 *   H = |p.p - (a^2 + b^2 + c^2)| / (2 a^2 b^2 c^2 (p_x^2/a^4 + p_y^2/b^4 + p_z^2/c^4)^(3/2)),
 * where p_x^2/a^4 + ... = 1 / s^2, so H = |p.p - a^2 - b^2 - c^2| s^3 / (2 a^2 b^2 c^2). At the
 * tip (a, 0, 0): (a/b^2 + a/c^2) / 2; a sphere of radius R: 1/R everywhere. */
static inline double ellipsoid_mean_curvature(const double semi[3], const double N[3])
{
  const double a2 = semi[0] * semi[0], b2 = semi[1] * semi[1], c2 = semi[2] * semi[2];
  double       p[3];
  const double s = ellipsoid_support_point(semi, N, p);
  return fabs(p[0] * p[0] + p[1] * p[1] + p[2] * p[2] - a2 - b2 - c2) * s * s * s / (2 * a2 * b2 * c2);
}

/* Gaussian curvature K = k1 k2 = s^4 / (a^2 b^2 c^2) (1/m^2) at the point with outward unit normal N. */
static inline double ellipsoid_gauss_curvature(const double semi[3], const double N[3])
{
  const double s = ellipsoid_support_distance(semi, N), s2 = s * s;
  return s2 * s2 / (semi[0] * semi[0] * semi[1] * semi[1] * semi[2] * semi[2]);
}
#endif
