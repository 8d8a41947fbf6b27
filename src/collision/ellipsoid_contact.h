/* Contacts of ellipsoid bodies (bodies/ellipsoid.h). A plane touches an ellipsoid at one point, the
 * ellipsoid's support point along the plane's inward normal (closed form), which is exact: the
 * normal is the plane's and the gap the support point's signed height above the plane. Other
 * partners of an ellipsoid are refused where the scenario is read (scenario/body_sections.c). Not
 * collective; nothing is allocated. */
#ifndef CCPDEM_COLLISION_ELLIPSOID_CONTACT_H
#define CCPDEM_COLLISION_ELLIPSOID_CONTACT_H
#include "collision/narrowphase.h"

/* Plane (point p, unit normal nrm towards the bodies) against the ellipsoid of centre c,
 * orientation q (w, x, y, z) and semi-axes semi: 1 point in out (normal nrm, p1 on the plane below
 * p2, p2 the ellipsoid's deepest point) if the gap is below envelope, else 0. */
int narrow_plane_ellipsoid(const double p[3], const double nrm[3], const double c[3], const double q[4],
                           const double semi[3], double envelope, ContactPoint *out);
#endif
