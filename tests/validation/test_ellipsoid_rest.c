/* An ellipsoid (semi-axes 0.05, 0.03, 0.02 m along its body x, y, z) dropped 1 mm onto the plane
 * z = 0 under the CCP model comes to rest on each of its three tips in turn (body z, y, then x
 * pointing down), and once lying 45 degrees tilted about x with rolling friction, whose rolling
 * it stops. Checked after 0.5 s on a tip, 1.5 s tilted (CCP, h = 1 ms, APGD to 1e-8 m/s); standing on
 * the y or x tip is an unstable equilibrium, from which rounding errors tip it over after about 1 s:
 *  - on a tip: the centre's height equals that semi-axis within 1e-4 of it (a resting rigid contact
 *    closes its gap to about the solver's tolerance times h, 1e-11 m; a contact on the bounding
 *    sphere or at a wrong surface point misses by at least 1e-2 of it), one contact, speed below
 *    1e-6 m/s and angular speed below 1e-5 rad/s (the solver's tolerance with a margin of 100);
 *  - tilted (rolling friction 2 mm): it rolls down towards the flat pose and stops: height within
 *    1e-4 of the pose's support distance (the same closed form, from the pose reached), below the
 *    start's 0.0255 m, speed below 1e-6 m/s.
 * Breaking the plane kernel's support point (diag(a, b, c) N / s instead of diag(a^2, b^2, c^2) N / s)
 * fails every height check. */
// ctest: timeout=300
#include "test_util.h"
#include "bodies/ellipsoid.h"
#include "bodies/shapes.h"

static const double SEMI[3] = {0.05, 0.03, 0.02};

static PetscErrorCode Settle(const char *name, const double q[4], double z0, double rolling, int tip)
{
  Simulation       sim;
  const BodyStore *s;
  char             yaml[4096];
  double           w, v, down_b[3], want;
  const double     down[3] = {0, 0, -1};

  PetscFunctionBegin;
  snprintf(yaml, sizeof(yaml),
           "domain: {min: [-1, -1, -0.5], max: [1, 1, 1]}\n"
           "gravity: [0, 0, -9.81]\n"
           "time: {step: 0.001, end: 10}\n"
           "contact: {model: ccp, envelope: 0.005}\n"
           "solver: {type: apgd, max_iterations: 5000, tolerance: 1.0e-8}\n"
           "materials:\n"
           "  - {name: m, density: 2500, friction: 0.5, rolling_friction: %g}\n"
           "walls:\n"
           "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}\n"
           "bodies:\n"
           "  - {shape: ellipsoid, semi_axes: [%g, %g, %g], position: [0, 0, %.17g], orientation: [%.17g, %.17g, "
           "%.17g, %.17g], material: m}\n",
           rolling, SEMI[0], SEMI[1], SEMI[2], z0, q[0], q[1], q[2], q[3]);
  PetscCall(TestSimulationFromText(yaml, &sim));
  PetscCall(TestRunUntil(sim, tip >= 0 ? 0.5 : 1.5));
  s = SimulationBodies(sim);
  CHECK(s->n_owned == 1 && s->shape[0] == SHAPE_ELLIPSOID, "%s: one ellipsoid body", name);
  v = v3_norm(s->vel);
  w = v3_norm(s->vel + 3);
  quat_rotate_inv(down_b, s->quat, down);
  want = ellipsoid_support_distance(SEMI, down_b);
  printf("%s: height %.12f m (support distance %.12f m), speed %.3e m/s, angular speed %.3e rad/s, %d contact(s)\n",
         name, s->pos[2], want, v, w, (int)SimulationContacts(sim)->n);
  CHECK(v < 1e-6, "%s: speed %.3e m/s", name, v);
  CHECK(SimulationContacts(sim)->n == 1, "%s: one contact with the plane", name);
  if (tip >= 0) {
    CHECK(fabs(s->pos[2] - SEMI[tip]) < 1e-4 * SEMI[tip], "%s: height %.12f m vs the semi-axis %g m", name, s->pos[2],
          SEMI[tip]);
    CHECK(w < 1e-5, "%s: angular speed %.3e rad/s", name, w);
  } else {
    CHECK(fabs(s->pos[2] - want) < 1e-4 * want && s->pos[2] < 0.025, "%s: height %.12f m vs %.12f m", name, s->pos[2],
          want);
  }
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const double h = sqrt(0.5), c45 = cos(M_PI / 8), s45 = sin(M_PI / 8);
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(Settle("on its z tip", (double[4]){1, 0, 0, 0}, SEMI[2] + 0.001, 0, 2));
  PetscCall(Settle("on its y tip", (double[4]){h, h, 0, 0}, SEMI[1] + 0.001, 0, 1));
  PetscCall(Settle("on its x tip", (double[4]){h, 0, h, 0}, SEMI[0] + 0.001, 0, 0));
  PetscCall(Settle("tilted, rolling friction", (double[4]){c45, s45, 0, 0}, 0.027, 0.002, -1));
  int rc = TestFinish("ellipsoid at rest on a plane (CCP)");
  PetscCall(PetscFinalize());
  return rc;
}
