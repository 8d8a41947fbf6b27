/* Unit test of the sphere - triangle-mesh contacts (src/collision/triangle_contact.c) and the
 * mesh's tables (src/collision/trimesh.c), against geometry worked out by hand:
 *   - welding and adjacency of a unit square of two triangles (4 vertices, 5 edges, the diagonal
 *     on both triangles, owners the lower triangle); barycentric coordinates and edge parameters;
 *   - the square: a sphere over a face gets one face contact; on the shared diagonal, exactly on
 *     it and 1e-14 and 1e-7 either side, exactly one; beyond a boundary edge one edge contact,
 *     beyond a corner one vertex contact, with the normal from the closest point;
 *   - a fan of six triangles round a vertex: a sphere over the vertex gets exactly one (vertex)
 *     contact, and 2000 spheres over the fan each exactly one, at the plane's gap;
 *   - a convex ridge: one edge contact along the bisector over the ridge, one face contact over a
 *     slope; a concave valley: two face contacts;
 *   - a closed cube of 12 triangles: a sphere in a corner touches 3 faces, one at the centre with
 *     a wide envelope all 6, once each (the faces' diagonals are edges);
 *   - a fine floor of 20000 triangles (the grid: triangles in several cells): 2000 random spheres
 *     each get exactly one contact, at the plane's gap; and narrow_mesh_sphere with a rotated and
 *     moved pose gives the rotated plane's contact.
 * Coordinates are O(1): the kernels take a few roundings of O(1) numbers, so positions, normals
 * and gaps agree to 1e-12 (three orders above the roundings; a wrong formula is off by O(0.01)). */
// ctest: labels=unit timeout=60
#include "collision/triangle_contact.h"
#include "base/vec3.h"
#include "test_mesh.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define TOL 1e-12

#include "test_check.h"

static TriMesh *mesh_of(PetscInt nt, const double *xyz)
{
  TriMesh *m = NULL;
  PetscInt degenerate;
  if (TriMeshCreate(nt, xyz, &m, &degenerate) || degenerate >= 0) {
    printf("FAIL: mesh of %d triangles not built (degenerate %d)\n", (int)nt, (int)degenerate);
    exit(1);
  }
  return m;
}

static int contacts(const TriMesh *m, double x, double y, double z, double r, double env, TriFeatureContact *f)
{
  const double c[3] = {x, y, z};
  return tricontact_sphere(m, c, r, env, 16, f);
}

static int near3(const double a[3], double x, double y, double z)
{
  return fabs(a[0] - x) < TOL && fabs(a[1] - y) < TOL && fabs(a[2] - z) < TOL;
}

static void test_square(void)
{
  /* the unit square, diagonal (0,0)-(1,1): triangle 0 below it, triangle 1 above */
  const double      sq[18] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0};
  TriMesh          *m      = mesh_of(2, sq);
  TriFeatureContact f[16];
  double            b[3];
  int               n;

  CHECK(m->nv == 4 && m->ne == 5, "square: %d vertices, %d edges; expected 4 and 5", (int)m->nv, (int)m->ne);
  for (PetscInt e = 0; e < m->ne; e++) {
    const int ntri = m->edge_tri_start[e + 1] - m->edge_tri_start[e];
    const int diag = (m->v[3 * m->edge_v[2 * e]] == m->v[3 * m->edge_v[2 * e] + 1]) &&
                     (m->v[3 * m->edge_v[2 * e + 1]] == m->v[3 * m->edge_v[2 * e + 1] + 1]);
    CHECK(ntri == (diag ? 2 : 1), "square: edge %d has %d triangles", (int)e, ntri);
    CHECK(m->edge_tri[m->edge_tri_start[e]] == (diag ? 0 : m->edge_tri[m->edge_tri_start[e]]), "diagonal owner");
  }
  tricontact_barycentric(m, 0, (double[]){0.75, 0.25, 5}, b);
  CHECK(fabs(b[0] - 0.25) < TOL && fabs(b[1] - 0.5) < TOL && fabs(b[2] - 0.25) < TOL,
        "barycentric (%g, %g, %g); expected (0.25, 0.5, 0.25)", b[0], b[1], b[2]);

  n = contacts(m, 0.7, 0.2, 0.1, 0.1, 0.01, f);
  CHECK(n == 1 && f[0].kind == TRI_FEATURE_FACE && f[0].index == 0 && near3(f[0].pt.n, 0, 0, 1) &&
          near3(f[0].pt.p1, 0.7, 0.2, 0) && fabs(f[0].pt.phi) < TOL,
        "square, over face 0: %d contacts (kind %d)", n, n ? (int)f[0].kind : -1);
  const double offsets[] = {0, 1e-14, -1e-14, 1e-7, -1e-7};
  for (int k = 0; k < 5; k++) {
    const double d = offsets[k];
    n              = contacts(m, 0.5 + d, 0.5 - d, 0.1, 0.1, 0.01, f);
    CHECK(n == 1 && near3(f[0].pt.n, 0, 0, 1) && fabs(f[0].pt.phi) < TOL,
          "square, %g off the shared diagonal: %d contacts (kind %d); expected exactly one, the plane's", d, n,
          n ? (int)f[0].kind : -1);
  }
  n = contacts(m, 0.5, 0.5, 0.1, 0.1, 0.01, f);
  CHECK(n == 1 && f[0].kind == TRI_FEATURE_EDGE, "square, on the diagonal: kind %d, expected an edge",
        n ? (int)f[0].kind : -1);
  /* beyond the boundary edge y = 0, 45 degrees down: edge contact, normal (0, -1, 1) / sqrt 2 */
  n = contacts(m, 0.5, -0.05, 0.05, 0.1, 0.01, f);
  CHECK(n == 1 && f[0].kind == TRI_FEATURE_EDGE && near3(f[0].pt.n, 0, -M_SQRT1_2, M_SQRT1_2) &&
          near3(f[0].pt.p1, 0.5, 0, 0) && fabs(f[0].pt.phi - (0.05 * M_SQRT2 - 0.1)) < TOL,
        "square, beyond edge y = 0: %d contacts", n);
  /* beyond the corner (1, 0, 0) */
  n = contacts(m, 1.06, -0.08, 0, 0.1, 0.01, f);
  CHECK(n == 1 && f[0].kind == TRI_FEATURE_VERTEX && near3(f[0].pt.n, 0.6, -0.8, 0) && near3(f[0].pt.p1, 1, 0, 0) &&
          fabs(f[0].pt.phi) < TOL,
        "square, beyond corner (1, 0): %d contacts (kind %d)", n, n ? (int)f[0].kind : -1);
  /* out of reach */
  CHECK(contacts(m, 0.5, 0.5, 0.2, 0.1, 0.05, f) == 0, "square: a sphere 0.1 above the envelope touches");
  PetscCallAbort(PETSC_COMM_SELF, TriMeshDestroy(&m));
}

static void test_fan(void)
{
  double   xyz[6 * 9];
  TriMesh *m;
  int      n, bad = 0;
  for (int k = 0; k < 6; k++) {
    const double a0 = k * M_PI / 3, a1 = ((k + 1) % 6) * M_PI / 3; /* the last spoke is the first: welded */
    const double t[9] = {0, 0, 0, cos(a0), sin(a0), 0, cos(a1), sin(a1), 0};
    for (int j = 0; j < 9; j++) xyz[9 * k + j] = t[j];
  }
  m = mesh_of(6, xyz);
  TriFeatureContact f[16];
  n = contacts(m, 0, 0, 0.1, 0.1, 0.01, f);
  CHECK(n == 1 && f[0].kind == TRI_FEATURE_VERTEX && near3(f[0].pt.n, 0, 0, 1) && fabs(f[0].pt.phi) < TOL,
        "fan, over its shared vertex: %d contacts (kind %d); expected one vertex contact", n, n ? (int)f[0].kind : -1);
  srand(7);
  for (int i = 0; i < 2000; i++) { /* within radius 0.8 of the centre: over the fan */
    const double rr = 0.8 * sqrt(rand() / (double)RAND_MAX), a = 2 * M_PI * rand() / (double)RAND_MAX,
                 z = 0.1 + 0.005 * rand() / (double)RAND_MAX;
    /* every third point on a spoke or the centre, where the features meet */
    const double x = i % 3 ? rr * cos(a) : (i % 2 ? 0 : rr * cos(M_PI / 3 * (i % 6))),
                 y = i % 3 ? rr * sin(a) : (i % 2 ? 0 : rr * sin(M_PI / 3 * (i % 6)));
    n              = contacts(m, x, y, z, 0.1, 0.01, f);
    if (!(n == 1 && fabs(f[0].pt.phi - (z - 0.1)) < TOL && near3(f[0].pt.n, 0, 0, 1))) bad++;
  }
  CHECK(bad == 0, "fan: %d of 2000 spheres over it do not get exactly the plane's contact", bad);
  PetscCallAbort(PETSC_COMM_SELF, TriMeshDestroy(&m));
}

static void test_ridge_valley(void)
{
  /* the ridge along y at x = 0, z = 0; slopes down to z = -1 at x = -1 and x = +1 */
  const double      ridge[18]  = {0, 0, 0, 0, 1, 0, -1, 0, -1, 0, 0, 0, 1, 0, -1, 0, 1, 0};
  const double      valley[18] = {0, 0, 0, 0, 1, 0, -1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0};
  TriMesh          *m          = mesh_of(2, ridge);
  TriFeatureContact f[16];
  int               n = contacts(m, 0, 0.5, 0.1, 0.1, 0.01, f);
  CHECK(n == 1 && f[0].kind == TRI_FEATURE_EDGE && near3(f[0].pt.n, 0, 0, 1) && near3(f[0].pt.p1, 0, 0.5, 0),
        "ridge, over the ridge: %d contacts (kind %d); expected one edge contact", n, n ? (int)f[0].kind : -1);
  /* over the +x slope (normal (1, 0, 1) / sqrt 2), touching at (0.5, 0.3, -0.5) */
  n = contacts(m, 0.5 + 0.1 * M_SQRT1_2, 0.3, -0.5 + 0.1 * M_SQRT1_2, 0.1, 0.01, f);
  CHECK(n == 1 && f[0].kind == TRI_FEATURE_FACE && near3(f[0].pt.n, M_SQRT1_2, 0, M_SQRT1_2) && fabs(f[0].pt.phi) < TOL,
        "ridge, over a slope: %d contacts (kind %d); expected one face contact", n, n ? (int)f[0].kind : -1);
  PetscCallAbort(PETSC_COMM_SELF, TriMeshDestroy(&m));
  /* a valley of 90 degrees: a sphere of radius 0.1 resting in it, centre 0.1 sqrt 2 above the bottom */
  m = mesh_of(2, valley);
  n = contacts(m, 0, 0.5, 0.1 * M_SQRT2, 0.1, 0.01, f);
  CHECK(n == 2 && f[0].kind == TRI_FEATURE_FACE && f[1].kind == TRI_FEATURE_FACE && fabs(f[0].pt.phi) < TOL &&
          fabs(f[1].pt.phi) < TOL,
        "valley: %d contacts; expected two face contacts", n);
  PetscCallAbort(PETSC_COMM_SELF, TriMeshDestroy(&m));
}

static void test_cube(void)
{
  double            xyz[12 * 9];
  TriMesh          *m;
  TriFeatureContact f[16];
  int               n;
  TestBoxMesh((double[]){0, 0, 0}, (double[]){1, 1, 1}, xyz);
  m = mesh_of(12, xyz);
  CHECK(m->nv == 8 && m->ne == 18, "cube: %d vertices, %d edges; expected 8 and 18", (int)m->nv, (int)m->ne);
  n = contacts(m, 0.1, 0.1, 0.1, 0.1, 0.01, f);
  CHECK(n == 3 && fabs(f[0].pt.phi) < TOL && fabs(f[1].pt.phi) < TOL && fabs(f[2].pt.phi) < TOL,
        "cube, a sphere in a corner: %d contacts; expected 3 at gap 0", n);
  n = contacts(m, 0.5, 0.5, 0.5, 0.1, 0.5, f);
  CHECK(n == 6, "cube, a sphere at the centre within reach of every face: %d contacts; expected 6", n);
  for (int k = 0; k < n; k++)
    CHECK(fabs(f[k].pt.phi - 0.4) < TOL, "cube: contact %d has gap %g; expected 0.4", k, f[k].pt.phi);
  PetscCallAbort(PETSC_COMM_SELF, TriMeshDestroy(&m));
}

static void test_fine_floor_and_pose(void)
{
  const int         nx = 100, nt = 2 * nx * nx;
  double           *xyz;
  TriMesh          *m;
  TriFeatureContact f[16];
  int               bad = 0;

  PetscCallAbort(PETSC_COMM_SELF, PetscMalloc1(9 * (size_t)nt, &xyz));
  for (int i = 0, t = 0; i < nx; i++)
    for (int j = 0; j < nx; j++) {
      const double x0 = i * 0.01, y0 = j * 0.01, x1 = (i + 1) * 0.01, y1 = (j + 1) * 0.01; /* shared corners: equal */
      const double a[9] = {x0, y0, 0, x1, y0, 0, x1, y1, 0}, b[9] = {x0, y0, 0, x1, y1, 0, x0, y1, 0};
      for (int k = 0; k < 9; k++) xyz[9 * t + k] = a[k];
      t++;
      for (int k = 0; k < 9; k++) xyz[9 * t + k] = b[k];
      t++;
    }
  m = mesh_of(nt, xyz);
  PetscCallAbort(PETSC_COMM_SELF, PetscFree(xyz));
  srand(11);
  for (int i = 0; i < 2000; i++) {
    const double r = 0.002 + 0.05 * rand() / (double)RAND_MAX, x = 0.1 + 0.8 * rand() / (double)RAND_MAX,
                 y = 0.1 + 0.8 * rand() / (double)RAND_MAX, z = r + 0.001 * rand() / (double)RAND_MAX;
    /* every fourth on a grid line or node of the triangles */
    const double xs = i % 4 ? x : 0.01 * floor(x / 0.01), ys = i % 8 ? y : 0.01 * floor(y / 0.01);
    const int    n = contacts(m, xs, ys, z, r, 0.002, f);
    if (!(n == 1 && fabs(f[0].pt.phi - (z - r)) < TOL && near3(f[0].pt.n, 0, 0, 1))) bad++;
  }
  CHECK(bad == 0, "fine floor: %d of 2000 spheres do not get exactly the plane's contact", bad);
  { /* the floor turned 90 degrees about x (its +z normal becomes -y) and moved by (1, 2, 3) */
    const double q[4] = {M_SQRT1_2, M_SQRT1_2, 0, 0}, x[3] = {1, 2, 3}, c[3] = {1.5, 2 - 0.3, 3 + 0.5};
    ContactPoint pt[NARROW_MAX_POINTS];
    const int    n = narrow_mesh_sphere(m, x, q, c, 0.25, 0.1, pt);
    CHECK(n == 1 && near3(pt[0].n, 0, -1, 0) && near3(pt[0].p1, 1.5, 2, 3.5) && near3(pt[0].p2, 1.5, 1.95, 3.5) &&
            fabs(pt[0].phi - 0.05) < TOL,
          "posed floor: %d contacts; expected the plane y = 2's (normal -y, gap 0.05)", n);
  }
  PetscCallAbort(PETSC_COMM_SELF, TriMeshDestroy(&m));
}

static void test_degenerate(void)
{
  const double line[9]   = {0, 0, 0, 1, 1, 1, 2, 2, 2},
               twice[18] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0};
  TriMesh *m             = NULL;
  PetscInt degenerate;
  PetscCallAbort(PETSC_COMM_SELF, TriMeshCreate(1, line, &m, &degenerate));
  CHECK(!m && degenerate == 0, "collinear corners: not refused");
  PetscCallAbort(PETSC_COMM_SELF, TriMeshCreate(2, twice, &m, &degenerate));
  CHECK(!m && degenerate == 1, "a triangle with a repeated corner: refused as %d, expected 1", (int)degenerate);
}

int main(int argc, char **argv)
{
  void (*const tests[])(void) = {test_square,    test_fan, test_ridge_valley, test_cube, test_fine_floor_and_pose,
                                 test_degenerate};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (size_t k = 0; k < sizeof tests / sizeof tests[0]; k++) tests[k]();
  printf("%s: %d failures\n", failures ? "FAIL" : "PASS", failures);
  PetscCall(PetscFinalize());
  return failures != 0;
}
