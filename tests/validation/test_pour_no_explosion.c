/* GUIDE "When the exact CCP is ill-posed": a 5,000-sphere pour into a box settles into a jammed,
 * overlapping pile with rolling and spinning friction rho = sigma = 0.1 d, where steps can be
 * unsolvable. Whatever the solver reports, no body may ever move faster than free fall from the
 * top of the pour, sqrt(2 g H): energy can only come from gravity, so a faster body is an
 * explosion. Runs the fall (about 0.4 s) and 2 s of settling at h = 5 ms. */
// ctest: timeout=900
#include "test_util.h"

int main(int argc, char **argv)
{
  const double H = 0.8, vfall = sqrt(2 * 9.81 * H);
  Simulation   sim;
  double       vmax        = 0;
  PetscInt     unconverged = 0, steps = 0;
  const char  *yaml =
    "domain: {min: [-0.5, -0.5, -0.1], max: [0.5, 0.5, 1.0]}\n"
    "gravity: [0, 0, -9.81]\n"
    "time: {step: 0.005, end: 2.4}\n"
    "contact: {model: ccp, envelope: 0.002, max_recovery_speed: 0.5}\n"
    "solver: {type: apgd, max_iterations: 200, tolerance: 1.0e-4}\n"
    "materials:\n"
    "  - {name: gravel, density: 2028, friction: 0.6, rolling_friction: 0.002, spinning_friction: 0.002}\n"
    "walls:\n"
    "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: gravel}\n"
    "  - {type: plane, point: [-0.2, 0, 0], normal: [1, 0, 0], material: gravel}\n"
    "  - {type: plane, point: [0.2, 0, 0], normal: [-1, 0, 0], material: gravel}\n"
    "  - {type: plane, point: [0, -0.2, 0], normal: [0, 1, 0], material: gravel}\n"
    "  - {type: plane, point: [0, 0.2, 0], normal: [0, -1, 0], material: gravel}\n"
    "fills:\n"
    "  - {type: random, region: {min: [-0.19, -0.19, 0.02], max: [0.19, 0.19, 0.8]}, radius: 0.01, count: 5000, seed: "
    "3, material: gravel}\n";

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(TestSimulationFromText(yaml, &sim));
  while (SimulationTime(sim) < 2.4 - 1e-9) {
    PetscCall(SimulationStep(sim));
    vmax = PetscMax(vmax, SimulationLastStep(sim)->max_speed);
    unconverged += !SimulationLastStep(sim)->converged;
    steps++;
  }
  printf("pour of %" PetscInt_FMT
         " spheres: max speed %.3f m/s (free fall from %.2f m: %.3f m/s), final max speed %.2e m/s, %" PetscInt_FMT
         " of %" PetscInt_FMT " steps did not reach the tolerance, %" PetscInt_FMT " contacts at the end\n",
         SimulationBodies(sim)->n_owned, vmax, H, vfall, SimulationLastStep(sim)->max_speed, unconverged, steps,
         SimulationContacts(sim)->n);
  TEST_CHECK(vmax <= vfall, "a body moved at %.3f m/s, faster than free fall %.3f m/s: explosion", vmax, vfall);
  TEST_CHECK(SimulationBodies(sim)->n_owned == 5000 && SimulationRemoved(sim) == 0,
             "bodies were lost: %" PetscInt_FMT " left", SimulationBodies(sim)->n_owned);
  PetscCall(SimulationDestroy(&sim));
  int rc = TestFinish("5000-sphere pour");
  PetscCall(PetscFinalize());
  return rc;
}
