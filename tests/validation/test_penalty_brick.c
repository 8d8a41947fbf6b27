/* Penalty model, brick on an incline (paper sec. 4.1, Table 6: m = 1 kg, mu_s = 0.25, mu_k = 0.2,
 * K_E = 1e5 N/m, K_D = 2 sqrt(m K_E) = 632 N s/m, the default of eq. 1c). The brick is a box body
 * (0.2 x 0.1 x 0.05 m, mass 1 kg) on the plane z = 0 with gravity tilted by alpha (downhill -x);
 * it touches with its 4 bottom corners, each a contact with its own history, Hooke normal springs
 * (k = 1e6 N/m each; Hertz has no corner radius) and the paper's K_E. It starts at its static
 * overlap m g cos a / (4 k).
 *  - alpha <= atan mu_s (0.18 rad as in the paper, and atan mu_k): it sticks. Each corner's slide
 *    micro-deflection equals the brick's displacement along the slope, and stays within its
 *    static threshold mu_s N_k / K_E; so the displacement is below mu_s m g cos a / (4 K_E) (the
 *    four thresholds' mean), the corners are in stick mode and the brick is at rest after 1 s
 *    (speed < 1e-9 m/s: a stuck micro-deflection does not creep).
 *  - alpha > atan mu_s (0.25 rad as in the paper, and 0.35): it slides with acceleration
 *    g sin a - mu_k g cos a, measured from the speeds at 0.5 s and 1 s: every corner slips at its
 *    kinetic cap mu_k N_k (no damping on a capped deflection, see penalty/deflection.h), the N_k
 *    summing to m g cos a once the normal oscillation has died out (restitution 0.2, period 3 ms);
 *    symplectic Euler is exact for a constant acceleration, so only rounding is left: 5000 steps
 *    of an ulp of the speed each, ~5e-13 of the speed gained. Measured 4e-13: tolerance 1e-11. */
#include "test_penalty.h"
#include "penalty/history.h"

static PetscErrorCode MakeBrick(double alpha, Simulation *sim)
{
  char         yaml[4096];
  const double k = 1e6, delta = 1.0 * PEN_G * cos(alpha) / (4 * k);

  PetscFunctionBegin;
  snprintf(yaml, sizeof(yaml),
           "domain: {min: [-50, -50, -1], max: [50, 50, 5]}\n"
           "gravity: [%.17g, 0, %.17g]\n"
           "time: {step: 1.0e-4, end: 100}\n"
           "contact: {model: penalty, normal: hooke, normal_stiffness: %g, envelope: 0.002}\n"
           "materials:\n"
           "  - {name: m, density: 1000, friction: %g, kinetic_friction: %g, young_modulus: %g, poisson_ratio: %g, "
           "restitution: 0.2, tangential_stiffness: 1.0e5}\n"
           "walls:\n"
           "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}\n"
           "bodies:\n"
           "  - {shape: box, half_extents: [0.1, 0.05, 0.025], position: [0, 0, %.17g], material: m, mass: 1}\n",
           -PEN_G * sin(alpha), -PEN_G * cos(alpha), k, PEN_MU_S, PEN_MU_K, PEN_E, PEN_NU, 0.025 - delta);
  PetscCall(TestSimulationFromText(yaml, sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const double stick[] = {0.18, atan(PEN_MU_K)}, slide[] = {0.25, 0.35};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (int k = 0; k < 2; k++) {
    Simulation   sim;
    const double a = stick[k], threshold = PEN_MU_S * PEN_G * cos(a) / (4 * 1e5);
    int          sticking = 0;
    PetscCall(MakeBrick(a, &sim));
    PetscCall(TestRunUntil(sim, 1.0));
    for (PetscInt i = 0; i < SimulationMemory(sim)->n; i++) {
      PenaltyHistory hst;
      memcpy(&hst, SimulationMemory(sim)->gamma + (size_t)PENALTY_HISTORY_WIDTH * i, sizeof(hst));
      sticking += penalty_state_has(&hst, PENALTY_TOUCHING) && !penalty_state_has(&hst, PENALTY_SLIDE_SLIP);
    }
    printf("brick at alpha = %.4f rad (tan %.4f <= mu_s): displacement %.4e m, static threshold mu_s m g cos a / (4 "
           "K_E) = %.4e m, speed %.3e m/s, %d of %" PetscInt_FMT " corners sticking\n",
           a, tan(a), -SimulationBodies(sim)->pos[0], threshold, v3_norm(SimulationBodies(sim)->vel), sticking,
           SimulationMemory(sim)->n);
    TEST_CHECK(fabs(SimulationBodies(sim)->pos[0]) < threshold, "displacement %.4e m above the static threshold %.4e m",
               -SimulationBodies(sim)->pos[0], threshold);
    TEST_CHECK(v3_norm(SimulationBodies(sim)->vel) < 1e-9, "the brick should be at rest: %.3e m/s",
               v3_norm(SimulationBodies(sim)->vel));
    TEST_CHECK(sticking == 4, "%d corners in stick mode, want 4", sticking);
    PetscCall(SimulationDestroy(&sim));
  }
  for (int k = 0; k < 2; k++) {
    Simulation   sim;
    const double a = slide[k], exact = PEN_G * sin(a) - PEN_MU_K * PEN_G * cos(a);
    double       v1, v2, acc;
    PetscCall(MakeBrick(a, &sim));
    PetscCall(TestRunUntil(sim, 0.5));
    v1 = -SimulationBodies(sim)->vel[0];
    PetscCall(TestRunUntil(sim, 1.0));
    v2  = -SimulationBodies(sim)->vel[0];
    acc = (v2 - v1) / 0.5;
    printf("brick at alpha = %.4f rad (tan %.4f > mu_s): acceleration %.9f m/s^2, g sin a - mu_k g cos a = %.9f "
           "(rel. error %.2e)\n",
           a, tan(a), acc, exact, acc / exact - 1);
    TEST_CHECK(fabs(acc / exact - 1) < 1e-11, "sliding acceleration %.12f vs %.12f m/s^2", acc, exact);
    PetscCall(SimulationDestroy(&sim));
  }
  int rc = TestFinish("penalty brick on incline");
  PetscCall(PetscFinalize());
  return rc;
}
