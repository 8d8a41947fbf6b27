/* Unit test of the Verlet neighbour list (src/collision/neighbour_list.c) against full collision detection
 * (src/collision/detect.c), the independent reference: the list must give the same contacts, bit for bit
 * and in the same order, every step, while it is reused.
 *   A random scene of spheres and boxes (ids shuffled, the last 150 ghosts) with two planes and a
 *   moving box wall; 150 steps of a random walk (each body up to 0.06 skin per step, boxes turning)
 *   with a drift of 0.03 skin per step onto the floor,
 *   the storage permuted twice (a layout change). Each step: CollisionDetect and
 *   CollisionDetectListed, compared with memcmp (contacts and keys), and CollisionDetectListedGeometry
 *   on its own list of the pairs within the skin alone (of those contacts the touching ones, gap
 *   below 0: the same keys in the same order and geometry, a, b, n, rb, phi, bit for bit, zero
 *   impulses; spheres and planes take its inline path, boxes and the box wall the general one; its
 *   list built no more often than the other, give or take the two layout changes). Checked also that the list was
 *   reused (fewer builds than a third of the steps), rebuilt on motion (more builds than the two
 *   layout changes), and that contacts came and went while it was reused (so the superset mattered);
 *   with skin 0 it is rebuilt every step and still agrees. */
// ctest: labels=unit timeout=120
#include "collision/neighbour_list.h"
#include "base/vec3.h"
#include <stdio.h>
#include <string.h>

#include "test_check.h"

#include "test_random.h"

static const Material materials[2] = {
  {.name = "a", .density = 1000, .friction = 0.5, .compliance = 1e-7},
  {.name              = "b",
   .density           = 2000,
   .friction          = 0.3,
   .rolling_friction  = 0.01,
   .spinning_friction = 0.02,
   .compliance        = 2e-7},
};

static PetscErrorCode run(double skin, int nsteps, PetscInt64 *builds, int *changed_while_reused)
{
  const int         n = 1200, nghost = 150;
  const double      env = 0.05, step = skin > 0 ? 0.06 * skin : 0.006;
  BodyStore         s;
  Broadphase        bp_ref, bp;
  NeighbourList     nl, nl_geo;
  ContactSet        ref, got, geo;
  BodyRecord        b;
  Wall              walls[3] = {0};
  CollisionSettings set      = {env, materials, walls, 3, NULL};
  int64_t          *ids;
  PetscInt          last_n = -1, last_builds = 0, touching;

  PetscFunctionBegin;
  walls[0].type = WALL_PLANE;
  v3_set(walls[0].normal, 0, 0, 1);
  walls[1].type = WALL_PLANE;
  v3_set(walls[1].point, 0.5, 0, 0);
  v3_set(walls[1].normal, 0.6, 0, 0.8);
  walls[1].material = 1;
  walls[2].type     = WALL_BOX;
  v3_set(walls[2].center, 5, 5, 3);
  v3_set(walls[2].half_extents, 1.5, 1, 0.8);
  walls[2].quat[0] = 1;
  v3_set(walls[2].velocity, 0.3, 0.1, 0);
  PetscCall(BodyStoreCreate(&s));
  PetscCall(BroadphaseCreate(&bp_ref));
  PetscCall(BroadphaseCreate(&bp));
  PetscCall(ContactSetCreate(&ref));
  PetscCall(ContactSetCreate(&got));
  PetscCall(ContactSetCreate(&geo));
  PetscCall(NeighbourListCreate(&nl, skin));
  PetscCall(NeighbourListCreate(&nl_geo, skin));
  PetscCall(PetscMalloc1(n, &ids));
  for (int i = 0; i < n; i++) ids[i] = 10 + 7 * i;
  for (int i = n - 1; i > 0; i--) {
    const int     j = (int)(urand() * (i + 1));
    const int64_t t = ids[i];
    ids[i]          = ids[j];
    ids[j]          = t;
  }
  for (int i = 0; i < n; i++) {
    const ShapeKind shape = i % 10 == 3 ? SHAPE_BOX : SHAPE_SPHERE;
    b                     = (BodyRecord){0};
    b.id[0]               = ids[i];
    v3_set(b.pos, 10 * urand(), 10 * urand(), 6 * urand() - 0.2);
    b.quat[0]  = 1;
    b.shape[0] = shape;
    v3_set(b.size, 0.3 + 0.2 * urand(), 0.25, 0.2);
    if (shape == SHAPE_SPHERE) b.size[1] = b.size[2] = b.size[0];
    b.radius[0]   = shape_bounding_radius(shape, b.size);
    b.mass[0]     = 1;
    b.material[0] = i % 2;
    PetscCall(BodyStoreAppendOwned(&s, &b));
  }
  s.n_owned             = n - nghost;
  s.n_ghost             = nghost;
  *changed_while_reused = 0;
  for (int t = 0; t < nsteps; t++) {
    if (t == 60 || t == 120) { /* a layout change: two bodies swap places in storage */
      PetscInt order[1200];
      for (int i = 0; i < n; i++) order[i] = i;
      order[5]   = 900;
      order[900] = 5;
      PetscCall(BodyStorePermute(&s, n, order));
    }
    PetscCall(CollisionDetect(&set, &s, n, &bp_ref, &ref));
    PetscCall(CollisionDetectListed(&set, &s, n, &bp, &nl, &got));
    CHECK(ref.n > 100, "skin %g step %d: only %" PetscInt_FMT " contacts; the scene should be dense", skin, t, ref.n);
    CHECK(got.n == ref.n,
          "skin %g step %d: %" PetscInt_FMT " contacts from the list, %" PetscInt_FMT " from full detection", skin, t,
          got.n, ref.n);
    if (got.n == ref.n) {
      CHECK(!memcmp(got.key, ref.key, sizeof(ContactKey) * (size_t)ref.n), "skin %g step %d: keys differ", skin, t);
      CHECK(!memcmp(got.c, ref.c, sizeof(Contact) * (size_t)ref.n), "skin %g step %d: contacts differ", skin, t);
    }
    PetscCall(CollisionDetectListedGeometry(&set, &s, n, &bp, &nl_geo,
                                            &geo)); /* its own list: the pairs within the skin alone */
    touching = 0;
    for (PetscInt i = 0; i < ref.n; i++) touching += ref.c[i].phi < 0;
    CHECK(touching > 50 && touching < ref.n,
          "skin %g step %d: %" PetscInt_FMT " of %" PetscInt_FMT " contacts touch; the scene should have both kinds",
          skin, t, touching, ref.n);
    CHECK(geo.n == touching,
          "skin %g step %d: %" PetscInt_FMT " geometry-only contacts, %" PetscInt_FMT
          " touching ones from full detection",
          skin, t, geo.n, touching);
    for (PetscInt i = 0, j = 0; geo.n == touching && i < ref.n; i++) { /* the touching ones, in order */
      const Contact *g = &geo.c[j], *r = &ref.c[i];
      const double   zero[CONTACT_DOF_MAX] = {0};
      if (!(r->phi < 0)) continue;
      CHECK(!memcmp(&geo.key[j], &ref.key[i], sizeof(ContactKey)),
            "skin %g step %d: geometry-only key %" PetscInt_FMT " differs from touching contact %" PetscInt_FMT "'s",
            skin, t, j, i);
      CHECK(g->a == r->a && g->b == r->b && !memcmp(g->n, r->n, sizeof(r->n)) && !memcmp(g->rb, r->rb, sizeof(r->rb)) &&
              !memcmp(&g->phi, &r->phi, sizeof(r->phi)),
            "skin %g step %d: geometry-only contact %" PetscInt_FMT " differs from the full one's geometry", skin, t,
            j);
      CHECK(!memcmp(contact_gamma(&geo, j), zero, sizeof(zero)),
            "skin %g step %d: geometry-only contact %" PetscInt_FMT " has a nonzero impulse", skin, t, j);
      j++;
    }
    if (nl.builds == last_builds && ref.n != last_n) (*changed_while_reused)++;
    last_builds = nl.builds;
    last_n      = ref.n;
    for (int i = 0; i < n; i++) { /* the random walk, and the boxes turn */
      double d[3] = {srand1(), srand1(), srand1()}, w[3] = {srand1(), srand1(), srand1()};
      v3_axpy(s.pos + 3 * i, step / (v3_norm(d) + 1e-12) * urand(), d);
      s.pos[3 * i + 2] -= 0.5 * step; /* a drift onto the floor: new wall contacts keep coming */
      if (s.shape[i] == SHAPE_BOX) quat_integrate_world(s.quat + 4 * i, w, 0.05);
    }
    v3_axpy(walls[2].center, 0.2 * step, walls[2].velocity);
  }
  *builds = nl.builds;
  CHECK(nl_geo.builds <= nl.builds + 2 && nl_geo.steps == nsteps,
        "skin %g: the geometry-only list was built %" PetscInt64_FMT " times in %" PetscInt64_FMT
        " detections (the full one %" PetscInt64_FMT ")",
        skin, nl_geo.builds, nl_geo.steps, nl.builds);
  CHECK(nl.steps == nsteps, "skin %g: %" PetscInt64_FMT " listed detections counted, %d run", skin, nl.steps, nsteps);
  PetscCall(PetscFree(ids));
  PetscCall(NeighbourListDestroy(&nl));
  PetscCall(NeighbourListDestroy(&nl_geo));
  PetscCall(ContactSetDestroy(&got));
  PetscCall(ContactSetDestroy(&geo));
  PetscCall(ContactSetDestroy(&ref));
  PetscCall(BroadphaseDestroy(&bp));
  PetscCall(BroadphaseDestroy(&bp_ref));
  PetscCall(BodyStoreDestroy(&s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const int  nsteps = 150;
  PetscInt64 builds;
  int        changed;

  rng_state = 0x13198A2E03707344ull; /* this test's seed */
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(run(0.1, nsteps, &builds, &changed));
  printf("skin 0.1: %lld builds in %d steps, %d reused steps with a changed contact count\n", (long long)builds, nsteps,
         changed);
  CHECK(builds < nsteps / 3, "skin 0.1: %lld builds in %d steps; the list is hardly reused", (long long)builds, nsteps);
  CHECK(builds > 3,
        "skin 0.1: %lld builds; motion of more than skin / 2 must rebuild it (besides the 2 layout changes)",
        (long long)builds);
  CHECK(changed > 10, "skin 0.1: contacts changed on only %d steps served by a reused list", changed);
  PetscCall(run(0, 20, &builds, &changed));
  CHECK(builds == 20, "skin 0: %lld builds in 20 steps; it must be rebuilt every step", (long long)builds);
  if (failures) printf("test_neighbour_list: %d check(s) FAILED\n", failures);
  else printf("test_neighbour_list: all checks passed\n");
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
