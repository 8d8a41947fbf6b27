/* Angle of repose analysis (src/analysis/repose.c) on synthetic cones of known angle: one layer of spheres
 * (d = 20 mm) on the surface z = H - r tan(a) of a cone 50 grains in radius, plus a few grains that
 * rolled far away (they must not count as the toe). The surface is quantized by the grain
 * columns (spacing d) and the ring binning (width d), which shifts ring heights by a near-constant
 * offset; over a flank of ~40 grains the slope error is below a degree, hence the 1 degree
 * tolerance. A layer 2 grains high must come out nearly flat (< 3 degrees). */
#include <petscsys.h>
#include <math.h>
#include "analysis/repose.h"
#include "test_check.h"

static double Measure(double angle_deg, double height_max, ReposeResult *res)
{
  const double  d = 0.02, R = 50 * d, t = tan(angle_deg * M_PI / 180);
  static double pos[3 * 20000], rad[20000];
  size_t        n = 0;
  for (int i = -50; i <= 50; i++)
    for (int j = -50; j <= 50; j++) {
      const double x = i * d, y = j * d, r = hypot(x, y);
      if (r > R) continue;
      const double top = fmin(height_max, (R - r) * t) + d; /* surface height at r, at least one grain */
      pos[3 * n]       = x;
      pos[3 * n + 1]   = y;
      pos[3 * n + 2]   = top - d / 2;
      rad[n]           = d / 2;
      n++;
    }
  for (int k = 0; k < 5; k++) { /* strays far out */
    pos[3 * n]     = 3 + k * 0.3;
    pos[3 * n + 1] = -2;
    pos[3 * n + 2] = d / 2;
    rad[n]         = d / 2;
    n++;
  }
  CHECK(repose_angle(n, pos, rad, NULL, 0.0, res) == 0, "no angle for the %g degree cone", angle_deg);
  return res->angle_deg;
}

int main(int argc, char **argv)
{
  ReposeResult res;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (double a = 15; a <= 40; a += 12.5) {
    const double got = Measure(a, 1e9, &res);
    printf("cone of %.1f deg: measured %.2f deg (+- %.2f), height %.3f m, flank to %.3f m\n", a, got,
           res.uncertainty_deg, res.height, res.radius);
    CHECK(fabs(got - a) < 1.0, "cone of %.1f deg measured as %.2f deg", a, got);
  }
  {
    const double got = Measure(30, 0.02, &res);
    printf("layer two grains high: %.2f deg\n", got);
    CHECK(got < 3.0, "a flat layer measured as %.2f deg", got);
  }
  PetscCall(PetscFinalize());
  if (failures) printf("test_repose: %d check(s) FAILED\n", failures);
  return failures ? 1 : 0;
}
