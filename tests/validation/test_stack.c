/* Ten spheres (R = 5 cm) stacked in a column on a plane, h = 0.01 s, 5 s, solves to tol = 1e-8 m/s.
 * Gravity is tilted by 0.01 rad along x and the contacts have rolling friction rho = R / 2, so the
 * column is a tower with a lateral load: the exact solution is still static equilibrium (all
 * velocities zero; contact k carries the weight of the spheres above it, friction their lateral
 * load, rolling friction their overturning moment, at most m g_x R n^2 = 100 m g_x R at the floor
 * against rho n m g_z = 5 m g_z R: a fifth of its capacity), and a solver error shows as lateral
 * drift. (An upright column without a lateral load is symmetric: no lateral impulse, so no drift,
 * whatever the solver does.) Every step must converge, and, over all steps:
 *  - no contact penetrates or opens by more than 1e-9 m: a step solved to tol leaves a contact's
 *    normal velocity within tol of its target, h tol = 1e-10 m of position, which the next step's
 *    stabilization takes back (measured: penetration 1.0e-10 m, opening 1.0e-10 m); 10x that;
 *  - no sphere is faster than 1e-6 m/s (rest): the solves leave each contact's velocity of order
 *    tol, and the top sphere's sums the 10 contacts below it, ~1e-7 m/s (measured 1.4e-7): 7x;
 *  - no sphere drifts sideways by more than 1.5e-7 m (measured 1.2e-8 m on 1, 2 and 4 ranks;
 *    about 10x; a drift of tol every step would reach 5e-7 m).
 *
 * On several ranks (1 x 1 x p grid, p = 2 or 4) the domain [-0.4, 1.2] in z puts the cuts at
 * z = 0, 0.4, 0.8: the floor contact and the contacts between spheres 3-4 and 7-8 lie on them,
 * so those contacts join a body and its ghost; the same bounds must hold. */
// ctest: timeout=300 ranks=2;4
#include "test_util.h"

int main(int argc, char **argv)
{
  const int    n = 10;
  const double R = 0.05, tilt = 0.01, rho = 0.5 * R;
  char         yaml[8192];
  int          len;
  Simulation   sim;
  double       worst_pen = 0, worst_gap = 0, worst_drift = 0, worst_speed = 0;
  PetscInt     unconverged = 0, max_it = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  {
    PetscMPIInt size;
    char        grid[32];
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    snprintf(grid, sizeof(grid), "1,1,%d", size);
    PetscCall(TestFixedGrid(grid));
  }
  len = snprintf(yaml, sizeof(yaml),
                 "domain: {min: [-1, -1, -0.4], max: [1, 1, 1.2]}\n"
                 "gravity: [%.17g, 0, %.17g]\n"
                 "time: {step: 0.01, end: 5.0}\n"
                 "contact: {model: ccp, envelope: 0.002, max_recovery_speed: 0.5}\n"
                 "solver: {type: apgd, max_iterations: 5000, tolerance: 1.0e-8}\n"
                 "materials:\n"
                 "  - {name: m, density: 2500, friction: 0.5, rolling_friction: %.17g}\n"
                 "walls:\n"
                 "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}\n"
                 "bodies:\n",
                 9.81 * sin(tilt), -9.81 * cos(tilt), rho);
  for (int k = 0; k < n; k++)
    len += snprintf(yaml + len, sizeof(yaml) - len,
                    "  - {shape: sphere, radius: %g, position: [0, 0, %.17g], material: m}\n", R, R + 2 * R * k);
  PetscCall(TestSimulationFromText(yaml, &sim));
  while (SimulationTime(sim) < 5.0 - 1e-9) {
    PetscCall(SimulationStep(sim));
    unconverged += !SimulationLastStep(sim)->converged;
    max_it           = PetscMax(max_it, SimulationLastStep(sim)->iterations);
    double top_below = 0; /* top of the sphere below (the floor for the first) */
    for (int k = 0; k < n; k++) {
      double   x[3] = {0}, v[6] = {0};
      PetscInt found = 0;
      PetscCall(TestBodyGet(sim, k, x, v, &found));
      TEST_CHECK(found == 1, "sphere %d is owned by %" PetscInt_FMT " ranks at t = %g", k, found, SimulationTime(sim));
      worst_pen   = PetscMax(worst_pen, top_below - (x[2] - R));
      worst_gap   = PetscMax(worst_gap, (x[2] - R) - top_below);
      worst_drift = PetscMax(worst_drift, hypot(x[0], x[1]));
      worst_speed = PetscMax(worst_speed, v3_norm(v));
      top_below   = x[2] + R;
    }
  }
  PetscCall(
    PetscPrintf(PETSC_COMM_WORLD,
                "stack of %d, gravity tilted by %g rad, rho = R / 2: deepest penetration %.3e m, widest opening "
                "%.3e m, largest speed %.3e m/s, largest lateral drift %.3e m, %" PetscInt_FMT
                " steps unconverged, max iterations %" PetscInt_FMT "\n",
                n, tilt, worst_pen, worst_gap, worst_speed, worst_drift, unconverged, max_it));
  TEST_CHECK(unconverged == 0, "%" PetscInt_FMT " steps did not converge", unconverged);
  TEST_CHECK(worst_pen < 1e-9, "penetration %.3e m exceeds 1e-9 m", worst_pen);
  TEST_CHECK(worst_gap < 1e-9, "a contact opened by %.3e m, more than 1e-9 m", worst_gap);
  TEST_CHECK(worst_speed < 1e-6, "the stack is not at rest: a sphere at %.3e m/s", worst_speed);
  TEST_CHECK(worst_drift < 1.5e-7, "the stack drifted sideways by %.3e m", worst_drift);
  PetscCall(SimulationDestroy(&sim));
  int rc = TestFinish("stack of ten spheres");
  PetscCall(PetscFinalize());
  return rc;
}
