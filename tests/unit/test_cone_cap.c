/* Unit test of the capped reaction set of a yielding contact (src/ccp/cone.h cone_cap after
 * cone_project3/6): the projection onto K and {gn <= Y}.
 *
 * Reference, independent of ccp/cone.c: for a point x, the nearest point of the set with normal entry
 * y0 keeps each block's direction and clamps its norm to m_b y0, so the squared distance is
 *   D(y0) = (y0 - x0)^2 + sum_b max(0, |x_b| - m_b y0)^2,
 * convex in y0; the projection is at the minimizer over [0, Y], found by bisection on the sign of D'
 * in long double (to the last bit). Each random x (normal, tangential, spin and rolling entries of
 * mixed sign and scale 1e-3..1e3, about a third of them above the cap, a third inside the cone, a
 * third far outside it) is projected by cone_project + cone_cap and compared with the reference:
 * 1e-12 of |x| (double rounding is ~1e-15; a wrong case would be O(1)). Also the optimality
 * condition (x - p) . (y - p) <= 0 for random points y of the set, with the same relative bound. */
// ctest: timeout=60
#include "ccp/cone.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>

typedef long double ld;

static uint64_t state = 0x9E3779B97F4A7C15ull;
static double   urand(void)
{
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z          = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z          = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (double)((z ^ (z >> 31)) >> 11) * 0x1p-53;
}
static double srand_scaled(void) { return (2 * urand() - 1) * pow(10.0, 6 * urand() - 3); }

/* blocks of a 6-vector: (1, 2) sliding with mu, (4, 5) rolling with rho, (3) spinning with sigma */
static ld block_norm(const double *x, int b)
{
  return b == 0 ? hypotl(x[1], x[2]) : b == 1 ? hypotl(x[4], x[5]) : fabsl((ld)x[3]);
}

/* D'(y0) / 2, nondecreasing (D is convex). */
static ld slope(int dof, const double c[3], const double *x, ld y0)
{
  ld d = y0 - x[0];
  for (int b = 0; b < (dof == 6 ? 3 : 1); b++) {
    const ld e = block_norm(x, b) - c[b] * y0;
    if (e > 0) d -= c[b] * e;
  }
  return d;
}

static void reference(int dof, const double c[3], double Y, const double *x, ld *p)
{
  ld lo = 0, hi = Y;
  for (int it = 0; it < 200; it++) { /* bisection on the sign of D' to the last bit */
    const ld mid = (lo + hi) / 2;
    if (slope(dof, c, x, mid) > 0) hi = mid;
    else lo = mid;
  }
  const ld y0 = (lo + hi) / 2;
  p[0]        = y0;
  for (int b = 0; b < (dof == 6 ? 3 : 1); b++) {
    const ld  n = block_norm(x, b), f = n > c[b] * y0 ? (n > 0 ? c[b] * y0 / n : 0) : 1;
    const int k[3][2] = {{1, 2}, {4, 5}, {3, 3}};
    p[k[b][0]]        = f * x[k[b][0]];
    p[k[b][1]]        = f * x[k[b][1]];
  }
  if (dof == 3) p[3] = p[4] = p[5] = 0;
}

int main(void)
{
  int    fails = 0, capped = 0;
  double worst = 0, worst_vi = 0;

  for (int t = 0; t < 20000; t++) {
    const int    dof  = t % 2 ? 6 : 3;
    const double c[3] = {urand(), 0.1 * urand(), 0.1 * urand()}, Y = pow(10.0, 4 * urand() - 2);
    double       x[6], p[6], xn = 0;
    ld           ref[6];
    for (int k = 0; k < 6; k++) x[k] = dof == 3 && k >= 3 ? 0 : srand_scaled();
    if (t % 3 == 0) x[0] = Y * (1 + 10 * urand()); /* above the cap */
    for (int k = 0; k < 6; k++) {
      p[k] = x[k];
      xn += x[k] * x[k];
    }
    xn = sqrt(xn);
    if (dof == 6) cone_project6(c[0], c[1], c[2], p);
    else cone_project3(c[0], p);
    capped += p[0] > Y;
    cone_cap(dof, c[0], c[1], c[2], Y, p);
    reference(dof, c, Y, x, ref);
    for (int k = 0; k < 6; k++) worst = fmax(worst, (double)fabsl(p[k] - ref[k]) / xn);
    for (int s = 0; s < 20; s++) { /* (x - p) . (y - p) <= 0 for y in the set */
      double       y[6] = {Y * urand()}, vi = 0;
      const double a1 = 2 * M_PI * urand(), a2 = 2 * M_PI * urand(), f1 = urand(), f2 = urand(), f3 = 2 * urand() - 1;
      y[1] = c[0] * y[0] * f1 * cos(a1);
      y[2] = c[0] * y[0] * f1 * sin(a1);
      y[3] = dof == 6 ? c[2] * y[0] * f3 : 0;
      y[4] = dof == 6 ? c[1] * y[0] * f2 * cos(a2) : 0;
      y[5] = dof == 6 ? c[1] * y[0] * f2 * sin(a2) : 0;
      for (int k = 0; k < 6; k++) vi += (x[k] - p[k]) * (y[k] - p[k]);
      worst_vi = fmax(worst_vi, vi / (xn * xn + Y * Y));
    }
  }
  if (worst > 1e-12) {
    printf("FAIL: cone_cap differs from the bisection reference by %.3e of |x|\n", worst);
    fails++;
  }
  if (worst_vi > 1e-9) {
    printf("FAIL: optimality (x - p).(y - p) <= 0 violated by %.3e (relative)\n", worst_vi);
    fails++;
  }
  if (capped < 5000) {
    printf("FAIL: only %d of 20000 points reached the cap; the test does not exercise it\n", capped);
    fails++;
  }
  printf("cone_cap: %d of 20000 projections capped; largest difference from the reference %.2e |x|, largest optimality "
         "violation %.2e\n",
         capped, worst, worst_vi);
  printf("cone_cap: %s\n", fails ? "FAILED" : "all checks passed");
  return fails ? 1 : 0;
}
