/* A gap inside the envelope closes (docs/design.md "Physics and numerics": b_n = Phi/h for a gap). A sphere
 * (R = 5 cm) released at rest 4 mm above a floor, with an envelope of 10 mm, so its contact is in the
 * CCP from the first step. The gap term lets the sphere approach by at most the gap in a step, so
 * until it touches the constraint is inactive and the sphere falls freely; then it rests on the floor.
 *  1. Free fall: the discrete trajectory of the time step (symplectic Euler, v_{n+1} = v_n - g h,
 *     z_{n+1} = z_n + h v_{n+1}, so z_n = z_0 - g h^2 n (n + 1) / 2) until the step that would
 *     cross the floor, within 1e-12 m (rounding of a few additions of numbers near 0.05 m).
 *  2. At rest on the floor from step 10 on (the free fall takes 0.029 s, 6 steps of 5 ms): the
 *     centre at R within 1e-9 m (the solver's 1e-10 m/s times h, and rounding) and the speed below
 *     1e-8 m/s.
 * A law that leaves the gap out of the normal velocity (b_n = 0 for a gap: contacts inside the
 * envelope push at a distance) holds the sphere 4 mm above the floor from the first step: both
 * checks fail (tests/mutate.sh lists that bug). */
#include "test_util.h"

int main(int argc, char **argv)
{
  const double R = 0.05, gap = 0.004, h = 0.005, g = 9.81;
  char         yaml[1024];
  Simulation   sim;
  double       fall_err = 0, rest_err = 0, rest_speed = 0;
  int          fell = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  snprintf(yaml, sizeof yaml,
           "domain: {min: [-1, -1, -0.1], max: [1, 1, 1]}\n"
           "gravity: [0, 0, %g]\n"
           "time: {step: %g, end: 0.2}\n"
           "contact: {model: ccp, envelope: 0.01}\n"
           "solver: {type: apgd, max_iterations: 1000, tolerance: 1.0e-10}\n"
           "materials:\n  - {name: m, density: 2000, friction: 0.5}\n"
           "walls:\n  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}\n"
           "bodies:\n  - {shape: sphere, radius: %g, position: [0, 0, %.17g], material: m}\n",
           -g, h, R, R + gap);
  PetscCall(TestSimulationFromText(yaml, &sim));
  for (int n = 1; n <= 40; n++) {
    const double free_z = R + gap - g * h * h * n * (n + 1) / 2;
    double       x[3] = {0}, v[6] = {0};
    PetscInt     found = 0;

    PetscCall(SimulationStep(sim));
    PetscCall(TestBodyGet(sim, 0, x, v, &found));
    TEST_CHECK(found == 1, "step %d: the sphere is owned by %" PetscInt_FMT " ranks", n, found);
    if (free_z > R) { /* the free fall has not reached the floor yet */
      fall_err = PetscMax(fall_err, PetscAbsReal(x[2] - free_z));
      fell++;
    }
    if (n >= 10) {
      rest_err   = PetscMax(rest_err, PetscAbsReal(x[2] - R));
      rest_speed = PetscMax(rest_speed, PetscSqrtReal(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "gap of %g m closed: free fall over %d steps within %.2e m of z_0 - g h^2 n (n + 1) / 2; "
                        "from step 10 the centre within %.2e m of R, speed at most %.2e m/s\n",
                        gap, fell, fall_err, rest_err, rest_speed));
  TEST_CHECK(fell >= 5, "only %d steps of free fall: the set-up changed", fell);
  TEST_CHECK(fall_err <= 1e-12, "the sphere left the free fall by %.3e m before touching (at most 1e-12 m)", fall_err);
  TEST_CHECK(rest_err <= 1e-9, "the sphere rests %.3e m from the floor (at most 1e-9 m)", rest_err);
  TEST_CHECK(rest_speed <= 1e-8, "the sphere moves at %.3e m/s on the floor (at most 1e-8 m/s)", rest_speed);
  PetscCall(SimulationDestroy(&sim));
  {
    int rc = TestFinish("a gap inside the envelope closes");
    PetscCall(PetscFinalize());
    return rc;
  }
}
