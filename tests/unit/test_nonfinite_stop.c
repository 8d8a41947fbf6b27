/* A step whose state becomes non-finite stops with an error on every rank (no rank left waiting),
 * naming the lowest-id body concerned and the step (step/step_stats.c), before anything of that step
 * could be written; a body with a NaN centre is not dropped as "left the domain".
 * (The damage is done between steps, to velocities: detection reads only positions, so the step's
 * integration is the first to meet it, as it meets the velocities of a diverging solve.)
 * Each case: spheres resting on a floor and one heavy sphere (mass and moments 1e31) falling above
 * them (CCP, then the penalty model, whose integrator sums the statistics as it moves the bodies),
 * two steps, then between steps the owner of a body damages it:
 *  1. velocity NaN of body K (its position becomes NaN in the step, which the placement would
 *     remove as "outside the domain") -> the next step's error names body K ("position, velocity
 *     or orientation"), and no body is counted as removed;
 *  2. velocity +inf of body K (its position becomes +inf) -> the same;
 *  3. velocity NaN of bodies K and K - 2: the lower id is named;
 *  4. a spin of 1e140 rad/s of the heavy body: every value stays finite (its turn per step is
 *     finite), but its kinetic energy 1e31 x 1e280 overflows: the error names it ("speed or
 *     energy").
 * The error code is PETSC_ERR_FP on every rank (an error on some ranks only would leave the others
 * in the next collective: the test would hang, which ctest's timeout reports). */
// ctest: ranks=2
#include "test_util.h"
#include <string.h>

static char last_msg[1024];

/* Keeps the first message of an error and returns quietly (no trace). */
static PetscErrorCode KeepMessage(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n,
                                  PetscErrorType p, const char *mess, void *ctx)
{
  (void)comm, (void)line, (void)fun, (void)file, (void)ctx;
  if (p == PETSC_ERROR_INITIAL) snprintf(last_msg, sizeof(last_msg), "%s", mess ? mess : "");
  return n;
}

static const char *scenario(PetscBool penalty)
{
  static char buf[2048];
  snprintf(buf, sizeof(buf),
           "domain: {min: [-0.5, -0.5, -0.1], max: [0.5, 0.5, 0.5]}\n"
           "gravity: [0, 0, -9.81]\n"
           "time: {step: %s, end: 1}\n"
           "contact: {model: %s}\n"
           "materials:\n"
           "  - {name: m, density: 1000, friction: 0.5%s}\n"
           "walls:\n"
           "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}\n"
           "bodies:\n"
           "  - {shape: sphere, radius: 0.02, position: [0, 0, 0.3], mass: 1.0e31, inertia: [1.0e31, 1.0e31, 1.0e31], "
           "material: m}\n"
           "fills:\n"
           "  - {type: lattice, region: {min: [-0.4, -0.4, 0], max: [0.4, 0.4, 0.04]}, radius: 0.02, spacing: 0.1, "
           "material: m}\n",
           penalty ? "1.0e-5" : "0.002", penalty ? "penalty" : "ccp",
           penalty ? ", young_modulus: 1.0e7, poisson_ratio: 0.3, restitution: 0.5" : "");
  return buf;
}

/* One case: a fresh simulation, two good steps, then the owners of the ids in ids[] set their
 * velocity x (field 0) or body-frame spin z (else) to value, and the next step must fail on every
 * rank with a message naming want_id and `what`. */
static PetscErrorCode RunCase(PetscBool penalty, const char *label, const int64_t *ids, int nids, int field,
                              double value, int64_t want_id, const char *what)
{
  Simulation     sim;
  PetscErrorCode ierr;
  PetscInt64     removed;
  char           want[128];
  int            failed, all_failed;

  PetscFunctionBegin;
  PetscCall(TestSimulationFromText(scenario(penalty), &sim));
  PetscCall(SimulationStep(sim));
  PetscCall(SimulationStep(sim));
  removed = SimulationRemoved(sim);
  for (int k = 0; k < nids; k++) {
    const PetscInt i = SimulationFindBody(sim, ids[k]);
    if (i < 0) continue; /* another rank owns it */
    if (field == 0) SimulationBodies(sim)->vel[6 * i] = value;
    else SimulationBodies(sim)->vel[6 * i + 5] = value; /* body frame z (the falling body has not turned) */
  }
  last_msg[0] = 0;
  PetscCall(PetscPushErrorHandler(KeepMessage, NULL));
  ierr = SimulationStep(sim);
  PetscCall(PetscPopErrorHandler());
  failed = ierr == PETSC_ERR_FP;
  PetscCallMPI(MPI_Allreduce(&failed, &all_failed, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
  TEST_CHECK(all_failed, "%s (%s): the step returned %d on this rank, want PETSC_ERR_FP (%d) on every rank", label,
             penalty ? "penalty" : "ccp", (int)ierr, (int)PETSC_ERR_FP);
  snprintf(want, sizeof(want), "step 3 (t = %g s): body %lld has a non-finite %s",
           3 * SimulationScenario(sim)->time_step, (long long)want_id, what);
  TEST_CHECK(strstr(last_msg, want) != NULL, "%s (%s): message '%s' lacks '%s'", label, penalty ? "penalty" : "ccp",
             last_msg, want);
  TEST_CHECK(SimulationRemoved(sim) == removed, "%s (%s): %lld bodies counted as removed, none should be", label,
             penalty ? "penalty" : "ccp", (long long)(SimulationRemoved(sim) - removed));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-8s %-18s -> %s\n", penalty ? "penalty" : "ccp", label, last_msg));
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const int64_t k = 37, two[2] = {37, 35}, heavy = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (int m = 0; m < 2; m++) {
    const PetscBool penalty = (PetscBool)m;
    PetscCall(RunCase(penalty, "velocity NaN", &k, 1, 0, NAN, k, "position, velocity or orientation"));
    PetscCall(RunCase(penalty, "velocity +inf", &k, 1, 0, INFINITY, k, "position, velocity or orientation"));
    PetscCall(RunCase(penalty, "two bodies NaN", two, 2, 0, NAN, 35, "position, velocity or orientation"));
    PetscCall(RunCase(penalty, "spin 1e140", &heavy, 1, 2, 1e140, heavy, "speed or energy"));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        failures ? "FAIL: %d failure(s)\n" : "PASS: non-finite state stops the step\n", failures));
  PetscCall(PetscFinalize());
  return failures != 0;
}
