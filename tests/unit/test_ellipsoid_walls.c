/* Unit test of an ellipsoid against a cylinder wall (collision/ellipsoid_walls.c):
 * 1. Random ellipsoids (semi-axes 0.02-0.1 m) in random poses about a random axis (R = 0.5 m,
 *    unbounded), inside a drum and outside a pillar, against an independent reference: the extreme
 *    distance from the axis over a dense sampling of the surface (300 x 600 angles):
 *     - no sample lies farther from the axis (inside) or nearer to it (outside) than the kernel's
 *       point by more than 1e-12 m (a few roundings of numbers of order 1);
 *     - the kernel's point p2 lies on the surface and its distance from the axis is R - phi (inside)
 *       or R + phi (outside), within 1e-12 m: the extreme is attained;
 *     - the best sample is within 1e-3 of the largest semi-axis of it (the samples' spacing is
 *       about 1e-2 of it, and the distance is stationary at the extreme: a second-order error);
 *     - the normal is minus the ellipsoid's outward normal at p2 (within 1e-9: the search stops at
 *       steps of 1e-12 rad, times the curvature ratio), and (p2 - p1) . n = phi (1e-12).
 * 2. a = b = c = r reproduces narrow_cylinder_sphere for random centres inside and outside a finite
 *    tube (length 1 m), on the face and beyond the ends (the rim circle): gap, normal and both points
 *    within 1e-12 (the same geometry by other roundings; the rim's search stops at 1e-14 rad).
 * 3. Hand cases: an ellipsoid (0.1, 0.05, 0.02) lying along the axis of a drum of radius 0.5 m with
 *    its z tip down touches at the tip (gap 0.5 - 0.3 - 0.02); turned 90 degrees about the axis, at
 *    its y tip (gap 0.5 - 0.3 - 0.05); outside a pillar of radius 0.1 m at (0, 0.3, 0) it touches at
 *    the tip towards the axis (gap 0.3 - 0.05 - 0.1); the envelope cuts (gap above it: no point).
 * Breaking the search (the sign of the support term) or the support point fails every check of 1. */
// ctest: labels=unit timeout=120
#include "collision/ellipsoid_walls.h"
#include "collision/cylinder_contact.h"
#include "bodies/ellipsoid.h"
#include "test_check.h"
#include "test_random.h"
#include <math.h>
#include <string.h>

static Wall tube(const double axis[3], double radius, double half_length, int inside)
{
  Wall w;
  memset(&w, 0, sizeof w);
  w.type = WALL_CYLINDER;
  v3_copy(w.axis, axis);
  w.radius      = radius;
  w.half_length = half_length;
  w.inside      = inside;
  return w;
}

/* distance of x from w's axis */
static double radial(const Wall *w, const double x[3])
{
  double d[3];
  v3_sub(d, x, w->center);
  v3_axpy(d, -v3_dot(d, w->axis), w->axis);
  return v3_norm(d);
}

static void random_unit(double u[3])
{
  do {
    v3_set(u, srand1(), srand1(), srand1());
  } while (v3_norm(u) < 0.1 || v3_norm(u) > 1);
  v3_scale(u, 1 / v3_norm(u), u);
}

/* 1. one pose against the sampled surface */
static void against_samples(const Wall *w, const double c[3], const double q[4], const double semi[3])
{
  ContactPoint pt;
  double       R[9], pb[3], d[3], nb[3], ext = w->inside ? -INFINITY : INFINITY, amax, on, rho, want;
  const int    nt = 300, np = 600;

  quat_to_matrix(q, R);
  amax = fmax(semi[0], fmax(semi[1], semi[2]));
  CHECK(narrow_cylinder_ellipsoid(w, c, q, semi, INFINITY, &pt) == 1, "a point within an infinite envelope");
  for (int i = 0; i <= nt; i++)
    for (int j = 0; j < np; j++) {
      const double th = M_PI * i / nt, ph = 2 * M_PI * j / np;
      const double b[3] = {semi[0] * sin(th) * cos(ph), semi[1] * sin(th) * sin(ph), semi[2] * cos(th)};
      double       x[3];
      mat_vec(x, R, b);
      v3_add(x, x, c);
      rho = radial(w, x);
      ext = w->inside ? fmax(ext, rho) : fmin(ext, rho);
    }
  want = w->inside ? w->radius - pt.phi : w->radius + pt.phi;
  CHECK(w->inside ? ext <= want + 1e-12 : ext >= want - 1e-12, "%s: a sample at %.15g from the axis beyond %.15g",
        w->inside ? "inside" : "outside", ext, want);
  CHECK(fabs(ext - want) < 1e-3 * amax, "%s: samples' extreme %.15g vs the kernel's %.15g",
        w->inside ? "inside" : "outside", ext, want);
  v3_sub(d, pt.p2, c);
  mat_tvec(pb, R, d);
  on = pb[0] * pb[0] / (semi[0] * semi[0]) + pb[1] * pb[1] / (semi[1] * semi[1]) + pb[2] * pb[2] / (semi[2] * semi[2]);
  CHECK(fabs(sqrt(on) - 1) * amax < 1e-12, "p2 off the surface by %.3e", fabs(sqrt(on) - 1) * amax);
  CHECK(fabs(radial(w, pt.p2) - want) < 1e-12, "p2 at %.15g from the axis, the gap says %.15g", radial(w, pt.p2), want);
  for (int k = 0; k < 3; k++) nb[k] = pb[k] / (semi[k] * semi[k]);
  mat_vec(d, R, nb);
  v3_scale(d, 1 / v3_norm(d), d);
  v3_add(d, d, pt.n);
  CHECK(v3_norm(d) < 1e-9, "the normal is not minus the outward normal at p2: off by %.3e", v3_norm(d));
  v3_sub(d, pt.p2, pt.p1);
  CHECK(fabs(v3_dot(d, pt.n) - pt.phi) < 1e-12 && fabs(v3_norm(pt.n) - 1) < 1e-14, "(p2 - p1) . n %.15g, gap %.15g",
        v3_dot(d, pt.n), pt.phi);
}

static double dist3(const double a[3], const double b[3])
{
  double d[3];
  v3_sub(d, a, b);
  return v3_norm(d);
}

static int close3(const double a[3], const double b[3], double tol)
{
  double d[3];
  v3_sub(d, a, b);
  return v3_norm(d) <= tol;
}

int main(void)
{
  const double id[4] = {1, 0, 0, 0};
  ContactPoint pt, ps;
  int          n1 = 0, n2 = 0;

  for (int k = 0; k < 60; k++) { /* 1. */
    double axis[3], q[4] = {srand1(), srand1(), srand1(), srand1()}, semi[3], c[3], u[3], t[3];
    Wall   w;
    random_unit(axis);
    quat_normalize(q);
    for (int j = 0; j < 3; j++) semi[j] = 0.02 + 0.08 * urand();
    w = tube(axis, 0.5, INFINITY, k % 2 == 0);
    v3_set(w.center, srand1(), srand1(), srand1());
    v3_tangents(axis, u, t);
    v3_copy(c, w.center);
    v3_axpy(c, srand1(), axis);
    /* inside: centre within 0.4 of the axis; outside: between 0.55 and 0.9 (clear of the axis) */
    v3_axpy(c, w.inside ? 0.4 * urand() : 0.55 + 0.35 * urand(), u);
    against_samples(&w, c, q, semi);
  }
  for (int k = 0; k < 400; k++) { /* 2. */
    const double axis[3] = {0, 0, 1};
    const Wall   w       = tube(axis, 0.5, 0.5, k % 2 == 0);
    double       c[3], u[3], t[3], r = 0.02 + 0.08 * urand(), q[4] = {srand1(), srand1(), srand1(), srand1()};
    const double semi[3] = {r, r, r};
    int          a, b;
    quat_normalize(q);
    v3_tangents(axis, u, t);
    v3_set(c, 0, 0, 0.7 * srand1());
    v3_axpy(c, (w.inside ? 0.5 : 0.6) * urand(), u);
    v3_axpy(c, 0.05 * srand1(), t);
    a = narrow_cylinder_sphere(&w, c, r, 0.2, &ps);
    b = narrow_cylinder_ellipsoid(&w, c, q, semi, 0.2, &pt);
    CHECK(a == b, "sphere: %d points, ellipsoid %d", a, b);
    if (a && b) {
      n1 += fabs(c[2]) <= 0.5;
      n2 += fabs(c[2]) > 0.5;
      CHECK(fabs(ps.phi - pt.phi) < 1e-12 && close3(ps.n, pt.n, 1e-12) && close3(ps.p1, pt.p1, 1e-12) &&
              close3(ps.p2, pt.p2, 1e-12),
            "a = b = c: gap %.15g vs the sphere's %.15g (centre %g %g %g, %s; normal %.3e p1 %.3e p2 %.3e)", pt.phi,
            ps.phi, c[0], c[1], c[2], w.inside ? "inside" : "outside", dist3(ps.n, pt.n), dist3(ps.p1, pt.p1),
            dist3(ps.p2, pt.p2));
    }
  }
  CHECK(n1 > 50 && n2 > 50, "a = b = c: %d face and %d rim contacts compared, want > 50 each", n1, n2);
  { /* 3. */
    const double x[3] = {1, 0, 0}, semi[3] = {0.1, 0.05, 0.02}, c[3] = {0.2, 0, -0.3}, h = sqrt(0.5);
    const double turn[4] = {h, h, 0, 0}, p[3] = {0, 0.3, 0};
    Wall         w = tube(x, 0.5, INFINITY, 1);
    CHECK(narrow_cylinder_ellipsoid(&w, c, id, semi, 0.5, &pt) == 1 && fabs(pt.phi - 0.18) < 1e-15 &&
            fabs(pt.p2[2] + 0.32) < 1e-15 && fabs(pt.p1[2] + 0.5) < 1e-15 && fabs(pt.n[2] - 1) < 1e-15,
          "drum, z tip down: gap %.17g (want 0.18), p2 z %.17g (want -0.32), p1 z %.17g, normal z %.17g", pt.phi,
          pt.p2[2], pt.p1[2], pt.n[2]);
    CHECK(narrow_cylinder_ellipsoid(&w, c, turn, semi, 0.5, &pt) == 1 && fabs(pt.phi - 0.15) < 1e-15,
          "drum, y tip down: gap %.17g (want 0.15)", pt.phi);
    CHECK(narrow_cylinder_ellipsoid(&w, c, id, semi, 0.18, &pt) == 0, "a gap of 0.18 at an envelope of 0.18");
    w = tube(x, 0.1, INFINITY, 0);
    CHECK(narrow_cylinder_ellipsoid(&w, p, id, semi, 0.5, &pt) == 1 && fabs(pt.phi - 0.15) < 1e-15 &&
            fabs(pt.n[1] - 1) < 1e-15 && fabs(pt.p2[1] - 0.25) < 1e-15,
          "pillar: gap %.17g (want 0.15), normal y %.17g, p2 y %.17g (want 0.25)", pt.phi, pt.n[1], pt.p2[1]);
  }
  if (failures) printf("%d check(s) failed\n", failures);
  else printf("ellipsoid - cylinder wall: all checks passed\n");
  return failures != 0;
}
