/* Each rank's part of a moving mesh wall (step/wall_meshes.h WallMeshesFit: a part serves a window of steps, cut for
 * the subdomain and halo grown by a bound on the mesh's motion over the window). Two meshes in one scene, slabs along
 * x that never move (so a part changes only where its window ends):
 * - a drum: a tube of 256 facets (512 triangles; radius 0.1 m, about the y axis through [0, 0, 0.14]) that starts
 *   turning at 4 rad/s after 2 steps, 13 spheres (r = 10 mm) on its bottom;
 * - a floor: test_mesh_parts.c's bumpy floor (3200 triangles over [-0.2, 0.2]^2, heights 0 to 3 mm, at z = -0.05)
 *   sliding along +x at 1 m/s until 0.04 s (step 20), then at rest, under 28 spheres (r = 8 mm) it drags along.
 * 40 steps of 2 ms, CCP (APGD to 1e-8 m/s).
 *
 * On 2 and 4 ranks, after every step, on every rank and for each mesh:
 * - the part the step's detection read holds every triangle that a cut at the step's pose would keep (NeededPart: a
 *   superset of what any query of an owned body visits, so the contacts are those of the whole mesh, bit for bit),
 *   and fewer than the whole mesh's triangles (measured: the drum's parts 64% to 65% of it on 2 ranks, 31% to 65%
 *   on 4; the floor's 55% to 68% and 30% to 50%). Without the growth over the window (WallMeshesFit cutting for the
 *   window's start pose only, its windows as they are) this fails: measured from step 4 to 6 on, on every rank, for
 *   both meshes;
 * - the windows end: the drum's part changes on at least 3 steps (measured: 4 on 2 and on 4 ranks, windows of 9 to
 *   11 steps), the floor's on at least 1 step before its end (measured 1), and at most once after it (the first cut
 *   after the end serves every later step: the motion is over; measured 0).
 * The contacts, counted over ranks (all, and those with each mesh), equal the 1-rank run's after every step, and the
 * velocities are within 1e-6 m/s of it (100 times the solver's tolerance, as test_mesh_motion.c: the CCP velocities
 * are unique, GUIDE "Distributed run"; measured within 7e-11 m/s, the same contacts); a triangle missing from a part
 * would lose a contact and a body its support (g h = 0.02 m/s). On one rank the meshes stay whole: detection reads the
 * scenario's meshes. */
// ctest: ranks=2;4 timeout=600
#define _GNU_SOURCE /* nftw, mkdtemp */
#include "test_files.h"
#include "test_mesh.h"
#include "collision/trimesh.h"
#include "contact/contact_set.h"
#include "decomp/domain.h"
#include "step/wall_meshes.h"
#include <string.h>

#define NX      40    /* floor squares per side */
#define SIDE    0.01  /* a square's side (m) */
#define BUMP    0.003 /* the floor's highest vertex (m) */
#define FACETS  256   /* the drum's facets */
#define STEPS   40
#define END     20 /* the floor's last moving step: end 0.04 s / 2 ms */
#define NMESH   2
#define NBODIES 41

/* The floor's and the drum's STL files (rank 0 writes; collective). */
static PetscErrorCode WriteMeshes(const char *floor, const char *drum)
{
  double *xyz;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(18 * NX * NX, &xyz));
  TestBumpyFloor(NX, SIDE, BUMP, xyz);
  PetscCall(TestWriteStl(floor, 2 * NX * NX, xyz));
  TestTubeMesh(0.1, -0.04, 0.04, FACETS, xyz);
  PetscCall(TestWriteStl(drum, 2 * FACETS, xyz));
  PetscCall(PetscFree(xyz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The scene into yaml (cap bytes): wall 0 the drum, wall 1 the floor. */
static void Scene(const char *floor, const char *drum, char *yaml, size_t cap)
{
  size_t at;

  at = (size_t)snprintf(yaml, cap,
                        "domain: {min: [-0.2, -0.2, -0.06], max: [0.2, 0.2, 0.26]}\n"
                        "gravity: [0, 0, -9.81]\n"
                        "time: {step: 0.002, end: 1}\n"
                        "contact: {model: ccp, envelope: 0.002, max_recovery_speed: 0.5}\n"
                        "solver: {type: apgd, max_iterations: 5000, tolerance: 1.0e-8}\n"
                        "materials:\n"
                        "  - {name: m, density: 2500, friction: 0.4}\n"
                        "walls:\n"
                        "  - {type: mesh, file: %s, position: [0, 0, 0.14], material: m,\n"
                        "     motion: {axis_point: [0, 0, 0.14], axis: [0, 1, 0], angular_velocity: 4, start: 0.004}}\n"
                        "  - {type: mesh, file: %s, position: [0, 0, -0.05], material: m,\n"
                        "     motion: {velocity: [1, 0, 0], end: 0.04}}\n"
                        "bodies:\n",
                        drum, floor);
  at = TestDrumRing(yaml, cap, at, 0, 0.14);
  for (int i = 0; i < 7; i++)
    for (int j = 0; j < 4; j++)
      at += (size_t)snprintf(yaml + at, cap - at,
                             "  - {shape: sphere, radius: 0.008, position: [%.17g, %.17g, %.17g], material: m}\n",
                             -0.15 + 0.05 * i, -0.09 + 0.06 * j, -0.05 + BUMP + 0.0005 + 0.008);
}

/* The contacts of the last step over every rank: all, and those with each mesh. Collective. */
static PetscErrorCode CountContacts(Simulation sim, PetscInt64 n[1 + NMESH])
{
  const ContactSet *cs              = SimulationContacts(sim);
  PetscInt64        mine[1 + NMESH] = {0};

  PetscFunctionBegin;
  for (PetscInt i = 0; i < cs->n; i++) {
    mine[0]++;
    for (int k = 0; k < NMESH; k++) mine[1 + k] += cs->key[i].ida == wall_global_id(k);
  }
  PetscCallMPI(MPI_Allreduce(mine, n, 1 + NMESH, MPIU_INT64, MPI_SUM, SimulationComm(sim)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The triangles of mesh wall k that a cut at the walls' pose now (before a step: the pose its detection uses) for
 * this rank's subdomain and halo keeps (WallMeshSelect: a superset of what any query of an owned body visits), into
 * keep[] (the whole mesh's nt entries) and *n. */
static PetscErrorCode NeededPart(Simulation sim, int k, int32_t *keep, PetscInt *n)
{
  PetscMPIInt rank;
  double      lo[3], hi[3], halo;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(SimulationComm(sim), &rank));
  PetscCall(DomainSubdomainBox(SimulationDomain(sim), rank, lo, hi));
  PetscCall(DomainGetHalo(SimulationDomain(sim), &halo));
  WallMeshSelect(SimulationScenario(sim)->walls[k].mesh, &SimulationWalls(sim)[k], lo, hi, halo, keep, n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether every number in need[0 .. n) (ascending) is in part's triangles (their numbers in the whole, ascending). */
static PetscBool Holds(const TriMesh *part, const int32_t *need, PetscInt n)
{
  PetscInt at = 0;
  for (PetscInt i = 0; i < n; i++) {
    while (at < part->nt && trimesh_tri_gid(part, (int32_t)at) < need[i]) at++;
    if (at == part->nt || trimesh_tri_gid(part, (int32_t)at) != need[i]) return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

int main(int argc, char **argv)
{
  static char  yaml[65536];
  char         stl[2][PETSC_MAX_PATH_LEN + 16], dir[PETSC_MAX_PATH_LEN];
  PetscMPIInt  size, rank;
  Simulation   sim;
  TestBodyVel *par[STEPS] = {NULL}, *ser;
  PetscInt     npar[STEPS], nser, nprev[NMESH] = {0, 0};
  PetscInt64   cpar[STEPS][1 + NMESH], cser[1 + NMESH];
  double       worst = 0, fmin[NMESH] = {1, 1}, fmax[NMESH] = {0, 0};
  int          changes[NMESH] = {0, 0}, floor_changes_after = 0, counts_differ = 0, short_of[NMESH] = {-1, -1};
  int32_t     *need, *prev[NMESH];

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(TestMakeTempDir(PETSC_COMM_WORLD, "mesh-parts-moving", dir));
  snprintf(stl[0], sizeof stl[0], "%s/floor.stl", dir);
  snprintf(stl[1], sizeof stl[1], "%s/drum.stl", dir);
  PetscCall(WriteMeshes(stl[0], stl[1]));
  Scene(stl[0], stl[1], yaml, sizeof yaml);
  if (size == 1) { /* one rank: the whole meshes */
    PetscCall(TestSimulationOnComm(PETSC_COMM_WORLD, yaml, "mesh-parts-moving", &sim));
    for (int s = 0; s < 5; s++) PetscCall(SimulationStep(sim));
    for (int k = 0; k < NMESH; k++)
      TEST_CHECK(SimulationWalls(sim)[k].mesh == SimulationScenario(sim)->walls[k].mesh &&
                   SimulationWalls(sim)[k].mesh->rec,
                 "on one rank detection should read mesh %d whole", k);
    PetscCall(SimulationDestroy(&sim));
    if (nftw(dir, TestRemoveEntry, 16, FTW_DEPTH | FTW_PHYS)) printf("could not remove %s\n", dir);
    PetscCall(PetscFinalize());
    return TestFinish("test_mesh_parts_moving");
  }
  PetscCall(TestSlabsAlongX("0"));
  PetscCall(TestSimulationOnComm(PETSC_COMM_WORLD, yaml, "mesh-parts-moving", &sim));
  PetscCall(PetscMalloc3(2 * FACETS + 2 * NX * NX, &need, 2 * FACETS, &prev[0], 2 * NX * NX, &prev[1]));
  for (int s = 0; s < STEPS; s++) {
    PetscInt n[NMESH];
    int      changed[NMESH], any[NMESH];
    for (int k = 0; k < NMESH; k++) PetscCall(NeededPart(sim, k, need + (k ? 2 * FACETS : 0), &n[k]));
    PetscCall(SimulationStep(sim));
    TEST_CHECK(SimulationLastStep(sim)->converged, "step %d did not converge (residual %.3e m/s)", s + 1,
               SimulationLastStep(sim)->residual_max);
    for (int k = 0; k < NMESH; k++) {
      const TriMesh *part = SimulationWalls(sim)[k].mesh, *whole = SimulationScenario(sim)->walls[k].mesh;
      double         f = (double)part->nt / (double)whole->nt, g[2];
      if (!Holds(part, need + (k ? 2 * FACETS : 0), n[k]) && short_of[k] < 0) short_of[k] = s + 1;
      TEST_CHECK(part != whole && part->tri_gid && part->nt < whole->nt,
                 "step %d, rank %d: mesh %d's part holds all %" PetscInt_FMT " triangles", s + 1, rank, k, whole->nt);
      changed[k] = s > 0 && part->tri_gid &&
                   (part->nt != nprev[k] || memcmp(part->tri_gid, prev[k], sizeof(int32_t) * (size_t)part->nt));
      if (part->tri_gid) PetscCall(PetscArraycpy(prev[k], part->tri_gid, part->nt));
      nprev[k] = part->nt;
      PetscCallMPI(MPI_Allreduce(&f, &g[0], 1, MPI_DOUBLE, MPI_MIN, PETSC_COMM_WORLD));
      PetscCallMPI(MPI_Allreduce(&f, &g[1], 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
      fmin[k] = PetscMin(fmin[k], g[0]);
      fmax[k] = PetscMax(fmax[k], g[1]);
    }
    PetscCallMPI(MPI_Allreduce(changed, any, NMESH, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
    for (int k = 0; k < NMESH; k++) changes[k] += any[k] && (k == 0 || s + 1 <= END);
    floor_changes_after += any[1] && s + 1 > END;
    PetscCall(CountContacts(sim, cpar[s]));
    PetscCall(TestGatherVelocities(sim, &par[s], &npar[s]));
  }
  for (int k = 0; k < NMESH; k++)
    TEST_CHECK(short_of[k] < 0,
               "rank %d: from step %d on, mesh %d's part lacks triangles that reach the subdomain grown by the halo "
               "at the step's pose",
               rank, short_of[k], k);
  PetscCall(SimulationDestroy(&sim));
  PetscCall(PetscFree3(need, prev[0], prev[1]));
  if (!rank) {
    PetscCall(TestSerialReference());
    PetscCall(TestSimulationOnComm(PETSC_COMM_SELF, yaml, "mesh-parts-moving-serial", &sim));
    for (int s = 0; s < STEPS; s++) {
      PetscBool same_ids;
      PetscCall(SimulationStep(sim));
      PetscCall(CountContacts(sim, cser));
      PetscCall(TestGatherVelocities(sim, &ser, &nser));
      worst = PetscMax(worst, TestLargestVelocityDifference(par[s], npar[s], ser, nser, 0.01, &same_ids));
      TEST_CHECK(same_ids && nser == NBODIES, "step %d: the bodies differ from the 1-rank run's", s + 1);
      if (memcmp(cpar[s], cser, sizeof cser) && !counts_differ++)
        printf("step %d: %lld contacts (%lld drum, %lld floor); on one rank %lld (%lld, %lld)\n", s + 1,
               (long long)cpar[s][0], (long long)cpar[s][1], (long long)cpar[s][2], (long long)cser[0],
               (long long)cser[1], (long long)cser[2]);
      PetscCall(PetscFree(ser));
    }
    printf("moving mesh parts on %d ranks, %d steps: the drum's parts held %.1f%% to %.1f%% of its %d triangles, "
           "changed on %d steps; the floor's %.1f%% to %.1f%% of %d, changed on %d steps before its end and %d after; "
           "%lld contacts in the last step (%lld drum, %lld floor); velocities within %.3e m/s of one rank's; steps "
           "with other contact counts: %d\n",
           size, STEPS, 100 * fmin[0], 100 * fmax[0], 2 * FACETS, changes[0], 100 * fmin[1], 100 * fmax[1], 2 * NX * NX,
           changes[1], floor_changes_after, (long long)cpar[STEPS - 1][0], (long long)cpar[STEPS - 1][1],
           (long long)cpar[STEPS - 1][2], worst, counts_differ);
    TEST_CHECK(cpar[STEPS - 1][1] >= 13 && cpar[STEPS - 1][2] >= 28,
               "%lld drum and %lld floor contacts in the last step: the bodies do not rest on the meshes",
               (long long)cpar[STEPS - 1][1], (long long)cpar[STEPS - 1][2]);
    TEST_CHECK(counts_differ == 0, "%d steps count other contacts than on one rank", counts_differ);
    TEST_CHECK(worst <= 1e-6, "velocities differ from the 1-rank run's by %.3e m/s > 1e-6", worst);
    TEST_CHECK(changes[0] >= 3, "the drum's part changed on %d steps: its windows do not end", changes[0]);
    TEST_CHECK(changes[1] >= 1 && floor_changes_after <= 1,
               "the floor's part changed on %d steps before its end (want >= 1) and %d after (want <= 1)", changes[1],
               floor_changes_after);
    PetscCall(SimulationDestroy(&sim));
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD)); /* every rank is done with the meshes' files */
  if (!rank && nftw(dir, TestRemoveEntry, 16, FTW_DEPTH | FTW_PHYS)) printf("could not remove %s\n", dir);
  for (int s = 0; s < STEPS; s++) PetscCall(PetscFree(par[s]));
  PetscCall(PetscFinalize());
  return TestFinish("test_mesh_parts_moving");
}
