/* Helpers of the mesh-wall tests: STL files written for a test, and two scenarios stepped side by
 * side and compared body by body. */
#ifndef CCPDEM_TEST_MESH_H
#define CCPDEM_TEST_MESH_H
#include "test_util.h"

/* Writes nt triangles (9 coordinates each) as an ASCII STL file at path, on rank 0 of
 * PETSC_COMM_WORLD; every rank returns after it is written (collective). %.17g: the file holds the
 * coordinates exactly. */
static inline PetscErrorCode TestWriteStl(const char *path, int nt, const double *xyz)
{
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (!rank) {
    FILE *fp = fopen(path, "w");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", path);
    fprintf(fp, "solid test\n");
    for (int t = 0; t < nt; t++) {
      fprintf(fp, "facet normal 0 0 0\n outer loop\n");
      for (int k = 0; k < 3; k++)
        fprintf(fp, "  vertex %.17g %.17g %.17g\n", xyz[9 * t + 3 * k], xyz[9 * t + 3 * k + 1], xyz[9 * t + 3 * k + 2]);
      fprintf(fp, " endloop\nendfacet\n");
    }
    fprintf(fp, "endsolid test\n");
    PetscCheck(!fclose(fp), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s", path);
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The two triangles of the rectangle [x0, x1] x [y0, y1] at z = 0, split along its diagonal from
 * (x0, y0) to (x1, y1). */
static inline void TestRectangle(double x0, double y0, double x1, double y1, double xyz[18])
{
  const double t[18] = {x0, y0, 0, x1, y0, 0, x1, y1, 0, x0, y0, 0, x1, y1, 0, x0, y1, 0};
  for (int k = 0; k < 18; k++) xyz[k] = t[k];
}

/* The 12 triangles of the box [lo, hi], two per face (split along a diagonal). */
static inline void TestBoxMesh(const double lo[3], const double hi[3], double xyz[12 * 9])
{
  static const int tris[2][3] = {{0, 1, 2}, {0, 2, 3}};
  int              t          = 0;
  for (int axis = 0; axis < 3; axis++)
    for (int side = 0; side < 2; side++) {
      const int u = (axis + 1) % 3, w = (axis + 2) % 3;
      double    q[4][3];
      for (int k = 0; k < 4; k++) { /* the face's corners, round it */
        q[k][axis] = side ? hi[axis] : lo[axis];
        q[k][u]    = (k == 1 || k == 2) ? hi[u] : lo[u];
        q[k][w]    = k >= 2 ? hi[w] : lo[w];
      }
      for (int j = 0; j < 2; j++, t++)
        for (int c = 0; c < 3; c++)
          for (int d = 0; d < 3; d++) xyz[9 * t + 3 * c + d] = q[tris[j][c]][d];
    }
}

/* The 2 n triangles of a tube about the y axis from y0 to y1: n flat facets whose planes touch the
 * cylinder of radius R at their middles (corners at R / cos(pi / n)), so a sphere inside that
 * cylinder is inside the tube. xyz: 18 n doubles. */
static inline void TestTubeMesh(double R, double y0, double y1, int n, double *xyz)
{
  const double rc = R / cos(M_PI / n);
  for (int k = 0; k < n; k++) {
    const double     a0 = 2 * M_PI * k / n, a1 = 2 * M_PI * (k + 1) / n;
    const double     c[4][3]    = {{rc * cos(a0), y0, rc * sin(a0)},
                                   {rc * cos(a1), y0, rc * sin(a1)},
                                   {rc * cos(a1), y1, rc * sin(a1)},
                                   {rc * cos(a0), y1, rc * sin(a0)}};
    static const int tris[2][3] = {{0, 1, 2}, {0, 2, 3}};
    for (int j = 0; j < 2; j++)
      for (int v = 0; v < 3; v++)
        for (int d = 0; d < 3; d++) xyz[18 * k + 9 * j + 3 * v + d] = c[tris[j][v]][d];
  }
}

/* A ring of 13 spheres (r = 0.01 m) lying on the bottom of a drum of radius 0.1 m about the y axis through
 * [0, y, cz], neighbours 0.1 mm apart, appended to yaml (cap bytes, len written) as body lines; returns the new
 * length. */
static inline size_t TestDrumRing(char *yaml, size_t cap, size_t len, double y, double cz)
{
  const double R = 0.1, r = 0.01, dth = 2 * asin((r + 5e-5) / (R - r)); /* neighbours 0.1 mm apart */
  for (int k = -6; k <= 6; k++)
    len += (size_t)snprintf(yaml + len, cap - len,
                            "  - {shape: sphere, radius: %g, position: [%.17g, %g, %.17g], material: m}\n", r,
                            (R - r) * sin(k * dth), y, cz - (R - r) * cos(k * dth));
  return len;
}

/* The bumpy floor of the mesh-part tests: nx x nx squares of side over [-nx side / 2, nx side / 2]^2, two triangles
 * each, the vertices' heights 0 to bump (hashed from their indices), so bodies touch faces, edges and vertices;
 * into xyz (18 nx^2 doubles). */
static inline void TestBumpyFloor(int nx, double side, double bump, double *xyz)
{
  const int tri[2][3] = {{0, 1, 2}, {0, 2, 3}};
  int       t         = 0;
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < nx; j++) {
      const double x0 = -0.5 * nx * side + side * i, y0 = -0.5 * nx * side + side * j;
      const int    at[4][2] = {{i, j}, {i + 1, j}, {i + 1, j + 1}, {i, j + 1}};
      double       c[4][3];
      for (int q = 0; q < 4; q++) {
        const unsigned h = (unsigned)(at[q][0] * 7919 + at[q][1] * 104729) * 2654435761u;
        c[q][0]          = x0 + side * (at[q][0] - i);
        c[q][1]          = y0 + side * (at[q][1] - j);
        c[q][2]          = bump * (double)(h >> 8) / (double)(1u << 24);
      }
      for (int s = 0; s < 2; s++, t++)
        for (int k = 0; k < 3; k++)
          for (int d = 0; d < 3; d++) xyz[9 * t + 3 * k + d] = c[tri[s][k]][d];
    }
}

/* The drum-ring scene of test_moving_walls.c and test_mesh_motion.c: three rings of 13 spheres
 * (r = 0.01 m) lying on the bottom of a drum of radius 0.1 m about the y axis, neighbours 0.1 mm
 * apart, CCP solved to 1e-9 m/s, steps of 2 ms; `walls` the scenario's walls: lines (the drum).
 * Into yaml (cap bytes). */
static inline void TestDrumRings(const char *walls, char *yaml, size_t cap)
{
  size_t len;

  len = (size_t)snprintf(yaml, cap,
                         "domain: {min: [-0.11, -0.04, -0.11], max: [0.11, 0.04, 0.11]}\n"
                         "gravity: [0, 0, -9.81]\n"
                         "time: {step: 0.002, end: 0.1}\n"
                         "contact: {model: ccp, envelope: 0.001}\n"
                         "solver: {type: apgd, max_iterations: 5000, tolerance: 1.0e-9}\n"
                         "materials:\n"
                         "  - {name: m, density: 2500, friction: 0.5}\n"
                         "walls:\n%s"
                         "bodies:\n",
                         walls);
  for (int j = -1; j <= 1; j++) len = TestDrumRing(yaml, cap, len, (2 * 0.01 + 1e-4) * j, 0);
}

/* Steps scenarios a and b side by side until time t_end; after every step the largest difference
 * of any body's position (m) and velocity (m/s, angular rates times R) between them into *dx and
 * *dv (rank 0's figures, on every rank). Collective. */
static inline PetscErrorCode TestRunSideBySide(const char *a, const char *b, double t_end, double R, double *dx,
                                               double *dv)
{
  Simulation sim[2];
  double     worst[2] = {0, 0};

  PetscFunctionBegin;
  PetscCall(TestSimulationFromText(a, &sim[0]));
  PetscCall(TestSimulationFromText(b, &sim[1]));
  while (SimulationTime(sim[0]) < t_end - 0.5 * SimulationScenario(sim[0])->time_step) {
    TestBodyVel *g[2] = {NULL, NULL};
    PetscInt     n[2];
    PetscBool    same;
    for (int s = 0; s < 2; s++) {
      PetscCall(SimulationStep(sim[s]));
      PetscCall(TestGatherVelocities(sim[s], &g[s], &n[s]));
    }
    worst[1] = PetscMax(worst[1], TestLargestVelocityDifference(g[0], n[0], g[1], n[1], R, &same));
    CHECK(same, "the two runs hold different bodies at t = %g", SimulationTime(sim[0]));
    for (PetscInt i = 0; i < PetscMin(n[0], n[1]); i++)
      for (int k = 0; k < 3; k++) worst[0] = PetscMax(worst[0], fabs(g[0][i].x[k] - g[1][i].x[k]));
    for (int s = 0; s < 2; s++) PetscCall(PetscFree(g[s]));
  }
  PetscCallMPI(MPI_Bcast(worst, 2, MPI_DOUBLE, 0, PETSC_COMM_WORLD));
  *dx = worst[0];
  *dv = worst[1];
  for (int s = 0; s < 2; s++) PetscCall(SimulationDestroy(&sim[s]));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
