/* Contacts of an ellipsoid body (bodies/ellipsoid.h: centre c, orientation q, semi-axes semi) with
 * walls other than its plane kernel's (collision/ellipsoid_contact.h). Not collective; nothing is
 * allocated.
 *
 * Cylinder wall (bodies/walls.h: axis point c0, unit axis a, radius R, half length L, inside or
 * outside; an open tube, as collision/cylinder_contact.h). The tube is the same in every plane
 * across the axis, so the gap is that of the ellipsoid's projection onto such a plane, an ellipse
 * of centre d (the centre's offset from the axis) and support function s(u) = sqrt(u' M u), M the
 * projection of R(q) diag(a^2, b^2, c^2) R(q)', against the circle of radius R:
 *  - inside (a drum): the ellipsoid's largest distance from the axis is max_u (u . d + s(u)) over
 *    the unit radial directions u (the farthest point of a convex set, in the dual form), gap R
 *    minus it; the contact is the ellipsoid's support point along u*, the normal -u*;
 *  - outside (a pillar): its signed distance from the axis is max_u (u . d - s(u)) (the separating
 *    direction; negative when the ellipse covers the axis), gap that minus R; the contact is the
 *    support point along -u*, the normal u*.
 * With u = (cos t, sin t) in a fixed frame across the axis this is a smooth periodic function of t,
 * maximised by sampling ELLWALL_SAMPLES angles, then from the best Newton's method with exact
 * first and second derivatives, a step bounded by the sampling's spacing and, where the function is
 * not concave there, an ascent step halved until it does not lose; converged when a step moves t by
 * at most 1e-12 rad (the gap's error is then second order, far below 1e-20 m for bodies of 1 m; the
 * point's first order, 1e-12 of the semi-axes), at most 100 steps. For a = b = c it gives the
 * sphere kernel's gap, normal and points (up to rounding).
 *
 * Where the contact point's axial coordinate lies beyond an end of a finite tube, the ellipsoid
 * touches the rim circle there instead: the circle's point of least signed distance to the ellipsoid
 * (ellipsoid_closest_point, per circle point), found by sampling ELLWALL_SAMPLES points, a
 * golden-section search about the best to 1e-6 rad, then bisection on the sign of the distance's
 * slope along the circle (the outward normal at the nearest point, dotted with the circle's tangent)
 * to 1e-14 rad; normal from the rim point into the body (minus the ellipsoid's outward normal at its
 * nearest point), as the sphere kernel's rim. */
#ifndef CCPDEM_COLLISION_ELLIPSOID_WALLS_H
#define CCPDEM_COLLISION_ELLIPSOID_WALLS_H
#include "bodies/walls.h"
#include "collision/narrowphase.h"

#define ELLWALL_SAMPLES 64 /* angles sampled before the local search (above) */

/* Cylinder wall w against the ellipsoid: 1 point in out (normal from the wall to the body, p1 on
 * the wall, p2 on the ellipsoid) if the gap is below envelope, else 0. */
int narrow_cylinder_ellipsoid(const Wall *w, const double c[3], const double q[4], const double semi[3],
                              double envelope, ContactPoint *out);

/* Wall w (a plane or a cylinder) against the ellipsoid: its points into out (at most 1), normal from the
 * wall to the body; returns how many. Box and mesh walls beside an ellipsoid are refused where the
 * scenario is read (scenario/body_sections.c): they give 0 here. */
int narrow_wall_ellipsoid(const Wall *w, const double c[3], const double q[4], const double semi[3], double envelope,
                          ContactPoint out[NARROW_MAX_POINTS]);
#endif
