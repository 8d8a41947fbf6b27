/* A poured heap must come to rest (contact.overlap_tolerance, src/contact_law.h).
 *
 * 400 spheres (d = 20 mm, mu = 0.6, rho = sigma = 2 mm: 6-dof contacts) poured onto a floor at
 * h = 5 ms with 50 APGD iterations a step, then left alone. A heap at rest (v = 0 for every body)
 * is an exact solution of its steps once every overlap is held (no deeper than the tolerance d),
 * so after settling the solver must reach its tolerance at every step and the bodies must stop:
 *   - every step of the last 0.5 s (from 2.5 s to 3 s; the heap stops at about 2.1 s) reaches the 1e-4 m/s tolerance;
 *   - the largest body speed at the end is below 1e-3 m/s (the tolerance's order: a residual of
 *     1e-4 m/s per contact lets a body keep a few times that);
 *   - no overlap is deeper than d + 0.05 d (deeper ones are pushed back to d; 5% for the last
 *     step's motion).
 * The same pour with the defaults (d = 0, warm start halved after each unconverged step) is run
 * and printed for contrast: there the overlapping, jammed steps have no exact solution (GUIDE
 * "When the exact CCP is ill-posed"), the solves stop at the cap and the heap keeps moving. */
// ctest: timeout=300
#include "test_util.h"

typedef struct {
  PetscInt steps_unconverged_late;
  double   final_speed, deepest_overlap;
} RestStats;

static PetscErrorCode run(const char *contact, const char *solver, RestStats *rs)
{
  char        yaml[2048];
  Simulation *sim;
  const double t_end = 3.0, t_late = 2.5;

  PetscFunctionBegin;
  snprintf(yaml, sizeof yaml,
           "domain: {min: [-0.5, -0.5, -0.1], max: [0.5, 0.5, 0.6]}\n"
           "gravity: [0, 0, -9.81]\n"
           "time: {step: 0.005, end: %g}\n"
           "contact: %s\n"
           "solver: %s\n"
           "materials:\n"
           "  - {name: gravel, density: 2028, friction: 0.6, rolling_friction: 0.002, spinning_friction: 0.002}\n"
           "walls:\n"
           "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: gravel}\n"
           "emitters:\n"
           "  - {region: {min: [-0.05, -0.05, 0.25], max: [0.05, 0.05, 0.3]}, rate: 800, count: 400, seed: 7, material: gravel,\n"
           "     velocity: [0, 0, -0.5], velocity_spread: [0.05, 0.05, 0.05], radius: 0.01}\n",
           t_end, contact, solver);
  PetscCall(TestSimulationFromText(yaml, &sim));
  rs->steps_unconverged_late = 0;
  while (sim->time < t_end - 1e-9) {
    PetscCall(SimulationStep(sim));
    if (sim->time > t_late + 1e-9) rs->steps_unconverged_late += !sim->last.converged;
  }
  rs->final_speed     = sim->last.max_speed;
  rs->deepest_overlap = 0;
  for (PetscInt i = 0; i < sim->contacts.n; i++) rs->deepest_overlap = PetscMax(rs->deepest_overlap, -sim->contacts.c[i].phi);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const double d = 5e-5; /* 0.5% of the radius */
  char         contact[128];
  RestStats    held, plain;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  snprintf(contact, sizeof contact, "{model: ccp, envelope: 0.002, overlap_tolerance: %g}", d);
  PetscCall(run(contact, "{type: apgd, max_iterations: 50, tolerance: 1.0e-4, warm_start_decay: 1}", &held));
  PetscCall(run("{model: ccp, envelope: 0.002}", "{type: apgd, max_iterations: 50, tolerance: 1.0e-4}", &plain));
  printf("overlap tolerance %g m: %" PetscInt_FMT " of the last 100 steps unconverged, final max speed %.2e m/s, deepest overlap %.2e m\n", d,
         held.steps_unconverged_late, held.final_speed, held.deepest_overlap);
  printf("defaults (no tolerance, decay 0.5): %" PetscInt_FMT " of the last 100 steps unconverged, final max speed %.2e m/s, deepest overlap %.2e m\n",
         plain.steps_unconverged_late, plain.final_speed, plain.deepest_overlap);
  TEST_CHECK(held.steps_unconverged_late == 0, "%" PetscInt_FMT " late steps did not reach the tolerance", held.steps_unconverged_late);
  TEST_CHECK(held.final_speed < 1e-3, "the heap has not come to rest: max speed %.2e m/s", held.final_speed);
  TEST_CHECK(held.deepest_overlap <= 1.05 * d, "an overlap of %.3e m is deeper than the tolerance %.1e m", held.deepest_overlap, d);
  int rc = TestFinish("heap at rest with the overlap tolerance");
  PetscCall(PetscFinalize());
  return rc;
}
