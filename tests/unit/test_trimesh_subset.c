/* Unit test of a rank's part of a mesh (TriMeshSelectBox, TriMeshCreateSubset in src/collision/trimesh.c): a bumpy
 * floor of 20000 triangles with random heights (faces, edges and vertices all take contacts) and a box [lo, hi]
 * over 9% of it. The triangles whose bounds reach the box grown by the reach of the largest query (the
 * sphere's radius + envelope; the box body's half diagonal + envelope) make the subset, which must hold fewer
 * triangles than the whole. For 4000 random spheres and 2000 random box bodies with centres in [lo, hi], the
 * subset must give the contacts the whole mesh gives: the same count, subs and bits (memcmp: the subset's corners
 * and normals are the whole's and its order is the whole's, so no tolerance applies). Grown by 0, the subset
 * loses the contacts of bodies near the box's faces, which the test reports (-reach_scale 0: 137 queries differ;
 * 0.7: 2), and so does a box body's key for a mesh vertex given by the subset's own vertex index (21 differ). */
// ctest: labels=unit timeout=60
#include "collision/triangle_contact.h"
#include "base/vec3.h"
#include <stdlib.h>
#include <string.h>

#include "test_check.h"

#define NX 100 /* squares per side: 2 NX^2 triangles */
#define H  0.1 /* a square's side: finer than the queries' reach, so a subset without the reach misses some */

static double height(int i, int j)
{
  unsigned h = (unsigned)(i * 7919 + j * 104729) * 2654435761u;
  return 0.3 * H * (double)(h >> 8) / (double)(1u << 24); /* 0 .. 0.3 of a square's side */
}

static double uniform(void) { return rand() / (RAND_MAX + 1.0); }

int main(int argc, char **argv)
{
  const PetscInt nt = 2 * NX * NX;
  const double   r = 0.4, envelope = 0.05, he[3] = {0.3, 0.2, 0.25};
  const double   lo[3] = {2, 2, -1}, hi[3] = {5, 5, 1};
  double        *xyz, reach_scale          = 1, grow, glo[3], ghi[3];
  TriMesh       *whole = NULL, *sub = NULL;
  int32_t       *keep;
  PetscInt       degenerate, n, t = 0;
  int            differ = 0, touching = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-reach_scale", &reach_scale, NULL));
  PetscCall(PetscMalloc1(9 * (size_t)nt, &xyz));
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NX; j++) {
      const double c[4][3]   = {{H * i, H * j, height(i, j)},
                                {H * (i + 1), H * j, height(i + 1, j)},
                                {H * (i + 1), H * (j + 1), height(i + 1, j + 1)},
                                {H * i, H * (j + 1), height(i, j + 1)}};
      const int    tri[2][3] = {{0, 1, 2}, {0, 2, 3}};
      for (int s = 0; s < 2; s++, t++)
        for (int k = 0; k < 3; k++) v3_copy(xyz + 9 * (size_t)t + 3 * k, c[tri[s][k]]);
    }
  PetscCall(TriMeshCreate(nt, xyz, &whole, &degenerate));
  CHECK(whole && degenerate < 0, "the floor is a mesh");
  /* the largest query's reach: the box body's bounding radius + envelope (above the sphere's r + envelope) */
  grow = reach_scale * (sqrt(v3_dot(he, he)) + envelope);
  for (int k = 0; k < 3; k++) {
    glo[k] = lo[k] - grow;
    ghi[k] = hi[k] + grow;
  }
  PetscCall(PetscMalloc1((size_t)nt, &keep));
  TriMeshSelectBox(whole, glo, ghi, keep, &n);
  CHECK(n > 0 && n < nt / 4, "the subset holds %" PetscInt_FMT " of %" PetscInt_FMT " triangles", n, nt);
  PetscCall(TriMeshCreateSubset(whole, n, keep, &sub));
  CHECK(sub->bytes < whole->bytes / 4, "the subset holds %zu bytes of the whole's %zu", sub->bytes, whole->bytes);
  for (PetscInt i = 1; i < n; i++) CHECK(sub->tri_gid[i] > sub->tri_gid[i - 1], "global numbers ascend");
  for (PetscInt v = 1; v < sub->nv; v++) CHECK(sub->vert_gid[v] > sub->vert_gid[v - 1], "vertex numbers ascend");

  srand(7);
  for (int q = 0; q < 4000; q++) {
    const double x[3] = {0, 0, 0}, id[4] = {1, 0, 0, 0};
    double       c[3];
    ContactPoint a[NARROW_MAX_POINTS], b[NARROW_MAX_POINTS];
    int          na, nb;
    for (int k = 0; k < 2; k++) c[k] = lo[k] + (hi[k] - lo[k]) * uniform();
    c[2] = 0.1 + 0.6 * uniform();
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    na = narrow_mesh_sphere(whole, x, id, c, r, envelope, a);
    nb = narrow_mesh_sphere(sub, x, id, c, r, envelope, b);
    differ += na != nb || memcmp(a, b, sizeof(ContactPoint) * (size_t)na) != 0;
    touching += na > 0;
  }
  for (int q = 0; q < 2000; q++) {
    const double x[3] = {0, 0, 0}, id[4] = {1, 0, 0, 0};
    double       c[3], bq[4], norm;
    ContactPoint a[NARROW_MAX_POINTS], b[NARROW_MAX_POINTS];
    int32_t      sa[NARROW_MAX_POINTS], sb[NARROW_MAX_POINTS];
    int          na, nb;
    for (int k = 0; k < 2; k++) c[k] = lo[k] + (hi[k] - lo[k]) * uniform();
    c[2] = 0.1 + 0.6 * uniform();
    for (int k = 0; k < 4; k++) bq[k] = uniform() - 0.5;
    norm = sqrt(bq[0] * bq[0] + bq[1] * bq[1] + bq[2] * bq[2] + bq[3] * bq[3]);
    for (int k = 0; k < 4; k++) bq[k] /= norm;
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    na = narrow_mesh_box(whole, x, id, c, bq, he, envelope, a, sa);
    nb = narrow_mesh_box(sub, x, id, c, bq, he, envelope, b, sb);
    differ += na != nb || memcmp(a, b, sizeof(ContactPoint) * (size_t)na) != 0 ||
              memcmp(sa, sb, sizeof(int32_t) * (size_t)na) != 0;
    touching += na > 0;
  }
  CHECK(touching > 3000, "%d of 6000 queries touch the floor (most should)", touching);
  CHECK(differ == 0, "%d of 6000 queries differ between the subset and the whole mesh", differ);

  PetscCall(PetscFree(keep));
  PetscCall(PetscFree(xyz));
  PetscCall(TriMeshDestroy(&sub));
  PetscCall(TriMeshDestroy(&whole));
  printf("%s: %d failures\n", failures ? "FAIL" : "PASS", failures);
  PetscCall(PetscFinalize());
  return failures != 0;
}
