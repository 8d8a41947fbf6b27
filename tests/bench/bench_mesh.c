/* Mesh-wall benchmark (issue 35; a program, not a test): the detection cost per body of a floor
 * of about 10^5 triangles against the same floor as a plane wall.
 *
 * The floor [-L, L]^2 (-half L, default 0.5 m) is an STL file (written to a temporary directory, removed at the
 * end) of n x n squares, two triangles each
 * (n = 224: 100352 triangles, of 4.5 mm at L = 0.5 m); on its middle [-0.49, 0.49]^2 a lattice of
 * spheres (r = 5 mm, spacing 10.5 mm), the lowest layer resting on the floor, -layers deep (default 2).
 * The cost of a query grows with the triangles within a sphere's reach (about 8 at the default
 * size), not with the mesh's size: -half 5 gives the same count of triangles ten times larger. Every body is tested
 * against the wall (the mesh's bounding sphere holds them all), so each costs a query: on the flat floor most are
 * answered by the floor's one face (collision/mesh_faces.h), near its rim by the triangles. Prints the mesh's build
 * time and memory as loaded (the whole mesh, on every rank); on several ranks (mpiexec -n P, e.g. with -decomp_grid
 * 2,2,1), after one step, each rank's part (step/wall_meshes.h) with the whole mesh's vertices and triangles that
 * every rank keeps, the least and most over ranks, and the largest resident set (VmRSS) of a rank (one rank: the
 * whole mesh and its VmRSS); and for each
 * wall, the median over -reps CollisionDetect calls (broadphase, wall tests, narrowphase, contact records) per body
 * of rank 0, and their ratio (target: within 1.5).
 * -bumpy H lowers each inner corner of the floor by a random depth below H (m), so no two triangles are coplanar: the
 * mesh has no flat face (collision/mesh_faces.h) and every query takes the triangles one by one, as on a curved mesh;
 * -turn DEG stores the floor's corners turned by -DEG about z and places the mesh with the orientation turning them
 * back: the same floor, through the rotation a turned or turning mesh pays. Usage:
 * bench_mesh [-n SQUARES_PER_SIDE] [-half L] [-layers K] [-reps R] [-bumpy H] [-turn DEG] */
#define _GNU_SOURCE /* nftw, mkdtemp */
#include "../test_files.h"
#include "../test_mesh.h"
#include "collision/detect.h"
#include "collision/trimesh.h"
#include <petsctime.h>
#include <time.h>

/* A depth in [0, 1) for the floor's corner at (x, y): a nonlinear hash of its coordinates' bits, the same for every
 * triangle at the corner (an affine one would leave many corner quadruples in one plane). */
static double corner_depth(double x, double y)
{
  uint64_t bx, by, h;
  memcpy(&bx, &x, sizeof bx);
  memcpy(&by, &y, sizeof by);
  h = bx * 0x9e3779b97f4a7c15ull ^ (by + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull;
  h ^= h >> 31;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 29;
  return (double)(h >> 11) / 9007199254740992.0;
}

/* This process's CPU seconds: on a shared machine the wall clock counts other processes' turns. */
static double cpu_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median CPU seconds of one CollisionDetect over the bodies of sim (its walls, envelope, materials). */
static PetscErrorCode time_detect(Simulation sim, PetscInt reps, double *median, PetscInt *contacts)
{
  const Scenario         *sc  = SimulationScenario(sim);
  const CollisionSettings set = {.envelope  = sc->envelope,
                                 .materials = sc->materials,
                                 .walls     = SimulationWalls(sim),
                                 .nwalls    = sc->n_walls};
  BodyStore              *s   = SimulationBodies(sim);
  Broadphase              bp;
  ContactSet              cs;
  double                 *t;

  PetscFunctionBegin;
  PetscCall(BroadphaseCreate(&bp));
  PetscCall(ContactSetCreate(&cs));
  PetscCall(PetscMalloc1(reps, &t));
  PetscCall(CollisionDetect(&set, s, s->n_owned, &bp, &cs)); /* warm: buffers grown */
  for (PetscInt r = 0; r < reps; r++) {
    const double t0 = cpu_seconds();
    PetscCall(CollisionDetect(&set, s, s->n_owned, &bp, &cs));
    t[r] = cpu_seconds() - t0;
  }
  qsort(t, (size_t)reps, sizeof(*t), by_value);
  *median   = t[reps / 2];
  *contacts = cs.n;
  PetscCall(PetscFree(t));
  PetscCall(ContactSetDestroy(&cs));
  PetscCall(BroadphaseDestroy(&bp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* This process's resident set (VmRSS, bytes; 0 where /proc cannot tell). */
static double resident_bytes(void)
{
  char   line[256];
  double kb = 0;
  FILE  *fp = fopen("/proc/self/status", "r");
  if (!fp) return 0;
  while (fgets(line, sizeof line, fp))
    if (!strncmp(line, "VmRSS:", 6)) kb = strtod(line + 6, NULL);
  fclose(fp);
  return 1024 * kb;
}

/* After a step of sim (the parts are cut at a step's start): the mesh memory per rank, its least and most over
 * ranks (collective). */
static PetscErrorCode print_parts(Simulation sim)
{
  const TriMesh *part = SimulationWalls(sim)[0].mesh, *whole = SimulationScenario(sim)->walls[0].mesh;
  double         mine[4], most[4], least[4];
  PetscMPIInt    size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size == 1) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "1 rank: the whole mesh for detection (%.1f MB); VmRSS %.1f MB (both simulations)\n",
                          (double)part->bytes / 1e6, resident_bytes() / 1e6));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  mine[0] = (double)part->nt;
  mine[1] = (double)part->bytes;
  mine[2] = (double)(part->bytes + (part == whole ? 0 : whole->bytes));
  mine[3] = resident_bytes();
  PetscCallMPI(MPI_Allreduce(mine, most, 4, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
  PetscCallMPI(MPI_Allreduce(mine, least, 4, MPI_DOUBLE, MPI_MIN, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%d ranks: each keeps %.0f to %.0f of the %" PetscInt_FMT
                        " triangles for detection (%.1f to %.1f MB) and the whole mesh's vertices and triangles "
                        "(%.1f MB): %.1f to %.1f MB of mesh per rank; largest VmRSS of a rank %.1f MB (both "
                        "simulations)\n",
                        (int)size, least[0], most[0], whole->nt, least[1] / 1e6, most[1] / 1e6,
                        (double)whole->bytes / 1e6, least[2] / 1e6, most[2] / 1e6, most[3] / 1e6));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt     n = 224, layers = 2, reps = 21, nt, contacts[2];
  double       L = 0.5, bump = 0, turn = 0;
  char         pose[128];
  const double r = 0.005;
  double      *xyz, sec[2];
  static char  yaml[2][4 * PETSC_MAX_PATH_LEN], wall[2][PETSC_MAX_PATH_LEN + 256], dir[PETSC_MAX_PATH_LEN],
    stl[PETSC_MAX_PATH_LEN + 32];
  const char    *walls[2] = {"{type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}",
                             "{type: mesh, file: %s, material: m%s}"};
  Simulation     sim[2];
  PetscLogDouble t0, t1;
  PetscMPIInt    rank;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-layers", &layers, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-half", &L, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-bumpy", &bump, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-turn", &turn, NULL));
  nt = 2 * n * n;
  PetscCall(PetscMalloc1(9 * (size_t)nt, &xyz));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++)
      TestRectangle(-L + 2 * L * i / n, -L + 2 * L * j / n, -L + 2 * L * (i + 1) / n, -L + 2 * L * (j + 1) / n,
                    xyz + 18 * (n * i + j));
  for (PetscInt k = 0; k < 3 * nt; k++) { /* the bumps, then the file's corners turned back by -turn about z */
    double      *p = xyz + 3 * k;
    const double c = cos(-turn * PETSC_PI / 180), s = sin(-turn * PETSC_PI / 180), x = p[0], y = p[1];
    if (fabs(x) < L && fabs(y) < L) p[2] = -bump * corner_depth(x, y); /* the rim stays at 0: it bounds the domain */
    p[0] = c * x - s * y;
    p[1] = s * x + c * y;
  }
  /* the floor's STL in a directory of its own, removed at the end (the benchmark may run from the source tree) */
  PetscCall(TestMakeTempDir(PETSC_COMM_WORLD, "bench-mesh", dir));
  snprintf(stl, sizeof stl, "%s/floor.stl", dir);
  PetscCall(TestWriteStl(stl, (int)nt, xyz));
  snprintf(wall[0], sizeof wall[0], "%s", walls[0]);
  snprintf(pose, sizeof pose, turn != 0 ? ", orientation: [%.17g, 0, 0, %.17g]" : "", cos(turn * PETSC_PI / 360),
           sin(turn * PETSC_PI / 360));
  snprintf(wall[1], sizeof wall[1], walls[1], stl, pose);
  PetscCall(PetscFree(xyz));
  for (int w = 0; w < 2; w++)
    snprintf(yaml[w], sizeof yaml[w],
             "domain: {min: [%.17g, %.17g, -0.05], max: [%.17g, %.17g, 0.5]}\n"
             "time: {step: 0.001, end: 0.01}\n"
             "contact: {model: ccp, envelope: 0.0005}\n"
             "materials:\n"
             "  - {name: m, density: 2000, friction: 0.5}\n"
             "walls:\n"
             "  - %s\n"
             "fills:\n"
             "  - {type: lattice, region: {min: [-0.49, -0.49, 0], max: [0.49, 0.49, %.17g]}, radius: %g, spacing: "
             "0.0105, material: m}\n",
             -L, -L, L, L, wall[w], 2 * r + 0.0105 * (double)(layers - 1) + 1e-9, r);
  PetscCall(PetscTime(&t0));
  PetscCall(TestSimulationFromText(yaml[1], &sim[1]));
  PetscCall(PetscTime(&t1));
  PetscCall(TestSimulationFromText(yaml[0], &sim[0]));
  {
    const TriMesh *m = SimulationWalls(sim[1])[0].mesh;
    PetscCall(
      PetscPrintf(PETSC_COMM_WORLD,
                  "mesh: %" PetscInt_FMT " triangles, %" PetscInt_FMT " vertices, %" PetscInt_FMT
                  " edges; grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT
                  " cells of %.3g mm; %.1f MB as loaded on every rank (%.0f bytes per triangle); read and built in "
                  "%.2f s (with the run's setup)\n",
                  m->nt, m->nv, m->ne, m->dims[0], m->dims[1], m->dims[2], 1e3 * m->cell, m->bytes / 1e6,
                  (double)m->bytes / (double)m->nt, t1 - t0));
  }
  for (int w = 0; w < 2; w++) PetscCall(SimulationStep(sim[w])); /* the parts are cut at a step's start */
  PetscCall(print_parts(sim[1]));
  for (int w = 0; w < 2; w++) PetscCall(time_detect(sim[w], reps, &sec[w], &contacts[w]));
  {
    const double nb = (double)SimulationBodies(sim[0])->n_owned;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "%.0f bodies (%" PetscInt_FMT " layers), %" PetscInt_FMT " / %" PetscInt_FMT
                          " contacts (plane / mesh)\n"
                          "detection per body: plane wall %.1f ns, mesh of %" PetscInt_FMT
                          " triangles %.1f ns: ratio %.2f (target <= 1.5; medians of %" PetscInt_FMT
                          " calls, CPU time)\n",
                          nb, layers, contacts[0], contacts[1], 1e9 * sec[0] / nb, nt, 1e9 * sec[1] / nb,
                          sec[1] / sec[0], reps));
  }
  for (int w = 0; w < 2; w++) PetscCall(SimulationDestroy(&sim[w]));
  if (!rank && nftw(dir, TestRemoveEntry, 16, FTW_DEPTH | FTW_PHYS))
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "bench_mesh: could not remove %s: %s\n", dir, strerror(errno)));
  PetscCall(PetscFinalize());
  return 0;
}
