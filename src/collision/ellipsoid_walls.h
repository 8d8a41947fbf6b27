/* Contacts of an ellipsoid body (bodies/ellipsoid.h: centre c, orientation q, semi-axes semi) with
 * cylinder and mesh walls (planes: collision/ellipsoid_contact.h). Not collective; nothing is
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
 * nearest point), as the sphere kernel's rim.
 *
 * Mesh wall (collision/triangle_contact.h), feature by feature, each once:
 *  - a face: the ellipsoid's deepest point p below the face's plane (the support point along minus
 *    the face's normal on the centre's side; closed form), a contact where p projects into the
 *    triangle's share (tricontact_in_share: inside, or on an edge or at a vertex it owns); normal
 *    the face's, gap p's height. Each point of a flat mesh is in one triangle's share, so an
 *    ellipsoid on a flat mesh gets one contact, the plane's, wherever its deepest point lies;
 *  - an edge (by its owner triangle): the point q of the segment of least signed distance to the
 *    ellipsoid (ellipsoid_closest_point), by bisection on the sign of the distance's slope along the
 *    segment (N . ab, N the outward normal at the nearest point: the signed distance to a convex
 *    body is convex, so one minimum) to 1e-15 of the edge; a contact where q lies inside the edge
 *    by TRICONTACT_EPS and its test point q - ell N (ell the smallest semi-axis: for a sphere the
 *    centre) lies strictly across the edge from every triangle on it (by TRICONTACT_EPS: never on a
 *    flat part, where the faces' shares decide);
 *  - a vertex v (by its owner triangle): its signed distance, a contact where v - ell N lies
 *    strictly beyond v along every edge at it.
 * Edge and vertex contacts have normal -N (from the mesh into the body), p1 the mesh's point, p2 the
 * ellipsoid's nearest point. At a convex edge or corner a face's share and the edge's or vertex's
 * region are decided on different points (p, and the test point), which agree where the regions
 * meet up to the searches' roundings: a pose within about TRICONTACT_EPS of that boundary may get
 * both contacts or neither. */
#ifndef CCPDEM_COLLISION_ELLIPSOID_WALLS_H
#define CCPDEM_COLLISION_ELLIPSOID_WALLS_H
#include "bodies/walls.h"
#include "collision/narrowphase.h"
#include "collision/triangle_contact.h"

#define ELLWALL_SAMPLES 64 /* angles sampled before the local search (above) */

/* Cylinder wall w against the ellipsoid: 1 point in out (normal from the wall to the body, p1 on
 * the wall, p2 on the ellipsoid) if the gap is below envelope, else 0. */
int narrow_cylinder_ellipsoid(const Wall *w, const double c[3], const double q[4], const double semi[3],
                              double envelope, ContactPoint *out);

/* Mesh m placed at x with orientation q (as narrow_mesh_sphere) against the ellipsoid (world): the
 * points below the envelope by the rule above, at most NARROW_VERTEX_POINTS (the deepest; ties: the
 * lower feature), in feature order, normal from the mesh to the body. Returns how many. */
int narrow_mesh_ellipsoid(const TriMesh *m, const double x[3], const double q[4], const double c[3], const double qe[4],
                          const double semi[3], double envelope, ContactPoint out[NARROW_VERTEX_POINTS]);

/* Wall w (a plane, cylinder or mesh) against the ellipsoid: its points into out (at most 1, a mesh
 * NARROW_VERTEX_POINTS), normal from the wall to the body; returns how many. Box walls beside an
 * ellipsoid are refused where the scenario is read (scenario/body_sections.c): they give 0 here. */
int narrow_wall_ellipsoid(const Wall *w, const double c[3], const double q[4], const double semi[3], double envelope,
                          ContactPoint out[NARROW_MAX_POINTS]);
#endif
