/* An ellipsoid (semi-axes 0.05, 0.03, 0.02 m along its body x, y, z) dropped 1 mm onto the bottom
 * of a drum (a cylinder wall inside: axis x through the origin, radius R = 0.2 m, unbounded) comes
 * to rest on its z tip, the lowest point of the drum: the centre's height is -R + c = -0.18 m.
 *  - CCP (h = 1 ms, APGD to 1e-8 m/s), its long axis along the drum's axis, and turned 90 degrees
 *    about z (the long axis across it: the section's radius of curvature at the tip, a^2 / c =
 *    0.125 m, is below R, so the bottom is a stable rest): after 0.5 s the height equals -0.18 m
 *    within 1e-4 of c (a resting rigid contact closes its gap to about the solver's tolerance times
 *    h, 1e-11 m; a contact at a wrong surface point or on the bounding sphere misses by at least 1e-2
 *    of c), the centre stays on the drum's vertical plane (|y| < 1e-6 m), one contact, speed below
 *    1e-6 m/s and angular speed below 1e-5 rad/s (the solver's tolerance with a margin of 100).
 *  - Penalty (Hooke, k_n = 1e7 N/m, h = 5e-5 s, restitution 0.5), the long axis along the drum's
 *    axis: after 0.5 s the height is -0.18 m less the Hooke overlap m g / k_n within 1e-7 m (the
 *    overlap is 3.1e-7 m: leaving it out misses by three times the tolerance), speed below 1e-6 m/s.
 * Breaking the drum kernel's search (the support term's sign) puts every height 2 c = 0.04 m too low. */
// ctest: timeout=300
#include "test_util.h"
#include "bodies/shapes.h"

static const double SEMI[3] = {0.05, 0.03, 0.02}, R = 0.2;

static PetscErrorCode Settle(const char *name, const double q[4], int penalty)
{
  Simulation       sim;
  const BodyStore *s;
  char             yaml[4096];
  double           w, v, want = -R + SEMI[2];
  const double     k_n = 1e7;

  PetscFunctionBegin;
  snprintf(yaml, sizeof(yaml),
           "domain: {min: [-1, -1, -1], max: [1, 1, 1]}\n"
           "gravity: [0, 0, -9.81]\n"
           "time: {step: %g, end: 10}\n"
           "%s"
           "materials:\n"
           "  - {name: m, density: 2500, friction: 0.5%s}\n"
           "walls:\n"
           "  - {type: cylinder, point: [0, 0, 0], axis: [1, 0, 0], radius: %g, inside: true, material: m}\n"
           "bodies:\n"
           "  - {shape: ellipsoid, semi_axes: [%g, %g, %g], position: [0, 0, %.17g], orientation: [%.17g, %.17g, "
           "%.17g, %.17g], material: m}\n",
           penalty ? 5e-5 : 1e-3,
           penalty ? "contact: {model: penalty, normal: hooke, normal_stiffness: 1.0e7, envelope: 0.005}\n"
                   : "contact: {model: ccp, envelope: 0.005}\n"
                     "solver: {type: apgd, max_iterations: 5000, tolerance: 1.0e-8}\n",
           penalty ? ", young_modulus: 1.0e9, poisson_ratio: 0.3, restitution: 0.5, tangential_stiffness: 1.0e5" : "",
           R, SEMI[0], SEMI[1], SEMI[2], want + 0.001, q[0], q[1], q[2], q[3]);
  PetscCall(TestSimulationFromText(yaml, &sim));
  PetscCall(TestRunUntil(sim, 0.5));
  s = SimulationBodies(sim);
  CHECK(s->n_owned == 1 && s->shape[0] == SHAPE_ELLIPSOID, "%s: one ellipsoid body", name);
  if (penalty) want -= s->mass[0] * 9.81 / k_n;
  v = v3_norm(s->vel);
  w = v3_norm(s->vel + 3);
  printf("%s: height %.12f m (want %.12f m), y %.3e m, speed %.3e m/s, angular speed %.3e rad/s, %d contact(s)\n", name,
         s->pos[2], want, s->pos[1], v, w, (int)SimulationContacts(sim)->n);
  CHECK(v < 1e-6, "%s: speed %.3e m/s", name, v);
  CHECK(fabs(s->pos[1]) < 1e-6, "%s: off the drum's vertical plane by %.3e m", name, s->pos[1]);
  if (penalty) CHECK(fabs(s->pos[2] - want) < 1e-7, "%s: height %.12f m vs %.12f m", name, s->pos[2], want);
  else {
    CHECK(SimulationContacts(sim)->n == 1, "%s: one contact with the drum", name);
    CHECK(fabs(s->pos[2] - want) < 1e-4 * SEMI[2], "%s: height %.12f m vs %.12f m", name, s->pos[2], want);
    CHECK(w < 1e-5, "%s: angular speed %.3e rad/s", name, w);
  }
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const double h = sqrt(0.5);
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(Settle("CCP, long axis along the drum", (double[4]){1, 0, 0, 0}, 0));
  PetscCall(Settle("CCP, long axis across the drum", (double[4]){h, 0, 0, h}, 0));
  PetscCall(Settle("penalty, long axis along the drum", (double[4]){1, 0, 0, 0}, 1));
  int rc = TestFinish("ellipsoid at rest in a drum (CCP and penalty)");
  PetscCall(PetscFinalize());
  return rc;
}
