/* The joint types other than the revolute pendulum (test_pendulum.c), each against an analytic
 * answer; h = 1 ms, a sphere of m = 1 kg (r = 5 cm), no contacts.
 *
 * 1. Prismatic joint with seal friction S = 5 N (rows -S h <= gamma <= S h on the sliding axis x),
 *    pulled along x by a body force F (gravity's x component) and pressed sideways by 9.81 N (the
 *    bilateral rows take it; the seal friction does not depend on it). F = 0.9 S: sticks (moved
 *    < 1e-9 m in 0.5 s). F = 1.5 S: accelerates at (F - S) / m exactly (constant force, symplectic
 *    Euler; the seal's rows are clamped at exactly S h): v(0.5 s) is off by rounding only, at most
 *    an ulp per step, 500 ulps = 1e-13 relative (measured 5e-15): within 1e-12. Off the axis and in orientation it
 * stays put
 *    (< 1e-9 m, < 1e-9 rad).
 * 2. Prescribed motion v(t) = (0.1, 0, 0) + (0, 0, 0.2) sin(2 pi 2 t) under gravity: the rows ask
 *    for x(t + h) of the integral x0 + 0.1 t e_x + 0.2 (1 - cos(4 pi t)) / (4 pi) e_z, so the
 *    position matches it to the solver tolerance times h at every step (< 1e-9 m).
 * 3. Distance joint: the sphere's centre held 0.8 m from a ground anchor, released from the
 *    horizontal with a sideways velocity (a spherical pendulum of a point mass): the distance stays
 *    0.8 m within 1e-6 m and the energy within 1% over 3 s (see test_pendulum.c for why).
 * 4. Spherical joint: the same pendulum with the anchor fixed in the sphere 0.8 m from its centre,
 *    so it also turns (started with the angular velocity that keeps the anchor at rest): the
 *    anchors' gap < 1e-6 m, energy within 1%.
 * 5. Fixed joint to the ground under gravity and an initial spin: after one step the body is at
 *    rest and it stays where it was (< 1e-9 m, < 1e-9 rad). */
#include "test_util.h"

#define HEADER \
  "domain: {min: [-3, -3, -3], max: [3, 3, 3]}\n" \
  "time: {step: 0.001, end: 10.0}\n" \
  "solver: {type: apgd, max_iterations: 5000, tolerance: 1.0e-9}\n" \
  "materials:\n" \
  "  - {name: m, density: 1000, friction: 0.5}\n"

static double rotation_angle(const double q[4])
{
  return 2 * atan2(sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), fabs(q[0]));
}

static PetscErrorCode Prismatic(double F, double S)
{
  char       yaml[2048];
  Simulation sim;

  PetscFunctionBegin;
  snprintf(yaml, sizeof(yaml),
           HEADER "gravity: [%.17g, -9.81, 0]\n"
                  "bodies:\n"
                  "  - {id: carriage, shape: sphere, radius: 0.05, mass: 1.0, position: [0, 0, 0], material: m}\n"
                  "joints:\n"
                  "  - {type: prismatic, body_a: ground, body_b: carriage, point: [0, 0, 0], axis: [1, 0, 0], "
                  "friction: %.17g}\n",
           F, S);
  PetscCall(TestSimulationFromText(yaml, &sim));
  PetscCall(TestRunUntil(sim, 0.5));
  const double *x = SimulationBodies(sim)->pos, vx = SimulationBodies(sim)->vel[0], off = hypot(x[1], x[2]),
               rot = rotation_angle(SimulationBodies(sim)->quat);
  if (F < S) {
    printf("prismatic, F = %.2f S: moved %.2e m along the axis, %.2e m off it, turned %.2e rad\n", F / S, x[0], off,
           rot);
    TEST_CHECK(fabs(x[0]) < 1e-9, "F < S: the carriage should stick, moved %.3e m", x[0]);
  } else {
    const double v = (F - S) * 0.5;
    printf("prismatic, F = %.2f S: v(0.5 s) = %.6f m/s ((F - S) t / m = %.6f; rel. error %.1e), %.2e m off the axis, "
           "turned %.2e rad\n",
           F / S, vx, v, vx / v - 1, off, rot);
    TEST_CHECK(fabs(vx / v - 1) < 1e-12, "F > S: speed %.15f vs %.15f m/s", vx, v);
  }
  TEST_CHECK(off < 1e-9 && rot < 1e-9, "the carriage left its axis (%.3e m) or turned (%.3e rad)", off, rot);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Motion(void)
{
  Simulation   sim;
  double       worst = 0;
  const double om    = 4 * M_PI;

  PetscFunctionBegin;
  PetscCall(TestSimulationFromText(
    HEADER "gravity: [0, 0, -9.81]\n"
           "bodies:\n"
           "  - {id: shaker, shape: sphere, radius: 0.05, mass: 1.0, position: [0, 0, 0.5], material: m}\n"
           "joints:\n"
           "  - {type: motion, body: shaker, velocity: [0.1, 0, 0], amplitude: [0, 0, 0.2], frequency: 2}\n",
    &sim));
  while (SimulationTime(sim) < 1.0 - 1e-9) {
    PetscCall(SimulationStep(sim));
    const double t    = SimulationTime(sim),
                 e[3] = {SimulationBodies(sim)->pos[0] - 0.1 * t, SimulationBodies(sim)->pos[1],
                         SimulationBodies(sim)->pos[2] - 0.5 - 0.2 * (1 - cos(om * t)) / om};
    worst             = PetscMax(worst, v3_norm(e));
  }
  printf("prescribed motion: largest distance from x(t) over 1 s %.2e m\n", worst);
  TEST_CHECK(worst < 1e-9, "the body left its prescribed path by %.3e m", worst);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 3. distance (anchor at the centre) and 4. spherical (anchor on the surface, the sphere below it) */
static PetscErrorCode Pendulum3D(int spherical)
{
  char         yaml[2048];
  Simulation   sim;
  const double L   = 0.8;
  double       gap = 0, de = 0, ke_max = 0;

  PetscFunctionBegin;
  if (spherical)
    snprintf(yaml, sizeof(yaml),
             HEADER "gravity: [0, 0, -9.81]\n"
                    "bodies:\n"
                    "  - {id: bob, shape: sphere, radius: 0.05, mass: 1.0, position: [%.17g, 0, 0], velocity: [0, 1.5, "
                    "0], angular_velocity: [0, 0, %.17g], material: m}\n"
                    "joints:\n"
                    "  - {type: spherical, body_b: bob, point: [0, 0, 0]}\n",
             L, 1.5 / L);
  else
    snprintf(yaml, sizeof(yaml),
             HEADER "gravity: [0, 0, -9.81]\n"
                    "bodies:\n"
                    "  - {id: bob, shape: sphere, radius: 0.05, mass: 1.0, position: [%.17g, 0, 0], velocity: [0, 1.5, "
                    "0], material: m}\n"
                    "joints:\n"
                    "  - {type: distance, body_a: ground, body_b: bob, point_a: [0, 0, 0], point_b: [%.17g, 0, 0]}\n",
             L, L);
  PetscCall(TestSimulationFromText(yaml, &sim));
  const double I  = 0.4 * 0.05 * 0.05,
               e0 = 0.5 * 1.5 * 1.5 + (spherical ? 0.5 * I * (1.5 / L) * (1.5 / L) : 0); /* at z = 0 */
  while (SimulationTime(sim) < 3.0 - 1e-9) {
    PetscCall(SimulationStep(sim));
    double lever[3] = {-L, 0, 0}, p[3];
    if (spherical) { /* the anchor is fixed in the body: where it is now */
      quat_rotate(p, SimulationBodies(sim)->quat, lever);
      v3_add(p, p, SimulationBodies(sim)->pos);
      gap = PetscMax(gap, v3_norm(p));
    } else gap = PetscMax(gap, fabs(v3_norm(SimulationBodies(sim)->pos) - L));
    de = PetscMax(de, fabs(SimulationLastStep(sim)->kinetic_energy + SimulationLastStep(sim)->potential_energy - e0));
    ke_max = PetscMax(ke_max, SimulationLastStep(sim)->kinetic_energy);
  }
  printf("%s pendulum, 3 s: %s %.2e m, max |energy error| %.2e of the largest kinetic energy\n",
         spherical ? "spherical-joint" : "distance-joint", spherical ? "anchor gap" : "length error", gap, de / ke_max);
  TEST_CHECK(gap < 1e-6, "constraint violation %.3e m", gap);
  TEST_CHECK(de / ke_max < 0.01, "energy error %.3e", de / ke_max);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Fixed(void)
{
  Simulation sim;

  PetscFunctionBegin;
  PetscCall(TestSimulationFromText(HEADER "gravity: [0, 0, -9.81]\n"
                                          "bodies:\n"
                                          "  - {id: post, shape: sphere, radius: 0.05, mass: 1.0, position: [0.3, 0.2, "
                                          "0.1], angular_velocity: [1, 2, 3], material: m}\n"
                                          "joints:\n"
                                          "  - {type: fixed, body_a: ground, body_b: post, point: [0, 0, 0]}\n",
                                   &sim));
  PetscCall(TestRunUntil(sim, 1.0));
  const double d[3] = {SimulationBodies(sim)->pos[0] - 0.3, SimulationBodies(sim)->pos[1] - 0.2,
                       SimulationBodies(sim)->pos[2] - 0.1},
               rot  = rotation_angle(SimulationBodies(sim)->quat);
  printf("fixed joint: moved %.2e m, turned %.2e rad in 1 s\n", v3_norm(d), rot);
  TEST_CHECK(v3_norm(d) < 1e-9 && rot < 1e-9, "the fixed body moved %.3e m or turned %.3e rad", v3_norm(d), rot);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(Prismatic(4.5, 5));
  PetscCall(Prismatic(7.5, 5));
  PetscCall(Motion());
  PetscCall(Pendulum3D(0));
  PetscCall(Pendulum3D(1));
  PetscCall(Fixed());
  int rc = TestFinish("joint types");
  PetscCall(PetscFinalize());
  return rc;
}
