// ctest: timeout=600
/* Pendulum and double pendulum on revolute joints (src/joints/joints.h), h = 1 ms, 10 s.
 *
 * Each link is a sphere (r = 5 cm, m = 1 kg, its own inertia) whose centre hangs 0.5 m below its
 * hinge, the next hinge 0.5 m below the centre (hinges at 0 and 1 m, centres at 0.5 and 1.5 m
 * along the line); the hinges' axis is y, gravity -z. Released at rest from the horizontal (single) or from
 * 45 degrees (double; both links in line), with no contacts.
 *
 * Expected behaviour of the integrator: the step is semi-implicit (symplectic) Euler with the
 * joint rows solved at the velocity level and stabilized to the position x(t + h) (b = error / h,
 * plus the exponential map's arc drift). Without constraints symplectic Euler has no secular
 * energy drift: the energy oscillates with a relative amplitude O(h omega) ~ 1e-3. The velocity
 * projection of the rows removes the part of the velocity along the new constraint normal, an
 * O(h^2 omega^2) loss per step, but the stabilization's correction velocity rotates back into
 * the tangent by the same amount, so over 10 s the energy stays within ~O(h omega): tolerance
 * 1% of the largest kinetic energy (the issue's). Constraint violation: with the arc drift
 * predicted, the anchors' gap after a step is O(h^3 omega^3 L) plus the solver's tolerance times
 * h (1e-9 m/s x 1 ms): below 1e-6 m throughout (the issue's), checked every step.
 * The solves are asked for 1e-9 m/s; near it APGD's step test can stall on rounding, so a step may
 * stop at its iteration cap slightly above: the test reports those and requires every residual
 * below 1e-7 m/s (1e-10 m of drift per step). Jacobi and Gauss-Seidel, whose per-block diagonal
 * step ignores the coupling of a joint block's force and torque rows through the lever, converge
 * slowly on joints: below 1e-5 m/s in 5000 iterations (1e-8 m of drift per step at most).
 * The pendulum runs with each solver (APGD, Gauss-Seidel, Jacobi) on the packed layout and with
 * the reference loops; the double pendulum with APGD and Gauss-Seidel. */
#include "test_util.h"
#include <string.h>

static PetscErrorCode MakeSim(int links, double angle, const char *solver, Simulation *sim)
{
  char         yaml[4096];
  const double L = 0.5, c = cos(angle), s = sin(angle);
  int          k;

  PetscFunctionBegin;
  k = snprintf(yaml, sizeof(yaml),
               "domain: {min: [-3, -3, -3], max: [3, 3, 3]}\n"
               "gravity: [0, 0, -9.81]\n"
               "time: {step: 0.001, end: 10.0}\n"
               "solver: {type: %s, max_iterations: 5000, tolerance: 1.0e-9}\n"
               "materials:\n"
               "  - {name: m, density: 1000, friction: 0.5}\n"
               "bodies:\n"
               "  - {id: link1, shape: sphere, radius: 0.05, mass: 1.0, position: [%.17g, 0, %.17g], material: m}\n",
               solver, L * s, -L * c);
  if (links == 2)
    k += snprintf(yaml + k, sizeof(yaml) - k,
                  "  - {id: link2, shape: sphere, radius: 0.05, mass: 1.0, position: [%.17g, 0, %.17g], material: m}\n",
                  3 * L * s, -3 * L * c);
  k += snprintf(yaml + k, sizeof(yaml) - k,
                "joints:\n  - {type: revolute, body_a: ground, body_b: link1, point: [0, 0, 0], axis: [0, 1, 0]}\n");
  if (links == 2)
    snprintf(yaml + k, sizeof(yaml) - k,
             "  - {type: revolute, body_a: link1, body_b: link2, point: [%.17g, 0, %.17g], axis: [0, 1, 0]}\n",
             2 * L * s, -2 * L * c);
  PetscCall(TestSimulationFromText(yaml, sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Largest gap of the hinges' anchors (m) and the axis misalignment now. */
static double Violation(Simulation sim, int links, double angle, double *axis_err)
{
  const double L     = 0.5;
  double       worst = 0, p[3], prev[3] = {0, 0, 0};
  *axis_err = 0;
  for (int l = 0; l < links; l++) {
    const PetscInt i = SimulationFindBody(sim, l);
    double         up[3], y[3] = {0, 1, 0}, ay[3];
    /* link l's hinge, from its centre, in its body frame (the world frame at time 0) */
    double local[3] = {-L * sin(angle), 0, L * cos(angle)};
    quat_rotate(up, SimulationBodies(sim)->quat + 4 * i, local);
    v3_add(p, SimulationBodies(sim)->pos + 3 * i, up);
    double d[3];
    v3_sub(d, p, prev);
    worst = PetscMax(worst, v3_norm(d));
    /* the next hinge: this link's centre + 0.5 m along the link, i.e. minus the lever */
    v3_sub(prev, SimulationBodies(sim)->pos + 3 * i, up);
    quat_rotate(ay, SimulationBodies(sim)->quat + 4 * i, y);
    *axis_err = PetscMax(*axis_err, hypot(ay[0], ay[2]));
  }
  return worst;
}

static double Energy(Simulation sim)
{
  return SimulationLastStep(sim)->kinetic_energy + SimulationLastStep(sim)->potential_energy;
}

static PetscErrorCode Run(int links, double angle, const char *solver, double T, double *e_err, double *viol,
                          double *axis, PetscInt *unconverged, double *res)
{
  Simulation sim;
  double     e0, ke_max = 0, de = 0, a;

  PetscFunctionBegin;
  PetscCall(MakeSim(links, angle, solver, &sim));
  PetscCall(SimulationStep(sim));
  /* the energy at t = 0 from the scenario: at rest, potential m g z */
  e0 = 0;
  for (int l = 0; l < links; l++)
    e0 += 9.81 * (-(2 * l + 1) * 0.5 * cos(angle)); /* centres at 0.5 m and 1.5 m along the line */
  *viol = *axis = *res = 0;
  *unconverged         = 0;
  for (;;) {
    de     = PetscMax(de, fabs(Energy(sim) - e0));
    ke_max = PetscMax(ke_max, SimulationLastStep(sim)->kinetic_energy);
    *viol  = PetscMax(*viol, Violation(sim, links, angle, &a));
    *axis  = PetscMax(*axis, a);
    if (!SimulationLastStep(sim)->converged) (*unconverged)++;
    *res = PetscMax(*res, SimulationLastStep(sim)->residual_max);
    if (SimulationTime(sim) >= T - 1e-9) break;
    PetscCall(SimulationStep(sim));
  }
  *e_err = de / ke_max;
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  struct {
    int         links;
    double      angle, T;
    const char *solver;
    const char *packed;
  } cases[] = {{1, M_PI / 2, 10, "apgd", "true"},         {1, M_PI / 2, 10, "gauss-seidel", "true"},
               {1, M_PI / 2, 2, "jacobi", "true"},        {1, M_PI / 2, 2, "apgd", "false"},
               {1, M_PI / 2, 2, "gauss-seidel", "false"}, {1, M_PI / 2, 2, "jacobi", "false"},
               {2, M_PI / 4, 10, "gauss-seidel", "true"}, {2, M_PI / 4, 10, "apgd", "true"}};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    double   e = 0, v = 0, a = 0, res = 0;
    PetscInt nc = 0;
    PetscCall(PetscOptionsSetValue(NULL, "-ccp_packed", cases[c].packed));
    PetscCall(Run(cases[c].links, cases[c].angle, cases[c].solver, cases[c].T, &e, &v, &a, &nc, &res));
    printf("%s pendulum from %.0f deg, %s (packed %s), %.0f s: max |energy error| %.2e of the largest kinetic energy, "
           "hinge gap %.2e m, axis tilt %.2e; largest residual %.1e m/s, %" PetscInt_FMT " steps above the tolerance\n",
           cases[c].links == 1 ? "single" : "double", cases[c].angle * 180 / M_PI, cases[c].solver, cases[c].packed,
           cases[c].T, e, v, a, res, nc);
    TEST_CHECK(res < (strcmp(cases[c].solver, "apgd") ? 1e-5 : 1e-7),
               "largest residual %.3e m/s: the joint rows were not solved", res);
    TEST_CHECK(e < 0.01, "energy error %.3e above 1%%", e);
    TEST_CHECK(v < 1e-6, "hinge gap %.3e m above 1e-6 m", v);
    TEST_CHECK(a < 1e-6, "axis tilt %.3e above 1e-6", a);
  }
  int rc = TestFinish("pendulum");
  PetscCall(PetscFinalize());
  return rc;
}
