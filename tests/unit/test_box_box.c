/* Box-box contact (collision/box_box.h): the separating-axis test and the contact manifold against
 * hand-computed geometry. Coordinates are O(1); the kernel and the expected values differ by a few
 * roundings of such numbers (and of sqrt 2, cos 45 deg), so TOL = 1e-12 m has a wide margin while a
 * wrong feature, clip or sign is off by at least 1e-3 m here.
 * 1. Face-face resting: a small box 0.001 m into a large one's top face: axis A's z face (the tie
 *    with B's goes to A), 4 points at B's lower vertices, gap -0.001, normal +z, p1 = p2 - phi n;
 *    swapped (the large box as B): the same points with the normal reversed and p1, p2 exchanged.
 * 2. Equal boxes stacked flush: 4 points at the corners, their feature numbers (the keys' sub) the
 *    same after a lateral shift of 1e-7 m and a tilt of 1e-6 rad (the clip tolerance), and distinct.
 * 3. Rotated 45 deg about z on an equal box: the clipped octagon, 8 points, each on both squares'
 *    boundaries (|x| or |y| = a on the lower face, |x| + |y| = a sqrt 2 on the upper one).
 * 4. Edge-edge crossing: two bars turned 45 deg about x and y, edges crossing at 90 deg 0.002 m
 *    deep: 1 point at the crossing, axis kind EDGE, normal +z.
 * 5. Separated within the envelope: a 0.003 m gap with envelope 0.005 gives 4 points of gap 0.003;
 *    with envelope 0.002 none, and the SAT reports the separating axis with separation 0.003.
 * 6. Deep overlap: a small box whose centre is 0.05 m below the large box's top face: the axis of
 *    least overlap (z, -0.15 m), 4 points at the small box's lower face.
 * Box against a mesh (collision/triangle_contact.h, narrow_mesh_box):
 * 7. A square floor of two triangles (diagonal y = x through the origin), a box 0.001 m into it,
 *    turned 30 deg (its vertices on both triangles) and unturned (two vertices exactly on the
 *    diagonal): 4 points each, one per bottom vertex, gap -0.001, normal +z; the same with the
 *    mesh moved by a pose (turned 90 deg about z, shifted) and the box with it.
 * 8. A pyramid's apex 0.002 m into a box's lower face (its vertices clear of the slopes): one point,
 *    the apex, normal +z, gap -0.002; a floor vertex under the face (flat) gives none. */
// ctest: labels=unit timeout=60
#include "test_check.h"
#include "collision/box_box.h"
#include "collision/triangle_contact.h"
#include "base/vec3.h"
#include <math.h>

#define TOL 1e-12

static const double ID[4] = {1, 0, 0, 0};

static int near3(const double a[3], double x, double y, double z)
{
  return fabs(a[0] - x) < TOL && fabs(a[1] - y) < TOL && fabs(a[2] - z) < TOL;
}

/* every point: n unit, phi = (p2 - p1) . n, p2 - p1 along n; features ascending and distinct */
static void check_points(const char *what, const ContactPoint *pt, const int32_t *f, int np)
{
  for (int k = 0; k < np; k++) {
    double d[3], perp[3];
    v3_sub(d, pt[k].p2, pt[k].p1);
    v3_copy(perp, d);
    v3_axpy(perp, -v3_dot(d, pt[k].n), pt[k].n);
    CHECK(fabs(v3_norm(pt[k].n) - 1) < TOL, "%s point %d: |n| = %.17g", what, k, v3_norm(pt[k].n));
    CHECK(fabs(v3_dot(d, pt[k].n) - pt[k].phi) < TOL && v3_norm(perp) < TOL,
          "%s point %d: p2 - p1 = (%g, %g, %g) is not phi n (phi %g)", what, k, d[0], d[1], d[2], pt[k].phi);
    CHECK(k == 0 || f[k] > f[k - 1], "%s: features not ascending at %d (%d, %d)", what, k, (int)f[k - 1], (int)f[k]);
  }
}

/* the index of the point whose p2 is at (x, y, z), or -1 */
static int find_p2(const ContactPoint *pt, int np, double x, double y, double z)
{
  for (int k = 0; k < np; k++)
    if (near3(pt[k].p2, x, y, z)) return k;
  return -1;
}

int main(void)
{
  ContactPoint pt[BOX_BOX_MAX_POINTS], pt2[BOX_BOX_MAX_POINTS];
  int32_t      f[BOX_BOX_MAX_POINTS], f2[BOX_BOX_MAX_POINTS];
  int          np;

  { /* 1. face-face resting, both ways */
    const double ca[3] = {0, 0, 0}, ha[3] = {0.5, 0.5, 0.5}, cb[3] = {0.1, 0, 0.599}, hb[3] = {0.2, 0.3, 0.1};
    BoxFrame     a = {.c = ca, .he = ha}, b = {.c = cb, .he = hb};
    BoxAxis      ax;
    quat_to_matrix(ID, a.R);
    quat_to_matrix(ID, b.R);
    CHECK(box_box_sat(&a, &b, 0.01, &ax) == 1, "resting: SAT says separated");
    CHECK(ax.kind == BOX_AXIS_FACE_A && ax.i == 2 && near3(ax.n, 0, 0, 1) && fabs(ax.sep + 0.001) < TOL,
          "resting: axis kind %d i %d n (%g, %g, %g) sep %g, want A's z face, sep -0.001", (int)ax.kind, ax.i, ax.n[0],
          ax.n[1], ax.n[2], ax.sep);
    np = narrow_box_box(ca, ID, ha, cb, ID, hb, 0.01, pt, f);
    CHECK(np == 4, "resting: %d points, want 4", np);
    check_points("resting", pt, f, np);
    for (int m = 0; m < 4 && np == 4; m++) {
      const double x = 0.1 + (m & 1 ? 0.2 : -0.2), y = m & 2 ? 0.3 : -0.3;
      const int    k = find_p2(pt, np, x, y, 0.499);
      CHECK(k >= 0, "resting: no point at B's vertex (%g, %g, 0.499)", x, y);
      if (k < 0) continue;
      CHECK(near3(pt[k].n, 0, 0, 1) && fabs(pt[k].phi + 0.001) < TOL && near3(pt[k].p1, x, y, 0.5),
            "resting vertex %d: n (%g, %g, %g) phi %g p1 (%g, %g, %g)", m, pt[k].n[0], pt[k].n[1], pt[k].n[2],
            pt[k].phi, pt[k].p1[0], pt[k].p1[1], pt[k].p1[2]);
    }
    np = narrow_box_box(cb, ID, hb, ca, ID, ha, 0.01, pt2, f2);
    CHECK(np == 4, "resting swapped: %d points, want 4", np);
    check_points("resting swapped", pt2, f2, np);
    for (int k = 0; k < np; k++) {
      const int j = find_p2(pt, 4, pt2[k].p1[0], pt2[k].p1[1], pt2[k].p1[2]);
      CHECK(j >= 0 && near3(pt2[k].n, 0, 0, -1) && near3(pt2[k].p2, pt[j].p1[0], pt[j].p1[1], pt[j].p1[2]) &&
              fabs(pt2[k].phi - pt[j].phi) < TOL,
            "resting swapped point %d: not the unswapped point reversed", k);
    }
  }
  { /* 2. equal boxes flush: keys stable under a tiny shift and tilt */
    const double h[3] = {0.1, 0.1, 0.1}, ca[3] = {0, 0, 0}, cb[3] = {0, 0, 0.1999}, cs[3] = {1e-7, -1e-7, 0.1999};
    const double tilt = 1e-6, qt[4] = {cos(tilt / 2), sin(tilt / 2), 0, 0};
    np = narrow_box_box(ca, ID, h, cb, ID, h, 0.01, pt, f);
    CHECK(np == 4, "flush stack: %d points, want 4 (the corners)", np);
    check_points("flush stack", pt, f, np);
    for (int m = 0; m < 4 && np == 4; m++)
      CHECK(find_p2(pt, np, m & 1 ? 0.1 : -0.1, m & 2 ? 0.1 : -0.1, 0.0999) >= 0, "flush stack: corner %d missing", m);
    np = narrow_box_box(ca, ID, h, cs, qt, h, 0.01, pt2, f2);
    CHECK(np == 4, "flush stack shifted and tilted: %d points, want 4", np);
    for (int k = 0; k < np && k < 4; k++)
      CHECK(f2[k] == f[k], "flush stack shifted: feature %d is %d, was %d (the key would change)", k, (int)f2[k],
            (int)f[k]);
  }
  { /* 3. rotated 45 deg about z on an equal box: the octagon */
    const double h[3] = {0.2, 0.2, 0.1}, ca[3] = {0, 0, 0}, cb[3] = {0, 0, 0.199},
                 q[4] = {cos(M_PI / 8), 0, 0, sin(M_PI / 8)};
    int on_both       = 0;
    np                = narrow_box_box(ca, ID, h, cb, q, h, 0.01, pt, f);
    CHECK(np == 8, "45 deg: %d points, want 8 (the octagon)", np);
    check_points("45 deg", pt, f, np);
    for (int k = 0; k < np; k++) {
      const double x = pt[k].p2[0], y = pt[k].p2[1];
      const int    lower = (fabs(fabs(x) - 0.2) < TOL && fabs(y) <= 0.2 + TOL) ||
                        (fabs(fabs(y) - 0.2) < TOL && fabs(x) <= 0.2 + TOL);
      const int upper = fabs(fabs(x) + fabs(y) - 0.2 * M_SQRT2) < TOL;
      on_both += lower && upper && fabs(pt[k].phi + 0.001) < TOL && fabs(pt[k].p2[2] - 0.099) < TOL;
    }
    CHECK(on_both == 8, "45 deg: %d of %d points on both squares' boundaries with gap -0.001", on_both, np);
  }
  { /* 4. edge-edge crossing */
    const double ha[3] = {0.5, 0.1, 0.1}, hb[3] = {0.1, 0.5, 0.1}, ca[3] = {0, 0, 0},
                 cb[3] = {0, 0, 0.2 * M_SQRT2 - 0.002};
    const double qa[4] = {cos(M_PI / 8), sin(M_PI / 8), 0, 0}, qb[4] = {cos(M_PI / 8), 0, sin(M_PI / 8), 0};
    BoxFrame     a = {.c = ca, .he = ha}, b = {.c = cb, .he = hb};
    BoxAxis      ax;
    quat_to_matrix(qa, a.R);
    quat_to_matrix(qb, b.R);
    CHECK(box_box_sat(&a, &b, 0.01, &ax) == 1 && ax.kind == BOX_AXIS_EDGE && near3(ax.n, 0, 0, 1) &&
            fabs(ax.sep + 0.002) < TOL,
          "crossing edges: axis kind %d n (%g, %g, %g) sep %g, want EDGE, +z, -0.002", (int)ax.kind, ax.n[0], ax.n[1],
          ax.n[2], ax.sep);
    np = narrow_box_box(ca, qa, ha, cb, qb, hb, 0.01, pt, f);
    CHECK(np == 1, "crossing edges: %d points, want 1", np);
    check_points("crossing edges", pt, f, np);
    CHECK(np == 1 && near3(pt[0].n, 0, 0, 1) && fabs(pt[0].phi + 0.002) < TOL && near3(pt[0].p1, 0, 0, 0.1 * M_SQRT2),
          "crossing edges: n (%g, %g, %g) phi %g p1 (%g, %g, %.17g)", pt[0].n[0], pt[0].n[1], pt[0].n[2], pt[0].phi,
          pt[0].p1[0], pt[0].p1[1], pt[0].p1[2]);
  }
  { /* 5. separated within the envelope, and beyond it */
    const double h[3] = {0.1, 0.2, 0.1}, ca[3] = {0, 0, 0}, cb[3] = {0.203, 0.05, 0};
    BoxFrame     a = {.c = ca, .he = h}, b = {.c = cb, .he = h};
    BoxAxis      ax;
    np = narrow_box_box(ca, ID, h, cb, ID, h, 0.005, pt, f);
    CHECK(np == 4, "gap 0.003 in envelope 0.005: %d points, want 4", np);
    check_points("gap in envelope", pt, f, np);
    for (int k = 0; k < np; k++)
      CHECK(fabs(pt[k].phi - 0.003) < TOL && near3(pt[k].n, 1, 0, 0), "gap in envelope point %d: phi %g", k, pt[k].phi);
    np = narrow_box_box(ca, ID, h, cb, ID, h, 0.002, pt, f);
    CHECK(np == 0, "gap 0.003 beyond envelope 0.002: %d points, want 0", np);
    quat_to_matrix(ID, a.R);
    quat_to_matrix(ID, b.R);
    CHECK(box_box_sat(&a, &b, 0.002, &ax) == 0 && fabs(ax.sep - 0.003) < TOL && near3(ax.n, 1, 0, 0),
          "beyond the envelope: SAT separation %g along (%g, %g, %g), want 0.003 along x", ax.sep, ax.n[0], ax.n[1],
          ax.n[2]);
  }
  { /* 6. deep overlap */
    const double ha[3] = {0.5, 0.5, 0.5}, hb[3] = {0.1, 0.1, 0.1}, ca[3] = {0, 0, 0}, cb[3] = {0.05, 0.02, 0.45};
    np = narrow_box_box(ca, ID, ha, cb, ID, hb, 0.01, pt, f);
    CHECK(np == 4, "deep overlap: %d points, want 4", np);
    check_points("deep overlap", pt, f, np);
    for (int k = 0; k < np; k++)
      CHECK(near3(pt[k].n, 0, 0, 1) && fabs(pt[k].phi + 0.15) < TOL && fabs(pt[k].p2[2] - 0.35) < TOL,
            "deep overlap point %d: n (%g, %g, %g) phi %g z %g, want +z, -0.15, 0.35", k, pt[k].n[0], pt[k].n[1],
            pt[k].n[2], pt[k].phi, pt[k].p2[2]);
  }
  { /* 7. a box on a square floor of two triangles */
    const double sq[18] = {-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, -1, 0, 1, 1, 0, -1, 1, 0}, he[3] = {0.2, 0.2, 0.05},
                 bc[3] = {0, 0, 0.049}, q30[4] = {cos(M_PI / 12), 0, 0, sin(M_PI / 12)};
    const double x0[3] = {0, 0, 0}, qm[4] = {M_SQRT1_2, 0, 0, M_SQRT1_2}, xm[3] = {3, -2, 1}, bm[3] = {3, -2, 1.049};
    double       qb[4];
    TriMesh     *m = NULL;
    PetscInt     degenerate;
    if (TriMeshCreate(2, sq, &m, &degenerate) || degenerate >= 0) {
      printf("FAIL: the square floor was not built\n");
      return 1;
    }
    for (int c = 0; c < 3; c++) {
      const double *q = c == 0 ? q30 : ID, *x = c == 2 ? xm : x0, *b = c == 2 ? bm : bc;
      if (c == 2) quat_mul(qb, qm, q30);
      np = narrow_mesh_box(m, x, c == 2 ? qm : ID, b, c == 2 ? qb : q, he, 0.01, pt, f);
      CHECK(np == 4, "box on the floor (case %d): %d points, want 4", c, np);
      check_points("box on the floor", pt, f, np);
      for (int k = 0; k < np; k++)
        CHECK(near3(pt[k].n, 0, 0, 1) && fabs(pt[k].phi + 0.001) < TOL && fabs(pt[k].p2[2] - (b[2] - 0.05)) < TOL,
              "box on the floor (case %d) point %d: n (%g, %g, %g) phi %g", c, k, pt[k].n[0], pt[k].n[1], pt[k].n[2],
              pt[k].phi);
    }
    PetscCall(TriMeshDestroy(&m));
  }
  { /* 8. a pyramid's apex into a box's lower face; a flat floor's vertex under a face */
    const double py[36]  = {-1, -1, 0, 1,  -1, 0, 0.05, 0, 0.1, 1,  -1, 0, 1,  1,  0, 0.05, 0, 0.1,
                            1,  1,  0, -1, 1,  0, 0.05, 0, 0.1, -1, 1,  0, -1, -1, 0, 0.05, 0, 0.1};
    const double fan[36] = {-1, -1, 0, 1,  -1, 0, 0.05, 0, 0, 1,  -1, 0, 1,  1,  0, 0.05, 0, 0,
                            1,  1,  0, -1, 1,  0, 0.05, 0, 0, -1, 1,  0, -1, -1, 0, 0.05, 0, 0};
    const double he[3] = {0.2, 0.2, 0.05}, bc[3] = {0, 0, 0.148}, bf[3] = {0, 0, 0.06};
    TriMesh     *m = NULL;
    PetscInt     degenerate;
    if (TriMeshCreate(4, py, &m, &degenerate) || degenerate >= 0) {
      printf("FAIL: the pyramid was not built\n");
      return 1;
    }
    np = narrow_mesh_box(m, (const double[3]){0, 0, 0}, ID, bc, ID, he, 0.005, pt, f);
    CHECK(np == 1, "apex into the box: %d points, want 1", np);
    CHECK(np == 1 && near3(pt[0].n, 0, 0, 1) && fabs(pt[0].phi + 0.002) < TOL && near3(pt[0].p1, 0.05, 0, 0.1) &&
            near3(pt[0].p2, 0.05, 0, 0.098),
          "apex into the box: n (%g, %g, %g) phi %g p1 (%g, %g, %g)", pt[0].n[0], pt[0].n[1], pt[0].n[2], pt[0].phi,
          pt[0].p1[0], pt[0].p1[1], pt[0].p1[2]);
    PetscCall(TriMeshDestroy(&m));
    if (TriMeshCreate(4, fan, &m, &degenerate) || degenerate >= 0) {
      printf("FAIL: the flat fan was not built\n");
      return 1;
    }
    np = narrow_mesh_box(m, (const double[3]){0, 0, 0}, ID, bf, ID, he, 0.02, pt, f);
    CHECK(np == 4, "box over a flat fan: %d points, want 4 (its vertices; the fan's centre is flat)", np);
    PetscCall(TriMeshDestroy(&m));
  }
  printf("box-box: %s\n", failures ? "FAILED" : "all checks passed");
  return failures != 0;
}
