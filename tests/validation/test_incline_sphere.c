/* A sphere on an incline with sliding, rolling and spinning friction, against the analytic answers.
 * The incline is the plane z = 0 with gravity tilted by alpha: g = 9.81 (sin a, 0, -cos a), so
 * "downhill" is +x. Sphere: R = 0.1 m, solid (J = 0.4 m R^2), mu = 0.5.
 *
 * 1. Static: when tan a < min(mu, rho/R) both the friction force and the rolling torque needed for
 *    equilibrium (F = m g sin a, M = F R <= rho N) are admissible, so the sphere stays at rest.
 * 2. Rolling: for rho/R < tan a below the slip limit, with N = m g cos a, rolling without slip:
 *      m a = m g sin a - F,  J a / R = F R - rho N   =>   a = g (sin a - (rho/R) cos a) / (1 + J/(m R^2)).
 *    The friction needed, F/N = (J/(mR^2)) (tan a - rho/R)/(1 + J/(mR^2)) + rho/R = 0.093 < mu: no slip.
 * 3. Spinning: a sphere spinning about the plane normal on a flat plane: |spin torque| = sigma N, so
 *    the spin rate falls at sigma m g / J until it stops.
 * rho and sigma differ in every case, each chosen so that the other's value would fail: static rho =
 * 5 mm, sigma = 1 mm (swapped, rho / R = 0.01 < tan a: it would roll); rolling rho = 5 mm, sigma =
 * 1 mm (swapped, the acceleration would be 27% higher); spinning sigma = 10 mm, rho = 3 mm (swapped,
 * the spin would slow 3.3x more slowly).
 * Tolerances. Symplectic Euler reproduces constant accelerations exactly, so the fitted values differ
 * from the analytic ones by the solver's tolerance 1e-10 m/s per step, at most tol / h = 2e-8 m/s^2
 * (2e-8 relative); measured 3.2e-8 (rolling) and 1.7e-8 (spinning): 3e-7 relative, 10x. The fits
 * start after the first steps' transient (the relaxed CCP lifts a spinning or rolling sphere by
 * h sigma |w| (h rho |w|) in its first step; measured, a fit from t = 0 is 2.3e-3 off). At rest
 * the speed is at the tolerance (measured 1.3e-10): below 1e-9 m/s, and the displacement below
 * 10 x tol x 2 s = 2e-9 m (measured 2e-13); the rolling contact's slip speed below 1.5e-7 m/s (10x
 * the measured 1.5e-8). The spin stops within one step of w0 / (sigma m g / J) (it stops in the step
 * where it would cross zero). */
#include "test_util.h"

static const double R = 0.1, g0 = 9.81, mu = 0.5;

static PetscErrorCode MakeSim(double alpha, double rho, double sigma, double wz, Simulation *sim)
{
  char yaml[2048];

  PetscFunctionBegin;
  snprintf(yaml, sizeof(yaml),
           "domain: {min: [-5, -5, -1], max: [20, 5, 5]}\n"
           "gravity: [%.17g, 0, %.17g]\n"
           "time: {step: 0.005, end: 3.0}\n"
           "contact: {model: ccp, envelope: 0.005, max_recovery_speed: 0.5}\n"
           "solver: {type: apgd, max_iterations: 2000, tolerance: 1.0e-10}\n"
           "materials:\n"
           "  - {name: m, density: 2000, friction: %g, rolling_friction: %.17g, spinning_friction: %.17g}\n"
           "walls:\n"
           "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}\n"
           "bodies:\n"
           "  - {shape: sphere, radius: %g, position: [0, 0, %g], angular_velocity: [0, 0, %g], material: m}\n",
           g0 * sin(alpha), -g0 * cos(alpha), mu, rho, sigma, R, R, wz);
  PetscCall(TestSimulationFromText(yaml, sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Least-squares slope of y(t). */
typedef struct {
  double st, sy, stt, sty;
  int    n;
} Fit;
static void fit_add(Fit *f, double t, double y)
{
  f->st += t;
  f->sy += y;
  f->stt += t * t;
  f->sty += t * y;
  f->n++;
}
static double fit_slope(const Fit *f) { return (f->n * f->sty - f->st * f->sy) / (f->n * f->stt - f->st * f->st); }

int main(int argc, char **argv)
{
  Simulation sim;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  { /* 1. static: tan a = 0.03 < rho/R = 0.05 < mu */
    const double alpha = atan(0.03);
    double       vmax  = 0, x0;
    PetscCall(MakeSim(alpha, 0.005, 0.001, 0, &sim));
    x0 = SimulationBodies(sim)->pos[0];
    while (SimulationTime(sim) < 2.0 - 1e-9) {
      PetscCall(SimulationStep(sim));
      vmax = PetscMax(vmax, v3_norm(SimulationBodies(sim)->vel));
    }
    printf("static: tan a = 0.03 < min(mu, rho/R) = 0.05 (sigma = 1 mm): max speed over 2 s %.3e m/s, displacement "
           "%.3e m\n",
           vmax, fabs(SimulationBodies(sim)->pos[0] - x0));
    TEST_CHECK(vmax < 1e-9, "sphere should stay at rest, max speed %.3e m/s", vmax);
    TEST_CHECK(fabs(SimulationBodies(sim)->pos[0] - x0) < 2e-9, "sphere moved %.3e m",
               fabs(SimulationBodies(sim)->pos[0] - x0));
    PetscCall(SimulationDestroy(&sim));
  }
  { /* 2. rolling: tan a = 0.2, rho/R = 0.05 */
    const double alpha = atan(0.2), rho = 0.005, k = 0.4;
    const double a_exact = g0 * (sin(alpha) - rho / R * cos(alpha)) / (1 + k);
    Fit          f       = {0};
    double       slip    = 0;
    PetscCall(MakeSim(alpha, rho, 0.001, 0, &sim));
    while (SimulationTime(sim) < 1.0 - 1e-9) {
      PetscCall(SimulationStep(sim));
      const double *v = SimulationBodies(sim)->vel;
      double        wworld[3];
      quat_rotate(wworld, SimulationBodies(sim)->quat, v + 3);
      if (SimulationTime(sim) > 0.1) fit_add(&f, SimulationTime(sim), v[0]);
      slip = PetscMax(slip, fabs(v[0] - wworld[1] * R)); /* contact point speed, v - w x (0,0,-R) */
    }
    printf("rolling: tan a = 0.2: fitted acceleration %.9f m/s^2, analytic %.9f (rel. error %.2e); max contact slip "
           "speed %.2e m/s\n",
           fit_slope(&f), a_exact, fit_slope(&f) / a_exact - 1, slip);
    TEST_CHECK(fabs(fit_slope(&f) / a_exact - 1) < 3e-7, "rolling acceleration %.9f vs %.9f", fit_slope(&f), a_exact);
    TEST_CHECK(slip < 1.5e-7, "sphere should roll without slip, slip speed %.3e", slip);
    PetscCall(SimulationDestroy(&sim));
  }
  { /* 3. spinning: flat plane, w_z = 10 rad/s, sigma = 0.01 m, rho = 0.003 m */
    const double sigma = 0.01, w0 = 10, alpha_exact = sigma * g0 / (0.4 * R * R);
    Fit          f      = {0};
    double       t_stop = -1;
    PetscCall(MakeSim(0, 0.003, sigma, w0, &sim));
    while (SimulationTime(sim) < 1.0 - 1e-9) {
      PetscCall(SimulationStep(sim));
      double w[3];
      quat_rotate(w, SimulationBodies(sim)->quat, SimulationBodies(sim)->vel + 3);
      if (SimulationTime(sim) > 0.05 && w[2] > 1.0) fit_add(&f, SimulationTime(sim), w[2]);
      if (t_stop < 0 && fabs(w[2]) < 1e-9) t_stop = SimulationTime(sim);
    }
    printf("spinning: fitted spin deceleration %.7f rad/s^2, analytic sigma m g / J = %.7f (rel. error %.2e); stopped "
           "at %.3f s "
           "(analytic %.4f)\n",
           -fit_slope(&f), alpha_exact, -fit_slope(&f) / alpha_exact - 1, t_stop, w0 / alpha_exact);
    TEST_CHECK(fabs(-fit_slope(&f) / alpha_exact - 1) < 3e-7, "spin deceleration %.7f vs %.7f", -fit_slope(&f),
               alpha_exact);
    TEST_CHECK(t_stop > 0 && fabs(t_stop - w0 / alpha_exact) <= 0.005, "stop time %.4f vs %.4f", t_stop,
               w0 / alpha_exact);
    PetscCall(SimulationDestroy(&sim));
  }
  int rc = TestFinish("sphere on incline");
  PetscCall(PetscFinalize());
  return rc;
}
