/* Elasto-plastic contact (src/ccp/plasticity.h) against its analytic answer: a permanent indentation.
 *
 * A sphere (R = 1 cm, m = 0.1 kg, rigid) on a plane of compliance C = 1/K = 1e-5 m/N and yield
 * force F_y = 20 N (F_y / K = 0.2 mm), under gravity, starts touching (overlap 0) and is driven
 * down by a prescribed motion v(t) = -a sin(2 pi f t) e_z, f = 0.5 Hz, a = pi f d, whose position
 * x0 - d (1 - cos(2 pi f t)) / 2 reaches the depth d = 1 mm at t = 1 / (2 f) = 1 s with zero
 * speed; the motion ends there (`until: 1.0`) and the sphere is free.
 *
 * Analytic answer. Loading: the contact is elastic (F = K delta) until delta = F_y / K, then yields
 * at F = F_y with the plastic displacement delta_p = delta - F_y / K; at the bottom
 * delta_p = d - F_y / K = 0.8 mm. Unloading is elastic, F = K (delta - delta_p), so the released
 * sphere comes to rest where the spring carries its weight: delta_rest = delta_p + m g / K.
 * What the scheme adds: the motion ends at the exact depth (its rows ask for the position, to
 * the solver tolerance 1e-10 m/s times h); the return map neglects the dashpot's share of F_y
 * while yielding, alpha u_n at the last yielding step, which vanishes as the motion stops at the
 * bottom with zero speed; the rest position is the spring's exact static point (test_compliance.c).
 * Measured over the three solvers and both layouts: the permanent indentation delta_rest - m g / K
 * is d - F_y / K within 2.9e-10 relative, the elastic rest m g / K within 4.4e-8, the speed at rest
 * below 6.7e-11 m/s, the yielding force F_y within 2e-8: tolerances 3e-9, 5e-7, 1e-9 m/s, 2e-7
 * (about 10x, far inside the acceptance bound of 2%). The dashpot (alpha = 5 ms, damping ratio
 * alpha omega / 2 = 2.5 with omega = sqrt(K / m) = 1000 rad/s) keeps the released sphere from
 * bouncing off: it creeps up to rest in ~30 ms; we wait 0.3 s.
 * Also checked: while yielding the contact force is F_y (the cap), and never above it; without a
 * yield force the same path leaves no dent (rest at m g / K), so
 * the test can tell plastic from elastic. Each with the three solvers, on the packed layout and on
 * the reference loops (-ccp_packed false), which cap the normal impulse in separate code. */
#include "test_util.h"
#include "joints/joints.h"

static const double R = 0.01, m = 0.1, g = 9.81, C = 1e-5, Fy = 20, d = 1e-3, f = 0.5;

static PetscErrorCode MakeSim(const char *solver, PetscBool plastic, Simulation *sim)
{
  char yaml[2048], yield[64] = "";

  PetscFunctionBegin;
  if (plastic) snprintf(yield, sizeof(yield), ", yield_force: %.17g", Fy);
  snprintf(yaml, sizeof(yaml),
           "domain: {min: [-1, -1, -1], max: [1, 1, 1]}\n"
           "gravity: [0, 0, %.17g]\n"
           "time: {step: 0.001, end: 2.0}\n"
           "contact: {model: ccp, envelope: 0.001}\n"
           "solver: {type: %s, max_iterations: 20000, tolerance: 1.0e-10}\n"
           "materials:\n"
           "  - {name: ball, density: 1000, friction: 0.5}\n"
           "  - {name: clay, density: 1000, friction: 0.5, compliance: %.17g, damping: 0.005%s}\n"
           "walls:\n"
           "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: clay}\n"
           "bodies:\n"
           "  - {shape: sphere, radius: %.17g, position: [0, 0, %.17g], mass: %.17g, material: ball, id: ball}\n"
           "joints:\n"
           "  - {type: motion, body: ball, amplitude: [0, 0, %.17g], frequency: %.17g, until: %.17g}\n",
           -g, solver, C, yield, R, R, m, -M_PI * f * d, f, 1 / (2 * f));
  PetscCall(TestSimulationFromText(yaml, sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Normal force (N) of the sphere-plane contact of the last step, 0 if none. */
static double ContactForce(Simulation sim, double h)
{
  for (PetscInt i = 0; i < SimulationContacts(sim)->n; i++)
    if (!SimulationContacts(sim)->c[i].box) return contact_gamma(SimulationContacts(sim), i)[0] / h;
  return 0;
}

int main(int argc, char **argv)
{
  const char  *solvers[] = {"apgd", "gauss-seidel", "jacobi"};
  const double h = 1e-3, K = 1 / C;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (int q = 0; q < 2; q++)
    for (int s = 0; s < 3; s++)
      for (int p = 1; p >= 0; p--) {
        Simulation sim;
        double     fmax = 0, fend = 0;
        PetscCall(PetscOptionsSetValue(NULL, "-ccp_packed", q ? "false" : "true"));
        PetscCall(MakeSim(solvers[s], (PetscBool)p, &sim));
        while (SimulationTime(sim) < 1 / (2 * f) - h / 2) { /* loading: the motion drives the sphere to depth d */
          PetscCall(SimulationStep(sim));
          fmax = PetscMax(fmax, ContactForce(sim, h));
        }
        fend               = ContactForce(sim, h);
        const double depth = R - SimulationBodies(sim)->pos[2];
        PetscCall(TestRunUntil(sim, 1 / (2 * f) + 0.3)); /* released: comes to rest in its dent */
        const double rest = R - SimulationBodies(sim)->pos[2], v = v3_norm(SimulationBodies(sim)->vel);
        if (p) {
          const double dent = rest - m * g / K, exact = d - Fy / K;
          printf("%s%s, plastic: depth %.9e m (d = %.1e), force at depth %.9g N (F_y = %g, max %.9g), rest overlap "
                 "%.9e m, permanent indentation %.9e m vs d - F_y/K = %.9e m (rel. error %.2e), speed %.1e m/s\n",
                 solvers[s], q ? " (reference loops)" : "", depth, d, fend, Fy, fmax, rest, dent, exact,
                 dent / exact - 1, v);
          TEST_CHECK(fabs(depth / d - 1) < 1e-6, "%s: the motion should reach depth %g m, got %.9e m", solvers[s], d,
                     depth);
          TEST_CHECK(fabs(fend / Fy - 1) < 2e-7 && fmax < Fy * (1 + 2e-7),
                     "%s: yielding contact force %.9g N (max %.9g N), the yield force is %g N", solvers[s], fend, fmax,
                     Fy);
          TEST_CHECK(fabs(dent / exact - 1) < 3e-9, "%s: permanent indentation %.12e m vs d - F_y/K = %.12e m",
                     solvers[s], dent, exact);
        } else {
          const double exact = m * g / K;
          printf("%s%s, elastic (no yield force): force at depth %.6g N (K d = %g N), rest overlap %.6e m vs m g / K = "
                 "%.6e m (rel. error %.2e)\n",
                 solvers[s], q ? " (reference loops)" : "", fend, K * d, rest, exact, rest / exact - 1);
          TEST_CHECK(fabs(rest / exact - 1) < 5e-7,
                     "%s: an elastic contact keeps no dent: rest overlap %.6e m vs m g / K = %.6e m", solvers[s], rest,
                     exact);
        }
        TEST_CHECK(v < 1e-9, "%s: the released sphere should be at rest, speed %.3e m/s", solvers[s], v);
        PetscCall(SimulationDestroy(&sim));
      }
  int rc = TestFinish("plasticity");
  PetscCall(PetscFinalize());
  return rc;
}
