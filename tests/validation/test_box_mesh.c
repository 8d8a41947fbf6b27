/* A box body on a flat mesh floor of two triangles gives the plane wall's results: each scene runs
 * twice side by side, once on the plane z = 0 and once on an STL floor whose shared diagonal runs
 * through the origin, and every body's position and velocity is compared after every step.
 *  - CCP: a box turned 30 deg about z sliding from x = -0.2 at 1 m/s across the diagonal until
 *    friction stops it (test_box_friction's scene), 0.5 s; and a box dropped onto the floor from a
 *    tilt of 10 deg about x (its edge lands first, then the face), 0.5 s.
 *  - Penalty (Hooke, tracking friction): the same sliding box, 0.3 s.
 * Bound 1e-9 (m, m/s). Why it holds: the mesh gives a box vertex the plane's point, normal and gap
 * from the same numbers (the floor's triangles are at z = 0, their normals exactly +z), with the
 * same key sub (the vertex's number, which stays as the vertex crosses the diagonal: the penalty
 * model's history carries over) in the same order; a vertex on the diagonal is taken by one
 * triangle. A key that changes at the diagonal (the penalty's slide history restarting) moves the
 * box by 3e-5 m and 2e-4 m/s (measured by breaking it); a vertex exactly on the diagonal counted
 * twice or never is test_box_box's case. */
// ctest: labels=validation timeout=300
#include "test_mesh.h"

static const char *scene_ccp = "domain: {min: [-5, -5, -1], max: [5, 5, 5]}\n"
                               "gravity: [0, 0, -9.81]\n"
                               "time: {step: 0.001, end: 2.0}\n"
                               "contact: {model: ccp, envelope: 0.005, max_recovery_speed: 0.5}\n"
                               "solver: {type: apgd, max_iterations: 3000, tolerance: 1.0e-10}\n"
                               "materials:\n"
                               "  - {name: m, density: 1000, friction: 0.5}\n"
                               "walls:\n"
                               "  - %s\n"
                               "bodies:\n"
                               "  - {shape: box, half_extents: [0.1, 0.1, 0.05], position: [-0.2, 0, 0.05], "
                               "orientation: [0.96592582628906831, 0, 0, 0.25881904510252074], velocity: [1, 0, 0], "
                               "material: m}\n"
                               "  - {shape: box, half_extents: [0.1, 0.05, 0.05], position: [0.5, 0.5, 0.2], "
                               "orientation: [0.99619469809174555, 0.087155742747658166, 0, 0], material: m}\n";

static const char *scene_penalty =
  "domain: {min: [-5, -5, -1], max: [5, 5, 5]}\n"
  "gravity: [0, 0, -9.81]\n"
  "time: {step: 1.0e-4, end: 2.0}\n"
  "contact: {model: penalty, normal: hooke, normal_stiffness: 1.0e6, envelope: 0.002}\n"
  "materials:\n"
  "  - {name: m, density: 1000, friction: 0.5, kinetic_friction: 0.4, young_modulus: 1.0e8, poisson_ratio: 0.3, "
  "restitution: 0.2, tangential_stiffness: 1.0e5}\n"
  "walls:\n"
  "  - %s\n"
  "bodies:\n"
  "  - {shape: box, half_extents: [0.1, 0.1, 0.05], position: [-0.2, 0, 0.049999], "
  "orientation: [0.96592582628906831, 0, 0, 0.25881904510252074], velocity: [1, 0, 0], material: m}\n";

static PetscErrorCode Compare(const char *name, const char *scene, double t_end)
{
  char   plane[4096], mesh[4096];
  double dx = 0, dv = 0;

  PetscFunctionBegin;
  snprintf(plane, sizeof plane, scene, "{type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}");
  snprintf(mesh, sizeof mesh, scene, "{type: mesh, file: box_mesh_floor.stl, material: m}");
  PetscCall(TestRunSideBySide(plane, mesh, t_end, 0.1, &dx, &dv));
  PetscCall(
    PetscPrintf(PETSC_COMM_WORLD, "%s: largest difference plane - mesh floor %.3e m, %.3e m/s\n", name, dx, dv));
  TEST_CHECK(dx <= 1e-9 && dv <= 1e-9, "%s: the mesh floor differs from the plane by %.3e m, %.3e m/s", name, dx, dv);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  double xyz[18];

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  TestRectangle(-2, -2, 2, 2, xyz);
  PetscCall(TestWriteStl("box_mesh_floor.stl", 2, xyz));
  PetscCall(Compare("CCP, a box sliding across the diagonal and one dropped on its edge", scene_ccp, 0.5));
  PetscCall(Compare("penalty, a box sliding across the diagonal", scene_penalty, 0.3));
  int rc = TestFinish("box on a mesh floor");
  PetscCall(PetscFinalize());
  return rc;
}
