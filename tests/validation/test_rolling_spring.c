/* The rolling spring (materials' rolling_compliance C_r, ccp/law.h) against its discrete analytic answer.
 * A solid sphere (R = 0.1 m, J = 0.4 m R^2) rests on the plane z = 0 with gravity tilted by alpha
 * (g = 9.81 (sin a, 0, -cos a), tan a = 0.03), friction mu = 0.5, rolling friction rho = 10 mm: the rolling
 * torque the sphere needs at rest, tau = m g R sin a, stays inside rho N even at twice that (the overshoot
 * below), and the friction force m g sin a inside mu N, so the contact sticks and the sphere only turns
 * about its contact point (inertia J_c = J + m R^2) against the spring: torque -theta / C_r.
 * The time step's discretization of that (implicit in the contact impulses, positions from the new
 * velocities) is the recurrence
 *     J_c (w' - w) = h (tau - theta' / C_r),   theta' = theta + h w',
 * an oscillation about theta_eq = C_r tau (C_r = 0.01 rad/(N m): period 2 pi sqrt(J_c C_r) = 0.22 s) that
 * implicit Euler damps by about (c h)^2 / 2 = 1.1% a step (c = 2 pi / period), so it settles at theta_eq. The test
 * steps the recurrence itself (closed form, independent of the code under test) and compares the sphere's turn with it
 * at every step. Tolerance 1e-9 rad (theta_eq = 2.5e-3 rad): the solver's tolerance of 1e-10 m/s at the contact point
 * makes at most 1e-10 / R h = 5e-12 rad a step, 1e-8 over the 2,000 steps if it all added up (measured: see the
 * output). Without the spring's state (the torque's Tikhonov term alone, b_rot = 0: a creep) the sphere turns on at C_r
 * tau / h; without rolling_compliance it does not turn: both fail. The checks also hold the sphere on its contact point
 * (no slip).
 * On 4 ranks (a 2 x 2 grid, cuts x = 0 and y = 0) the sphere sits on the corner of the four subdomains,
 * a ghost on the ranks that do not own it: the same checks hold. */
// ctest: ranks=4
#include "test_util.h"

static const double R = 0.1, g0 = 9.81, C_r = 0.01, h = 0.005;

int main(int argc, char **argv)
{
  Simulation sim;
  char       yaml[2048];

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(TestFixedGrid("2,2,1"));
  const double alpha = atan(0.03);
  snprintf(yaml, sizeof(yaml),
           "domain: {min: [-5, -5, -1], max: [5, 5, 5]}\n"
           "gravity: [%.17g, 0, %.17g]\n"
           "time: {step: %g, end: 10.0}\n"
           "contact: {model: ccp, envelope: 0.005, max_recovery_speed: 0.5}\n"
           "solver: {type: apgd, max_iterations: 5000, tolerance: 1.0e-10}\n"
           "materials:\n"
           "  - {name: m, density: 2000, friction: 0.5, rolling_friction: 0.01, spinning_friction: 0.001,\n"
           "     rolling_compliance: %g}\n"
           "walls:\n"
           "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}\n"
           "bodies:\n"
           "  - {shape: sphere, radius: %g, position: [0, 0, %g], material: m}\n",
           g0 * sin(alpha), -g0 * cos(alpha), h, C_r / 2, R, R); /* the pair's compliance: the sum of the two */
  PetscCall(TestSimulationFromText(yaml, &sim));
  const double m = 2000 * 4.0 / 3.0 * PETSC_PI * R * R * R, Jc = 1.4 * m * R * R, tau = m * g0 * sin(alpha) * R;
  const double theta_eq = C_r * tau;
  double       w = 0, theta = 0, err = 0, slip = 0, err_late = 0, turn = 0;
  int          n = 0;
  while (SimulationTime(sim) < 10.0 - 1e-9) {
    PetscCall(SimulationStep(sim));
    /* the recurrence: w' (1 + h^2 / (J_c C_r)) = w + h (tau - theta / C_r) / J_c */
    w     = (w + h * (tau - theta / C_r) / Jc) / (1 + h * h / (Jc * C_r));
    theta = theta + h * w;
    double   x[3], q[4] = {0}, v[6] = {0}, wworld[3];
    PetscInt found = 0;
    PetscCall(TestBodyGetPose(sim, 0, x, q, v, &found));
    TEST_CHECK(found == 1, "the sphere is owned by %" PetscInt_FMT " ranks at t = %g", found, SimulationTime(sim));
    quat_rotate(wworld, q, v + 3);
    turn = 2 * atan2(q[2], q[0]); /* about +y: rolling downhill (+x) */
    err  = PetscMax(err, fabs(turn - theta));
    if (SimulationTime(sim) > 9.0) err_late = PetscMax(err_late, fabs(turn - theta));
    slip = PetscMax(slip, fabs(v[0] - wworld[1] * R)); /* the contact point's speed, v - w x (0, 0, -R) */
    n++;
  }
  PetscCall(
    PetscPrintf(PETSC_COMM_WORLD,
                "rolling spring: C_r = %g rad/(N m), tau = %.6f N m, static deflection C_r tau = %.9f rad; after %d "
                "steps "
                "the sphere has turned %.9f rad, the recurrence %.9f; largest difference %.2e rad (%.2e over the last "
                "second); largest contact slip speed %.2e m/s\n",
                C_r, tau, theta_eq, n, turn, theta, err, err_late, slip));
  TEST_CHECK(err < 1e-9, "the sphere's turn departs from the recurrence by %.3e rad", err);
  TEST_CHECK(fabs(theta - theta_eq) < 0.02 * theta_eq, "the recurrence should near C_r tau: %.6f vs %.6f", theta,
             theta_eq);
  TEST_CHECK(slip < 1e-7, "the sphere should not slip, contact speed %.3e m/s", slip);
  PetscCall(SimulationDestroy(&sim));
  int rc = TestFinish("rolling spring");
  PetscCall(PetscFinalize());
  return rc;
}
