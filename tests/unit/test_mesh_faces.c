/* Unit test of a mesh's flat faces and the sphere query's shortcut through them (src/collision/mesh_faces.c,
 * tricontact_flat_face in src/collision/triangle_contact.c).
 *  1. Faces: a flat grid of 30 x 30 squares (two triangles each) is one face of 4 lines, axis-aligned and turned by a
 *     rotation (its corners then off the plane by rounding); a box mesh is 6 faces of 2 triangles and 4 lines; a flat
 *     L of three squares, a bumpy grid and a triangle folded onto its twin (the same corners) are no face (not convex,
 *     not flat, folded).
 *  2. The shortcut against the triangles' closest-feature rule (tricontact_sphere_triangles, the reference): 20000
 *     random spheres about each of the flat grid (both poses), a box whose sides are grids and the grid with a small
 *     triangle floating over it (another triangle within reach). Wherever the shortcut decides it must give what the
 *     reference gives: no contact, or one face contact with the same normal, points and gap within 1e-12 of the mesh's
 *     size (both compute the same plane's height, from two corners of it: a few roundings of the coordinates). It
 *     must decide at least 2000 of each scene's queries and find a contact in some (else it would be dead code).
 *  3. A subset (a rank's part, TriMeshCreateSubset) of the turned grid over its rim, cut from the whole and from the
 *     whole stripped, inherits its face and cells: for 4000 spheres within the part the query gives the whole's
 *     contacts bit for bit, the shortcut deciding exactly where it decides in the whole. (A part that built its own
 *     cells on its own grid decides the same here; on restart/ellipsoid_pour_bitwise's mesh floor it did not, and a
 *     2-rank restart differed from the 1-rank run by 1e-18 m: that test guards it.)
 * Mutations caught (by hand; the first two are in tests/mutate.sh): the shortcut's boundary-line test dropped
 * (spheres beyond the grid's rim get a face contact), its rings check dropped (spheres near the box's edges lose the
 * adjacent side's contact), the convexity test dropped (the L becomes a face), the fold test dropped (the twin
 * triangles become a face of no lines). */
// ctest: labels=unit timeout=60
#include "collision/mesh_faces.h"
#include "collision/triangle_contact.h"
#include "base/vec3.h"
#include <stdlib.h>
#include <string.h>

#include "test_mesh.h"

#define N 30 /* squares per side of the grid */

static double uniform(void) { return rand() / (RAND_MAX + 1.0); }

/* A height in [0, 1) for grid corner (i, j): a nonlinear hash (an affine one puts many corner quadruples in one
 * plane). */
static double corner_height(int i, int j)
{
  unsigned x = (unsigned)i * 73856093u ^ (unsigned)j * 19349663u;
  x ^= x >> 13;
  x *= 0x5bd1e995u;
  x ^= x >> 15;
  return (double)(x >> 8) / (double)(1u << 24);
}

/* The grid [0, N]^2 at z = 0 (2 N^2 triangles, 9 coordinates each) into xyz, each corner turned by R (NULL: none);
 * bump: each corner's height a random value in [0, bump). */
static void grid_xyz(const double *R, double bump, double *xyz)
{
  int t = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      const double c[4][2]   = {{i, j}, {i + 1, j}, {i + 1, j + 1}, {i, j + 1}};
      const int    tri[2][3] = {{0, 1, 2}, {0, 2, 3}};
      for (int h = 0; h < 2; h++, t++)
        for (int k = 0; k < 3; k++) {
          const int ci = tri[h][k], ix = (int)c[ci][0], iy = (int)c[ci][1];
          double    p[3] = {c[ci][0], c[ci][1], bump * corner_height(ix, iy)};
          if (R) mat_vec(xyz + 9 * t + 3 * k, R, p);
          else v3_copy(xyz + 9 * t + 3 * k, p);
        }
    }
}

/* The box [0, M]^3 with each side a grid of M x M squares (12 M^2 triangles) into xyz. */
#define M 10
static void box_grid_xyz(double *xyz)
{
  int t = 0;
  for (int axis = 0; axis < 3; axis++)
    for (int side = 0; side < 2; side++) {
      const int u = (axis + 1) % 3, w = (axis + 2) % 3;
      for (int i = 0; i < M; i++)
        for (int j = 0; j < M; j++) {
          const double c[4][2]   = {{i, j}, {i + 1, j}, {i + 1, j + 1}, {i, j + 1}};
          const int    tri[2][3] = {{0, 1, 2}, {0, 2, 3}};
          for (int h = 0; h < 2; h++, t++)
            for (int k = 0; k < 3; k++) {
              double *p = xyz + 9 * t + 3 * k;
              p[axis]   = side ? M : 0;
              p[u]      = c[tri[h][k]][0];
              p[w]      = c[tri[h][k]][1];
            }
        }
    }
}

static PetscErrorCode mesh_of(PetscInt nt, const double *xyz, TriMesh **m)
{
  PetscInt degenerate;
  PetscFunctionBegin;
  PetscCall(TriMeshCreate(nt, xyz, m, &degenerate));
  PetscCheck(*m && degenerate < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a test mesh has a degenerate triangle");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether contacts a and b agree within tol (kind and index aside: the shortcut names the face's lowest triangle). */
static int same_contact(const TriFeatureContact *a, const TriFeatureContact *b, double tol)
{
  double d = fabs(a->pt.phi - b->pt.phi);
  for (int k = 0; k < 3; k++) {
    d = PetscMax(d, fabs(a->pt.n[k] - b->pt.n[k]));
    d = PetscMax(d, fabs(a->pt.p1[k] - b->pt.p1[k]));
    d = PetscMax(d, fabs(a->pt.p2[k] - b->pt.p2[k]));
  }
  return d <= tol;
}

/* Part 2 on mesh m: random spheres about its bounding box grown by 3; counts into *decided and *touching; a failure
 * into *bad. */
static void compare_queries(const char *what, const TriMesh *m, int *decided, int *touching, int *bad)
{
  const double size = 2 * m->radius, tol = 1e-12 * size, envelope = 0.1;
  *decided = *touching = 0;
  for (int q = 0; q < 20000; q++) {
    TriFeatureContact fast[1], ref[NARROW_VERTEX_POINTS];
    double            c[3];
    const double      r = 0.1 + 1.1 * uniform();
    for (int k = 0; k < 3; k++) c[k] = m->lo[k] - 3 + (m->hi[k] - m->lo[k] + 6) * uniform();
    const int nf = tricontact_flat_face(m, c, r, envelope, fast);
    const int nr = tricontact_sphere_triangles(m, c, r, envelope, NARROW_VERTEX_POINTS, ref);
    if (nf < 0) continue;
    (*decided)++;
    *touching += nf;
    if ((nf != nr || (nf == 1 && !same_contact(&fast[0], &ref[0], tol))) && (*bad)++ < 5)
      printf("FAIL %s: centre %g %g %g r %g: shortcut %d contact(s) (gap %g), triangles %d (gap %g)\n", what, c[0],
             c[1], c[2], r, nf, nf ? fast[0].pt.phi : 0, nr, nr ? ref[0].pt.phi : 0);
  }
  printf("%s: %d of 20000 queries decided by the shortcut, %d of them touching\n", what, *decided, *touching);
}

int main(int argc, char **argv)
{
  const PetscInt nt = 2 * N * N;
  double        *xyz, R[9], q[4] = {0.8, 0.3, -0.4, 0.2};
  TriMesh       *m;
  int            bad = 0, decided, touching;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  srand(7);
  quat_normalize(q);
  quat_to_matrix(q, R);
  PetscCall(PetscMalloc1(9 * (size_t)PetscMax(nt + 1, 12 * M * M), &xyz));

  /* 1. faces */
  for (int turned = 0; turned < 2; turned++) {
    grid_xyz(turned ? R : NULL, 0, xyz);
    PetscCall(mesh_of(nt, xyz, &m));
    int one = m->nf == 1 && m->face[0].nline == 4;
    for (PetscInt t = 0; t < nt; t++) one &= m->tri_face[t] == 0;
    CHECK(one, "the %s flat grid: %" PetscInt_FMT " faces (want 1 of 4 lines, holding every triangle)",
          turned ? "turned" : "axis-aligned", m->nf);
    PetscCall(TriMeshDestroy(&m));
  }
  {
    const double lo[3] = {-1, -2, 0.5}, hi[3] = {2, 1, 3};
    int          six = 1;
    TestBoxMesh(lo, hi, xyz);
    PetscCall(mesh_of(12, xyz, &m));
    six = m->nf == 6;
    for (PetscInt f = 0; six && f < m->nf; f++) six &= m->face[f].nline == 4;
    for (PetscInt t = 0; t < 12; t++) six &= m->tri_face[t] == (int32_t)(t / 2);
    CHECK(six, "the box mesh: %" PetscInt_FMT " faces (want 6 of 2 triangles and 4 lines)", m->nf);
    PetscCall(TriMeshDestroy(&m));
  }
  {
    const double l[3][4] = {{0, 0, 1, 1}, {1, 0, 2, 1}, {0, 1, 1, 2}}; /* three squares, an L */
    for (int s = 0; s < 3; s++) {
      const double c[4][3]   = {{l[s][0], l[s][1], 0},
                                {l[s][2], l[s][1], 0},
                                {l[s][2], l[s][3], 0},
                                {l[s][0], l[s][3], 0}};
      const int    tri[2][3] = {{0, 1, 2}, {0, 2, 3}};
      for (int h = 0; h < 2; h++)
        for (int k = 0; k < 3; k++) v3_copy(xyz + 9 * (2 * s + h) + 3 * k, c[tri[h][k]]);
    }
    PetscCall(mesh_of(6, xyz, &m));
    CHECK(m->nf == 0, "the flat L: %" PetscInt_FMT " faces (want none: not convex)", m->nf);
    PetscCall(TriMeshDestroy(&m));
  }
  grid_xyz(NULL, 0.3, xyz);
  PetscCall(mesh_of(nt, xyz, &m));
  CHECK(m->nf == 0, "the bumpy grid: %" PetscInt_FMT " faces (want none)", m->nf);
  PetscCall(TriMeshDestroy(&m));
  {
    const double folded[18] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0}; /* one triangle twice */
    PetscCall(mesh_of(2, folded, &m));
    CHECK(m->nf == 0, "a triangle folded onto its twin: %" PetscInt_FMT " faces (want none)", m->nf);
    PetscCall(TriMeshDestroy(&m));
  }

  /* 2. the shortcut against the triangles */
  for (int scene = 0; scene < 4; scene++) {
    const char *name[4] = {"flat grid", "turned grid", "box of grids", "grid with a floating triangle"};
    PetscInt    n       = nt;
    if (scene == 2) {
      box_grid_xyz(xyz);
      n = 12 * M * M;
    } else grid_xyz(scene == 1 ? R : NULL, 0, xyz);
    if (scene == 3) { /* 0.4 over the grid, inside it: no edge of the grid's face near */
      const double tri[9] = {11, 11, 0.4, 12, 11, 0.4, 11, 12, 0.4};
      PetscCall(PetscArraycpy(xyz + 9 * nt, tri, 9));
      n = nt + 1;
    }
    PetscCall(mesh_of(n, xyz, &m));
    compare_queries(name[scene], m, &decided, &touching, &bad);
    CHECK(decided >= 2000 && touching > 0, "%s: the shortcut decided %d queries, %d touching (want >= 2000, > 0)",
          name[scene], decided, touching);
    PetscCall(TriMeshDestroy(&m));
  }

  /* 3. a part inherits its faces: the whole's bits (the turned grid: its triangles' normals differ in their last
     bits, so a part that made its own face from another lowest triangle would differ) */
  for (int stripped = 0; stripped < 2; stripped++) {
    const double lo0[3] = {22, 6, -1}, hi0[3] = {31, 14, 1}, reach = 1.2 + 0.1; /* over the grid's rim at x = 30 */
    double       glo[3], ghi[3];
    TriMesh     *whole, *sub, *query;
    int32_t     *keep;
    PetscInt     k;
    int          differ = 0, touched = 0;
    grid_xyz(R, 0, xyz);
    PetscCall(mesh_of(nt, xyz, &whole));
    PetscCall(mesh_of(nt, xyz, &query)); /* the whole, unstripped, to query */
    for (int a = 0; a < 3; a++) glo[a] = ghi[a] = 0;
    for (int corner = 0; corner < 8; corner++) { /* the turned region's box, grown by the reach */
      double p0[3], p[3];
      for (int a = 0; a < 3; a++) p0[a] = (corner >> a) & 1 ? hi0[a] : lo0[a];
      mat_vec(p, R, p0);
      for (int a = 0; a < 3; a++) {
        glo[a] = corner ? PetscMin(glo[a], p[a] - reach) : p[a] - reach;
        ghi[a] = corner ? PetscMax(ghi[a], p[a] + reach) : p[a] + reach;
      }
    }
    PetscCall(PetscMalloc1(nt, &keep));
    if (stripped) PetscCall(TriMeshStrip(whole));
    TriMeshSelectBox(whole, glo, ghi, keep, &k);
    PetscCall(TriMeshCreateSubset(whole, k, keep, &sub));
    CHECK(sub->nf == 1 && k > 0 && k < nt, "a part of %" PetscInt_FMT " triangles has %" PetscInt_FMT " faces (want 1)",
          k, sub->nf);
    for (int i = 0; i < 4000; i++) {
      TriFeatureContact a[NARROW_VERTEX_POINTS], b[NARROW_VERTEX_POINTS];
      double            c0[3], c[3];
      const double      r = 0.1 + 1.1 * uniform();
      int               na, nb;
      for (int j = 0; j < 3; j++) c0[j] = lo0[j] + (hi0[j] - lo0[j]) * uniform();
      mat_vec(c, R, c0);
      na = tricontact_sphere(query, c, r, 0.1, NARROW_VERTEX_POINTS, a);
      nb = tricontact_sphere(sub, c, r, 0.1, NARROW_VERTEX_POINTS, b);
      touched += na > 0;
      differ += na != nb || (na > 0 && memcmp(&a[0].pt, &b[0].pt, sizeof(a[0].pt)));
      /* and the same way: the shortcut decides in the part where it decides in the whole (the whole's cells) */
      differ += tricontact_flat_face(query, c, r, 0.1, a) != tricontact_flat_face(sub, c, r, 0.1, b);
    }
    CHECK(differ == 0 && touched > 0,
          "a part cut from the %s whole: %d of 4000 queries differ from the whole's (%d "
          "touching)",
          stripped ? "stripped" : "unstripped", differ, touched);
    PetscCall(PetscFree(keep));
    PetscCall(TriMeshDestroy(&sub));
    PetscCall(TriMeshDestroy(&whole));
    PetscCall(TriMeshDestroy(&query));
  }
  CHECK(bad == 0, "%d queries where the shortcut disagrees with the triangles", bad);
  PetscCall(PetscFree(xyz));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
