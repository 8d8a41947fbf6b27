/* A clump pour that stays bounded: the clump half of jobs/pile/clump_pile.yaml (tetrahedral clumps, four
 * spheres r = 6.3 mm, bounding radius 13.9 mm, poured at 400 per second from 0.35-0.45 m at 0.5 m/s
 * down, mu = 0.6, h = 5 ms, envelope 2 mm) with contact.overlap_correction: position, for 160 steps
 * (0.8 s: 318 clumps, the first 100 landed on one another). No body may ever be faster than free fall
 * from the emitter's top allows, plus 10%: a clump starts at most 0.45 m - 13.9 mm up with at most
 * 0.55 m/s down and 0.05 m/s along x and y, and its centre of mass cannot come below one member radius
 * (6.3 mm), so free fall gives at most v_ff = sqrt(0.55^2 + 2 0.05^2 + 2 g 0.4298) = 2.956 m/s. A
 * converged step of rigid contacts that do not push apart does no positive work, and the overlap
 * correction by position feeds no kinetic energy (docs/design.md "Overlap correction by position");
 * the margin, 0.3 m/s, covers the velocity error of the steps that stop at the iteration cap (their
 * residual: at most 4.3e-3 m/s measured). Measured: 2.90 m/s. Under the default
 * overlap_correction: velocity the same pour reaches 7.3 m/s (printed, not checked): contacts found
 * only within the 2 mm envelope of clumps falling 14.5 mm per step overlap by up to a member radius,
 * and the overlapping members of a heap of clumps, each asked to separate at up to 0.5 m/s, make a
 * jam whose solves stop at the cap with explosive speeds (README "Limitations"). Also checked: no
 * body left the domain, every clump is above the floor at the end. */
// ctest: labels=validation timeout=300
#include "test_util.h"

#define STEPS 160

static const char *scenario_format =
  "domain: {min: [-2.5, -2, -0.1], max: [2.5, 2, 1.0]}\n"
  "gravity: [0, 0, -9.81]\n"
  "time: {step: 0.005, end: 3.5}\n"
  "contact: {model: ccp, envelope: 0.002, max_recovery_speed: 0.5, overlap_correction: %s}\n"
  "solver: {type: apgd, max_iterations: 300, tolerance: 1.0e-4}\n"
  "materials:\n"
  "  - {name: floor, density: 2028, friction: 0.6, rolling_friction: 0.002, spinning_friction: 0.002}\n"
  "  - {name: grain, density: 2028, friction: 0.6, rolling_friction: 0.0, spinning_friction: 0.0}\n"
  "walls:\n"
  "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: floor}\n"
  "clumps:\n"
  "  - name: tetra\n"
  "    members:\n"
  "      - {offset: [0.00441, 0.00441, 0.00441], radius: 0.0063}\n"
  "      - {offset: [0.00441, -0.00441, -0.00441], radius: 0.0063}\n"
  "      - {offset: [-0.00441, 0.00441, -0.00441], radius: 0.0063}\n"
  "      - {offset: [-0.00441, -0.00441, 0.00441], radius: 0.0063}\n"
  "emitters:\n"
  "  - {region: {min: [0.9, -0.1, 0.35], max: [1.1, 0.1, 0.45]}, rate: 400, count: 1000, seed: 2, material: grain,\n"
  "     velocity: [0, 0, -0.5], velocity_spread: [0.05, 0.05, 0.05], clump: tetra}\n";

/* The pour with the given overlap correction: the largest body speed over its steps, the bodies that
 * left the domain, and the lowest centre of mass at the end. */
static PetscErrorCode Pour(const char *correction, double *top_speed, PetscInt64 *removed, PetscInt *bodies,
                           double *lowest)
{
  char       text[4096];
  Simulation sim;

  PetscFunctionBegin;
  PetscCheck(snprintf(text, sizeof(text), scenario_format, correction) < (int)sizeof(text), PETSC_COMM_SELF,
             PETSC_ERR_PLIB, "the scenario needs more than %zu bytes", sizeof(text));
  PetscCall(TestSimulationOnComm(PETSC_COMM_SELF, text, "clump-pour-bounded", &sim));
  *top_speed = 0;
  for (int n = 0; n < STEPS; n++) {
    PetscCall(SimulationStep(sim));
    *top_speed = PetscMax(*top_speed, SimulationLastStep(sim)->max_speed);
  }
  *removed = SimulationRemoved(sim);
  *bodies  = SimulationBodies(sim)->n_owned;
  *lowest  = INFINITY;
  for (PetscInt i = 0; i < *bodies; i++) *lowest = PetscMin(*lowest, SimulationBodies(sim)->pos[3 * i + 2]);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const double v_ff  = sqrt(0.55 * 0.55 + 2 * 0.05 * 0.05 + 2 * 9.81 * (0.45 - 0.013938 - 0.0063));
  const double bound = 1.1 * v_ff;
  double       top, top_velocity, lowest, lowest_velocity;
  PetscInt64   removed, removed_velocity;
  PetscInt     bodies, bodies_velocity;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(Pour("position", &top, &removed, &bodies, &lowest));
  PetscCall(Pour("velocity", &top_velocity, &removed_velocity, &bodies_velocity, &lowest_velocity));
  printf("free fall %.3f m/s, bound %.3f m/s; overlap_correction position: top speed %.3f m/s, %" PetscInt_FMT
         " clumps, %" PetscInt64_FMT " left the domain, lowest centre %.4f m; velocity (not checked): top speed "
         "%.3f m/s, %" PetscInt64_FMT " left\n",
         v_ff, bound, top, bodies, removed, lowest, top_velocity, removed_velocity);
  TEST_CHECK(top <= bound, "a clump reached %.3f m/s, more than free fall (%.3f m/s) plus 10%%", top, v_ff);
  TEST_CHECK(removed == 0, "%" PetscInt64_FMT " clumps left the domain", removed);
  /* bodies are emitted at the start of a step: the last step's are those due at t = (STEPS - 1) h */
  TEST_CHECK(bodies == (PetscInt)floor(400 * (STEPS - 1) * 0.005 + 1e-9),
             "%" PetscInt_FMT " clumps at the end, expected 318", bodies);
  TEST_CHECK(lowest > 0, "a clump's centre of mass is at %.4f m, below the floor", lowest);
  int rc = TestFinish("clump pour bounded");
  PetscCall(PetscFinalize());
  return rc;
}
