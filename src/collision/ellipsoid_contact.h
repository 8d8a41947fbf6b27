/* Contacts of ellipsoid bodies (bodies/ellipsoid.h). A plane touches an ellipsoid at one point, the
 * ellipsoid's support point along the plane's inward normal (closed form), which is exact: the
 * normal is the plane's and the gap the support point's signed height above the plane. A sphere
 * touches it at the surface point nearest the sphere's centre (ellipsoid_closest_point: Newton on
 * the Lagrange condition); a clump by its member spheres (collision/clump_contact.h), another
 * ellipsoid by the support-function maximisation of narrow_ellipsoid_ellipsoid. Other partners of an
 * ellipsoid are refused where the scenario is read (scenario/body_sections.c). Not collective;
 * nothing is allocated. */
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

/* narrow_ellipsoid_ellipsoid's Newton: at most this many steps (measured: at most 27 in
 * tests/unit/test_ellipsoid_pair.c's random poses, aspect ratios up to 5), converged when the tangential gradient is at
 * most TOLERANCE times the problem's size, and no step turns n by more than MAX_TURN radians. */
#define ELLIPSOID_PAIR_MAX_ITERATIONS 100
#define ELLIPSOID_PAIR_TOLERANCE      1e-13
#define ELLIPSOID_PAIR_MAX_TURN       0.5

/* Ellipsoid A (centre ca, orientation qa, semi-axes sa) against ellipsoid B (cb, qb, sb): 1 point in
 * out if the gap is below envelope, else 0. The signed distance of two convex bodies is the maximum
 * over unit n of g(n) = n.(cb - ca) - h_A(n) - h_B(-n), with the support function of an ellipsoid
 * h(n) = sqrt(n^T R diag(a^2, b^2, c^2) R^T n): the distance when they are apart, minus the
 * penetration depth (the shortest translation that separates them) when they overlap. g is maximised
 * over the sphere of directions by Newton in two tangent coordinates (the Riemannian Hessian; steepest
 * ascent where it is not negative definite), each step no longer than MAX_TURN and halved until g
 * does not decrease (the guard: no halving helps, g is maximal to rounding, stop), from the centre
 * line; when they overlap (g < 0), whose maximum need not be unique, also from the six body axes
 * (signed towards B), keeping the largest. out: the normal n (A to B), p1 and p2 the support points
 * of A along n and of B along -n (p2 - p1 = phi n at the maximum), phi = g. Their outward normals are
 * n and -n, where the penalty model takes each body's curvature (penalty/loads.c). */
int narrow_ellipsoid_ellipsoid(const double ca[3], const double qa[4], const double sa[3], const double cb[3],
                               const double qb[4], const double sb[3], double envelope, ContactPoint *out);
#endif
