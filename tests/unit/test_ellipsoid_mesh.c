/* Unit test of an ellipsoid against a mesh wall (collision/ellipsoid_walls.c, narrow_mesh_ellipsoid):
 * 1. A flat floor (z = 0, [-1, 1]^2 as 4 x 4 squares split along their diagonals: 32 triangles,
 *    shared edges and vertices) against random ellipsoids (semi-axes 0.02-0.1 m) in random poses,
 *    gap between -0.01 and 0.02 m, with the deepest point inside a triangle, exactly on a shared edge
 *    (a grid line or a diagonal) and exactly on a shared vertex: exactly one contact, equal to the
 *    plane kernel's (narrow_plane_ellipsoid) within 1e-12 (gap, normal, both points: the same
 *    support point by other roundings, and a search to 1e-15 of an edge on edges and vertices).
 * 2. A closed box mesh (half extents 0.2, 0.15, 0.1 m: faces, convex edges and corners) against
 *    random ellipsoids in random poses clear of it (gap 0 to 0.1 m), placed near a face, an edge
 *    and a corner: the least gap of the kernel's contacts against an independent reference, the least
 *    signed distance (ellipsoid_closest_point) over a dense sampling of the box's surface (a 200 x 200
 *    grid per face, its edges and corners included): no sample nearer than the kernel's gap (1e-12 m),
 *    and the nearest within 1e-4 m of it (the samples lie 1e-3 m apart and the distance is
 *    stationary at the nearest point: a second-order error, a^2 / (2 R) with R >= 0.02 m below 3e-5 m);
 *    each contact's p2 on the ellipsoid's surface (1e-12) and (p2 - p1) . n = phi.
 * Breaking the edges' and vertices' test point (q + ell N instead of q - ell N) misses the box's edges and
 * corners in 2. */
// ctest: labels=unit timeout=120
#include "collision/ellipsoid_walls.h"
#include "collision/ellipsoid_contact.h"
#include "test_check.h"
#include "test_mesh.h"
#include "test_random.h"
#include <math.h>

static const double ID[4] = {1, 0, 0, 0}, ORIGIN[3] = {0, 0, 0};

static double dist3(const double a[3], const double b[3])
{
  double d[3];
  v3_sub(d, a, b);
  return v3_norm(d);
}

static void random_pose(double q[4], double semi[3])
{
  v3_set(q + 1, srand1(), srand1(), srand1());
  q[0] = srand1();
  quat_normalize(q);
  for (int j = 0; j < 3; j++) semi[j] = 0.02 + 0.08 * urand();
}

/* 1. one pose on the floor: kind 0 free, 1 deepest point on the grid line x = 0.5, 2 on a diagonal
 * x = y, 3 on the vertex (0.5, 0.5) */
static void on_floor(const TriMesh *m, int kind)
{
  const double up[3] = {0, 0, 1};
  double       q[4], semi[3], c[3], gap = -0.01 + 0.03 * urand();
  ContactPoint pl, pt[NARROW_MAX_POINTS];
  int          np;

  random_pose(q, semi);
  v3_set(c, 0, 0, 1);
  narrow_plane_ellipsoid(ORIGIN, up, c, q, semi, INFINITY, &pl); /* the deepest point's offset from the centre */
  c[0] = -pl.p2[0] + (kind == 0 ? 0.6 * srand1() : 0.5);
  c[1] = -pl.p2[1] + (kind == 0 ? 0.6 * srand1() : kind == 1 ? 0.6 * srand1() : 0.5);
  if (kind == 2) {
    const double s = 0.6 * srand1();
    c[0]           = -pl.p2[0] + s;
    c[1]           = -pl.p2[1] + s;
  }
  c[2] = 1 - pl.phi + gap;
  narrow_plane_ellipsoid(ORIGIN, up, c, q, semi, 0.1, &pl);
  np = narrow_mesh_ellipsoid(m, ORIGIN, ID, c, q, semi, 0.1, pt);
  CHECK(np == 1, "floor (kind %d): %d contacts, want 1 (deepest point at %.17g, %.17g)", kind, np, pl.p2[0], pl.p2[1]);
  if (np >= 1)
    CHECK(fabs(pt[0].phi - pl.phi) < 1e-12 && dist3(pt[0].n, pl.n) < 1e-12 && dist3(pt[0].p1, pl.p1) < 1e-12 &&
            dist3(pt[0].p2, pl.p2) < 1e-12,
          "floor (kind %d): gap %.17g vs the plane's %.17g; normal %.3e, p1 %.3e, p2 %.3e apart", kind, pt[0].phi,
          pl.phi, dist3(pt[0].n, pl.n), dist3(pt[0].p1, pl.p1), dist3(pt[0].p2, pl.p2));
}

/* 2. one pose near the box mesh m (half extents he) against the sampled surface */
static void near_box(const TriMesh *m, const double he[3], int place)
{
  double       q[4], semi[3], c[3], R[9], best = INFINITY, gap = INFINITY, amax;
  ContactPoint pt[NARROW_MAX_POINTS];
  const int    n = 200;
  int          np;

  do {
    random_pose(q, semi);
    amax = fmax(semi[0], fmax(semi[1], semi[2]));
    for (int k = 0; k < 3; k++) { /* beyond 1 (a face), 2 (an edge) or 3 (a corner) of the box's faces */
      const double sgn = srand1() < 0 ? -1 : 1;
      c[k]             = k < place ? sgn * (he[k] + amax * (0.3 + urand())) : he[k] * 0.8 * srand1();
    }
    quat_to_matrix(q, R);
    best = INFINITY;
    for (int f = 0; f < 6; f++) {
      const int a = f / 2, u = (a + 1) % 3, w = (a + 2) % 3;
      for (int i = 0; i <= n; i++)
        for (int j = 0; j <= n; j++) {
          double x[3], d[3], xb[3], pb[3];
          x[a] = f % 2 ? he[a] : -he[a];
          x[u] = he[u] * (2.0 * i / n - 1);
          x[w] = he[w] * (2.0 * j / n - 1);
          v3_sub(d, x, c);
          mat_tvec(xb, R, d);
          best = fmin(best, ellipsoid_closest_point(semi, xb, pb));
        }
    }
  } while (!(best > 0 && best < 0.1)); /* clear of the box, within the envelope */
  np = narrow_mesh_ellipsoid(m, ORIGIN, ID, c, q, semi, 0.2, pt);
  for (int k = 0; k < np; k++) {
    double d[3], pb[3], on;
    gap = fmin(gap, pt[k].phi);
    v3_sub(d, pt[k].p2, c);
    mat_tvec(pb, R, d);
    on = pb[0] * pb[0] / (semi[0] * semi[0]) + pb[1] * pb[1] / (semi[1] * semi[1]) +
         pb[2] * pb[2] / (semi[2] * semi[2]);
    CHECK(fabs(sqrt(on) - 1) * amax < 1e-12, "box (place %d): p2 off the surface by %.3e", place,
          fabs(sqrt(on) - 1) * amax);
    v3_sub(d, pt[k].p2, pt[k].p1);
    CHECK(fabs(v3_dot(d, pt[k].n) - pt[k].phi) < 1e-12, "box (place %d): (p2 - p1) . n %.17g, gap %.17g", place,
          v3_dot(d, pt[k].n), pt[k].phi);
  }
  CHECK(np >= 1 && best >= gap - 1e-12 && best - gap < 1e-4,
        "box (place %d): %d contacts, least gap %.15g; the samples' least distance %.15g", place, np, gap, best);
}

int main(void)
{
  TriMesh     *floor = NULL, *box = NULL;
  PetscInt     degenerate;
  double       xyz[32 * 9], bxyz[12 * 9];
  const double he[3] = {0.2, 0.15, 0.1}, lo[3] = {-he[0], -he[1], -he[2]};

  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      TestRectangle(-1 + 0.5 * i, -1 + 0.5 * j, -0.5 + 0.5 * i, -0.5 + 0.5 * j, xyz + 18 * (4 * i + j));
  if (TriMeshCreate(32, xyz, &floor, &degenerate) || degenerate >= 0) {
    printf("FAIL: the floor mesh\n");
    return 1;
  }
  TestBoxMesh(lo, he, bxyz);
  if (TriMeshCreate(12, bxyz, &box, &degenerate) || degenerate >= 0) {
    printf("FAIL: the box mesh\n");
    return 1;
  }
  for (int k = 0; k < 400; k++) on_floor(floor, k % 4);
  for (int k = 0; k < 24; k++) near_box(box, he, 1 + k % 3);
  TriMeshDestroy(&floor);
  TriMeshDestroy(&box);
  if (failures) printf("%d check(s) failed\n", failures);
  else printf("ellipsoid - mesh wall: all checks passed\n");
  return failures != 0;
}
