/* The small-angle series of base/vec3.h against long double references, over the range they are used
 * in (t^2 < 1e-4), from 1e-9 rad up, on 4000 angles:
 * 1. sinc_series(t^2) = sin(t) / t and 1 - t^2 cosc_series(t^2) = cos t within 1 ulp;
 *    cosc_series(t^2) = (1 - cos t) / t^2 (= 2 sin^2(t/2) / t^2, no cancellation) within 1 ulp.
 * 2. quat_integrate_world_series (turns below 0.01 rad) gives the quaternion of quat_integrate_world
 *    (sin(a / 2) / (a / h) and cos(a / 2) by sincos) within 2 ulps per component. */
#include "test_check.h"
#include "base/vec3.h"
#include <float.h>
#include <math.h>

/* |got - want| in ulps of want (as double) */
static double ulps(double got, long double want)
{
  const double w = (double)want;
  return (double)(fabsl((long double)got - want) / (nextafter(fabs(w), INFINITY) - fabs(w)));
}

int main(void)
{
  double worst[4] = {0, 0, 0, 0};
  int    n        = 0;

  for (int i = 0; i < 4000; i++) {
    const double      t = 1e-9 * pow(1e7 - 1, i / 3999.0) * 0.9999, t2 = t * t; /* 1e-9 .. just below 0.01 */
    const long double tl = sqrtl((long double)t2), half = sinl(tl / 2);
    const double      w[3] = {0.3 * t, -0.5 * t, sqrt(1 - 0.34) * t}, h = 1e-4;
    double            q[4] = {0.5, 0.5, -0.5, 0.5}, p[4] = {0.5, 0.5, -0.5, 0.5}, wh[3];
    worst[0] = fmax(worst[0], ulps(sinc_series(t2), sinl(tl) / tl));
    worst[1] = fmax(worst[1], ulps(1 - t2 * cosc_series(t2), cosl(tl)));
    worst[2] = fmax(worst[2], ulps(cosc_series(t2), 2 * half * half / (tl * tl)));
    v3_scale(wh, 1 / h, w); /* the angular velocity that turns by |w| in a step h */
    quat_integrate_world_series(q, wh, h);
    quat_integrate_world(p, wh, h);
    for (int k = 0; k < 4; k++) worst[3] = fmax(worst[3], ulps(q[k], p[k]));
    n++;
  }
  printf("%d angles: sinc %.2f, cos %.2f, cosc %.2f ulps; quat_integrate_world_series vs quat_integrate_world %.2f "
         "ulps\n",
         n, worst[0], worst[1], worst[2], worst[3]);
  CHECK(worst[0] <= 1 && worst[1] <= 1 && worst[2] <= 1, "a series is more than 1 ulp off");
  CHECK(worst[3] <= 2, "quat_integrate_world_series is more than 2 ulps from quat_integrate_world");
  return failures != 0;
}
