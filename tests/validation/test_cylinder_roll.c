/* A sphere rolling without slip inside a fixed horizontal cylinder (a drum at rest), both contact
 * models. Analytic reference: the centre moves on a circle of radius R - r; rolling without slip
 * (J = 2/5 m r^2) gives (7/5) m (R - r) theta'' = -m g sin(theta), so small oscillations have
 *   omega^2 = 5 g / (7 (R - r)),   period T = 2 pi / omega.
 * R = 1 m, r = 0.1 m, g = 9.81: omega = 2.7904 rad/s, T = 2.2517 s; released at rest at theta0 = 0.05 rad.
 * Tolerance 1% on the period (the criterion). What the model and the discretization
 * contribute is far below it: the amplitude's correction theta0^2 / 16 = 1.6e-4; symplectic Euler's
 * period error (omega h)^2 / 24 is 3e-7 (CCP, h = 1e-3) and 3e-9 (penalty, h = 1e-4); the needed
 * friction F / N = (2/7) tan(theta0) = 0.014 is far below mu = 0.5, so the sphere never slips. The
 * sphere must also stay on the wall: its centre within 1e-3 m of R - r from the axis (the CCP's
 * overlaps are held to the solver's tolerance; the penalty model's Hertz overlap under m g is 1.5e-4 m). */
#include "test_util.h"

#define R_DRUM 1.0
#define R_BALL 0.1
#define THETA0 0.05

/* The period from the zero crossings of x over the run (linearly interpolated), and the largest
 * deviation of the centre's distance from the axis from R - r. */
static PetscErrorCode Period(const char *model, double h, double t_end, double *period, double *radial_dev)
{
  char         yaml[4096];
  Simulation   sim;
  const double rc    = R_DRUM - R_BALL;
  double       first = -1, last = -1, xprev = 0, tprev = 0;
  int          crossings = 0;

  PetscFunctionBegin;
  snprintf(yaml, sizeof yaml,
           "domain: {min: [-1.5, -1, -1.5], max: [1.5, 1, 1.5]}\n"
           "gravity: [0, 0, -9.81]\n"
           "time: {step: %g, end: %g}\n"
           "%s"
           "materials:\n"
           "  - {name: m, density: 1000, friction: 0.5%s}\n"
           "walls:\n"
           "  - {type: cylinder, point: [0, 0, 0], axis: [0, 1, 0], radius: %g, inside: true, material: m}\n"
           "bodies:\n"
           "  - {shape: sphere, radius: %g, position: [%.17g, 0, %.17g], material: m}\n",
           h, t_end,
           !strcmp(model, "ccp") ? "contact: {model: ccp, envelope: 0.01}\nsolver: {type: apgd, max_iterations: 1000, "
                                   "tolerance: 1.0e-10}\n"
                                 : "contact: {model: penalty, envelope: 0.01}\n",
           !strcmp(model, "ccp")
             ? ""
             : ", kinetic_friction: 0.4, young_modulus: 1.0e8, poisson_ratio: 0.3, restitution: 0.2, "
               "tangential_stiffness: 1.0e5",
           R_DRUM, R_BALL, rc * sin(THETA0), -rc * cos(THETA0));
  PetscCall(TestSimulationFromText(yaml, &sim));
  *radial_dev = 0;
  while (SimulationTime(sim) < t_end - 0.5 * h) {
    double   x[3] = {0}, v[6] = {0};
    PetscInt found;
    PetscCall(SimulationStep(sim));
    PetscCall(TestBodyGet(sim, 0, x, v, &found));
    *radial_dev = PetscMax(*radial_dev, fabs(sqrt(x[0] * x[0] + x[2] * x[2]) - rc));
    if (SimulationTime(sim) > h && x[0] * xprev <= 0 && x[0] != xprev) {
      const double tc = tprev + (SimulationTime(sim) - tprev) * xprev / (xprev - x[0]);
      if (first < 0) first = tc;
      last = tc;
      crossings++;
    }
    xprev = x[0];
    tprev = SimulationTime(sim);
  }
  *period = crossings > 1 ? 2 * (last - first) / (crossings - 1) : 0;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %d zero crossings, period %.6f s, largest radial deviation %.3e m\n",
                        model, crossings, *period, *radial_dev));
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const double T         = 2 * M_PI / sqrt(5 * 9.81 / (7 * (R_DRUM - R_BALL)));
  const char  *models[2] = {"ccp", "penalty"};
  const double hs[2]     = {1e-3, 1e-4};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (int k = 0; k < 2; k++) {
    double period, dev;
    PetscCall(Period(models[k], hs[k], 3.2 * T, &period, &dev));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: period %.6f s, analytic %.6f s, relative error %.2e\n", models[k],
                          period, T, period / T - 1));
    TEST_CHECK(fabs(period / T - 1) < 0.01,
               "%s: period %.6f s differs from 2 pi sqrt(7 (R - r) / (5 g)) = %.6f s by 1%% or more", models[k], period,
               T);
    TEST_CHECK(dev < 1e-3, "%s: the sphere left the wall: its centre strayed %.3e m from R - r", models[k], dev);
  }
  int rc = TestFinish("sphere rolling inside a cylinder");
  PetscCall(PetscFinalize());
  return rc;
}
