/* A box on a box on an incline slips at tan(alpha) = mu (issue 37), in both contact models. The
 * incline is gravity tilted by alpha, g (-sin a, 0, -cos a) ("downhill" is -x). The top box (half
 * extents 0.1, 0.1, 0.05 m, material "slick", mu = 0.3) rests on a lower box (0.2, 0.2, 0.05 m,
 * material "grip", mu = 0.9, on a plane of grip): the pair takes the smaller friction, 0.3, so
 * the lower box holds on the plane and the top box alone can slip. The lower box is a box body
 * (box-box contact between bodies) or a fixed box wall (box wall - box body). The threshold is
 * bracketed within 1%: at tan a = 0.99 mu the top box sticks, at 1.01 mu it slides with the relative
 * acceleration g (sin a - mu cos a) = 0.0283 m/s^2.
 *  - Stick: the top box's displacement relative to the lower one over 0..1 s below 1e-6 m (CCP: the
 *    solve to 1e-10 m/s leaves no creep; measured ~5e-13 m). The penalty model's corners slip at
 *    the start (the suddenly applied slope load overshoots the springs' static deflection, and at
 *    0.99 mu the threshold is only 1% above it) and then stick: from 0.5 s to 1 s the relative
 *    displacement is below 1e-9 m (a stuck tracked spring does not creep: test_penalty_brick) and
 *    every top-box contact is in stick mode.
 *  - Slide: the top box's acceleration from its speeds at 0.5 s and 1 s within 1% of
 *    g (sin a - mu cos a) (CCP: symplectic Euler is exact for a constant acceleration and the solve
 *    is to 1e-10 m/s, so only rounding and the solver tolerance are left; penalty: every corner at
 *    its kinetic cap, mu_k = mu_s, once the normal oscillation has died out, as in
 *    test_penalty_brick), the lower box held (within 1e-3 m; the penalty's lower box oscillates on
 *    its stuck springs, so the top box's own acceleration is taken, not the relative one). The slope
 *    is the lower box's top face: the penalty's lower box tilts on its compliant corners under the
 *    top box's friction (measured 2.8e-5 rad, 1% of the slip acceleration, which is only 1% of the
 *    slope's pull), so its angle b from the lower box's orientation replaces a. 1% of the
 *    acceleration is 0.03% of the friction force, against the bracket's 1% either side. */
// ctest: labels=validation timeout=600
#include "test_penalty.h"
#include "penalty/history.h"

#define MU 0.3

typedef enum {
  LOWER_BODY,
  LOWER_WALL
} Lower;

static PetscErrorCode MakeScene(PetscBool penalty, Lower lower, double alpha, Simulation *sim)
{
  char         yaml[8192], lower_text[512], grip[256], slick[256];
  const double k = 1e6, m_top = 4.0, m_low = 16.0;
  /* penalty: each box starts at its static overlap under the load it carries (4 corners) */
  const double d_top = penalty ? m_top * PEN_G * cos(alpha) / (4 * k) : 0,
               d_low = penalty && lower == LOWER_BODY ? (m_top + m_low) * PEN_G * cos(alpha) / (4 * k) : 0;
  const char *more   = penalty ? ", young_modulus: 1.0e8, poisson_ratio: 0.3, restitution: 0.2, "
                                 "tangential_stiffness: 1.0e5"
                               : "";

  PetscFunctionBegin;
  /* the penalty model's kinetic friction equals the static one: one threshold, as the CCP's */
  snprintf(grip, sizeof grip, "{name: grip, density: 1000, friction: 0.9%s%s}",
           penalty ? ", kinetic_friction: 0.9" : "", more);
  snprintf(slick, sizeof slick, "{name: slick, density: 1000, friction: %g%s%s}", MU,
           penalty ? ", kinetic_friction: 0.3" : "", more);
  if (lower == LOWER_BODY)
    snprintf(lower_text, sizeof lower_text,
             "bodies:\n  - {shape: box, half_extents: [0.2, 0.2, 0.05], position: [0, 0, %.17g], material: grip}\n",
             0.05 - d_low);
  else
    snprintf(lower_text, sizeof lower_text,
             "  - {type: box, center: [0, 0, 0.05], half_extents: [0.2, 0.2, 0.05], material: grip}\nbodies:\n");
  snprintf(yaml, sizeof(yaml),
           "domain: {min: [-5, -5, -1], max: [5, 5, 5]}\n"
           "gravity: [%.17g, 0, %.17g]\n"
           "time: {step: %g, end: 10}\n"
           "%s"
           "materials:\n  - %s\n  - %s\n"
           "walls:\n"
           "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: grip}\n"
           "%s"
           "  - {shape: box, half_extents: [0.1, 0.1, 0.05], position: [0, 0, %.17g], material: slick}\n",
           -PEN_G * sin(alpha), -PEN_G * cos(alpha), penalty ? 1e-4 : 0.002,
           penalty ? "contact: {model: penalty, normal: hooke, normal_stiffness: 1.0e6, envelope: 0.002}\n"
                   : "contact: {model: ccp, envelope: 0.005, max_recovery_speed: 0.5}\n"
                     "solver: {type: apgd, max_iterations: 5000, tolerance: 1.0e-10}\n",
           grip, slick, lower_text, 0.15 - d_low - d_top);
  PetscCall(TestSimulationFromText(yaml, sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The top box's position and velocity along x, and the lower box's (zero for the wall). */
static PetscErrorCode Motion(Simulation sim, Lower lower, double top[2], double low[2])
{
  double   xt[3] = {0}, vt[6] = {0}, xl[3] = {0}, vl[6] = {0};
  PetscInt found;

  PetscFunctionBegin;
  PetscCall(TestBodyGet(sim, lower == LOWER_BODY ? 1 : 0, xt, vt, &found));
  if (lower == LOWER_BODY) PetscCall(TestBodyGet(sim, 0, xl, vl, &found));
  top[0] = xt[0];
  top[1] = vt[0];
  low[0] = xl[0];
  low[1] = vl[0];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Bracket(PetscBool penalty, Lower lower)
{
  const char  *what  = penalty ? "penalty" : "CCP";
  const char  *under = lower == LOWER_BODY ? "box body" : "box wall";
  const double a_lo = atan(0.99 * MU), a_hi = atan(1.01 * MU);

  PetscFunctionBegin;
  { /* below: sticks (the penalty model: from 0.5 s on, after the start's slip) */
    Simulation   sim;
    const double t0 = penalty ? 0.5 : 0;
    double       top0[2], low0[2], top[2], low[2], moved, v;
    int          sticking = 0, n = 0;
    PetscCall(MakeScene(penalty, lower, a_lo, &sim));
    PetscCall(TestRunUntil(sim, t0));
    PetscCall(Motion(sim, lower, top0, low0));
    PetscCall(TestRunUntil(sim, 1.0));
    PetscCall(Motion(sim, lower, top, low));
    moved = (top[0] - low[0]) - (top0[0] - low0[0]);
    v     = top[1] - low[1];
    if (penalty)
      for (PetscInt i = 0; i < SimulationMemory(sim)->n; i++) {
        PenaltyHistory hst;
        if (SimulationMemory(sim)->key[i].idb != (lower == LOWER_BODY ? 1 : 0) ||
            SimulationMemory(sim)->key[i].ida != (lower == LOWER_BODY ? 0 : -2))
          continue;
        memcpy(&hst, SimulationMemory(sim)->gamma + (size_t)PENALTY_HISTORY_WIDTH * i, sizeof(hst));
        n++;
        sticking += penalty_state_has(&hst, PENALTY_TOUCHING) && !penalty_state_has(&hst, PENALTY_SLIDE_SLIP);
      }
    printf("%s, top box on a %s, tan a = 0.99 mu: relative displacement over %g..1 s %.3e m, relative speed %.3e "
           "m/s",
           what, under, t0, moved, v);
    if (penalty) printf(", %d of %d top contacts sticking", sticking, n);
    printf("\n");
    TEST_CHECK(fabs(moved) < (penalty ? 1e-9 : 1e-6), "%s on a %s below the friction angle: the top box slipped %.3e m",
               what, under, moved);
    TEST_CHECK(fabs(v) < 1e-6, "%s on a %s below the friction angle: relative speed %.3e m/s", what, under, v);
    TEST_CHECK(!penalty || (n == 4 && sticking == 4), "%s on a %s: %d of %d top contacts sticking, want 4 of 4", what,
               under, sticking, n);
    PetscCall(SimulationDestroy(&sim));
  }
  { /* above: slides */
    Simulation sim;
    double     exact = -PEN_G * (sin(a_hi) - MU * cos(a_hi)), beta = a_hi;
    double     top1[2], low1[2], top2[2], low2[2], acc;
    PetscCall(MakeScene(penalty, lower, a_hi, &sim));
    PetscCall(TestRunUntil(sim, 0.5));
    PetscCall(Motion(sim, lower, top1, low1));
    PetscCall(TestRunUntil(sim, 1.0));
    PetscCall(Motion(sim, lower, top2, low2));
    acc = (top2[1] - top1[1]) / 0.5;
    if (lower == LOWER_BODY) { /* the slope the top box sees: the lower box's top face, tilted on its contacts */
      const PetscInt i = SimulationFindBody(sim, 0);
      double         R[9], n[3];
      quat_to_matrix(SimulationBodies(sim)->quat + 4 * i, R);
      v3_set(n, R[2], R[5], R[8]);
      beta  = acos(sin(a_hi) * n[0] + cos(a_hi) * n[2]);
      exact = -PEN_G * (sin(beta) - MU * cos(beta));
    }
    printf("%s, top box on a %s, tan a = 1.01 mu: acceleration %.6f m/s^2, g (sin b - mu cos b) = %.6f (relative "
           "error %.2e; b - a = %.2e rad, the lower box's tilt); the lower box moved %.3e m\n",
           what, under, acc, exact, acc / exact - 1, beta - a_hi, low2[0]);
    TEST_CHECK(fabs(acc / exact - 1) < 0.01, "%s on a %s above the friction angle: acceleration %.6f, want %.6f", what,
               under, acc, exact);
    TEST_CHECK(fabs(low2[0]) < 1e-3, "%s: the lower box moved %.3e m", what, low2[0]);
    PetscCall(SimulationDestroy(&sim));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (int p = 0; p < 2; p++)
    for (int l = 0; l < 2; l++) PetscCall(Bracket(p ? PETSC_TRUE : PETSC_FALSE, (Lower)l));
  int rc = TestFinish("box on a box on an incline");
  PetscCall(PetscFinalize());
  return rc;
}
