/* A poured pile must come to rest and its steps converge (contact.overlap_tolerance,
 * src/ccp/law.h).
 *
 * The paper's pile (jobs/pile/paper.yaml) reduced to 1500 spheres of 45 mm (2028 kg/m^3, mu = 0.6,
 * rho = sigma = 0.01 m: 6-dof contacts), poured at 800 per second onto a floor, h = 5 ms, 50 APGD
 * iterations a step with the warm start kept whole (solver.warm_start_decay 1), 4 s (the pour ends
 * at 1.9 s). With overlaps up to d = 0.1 mm held, a pile at rest is an exact solution of its steps:
 *   - every step after 3.5 s reaches the 1e-4 m/s tolerance;
 *   - the kinetic energy at 4 s is below 1e-3 J (the pour carries ~10 J; a single 45 mm sphere
 *     rolling at 0.1 m/s has 7e-4 J);
 *   - no overlap is deeper than 1.05 d (deeper ones are pushed back to d; 5% for the last step).
 * The same run without the tolerance is the contrast: its steps of a jammed, overlapping pack have
 * no exact solution (GUIDE "When the exact CCP is ill-posed"), and measured 2026-11-22 none of its
 * late steps converged (0 of 100, against 100 of 100), so the first check fails without the
 * tolerance. Also checks that the stepper takes the warm-start decay from the scenario. */
// ctest: timeout=300
#include "test_util.h"

typedef struct {
  PetscInt steps_unconverged_late;
  double   final_kinetic_energy, deepest_overlap, warm_start_decay;
} RestStats;

static PetscErrorCode run(const char *contact, RestStats *rs)
{
  char         yaml[2048];
  Simulation   sim;
  const double t_end = 4.0, t_late = 3.5;

  PetscFunctionBegin;
  snprintf(yaml, sizeof yaml,
           "domain: {min: [-1, -1, -0.1], max: [1, 1, 1.3]}\n"
           "gravity: [0, 0, -9.81]\n"
           "time: {step: 0.005, end: %g}\n"
           "contact: %s\n"
           "solver: {type: apgd, max_iterations: 50, tolerance: 1.0e-4, warm_start_decay: 1}\n"
           "materials:\n"
           "  - {name: gravel, density: 2028, friction: 0.6, rolling_friction: 0.01, spinning_friction: 0.01}\n"
           "walls:\n"
           "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: gravel}\n"
           "emitters:\n"
           "  - {region: {min: [-0.2, -0.2, 0.9], max: [0.2, 0.2, 1.1]}, rate: 800, count: 1500, seed: 1, material: "
           "gravel,\n"
           "     velocity: [0, 0, -0.5], velocity_spread: [0.05, 0.05, 0.05], radius: 0.0225}\n",
           t_end, contact);
  PetscCall(TestSimulationFromText(yaml, &sim));
  {
    double scale;
    PetscCall(SimulationGetWarmStart(sim, &scale, &rs->warm_start_decay));
  }
  rs->steps_unconverged_late = 0;
  while (SimulationTime(sim) < t_end - 1e-9) {
    PetscCall(SimulationStep(sim));
    if (SimulationTime(sim) > t_late + 1e-9) rs->steps_unconverged_late += !SimulationLastStep(sim)->converged;
  }
  rs->final_kinetic_energy = SimulationLastStep(sim)->kinetic_energy;
  rs->deepest_overlap      = 0;
  for (PetscInt i = 0; i < SimulationContacts(sim)->n; i++)
    rs->deepest_overlap = PetscMax(rs->deepest_overlap, -SimulationContacts(sim)->c[i].phi);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const double d = 1e-4; /* 0.44% of the radius, as jobs/pile/paper.yaml */
  char         contact[128];
  RestStats    held, plain;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  snprintf(contact, sizeof contact, "{model: ccp, envelope: 0.0045, overlap_tolerance: %g}", d);
  PetscCall(run(contact, &held));
  PetscCall(run("{model: ccp, envelope: 0.0045}", &plain));
  printf("overlap tolerance %g m: %" PetscInt_FMT
         " of the last 100 steps unconverged, final kinetic energy %.2e J, deepest overlap %.2e m\n",
         d, held.steps_unconverged_late, held.final_kinetic_energy, held.deepest_overlap);
  printf("no tolerance (contrast): %" PetscInt_FMT
         " of the last 100 steps unconverged, final kinetic energy %.2e J, deepest overlap %.2e m\n",
         plain.steps_unconverged_late, plain.final_kinetic_energy, plain.deepest_overlap);
  TEST_CHECK(held.warm_start_decay == 1,
             "the stepper's warm-start decay %g is not the scenario's solver.warm_start_decay 1",
             held.warm_start_decay);
  TEST_CHECK(held.steps_unconverged_late == 0, "%" PetscInt_FMT " late steps did not reach the tolerance",
             held.steps_unconverged_late);
  TEST_CHECK(held.final_kinetic_energy < 1e-3, "the pile has not come to rest: kinetic energy %.2e J",
             held.final_kinetic_energy);
  TEST_CHECK(held.deepest_overlap <= 1.05 * d, "an overlap of %.3e m is deeper than the tolerance %.1e m",
             held.deepest_overlap, d);
  int rc = TestFinish("pile at rest with the overlap tolerance");
  PetscCall(PetscFinalize());
  return rc;
}
