/* Penalty model, sphere on an incline (paper sec. 4.3 and App. D): the sphere of sec. 4.3 (R = 0.2 m,
 * m = 5 kg, solid, J = 0.4 m R^2, mu_s = 0.25, mu_k = 0.2, K_E = 1e5 N/m) released at rest on the
 * slope, for 11 angles x 3 rolling resistances eta_r. After 2 s its steady state is classified
 * from the centre speed v (along the slope) and the contact-point slip speed v - w R:
 *   static (S):             |v| < 1e-6 m/s and |w R| < 1e-6 m/s;
 *   pure rolling (PR):      |v| >= 1e-6 m/s and |v - w R| < 1e-3 |v| (slide static, roll kinetic);
 *   rolling with slip (RwS): the rest (both kinetic).
 * (A static sphere moves at ~1e-13 m/s, rounding only; a rolling one slips at 3e-4 |v|, the overlap's
 * lever-arm difference delta / 2R; a slipping one at > 0.1 m/s.)
 *
 * Boundaries used (eta_r < 0.5, so pure sliding does not occur):
 *   S  iff alpha <= atan(2 eta_r mu_s): App. D exactly (the static rolling torque 2 eta_r R mu_s N
 *      holds m g sin a R);
 *   PR iff atan(2 eta_r mu_s) < alpha <= atan(3.5 mu_s - 5 eta_r mu_s);
 *   RwS otherwise.
 * The PR bound is App. D's derivation (pure rolling needs the static slide force
 * (0.4 m g sin a + T / R) / 1.4 <= mu_s N) with the rolling torque T at its static peak 2 eta_r R mu_s N
 * instead of the kinetic 2 eta_r R mu_k N: a sphere released at rest loads its roll micro-deflection
 * through the static threshold before it turns kinetic, so the slide must carry that peak. App.
 * D's form, atan(3.5 mu_s - 5 eta_r mu_k), is where a sphere already rolling with a kinetic roll
 * deflection stays in pure rolling; between the two bounds both PR and RwS are steady states and
 * the history decides (measured: launched up the slope at 0.5 m/s as in Fig. 11, 5 of these 33
 * points ended in the neighbouring regime, 2 static ones rolling and 3 rolling ones slipping).
 * Damping: slide default (critical, eq. 1c); roll_damping 3 (overdamped). App. D is a static
 * analysis, so the roll deflection must load without overshooting its static threshold. D_R =
 * 2 sqrt(I K_R) with I = J is critical only for a sphere turning in place; rolling about its
 * contact point the inertia is J + m R^2 = 3.5 J, so the default is underdamped (ratio 0.53) and,
 * measured, overshoots the static threshold at 7 deg (eta_r 0.3) and 10 deg (eta_r 0.4); sqrt(3.5)
 * = 1.87 still failed at 10 deg (the slide spring couples in); 3 loads monotonically (used here).
 * Points within 0.5 deg of a boundary are skipped (there the steady state depends on transients
 * the analysis leaves out). Every other point must land in its regime. */
#include "test_penalty.h"

enum {
  STATIC,
  PURE_ROLLING,
  ROLLING_WITH_SLIP
};
static const char *const names[] = {"S", "PR", "RwS"};

int main(int argc, char **argv)
{
  const double deg[] = {2, 4, 7, 10, 13, 16, 20, 24, 28, 32, 36}, etas[] = {0.2, 0.3, 0.4}, R = 0.2;
  int          checked = 0, skipped = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (int e = 0; e < 3; e++) {
    const double b1 = atan(2 * etas[e] * PEN_MU_S) * 180 / M_PI,
                 b2 = atan(3.5 * PEN_MU_S - 5 * etas[e] * PEN_MU_S) * 180 / M_PI;
    printf("eta_r = %.1f: static up to %.2f deg, pure rolling up to %.2f deg, then rolling with slip\n", etas[e], b1,
           b2);
    for (size_t k = 0; k < sizeof(deg) / sizeof(deg[0]); k++) {
      const double a      = deg[k] * M_PI / 180;
      const int    expect = deg[k] <= b1 ? STATIC : (deg[k] <= b2 ? PURE_ROLLING : ROLLING_WITH_SLIP);
      PenSphere    p =
        {.alpha = a, .radius = R, .mass = 5, .eta_r = etas[e], .extra_contact = "roll_damping: 3, ", .h = 1e-4};
      Simulation sim;
      double     w[3], v, slip;
      int        got;
      if (fabs(deg[k] - b1) < 0.5 || fabs(deg[k] - b2) < 0.5) {
        printf("  %4.1f deg: skipped (within 0.5 deg of a boundary)\n", deg[k]);
        skipped++;
        continue;
      }
      PetscCall(PenSphereCreate(&p, &sim));
      PetscCall(TestRunUntil(sim, 2.0));
      PenOmegaWorld(sim, w);
      v = SimulationBodies(sim)->vel[0];
      {
        const double wr = w[1] * R; /* rolling downhill (-x) without slip: w_y R = v */
        slip            = v - wr;
        if (fabs(v) < 1e-6 && fabs(wr) < 1e-6) got = STATIC;
        else got = fabs(slip) < 1e-3 * fabs(v) ? PURE_ROLLING : ROLLING_WITH_SLIP;
      }
      printf("  %4.1f deg: v = %+.3e m/s, v - w R = %+.3e m/s: %s (expected: %s)\n", deg[k], v, slip, names[got],
             names[expect]);
      TEST_CHECK(got == expect, "eta_r %.1f, %.1f deg: steady state %s, the boundaries say %s", etas[e], deg[k],
                 names[got], names[expect]);
      checked++;
      PetscCall(SimulationDestroy(&sim));
    }
  }
  printf("%d points checked, %d skipped\n", checked, skipped);
  TEST_CHECK(checked >= 28, "only %d points checked; the issue asks for at least 10 angles x 3 eta_r", checked);
  int rc = TestFinish("penalty sphere on incline sweep");
  PetscCall(PetscFinalize());
  return rc;
}
