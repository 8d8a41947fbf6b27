/* A closed system (spheres bouncing in a box of six planes under gravity, with sliding, rolling and
 * spinning friction) must never gain kinetic plus potential energy beyond solver tolerance.
 * The 112 spheres end as a loose layer on the floor: many contacts, but a well-posed CCP (a jammed
 * pack can be unsolvable, GUIDE "When the exact CCP is ill-posed", and is tested elsewhere).
 * Why it holds: the CCP step is the minimizer of a convex QP whose solution makes every contact's
 * impulse do non-positive work at the new velocity (gamma . u = 0, u_n >= 0 with the relaxation),
 * and symplectic Euler loses 1/2 m h^2 g^2 per step in free flight. An inexact solve can add at most
 * (impulse) x (velocity error) per contact, so the allowed gain per step is
 *   tol * sum_i (|force impulse_i| + |torque impulse_i| / R)  (+ 1e-12 relative for rounding). */
#include "test_util.h"

int main(int argc, char **argv)
{
  Simulation   sim;
  const double tol = 1e-9, R = 0.02;
  double       e_prev, worst = -1e300, gain_total = 0;
  PetscInt     violations = 0, steps = 0, max_contacts = 0;
  const char  *yaml =
    "domain: {min: [-0.5, -0.5, -0.5], max: [0.5, 0.5, 0.5]}\n"
    "gravity: [0, 0, -9.81]\n"
    "time: {step: 0.002, end: 1.0}\n"
    "contact: {model: ccp, envelope: 0.002, max_recovery_speed: 0.5}\n"
    "solver: {type: apgd, max_iterations: 5000, tolerance: 1.0e-9}\n"
    "materials:\n"
    "  - {name: m, density: 1000, friction: 0.3, rolling_friction: 0.0005, spinning_friction: 0.0005}\n"
    "walls:\n"
    "  - {type: plane, point: [0, 0, -0.2], normal: [0, 0, 1], material: m}\n"
    "  - {type: plane, point: [0, 0, 0.2], normal: [0, 0, -1], material: m}\n"
    "  - {type: plane, point: [-0.2, 0, 0], normal: [1, 0, 0], material: m}\n"
    "  - {type: plane, point: [0.2, 0, 0], normal: [-1, 0, 0], material: m}\n"
    "  - {type: plane, point: [0, -0.2, 0], normal: [0, 1, 0], material: m}\n"
    "  - {type: plane, point: [0, 0.2, 0], normal: [0, -1, 0], material: m}\n"
    "fills:\n"
    "  - {type: lattice, region: {min: [-0.1, -0.1, -0.19], max: [0.1, 0.1, 0.19]}, radius: 0.02, spacing: 0.05, "
    "material: m, velocity: [0.7, 0.4, 0.2]}\n";

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(TestSimulationFromText(yaml, &sim));
  PetscCall(SimulationStep(sim));
  e_prev = SimulationLastStep(sim)->kinetic_energy + SimulationLastStep(sim)->potential_energy;
  while (SimulationTime(sim) < 1.0 - 1e-9) {
    PetscCall(SimulationStep(sim));
    double allowed = 0;
    for (PetscInt i = 0; i < SimulationContacts(sim)->n; i++) {
      const double *g = contact_gamma(SimulationContacts(sim), i);
      allowed += tol * (v3_norm(g) + v3_norm(g + 3) / R);
    }
    const double e = SimulationLastStep(sim)->kinetic_energy + SimulationLastStep(sim)->potential_energy;
    allowed += 1e-12 * fabs(e);
    worst = PetscMax(worst, (e - e_prev) - allowed);
    if (e - e_prev > allowed) {
      violations++;
      if (violations <= 5)
        printf("  step %" PetscInt64_FMT ": gain %.3e J > allowance %.3e J (iterations %" PetscInt_FMT
               ", residual %.2e m/s, converged %d)\n",
               SimulationStepCount(sim), e - e_prev, allowed, SimulationLastStep(sim)->iterations,
               SimulationLastStep(sim)->residual_max, (int)SimulationLastStep(sim)->converged);
    }
    if (e > e_prev) gain_total += e - e_prev;
    max_contacts = PetscMax(max_contacts, SimulationContacts(sim)->n);
    e_prev       = e;
    steps++;
  }
  printf("%" PetscInt_FMT " steps, up to %" PetscInt_FMT
         " contacts: steps with a gain beyond the allowance %" PetscInt_FMT
         ", worst excess %.3e J, sum of all gains %.3e J, final energy %.6f J\n",
         steps, max_contacts, violations, worst, gain_total, e_prev);
  TEST_CHECK(max_contacts > 50, "the test needs many contacts, had %" PetscInt_FMT, max_contacts);
  TEST_CHECK(violations == 0, "%" PetscInt_FMT " steps gained energy beyond solver tolerance (worst %.3e J)",
             violations, worst);
  PetscCall(SimulationDestroy(&sim));
  int rc = TestFinish("energy of a closed system");
  PetscCall(PetscFinalize());
  return rc;
}
