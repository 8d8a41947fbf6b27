// ctest: ranks=2
/* Joints run on one rank only (README "Joints"): on several ranks a scenario with joints is
 * rejected at start with one message naming the joints' line and what to do; on one rank the
 * same scenario runs. */
#include "test_util.h"
#include <string.h>

int main(int argc, char **argv)
{
  const char *yaml = "domain: {min: [-1, -1, -1], max: [1, 1, 1]}\n"
                     "gravity: [0, 0, -9.81]\n"
                     "time: {step: 0.001, end: 0.01}\n"
                     "materials:\n"
                     "  - {name: m, density: 1000, friction: 0.5}\n"
                     "bodies:\n"
                     "  - {id: bob, shape: sphere, radius: 0.05, position: [0.5, 0, 0], material: m}\n"
                     "joints:\n"
                     "  - {type: spherical, body_b: bob, point: [0, 0, 0]}\n";
  Scenario    sc;
  Simulation *sim;
  char        err[SCENARIO_ERR_MAX] = "";
  PetscMPIInt size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  TEST_CHECK(scenario_load_string(yaml, "joints.yaml", &sc, err, sizeof(err)) == 0, "scenario rejected: %s", err);
  PetscCall(SimulationCreate(PETSC_COMM_WORLD, &sc, &sim, err, sizeof(err)));
  if (size > 1) {
    printf("%d ranks: %s\n", (int)size, err);
    TEST_CHECK(!sim && strstr(err, "joints.yaml:9: key 'joints': joints run on 1 rank only"), "joints on %d ranks should be rejected, got '%s'", (int)size, err);
  } else {
    TEST_CHECK(sim && !err[0], "one rank should accept joints: %s", err);
    PetscCall(SimulationStep(sim));
    PetscCall(SimulationDestroy(&sim));
  }
  int rc = TestFinish("joint ranks");
  PetscCall(PetscFinalize());
  return rc;
}
