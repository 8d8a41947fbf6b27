/* Contacts of ellipsoid bodies (bodies/ellipsoid.h). A plane touches an ellipsoid at one point, the
 * ellipsoid's support point along the plane's inward normal (closed form), which is exact: the
 * normal is the plane's and the gap the support point's signed height above the plane. A sphere
 * touches it at the surface point nearest the sphere's centre (ellipsoid_closest_point: Newton on
 * the Lagrange condition). Other partners of an ellipsoid are refused where the scenario is read
 * (scenario/body_sections.c). Not collective; nothing is allocated. */
#ifndef CCPDEM_COLLISION_ELLIPSOID_CONTACT_H
#define CCPDEM_COLLISION_ELLIPSOID_CONTACT_H
#include "collision/narrowphase.h"

/* Plane (point p, unit normal nrm towards the bodies) against the ellipsoid of centre c,
 * orientation q (w, x, y, z) and semi-axes semi: 1 point in out (normal nrm, p1 on the plane below
 * p2, p2 the ellipsoid's deepest point) if the gap is below envelope, else 0. */
int narrow_plane_ellipsoid(const double p[3], const double nrm[3], const double c[3], const double q[4],
                           const double semi[3], double envelope, ContactPoint *out);

/* p <- the point of the ellipsoid's surface (semi-axes semi, body frame) nearest x (body frame), and
 * returns the signed distance from p to x (> 0 outside, < 0 inside). The Lagrange condition
 * x - p = t diag(1/a^2, 1/b^2, 1/c^2) p gives p_k = a_k^2 x_k / (a_k^2 + t) with t the root of
 * f(t) = sum_k (a_k x_k / (a_k^2 + t))^2 - 1, which is convex and decreasing on t > -min_k a_k^2:
 * outside (f(0) > 0) t > 0, inside t in (-min a^2, 0), the largest root there (the nearest point).
 * Newton from t = 0, kept inside a bracket [lo, hi] of the root by bisection whenever a step leaves
 * it; converged when a step changes t by at most 1e-15 (|t| + min a^2), at most 200 iterations
 * (measured: under 30 for aspect ratios up to 100). x at the centre: the tip of the shortest axis. */
double ellipsoid_closest_point(const double semi[3], const double x[3], double p[3]);

/* Ellipsoid (shape 1: centre c, orientation q, semi-axes semi) against the sphere (centre cs, radius
 * r): 1 point in out (normal from the ellipsoid to the sphere, the ellipsoid's outward normal at its
 * point nearest cs) if the gap is below envelope, else 0. */
int narrow_ellipsoid_sphere(const double c[3], const double q[4], const double semi[3], const double cs[3], double r,
                            double envelope, ContactPoint *out);
#endif
