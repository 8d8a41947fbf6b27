/* A closed box mesh (the 12 triangles of a cube's faces, from an STL file) holds a poured bed as
 * six plane walls on the same faces do (issue 35): 300 spheres (r = 1 cm) from a random fill fall
 * inside the box [-0.1, 0.1]^2 x [0, 0.3] and settle for 1.5 s (CCP).
 *  - Every body stays inside the box: its surface within 1e-4 m of the faces (measured 7e-10 m for
 *    the mesh, 3e-10 m for the planes; a sphere through a face is out by centimetres), and none
 *    leaves the domain, which reaches 5 cm beyond the box on every side (an escaped sphere would
 *    be removed and counted: all 300 must be there).
 *  - The bed's mean height is the plane walls' within 5 mm (half a radius): the two runs differ
 *    where spheres touch the faces' diagonals (edge contacts, a margin's difference), which a pour
 *    amplifies, but the packing's height is a bulk figure (measured 0.03667 m for both); a box that
 *    leaks or holds spheres off its faces (a missed or doubled contact in a corner) differs by
 *    centimetres.
 *  - At rest at the end: no sphere faster than 1e-3 m/s (measured 1e-6 and 2e-6 m/s; a bed still
 *    settling after 0.8 s moves at 0.1 m/s).
 * On 2 ranks (cut x = 0 through the bed) the mesh box's bed must pass the same checks and its mean
 * height match a 1-rank run of it on rank 0 within the same 5 mm (the planes' run is the 1-rank
 * instance's).
 * About 6 s idle on 2 ranks; 372 s in a `ctest -j2` beside one `yes` (each of its solver iterations waits
 * in an Allreduce for a time slice), so the timeout is 1200 s. */
// ctest: timeout=1200 ranks=2
#include "test_mesh.h"

static const char *scenario =
  "domain: {min: [-0.15, -0.15, -0.05], max: [0.15, 0.15, 0.35]}\n"
  "gravity: [0, 0, -9.81]\n"
  "time: {step: 0.002, end: 1.5}\n"
  "contact: {model: ccp, envelope: 0.002, max_recovery_speed: 0.5}\n"
  "solver: {type: apgd, max_iterations: 200, tolerance: 1.0e-5}\n"
  "materials:\n"
  "  - {name: grit, density: 2000, friction: 0.5, rolling_friction: 0.002, spinning_friction: 0.002}\n"
  "walls:\n"
  "%s"
  "fills:\n"
  "  - {type: random, region: {min: [-0.09, -0.09, 0.01], max: [0.09, 0.09, 0.29]}, radius: 0.01, count: 300,\n"
  "     seed: 5, material: grit}\n";

static const char *planes = "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: grit}\n"
                            "  - {type: plane, point: [0, 0, 0.3], normal: [0, 0, -1], material: grit}\n"
                            "  - {type: plane, point: [-0.1, 0, 0], normal: [1, 0, 0], material: grit}\n"
                            "  - {type: plane, point: [0.1, 0, 0], normal: [-1, 0, 0], material: grit}\n"
                            "  - {type: plane, point: [0, -0.1, 0], normal: [0, 1, 0], material: grit}\n"
                            "  - {type: plane, point: [0, 0.1, 0], normal: [0, -1, 0], material: grit}\n";

typedef struct {
  PetscInt n;
  double   mean_z, outside, max_speed;
} Bed;

/* Runs the scenario on comm (rank 0 of it reports) and measures the bed at the end. Collective on comm. */
static PetscErrorCode pour(MPI_Comm comm, const char *yaml, Bed *bed)
{
  Simulation   sim;
  TestBodyVel *g = NULL;
  PetscInt     n = 0;
  PetscMPIInt  rank;

  PetscFunctionBegin;
  PetscCall(TestSimulationOnComm(comm, yaml, "test_mesh_box_pour", &sim));
  PetscCall(TestRunUntil(sim, 1.5));
  PetscCall(TestGatherVelocities(sim, &g, &n));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMemzero(bed, sizeof(*bed)));
  if (!rank) {
    bed->n = n;
    for (PetscInt i = 0; i < n; i++) {
      const double *x = g[i].x, r = g[i].r;
      bed->mean_z += x[2] / (double)n;
      for (int k = 0; k < 2; k++) bed->outside = PetscMax(bed->outside, fabs(x[k]) + r - 0.1);
      bed->outside   = PetscMax(bed->outside, PetscMax(r - x[2], x[2] + r - 0.3));
      bed->max_speed = PetscMax(bed->max_speed, v3_norm(g[i].v));
    }
  }
  PetscCallMPI(MPI_Bcast(bed, sizeof(*bed), MPI_BYTE, 0, comm));
  PetscCall(PetscFree(g));
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void check_bed(const char *name, const Bed *b)
{
  CHECK(b->n == 300, "%s: %" PetscInt_FMT " spheres at the end; expected all 300", name, b->n);
  CHECK(b->outside < 1e-4, "%s: a sphere reaches %.3e m beyond the box's faces (bound 1e-4 m)", name, b->outside);
  CHECK(b->max_speed < 1e-3, "%s: not at rest: a sphere at %.3e m/s", name, b->max_speed);
}

int main(int argc, char **argv)
{
  static char  yaml[2][8192];
  char         wall[256], stl[64];
  double       xyz[12 * 9];
  const double lo[3] = {-0.1, -0.1, 0}, hi[3] = {0.1, 0.1, 0.3};
  PetscMPIInt  size, rank;
  Bed          bed[2];

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(TestSlabsAlongX("0"));
  snprintf(stl, sizeof stl, "test_mesh_box_pour_np%d.stl", size);
  TestBoxMesh(lo, hi, xyz);
  PetscCall(TestWriteStl(stl, 12, xyz));
  snprintf(wall, sizeof wall, "  - {type: mesh, file: %s, material: grit}\n", stl);
  snprintf(yaml[0], sizeof yaml[0], scenario, planes);
  snprintf(yaml[1], sizeof yaml[1], scenario, wall);

  PetscCall(pour(PETSC_COMM_WORLD, yaml[1], &bed[1]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "box mesh of 12 triangles on %d rank(s): mean height %.5f m, reach beyond the faces %.2e m, "
                        "largest speed %.2e m/s\n",
                        size, bed[1].mean_z, bed[1].outside, bed[1].max_speed));
  check_bed("mesh", &bed[1]);
  if (size == 1) { /* the planes' reference: on one rank (the ranks' agreement is checked below) */
    PetscCall(pour(PETSC_COMM_WORLD, yaml[0], &bed[0]));
    PetscCall(
      PetscPrintf(PETSC_COMM_WORLD,
                  "box of 6 planes: mean height %.5f m, reach beyond the faces %.2e m, largest speed %.2e m/s\n",
                  bed[0].mean_z, bed[0].outside, bed[0].max_speed));
    check_bed("planes", &bed[0]);
    CHECK(fabs(bed[1].mean_z - bed[0].mean_z) < 5e-3,
          "the mesh box's bed is %.3e m higher than the planes' (bound 5e-3)", bed[1].mean_z - bed[0].mean_z);
  } else {
    Bed serial;
    PetscCall(TestSerialReference());
    if (!rank) {
      PetscCall(pour(PETSC_COMM_SELF, yaml[1], &serial));
      printf("box mesh on 1 rank: mean height %.5f m (on %d ranks %.5f m)\n", serial.mean_z, size, bed[1].mean_z);
      check_bed("mesh, 1 rank", &serial);
      CHECK(fabs(serial.mean_z - bed[1].mean_z) < 5e-3, "1 and %d ranks: mean heights %.5f and %.5f m (bound 5e-3)",
            size, serial.mean_z, bed[1].mean_z);
    }
  }
  int rc = TestFinish("box mesh holds a poured bed");
  PetscCall(PetscFinalize());
  return rc;
}
