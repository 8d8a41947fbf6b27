/* Cylinder wall geometry (collision/cylinder_contact.h) and a wall's pose as a function of time
 * (bodies/wall_motion.h), against hand-computed values. Exact where the arithmetic is exact
 * (axis-aligned cases), else within 1e-14 m (a few roundings of numbers of order 1).
 * 1. A sphere inside a drum (axis y, R = 1): gap R - rho - r, normal towards the axis, surface
 *    points on the wall and on the sphere; outside a pillar: gap rho - R - r, normal away from it.
 * 2. A finite tube (length 2): a sphere beyond an end touches the rim circle, not the face; one
 *    far beyond gets nothing; cylinder_may_touch agrees with the kernel's answers.
 * 3. A box (half extents 0.1) inside the drum with its lower face 0.05 from the wall: its 4 lower
 *    vertices within the envelope, and only those, each with its own gap.
 * 4. A box wall turning at 1 rad/s about z through the origin from start 1 s, with its centre at
 *    (1, 0, 0): at t = 1 s its pose is the scenario's bit for bit; at t = 1 + pi/2 its centre is at
 *    (0, 1, 0) and its orientation turned by 90 deg about z; its velocity over the next step is
 *    omega x centre = (-1, 0, 0), its turn over the last step omega h. */
#include "test_check.h"
#include "collision/cylinder_contact.h"
#include "bodies/wall_motion.h"
#include <math.h>
#include <string.h>

static Wall drum(double half_length, int inside)
{
  Wall w;
  memset(&w, 0, sizeof w);
  w.type        = WALL_CYLINDER;
  w.axis[1]     = 1;
  w.radius      = 1;
  w.half_length = half_length;
  w.inside      = inside;
  return w;
}

int main(void)
{
  ContactPoint pt[NARROW_MAX_POINTS];
  int          np;

  { /* 1. inside and outside */
    const Wall   in = drum(INFINITY, 1), out = drum(INFINITY, 0);
    const double x[3] = {0, 5, -0.75}, y[3] = {1.5, -2, 0};
    np = narrow_cylinder_sphere(&in, x, 0.2, 0.1, pt);
    CHECK(np == 1 && pt[0].phi == 1 - 0.75 - 0.2, "inside: %d points, gap %.17g (want 0.05)", np, pt[0].phi);
    CHECK(pt[0].n[0] == 0 && pt[0].n[1] == 0 && pt[0].n[2] == 1, "inside: normal (%g, %g, %g), want (0, 0, 1)",
          pt[0].n[0], pt[0].n[1], pt[0].n[2]);
    CHECK(pt[0].p1[2] == -1 && pt[0].p1[1] == 5 && pt[0].p2[2] == -0.95, "inside: points z %g, %g (want -1, -0.95)",
          pt[0].p1[2], pt[0].p2[2]);
    CHECK(narrow_cylinder_sphere(&in, x, 0.2, 0.04, pt) == 0, "inside: a gap of 0.05 above an envelope of 0.04");
    np = narrow_cylinder_sphere(&out, y, 0.2, 0.5, pt);
    CHECK(np == 1 && pt[0].phi == 1.5 - 1 - 0.2 && pt[0].n[0] == 1 && pt[0].p1[0] == 1 && pt[0].p2[0] == 1.3,
          "outside: gap %.17g (want 0.3), normal x %g (want 1), points x %g, %g (want 1, 1.3)", pt[0].phi, pt[0].n[0],
          pt[0].p1[0], pt[0].p2[0]);
  }
  { /* 2. a finite tube's rim */
    const Wall   t    = drum(1, 1);
    const double a[3] = {0, 1.1, -0.85}, far[3] = {0, 1.5, -0.85}, face[3] = {0, 0.9, -0.85};
    np                = narrow_cylinder_sphere(&t, a, 0.1, 0.1, pt);
    const double want = sqrt(0.1 * 0.1 + 0.15 * 0.15) - 0.1; /* from the rim point (0, 1, -1) */
    CHECK(np == 1 && fabs(pt[0].phi - want) < 1e-14 && pt[0].p1[1] == 1 && pt[0].p1[2] == -1,
          "rim: gap %.17g (want %.17g), rim point (%g, %g, %g)", pt[0].phi, want, pt[0].p1[0], pt[0].p1[1],
          pt[0].p1[2]);
    CHECK(narrow_cylinder_sphere(&t, far, 0.1, 0.1, pt) == 0, "far beyond the end: no contact");
    np = narrow_cylinder_sphere(&t, face, 0.1, 0.1, pt);
    CHECK(np == 1 && fabs(pt[0].phi - 0.05) < 1e-15, "face near the end: gap %.17g (want 0.05)", pt[0].phi);
    CHECK(cylinder_may_touch(&t, a, 0.1, 0.1) && !cylinder_may_touch(&t, far, 0.1, 0.1) &&
            cylinder_may_touch(&t, face, 0.1, 0.1),
          "cylinder_may_touch disagrees with the kernel");
  }
  { /* 3. box vertices */
    const Wall   d    = drum(INFINITY, 1);
    const double c[3] = {0, 0, -0.85 + 0.1 - 0.1}, q[4] = {1, 0, 0, 0}, he[3] = {0.1, 0.1, 0.1};
    int          lower = 0;
    np                 = narrow_cylinder_box(&d, c, q, he, 0.1, pt);
    for (int k = 0; k < np; k++) {
      const double want = 1 - sqrt(0.1 * 0.1 + 0.95 * 0.95); /* a lower vertex at (+-0.1, y, -0.95) */
      lower += fabs(pt[k].p2[2] + 0.95) < 1e-15 && fabs(pt[k].phi - want) < 1e-14;
    }
    CHECK(np == 4 && lower == 4, "box in a drum: %d points, %d of them lower vertices with the right gap (want 4, 4)",
          np, lower);
  }
  { /* 4. a turning box wall */
    Wall w0, w;
    memset(&w0, 0, sizeof w0);
    w0.type    = WALL_BOX;
    w0.quat[0] = 1;
    v3_set(w0.center, 1, 0, 0);
    v3_copy(w0.point, w0.center);
    v3_set(w0.half_extents, 0.1, 0.1, 0.1);
    w0.motion.moving  = 1;
    w0.motion.axis[2] = 1;
    w0.motion.omega   = 1;
    w0.motion.start   = 1;
    w0.motion.end     = INFINITY;
    wall_pose_at(&w0, 1, 0.01, &w);
    CHECK(!memcmp(w.center, w0.center, sizeof w.center) && !memcmp(w.quat, w0.quat, sizeof w.quat),
          "at the start the pose must be the scenario's bit for bit");
    wall_pose_at(&w0, 1 + M_PI / 2, 0.01, &w);
    CHECK(fabs(w.center[0]) < 1e-14 && fabs(w.center[1] - 1) < 1e-14 && fabs(w.quat[0] - sqrt(0.5)) < 1e-14 &&
            fabs(w.quat[3] - sqrt(0.5)) < 1e-14,
          "after a quarter turn: centre (%g, %g, %g), quaternion (%g, %g, %g, %g)", w.center[0], w.center[1],
          w.center[2], w.quat[0], w.quat[1], w.quat[2], w.quat[3]);
    CHECK(fabs(w.velocity[0] + 1) < 1e-14 && fabs(w.velocity[1]) < 1e-14 && w.omega[2] == 1 &&
            fabs(w.turn[2] - 0.01) < 1e-14,
          "velocity (%g, %g, %g), omega z %g, turn z %g", w.velocity[0], w.velocity[1], w.velocity[2], w.omega[2],
          w.turn[2]);
  }
  if (failures) printf("cylinder contact: %d check(s) FAILED\n", failures);
  else printf("cylinder contact: all checks passed\n");
  return failures != 0;
}
