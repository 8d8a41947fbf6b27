/* A box (4 contact points on the plane) under Coulomb friction.
 * 1. Sliding on a horizontal plane from v0: the friction force mu m g decelerates it uniformly, so it
 *    stops after d = v0^2 / (2 mu g). With symplectic Euler the discrete distance is
 *    d - v0 h / 2 (relative error mu g h / v0 = 0.5% at h = 1 ms), inside the 1% tolerance.
 * 2. On an incline below the friction angle (tan a = 0.3 < mu = 0.5) it stays: speed < 1e-6 m/s
 *    after 1 s (the threshold; the solver tolerance is 1e-10 m/s). */
#include "test_util.h"

static PetscErrorCode MakeSim(double alpha, double v0, double h, Simulation *sim)
{
  char yaml[2048];

  PetscFunctionBegin;
  snprintf(yaml, sizeof(yaml),
           "domain: {min: [-5, -5, -1], max: [5, 5, 5]}\n"
           "gravity: [%.17g, 0, %.17g]\n"
           "time: {step: %g, end: 2.0}\n"
           "contact: {model: ccp, envelope: 0.005, max_recovery_speed: 0.5}\n"
           "solver: {type: apgd, max_iterations: 3000, tolerance: 1.0e-10}\n"
           "materials:\n"
           "  - {name: m, density: 1000, friction: 0.5}\n"
           "walls:\n"
           "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}\n"
           "bodies:\n"
           "  - {shape: box, half_extents: [0.1, 0.1, 0.05], position: [0, 0, 0.05], velocity: [%g, 0, 0], material: "
           "m}\n",
           9.81 * sin(alpha), -9.81 * cos(alpha), h, v0);
  PetscCall(TestSimulationFromText(yaml, sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Simulation sim;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  {
    const double v0 = 1.0, d_exact = v0 * v0 / (2 * 0.5 * 9.81);
    double       t_stop = -1, x_stop = 0;
    PetscCall(MakeSim(0, v0, 0.001, &sim));
    while (SimulationTime(sim) < 0.5 - 1e-9) {
      PetscCall(SimulationStep(sim));
      if (t_stop < 0 && v3_norm(SimulationBodies(sim)->vel) < 1e-6) {
        t_stop = SimulationTime(sim);
        x_stop = SimulationBodies(sim)->pos[0];
      }
    }
    printf("sliding box: stopped at t = %.4f s after %.6f m; Coulomb distance v0^2/(2 mu g) = %.6f m; contacts "
           "%" PetscInt_FMT "\n",
           t_stop, x_stop, d_exact, SimulationContacts(sim)->n);
    TEST_CHECK(t_stop > 0, "box never stopped");
    TEST_CHECK(fabs(x_stop / d_exact - 1) < 0.01, "stop distance %.6f vs %.6f", x_stop, d_exact);
    TEST_CHECK(SimulationContacts(sim)->n == 4,
               "a box face resting on a plane should have 4 contact points, has %" PetscInt_FMT,
               SimulationContacts(sim)->n);
    PetscCall(SimulationDestroy(&sim));
  }
  {
    double v;
    PetscCall(MakeSim(atan(0.3), 0, 0.005, &sim));
    PetscCall(TestRunUntil(sim, 1.0));
    v = PetscMax(v3_norm(SimulationBodies(sim)->vel), 0.1 * v3_norm(SimulationBodies(sim)->vel + 3));
    printf("box on incline tan a = 0.3 < mu = 0.5: speed after 1 s %.3e m/s\n", v);
    TEST_CHECK(v < 1e-6, "box should stick, speed %.3e m/s", v);
    PetscCall(SimulationDestroy(&sim));
  }
  int rc = TestFinish("box friction");
  PetscCall(PetscFinalize());
  return rc;
}
