/* Ten spheres stacked in a column on a plane, h = 0.01 s, 5 s: the stack must stay stacked and no
 * contact may penetrate more than 1e-3 R (the issue's bound). Reference: the exact solution is
 * static equilibrium (all velocities zero, contact k carrying the weight of the spheres above it),
 * so any drift is solver error. Lateral drift bound 1e-3 R as well: with no lateral load the
 * only lateral motion comes from solver error.
 *
 * On several ranks (1 x 1 x p grid, p = 2 or 4) the domain [-0.4, 1.2] in z puts the cuts at
 * z = 0, 0.4, 0.8: the floor contact and the contacts between spheres 3-4 and 7-8 lie on them,
 * so those contacts join a body and its ghost; the same bounds must hold. */
// ctest: timeout=300 ranks=2;4
#include "test_util.h"

int main(int argc, char **argv)
{
  const int    n = 10;
  const double R = 0.05;
  char         yaml[8192];
  int          len;
  Simulation   sim;
  double       worst_pen = 0, worst_drift = 0;
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
                 "gravity: [0, 0, -9.81]\n"
                 "time: {step: 0.01, end: 5.0}\n"
                 "contact: {model: ccp, envelope: 0.002, max_recovery_speed: 0.5}\n"
                 "solver: {type: apgd, max_iterations: 5000, tolerance: 1.0e-8}\n"
                 "materials:\n"
                 "  - {name: m, density: 2500, friction: 0.5}\n"
                 "walls:\n"
                 "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}\n"
                 "bodies:\n");
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
      worst_drift = PetscMax(worst_drift, hypot(x[0], x[1]));
      top_below   = x[2] + R;
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "stack of %d: deepest penetration %.3e m (%.2e R), largest lateral drift %.3e m, %" PetscInt_FMT
                        " steps unconverged, max iterations %" PetscInt_FMT "\n",
                        n, worst_pen, worst_pen / R, worst_drift, unconverged, max_it));
  TEST_CHECK(worst_pen < 1e-3 * R, "penetration %.3e m exceeds 1e-3 R", worst_pen);
  TEST_CHECK(worst_drift < 1e-3 * R, "the stack drifted sideways by %.3e m", worst_drift);
  PetscCall(SimulationDestroy(&sim));
  int rc = TestFinish("stack of ten spheres");
  PetscCall(PetscFinalize());
  return rc;
}
