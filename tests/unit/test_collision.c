/* Unit test of collision detection (src/collision/detect.c): broadphase + narrowphase over bodies and
 * walls into a key-sorted contact set.
 *   1. A hand-built scene whose every contact is known analytically: sphere-sphere with A (the
 *      smaller id) stored second; sphere-box with the sphere as A (normal and points turned
 *      around) and with the box as A; a box resting on a plane (4 points, sub 0-3, ra = 0 on the
 *      plane); a sphere on a plane; a sphere on a box wall (ra from the wall's centre); two equal
 *      boxes 0.1 into each other face to face (4 points, B's face vertices, subs the box-box
 *      feature numbers 360-363: collision/box_box.h); two overlapping ghosts touching the plane (no contact:
 *      another rank owns them); an owned-ghost overlap (kept). Checked per contact: a, b, key,
 *      sub, frame, ra, rb, phi, pair parameters and dof, zero stepper fields and impulses, order.
 *   2. 3000 random spheres (shuffled ids, 500 ghosts) with two planes and a box wall, compared
 *      with a brute-force contact list computed here (all pairs, direct geometry); once with ids
 *      that fit the packed pair key, once with ids spread over 2^52 (the comparison-sort path).
 *   3. Timing (printed, not asserted): BroadphaseFindPairs and CollisionDetect for ~2e5 spheres
 *      in a loose random packing: storage and ids in spatial order; ids shuffled; storage shuffled. */
// ctest: labels=unit timeout=120
#include "collision/detect.h"
#include "ccp/pairs.h"
#include "base/vec3.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Coordinates are O(1)-O(10); the code and the expected values differ by a few roundings of such
 * numbers (~1e-15), so 1e-12 has a wide margin while any geometric mistake is O(0.01). */
#define TOL    1e-12
#define STEP_H 0.005 /* the step of the solve's terms: cohesion and yield impulses are the pair's forces times it */

#include "test_check.h"

#include "test_random.h"

static void body(BodyRecord *b, int64_t id, ShapeKind shape, double x, double y, double z, double s0, double s1,
                 double s2, int material)
{
  *b             = (BodyRecord){0};
  b->id[0]       = id;
  b->pos[0]      = x;
  b->pos[1]      = y;
  b->pos[2]      = z;
  b->quat[0]     = 1;
  b->shape[0]    = shape;
  b->size[0]     = s0;
  b->size[1]     = shape == SHAPE_SPHERE ? s0 : s1;
  b->size[2]     = shape == SHAPE_SPHERE ? s0 : s2;
  b->radius[0]   = shape_bounding_radius(shape, b->size);
  b->mass[0]     = 1;
  b->material[0] = material;
}

static const Material materials[2] = {
  {.name              = "steel",
   .density           = 7800,
   .friction          = 0.5,
   .rolling_friction  = 0.0,
   .spinning_friction = 0.0,
   .compliance        = 1e-7,
   .cohesion          = 2.0,
   .damping           = 0.001,
   .yield_force       = 0},
  {.name              = "rubber",
   .density           = 1100,
   .friction          = 0.3,
   .rolling_friction  = 0.01,
   .spinning_friction = 0.02,
   .compliance        = 2e-7,
   .cohesion          = 5.0,
   .damping           = 0.004,
   .yield_force       = 0},
};

typedef struct {
  int64_t ida, idb;
  int     sub, a, b, dof;
  double  n[3], ra[3], rb[3], phi, mu, rho, sigma, compliance, cohesion, damping;
} Expected;

/* cp: the pair lookup of the solve's terms (ccp/pairs.h) for these contacts' bodies and walls */
static void check_contact(const ContactSet *cs, const ContactPairs *cp, PetscInt i, const Expected *e)
{
  const Contact    *c = &cs->c[i];
  const ContactKey *k = &cs->key[i];
  double            nxu[3], u[3], w[3];
  CHECK(k->ida == e->ida && k->idb == e->idb && k->sub == e->sub,
        "contact %d: key (%lld %lld %d), expected (%lld %lld %d)", (int)i, (long long)k->ida, (long long)k->idb,
        (int)k->sub, (long long)e->ida, (long long)e->idb, e->sub);
  CHECK(c->a == e->a && c->b == e->b && contact_dof(c) == e->dof, "contact %d: a %d b %d dof %d, expected %d %d %d",
        (int)i, c->a, c->b, contact_dof(c), e->a, e->b, e->dof);
  for (int d = 0; d < 3; d++) {
    CHECK(fabs(c->n[d] - e->n[d]) < TOL, "contact %d: n[%d] = %.17g, expected %.17g", (int)i, d, c->n[d], e->n[d]);
    CHECK(fabs(c->ra[d] - e->ra[d]) < TOL, "contact %d: ra[%d] = %.17g, expected %.17g", (int)i, d, c->ra[d], e->ra[d]);
    CHECK(fabs(c->rb[d] - e->rb[d]) < TOL, "contact %d: rb[%d] = %.17g, expected %.17g", (int)i, d, c->rb[d], e->rb[d]);
  }
  CHECK(fabs(c->phi - e->phi) < TOL, "contact %d: phi = %.17g, expected %.17g", (int)i, c->phi, e->phi);
  /* frame: u, w unit, orthogonal to n, (n, u, w) right-handed */
  contact_frame(c, u, w);
  v3_cross(nxu, c->n, u);
  CHECK(fabs(v3_norm(u) - 1) < TOL && fabs(v3_dot(u, c->n)) < TOL &&
          fabs(nxu[0] - w[0]) + fabs(nxu[1] - w[1]) + fabs(nxu[2] - w[2]) < TOL,
        "contact %d: frame not right-handed orthonormal", (int)i);
  /* pair parameters are plain copies of the minimum / sum (the impulses: times the step): exact;
   * the friction ones in the record, the rest from the solve's lookup by the bodies' materials */
  const PairParams *pp = contact_pair(cp, c);
  CCPContactTerms   t;
  contact_pairs_terms((void *)cp, c, &t);
  CHECK(c->mu == e->mu && c->rho == e->rho && c->sigma == e->sigma && t.cohesion_impulse == e->cohesion * STEP_H &&
          pp->compliance == e->compliance && t.yield_impulse == pp->yield_force * STEP_H,
        "contact %d: pair parameters mu %g rho %g sigma %g cohesion impulse %g compliance %g yield impulse %g", (int)i,
        c->mu, c->rho, c->sigma, t.cohesion_impulse, pp->compliance, t.yield_impulse);
  CHECK(fabs(pp->damping - e->damping) <= 1e-15 * e->damping,
        "contact %d: pair damping %.17g, expected the compliance-weighted mean %.17g", (int)i, pp->damping, e->damping);
  CHECK(c->plastic == 0 && !c->box, "contact %d: plastic or box not zero", (int)i);
  for (int d = 0; d < CONTACT_DOF_MAX; d++)
    CHECK(contact_gamma(cs, i)[d] == 0, "contact %d: impulse %d = %g", (int)i, d, contact_gamma(cs, i)[d]);
}

static void pair_params(int ma, int mb, Expected *e)
{
  const Material *a = &materials[ma], *b = &materials[mb];
  e->mu         = a->friction < b->friction ? a->friction : b->friction;
  e->rho        = a->rolling_friction < b->rolling_friction ? a->rolling_friction : b->rolling_friction;
  e->sigma      = a->spinning_friction < b->spinning_friction ? a->spinning_friction : b->spinning_friction;
  e->cohesion   = a->cohesion < b->cohesion ? a->cohesion : b->cohesion;
  e->compliance = a->compliance + b->compliance;
  e->damping    = (a->compliance * a->damping + b->compliance * b->damping) /
               (a->compliance + b->compliance); /* compliance-weighted */
  e->dof = (e->rho == 0 && e->sigma == 0) ? 3 : 6;
}

static void set3(double r[3], double x, double y, double z)
{
  r[0] = x;
  r[1] = y;
  r[2] = z;
}

static PetscErrorCode test_hand_built(void)
{
  BodyStore         s;
  Broadphase        bp;
  ContactSet        cs;
  BodyRecord        b;
  Wall              walls[2] = {0};
  CollisionSettings set      = {0.05, materials, walls, 2, NULL};
  const PetscInt    nb       = 14;

  PetscFunctionBegin;
  walls[0].type = WALL_PLANE;
  set3(walls[0].normal, 0, 0, 1);
  walls[0].material = 0;
  walls[1].type     = WALL_BOX;
  set3(walls[1].center, 10, 0, 0.5);
  set3(walls[1].half_extents, 0.5, 0.5, 0.5);
  walls[1].quat[0]  = 1;
  walls[1].material = 1;
  PetscCall(BodyStoreCreate(&s));
  PetscCall(BroadphaseCreate(&bp));
  PetscCall(ContactSetCreate(&cs));
  body(&b, 10, SHAPE_SPHERE, 0, 0, 5, 0.5, 0, 0, 1); /* 0 */
  PetscCall(BodyStoreAppendOwned(&s, &b));
  body(&b, 5, SHAPE_SPHERE, 0.74 * 0.6, 0.74 * 0.8, 5, 0.25, 0, 0, 1); /* 1: overlaps 0 by 0.01 */
  PetscCall(BodyStoreAppendOwned(&s, &b));
  body(&b, 7, SHAPE_BOX, 5, 0, 5, 0.3, 0.2, 0.1, 0); /* 2 */
  PetscCall(BodyStoreAppendOwned(&s, &b));
  body(&b, 3, SHAPE_SPHERE, 5.1, 0.05, 5.32, 0.2, 0, 0, 0); /* 3: 0.02 above 2's +z face */
  PetscCall(BodyStoreAppendOwned(&s, &b));
  body(&b, 2, SHAPE_BOX, -5, 0, 5, 0.3, 0.2, 0.1, 0); /* 4 */
  PetscCall(BodyStoreAppendOwned(&s, &b));
  body(&b, 9, SHAPE_SPHERE, -4.51, 0.1, 5.05, 0.2, 0, 0, 1); /* 5: 0.01 into 4's +x face */
  PetscCall(BodyStoreAppendOwned(&s, &b));
  body(&b, 20, SHAPE_BOX, 0, 5, 5, 0.2, 0.2, 0.2, 0); /* 6 */
  PetscCall(BodyStoreAppendOwned(&s, &b));
  body(&b, 21, SHAPE_BOX, 0, 5.3, 5, 0.2, 0.2, 0.2, 0); /* 7: 0.1 into 6's +y face */
  PetscCall(BodyStoreAppendOwned(&s, &b));
  body(&b, 30, SHAPE_BOX, 3, 3, 0.099, 0.3, 0.2, 0.1, 1); /* 8: resting 0.001 into the plane */
  PetscCall(BodyStoreAppendOwned(&s, &b));
  body(&b, 1, SHAPE_SPHERE, -3, -3, 0.53, 0.5, 0, 0, 0); /* 9: 0.03 above the plane */
  PetscCall(BodyStoreAppendOwned(&s, &b));
  body(&b, 40, SHAPE_SPHERE, 10, 0, 1.31, 0.3, 0, 0, 1); /* 10: 0.01 above the box wall */
  PetscCall(BodyStoreAppendOwned(&s, &b));
  body(&b, 50, SHAPE_SPHERE, 0, -5, 0.3, 0.3, 0, 0, 0); /* 11 ghost, on the plane */
  PetscCall(BodyStoreAppendOwned(&s, &b));
  body(&b, 51, SHAPE_SPHERE, 0, -5.5, 0.3, 0.3, 0, 0, 0); /* 12 ghost, overlaps 11 */
  PetscCall(BodyStoreAppendOwned(&s, &b));
  body(&b, 60, SHAPE_SPHERE, -3, -3 + 0.79, 0.53, 0.3, 0, 0, 0); /* 13 ghost, 0.01 into 9 */
  PetscCall(BodyStoreAppendOwned(&s, &b));
  s.n_owned = 11;
  s.n_ghost = 3;

  PetscCall(CollisionDetect(&set, &s, nb, &bp, &cs));

  Expected e[14];
  int      ne = 0;
  /* wall 1 (id -2) - body 10: from the box wall's top face */
  e[ne] = (Expected){.ida = -2, .idb = 40, .sub = 0, .a = nb + 1, .b = 10, .phi = 0.01};
  set3(e[ne].n, 0, 0, 1);
  set3(e[ne].ra, 0, 0, 0.5);
  set3(e[ne].rb, 0, 0, -0.3);
  pair_params(1, 1, &e[ne]);
  ne++;
  /* wall 0 (id -1) - body 9 (id 1): plane reference is the contact point itself */
  e[ne] = (Expected){.ida = -1, .idb = 1, .sub = 0, .a = nb, .b = 9, .phi = 0.03};
  set3(e[ne].n, 0, 0, 1);
  set3(e[ne].ra, 0, 0, 0);
  set3(e[ne].rb, 0, 0, -0.5);
  pair_params(0, 0, &e[ne]);
  ne++;
  /* wall 0 - body 8 (id 30): the 4 bottom vertices, in vertex order (x fastest) */
  for (int k = 0; k < 4; k++) {
    e[ne] = (Expected){.ida = -1, .idb = 30, .sub = k, .a = nb, .b = 8, .phi = -0.001};
    set3(e[ne].n, 0, 0, 1);
    set3(e[ne].ra, 0, 0, 0);
    set3(e[ne].rb, (k & 1) ? 0.3 : -0.3, (k & 2) ? 0.2 : -0.2, -0.1);
    pair_params(0, 1, &e[ne]);
    ne++;
  }
  /* body 9 (id 1) - ghost 13 (id 60): kept, A is owned here */
  e[ne] = (Expected){.ida = 1, .idb = 60, .sub = 0, .a = 9, .b = 13, .phi = -0.01};
  set3(e[ne].n, 0, 1, 0);
  set3(e[ne].ra, 0, 0.5, 0);
  set3(e[ne].rb, 0, -0.3, 0);
  pair_params(0, 0, &e[ne]);
  ne++;
  /* box 4 (id 2) - sphere 5 (id 9): box is A */
  e[ne] = (Expected){.ida = 2, .idb = 9, .sub = 0, .a = 4, .b = 5, .phi = -0.01};
  set3(e[ne].n, 1, 0, 0);
  set3(e[ne].ra, 0.3, 0.1, 0.05);
  set3(e[ne].rb, -0.2, 0, 0);
  pair_params(0, 1, &e[ne]);
  ne++;
  /* sphere 3 (id 3) - box 2 (id 7): sphere is A, normal points down into the box */
  e[ne] = (Expected){.ida = 3, .idb = 7, .sub = 0, .a = 3, .b = 2, .phi = 0.02};
  set3(e[ne].n, 0, 0, -1);
  set3(e[ne].ra, 0, 0, -0.2);
  set3(e[ne].rb, 0.1, 0.05, 0.1);
  pair_params(0, 0, &e[ne]);
  ne++;
  /* sphere 1 (id 5) - sphere 0 (id 10) */
  e[ne] = (Expected){.ida = 5, .idb = 10, .sub = 0, .a = 1, .b = 0, .phi = -0.01};
  set3(e[ne].n, -0.6, -0.8, 0);
  set3(e[ne].ra, -0.15, -0.2, 0);
  set3(e[ne].rb, 0.3, 0.4, 0);
  pair_params(1, 1, &e[ne]);
  ne++;
  /* box 6 (id 20) - box 7 (id 21): A's +y face the reference (y = 5.2), B's -y face incident; its
   * vertices in face order (z, x) = (+, +), (-, +), (-, -), (+, -); feature base (A, face +y,
   * incident face -y) = ((0 * 6 + 2) * 6 + 3) * 24 = 360 */
  for (int k = 0; k < 4; k++) {
    const double z = k == 0 || k == 3 ? 0.2 : -0.2, x = k < 2 ? 0.2 : -0.2;
    e[ne] = (Expected){.ida = 20, .idb = 21, .sub = 360 + k, .a = 6, .b = 7, .phi = -0.1};
    set3(e[ne].n, 0, 1, 0);
    set3(e[ne].ra, x, 0.2, z);
    set3(e[ne].rb, x, -0.2, z);
    pair_params(0, 0, &e[ne]);
    ne++;
  }

  CHECK(cs.n == ne, "hand-built scene: %d contacts, expected %d", (int)cs.n, ne);
  PairParams *table;
  PetscBool   yields;
  PetscCall(ContactPairTableCreate(materials, 2, &table, &yields));
  CHECK(!yields, "pair table: no material yields, the table says some pair does");
  const ContactPairs cp =
    {.table = table, .n_materials = 2, .body_material = s.material, .nb = nb, .walls = walls, .h = STEP_H};
  for (PetscInt i = 0; i < cs.n && cs.n == ne; i++) check_contact(&cs, &cp, i, &e[i]);
  PetscCall(PetscFree(table));
  for (PetscInt i = 0; i < cs.n; i++)
    CHECK(cs.key[i].idb != 51 && cs.key[i].idb != 50, "contact %d: ghost-ghost or ghost-wall contact (%lld, %lld)",
          (int)i, (long long)cs.key[i].ida, (long long)cs.key[i].idb);
  printf("hand-built scene: %d contacts (sphere-sphere, sphere-box both ways, plane-box x4, plane-sphere, "
         "wallbox-sphere, owned-ghost, box-box x4; ghost-ghost skipped)\n",
         (int)cs.n);

  /* detection is repeatable on reused buffers */
  PetscCall(CollisionDetect(&set, &s, nb, &bp, &cs));
  CHECK(cs.n == ne, "second detection: %d contacts, expected %d", (int)cs.n, ne);
  /* detection's arrays in the grid's and the pairs' slots only (base/scratch_pool.h): the solver's
   * other vectors' slots, all a Jacobi or Gauss-Seidel solve leaves empty, stay so */
  for (int k = SCRATCH_BP_PAIRS + 1; k < SCRATCH_SLOTS; k++)
    CHECK(ScratchPoolBytes(BroadphaseScratch(&bp), k) == 0,
          "detection took scratch slot %d (%zu bytes): only slots 0-2 are its", k,
          ScratchPoolBytes(BroadphaseScratch(&bp), k));
  PetscCall(ContactSetDestroy(&cs));
  PetscCall(BroadphaseDestroy(&bp));
  PetscCall(BodyStoreDestroy(&s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- random scene against brute force ---- */
static int compare_expected(const void *pa, const void *pb)
{
  const Expected *a = pa, *b = pb;
  if (a->ida != b->ida) return a->ida < b->ida ? -1 : 1;
  if (a->idb != b->idb) return a->idb < b->idb ? -1 : 1;
  return 0;
}

/* id_step: the ids are 1000 + id_step k. A step of 2^31 or more makes the id span too wide for the
 * packed 64-bit pair key, and detection takes its comparison-sort path. */
static PetscErrorCode test_random_scene(int64_t id_step)
{
  const int         n = 3000, nghost = 500;
  const double      env = 0.02;
  BodyStore         s;
  Broadphase        bp;
  ContactSet        cs;
  BodyRecord        b;
  Wall              walls[3] = {0};
  CollisionSettings set      = {env, materials, walls, 3, NULL};
  int64_t          *ids;
  Expected         *e;
  int               ne = 0, cap = 20 * n;

  PetscFunctionBegin;
  walls[0].type = WALL_PLANE;
  set3(walls[0].normal, 0, 0, 1);
  walls[1].type = WALL_PLANE;
  set3(walls[1].point, 0.5, 0, 0);
  set3(walls[1].normal, 0.6, 0, 0.8);
  walls[1].material = 1;
  walls[2].type     = WALL_BOX;
  set3(walls[2].center, 8, 8, 3);
  set3(walls[2].half_extents, 2, 1.5, 1);
  walls[2].quat[0] = 1;
  PetscCall(BodyStoreCreate(&s));
  PetscCall(BroadphaseCreate(&bp));
  PetscCall(ContactSetCreate(&cs));
  PetscCall(PetscMalloc2(n, &ids, cap, &e));
  for (int i = 0; i < n; i++) ids[i] = 1000 + id_step * i; /* shuffled below */
  for (int i = n - 1; i > 0; i--) {
    const int     j = (int)(urand() * (i + 1));
    const int64_t t = ids[i];
    ids[i]          = ids[j];
    ids[j]          = t;
  }
  for (int i = 0; i < n; i++) {
    body(&b, ids[i], SHAPE_SPHERE, 16 * urand(), 16 * urand(), 12 * urand() - 0.3, 0.3 + 0.3 * urand(), 0, 0,
         (int)(2 * urand()));
    PetscCall(BodyStoreAppendOwned(&s, &b));
  }
  s.n_owned = n - nghost;
  s.n_ghost = nghost;

  for (int i = 0; i < n; i++) {
    const double *ci = s.pos + 3 * i, ri = s.radius[i];
    for (int j = i + 1; j < n && i < s.n_owned; j++) {
      const double *cj = s.pos + 3 * j;
      double        d[3];
      v3_sub(d, cj, ci);
      const double dist = v3_norm(d), gap = dist - ri - s.radius[j];
      if (!(gap < env)) continue;
      const int A = s.id[i] < s.id[j] ? i : j, B = A == i ? j : i;
      if (A >= s.n_owned) continue; /* the rank owning A keeps the contact */
      Expected *x = &e[ne++];
      *x          = (Expected){.ida = s.id[A], .idb = s.id[B], .a = A, .b = B, .phi = gap};
      v3_scale(x->n, (A == i ? 1.0 : -1.0) / dist, d);
    }
    if (i >= s.n_owned) continue;
    for (int k = 0; k < 2; k++) { /* planes */
      double d[3];
      v3_sub(d, ci, walls[k].point);
      const double gap = v3_dot(d, walls[k].normal) - ri;
      if (!(gap < env)) continue;
      Expected *x = &e[ne++];
      *x          = (Expected){.ida = -1 - k, .idb = s.id[i], .a = n + k, .b = i, .phi = gap};
      v3_copy(x->n, walls[k].normal);
    }
    { /* axis-aligned box wall: distance to the box, or least penetration inside */
      double q[3], d[3], dist;
      int    inside = 1;
      for (int k = 0; k < 3; k++) {
        const double lo = walls[2].center[k] - walls[2].half_extents[k],
                     hi = walls[2].center[k] + walls[2].half_extents[k];
        q[k]            = fmin(fmax(ci[k], lo), hi);
        inside          = inside && ci[k] > lo && ci[k] < hi;
      }
      v3_sub(d, ci, q);
      dist = v3_norm(d);
      if (inside) {
        int    ax   = 0;
        double best = 1e300;
        for (int k = 0; k < 3; k++) {
          const double depth = walls[2].half_extents[k] - fabs(ci[k] - walls[2].center[k]);
          if (depth < best) {
            best = depth;
            ax   = k;
          }
        }
        set3(d, 0, 0, 0);
        d[ax] = ci[ax] < walls[2].center[ax] ? -1 : 1;
        dist  = -best;
      } else v3_scale(d, 1.0 / dist, d);
      if (dist - ri < env) {
        Expected *x = &e[ne++];
        *x          = (Expected){.ida = -3, .idb = s.id[i], .a = n + 2, .b = i, .phi = dist - ri};
        v3_copy(x->n, d);
      }
    }
  }
  qsort(e, ne, sizeof(Expected), compare_expected);

  PetscCall(CollisionDetect(&set, &s, n, &bp, &cs));
  int bad = 0;
  CHECK(cs.n == ne, "random scene: %d contacts, brute force %d", (int)cs.n, ne);
  for (int i = 0; i < ne && cs.n == ne; i++) {
    const Contact *c = &cs.c[i];
    const int ok     = cs.key[i].ida == e[i].ida && cs.key[i].idb == e[i].idb && cs.key[i].sub == 0 && c->a == e[i].a &&
                   c->b == e[i].b && fabs(c->phi - e[i].phi) < TOL &&
                   fabs(c->n[0] - e[i].n[0]) + fabs(c->n[1] - e[i].n[1]) + fabs(c->n[2] - e[i].n[2]) < TOL;
    if (!ok && bad++ < 5)
      printf("  contact %d: key (%lld %lld) a %d b %d phi %.17g; brute force (%lld %lld) a %d b %d phi %.17g\n", i,
             (long long)cs.key[i].ida, (long long)cs.key[i].idb, c->a, c->b, c->phi, (long long)e[i].ida,
             (long long)e[i].idb, e[i].a, e[i].b, e[i].phi);
  }
  CHECK(bad == 0, "random scene: %d contacts differ from brute force", bad);
  int nwall = 0;
  for (int i = 0; i < ne; i++) nwall += e[i].ida < 0;
  printf("random scene, id step %lld: %d spheres (%d ghosts), %d contacts (%d with walls) match brute force\n",
         (long long)id_step, n, nghost, ne, nwall);
  PetscCall(PetscFree2(ids, e));
  PetscCall(ContactSetDestroy(&cs));
  PetscCall(BroadphaseDestroy(&bp));
  PetscCall(BodyStoreDestroy(&s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- timing ---- */
static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static PetscErrorCode time_detection(BodyStore *s, const CollisionSettings *set, const char *what)
{
  Broadphase bp;
  ContactSet cs;
  double     best_bp = 1e300, best_cd = 1e300;

  PetscFunctionBegin;
  PetscCall(BroadphaseCreate(&bp));
  PetscCall(ContactSetCreate(&cs));
  for (int rep = 0; rep < 4; rep++) { /* first call allocates; report the best of the rest */
    double t0 = now();
    PetscCall(BroadphaseFindPairs(&bp, s, s->n_owned, set->envelope));
    double t1 = now();
    PetscCall(CollisionDetect(set, s, s->n_owned, &bp, &cs));
    double t2 = now();
    if (rep) {
      best_bp = PetscMin(best_bp, t1 - t0);
      best_cd = PetscMin(best_cd, t2 - t1);
    }
  }
  printf("timing, %s: %d spheres, %d pairs, %d contacts (%.2f per body): BroadphaseFindPairs %.0f ns/body, "
         "CollisionDetect (incl. broadphase) %.0f ns/body\n",
         what, (int)s->n_owned, (int)bp.npairs, (int)cs.n, (double)cs.n / s->n_owned, 1e9 * best_bp / s->n_owned,
         1e9 * best_cd / s->n_owned);
  PetscCall(ContactSetDestroy(&cs));
  PetscCall(BroadphaseDestroy(&bp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode test_timing(void)
{
  PetscInt          m = 58; /* 58^3 = 195112 spheres; -timing_side to change (e.g. small under valgrind) */
  BodyStore         s;
  BodyRecord        b;
  Wall              floor = {0};
  CollisionSettings set   = {0.05, materials, &floor, 1, NULL};
  PetscInt         *perm;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-timing_side", &m, NULL));
  floor.type = WALL_PLANE;
  set3(floor.point, 0, 0, -1);
  set3(floor.normal, 0, 0, 1);
  PetscCall(BodyStoreCreate(&s));
  PetscCall(BodyStoreReserve(&s, m * m * m));
  /* loose random packing: radii 0.9-1.1 on a jittered lattice of spacing 2.1 (volume fraction ~0.45) */
  for (int k = 0; k < m; k++)
    for (int j = 0; j < m; j++)
      for (int i = 0; i < m; i++) {
        body(&b, s.n_owned, SHAPE_SPHERE, 2.1 * i + 0.3 * (urand() - 0.5), 2.1 * j + 0.3 * (urand() - 0.5),
             2.1 * k + 0.3 * (urand() - 0.5), 0.9 + 0.2 * urand(), 0, 0, 0);
        PetscCall(BodyStoreAppendOwned(&s, &b));
      }
  PetscCall(time_detection(&s, &set, "spatial storage, spatial ids"));
  /* ids shuffled among the bodies: key order is then random in storage, as when the store is
   * sorted spatially but ids follow creation order */
  for (PetscInt i = s.n_owned - 1; i > 0; i--) {
    const PetscInt j = (PetscInt)(urand() * (i + 1));
    const int64_t  t = s.id[i];
    s.id[i]          = s.id[j];
    s.id[j]          = t;
  }
  PetscCall(time_detection(&s, &set, "spatial storage, shuffled ids"));
  for (PetscInt i = 0; i < s.n_owned; i++) s.id[i] = i;
  PetscCall(PetscMalloc1(s.n_owned, &perm));
  for (PetscInt i = 0; i < s.n_owned; i++) perm[i] = i;
  for (PetscInt i = s.n_owned - 1; i > 0; i--) {
    const PetscInt j = (PetscInt)(urand() * (i + 1)), t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  PetscCall(BodyStorePermute(&s, s.n_owned, perm));
  PetscCall(time_detection(&s, &set, "shuffled storage, spatial ids"));
  PetscCall(PetscFree(perm));
  PetscCall(BodyStoreDestroy(&s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  rng_state = 0x243F6A8885A308D3ull; /* this test's seed */
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(test_hand_built());
  PetscCall(test_random_scene(3));
  PetscCall(test_random_scene((int64_t)3 << 40));
  PetscCall(test_timing());
  if (failures) printf("test_collision: %d check(s) FAILED\n", failures);
  else printf("test_collision: all checks passed\n");
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
