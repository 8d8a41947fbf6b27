/* Mesh-part memory benchmark (issue 35 item 3; a program, not a test): what each rank holds of a mesh wall of about
 * 10^5 triangles, fixed or moving (step/wall_meshes.h), after -steps steps (default 30, so a moving mesh's part has
 * been cut again at least once), and the rank's memory high-water mark (VmHWM: the set-up, where every rank builds
 * the whole mesh once, included) and resident set (VmRSS). One case per run (-case), since VmHWM only grows:
 *   fixed  a floor [-0.5, 0.5]^2 of 224 x 224 squares (100352 triangles), one layer of spheres (r = 5 mm) on it;
 *   slide  the same floor sliding along +x at 0.05 m/s;
 *   drum   a tube of radius 0.4 m about the y axis (628 facets around, 80 along: 100480 triangles) turning at
 *          1 rad/s, a bed of spheres on its bottom.
 * Prints per rank the least and most over ranks of: the triangles and bytes of the part detection reads, the bytes
 * of every mesh the rank holds (the part and the whole mesh's vertices and triangles, or the whole mesh), VmHWM and
 * VmRSS; and the mean wall time of a step. Usage (e.g. mpiexec -n 4, with -decomp_grid 2,2,1):
 * bench_mesh_parts -case fixed|slide|drum [-steps S] */
#define _GNU_SOURCE /* nftw, mkdtemp */
#include "../test_files.h"
#include "../test_mesh.h"
#include "collision/trimesh.h"
#include <petsctime.h>

/* This process's /proc/self/status value of key (e.g. "VmHWM:") in bytes; 0 where /proc cannot tell. */
static double status_bytes(const char *key)
{
  char   line[256];
  double kb = 0;
  FILE  *fp = fopen("/proc/self/status", "r");
  if (!fp) return 0;
  while (fgets(line, sizeof line, fp))
    if (!strncmp(line, key, strlen(key))) kb = strtod(line + strlen(key), NULL);
  fclose(fp);
  return 1024 * kb;
}

/* A tube of radius R about the y axis from -H to H: na facets around, ny along, two triangles each, into xyz
 * (18 na ny doubles). */
static void Tube(double R, double H, PetscInt na, PetscInt ny, double *xyz)
{
  PetscInt t = 0;
  for (PetscInt i = 0; i < na; i++)
    for (PetscInt j = 0; j < ny; j++) {
      const double a0 = 2 * M_PI * (double)i / (double)na, a1 = 2 * M_PI * (double)(i + 1) / (double)na;
      const double y0 = -H + 2 * H * (double)j / (double)ny, y1 = -H + 2 * H * (double)(j + 1) / (double)ny;
      const double c[4][3]   = {{R * cos(a0), y0, R * sin(a0)},
                                {R * cos(a1), y0, R * sin(a1)},
                                {R * cos(a1), y1, R * sin(a1)},
                                {R * cos(a0), y1, R * sin(a0)}};
      const int    tri[2][3] = {{0, 1, 2}, {0, 2, 3}};
      for (int s = 0; s < 2; s++, t++)
        for (int k = 0; k < 3; k++) v3_copy(xyz + 9 * t + 3 * k, c[tri[s][k]]);
    }
}

int main(int argc, char **argv)
{
  PetscInt       steps     = 30, nt;
  char           which[16] = "fixed", dir[PETSC_MAX_PATH_LEN], stl[PETSC_MAX_PATH_LEN + 16];
  static char    yaml[4 * PETSC_MAX_PATH_LEN];
  double        *xyz, mine[6], most[6], least[6];
  PetscMPIInt    rank, size;
  Simulation     sim;
  PetscLogDouble t0, t1;
  PetscBool      drum;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", which, sizeof which, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &steps, NULL));
  PetscCheck(!strcmp(which, "fixed") || !strcmp(which, "slide") || !strcmp(which, "drum"), PETSC_COMM_WORLD,
             PETSC_ERR_ARG_WRONG, "-case must be fixed, slide or drum, got '%s'", which);
  drum = (PetscBool)!strcmp(which, "drum");
  nt   = drum ? 2 * 628 * 80 : 2 * 224 * 224;
  PetscCall(PetscMalloc1(9 * (size_t)nt, &xyz));
  if (drum) Tube(0.4, 0.4, 628, 80, xyz);
  else
    for (PetscInt i = 0; i < 224; i++)
      for (PetscInt j = 0; j < 224; j++)
        TestRectangle(-0.5 + (double)i / 224, -0.5 + (double)j / 224, -0.5 + (double)(i + 1) / 224,
                      -0.5 + (double)(j + 1) / 224, xyz + 18 * (224 * i + j));
  PetscCall(TestMakeTempDir(PETSC_COMM_WORLD, "bench-mesh-parts", dir));
  snprintf(stl, sizeof stl, "%s/mesh.stl", dir);
  PetscCall(TestWriteStl(stl, (int)nt, xyz));
  PetscCall(PetscFree(xyz));
  snprintf(yaml, sizeof yaml,
           "domain: {min: [%s], max: [%s]}\n"
           "gravity: [0, 0, -9.81]\n"
           "time: {step: 0.001, end: 1}\n"
           "contact: {model: ccp, envelope: 0.0005}\n"
           "materials:\n"
           "  - {name: m, density: 2000, friction: 0.5}\n"
           "walls:\n"
           "  - {type: mesh, file: %s, material: m%s}\n"
           "fills:\n"
           "  - {type: lattice, region: {min: [%s], max: [%s]}, radius: 0.005, spacing: 0.0105, material: m}\n",
           drum ? "-0.45, -0.45, -0.45" : "-0.5, -0.5, -0.05", drum ? "0.45, 0.45, 0.45" : "0.5, 0.5, 0.5", stl,
           drum                      ? ", motion: {axis: [0, 1, 0], angular_velocity: 1}"
           : !strcmp(which, "slide") ? ", motion: {velocity: [0.05, 0, 0]}"
                                     : "",
           drum ? "-0.15, -0.35, -0.36" : "-0.49, -0.49, 0", drum ? "0.15, 0.35, -0.3" : "0.49, 0.49, 0.010001");
  PetscCall(TestSimulationFromText(yaml, &sim));
  PetscCall(PetscTime(&t0));
  for (PetscInt s = 0; s < steps; s++) PetscCall(SimulationStep(sim));
  PetscCall(PetscTime(&t1));
  {
    const TriMesh *part = SimulationWalls(sim)[0].mesh, *whole = SimulationScenario(sim)->walls[0].mesh;
    mine[0] = (double)part->nt;
    mine[1] = (double)part->bytes;
    mine[2] = (double)(part->bytes + (part == whole ? 0 : whole->bytes));
    mine[3] = status_bytes("VmHWM:");
    mine[4] = status_bytes("VmRSS:");
    mine[5] = (double)SimulationBodies(sim)->n_owned;
  }
  PetscCallMPI(MPI_Allreduce(mine, most, 6, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
  PetscCallMPI(MPI_Allreduce(mine, least, 6, MPI_DOUBLE, MPI_MIN, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%s, %d ranks, %" PetscInt_FMT " steps (%.0f to %.0f bodies a rank): detection reads %.0f to "
                        "%.0f of the %" PetscInt_FMT " triangles (%.1f to %.1f MB); mesh memory %.1f to %.1f MB a "
                        "rank; VmHWM %.1f to %.1f MB, VmRSS %.1f to %.1f MB; %.1f ms a step\n",
                        which, (int)size, steps, least[5], most[5], least[0], most[0], nt, least[1] / 1e6,
                        most[1] / 1e6, least[2] / 1e6, most[2] / 1e6, least[3] / 1e6, most[3] / 1e6, least[4] / 1e6,
                        most[4] / 1e6, 1e3 * (t1 - t0) / (double)steps));
  PetscCall(SimulationDestroy(&sim));
  if (!rank && nftw(dir, TestRemoveEntry, 16, FTW_DEPTH | FTW_PHYS))
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "bench_mesh_parts: could not remove %s: %s\n", dir, strerror(errno)));
  PetscCall(PetscFinalize());
  return 0;
}
