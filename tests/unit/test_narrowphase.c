/* Unit test of the narrowphase kernels (src/collision/narrowphase.c) against analytic geometry:
 *   - sphere-sphere along an oblique direction for gaps below, at and above zero and beyond the
 *     envelope;
 *   - tilted plane against sphere (point offset along the plane, gaps of both signs);
 *   - rotated box against sphere in the face, edge and vertex regions, with the centre inside the
 *     box (normal along the face of least penetration), and beyond the envelope;
 *   - tilted plane against box: a resting face gives 4 points (vertices 0-3) with equal phi; an edge
 *     down gives 2, a vertex down 1; a thin box with all 8 vertices within the envelope keeps the
 *     4 deepest.
 * Expected values are built here from axis-angle rotations (Rodrigues' formula), independently of
 * the quaternion code the kernels use. Every returned point is also checked for |n| = 1 and
 * phi = (p2 - p1) . n. */
// ctest: labels=unit timeout=30
#include "collision/narrowphase.h"
#include <math.h>
#include <stdio.h>

/* Coordinates are O(1); the kernels and the expected values each take a few roundings of O(1)
 * numbers (~1e-16 each), and the quaternion and Rodrigues rotation matrices agree to a few ulps,
 * so 1e-12 has a margin of three orders of magnitude while any wrong formula is off by O(0.01). */
#define TOL 1e-12

#include "test_check.h"

static double dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static double dist3(const double a[3], const double b[3])
{
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}
static void normalize(double a[3])
{
  const double s = 1.0 / sqrt(dot(a, a));
  a[0] *= s;
  a[1] *= s;
  a[2] *= s;
}
/* r = base + s0 a + s1 b + s2 c (any of a, b, c may be NULL) */
static void combo(double r[3], const double base[3], double s0, const double a[3], double s1, const double b[3],
                  double s2, const double c[3])
{
  for (int k = 0; k < 3; k++) r[k] = base[k] + (a ? s0 * a[k] : 0) + (b ? s1 * b[k] : 0) + (c ? s2 * c[k] : 0);
}

/* A rotation by angle t about unit axis u: its quaternion and (Rodrigues) the images of e_x, e_y, e_z. */
typedef struct {
  double q[4], ex[3], ey[3], ez[3];
} Rotation;
static void rotation_axis_angle(Rotation *R, const double axis[3], double t)
{
  double u[3] = {axis[0], axis[1], axis[2]};
  normalize(u);
  R->q[0]         = cos(t / 2);
  R->q[1]         = sin(t / 2) * u[0];
  R->q[2]         = sin(t / 2) * u[1];
  R->q[3]         = sin(t / 2) * u[2];
  double *cols[3] = {R->ex, R->ey, R->ez};
  for (int j = 0; j < 3; j++) { /* R e_j = cos t e_j + sin t (u x e_j) + (1 - cos t) u_j u */
    double e[3] = {0, 0, 0}, uxe[3];
    e[j]        = 1;
    uxe[0]      = u[1] * e[2] - u[2] * e[1];
    uxe[1]      = u[2] * e[0] - u[0] * e[2];
    uxe[2]      = u[0] * e[1] - u[1] * e[0];
    for (int k = 0; k < 3; k++) cols[j][k] = cos(t) * e[k] + sin(t) * uxe[k] + (1 - cos(t)) * u[j] * u[k];
  }
}
/* world point of box-local (x, y, z) */
static void box_point(double r[3], const double c[3], const Rotation *R, double x, double y, double z)
{
  combo(r, c, x, R->ex, y, R->ey, z, R->ez);
}

static void check_consistent(const ContactPoint *p, const char *what)
{
  double d[3] = {p->p2[0] - p->p1[0], p->p2[1] - p->p1[1], p->p2[2] - p->p1[2]};
  CHECK(fabs(sqrt(dot(p->n, p->n)) - 1) < TOL, "%s: |n| = %.17g", what, sqrt(dot(p->n, p->n)));
  CHECK(fabs(dot(d, p->n) - p->phi) < TOL, "%s: (p2 - p1).n = %.17g but phi = %.17g", what, dot(d, p->n), p->phi);
}
static void check_point(const ContactPoint *p, const double n[3], const double p1[3], const double p2[3], double phi,
                        const char *what)
{
  CHECK(dist3(p->n, n) < TOL, "%s: n = (%g %g %g), expected (%g %g %g)", what, p->n[0], p->n[1], p->n[2], n[0], n[1],
        n[2]);
  CHECK(dist3(p->p1, p1) < TOL, "%s: p1 = (%.15g %.15g %.15g), expected (%.15g %.15g %.15g)", what, p->p1[0], p->p1[1],
        p->p1[2], p1[0], p1[1], p1[2]);
  CHECK(dist3(p->p2, p2) < TOL, "%s: p2 = (%.15g %.15g %.15g), expected (%.15g %.15g %.15g)", what, p->p2[0], p->p2[1],
        p->p2[2], p2[0], p2[1], p2[2]);
  CHECK(fabs(p->phi - phi) < TOL, "%s: phi = %.17g, expected %.17g", what, p->phi, phi);
  check_consistent(p, what);
}

static const double envelope = 0.1;

static void test_sphere_sphere(void)
{
  const double c1[3] = {0.1, -0.2, 0.3}, r1 = 0.5, r2 = 0.25;
  const double d[3]   = {2.0 / 7, -3.0 / 7, 6.0 / 7}; /* unit */
  const double gaps[] = {-0.1, -1e-9, 0.0, 0.05, 0.0999, 0.1001, 0.3};
  for (size_t k = 0; k < sizeof(gaps) / sizeof(gaps[0]); k++) {
    const double g = gaps[k];
    double       c2[3], p1[3], p2[3];
    ContactPoint cp;
    char         what[64];
    combo(c2, c1, r1 + r2 + g, d, 0, NULL, 0, NULL);
    combo(p1, c1, r1, d, 0, NULL, 0, NULL);
    combo(p2, c2, -r2, d, 0, NULL, 0, NULL);
    snprintf(what, sizeof(what), "sphere-sphere gap %g", g);
    const int np = narrow_sphere_sphere(c1, r1, c2, r2, envelope, &cp);
    CHECK(np == (g < envelope), "%s: %d points", what, np);
    if (np == 1) check_point(&cp, d, p1, p2, g, what);
    /* the same pair seen from the other side: normal reversed */
    const int nq = narrow_sphere_sphere(c2, r2, c1, r1, envelope, &cp);
    CHECK(nq == np, "%s reversed: %d points, forward %d", what, nq, np);
    if (nq == 1) {
      const double nd[3] = {-d[0], -d[1], -d[2]};
      check_point(&cp, nd, p2, p1, g, what);
    }
  }
  printf("sphere-sphere: gaps -0.1 .. 0.3 along an oblique direction, both orders\n");
}

static void test_plane_sphere(void)
{
  const double p[3] = {1, 2, -1}, n[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3}, r = 0.4;
  double       t1[3] = {2, -1, 0}, t2[3]; /* in-plane directions */
  normalize(t1);
  t2[0]               = n[1] * t1[2] - n[2] * t1[1];
  t2[1]               = n[2] * t1[0] - n[0] * t1[2];
  t2[2]               = n[0] * t1[1] - n[1] * t1[0];
  const double gaps[] = {-0.2, 0.0, 0.07, 0.15};
  for (size_t k = 0; k < sizeof(gaps) / sizeof(gaps[0]); k++) {
    const double g = gaps[k];
    double       foot[3], c[3], p2[3];
    ContactPoint cp;
    char         what[64];
    combo(foot, p, 0.7, t1, -1.3, t2, 0, NULL);
    combo(c, foot, r + g, n, 0, NULL, 0, NULL);
    combo(p2, c, -r, n, 0, NULL, 0, NULL);
    snprintf(what, sizeof(what), "plane-sphere gap %g", g);
    const int np = narrow_plane_sphere(p, n, c, r, envelope, &cp);
    CHECK(np == (g < envelope), "%s: %d points", what, np);
    if (np == 1) check_point(&cp, n, foot, p2, g, what);
  }
  printf("plane-sphere: tilted plane, gaps -0.2 .. 0.15\n");
}

static void test_box_sphere(void)
{
  const double bc[3] = {0.3, -0.1, 0.7}, he[3] = {0.5, 0.3, 0.2}, axis[3] = {1, 2, -0.5}, r = 0.25;
  Rotation     R;
  double       c[3], n[3], p1[3], p2[3];
  ContactPoint cp;
  int          np;
  rotation_axis_angle(&R, axis, 0.7);

  /* face +z, centre above the face at gap 0.04 */
  box_point(c, bc, &R, 0.1, -0.05, he[2] + r + 0.04);
  box_point(p1, bc, &R, 0.1, -0.05, he[2]);
  combo(p2, c, -r, R.ez, 0, NULL, 0, NULL);
  np = narrow_box_sphere(bc, R.q, he, c, r, envelope, &cp);
  CHECK(np == 1, "box-sphere face: %d points", np);
  if (np == 1) check_point(&cp, R.ez, p1, p2, 0.04, "box-sphere face");

  /* face -y, overlapping by 0.03 */
  box_point(c, bc, &R, -0.2, -(he[1] + r - 0.03), 0.1);
  box_point(p1, bc, &R, -0.2, -he[1], 0.1);
  combo(n, (double[3]){0, 0, 0}, -1, R.ey, 0, NULL, 0, NULL);
  combo(p2, c, -r, n, 0, NULL, 0, NULL);
  np = narrow_box_sphere(bc, R.q, he, c, r, envelope, &cp);
  CHECK(np == 1, "box-sphere face -y: %d points", np);
  if (np == 1) check_point(&cp, n, p1, p2, -0.03, "box-sphere face -y");

  /* edge (+x, +z): local offset (a, 0, b) from the edge point (he_x, 0.1, he_z) */
  {
    const double a = 0.12, b = 0.16, dist = 0.2; /* 3-4-5 */
    box_point(c, bc, &R, he[0] + a, 0.1, he[2] + b);
    box_point(p1, bc, &R, he[0], 0.1, he[2]);
    combo(n, (double[3]){0, 0, 0}, a / dist, R.ex, 0, NULL, b / dist, R.ez);
    combo(p2, c, -r, n, 0, NULL, 0, NULL);
    np = narrow_box_sphere(bc, R.q, he, c, r, envelope, &cp);
    CHECK(np == 1, "box-sphere edge: %d points", np);
    if (np == 1) check_point(&cp, n, p1, p2, dist - r, "box-sphere edge");
  }
  /* vertex (+x, -y, +z): local offset (2, -3, 6)/7 * 0.21 from the vertex */
  {
    const double s = 0.21 / 7;
    box_point(c, bc, &R, he[0] + 2 * s, -he[1] - 3 * s, he[2] + 6 * s);
    box_point(p1, bc, &R, he[0], -he[1], he[2]);
    combo(n, (double[3]){0, 0, 0}, 2.0 / 7, R.ex, -3.0 / 7, R.ey, 6.0 / 7, R.ez);
    combo(p2, c, -r, n, 0, NULL, 0, NULL);
    np = narrow_box_sphere(bc, R.q, he, c, r, envelope, &cp);
    CHECK(np == 1, "box-sphere vertex: %d points", np);
    if (np == 1) check_point(&cp, n, p1, p2, 0.21 - r, "box-sphere vertex");
  }
  /* centre inside, nearest the +x face (depths: x 0.05, y 0.3 - 0.1, z 0.2 - 0.05) */
  box_point(c, bc, &R, 0.45, 0.1, -0.05);
  box_point(p1, bc, &R, he[0], 0.1, -0.05);
  combo(p2, c, -r, R.ex, 0, NULL, 0, NULL);
  np = narrow_box_sphere(bc, R.q, he, c, r, envelope, &cp);
  CHECK(np == 1, "box-sphere inside +x: %d points", np);
  if (np == 1) check_point(&cp, R.ex, p1, p2, -0.05 - r, "box-sphere inside +x");
  /* centre inside, nearest the -y face (depths: x 0.4, y 0.02, z 0.15) */
  box_point(c, bc, &R, -0.1, -0.28, 0.05);
  box_point(p1, bc, &R, -0.1, -he[1], 0.05);
  combo(n, (double[3]){0, 0, 0}, -1, R.ey, 0, NULL, 0, NULL);
  combo(p2, c, -r, n, 0, NULL, 0, NULL);
  np = narrow_box_sphere(bc, R.q, he, c, r, envelope, &cp);
  CHECK(np == 1, "box-sphere inside -y: %d points", np);
  if (np == 1) check_point(&cp, n, p1, p2, -0.02 - r, "box-sphere inside -y");
  /* beyond the envelope, off a face and off a vertex */
  box_point(c, bc, &R, 0.0, 0.0, he[2] + r + 0.11);
  CHECK(narrow_box_sphere(bc, R.q, he, c, r, envelope, &cp) == 0, "box-sphere far face: contact reported");
  box_point(c, bc, &R, he[0] + 0.25, he[1] + 0.25, he[2] + 0.25); /* corner distance 0.433 > r + env */
  CHECK(narrow_box_sphere(bc, R.q, he, c, r, envelope, &cp) == 0, "box-sphere far vertex: contact reported");
  printf("box-sphere: face, edge, vertex, centre inside (two faces), beyond the envelope\n");
}

/* Rotation taking e_z to unit n, then turned by psi about n: a box resting on the plane with normal n. */
static void rotation_onto(Rotation *R, const double n[3], double psi)
{
  Rotation     A, B;
  double       axis[3] = {-n[1], n[0], 0}; /* e_z x n */
  const double t       = acos(n[2]);
  rotation_axis_angle(&A, axis, t);
  rotation_axis_angle(&B, (double[3]){0, 0, 1}, psi);
  /* composition A * B: quaternion product and matrix columns A (B e_j) */
  const double *a = A.q, *b = B.q;
  R->q[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  R->q[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  R->q[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  R->q[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  combo(R->ex, (double[3]){0, 0, 0}, B.ex[0], A.ex, B.ex[1], A.ey, B.ex[2], A.ez);
  combo(R->ey, (double[3]){0, 0, 0}, B.ey[0], A.ex, B.ey[1], A.ey, B.ey[2], A.ez);
  combo(R->ez, (double[3]){0, 0, 0}, B.ez[0], A.ex, B.ez[1], A.ey, B.ez[2], A.ez);
}

static void vertex(double v[3], const double bc[3], const Rotation *R, const double he[3], int m)
{
  box_point(v, bc, R, (m & 1) ? he[0] : -he[0], (m & 2) ? he[1] : -he[1], (m & 4) ? he[2] : -he[2]);
}

static void test_plane_box(void)
{
  const double p[3] = {0.2, -0.4, 1.0}, he[3] = {0.5, 0.3, 0.2};
  double       n[3] = {0.3, -0.2, 0.9}, bc[3], v[3], p1[3];
  ContactPoint cp[NARROW_MAX_POINTS];
  Rotation     R;
  int          np;
  char         what[64];
  normalize(n);

  /* resting face, 0.001 into the plane: vertices 0-3 (local z = -he_z), in index order */
  rotation_onto(&R, n, 0.4);
  combo(bc, p, 0.15, R.ex, -0.35, R.ey, he[2] - 0.001, n);
  np = narrow_plane_box(p, n, bc, R.q, he, envelope, cp);
  CHECK(np == 4, "plane-box resting face: %d points", np);
  for (int k = 0; k < np && np == 4; k++) {
    vertex(v, bc, &R, he, k);
    combo(p1, v, 0.001, n, 0, NULL, 0, NULL);
    snprintf(what, sizeof(what), "plane-box resting face point %d", k);
    check_point(&cp[k], n, p1, v, -0.001, what);
  }
  for (int k = 1; k < np; k++)
    CHECK(fabs(cp[k].phi - cp[0].phi) < TOL, "plane-box resting face: phi %d = %.17g differs from %.17g", k, cp[k].phi,
          cp[0].phi);

  /* thin box (he_z 0.01) resting flat: all 8 vertices within the envelope, the bottom 4 kept */
  {
    const double thin[3] = {0.5, 0.3, 0.01};
    combo(bc, p, 0, NULL, 0, NULL, thin[2] - 0.002, n);
    np = narrow_plane_box(p, n, bc, R.q, thin, envelope, cp);
    CHECK(np == 4, "plane-box thin box: %d points", np);
    for (int k = 0; k < np && np == 4; k++) {
      vertex(v, bc, &R, thin, k);
      combo(p1, v, 0.002, n, 0, NULL, 0, NULL);
      snprintf(what, sizeof(what), "plane-box thin box point %d", k);
      check_point(&cp[k], n, p1, v, -0.002, what);
    }
  }

  /* edge down: box turned by +30 degrees about its x axis, so local (y, z) goes to height
   * y sin 30 + z cos 30 above the centre: (-he_y, -he_z), vertices 0 and 1, is lowest; the next
   * lowest, (+he_y, -he_z), are 2 he_y sin 30 = 0.3 higher, beyond the envelope */
  {
    Rotation     T, E;
    const double t = M_PI / 6, low = he[1] * sin(t) + he[2] * cos(t);
    rotation_onto(&T, n, 0.4);
    rotation_axis_angle(&E, (double[3]){1, 0, 0}, t);
    /* E first (about the box x axis), then T: quaternion T*E, columns T (E e_j) */
    const double *a = T.q, *b = E.q;
    R.q[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    R.q[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    R.q[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    R.q[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
    combo(R.ex, (double[3]){0, 0, 0}, E.ex[0], T.ex, E.ex[1], T.ey, E.ex[2], T.ez);
    combo(R.ey, (double[3]){0, 0, 0}, E.ey[0], T.ex, E.ey[1], T.ey, E.ey[2], T.ez);
    combo(R.ez, (double[3]){0, 0, 0}, E.ez[0], T.ex, E.ez[1], T.ey, E.ez[2], T.ez);
    combo(bc, p, -0.2, T.ex, 0.1, T.ey, low - 0.005, n);
    np = narrow_plane_box(p, n, bc, R.q, he, envelope, cp);
    CHECK(np == 2, "plane-box edge down: %d points", np);
    for (int k = 0; k < np && np == 2; k++) {
      const int m = k; /* x = -/+ he_x, y = -he_y, z = -he_z */
      vertex(v, bc, &R, he, m);
      combo(p1, v, 0.005, n, 0, NULL, 0, NULL);
      snprintf(what, sizeof(what), "plane-box edge point %d (vertex %d)", k, m);
      check_point(&cp[k], n, p1, v, -0.005, what);
    }
  }

  /* vertex down: the first of a few rotations about a fixed axis whose lowest vertex (found by
   * brute force) is more than envelope + 0.02 below all others; that vertex is put 0.01 below
   * the plane */
  {
    double hmin = 0, second = 0;
    int    mmin = -1;
    for (int trial = 1; trial <= 20; trial++) {
      rotation_axis_angle(&R, (double[3]){0.4, 1.0, 0.3}, 0.15 * trial);
      hmin = second = 1e300;
      for (int m = 0; m < 8; m++) {
        double h;
        vertex(v, (double[3]){0, 0, 0}, &R, he, m);
        h = dot(v, n);
        if (h < hmin) {
          second = hmin;
          hmin   = h;
          mmin   = m;
        } else if (h < second) second = h;
      }
      if (second - hmin > envelope + 0.02) break;
    }
    CHECK(second - hmin > envelope + 0.02, "plane-box vertex down: no test rotation with a single low vertex (%g, %g)",
          hmin, second);
    combo(bc, p, 0, NULL, 0, NULL, -hmin - 0.01, n);
    np = narrow_plane_box(p, n, bc, R.q, he, envelope, cp);
    CHECK(np == 1, "plane-box vertex down: %d points", np);
    if (np == 1) {
      vertex(v, bc, &R, he, mmin);
      combo(p1, v, 0.01, n, 0, NULL, 0, NULL);
      check_point(&cp[0], n, p1, v, -0.01, "plane-box vertex down");
    }
    /* lifted beyond the envelope */
    combo(bc, p, 0, NULL, 0, NULL, -hmin + 0.11, n);
    CHECK(narrow_plane_box(p, n, bc, R.q, he, envelope, cp) == 0, "plane-box lifted: contact reported");
  }
  printf(
    "plane-box: resting face (4 points, equal phi), thin box (4 deepest of 8), edge (2), vertex (1), lifted (0)\n");
}

int main(void)
{
  test_sphere_sphere();
  test_plane_sphere();
  test_box_sphere();
  test_plane_box();
  if (failures) printf("test_narrowphase: %d check(s) FAILED\n", failures);
  else printf("test_narrowphase: all checks passed\n");
  return failures ? 1 : 0;
}
