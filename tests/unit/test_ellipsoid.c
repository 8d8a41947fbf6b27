/* Unit test of the ellipsoid shape (bodies/shapes.h, bodies/ellipsoid.h) and its plane contact
 * (collision/ellipsoid_contact.c):
 *  - volume and principal moments against an independent integration by slices x = const (each an
 *    ellipse of semi-axes b s, c s, s^2 = 1 - x^2/a^2, whose area and second moments are pi B C,
 *    pi B^3 C / 4, pi B C^3 / 4): 3-point Gauss-Legendre on these polynomials of degree <= 4 in x is exact,
 *    so the two agree to rounding (tolerance 1e-12 relative);
 *  - plane contact of random ellipsoids in random poses: the deepest point is on the surface, its
 *    outward normal is the plane's inward one, no one of 20000 surface samples lies deeper, and the
 *    point on the plane lies on it (coordinates O(0.1), tolerance 1e-12: a few roundings);
 *  - the point nearest a point outside or inside (ellipsoid_closest_point, also on a symmetry plane):
 *    on the surface, along the normal there, and no one of 20000 surface samples nearer (1e-12 m);
 *  - the mean curvature of the closed form against the implicit surface's
 *    H = (|grad F|^2 tr(Hess F) - grad F . Hess F grad F) / (2 |grad F|^3), F = x^2/a^2 + y^2/b^2 + z^2/c^2,
 *    at random points (1e-10 relative), and Table 5's curvatures of the paper's sec. 4.5.2 ellipsoid
 *    (a = b = 0.02 m, c = 0.05 m): flat 29, upright 125, the equal-volume sphere 36.84 (the table's
 *    rounding: 0.05%).
 * Breaking the support point (diag(a, b, c) N / s instead of diag(a^2, b^2, c^2) N / s) fails the
 * plane and curvature checks; swapping two moments fails the mass check. */
// ctest: labels=unit timeout=60
#include "bodies/shapes.h"
#include "bodies/ellipsoid.h"
#include "collision/ellipsoid_contact.h"
#include "base/random.h"
#include "base/vec3.h"
#include "test_util.h"
#include <math.h>

static const double PI = 3.14159265358979323846;

static double rel(double a, double b) { return fabs(a - b) / fabs(b); }

static void check_mass(const double s[3])
{
  const double t[3] = {-sqrt(0.6), 0, sqrt(0.6)}, wt[3] = {5.0 / 9, 8.0 / 9, 5.0 / 9}; /* Gauss-Legendre, 3 nodes */
  double       V = 0, I[3] = {0, 0, 0}, moments[3];
  for (int k = 0; k < 3; k++) {
    const double x = s[0] * t[k], s2 = 1 - x * x / (s[0] * s[0]), w = s[0] * wt[k];
    const double B2 = s[1] * s[1] * s2, C2 = s[2] * s[2] * s2, BC = s[1] * s[2] * s2; /* B^2, C^2, B C */
    V += w * PI * BC;
    I[0] += w * PI * BC * (B2 + C2) / 4;
    I[1] += w * (PI * BC * C2 / 4 + x * x * PI * BC);
    I[2] += w * (PI * BC * B2 / 4 + x * x * PI * BC);
  }
  CHECK(rel(shape_volume(SHAPE_ELLIPSOID, s), V) < 1e-12, "volume %.17g vs slices %.17g",
        shape_volume(SHAPE_ELLIPSOID, s), V);
  shape_inertia(SHAPE_ELLIPSOID, s, V, moments);
  for (int a = 0; a < 3; a++)
    CHECK(rel(moments[a], I[a]) < 1e-12, "moment %d %.17g vs slices %.17g", a, moments[a], I[a]);
  CHECK(shape_bounding_radius(SHAPE_ELLIPSOID, s) == fmax(s[0], fmax(s[1], s[2])), "bounding radius");
}

static double uniform(uint64_t *r, double lo, double hi) { return lo + (hi - lo) * uniform01(r); }

static void random_unit(uint64_t *r, double v[3])
{
  do {
    v3_set(v, uniform(r, -1, 1), uniform(r, -1, 1), uniform(r, -1, 1));
  } while (!(v3_norm(v) > 0.1 && v3_norm(v) < 1));
  v3_scale(v, 1 / v3_norm(v), v);
}

static void check_plane(uint64_t *r)
{
  const double p[3] = {0.1, -0.2, 0.05};
  double       nrm[3], s[3], q[4], c[3], gradb[3], grad[3], tipb[3], x[3], cr[3], d[3];
  ContactPoint cp;
  random_unit(r, nrm);
  for (int a = 0; a < 3; a++) s[a] = uniform(r, 0.01, 0.1);
  q[0] = uniform(r, -1, 1);
  for (int a = 1; a < 4; a++) q[a] = uniform(r, -1, 1);
  quat_normalize(q);
  v3_copy(c, p);
  v3_axpy(c, uniform(r, 0, 0.12), nrm);
  if (!narrow_plane_ellipsoid(p, nrm, c, q, s, HUGE_VAL, &cp)) {
    CHECK(0, "no point with an infinite envelope");
    return;
  }
  v3_sub(d, cp.p2, c);
  quat_rotate_inv(tipb, q, d);
  CHECK(fabs(tipb[0] * tipb[0] / (s[0] * s[0]) + tipb[1] * tipb[1] / (s[1] * s[1]) + tipb[2] * tipb[2] / (s[2] * s[2]) -
             1) < 1e-12,
        "the deepest point is on the surface");
  for (int a = 0; a < 3; a++) gradb[a] = tipb[a] / (s[a] * s[a]);
  quat_rotate(grad, q, gradb);
  v3_scale(grad, 1 / v3_norm(grad), grad);
  v3_cross(cr, grad, nrm);
  CHECK(v3_norm(cr) < 1e-12 && v3_dot(grad, nrm) < 0, "the outward normal there is -n: |g x n| = %.3e", v3_norm(cr));
  CHECK(fabs(v3_dot(cp.n, nrm) - 1) < 1e-15, "normal is the plane's");
  v3_sub(d, cp.p1, p);
  CHECK(fabs(v3_dot(d, nrm)) < 1e-12, "p1 on the plane");
  v3_sub(d, cp.p2, p);
  CHECK(fabs(v3_dot(d, nrm) - cp.phi) < 1e-12, "phi is p2's height");
  for (int k = 0; k < 20000; k++) {
    double u[3], xb[3];
    random_unit(r, u);
    for (int a = 0; a < 3; a++) xb[a] = s[a] * u[a];
    quat_rotate(x, q, xb);
    v3_add(x, x, c);
    v3_sub(d, x, p);
    if (v3_dot(d, nrm) < cp.phi - 1e-14) {
      CHECK(0, "surface sample %d lies %.3e below the deepest point", k, cp.phi - v3_dot(d, nrm));
      break;
    }
  }
  CHECK(narrow_plane_ellipsoid(p, nrm, c, q, s, cp.phi, &cp) == 0, "no point when the gap is not below the envelope");
}

/* The nearest surface point to x (outside or inside, or on an axis): on the surface, x - p along the
 * normal there, and no one of 20000 surface samples nearer (all to 1e-12 m). */
static void check_closest(uint64_t *r, int axis)
{
  double s[3], u[3], x[3], p[3], g[3], d[3], cr[3], dist;
  for (int a = 0; a < 3; a++) s[a] = uniform(r, 0.01, 0.1);
  random_unit(r, u);
  if (axis >= 0) u[axis] = 0; /* on a symmetry plane: the inside case's degenerate branch */
  for (int a = 0; a < 3; a++) x[a] = s[a] * u[a] * uniform(r, 0.2, 3);
  dist = ellipsoid_closest_point(s, x, p);
  CHECK(fabs(p[0] * p[0] / (s[0] * s[0]) + p[1] * p[1] / (s[1] * s[1]) + p[2] * p[2] / (s[2] * s[2]) - 1) < 1e-12,
        "closest point on the surface");
  v3_sub(d, x, p);
  CHECK(fabs(fabs(dist) - v3_norm(d)) < 1e-15, "distance %.17g vs |x - p| %.17g", dist, v3_norm(d));
  for (int a = 0; a < 3; a++) g[a] = p[a] / (s[a] * s[a]);
  v3_cross(cr, g, d);
  CHECK(v3_norm(cr) < 1e-9 * v3_norm(g) * (v3_norm(d) + 1e-3), "x - p along the normal: |g x d| = %.3e", v3_norm(cr));
  CHECK((dist > 0) == (x[0] * x[0] / (s[0] * s[0]) + x[1] * x[1] / (s[1] * s[1]) + x[2] * x[2] / (s[2] * s[2]) > 1),
        "the sign says outside");
  for (int k = 0; k < 20000; k++) {
    double v[3], y[3];
    random_unit(r, v);
    for (int a = 0; a < 3; a++) y[a] = s[a] * v[a];
    v3_sub(d, x, y);
    if (v3_norm(d) < fabs(dist) - 1e-12) {
      CHECK(0, "surface sample %d is %.3e nearer than the closest point", k, fabs(dist) - v3_norm(d));
      break;
    }
  }
}

static void check_curvature(uint64_t *r)
{
  double s[3], N[3], x[3], g[3], hd[3], gg = 0, gHg = 0, tr = 0, H;
  for (int a = 0; a < 3; a++) s[a] = uniform(r, 0.01, 0.1);
  random_unit(r, N);
  ellipsoid_support_point(s, N, x);
  for (int a = 0; a < 3; a++) {
    hd[a] = 2 / (s[a] * s[a]);
    g[a]  = hd[a] * x[a];
    gg += g[a] * g[a];
    gHg += g[a] * hd[a] * g[a];
    tr += hd[a];
  }
  H = (gg * tr - gHg) / (2 * gg * sqrt(gg));
  CHECK(rel(ellipsoid_mean_curvature(s, N), H) < 1e-10, "mean curvature %.17g vs implicit %.17g",
        ellipsoid_mean_curvature(s, N), H);
}

int main(int argc, char **argv)
{
  uint64_t     r        = 37;
  const double paper[3] = {0.02, 0.02, 0.05}, up[3] = {0, 0, 1}, side[3] = {1, 0, 0}, R = cbrt(0.02 * 0.02 * 0.05);
  const double sph[3] = {R, R, R};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  check_mass(paper);
  check_mass((double[3]){0.05, 0.03, 0.02});
  check_mass((double[3]){0.2, 0.2, 0.5});
  for (int k = 0; k < 50; k++) check_plane(&r);
  for (int k = 0; k < 1000; k++) check_curvature(&r);
  for (int k = 0; k < 200; k++) check_closest(&r, k % 4 - 1);
  CHECK(rel(ellipsoid_mean_curvature(paper, side), 29) < 5e-4, "flat curvature %g vs Table 5's 29",
        ellipsoid_mean_curvature(paper, side));
  CHECK(rel(ellipsoid_mean_curvature(paper, up), 125) < 5e-4, "upright curvature %g vs Table 5's 125",
        ellipsoid_mean_curvature(paper, up));
  CHECK(rel(ellipsoid_mean_curvature(sph, up), 36.84) < 5e-4, "sphere curvature %g vs Table 5's 36.84",
        ellipsoid_mean_curvature(sph, up));
  printf("curvatures: flat %.4f, upright %.4f, sphere %.4f (Table 5: 29, 125, 36.84)\n",
         ellipsoid_mean_curvature(paper, side), ellipsoid_mean_curvature(paper, up), ellipsoid_mean_curvature(sph, up));
  int rc = TestFinish("ellipsoid shape and plane contact");
  PetscCall(PetscFinalize());
  return rc;
}
