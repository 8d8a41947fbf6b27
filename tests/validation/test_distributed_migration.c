/* Migration of fast bodies and removal of bodies that leave the domain, on a p x 1 x 1 grid over
 * x in [0, 4] (p = the rank count; subdomains 4/p m wide), without gravity or contacts, so every
 * position is known exactly: x(n) = x(n-1) + h v, summed as the integrator does.
 *   A: x = 0.3, v = +300 m/s: 1.5 m a step (at 4 ranks it jumps from subdomain 0 to 1, then over
 *      subdomain 2 into 3, then out of the domain at step 3);
 *   B: x = 3.9, v = -110 m/s: 0.55 m a step through every subdomain, out at x < 0 at step 8;
 *   C: leaves through y = 0.5 at step 2; D: at rest on the cut x = 1 (half-open: owned by the
 *      subdomain on its right); E: at rest inside.
 * At every step: every remaining body owned by exactly one rank, the one whose subdomain holds its
 * centre; its position equal to the sum above (bitwise: the same additions); removed count as
 * predicted, the same on every rank count. */
// ctest: labels=mpi ranks=2;3;4;8
#include "test_util.h"

static const char *scenario =
  "domain: {min: [0, -0.5, -0.5], max: [4, 0.5, 0.5]}\n"
  "gravity: [0, 0, 0]\n"
  "time: {step: 0.005, end: 0.05}\n"
  "contact: {model: ccp, envelope: 0.001, max_recovery_speed: 0.5}\n"
  "solver: {type: apgd, max_iterations: 100, tolerance: 1.0e-8}\n"
  "materials:\n"
  "  - {name: m, density: 1000, friction: 0.5}\n"
  "bodies:\n"
  "  - {shape: sphere, radius: 0.05, position: [0.3, -0.4, 0], velocity: [300, 0, 0], material: m}\n"
  "  - {shape: sphere, radius: 0.05, position: [3.9, -0.2, 0], velocity: [-110, 0, 0], material: m}\n"
  "  - {shape: sphere, radius: 0.05, position: [2.0, 0.2, 0], velocity: [0, 50, 0], material: m}\n"
  "  - {shape: sphere, radius: 0.05, position: [1.0, 0.0, 0.3], material: m}\n"
  "  - {shape: sphere, radius: 0.05, position: [2.5, 0.0, -0.3], material: m}\n";

#define NB 5

int main(int argc, char **argv)
{
  const double h = 0.005, x0[NB][3] = {{0.3, -0.4, 0}, {3.9, -0.2, 0}, {2.0, 0.2, 0}, {1.0, 0, 0.3}, {2.5, 0, -0.3}};
  const double v0[NB][3] = {{300, 0, 0}, {-110, 0, 0}, {0, 50, 0}, {0, 0, 0}, {0, 0, 0}};
  double       x[NB][3];
  PetscBool    gone[NB] = {PETSC_FALSE};
  Simulation   sim;
  PetscMPIInt  size, rank;
  PetscInt     expect_removed = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(TestSlabsAlongX("0"));
  PetscCall(TestSimulationFromText(scenario, &sim));
  memcpy(x, x0, sizeof(x));
  for (int n = 1; n <= 10; n++) {
    PetscCall(SimulationStep(sim));
    for (int b = 0; b < NB; b++) {
      double   xs[3] = {0}, vs[6] = {0};
      PetscInt found = 0, mine = SimulationFindBody(sim, b) >= 0;
      if (gone[b]) continue;
      for (int k = 0; k < 3; k++) x[b][k] += h * v0[b][k];
      const PetscBool inside = (PetscBool)(x[b][0] >= 0 && x[b][0] <= 4 && fabs(x[b][1]) <= 0.5 &&
                                           fabs(x[b][2]) <= 0.5);
      PetscCall(TestBodyGet(sim, b, xs, vs, &found));
      if (!inside) {
        gone[b] = PETSC_TRUE;
        expect_removed++;
        TEST_CHECK(found == 0, "step %d: body %d left the domain but is still owned by %" PetscInt_FMT " rank(s)", n, b,
                   found);
        continue;
      }
      TEST_CHECK(found == 1, "step %d: body %d is owned by %" PetscInt_FMT " ranks", n, b, found);
      TEST_CHECK(xs[0] == x[b][0] && xs[1] == x[b][1] && xs[2] == x[b][2],
                 "step %d: body %d at (%.17g, %.17g, %.17g), expected (%.17g, %.17g, %.17g)", n, b, xs[0], xs[1], xs[2],
                 x[b][0], x[b][1], x[b][2]);
      if (mine) {
        const int owner = size > 1 ? (int)PetscMin(floor(x[b][0] / (4.0 / size)), size - 1) : 0;
        TEST_CHECK(owner == rank, "step %d: body %d at x = %g is owned by rank %d, not by %d", n, b, x[b][0], rank,
                   owner);
      }
    }
    TEST_CHECK(SimulationRemoved(sim) == expect_removed,
               "step %d: %" PetscInt64_FMT " bodies counted as removed, expected %" PetscInt_FMT, n,
               SimulationRemoved(sim), expect_removed);
    TEST_CHECK(SimulationLastStep(sim)->bodies == NB - expect_removed,
               "step %d: %" PetscInt64_FMT " bodies, expected %" PetscInt_FMT, n, SimulationLastStep(sim)->bodies,
               NB - expect_removed);
  }
  TEST_CHECK(expect_removed == 3 && gone[0] && gone[1] && gone[2],
             "the scenario should remove A, B and C (removed %" PetscInt_FMT ")", expect_removed);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%d ranks: 10 steps, %" PetscInt64_FMT
                        " bodies left the domain (expected 3), positions exact\n",
                        size, SimulationRemoved(sim)));
  PetscCall(SimulationDestroy(&sim));
  int rc = TestFinish("migration and removal");
  PetscCall(PetscFinalize());
  return rc;
}
