/* Unit test of clumps (src/bodies/clump.c, src/collision/clump_contact.c):
 *   1. A one-member clump is the sphere exactly (volume and moments bit for bit, centre of mass
 *      its offset).
 *   2. Two touching spheres (a dimer along [1, 1, 1], off the origin): volume, centre of mass and
 *      principal moments against the closed form (each sphere 2/5 m r^2, plus m r^2 about a
 *      perpendicular axis through the contact point) within 1%; the principal axis of the small
 *      moment along the dimer; the members' body-frame offsets at +-r along it.
 *   3. Two overlapping spheres (r = 1, centres 1 apart): the volume against the lens formula,
 *      the moments against a 1-D integral over discs along the axis (Simpson, 2 x 20000 intervals,
 *      exact to ~1e-12 for these piecewise polynomials), within 1%.
 *   4. Connectivity: a chain that touches is connected; a member 1e-6 beyond touching is not.
 *   5. Detection: two parallel dimers side by side touch by two member pairs, keys
 *      (ida, idb, sub(0, 0)), (ida, idb, sub(1, 1)), offsets from each body's centre of mass; a
 *      dimer lying on a plane gives two contacts, sub(0, 0, 0) and sub(1, 0, 0); the neighbour
 *      list (CollisionDetectListed) gives the same contacts bit for bit.
 *   6. Fills of clumps (lattice and random): see test_fills. */
// ctest: labels=unit timeout=120
#include "bodies/clump.h"
#include "collision/detect.h"
#include "collision/neighbour_list.h"
#include "collision/clump_contact.h"
#include "base/vec3.h"
#include "test_util.h"
#include <math.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

/* The column integration's error is a few 1e-5 (bodies/clump.h); 1% is the bar and leaves a
 * wide margin, while a wrong parallel-axis term or a lost overlap is tens of percent. */
#define MASS_TOL 0.01
/* Coordinates O(1); detection's values and the expected ones differ by a few roundings. */
#define GEOM_TOL 1e-12

static double rel(double a, double b) { return fabs(a - b) / fabs(b); }

static void sort3(double v[3])
{
  for (int i = 0; i < 3; i++)
    for (int j = i + 1; j < 3; j++)
      if (v[j] < v[i]) {
        const double t = v[i];
        v[i]           = v[j];
        v[j]           = t;
      }
}

static void test_one_member(void)
{
  double off[3] = {0.3, -0.2, 0.7}, rad[1] = {0.25}, size[3] = {0.25, 0.25, 0.25}, I[3];
  Clump  t = {.n = 1, .offset = off, .radius = rad};
  clump_template_setup(&t);
  shape_inertia(SHAPE_SPHERE, size, shape_volume(SHAPE_SPHERE, size), I);
  CHECK(t.volume == shape_volume(SHAPE_SPHERE, size), "one member: volume %.17g, sphere %.17g", t.volume,
        shape_volume(SHAPE_SPHERE, size));
  for (int k = 0; k < 3; k++)
    CHECK(t.moments[k] == I[k], "one member: moment %d %.17g, sphere %.17g", k, t.moments[k], I[k]);
  CHECK(t.com[0] == 0.3 && t.com[1] == -0.2 && t.com[2] == 0.7, "one member: centre of mass (%g, %g, %g)", t.com[0],
        t.com[1], t.com[2]);
  CHECK(off[0] == 0 && off[1] == 0 && off[2] == 0 && t.bounding == 0.25, "one member: offset or bounding radius");
  CHECK(t.member_radius == 0.25 && t.min_radius == 0.25, "one member: radii");
}

static void test_touching_dimer(void)
{
  const double r = 0.1, s = r / sqrt(3.0), c0[3] = {1, 2, 3};
  double       off[6], rad[2] = {r, r}, m = 4.0 / 3.0 * PI * r * r * r, want[3], got[3], axis[3], R[9];
  Clump        t     = {.n = 2, .offset = off, .radius = rad};
  int          small = 0;

  for (int k = 0; k < 3; k++) {
    off[k]     = c0[k] - s;
    off[3 + k] = c0[k] + s;
  }
  clump_template_setup(&t);
  CHECK(rel(t.volume, 2 * m) < MASS_TOL, "touching dimer: volume %g, want %g", t.volume, 2 * m);
  for (int k = 0; k < 3; k++)
    CHECK(fabs(t.com[k] - c0[k]) < MASS_TOL * r, "touching dimer: centre of mass %d at %g, want %g", k, t.com[k],
          c0[k]);
  want[0] = 2 * 0.4 * m * r * r;
  want[1] = want[2] = 2 * (0.4 * m * r * r + m * r * r);
  v3_copy(got, t.moments);
  sort3(got);
  for (int k = 0; k < 3; k++)
    CHECK(rel(got[k], want[k]) < MASS_TOL, "touching dimer: moment %g, want %g (rel %.2e)", got[k], want[k],
          rel(got[k], want[k]));
  printf("touching dimer: moments rel. errors %.2e %.2e %.2e, volume %.2e\n", rel(got[0], want[0]),
         rel(got[1], want[1]), rel(got[2], want[2]), rel(t.volume, 2 * m));
  for (int k = 1; k < 3; k++)
    if (t.moments[k] < t.moments[small]) small = k;
  quat_to_matrix(t.quat, R);
  for (int k = 0; k < 3; k++) axis[k] = R[3 * k + small]; /* body axis `small` in the template frame */
  CHECK(fabs(fabs(v3_dot(axis, (double[3]){1 / sqrt(3.0), 1 / sqrt(3.0), 1 / sqrt(3.0)})) - 1) < 1e-9,
        "touching dimer: the small moment's axis (%g, %g, %g) is not along the dimer", axis[0], axis[1], axis[2]);
  for (int i = 0; i < 2; i++) {
    CHECK(fabs(fabs(off[3 * i + small]) - r) < MASS_TOL * r, "touching dimer: member %d offset %g along the axis", i,
          off[3 * i + small]);
    CHECK(fabs(v3_norm(off + 3 * i) - r) < MASS_TOL * r, "touching dimer: member %d at %g from the centre", i,
          v3_norm(off + 3 * i));
  }
  CHECK(rel(t.bounding, 2 * r) < MASS_TOL, "touching dimer: bounding radius %g", t.bounding);
}

/* Union of two unit spheres at x = -+ d/2 along x: disc radius^2 at x. */
static double rho2(double x, double d)
{
  return fmax(1 - (x - 0.5 * d) * (x - 0.5 * d), 1 - (x + 0.5 * d) * (x + 0.5 * d));
}

static void test_overlapping_dimer(void)
{
  const double d = 1.0, lo = -(1 + 0.5 * d);
  const int    nint   = 20000; /* per half; even */
  double       off[6] = {-0.5 * d, 0, 0, 0.5 * d, 0, 0}, rad[2] = {1, 1}, V = 0, Ia = 0, Ip = 0, got[3];
  Clump        t    = {.n = 2, .offset = off, .radius = rad};
  const double lens = PI * (4 + d) * (2 - d) * (2 - d) / 12, V_exact = 2 * 4.0 / 3.0 * PI - lens;

  for (int half = 0; half < 2; half++) { /* [lo, 0] and [0, -lo]: smooth on each */
    const double a = half ? 0 : lo, h = -lo / nint;
    for (int k = 0; k <= nint; k++) {
      const double x = a + k * h, p2 = rho2(x, d), w = (k == 0 || k == nint ? 1 : (k % 2 ? 4 : 2)) * h / 3;
      V += w * PI * p2;
      Ia += w * 0.5 * PI * p2 * p2;
      Ip += w * PI * p2 * (0.25 * p2 + x * x);
    }
  }
  CHECK(rel(V, V_exact) < 1e-9, "overlapping dimer: the slice integral's volume %.12g, lens formula %.12g", V, V_exact);
  clump_template_setup(&t);
  CHECK(rel(t.volume, V_exact) < MASS_TOL, "overlapping dimer: volume %g, lens formula %g", t.volume, V_exact);
  v3_copy(got, t.moments);
  sort3(got);
  CHECK(rel(got[0], Ia) < MASS_TOL, "overlapping dimer: axial moment %g, want %g", got[0], Ia);
  CHECK(rel(got[1], Ip) < MASS_TOL && rel(got[2], Ip) < MASS_TOL, "overlapping dimer: moments %g %g, want %g", got[1],
        got[2], Ip);
  printf("overlapping dimer: volume rel. error %.2e, moments %.2e %.2e %.2e\n", rel(t.volume, V_exact), rel(got[0], Ia),
         rel(got[1], Ip), rel(got[2], Ip));
}

static void test_connectivity(void)
{
  double chain[9] = {0, 0, 0, 0.2, 0, 0, 0.4, 0, 0}, rad[3] = {0.1, 0.1, 0.1};
  CHECK(clump_disconnected_member(3, chain, rad) == -1, "a touching chain is connected");
  chain[6] = 0.4 + 1e-6;
  CHECK(clump_disconnected_member(3, chain, rad) == 2, "a member beyond touching is not connected");
  chain[3] = 0.35; /* member 1 now touches member 2 only: both apart from member 0 */
  chain[6] = 0.4;
  CHECK(clump_disconnected_member(3, chain, rad) == 1, "two members apart from member 0");
}

static void clump_body(BodyRecord *b, int64_t id, const Clump *t, double x, double y, double z)
{
  memset(b, 0, sizeof(*b));
  b->id[0]   = id;
  b->pos[0]  = x;
  b->pos[1]  = y;
  b->pos[2]  = z;
  b->quat[0] = 1;
  for (int k = 0; k < 4; k++) b->quat[k] = t->quat[k]; /* the template's frame: the dimer along world x */
  b->shape[0]  = SHAPE_CLUMP;
  b->radius[0] = t->bounding;
  b->mass[0]   = 1;
  v3_set(b->inertia, 1, 1, 1);
}

/* ClumpPointFn: *ctx <- the larger of it and the point's overlap. */
static void deepest(void *ctx, const ContactPoint *pt, int32_t sub)
{
  (void)sub;
  *(double *)ctx = fmax(*(double *)ctx, -pt->phi);
}

static PetscErrorCode test_detection(void)
{
  double            off[6] = {-0.1, 0, 0, 0.1, 0, 0}, rad[2] = {0.1, 0.1}, R[9];
  Clump             t     = {.n = 2, .offset = off, .radius = rad};
  const Material    mat   = {.name = "m", .density = 1000, .friction = 0.5};
  Wall              plane = {.type = WALL_PLANE, .point = {0, 0, 0}, .normal = {0, 0, 1}, .quat = {1, 0, 0, 0}};
  BodyStore         s;
  BodyRecord        b;
  Broadphase        bp;
  ContactSet        cs, cs2;
  NeighbourList     nl;
  CollisionSettings set;
  const double      gap = -1e-4; /* overlap of the side-by-side members */

  PetscFunctionBegin;
  clump_template_setup(&t);
  set = (CollisionSettings){.envelope = 1e-3, .materials = &mat, .walls = &plane, .nwalls = 1, .clumps = &t};
  PetscCall(BodyStoreCreate(&s));
  clump_body(&b, 7, &t, 0, 0, 0.5); /* stored first, larger id: B of the pair */
  PetscCall(BodyStoreAppendOwned(&s, &b));
  clump_body(&b, 3, &t, 0, 0.2 + gap, 0.5);
  PetscCall(BodyStoreAppendOwned(&s, &b));
  clump_body(&b, 9, &t, 3, 0, 0.1 - 2e-4); /* lying on the plane, 2e-4 deep */
  PetscCall(BodyStoreAppendOwned(&s, &b));
  PetscCall(BroadphaseCreate(&bp));
  PetscCall(ContactSetCreate(&cs));
  PetscCall(ContactSetCreate(&cs2));
  PetscCall(CollisionDetect(&set, &s, s.n_owned, &bp, &cs));
  quat_to_matrix(t.quat, R);
  CHECK(cs.n == 4, "detection: %" PetscInt_FMT " contacts, want 2 member pairs and 2 on the plane", cs.n);
  if (cs.n == 4) {
    const int32_t wall_sub[2] = {clump_contact_sub(0, 0, 0), clump_contact_sub(1, 0, 0)};
    const int32_t pair_sub[2] = {clump_contact_sub(0, 0, 0), clump_contact_sub(1, 1, 0)};
    for (int k = 0; k < 2; k++) { /* the plane (id -1) comes first in key order */
      const Contact *c = &cs.c[k];
      double         m[3];
      CHECK(cs.key[k].ida == -1 && cs.key[k].idb == 9 && cs.key[k].sub == wall_sub[k], "detection: plane key %d", k);
      mat_vec(m, R, off + 3 * k); /* member k's offset in the world */
      CHECK(fabs(c->phi + 2e-4) < GEOM_TOL && fabs(c->n[2] - 1) < GEOM_TOL, "detection: plane contact %d gap %g", k,
            c->phi);
      CHECK(fabs(c->rb[0] - m[0]) < GEOM_TOL && fabs(c->rb[1] - m[1]) < GEOM_TOL &&
              fabs(c->rb[2] + 0.1 - m[2]) < GEOM_TOL,
            "detection: plane contact %d arm (%g, %g, %g)", k, c->rb[0], c->rb[1], c->rb[2]);
    }
    for (int k = 0; k < 2; k++) {
      const Contact *c = &cs.c[2 + k];
      double         m[3];
      CHECK(cs.key[2 + k].ida == 3 && cs.key[2 + k].idb == 7 && cs.key[2 + k].sub == pair_sub[k],
            "detection: pair key %d (%lld, %lld, %d)", k, (long long)cs.key[2 + k].ida, (long long)cs.key[2 + k].idb,
            (int)cs.key[2 + k].sub);
      mat_vec(m, R, off + 3 * k);
      CHECK(fabs(c->phi - gap) < GEOM_TOL && fabs(c->n[1] + 1) < GEOM_TOL, "detection: pair contact %d gap %g n_y %g",
            k, c->phi, c->n[1]);
      /* A (id 3, at y = 0.2 + gap) touches with its member's -y side; B (id 7) with its +y side */
      CHECK(fabs(c->ra[0] - m[0]) < GEOM_TOL && fabs(c->ra[1] + 0.1 - m[1]) < GEOM_TOL, "detection: pair %d arm A", k);
      CHECK(fabs(c->rb[0] - m[0]) < GEOM_TOL && fabs(c->rb[1] - 0.1 - m[1]) < GEOM_TOL, "detection: pair %d arm B", k);
    }
  }
  PetscCall(NeighbourListCreate(&nl, 0.01));
  PetscCall(CollisionDetectListed(&set, &s, s.n_owned, &bp, &nl, &cs2));
  CHECK(cs2.n == cs.n, "neighbour list: %" PetscInt_FMT " contacts, detection %" PetscInt_FMT, cs2.n, cs.n);
  for (PetscInt k = 0; k < PetscMin(cs.n, cs2.n); k++)
    CHECK(!memcmp(&cs.key[k], &cs2.key[k], sizeof(ContactKey)) && !memcmp(cs.c[k].n, cs2.c[k].n, sizeof(double) * 3) &&
            !memcmp(cs.c[k].rb, cs2.c[k].rb, sizeof(double) * 3) && cs.c[k].phi == cs2.c[k].phi,
          "neighbour list: contact %" PetscInt_FMT " differs", k);
  PetscCall(NeighbourListDestroy(&nl));
  PetscCall(ContactSetDestroy(&cs2));
  PetscCall(ContactSetDestroy(&cs));
  PetscCall(BroadphaseDestroy(&bp));
  PetscCall(BodyStoreDestroy(&s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The fills' clumps: a 2 x 2 x 2 lattice and a random fill of 30, built twice. Every body a clump;
 * the lattice's centres of mass on the lattice points (region min + bounding radius + k spacing,
 * to rounding); orientations drawn (not all the identity, no two the same); no two clumps'
 * members overlapping; the second build the same bit for bit (the same file gives the same bodies). */
static PetscErrorCode test_fills(void)
{
  const char *yaml = "domain: {min: [-1, -1, -1], max: [1, 1, 1]}\n"
                     "time: {step: 0.001, end: 0.01}\n"
                     "materials:\n  - {name: m, density: 2500, friction: 0.5}\n"
                     "clumps:\n  - {name: tri, members: [{offset: [0.04, 0, 0], radius: 0.05}, {offset: [-0.02, "
                     "0.0346, 0], radius: 0.05}, {offset: [-0.02, -0.0346, 0], radius: 0.05}]}\n"
                     "fills:\n"
                     "  - {type: lattice, region: {min: [0, 0, 0], max: [0.5, 0.5, 0.5]}, clump: tri, spacing: 0.2, "
                     "seed: 4, material: m}\n"
                     "  - {type: random, region: {min: [-0.9, -0.9, -0.9], max: [-0.05, -0.05, -0.05]}, clump: tri, "
                     "count: 30, seed: 9, material: m}\n";
  Simulation  sim[2];
  PetscInt    n = 0, overlaps = 0, same = 0, identity = 0;

  PetscFunctionBegin;
  for (int k = 0; k < 2; k++) PetscCall(TestSimulationFromText(yaml, &sim[k]));
  {
    const BodyStore *s = SimulationBodies(sim[0]), *s2 = SimulationBodies(sim[1]);
    const Clump     *t = &SimulationScenario(sim[0])->clumps[0];
    n                  = s->n_owned;
    CHECK(n == 38, "fills: %" PetscInt_FMT " bodies, want 8 + 30", n);
    for (int64_t id = 0; id < n; id++) {
      const PetscInt i = SimulationFindBody(sim[0], id), j = SimulationFindBody(sim[1], id);
      CHECK(i >= 0 && j >= 0, "fills: body %lld missing", (long long)id);
      if (i < 0 || j < 0) continue;
      CHECK(s->shape[i] == SHAPE_CLUMP && s->size[3 * i] == 0, "fills: body %lld is not a clump of template 0",
            (long long)id);
      CHECK(!memcmp(s->pos + 3 * i, s2->pos + 3 * j, 3 * sizeof(double)) &&
              !memcmp(s->quat + 4 * i, s2->quat + 4 * j, 4 * sizeof(double)),
            "fills: body %lld differs between two builds", (long long)id);
      identity += fabs(fabs(s->quat[4 * i]) - 1) < 1e-12;
      if (id < 8) { /* lattice point (ix, iy, iz), x fastest */
        const int idx[3] = {(int)(id % 2), (int)(id / 2 % 2), (int)(id / 4)};
        for (int a = 0; a < 3; a++)
          CHECK(fabs(s->pos[3 * i + a] - (t->bounding + 0.2 * idx[a])) < GEOM_TOL,
                "fills: lattice clump %lld's centre of mass %g along %d, want %g", (long long)id, s->pos[3 * i + a], a,
                t->bounding + 0.2 * idx[a]);
      }
    }
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt j = i + 1; j < n; j++) {
        double depth = 0;
        same += !memcmp(s->quat + 4 * i, s->quat + 4 * j, 4 * sizeof(double));
        collision_clump_pair_points(t, s, i, j, 0, deepest, &depth);
        overlaps += depth > 0;
      }
  }
  CHECK(identity < n && same == 0, "fills: %" PetscInt_FMT " identity orientations, %" PetscInt_FMT " equal pairs",
        identity, same);
  CHECK(overlaps == 0, "fills: %" PetscInt_FMT " pairs of clumps overlap", overlaps);
  for (int k = 0; k < 2; k++) PetscCall(SimulationDestroy(&sim[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  test_one_member();
  test_touching_dimer();
  test_overlapping_dimer();
  test_connectivity();
  PetscCall(test_detection());
  PetscCall(test_fills());
  PetscCall(PetscFinalize());
  if (failures) printf("%d check(s) failed\n", failures);
  else printf("PASS\n");
  return failures != 0;
}
