/* Unit test of the sphere - triangle-mesh contacts by the closest-feature rule over the triangles
 * (tricontact_sphere_triangles in src/collision/triangle_contact.c; the flat-face shortcut that tricontact_sphere
 * tries first has its own test, test_mesh_faces.c) and the mesh's tables (src/collision/trimesh.c), against geometry
 * worked out by hand:
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
 *     moved pose gives the rotated plane's contact;
 *   - the query's records (corners, neighbours across edges, fans round vertices) against the mesh's
 *     lists: a bumpy floor of 288 triangles with random heights and a fin standing on one of its edges
 *     (an edge on three triangles) and the cube, 20000 random spheres each, give the features and gaps
 *     of a brute-force pass over every face, edge and vertex by the rule in triangle_contact.h that
 *     reads only the lists (the same formulas, so the gaps agree to 1e-12 as above).
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
  return tricontact_sphere_triangles(m, c, r, env, 16, f);
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

/* The rule of triangle_contact.h over every feature of m, from the mesh's lists only: the face, edge and vertex
 * contacts of the sphere (c, r) below the envelope, as kind * 2^20 + index into key[] (ascending) with their gaps. */
static int brute_force(const TriMesh *m, const double c[3], double r, double env, int64_t key[64], double gap[64])
{
  int n = 0;
  for (PetscInt t = 0; t < m->nt; t++) {
    const double *a = m->v + 3 * (size_t)m->tri[3 * t], *b = m->v + 3 * (size_t)m->tri[3 * t + 1],
                 *d = m->v + 3 * (size_t)m->tri[3 * t + 2];
    double ab[3], ad[3], nrm[3], w[3], bc[3], h;
    v3_sub(ab, b, a);
    v3_sub(ad, d, a);
    v3_cross(nrm, ab, ad);
    v3_scale(nrm, 1.0 / v3_norm(nrm), nrm);
    v3_sub(w, c, a);
    h = v3_dot(w, nrm);
    tricontact_barycentric(m, t, c, bc);
    if (bc[0] > TRICONTACT_EPS && bc[1] > TRICONTACT_EPS && bc[2] > TRICONTACT_EPS && fabs(h) - r < env) {
      key[n]   = (int64_t)TRI_FEATURE_FACE << 20 | t;
      gap[n++] = fabs(h) - r;
    }
  }
  for (PetscInt e = 0; e < m->ne; e++) {
    const double *a = m->v + 3 * (size_t)m->edge_v[2 * e], *b = m->v + 3 * (size_t)m->edge_v[2 * e + 1];
    const double  s = tricontact_edge_parameter(m, e, c);
    double        q[3], ab[3], dist;
    int           outside = 1;
    if (!(s > TRICONTACT_EPS && s < 1 - TRICONTACT_EPS)) continue;
    v3_sub(ab, b, a);
    v3_copy(q, a);
    v3_axpy(q, s, ab);
    v3_sub(q, c, q);
    dist = v3_norm(q);
    for (int32_t i = m->edge_tri_start[e]; i < m->edge_tri_start[e + 1]; i++) {
      const int32_t t = m->edge_tri[i];
      double        bc[3];
      int           k = 0;
      while (m->tri_edge[3 * t + k] != e) k++;
      tricontact_barycentric(m, t, c, bc);
      outside &= !(bc[(k + 2) % 3] > TRICONTACT_EPS);
    }
    if (outside && dist - r < env) {
      key[n]   = (int64_t)TRI_FEATURE_EDGE << 20 | e;
      gap[n++] = dist - r;
    }
  }
  for (PetscInt v = 0; v < m->nv; v++) {
    double d[3], dist;
    int    beyond = 1;
    for (int32_t i = m->vert_edge_start[v]; i < m->vert_edge_start[v + 1]; i++) {
      const int32_t e = m->vert_edge[i];
      const double  s = tricontact_edge_parameter(m, e, c);
      beyond &= m->edge_v[2 * e] == v ? !(s > TRICONTACT_EPS) : !(s < 1 - TRICONTACT_EPS);
    }
    v3_sub(d, c, m->v + 3 * (size_t)v);
    dist = v3_norm(d);
    if (beyond && dist - r < env) {
      key[n]   = (int64_t)TRI_FEATURE_VERTEX << 20 | v;
      gap[n++] = dist - r;
    }
  }
  return n;
}

/* 20000 random spheres in box lo .. hi (radius up to rmax) on m: tricontact_sphere against brute_force. */
static void compare_with_lists(const char *what, const TriMesh *m, const double lo[3], const double hi[3], double rmax)
{
  int bad = 0, features[3] = {0, 0, 0};
  srand(7);
  for (int i = 0; i < 20000; i++) {
    TriFeatureContact f[64];
    int64_t           key[64];
    double            gap[64], c[3], r = rmax * (0.2 + 0.8 * rand() / (double)RAND_MAX), env = 0.3 * r;
    int               n, nb, same;
    for (int k = 0; k < 3; k++) c[k] = lo[k] + (hi[k] - lo[k]) * rand() / (double)RAND_MAX;
    n    = tricontact_sphere_triangles(m, c, r, env, 64, f);
    nb   = brute_force(m, c, r, env, key, gap);
    same = n == nb; /* both ascending: faces, edges, vertices, each by index */
    for (int k = 0; same && k < n; k++) {
      same = ((int64_t)f[k].kind << 20 | f[k].index) == key[k] && fabs(f[k].pt.phi - gap[k]) < TOL;
      features[f[k].kind]++;
    }
    if (!same && bad++ < 3)
      printf("%s: sphere (%g, %g, %g) r %g: %d contacts; the lists' rule gives %d\n", what, c[0], c[1], c[2], r, n, nb);
  }
  CHECK(bad == 0, "%s: %d of 20000 spheres differ from the rule over the mesh's lists", what, bad);
  CHECK(features[0] > 20 && features[1] > 20 && features[2] > 20,
        "%s: the spheres touch %d faces, %d edges, %d vertices; expected over 20 of each", what, features[0],
        features[1], features[2]);
}

static void test_records_against_lists(void)
{
  const int nx = 12, nt = 2 * nx * nx + 1;
  double    z[13][13], *xyz, cube[12 * 9];
  TriMesh  *m;
  int       fans = 0, many = 0;

  srand(5);
  for (int i = 0; i <= nx; i++)
    for (int j = 0; j <= nx; j++) z[i][j] = 0.03 * rand() / (double)RAND_MAX;
  PetscCallAbort(PETSC_COMM_SELF, PetscMalloc1(9 * (size_t)nt, &xyz));
  for (int i = 0, t = 0; i < nx; i++)
    for (int j = 0; j < nx; j++, t += 2) {
      const double x0 = i * 0.1, y0 = j * 0.1, x1 = (i + 1) * 0.1, y1 = (j + 1) * 0.1;
      const double a[18] = {x0, y0, z[i][j], x1, y0, z[i + 1][j],     x1, y1, z[i + 1][j + 1],
                            x0, y0, z[i][j], x1, y1, z[i + 1][j + 1], x0, y1, z[i][j + 1]};
      for (int k = 0; k < 18; k++) xyz[9 * t + k] = a[k];
    }
  { /* the fin: on the diagonal of square (5, 5), up to 0.1 above its middle */
    const double a[9] = {5 * 0.1, 5 * 0.1, z[5][5],
                         6 * 0.1, 6 * 0.1, z[6][6],
                         0.55,    0.55,    0.1 + 0.5 * (z[5][5] + z[6][6])};
    for (int k = 0; k < 9; k++) xyz[9 * (nt - 1) + k] = a[k];
  }
  m = mesh_of(nt, xyz);
  PetscCallAbort(PETSC_COMM_SELF, PetscFree(xyz));
  for (PetscInt i = 0; i < m->nt; i++) {
    for (int k = 0; k < 3; k++) fans += (m->rec[i].fan >> k) & 1;
    for (int k = 0; k < 3; k++) many += m->rec[i].nbr[k] == TRIMESH_NBR_MANY;
  }
  CHECK(fans > 50 && many == 3,
        "bumpy floor: %d vertices walked as fans (expected > 50), %d records on the fin's edge "
        "(expected 3)",
        fans, many);
  compare_with_lists("bumpy floor", m, (double[]){-0.05, -0.05, -0.05}, (double[]){1.25, 1.25, 0.15}, 0.06);
  PetscCallAbort(PETSC_COMM_SELF, TriMeshDestroy(&m));
  TestBoxMesh((double[]){0, 0, 0}, (double[]){1, 1, 1}, cube);
  m = mesh_of(12, cube);
  compare_with_lists("cube", m, (double[]){-0.3, -0.3, -0.3}, (double[]){1.3, 1.3, 1.3}, 0.3);
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
  void (*const tests[])(void) =
    {test_square,    test_fan, test_ridge_valley, test_cube, test_fine_floor_and_pose, test_records_against_lists,
     test_degenerate};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (size_t k = 0; k < sizeof tests / sizeof tests[0]; k++) tests[k]();
  printf("%s: %d failures\n", failures ? "FAIL" : "PASS", failures);
  PetscCall(PetscFinalize());
  return failures != 0;
}
