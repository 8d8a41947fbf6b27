/* A flat mesh floor of two triangles gives the plane wall's results (issue 35): three scenes run
 * twice side by side, once on a plane wall z = 0 and once on an STL floor of two triangles whose
 * shared diagonal runs through the origin, and every body's position and velocity is compared
 * after every step:
 *   - the rolling sphere of test_rolling_sphere.c (CCP, rolling friction, tolerance 1e-10 m/s),
 *     3 s: it starts on the diagonal (an edge contact) and rolls onto a face;
 *   - the stack of test_stack.c (CCP, ten spheres, tilted gravity, rolling friction), 2 s, standing
 *     on the diagonal all along;
 *   - a penalty scene (Hertz, tracking friction): a sphere rolling along the diagonal, one rolling
 *     across it and one dropped onto a face, 0.2 s.
 * Bound 1e-9 (m, m/s) on every step. Why it holds: a contact with a face is the plane's bit for
 * bit (the same formulas on the same numbers); a contact with the shared edge differs only where
 * the centre is within the region tests' margin (1e-12 of the triangle) of the diagonal, by a
 * normal tilted by at most that margin times the triangle's size over the radius (2e-10 rad for
 * the stack), and the contact keeps its point index 0, so the penalty model's history carries
 * over as on the plane. A missed or doubled contact on the diagonal moves a body by far more
 * (doubling the floor's impulse on the stack throws it up by centimetres).
 *
 * On 2 ranks the cut is x = 0 (the rolling sphere and the stack start on it): the same bound holds
 * between the two walls there, and the plane's own rank-count agreement is the other tests'. */
// ctest: timeout=600 ranks=2
#include "test_mesh.h"

static const char *rolling =
  "domain: {min: [-5, -3, -1], max: [5, 3, 4]}\n"
  "gravity: [0, 0, -9.8]\n"
  "time: {step: 0.01, end: 3.0}\n"
  "contact: {model: ccp, envelope: 0.01, max_recovery_speed: 0.5}\n"
  "solver: {type: apgd, max_iterations: 1000, tolerance: 1.0e-10}\n"
  "materials:\n"
  "  - {name: m, density: 1000, friction: 0.9, rolling_friction: 0.02, spinning_friction: 0}\n"
  "walls:\n"
  "  - %s\n"
  "bodies:\n"
  "  - {shape: sphere, radius: 1.0, position: [0, 0, 1.0], velocity: [1, 0, 0], angular_velocity: [0, 1, 0],\n"
  "     material: m, mass: 10, inertia: [4, 4, 4]}\n";

static const char *penalty =
  "domain: {min: [-0.2, -0.2, -0.05], max: [0.2, 0.2, 0.5]}\n"
  "gravity: [0, 0, -9.81]\n"
  "time: {step: 1.0e-4, end: 0.2}\n"
  "contact: {model: penalty, envelope: 0.001}\n"
  "materials:\n"
  "  - {name: grit, density: 2000, friction: 0.5, kinetic_friction: 0.4, young_modulus: 2.0e6, poisson_ratio: 0.3,\n"
  "     restitution: 0.5, rolling_resistance: 0.1, spinning_resistance: 0.05}\n"
  "walls:\n"
  "  - %s\n"
  "bodies:\n"
  "  - {shape: sphere, radius: 0.01, position: [0, 0, 0.0099], velocity: [0.3, 0.3, 0], material: grit}\n"
  "  - {shape: sphere, radius: 0.01, position: [-0.1, 0.05, 0.0099], velocity: [0.4, 0, 0], material: grit}\n"
  "  - {shape: sphere, radius: 0.01, position: [0.08, -0.05, 0.05], velocity: [0, 0, -0.5], material: grit}\n";

/* The stack's scenario with wall `wall` (test_stack.c's, for 2 s). */
static void stack(const char *wall, char *yaml, size_t cap)
{
  const double R = 0.05, tilt = 0.01, rho = 0.5 * R;
  int          len;
  len = snprintf(yaml, cap,
                 "domain: {min: [-1, -1, -0.4], max: [1, 1, 1.2]}\n"
                 "gravity: [%.17g, 0, %.17g]\n"
                 "time: {step: 0.01, end: 2.0}\n"
                 "contact: {model: ccp, envelope: 0.002, max_recovery_speed: 0.5}\n"
                 "solver: {type: apgd, max_iterations: 5000, tolerance: 1.0e-8}\n"
                 "materials:\n"
                 "  - {name: m, density: 2500, friction: 0.5, rolling_friction: %.17g}\n"
                 "walls:\n"
                 "  - %s\n"
                 "bodies:\n",
                 9.81 * sin(tilt), -9.81 * cos(tilt), rho, wall);
  for (int k = 0; k < 10; k++)
    len += snprintf(yaml + len, cap - (size_t)len,
                    "  - {shape: sphere, radius: %g, position: [0, 0, %.17g], material: m}\n", R, R + 2 * R * k);
}

static PetscErrorCode compare(const char *name, const char *plane, const char *mesh, double t_end, double R)
{
  double dx, dv;

  PetscFunctionBegin;
  PetscCall(TestRunSideBySide(plane, mesh, t_end, R, &dx, &dv));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%s: mesh floor against plane: positions within %.3e m, velocities %.3e m/s\n", name, dx, dv));
  CHECK(dx <= 1e-9 && dv <= 1e-9, "%s: the mesh floor differs from the plane by %.3e m, %.3e m/s (bound 1e-9)", name,
        dx, dv);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  static char  a[8192], b[8192];
  const char  *plane = "{type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: %s}";
  const char  *mesh  = "{type: mesh, file: %s, material: %s}";
  char         wall[256];
  double       xyz[18];
  PetscMPIInt  size;
  char         floors[3][64];
  const double half[3][2] = {{5, 3}, {1, 1}, {0.2, 0.2}};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(TestSlabsAlongX("0"));
  for (int f = 0; f < 3; f++) { /* per rank count: the ranks of another instance may write theirs at the same time */
    snprintf(floors[f], sizeof floors[f], "test_mesh_floor_%d_np%d.stl", f, size);
    TestRectangle(-half[f][0], -half[f][1], half[f][0], half[f][1], xyz);
    PetscCall(TestWriteStl(floors[f], 2, xyz));
  }

  snprintf(wall, sizeof wall, plane, "m");
  snprintf(a, sizeof a, rolling, wall);
  snprintf(wall, sizeof wall, mesh, floors[0], "m");
  snprintf(b, sizeof b, rolling, wall);
  PetscCall(compare("rolling sphere (CCP)", a, b, 3.0, 1.0));

  snprintf(wall, sizeof wall, plane, "m");
  stack(wall, a, sizeof a);
  snprintf(wall, sizeof wall, mesh, floors[1], "m");
  stack(wall, b, sizeof b);
  PetscCall(compare("stack of ten (CCP)", a, b, 2.0, 0.05));

  snprintf(wall, sizeof wall, plane, "grit");
  snprintf(a, sizeof a, penalty, wall);
  snprintf(wall, sizeof wall, mesh, floors[2], "grit");
  snprintf(b, sizeof b, penalty, wall);
  PetscCall(compare("three spheres (penalty)", a, b, 0.2, 0.01));

  int rc = TestFinish("mesh floor against plane");
  PetscCall(PetscFinalize());
  return rc;
}
