/* Paper sec. 6.1 (Tasora & Anitescu 2013): a ball rolling on a plane is stopped by rolling friction.
 *
 * Analytic reference. Sphere of radius R, mass m, moment of inertia J, rolling without slip on a
 * horizontal plane with rolling friction rho: the normal force is N = m g, the resisting torque
 * rho N opposes the rotation, and the friction force F at the contact keeps v = R w:
 *   m dv/dt = F,   J dw/dt = -R F - rho m g,   dv/dt = R dw/dt
 *   =>  a = -rho m g R / (J + m R^2)  (constant),  t_stop = v0 / |a|,  d_stop = v0^2 / (2 |a|).
 * With R = 1 m, m = 10 kg, J = 4 kg m^2, rho = 0.02 m, g = 9.8: a = -0.14 m/s^2, t_stop = 7.142857 s,
 * d_stop = 3.571429 m. The slip check: |F| = m |a| = 1.4 N << mu N = 88.2 N, so it rolls.
 * Tolerances, from the discretization (h = 0.01 s) and the solver's tolerance 1e-10 m/s:
 *  - deceleration: symplectic Euler keeps a constant deceleration exact, so the fit (from t = 0.1 s,
 *    after the first step's transient: the relaxed CCP lifts the rolling ball by h rho |w|; from
 *    t = 0 the fit is 3e-6 off) is off by the solves only, at most tol / h / |a| = 7e-8 relative;
 *    measured 2.7e-8: 3e-7, 10x;
 *  - stop time: the ball stops in the step where v would cross zero, one step later for the start's
 *    transient: within 2 h (measured 1.7 h);
 *  - stop distance: the discrete sum of h v_k is d_stop - h v0 / 2 (positions take the new velocity),
 *    up to the last step's fraction, |a| h^2 = 1.4e-5 m: within 10 |a| h^2 (measured 1.5e-6 m).
 *
 * On 4 ranks (2 x 2 x 1 grid) the cuts are x = 0 and y = 0: the contact starts on the corner of
 * all four subdomains and stays on the y = 0 cut while the ball rolls (and migrates) along x. */
// ctest: ranks=4
#include "test_util.h"

static const char *scenario =
  "domain: {min: [-5, -3, -1], max: [5, 3, 4]}\n"
  "gravity: [0, 0, -9.8]\n"
  "time: {step: 0.01, end: 10.0}\n"
  "contact: {model: ccp, envelope: 0.01, max_recovery_speed: 0.5}\n"
  "solver: {type: apgd, max_iterations: 1000, tolerance: 1.0e-10}\n"
  "materials:\n"
  "  - {name: m, density: 1000, friction: 0.9, rolling_friction: 0.02, spinning_friction: 0}\n"
  "walls:\n"
  "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}\n"
  "bodies:\n"
  "  - {shape: sphere, radius: 1.0, position: [0, 0, 1.0], velocity: [1, 0, 0], angular_velocity: [0, 1, 0],\n"
  "     material: m, mass: 10, inertia: [4, 4, 4]}\n";

int main(int argc, char **argv)
{
  Simulation   sim;
  const double a_exact = -0.02 * 10 * 9.8 * 1.0 / (4 + 10 * 1.0), t_stop = 1.0 / -a_exact,
               d_stop = 1.0 / (2 * -a_exact), h = 0.01;
  double sum_t = 0, sum_v = 0, sum_tt = 0, sum_tv = 0, t_stopped = -1, x_stopped = 0, vmax_after = 0;
  int    n = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(TestFixedGrid("2,2,1"));
  PetscCall(TestSimulationFromText(scenario, &sim));
  while (SimulationTime(sim) < 10.0 - 1e-9) {
    double   x[3] = {0}, vel[6] = {0};
    PetscInt found = 0;
    PetscCall(SimulationStep(sim));
    PetscCall(TestBodyGet(sim, 0, x, vel, &found));
    TEST_CHECK(found == 1, "the ball is owned by %" PetscInt_FMT " ranks at t = %g", found, SimulationTime(sim));
    const double v = vel[0], speed = v3_norm(vel), w = v3_norm(vel + 3);
    if (v > 0.1 && SimulationTime(sim) > 0.1 &&
        SimulationTime(sim) < t_stop - 0.5) { /* fit window: well inside the rolling phase */
      sum_t += SimulationTime(sim);
      sum_v += v;
      sum_tt += SimulationTime(sim) * SimulationTime(sim);
      sum_tv += SimulationTime(sim) * v;
      n++;
    }
    if (t_stopped < 0 && speed < 1e-6) {
      t_stopped = SimulationTime(sim);
      x_stopped = x[0];
    }
    if (t_stopped > 0) vmax_after = PetscMax(vmax_after, PetscMax(speed, w * 1.0));
  }
  const double a_fit = (n * sum_tv - sum_t * sum_v) / (n * sum_tt - sum_t * sum_t);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "deceleration: fitted %.9f m/s^2, analytic %.9f (%d samples, rel. error %.2e)\n", a_fit,
                        a_exact, n, a_fit / a_exact - 1));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "stop time: %.4f s, analytic %.6f; stop distance %.8f m, analytic %.8f (the discrete d_stop - "
                        "h v0 / 2 = %.8f)\n",
                        t_stopped, t_stop, x_stopped, d_stop, d_stop - h / 2));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "largest speed (and R*omega) in the %.2f s after stopping: %.3e m/s\n",
                        10.0 - t_stopped, vmax_after));
  TEST_CHECK(fabs(a_fit / a_exact - 1) < 3e-7, "deceleration %.9f differs from %.9f by more than 3e-7", a_fit, a_exact);
  TEST_CHECK(t_stopped > 0 && fabs(t_stopped - t_stop) <= 2 * h + 1e-9, "stop time %.4f vs %.4f", t_stopped, t_stop);
  TEST_CHECK(fabs(x_stopped - (d_stop - h * 1.0 / 2)) < 10 * -a_exact * h * h,
             "stop distance %.8f vs d_stop - h v0 / 2 = %.8f", x_stopped, d_stop - h / 2);
  TEST_CHECK(t_stopped > 0 && 10.0 - t_stopped >= 2.0, "needs 2 s at rest to check creep");
  TEST_CHECK(vmax_after < 1e-9, "creep after stopping: %.3e m/s", vmax_after); /* 10x the solves' 1e-10 m/s */
  PetscCall(SimulationDestroy(&sim));
  int rc = TestFinish("rolling sphere (paper 6.1)");
  PetscCall(PetscFinalize());
  return rc;
}
