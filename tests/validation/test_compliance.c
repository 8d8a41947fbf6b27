/* Compliant contacts (src/ccp/law.h) against the linear spring-dashpot they stand for.
 *
 * 1. Static deflection. A sphere of mass m rests on a plane through a contact of compliance
 *    C = C_sphere + C_wall (springs in series). The row of an overlapping compliant contact is
 *    u + phi / (h + alpha) + C / (h (h + alpha)) gamma >= 0; at rest (u = 0) with gamma > 0 it is an
 *    equality, so the force gamma / h = -phi / C: the sphere settles at phi = -m g C = -F / K,
 *    exactly, for any h and damping time alpha. (Without the dashpot the step is an implicit-Euler
 *    spring, m (phi_k+1 - 2 phi_k + phi_k-1) / h^2 = -phi_k+1 / C - m g, which is dissipative and
 *    converges to the same point.) The solves stop at 1e-10 m/s; measured, the deflection is off by
 *    at most 9.8e-9 relative and the sphere moves at most 8.7e-11 m/s: tolerances 1e-7 and 1e-9
 *    m/s, about 10x. Two cases: a stiff contact (deflection / h = 0.05 m/s) and a
 *    soft one whose deflection / h = 0.98 m/s is beyond the rigid contacts' recovery clamp
 *    (0.5 m/s): a clamp on the spring would cap the force at 0.5 h / C = 5 N < m g and the sphere
 *    would sink through; it must not apply to compliant contacts. Each case with the three solvers.
 * 2. Damping. The same soft contact (K = 1e4 N/m, m = 1 kg: omega = 100 rad/s) with damping time
 *    alpha = 0.004 s, i.e. R = alpha K and damping ratio zeta = alpha omega / 2 = 0.2, dropped from
 *    touching at rest: the first overshoot past the static deflection d is
 *    d exp(-zeta pi / sqrt(1 - zeta^2)) = 0.5266 d. At h = 1e-4 s implicit Euler adds a numerical
 *    damping ratio of about h omega / 2 = 0.005, so the step's overshoot is that formula at
 *    zeta + h omega / 2 = 0.205, 0.5179 d (1.6% lower); measured 0.5183 d, 8e-4 off it (the terms
 *    of order (h omega)^2 left out): tolerance 1%, about 10x (the dashpot's zeta is then tested to
 *    about +-0.003; undamped, the overshoot would be ~0.98 d). */
#include "test_util.h"

static PetscErrorCode MakeSim(const char *solver, double h, double c_sphere, double c_wall, double damping,
                              Simulation *sim)
{
  char yaml[2048];

  PetscFunctionBegin;
  snprintf(yaml, sizeof(yaml),
           "domain: {min: [-1, -1, -1], max: [1, 1, 1]}\n"
           "gravity: [0, 0, -9.81]\n"
           "time: {step: %g, end: 1.0}\n"
           "contact: {model: ccp, envelope: 0.005}\n"
           "solver: {type: %s, max_iterations: 5000, tolerance: 1.0e-10}\n"
           "materials:\n"
           "  - {name: ball, density: 1000, friction: 0.5, compliance: %.17g, damping: %.17g}\n"
           "  - {name: floor, density: 1000, friction: 0.5, compliance: %.17g, damping: %.17g}\n"
           "walls:\n"
           "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: floor}\n"
           "bodies:\n"
           "  - {shape: sphere, radius: 0.05, position: [0, 0, 0.05], mass: 1.0, material: ball}\n",
           h, solver, c_sphere, damping, c_wall, damping);
  PetscCall(TestSimulationFromText(yaml, sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const char  *solvers[] = {"apgd", "gauss-seidel", "jacobi"};
  const double m = 1.0, g = 9.81;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  /* 1. static deflection: (compliance of sphere, of wall, damping time) */
  const double cases[2][3] = {{3e-6, 2e-6, 0}, {6e-5, 4e-5, 0.01}};
  for (int c = 0; c < 2; c++)
    for (int s = 0; s < 3; s++) {
      Simulation   sim;
      const double C = cases[c][0] + cases[c][1], d_exact = m * g * C;
      PetscCall(MakeSim(solvers[s], 1e-3, cases[c][0], cases[c][1], cases[c][2], &sim));
      PetscCall(TestRunUntil(sim, 0.6));
      const double d = 0.05 - SimulationBodies(sim)->pos[2], v = v3_norm(SimulationBodies(sim)->vel);
      printf("static deflection, C = %g m/N, alpha = %g s, %s: %.6e m (F/K = m g C = %.6e m; rel. error %.1e), speed "
             "%.1e m/s\n",
             C, cases[c][2], solvers[s], d, d_exact, d / d_exact - 1, v);
      TEST_CHECK(fabs(d / d_exact - 1) < 1e-7, "%s: deflection %.9e m vs F/K = %.9e m", solvers[s], d, d_exact);
      TEST_CHECK(v < 1e-9, "%s: the sphere should be at rest, speed %.3e m/s", solvers[s], v);
      PetscCall(SimulationDestroy(&sim));
    }
  /* 2. first overshoot with damping */
  {
    Simulation   sim;
    const double C = 1e-4, alpha = 0.004, omega = sqrt(1 / (m * C)), zeta = alpha * omega / 2, h = 1e-4;
    const double d_static = m * g * C, os_exact = exp(-zeta * M_PI / sqrt(1 - zeta * zeta));
    const double zeta_h = zeta + h * omega / 2, os_step = exp(-zeta_h * M_PI / sqrt(1 - zeta_h * zeta_h));
    double       d_max = 0;
    PetscCall(MakeSim("apgd", h, C / 2, C / 2, alpha, &sim));
    while (SimulationTime(sim) < 2 * M_PI / omega) { /* the first peak is at pi / omega_d, ~ half a period */
      PetscCall(SimulationStep(sim));
      d_max = PetscMax(d_max, 0.05 - SimulationBodies(sim)->pos[2]);
    }
    const double os = d_max / d_static - 1;
    printf("damped compliant contact, zeta = %.3f: first overshoot %.5f of the static deflection (exp(-zeta pi / "
           "sqrt(1 - zeta^2)) = %.5f; at zeta + h omega / 2 = %.4f: %.5f, rel. error %.2e)\n",
           zeta, os, os_exact, zeta_h, os_step, os / os_step - 1);
    TEST_CHECK(fabs(os / os_step - 1) < 0.01, "overshoot %.5f vs %.5f (%.5f without the step's damping)", os, os_step,
               os_exact);
    PetscCall(SimulationDestroy(&sim));
  }
  int rc = TestFinish("compliance");
  PetscCall(PetscFinalize());
  return rc;
}
