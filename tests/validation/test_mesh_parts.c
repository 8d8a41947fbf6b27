/* Each rank's part of a fixed mesh wall (step/wall_meshes.h WallMeshesFit): a bumpy floor of 3200 triangles
 * (40 x 40 squares of 10 mm over [-0.2, 0.2]^2, heights 0 to 3 mm at the vertices, so spheres and boxes touch faces,
 * edges and vertices) under a lattice of 160 spheres (r = 8 mm) and 32 flat box bodies (14 x 12 x 10 mm), 20 mm
 * apart over x in [-0.19, 0.11] (the east of the floor stays bare, so the balancer moves the cuts), each 0.5 mm above
 * the floor's highest point; 15 steps of 2 ms (they land), CCP (APGD to 1e-6 m/s: boxes resting on a bumpy floor
 * stall near 1e-7), slabs along x rebalanced every 3 steps.
 *
 * On 2 and 4 ranks, after every step:
 * - the part each rank's detection read holds exactly the triangles whose bounds reach its subdomain, as the cuts
 *   were for that step, grown by the halo (2 x the box's bounding radius 10.5 mm + envelope 2 mm = 23 mm), and
 *   fewer than the whole mesh: each about a slab's width plus twice the halo over the floor's width, measured 45% to
 *   70% on 2 ranks and 25% to 50% on 4 (the cuts follow the bodies to the west); a part not cut again when the cuts
 *   move fails the first check, and the test fails unless the cuts moved after the first step (measured: on 6 of
 *   14 steps on 2 ranks, 11 on 4);
 * - the contacts, counted over ranks (all, and those with the mesh), equal the 1-rank run's, and the velocities are
 *   within 1e-4 m/s of it (100 times the tolerance, as test_mesh_motion.c: the CCP velocities are unique, GUIDE
 *   "Distributed run"; measured: equal, the bodies do not touch each other). A lost contact costs a body its
 *   support, g h = 0.02 m/s. Cut without the halo (WallMeshesFit's growth 0) the parts lose the contacts of bodies
 *   near the cuts: measured 4 of 672 lost at step 10, 12 of 675 at step 15, velocities off by 0.33 m/s (2 ranks)
 *   and 0.14 m/s (4 ranks).
 * On one rank the mesh stays whole: detection reads the scenario's mesh. */
// ctest: ranks=2;4 timeout=600
#define _GNU_SOURCE /* nftw, mkdtemp */
#include "test_files.h"
#include "test_mesh.h"
#include "collision/trimesh.h"
#include "contact/contact_set.h"
#include "decomp/domain.h"
#include <string.h>
#include <hdf5.h>

#define NX    40    /* squares per side */
#define SIDE  0.01  /* a square's side (m) */
#define BUMP  0.003 /* the highest vertex (m) */
#define STEPS 15

/* The floor's STL at path (rank 0 writes; collective). */
static PetscErrorCode WriteFloor(const char *path)
{
  double *xyz;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(18 * NX * NX, &xyz));
  TestBumpyFloor(NX, SIDE, BUMP, xyz);
  PetscCall(TestWriteStl(path, 2 * NX * NX, xyz));
  PetscCall(PetscFree(xyz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The scene over the floor at stl, into yaml (cap bytes). */
static void Scene(const char *stl, char *yaml, size_t cap)
{
  size_t at = (size_t)snprintf(yaml, cap,
                               "domain: {min: [-0.2, -0.2, -0.05], max: [0.2, 0.2, 0.2]}\n"
                               "gravity: [0, 0, -9.81]\n"
                               "time: {step: 0.002, end: 1}\n"
                               "contact: {model: ccp, envelope: 0.002, max_recovery_speed: 0.5}\n"
                               "solver: {type: apgd, max_iterations: 5000, tolerance: 1.0e-6}\n"
                               "materials:\n"
                               "  - {name: m, density: 2500, friction: 0.4}\n"
                               "walls:\n"
                               "  - {type: mesh, file: %s, material: m}\n"
                               "bodies:\n",
                               stl);
  for (int i = 0, n = 0; i < 16; i++)
    for (int j = 0; j < 12; j++, n++) {
      const double x = -0.19 + 0.02 * i, y = -0.11 + 0.02 * j;
      if (n % 6 == 5)
        at += (size_t)snprintf(yaml + at, cap - at,
                               "  - {shape: box, half_extents: [0.007, 0.006, 0.005], position: [%.17g, %.17g, "
                               "%.17g], material: m}\n",
                               x, y, BUMP + 0.0005 + 0.005);
      else
        at += (size_t)snprintf(yaml + at, cap - at,
                               "  - {shape: sphere, radius: 0.008, position: [%.17g, %.17g, %.17g], material: m}\n", x,
                               y, BUMP + 0.0005 + 0.008);
    }
}

/* The contacts of the last step over every rank: all, and those with the mesh (wall 0). Collective. */
static PetscErrorCode CountContacts(Simulation sim, PetscInt64 n[2])
{
  const ContactSet *cs      = SimulationContacts(sim);
  PetscInt64        mine[2] = {0, 0};

  PetscFunctionBegin;
  for (PetscInt i = 0; i < cs->n; i++) {
    mine[0]++;
    mine[1] += cs->key[i].ida == wall_global_id(0);
  }
  PetscCallMPI(MPI_Allreduce(mine, n, 2, MPIU_INT64, MPI_SUM, SimulationComm(sim)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The triangles whose bounds reach this rank's subdomain grown by the halo, as the cuts are now (the floor sits at
 * the identity pose, so its frame is the world's), into keep[] (the whole mesh's nt entries) and *n. */
static PetscErrorCode ExpectedPart(Simulation sim, int32_t *keep, PetscInt *n)
{
  const TriMesh *whole = SimulationScenario(sim)->walls[0].mesh;
  Domain         d     = SimulationDomain(sim);
  PetscMPIInt    rank;
  double         lo[3], hi[3], halo;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(SimulationComm(sim), &rank));
  PetscCall(DomainSubdomainBox(d, rank, lo, hi));
  PetscCall(DomainGetHalo(d, &halo));
  for (int k = 0; k < 3; k++) {
    lo[k] -= halo;
    hi[k] += halo;
  }
  TriMeshSelectBox(whole, lo, hi, keep, n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the part the last step's detection read is keep[0 .. n) (ExpectedPart before the step: a rebalance at
 * the step's end moves the cuts for the next one) and smaller than the whole; its share into *fraction. */
static void CheckPart(Simulation sim, int step, const int32_t *keep, PetscInt n, double *fraction)
{
  const TriMesh *part = SimulationWalls(sim)[0].mesh, *whole = SimulationScenario(sim)->walls[0].mesh;
  PetscMPIInt    rank;

  MPI_Comm_rank(SimulationComm(sim), &rank);
  TEST_CHECK(part != whole && part->tri_gid && part->nt == n &&
               !memcmp(part->tri_gid, keep, sizeof(int32_t) * (size_t)n),
             "step %d, rank %d: the part holds %" PetscInt_FMT " triangles, not the %" PetscInt_FMT
             " that reach the subdomain grown by the halo",
             step, rank, part->nt, n);
  TEST_CHECK(part->nt < whole->nt, "step %d, rank %d: the part holds all %" PetscInt_FMT " triangles", step, rank,
             whole->nt);
  *fraction = (double)part->nt / (double)whole->nt;
}

/* The cuts along x, into cuts[0 .. size]. */
static PetscErrorCode CutsAlongX(Simulation sim, double *cuts, PetscMPIInt size)
{
  const double *c;

  PetscFunctionBegin;
  PetscCall(DomainGetCuts(SimulationDomain(sim), 0, &c));
  PetscCall(PetscArraycpy(cuts, c, size + 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The last step taken with its loads recorded and a snapshot written to dir (collective). */
static PetscErrorCode LastStepWithSnapshot(Simulation sim, const char *dir)
{
  char err[512] = "";

  PetscFunctionBegin;
  SimulationRecordLoads(sim, PETSC_TRUE);
  PetscCall(SimulationStep(sim));
  SimulationRecordLoads(sim, PETSC_FALSE);
  PetscCall(SimulationWriteSnapshot(sim, dir, err, sizeof err));
  TEST_CHECK(!err[0], "writing the snapshot: %s", err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Dataset name of the snapshot of step STEPS in dir: its values into *x (PetscFree it), their count into *n (0: none).
 */
static PetscErrorCode ReadDataset(const char *dir, const char *name, double **x, hsize_t *n)
{
  char    path[PETSC_MAX_PATH_LEN];
  hid_t   f, d = -1, sp;
  hsize_t dims[2] = {0, 1};

  PetscFunctionBegin;
  *x = NULL;
  *n = 0;
  snprintf(path, sizeof path, "%s/snapshots/snap-%06d.h5", dir, STEPS);
  H5E_BEGIN_TRY
  {
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f >= 0) d = H5Dopen2(f, name, H5P_DEFAULT);
  }
  H5E_END_TRY;
  if (d >= 0) {
    sp = H5Dget_space(d);
    if (H5Sget_simple_extent_ndims(sp) <= 2 && H5Sget_simple_extent_dims(sp, dims, NULL) >= 0) {
      *n = dims[0] * (H5Sget_simple_extent_ndims(sp) == 2 ? dims[1] : 1);
      PetscCall(PetscMalloc1(*n + 1, x));
      if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, *x) < 0) *n = 0;
    }
    H5Sclose(sp);
    H5Dclose(d);
  }
  if (f >= 0) H5Fclose(f);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The snapshots of the last step, on several ranks (par) and on one (ser): the mesh drawn whole, every triangle at
 * the same place, and the load on it summed over ranks once: within the velocities' bound times the bodies' mass
 * over the step (1e-4 m/s x 1 kg / 2 ms = 0.05 N; a load counted twice is off by the bed's weight, 9.7 N). */
static PetscErrorCode CheckSnapshots(const char *par, const char *ser)
{
  double *va, *vb, *fa, *fb;
  hsize_t na, nb, nfa, nfb;

  PetscFunctionBegin;
  PetscCall(ReadDataset(par, "/walls/mesh/vertices", &va, &na));
  PetscCall(ReadDataset(ser, "/walls/mesh/vertices", &vb, &nb));
  PetscCall(ReadDataset(par, "/walls/force", &fa, &nfa));
  PetscCall(ReadDataset(ser, "/walls/force", &fb, &nfb));
  TEST_CHECK(na == 9 * 2 * NX * NX && na == nb && !memcmp(va, vb, sizeof(double) * na),
             "the snapshot draws %llu mesh vertices, the 1-rank one %llu (the whole mesh: %d), or not at the same "
             "places",
             (unsigned long long)na, (unsigned long long)nb, 9 * 2 * NX * NX);
  TEST_CHECK(nfa == 3 && nfb == 3 && fabs(fa[0] - fb[0]) + fabs(fa[1] - fb[1]) + fabs(fa[2] - fb[2]) <= 0.05 &&
               fb[2] < -9,
             "the mesh's force %g %g %g N, on one rank %g %g %g N (within 0.05 N; about -9.7 N down)", nfa ? fa[0] : 0,
             nfa ? fa[1] : 0, nfa ? fa[2] : 0, nfb ? fb[0] : 0, nfb ? fb[1] : 0, nfb ? fb[2] : 0);
  if (nfa == 3 && nfb == 3) printf("the mesh's force: %.9g N on several ranks, %.9g N on one\n", fa[2], fb[2]);
  PetscCall(PetscFree(va));
  PetscCall(PetscFree(vb));
  PetscCall(PetscFree(fa));
  PetscCall(PetscFree(fb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  static char  yaml[65536];
  char         stl[PETSC_MAX_PATH_LEN + 16];
  PetscMPIInt  size, rank;
  Simulation   sim;
  TestBodyVel *par[STEPS] = {NULL}, *ser;
  PetscInt     npar[STEPS], nser;
  PetscInt64   cpar[STEPS][2], cser[2];
  double       worst = 0, fmin = 1, fmax = 0, cuts[2][8];
  int          moved = 0, counts_differ = 0;
  int32_t     *keep;
  char         dir[PETSC_MAX_PATH_LEN], dirs[2][PETSC_MAX_PATH_LEN + 8];

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(TestMakeTempDir(PETSC_COMM_WORLD, "mesh-parts", dir)); /* the floor's STL and the snapshots */
  snprintf(stl, sizeof stl, "%s/floor.stl", dir);
  PetscCall(WriteFloor(stl));
  Scene(stl, yaml, sizeof yaml);
  if (size == 1) { /* one rank: the whole mesh */
    PetscCall(TestSimulationOnComm(PETSC_COMM_WORLD, yaml, "mesh-parts", &sim));
    PetscCall(SimulationStep(sim));
    TEST_CHECK(SimulationWalls(sim)[0].mesh == SimulationScenario(sim)->walls[0].mesh &&
                 SimulationWalls(sim)[0].mesh->nt == 2 * NX * NX && SimulationWalls(sim)[0].mesh->rec,
               "on one rank detection should read the whole mesh");
    PetscCall(SimulationDestroy(&sim));
    if (nftw(dir, TestRemoveEntry, 16, FTW_DEPTH | FTW_PHYS)) printf("could not remove %s\n", dir);
    PetscCall(PetscFinalize());
    return TestFinish("test_mesh_parts");
  }
  PetscCheck(size < 8, PETSC_COMM_WORLD, PETSC_ERR_SUP, "run on 1 to 7 ranks");
  PetscCall(TestSlabsAlongX("3"));
  PetscCall(TestSimulationOnComm(PETSC_COMM_WORLD, yaml, "mesh-parts", &sim));
  PetscCall(PetscMalloc1(2 * NX * NX, &keep));
  snprintf(dirs[0], sizeof dirs[0], "%s/ranks", dir);
  snprintf(dirs[1], sizeof dirs[1], "%s/one", dir);
  for (int s = 0; s < STEPS; s++) {
    double   f, gmin, gmax;
    PetscInt n;
    PetscCall(ExpectedPart(sim, keep, &n));
    if (s < STEPS - 1) PetscCall(SimulationStep(sim));
    else PetscCall(LastStepWithSnapshot(sim, dirs[0]));
    TEST_CHECK(SimulationLastStep(sim)->converged, "step %d did not converge (residual %.3e m/s)", s + 1,
               SimulationLastStep(sim)->residual_max);
    CheckPart(sim, s + 1, keep, n, &f);
    PetscCallMPI(MPI_Allreduce(&f, &gmin, 1, MPI_DOUBLE, MPI_MIN, PETSC_COMM_WORLD));
    PetscCallMPI(MPI_Allreduce(&f, &gmax, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    fmin = PetscMin(fmin, gmin);
    fmax = PetscMax(fmax, gmax);
    PetscCall(CutsAlongX(sim, cuts[s % 2], size));
    if (s > 0) moved += memcmp(cuts[0], cuts[1], sizeof(double) * (size + 1)) != 0;
    PetscCall(CountContacts(sim, cpar[s]));
    PetscCall(TestGatherVelocities(sim, &par[s], &npar[s]));
  }
  PetscCall(SimulationDestroy(&sim));
  PetscCall(PetscFree(keep));
  if (!rank) {
    PetscCall(TestSerialReference());
    PetscCall(TestSimulationOnComm(PETSC_COMM_SELF, yaml, "mesh-parts-serial", &sim));
    for (int s = 0; s < STEPS; s++) {
      PetscBool same_ids;
      if (s < STEPS - 1) PetscCall(SimulationStep(sim));
      else PetscCall(LastStepWithSnapshot(sim, dirs[1]));
      PetscCall(CountContacts(sim, cser));
      PetscCall(TestGatherVelocities(sim, &ser, &nser));
      worst = PetscMax(worst, TestLargestVelocityDifference(par[s], npar[s], ser, nser, 0.008, &same_ids));
      TEST_CHECK(same_ids && nser == 192, "step %d: the bodies differ from the 1-rank run's", s + 1);
      if (cpar[s][0] != cser[0] || cpar[s][1] != cser[1]) {
        if (!counts_differ++)
          printf("step %d: %lld contacts, %lld with the mesh; on one rank %lld and %lld\n", s + 1,
                 (long long)cpar[s][0], (long long)cpar[s][1], (long long)cser[0], (long long)cser[1]);
      }
      PetscCall(PetscFree(ser));
    }
    printf("mesh parts on %d ranks, %d steps: each rank kept %.1f%% to %.1f%% of the %d triangles; the cuts moved on "
           "%d steps; %lld contacts in the last step (%lld with the mesh); velocities within %.3e m/s of one rank's; "
           "steps with other contact counts: %d\n",
           size, STEPS, 100 * fmin, 100 * fmax, 2 * NX * NX, moved, (long long)cpar[STEPS - 1][0],
           (long long)cpar[STEPS - 1][1], worst, counts_differ);
    TEST_CHECK(cpar[STEPS - 1][1] > 150, "only %lld contacts with the mesh in the last step: the bodies did not land",
               (long long)cpar[STEPS - 1][1]);
    TEST_CHECK(counts_differ == 0, "%d steps count other contacts than on one rank", counts_differ);
    TEST_CHECK(worst <= 1e-4, "velocities differ from the 1-rank run's by %.3e m/s > 1e-4", worst);
    PetscCall(SimulationDestroy(&sim));
    PetscCall(CheckSnapshots(dirs[0], dirs[1]));
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD)); /* every rank is done with the floor's file */
  if (!rank && nftw(dir, TestRemoveEntry, 16, FTW_DEPTH | FTW_PHYS)) printf("could not remove %s\n", dir);
  PetscCallMPI(MPI_Bcast(&moved, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  TEST_CHECK(moved > 0, "the cuts never moved after the first step: the test does not cut parts again");
  for (int s = 0; s < STEPS; s++) PetscCall(PetscFree(par[s]));
  PetscCall(PetscFinalize());
  return TestFinish("test_mesh_parts");
}
