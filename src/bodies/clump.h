/* Clumps: rigid bodies made of overlapping spheres (the scenario's `clumps:` templates).
 *
 * A template lists its members (offset from the template's origin, radius) as the scenario gives
 * them; clump_template_setup turns it into the body frame: the origin at the centre of mass of the
 * union of the member spheres, the axes along its principal axes. A clump body in the body store
 * (bodies/body_store.h) is shape SHAPE_CLUMP with size = {template index, common member radius or
 * 0, 0}; its members' world centres are pos + R(quat) offset.
 *
 * Mass properties of the union (overlaps counted once), per unit density, by column integration:
 * the union's bounding box is cut into CLUMP_GRID x CLUMP_GRID columns along x (cell centres in
 * y and z); in each column the union is a set of x intervals, merged exactly, whose length and
 * first and second moments in x are exact; the y-z integral is the midpoint rule. A one-member
 * clump is the sphere's closed form, exactly. Measured: a touching dimer's moments within 2e-5 of
 * the closed form, an overlapping one's within 3e-5 of a 1-D slice integral (tests/unit/test_clump.c). */
#ifndef CCPDEM_BODIES_CLUMP_H
#define CCPDEM_BODIES_CLUMP_H
#include "base/vec3.h"

#define CLUMP_MAX_MEMBERS 64  /* members per template: contact keys number member pairs (collision/clump_contact.h) */
#define CLUMP_GRID        400 /* columns per side of the mass-property integration */

typedef struct {
  char    name[64];
  int     n;             /* members, 1 .. CLUMP_MAX_MEMBERS */
  double *offset;        /* 3 n: member centres; as given (template frame) until setup, then body frame (m) */
  double *radius;        /* n: member radii (m) */
  double  volume;        /* of the union (m^3) */
  double  moments[3];    /* principal moments of the union per unit density (m^5) */
  double  com[3];        /* centre of mass in the template frame (m) */
  double  quat[4];       /* body frame -> template frame (w, x, y, z) */
  double  bounding;      /* largest |offset| + radius in the body frame (m) */
  double  member_radius; /* the members' common radius; 0 when they differ */
  double  min_radius;    /* the smallest member radius (m) */
  int     line;          /* line in the scenario file */
} Clump;

/* Member k's centre in the world, c, for a body of template t at centre of mass x with orientation q. */
static inline void clump_member_centre(const Clump *t, const double x[3], const double q[4], int k, double c[3])
{
  quat_rotate(c, q, t->offset + 3 * k);
  v3_add(c, c, x);
}

/* The first member (index >= 1) not connected to member 0 through overlapping or touching members
 * (centre distance <= the sum of the radii, to a relative 1e-9), or -1 when the union is connected.
 * offset 3 n, radius n; not changed. */
int clump_disconnected_member(int n, const double *offset, const double *radius);

/* Mass properties of the union of the n spheres (offset 3 n, radius n, in any frame): volume,
 * centre of mass com, and the inertia tensor about com per unit density, I[6] = (xx, yy, zz, xy,
 * xz, yz). Deterministic (the same bits on every rank). */
void clump_union_mass(int n, const double *offset, const double *radius, double *volume, double com[3], double I[6]);

/* Fill t's volume, moments, com, quat, bounding and radii from its members as given, and move the
 * offsets into the body frame. Needs t->n >= 1 members with radius > 0. */
void clump_template_setup(Clump *t);
#endif
