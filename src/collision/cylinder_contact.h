/* Contact geometry of a cylinder wall (bodies/walls.h: axis point c, unit axis a, radius R, half
 * length L / 2 or unbounded, bodies inside or outside) with a sphere and with a box's vertices.
 *
 * The wall is a thin tube, open at both ends (no caps). A sphere whose centre projects onto the
 * tube (|(x - c) . a| <= L / 2) touches its face: the gap is R - rho - r inside, rho - R - r
 * outside (rho: the centre's distance from the axis), the normal radial, towards the bodies' side.
 * Beyond an end it touches the rim circle there, at the rim point nearest its centre. Not collective. */
#ifndef CCPDEM_COLLISION_CYLINDER_CONTACT_H
#define CCPDEM_COLLISION_CYLINDER_CONTACT_H
#include "bodies/walls.h"
#include "collision/narrowphase.h"

/* Cylinder wall w (shape 1) against the sphere (x, r): 0 or 1 point, as the narrowphase's kernels
 * (collision/narrowphase.h). */
int narrow_cylinder_sphere(const Wall *w, const double x[3], double r, double envelope, ContactPoint *out);

/* Cylinder wall w against a box (centre, orientation, half extents) by the box's vertices: up to
 * NARROW_VERTEX_POINTS points, the deepest vertices within the envelope (as narrow_plane_box). */
int narrow_cylinder_box(const Wall *w, const double bc[3], const double bq[4], const double he[3], double envelope,
                        ContactPoint *out);

/* Conservative test on the bounding sphere: can a body at x of bounding radius r come within the
 * envelope of cylinder wall w? */
int cylinder_may_touch(const Wall *w, const double x[3], double r, double envelope);
#endif
