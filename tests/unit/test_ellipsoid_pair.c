/* Unit test of ellipsoid-ellipsoid contact (narrow_ellipsoid_ellipsoid, collision/ellipsoid_contact.c):
 *  - equal semi-axes: the sphere-sphere kernel's gap, normal and points within 1e-12 (coordinates O(1):
 *    the Newton starts on the centre line, which is the answer, so only roundings differ);
 *  - aligned pairs (centres on a shared axis of both): gap = distance - the two semi-axes along it,
 *    apart and overlapping, within 1e-12 m, normal along the axis;
 *  - random poses apart: the gap against the distance by sampling A's surface (a 120 x 240 grid in
 *    the polar angles, then a 100 x 100 grid over the best cell's 4 x 4 neighbourhood, each sample's
 *    distance to B by ellipsoid_closest_point): a sample is a surface point, so the reference is never
 *    below the distance (ours may be below it by rounding only, 1e-12 m), and with fine spacing
 *    ds <= 0.05 m x pi / 3000 = 5e-5 m it is above it by at most about kappa ds^2 / 2 <= 2.5e-7 m for
 *    the relative curvatures here (below 200 1/m): tolerance 1e-6 m;
 *  - random poses overlapping: minus the penetration depth against the largest g(n) over directions n
 *    sampled the same way (the support distances in each body's frame): ours at least that (it is the
 *    global maximum) less 1e-12, and at most 1e-6 m above it (g's second derivative is at most the
 *    bodies' size, 0.2 m, times ds^2 = 1e-6 rad^2);
 *  - in every case the points lie on the surfaces (implicit equation within 1e-9 relative) and
 *    p2 - p1 = phi n within 1e-12 m.
 * Stopping the Newton at its start (the centre line) fails the random and aligned-overlap cases;
 * squaring no semi-axis in the shape matrices fails every case. */
// ctest: labels=unit timeout=120
#include "bodies/ellipsoid.h"
#include "collision/ellipsoid_contact.h"
#include "base/random.h"
#include "base/vec3.h"
#include "test_util.h"
#include <math.h>

static const double PI = 3.14159265358979323846;

static double uniform(uint64_t *r, double lo, double hi) { return lo + (hi - lo) * uniform01(r); }

static void random_quat(uint64_t *r, double q[4])
{
  double n;
  do {
    for (int k = 0; k < 4; k++) q[k] = uniform(r, -1, 1);
    n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  } while (!(n > 0.1 && n < 1));
  for (int k = 0; k < 4; k++) q[k] /= n;
}

typedef struct {
  double c[3], q[4], s[3];
} Ell;

/* the point of e's surface at polar angles (t, f), world frame */
static void surface_point(const Ell *e, double t, double f, double x[3])
{
  const double b[3] = {e->s[0] * sin(t) * cos(f), e->s[1] * sin(t) * sin(f), e->s[2] * cos(t)};
  quat_rotate(x, e->q, b);
  v3_add(x, x, e->c);
}

/* the unit direction at polar angles (t, f) */
static void direction(double t, double f, double n[3]) { v3_set(n, sin(t) * cos(f), sin(t) * sin(f), cos(t)); }

/* distance from A's surface point (t, f) to B (> 0 apart) */
static double sample_distance(const Ell *A, const Ell *B, double t, double f)
{
  double x[3], d[3], xb[3], pb[3];
  surface_point(A, t, f, x);
  v3_sub(d, x, B->c);
  quat_rotate_inv(xb, B->q, d);
  return ellipsoid_closest_point(B->s, xb, pb);
}

/* g(n) = n.(cB - cA) - h_A(n) - h_B(-n), the support distances in the bodies' frames */
static double sample_g(const Ell *A, const Ell *B, double t, double f)
{
  double n[3], m[3], nb[3], d[3];
  direction(t, f, n);
  v3_sub(d, B->c, A->c);
  quat_rotate_inv(nb, A->q, n);
  v3_scale(m, -1.0, n);
  quat_rotate_inv(m, B->q, m);
  return v3_dot(n, d) - ellipsoid_support_distance(A->s, nb) - ellipsoid_support_distance(B->s, m);
}

/* the largest of sign * fn over a coarse grid of the polar angles, then a fine grid around its best */
static double sample_best(double (*fn)(const Ell *, const Ell *, double, double), double sign, const Ell *A,
                          const Ell *B)
{
  const int nt = 120, nf = 240, fine = 100;
  double    dt = PI / nt, df = 2 * PI / nf, best = -HUGE_VAL, bt = 0, bf = 0;
  for (int i = 0; i <= nt; i++)
    for (int j = 0; j < nf; j++) {
      const double v = sign * fn(A, B, i * dt, j * df);
      if (v > best) {
        best = v;
        bt   = i * dt;
        bf   = j * df;
      }
    }
  for (int i = 0; i <= fine; i++)
    for (int j = 0; j <= fine; j++) {
      const double t = fmin(PI, fmax(0, bt - 2 * dt + 4 * dt * i / fine)), f = bf - 2 * df + 4 * df * j / fine;
      best = fmax(best, sign * fn(A, B, t, f));
    }
  return sign * best;
}

static double on_surface(const Ell *e, const double p[3])
{
  double d[3], b[3], v = -1;
  v3_sub(d, p, e->c);
  quat_rotate_inv(b, e->q, d);
  for (int k = 0; k < 3; k++) v += b[k] * b[k] / (e->s[k] * e->s[k]);
  return v;
}

/* the contact of A and B (envelope infinite); checks the points and returns it */
static ContactPoint pair(const char *what, const Ell *A, const Ell *B)
{
  ContactPoint cp;
  double       d[3];
  if (!narrow_ellipsoid_ellipsoid(A->c, A->q, A->s, B->c, B->q, B->s, HUGE_VAL, &cp)) {
    CHECK(0, "%s: no point with an infinite envelope", what);
    return cp;
  }
  CHECK(fabs(on_surface(A, cp.p1)) < 1e-9 && fabs(on_surface(B, cp.p2)) < 1e-9,
        "%s: points on the surfaces (%.3e, %.3e)", what, on_surface(A, cp.p1), on_surface(B, cp.p2));
  v3_sub(d, cp.p2, cp.p1);
  v3_axpy(d, -cp.phi, cp.n);
  CHECK(v3_norm(d) < 1e-12 && fabs(v3_norm(cp.n) - 1) < 1e-14, "%s: p2 - p1 = phi n (off by %.3e m)", what, v3_norm(d));
  return cp;
}

static void check_spheres(uint64_t *r)
{
  const double ra = uniform(r, 0.1, 1), rb = uniform(r, 0.1, 1);
  Ell          A = {{uniform(r, -1, 1), uniform(r, -1, 1), uniform(r, -1, 1)}, {1, 0, 0, 0}, {ra, ra, ra}};
  Ell          B = {{uniform(r, -1, 1), uniform(r, -1, 1), uniform(r, -1, 1)}, {1, 0, 0, 0}, {rb, rb, rb}};
  ContactPoint s, e;
  random_quat(r, A.q);
  random_quat(r, B.q);
  e = pair("spheres", &A, &B);
  if (!narrow_sphere_sphere(A.c, ra, B.c, rb, HUGE_VAL, &s)) return;
  CHECK(fabs(e.phi - s.phi) < 1e-12, "spheres: gap %.17g vs sphere-sphere %.17g", e.phi, s.phi);
  for (int k = 0; k < 3; k++)
    CHECK(fabs(e.n[k] - s.n[k]) < 1e-12 && fabs(e.p1[k] - s.p1[k]) < 1e-12 && fabs(e.p2[k] - s.p2[k]) < 1e-12,
          "spheres: normal and points as sphere-sphere's (component %d)", k);
}

static void check_aligned(double D, int axis)
{
  /* B turned 90 degrees about z: its semi-axes along world x, y, z are 0.02, 0.04, 0.03 */
  const double h = sqrt(0.5), along_b[3] = {0.02, 0.04, 0.03};
  Ell          A = {{0, 0, 0}, {1, 0, 0, 0}, {0.05, 0.03, 0.02}}, B = {{0, 0, 0}, {h, 0, 0, h}, {0.04, 0.02, 0.03}};
  ContactPoint cp;
  char         what[64];
  B.c[axis] = D;
  snprintf(what, sizeof what, "aligned on axis %d at %g m", axis, D);
  cp = pair(what, &A, &B);
  CHECK(fabs(cp.phi - (D - A.s[axis] - along_b[axis])) < 1e-12, "%s: gap %.17g vs %.17g", what, cp.phi,
        D - A.s[axis] - along_b[axis]);
  CHECK(fabs(cp.n[axis] - 1) < 1e-12, "%s: normal along the axis", what);
}

static void check_random(uint64_t *r, int overlap)
{
  Ell          A, B;
  ContactPoint cp;
  double       u[3], d, ref;
  for (int k = 0; k < 3; k++) {
    A.s[k] = uniform(r, 0.01, 0.05);
    B.s[k] = uniform(r, 0.01, 0.05);
    u[k]   = uniform(r, -1, 1);
  }
  random_quat(r, A.q);
  random_quat(r, B.q);
  v3_set(A.c, 0.1, -0.2, 0.3);
  v3_scale(u, 1 / v3_norm(u), u);
  /* apart: beyond the bounding spheres' reach less 0.02; overlapping: within the inscribed spheres' reach */
  d = overlap ? uniform(r, 0.5, 1) * (fmin(A.s[0], fmin(A.s[1], A.s[2])) + fmin(B.s[0], fmin(B.s[1], B.s[2])))
              : fmax(A.s[0], fmax(A.s[1], A.s[2])) + fmax(B.s[0], fmax(B.s[1], B.s[2])) - 0.02 + uniform(r, 0.0, 0.03);
  v3_copy(B.c, A.c);
  v3_axpy(B.c, d, u);
  if (!overlap && sample_best(sample_distance, -1, &A, &B) <= 0) return; /* this draw touches: not a distance case */
  cp = pair(overlap ? "overlapping" : "apart", &A, &B);
  if (overlap) {
    ref = sample_best(sample_g, 1, &A, &B);
    CHECK(cp.phi < 0 && cp.phi >= ref - 1e-12 && cp.phi <= ref + 1e-6, "overlapping: gap %.12g vs sampled %.12g m",
          cp.phi, ref);
  } else {
    ref = sample_best(sample_distance, -1, &A, &B);
    CHECK(cp.phi <= ref + 1e-12 && cp.phi >= ref - 1e-6, "apart: gap %.12g vs sampled distance %.12g m", cp.phi, ref);
  }
}

int main(int argc, char **argv)
{
  uint64_t     r = 37;
  ContactPoint cp;
  const Ell    A = {{0, 0, 0}, {1, 0, 0, 0}, {0.05, 0.03, 0.02}}, B = {{0.2, 0, 0}, {1, 0, 0, 0}, {0.05, 0.03, 0.02}};
  (void)argc;
  (void)argv;
  for (int k = 0; k < 50; k++) check_spheres(&r);
  check_aligned(0.1, 0);
  check_aligned(0.068, 0);
  check_aligned(0.09, 1);
  check_aligned(0.06, 1);
  check_aligned(0.07, 2);
  check_aligned(0.045, 2);
  for (int k = 0; k < 12; k++) check_random(&r, 0);
  for (int k = 0; k < 12; k++) check_random(&r, 1);
  CHECK(narrow_ellipsoid_ellipsoid(A.c, A.q, A.s, B.c, B.q, B.s, 0.1, &cp) == 0, "no point when the gap (0.1 m) is not "
                                                                                 "below the envelope");
  return TestFinish("ellipsoid-ellipsoid contact");
}
