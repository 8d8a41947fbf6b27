/* Collision detection for one step.
 *
 * 1. Broadphase pairs among bodies [0, nb); a pair is kept only on the rank that owns body A (the
 *    smaller global id), so with symmetric halos every contact is computed by exactly one rank. Every owned body is
 * tested against every wall (walls are replicated, so the body's owner computes its wall contacts); ghosts never are.
 * 2. Each kept pair is staged as a PairRecord (key packed in 64 bits, A, B): 16 bytes, no
 *    geometry yet. A is the smaller global id (walls have negative ids, so a wall is always A);
 *    the normal runs from A to B.
 * 3. Stable radix sort of the records (src/collision/detect_sort.c), then one pass in key order that runs the
 *    narrowphase of each pair and builds each of its points' contacts (sub 0, 1, ...) in place in
 *    the contact set, key included, from the narrowphase's point: no StagedPoint in between (the
 *    neighbour list's general path, src/collision/neighbour_list.c, stages; the bits are the same). Staging
 *    the computed points of all pairs instead (120 bytes each) cost fresh pages and a random gather
 *    of two cache lines per point; reading the two bodies in key order costs about the same cache
 *    misses, and the sphere-sphere narrowphase is a square root. The broadphase's (i, j) sort is
 *    not needed: the key sort decides the order. ContactSetSortByKey then has nothing to do (the
 *    appends keep the set's order flag: contact/contact_set.h).
 *
 * Cylinder walls touch spheres and box vertices (collision/cylinder_contact.h). Two boxes (two box
 * bodies, or a box wall and a box body) touch by collision/box_box.h, whose points carry feature
 * numbers as their keys' sub, and so do a box body's points on a mesh wall (collision/triangle_contact.h);
 * pairs with a clump body touch by member spheres (collision/clump_contact.h), their subs numbering
 * the members; an ellipsoid touches spheres, clumps and ellipsoids (collision/ellipsoid_contact.h) and plane,
 * cylinder and mesh walls (collision/ellipsoid_walls.h) only (the scenario reader refuses its other partners);
 * every other kernel's points are numbered 0, 1, ....
 *
 * The staging buffers are slots of the broadphase's pool (base/scratch_pool.h): in a simulation, the
 * solver's vectors, which are dead during detection, so they are neither fresh pages every step
 * nor extra peak memory. */
#include "collision/detect.h"
#include "collision/detect_impl.h"
#include "collision/triangle_contact.h"
#include "collision/clump_contact.h"
#include "collision/ellipsoid_contact.h"
#include "collision/ellipsoid_walls.h"
#include <string.h>

/* sub[k] = k for the np points of a kernel whose points carry no feature number */
static inline int point_indices(int np, int32_t sub[NARROW_MAX_POINTS])
{
  for (int k = 0; k < np; k++) sub[k] = k;
  return np;
}

/* Points between bodies A and B (storage indices), normal from A to B. */
int collision_body_pair_points(const BodyStore *s, PetscInt A, PetscInt B, double envelope,
                               ContactPoint pts[NARROW_MAX_POINTS], int32_t sub[NARROW_MAX_POINTS])
{
  const double *xa = s->pos + 3 * (size_t)A, *qa = s->quat + 4 * (size_t)A, *sa = s->size + 3 * (size_t)A;
  const double *xb = s->pos + 3 * (size_t)B, *qb = s->quat + 4 * (size_t)B, *sb = s->size + 3 * (size_t)B;
  const int     shape_a = s->shape[A], shape_b = s->shape[B];
  int           np;

  if (shape_a == SHAPE_SPHERE && shape_b == SHAPE_SPHERE)
    return point_indices(narrow_sphere_sphere(xa, sa[0], xb, sb[0], envelope, pts), sub);
  if (shape_a == SHAPE_BOX && shape_b == SHAPE_SPHERE)
    return point_indices(narrow_box_sphere(xa, qa, sa, xb, sb[0], envelope, pts), sub);
  if (shape_a == SHAPE_BOX && shape_b == SHAPE_BOX) return narrow_box_box(xa, qa, sa, xb, qb, sb, envelope, pts, sub);
  if (shape_a == SHAPE_ELLIPSOID && shape_b == SHAPE_ELLIPSOID)
    return point_indices(narrow_ellipsoid_ellipsoid(xa, qa, sa, xb, qb, sb, envelope, pts), sub);
  if (shape_a == SHAPE_ELLIPSOID) /* its other partner here is a sphere (scenario/body_sections.c) */
    return point_indices(narrow_ellipsoid_sphere(xa, qa, sa, xb, sb[0], envelope, pts), sub);
  /* sphere A, box or ellipsoid B: the kernel runs from B, so turn its answer around */
  np = shape_b == SHAPE_ELLIPSOID ? narrow_ellipsoid_sphere(xb, qb, sb, xa, sa[0], envelope, pts)
                                  : narrow_box_sphere(xb, qb, sb, xa, sa[0], envelope, pts);
  for (int k = 0; k < np; k++) {
    double t[3];
    v3_scale(pts[k].n, -1.0, pts[k].n);
    v3_copy(t, pts[k].p1);
    v3_copy(pts[k].p1, pts[k].p2);
    v3_copy(pts[k].p2, t);
  }
  return point_indices(np, sub);
}

/* Points between wall w (A) and body B, normal from the wall to the body. */
int collision_wall_body_points(const Wall *w, const BodyStore *s, PetscInt B, double envelope,
                               ContactPoint pts[NARROW_MAX_POINTS], int32_t sub[NARROW_MAX_POINTS])
{
  const double *xb = s->pos + 3 * (size_t)B, *qb = s->quat + 4 * (size_t)B, *sb = s->size + 3 * (size_t)B;
  if (s->shape[B] == SHAPE_SPHERE) return point_indices(collision_wall_sphere_points(w, xb, sb[0], envelope, pts), sub);
  if (s->shape[B] == SHAPE_ELLIPSOID) return point_indices(narrow_wall_ellipsoid(w, xb, qb, sb, envelope, pts), sub);
  if (w->type == WALL_PLANE)
    return point_indices(narrow_plane_box(w->point, w->normal, xb, qb, sb, envelope, pts), sub);
  if (w->type == WALL_CYLINDER) return point_indices(narrow_cylinder_box(w, xb, qb, sb, envelope, pts), sub);
  if (w->type == WALL_MESH) return narrow_mesh_box(w->mesh, w->center, w->quat, xb, qb, sb, envelope, pts, sub);
  return narrow_box_box(w->center, w->quat, w->half_extents, xb, qb, sb, envelope, pts, sub);
}

/* The key of point sub of pair (ida, idb), written with its padding zero: no uninitialized bytes
 * go into the messages that route the memory between ranks. */
static inline void contact_key_set(ContactKey *key, int64_t ida, int64_t idb, int32_t sub)
{
  memset(key, 0, sizeof(*key));
  key->ida = ida;
  key->idb = idb;
  key->sub = sub;
}

/* Point pt's offsets from the reference points ref_a/ref_b; ref_a NULL for a fixed plane, whose
 * reference is the contact point itself (walls have zero inverse mass, so only consistency
 * matters). */
static inline void point_offsets(const ContactPoint *pt, const double *ref_a, const double *ref_b, double ra[3],
                                 double rb[3])
{
  v3_sub(ra, pt->p1, ref_a ? ref_a : pt->p1);
  v3_sub(rb, pt->p2, ref_b);
}

/* Stage np points; ref_a/ref_b as point_offsets. */
void collision_stage_points(StagedPoint *st, PetscInt *nst, const ContactPoint *pts, const int32_t *sub, int np,
                            int32_t a, int32_t b, int64_t ida, int64_t idb, int32_t mat_a, int32_t mat_b,
                            const double *ref_a, const double *ref_b)
{
  for (int k = 0; k < np; k++) {
    StagedPoint *p = &st[(*nst)++];
    contact_key_set(&p->key, ida, idb, sub[k]);
    p->a     = a;
    p->b     = b;
    p->mat_a = mat_a;
    p->mat_b = mat_b;
    v3_copy(p->n, pts[k].n);
    point_offsets(&pts[k], ref_a, ref_b, p->ra, p->rb);
    p->phi = pts[k].phi;
  }
}

/* Every field of contact c but its geometry (n, ra, rb, phi): the pair's friction parameters of
 * pp, and zero for what the warm start sets (plastic) and box. Field by field rather than a
 * compound literal, which made the compiler zero the record first and then store most of it again. */
static inline void contact_finish(Contact *c, int32_t a, int32_t b, const PairParams *pp)
{
  c->a       = a;
  c->b       = b;
  c->mu      = pp->mu;
  c->rho     = pp->rho;
  c->sigma   = pp->sigma;
  c->plastic = 0;
  c->box     = NULL;
}

static const PairParams *pair_params(const CollisionSettings *set, PairParamsCache *cache, int32_t mat_a, int32_t mat_b)
{
  if (cache->mat_a != mat_a || cache->mat_b != mat_b) {
    material_pair(&set->materials[mat_a], &set->materials[mat_b], &cache->pp);
    cache->mat_a = mat_a;
    cache->mat_b = mat_b;
  }
  return &cache->pp;
}

/* Point pt of pair (ida, idb) as contact sub of the set, its offsets from ref_a, ref_b (point_offsets). */
static inline void append_point(ContactSet *cs, int64_t ida, int64_t idb, int32_t sub, const ContactPoint *pt,
                                const double *ref_a, const double *ref_b, int32_t a, int32_t b, const PairParams *pp)
{
  Contact *c;
  contact_key_set(&cs->key[cs->n], ida, idb, sub);
  c = contact_set_append_keyed(cs);
  v3_copy(c->n, pt->n);
  point_offsets(pt, ref_a, ref_b, c->ra, c->rb);
  c->phi = pt->phi;
  contact_finish(c, a, b, pp);
  contact_set_warm_last(cs);
}

/* collision_append_pair, inlined into CollisionDetect's loop (a call per pair cost about 10 ns per body) */
static inline void append_pair(const CollisionSettings *set, const BodyStore *s, PetscInt nb, int32_t a, int32_t b,
                               PairParamsCache *cache, ContactSet *cs)
{
  ContactPoint      pts[NARROW_MAX_POINTS];
  int32_t           sub[NARROW_MAX_POINTS];
  const Wall       *w  = a >= nb ? &set->walls[a - nb] : NULL;
  const int         np = w ? collision_wall_body_points(w, s, b, set->envelope, pts, sub)
                           : collision_body_pair_points(s, a, b, set->envelope, pts, sub);
  const double     *ref_a, *ref_b = s->pos + 3 * (size_t)b;
  const PairParams *pp;
  int64_t           ida;

  if (!np) return;
  if (w) {
    ida   = wall_global_id((int)(a - nb));
    ref_a = collision_wall_reference(w);
    pp    = pair_params(set, cache, w->material, s->material[b]);
  } else {
    ida   = s->id[a];
    ref_a = s->pos + 3 * (size_t)a;
    pp    = pair_params(set, cache, s->material[a], s->material[b]);
  }
  for (int k = 0; k < np; k++) append_point(cs, ida, s->id[b], sub[k], &pts[k], ref_a, ref_b, a, b, pp);
}

/* A pair with a clump (collision/clump_contact.h): append_pair's contacts, one per member point. */
typedef struct {
  ContactSet       *cs;
  int64_t           ida, idb;
  const double     *ref_a, *ref_b;
  int32_t           a, b;
  const PairParams *pp;
} ClumpAppend;

static void clump_point_append(void *ctx, const ContactPoint *pt, int32_t sub)
{
  const ClumpAppend *c = (const ClumpAppend *)ctx;
  append_point(c->cs, c->ida, c->idb, sub, pt, c->ref_a, c->ref_b, c->a, c->b, c->pp);
}

static void append_clump_pair(const CollisionSettings *set, const BodyStore *s, PetscInt nb, int32_t a, int32_t b,
                              PairParamsCache *cache, ContactSet *cs)
{
  const Wall *w   = a >= nb ? &set->walls[a - nb] : NULL;
  ClumpAppend ctx = {.cs = cs, .idb = s->id[b], .ref_b = s->pos + 3 * (size_t)b, .a = a, .b = b};

  if (w) {
    ctx.ida   = wall_global_id((int)(a - nb));
    ctx.ref_a = collision_wall_reference(w);
    ctx.pp    = pair_params(set, cache, w->material, s->material[b]);
    collision_clump_wall_points(set->clumps, w, s, b, set->envelope, clump_point_append, &ctx);
  } else {
    ctx.ida   = s->id[a];
    ctx.ref_a = s->pos + 3 * (size_t)a;
    ctx.pp    = pair_params(set, cache, s->material[a], s->material[b]);
    collision_clump_pair_points(set->clumps, s, a, b, set->envelope, clump_point_append, &ctx);
  }
}

void collision_append_pair(const CollisionSettings *set, const BodyStore *s, PetscInt nb, int32_t a, int32_t b,
                           PairParamsCache *cache, ContactSet *cs)
{
  if (collision_clump_pair(set, s, nb, a, b)) append_clump_pair(set, s, nb, a, b, cache, cs);
  else append_pair(set, s, nb, a, b, cache, cs);
}

int collision_pair_max_points(const CollisionSettings *set, const BodyStore *s, PetscInt nb, int32_t a, int32_t b)
{
  if (a >= nb) {
    const Wall *w = &set->walls[a - nb];
    return collision_clump_pair(set, s, nb, a, b) ? collision_clump_wall_max_points(set->clumps, w, s, b)
                                                  : collision_wall_max_points(w, (ShapeKind)s->shape[b]);
  }
  return collision_clump_pair(set, s, nb, a, b) ? collision_clump_pair_max_points(set->clumps, s, a, b)
                                                : collision_body_pair_max_points(s, a, b);
}

PetscErrorCode CollisionDetect(const CollisionSettings *set, const BodyStore *s, PetscInt nb, Broadphase *bp,
                               ContactSet *cs)
{
  const PetscInt     nown        = PetscMin(nb, s->n_owned);
  const double       env         = set->envelope;
  const PairKeyRange range       = collision_pair_key_range(s, nb, set->nwalls);
  PetscInt           nwall_tests = 0, cap, npairs = 0, max_points = 0;
  const BodyPair    *cand;
  PairRecord        *rec, *tmp, *sorted = NULL;
  PairParamsCache    cache = PAIR_PARAMS_CACHE_EMPTY;

  PetscFunctionBegin;
  PetscCheck(nb >= 0 && nb <= s->n_owned + s->n_ghost, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "CollisionDetect: nb = %" PetscInt_FMT " must lie in [0, owned + ghosts = %" PetscInt_FMT "]", nb,
             s->n_owned + s->n_ghost);
  PetscCheck(set->nwalls == 0 || set->walls, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL,
             "CollisionDetect: %d walls but no wall array", set->nwalls);
  ContactSetClear(cs);
  PetscCall(BroadphaseFindCandidates(bp, s, nb, env, &cand));

  for (PetscInt i = 0; i < nown; i++)
    for (int k = 0; k < set->nwalls; k++)
      nwall_tests += collision_wall_may_touch(&set->walls[k], s->pos + 3 * (size_t)i, s->radius[i], env);
  cap = bp->npairs + nwall_tests;
  PetscCall(
    ScratchPoolGet(BroadphaseScratch(bp), SCRATCH_PAIR_RECORDS, sizeof(*rec) * ((size_t)cap + 1), 0, (void **)&rec));
  PetscCall(
    ScratchPoolGet(BroadphaseScratch(bp), SCRATCH_PAIR_SORT, sizeof(*tmp) * ((size_t)cap + 1), 0, (void **)&tmp));

  for (PetscInt p = 0; p < bp->npairs; p++) {
    const int32_t i = cand[p].i, j = cand[p].j;
    if (i >= s->n_owned) continue; /* i < j, so both are ghosts: another rank computes it */
    const int32_t A = s->id[i] < s->id[j] ? i : j, B = A == i ? j : i;
    if (A >= s->n_owned) continue; /* the owner of A computes the contact: exactly one rank does */
    rec[npairs++] = (PairRecord){collision_pair_key(&range, s->id[A], s->id[B]), A, B};
    max_points += set->clumps ? collision_pair_max_points(set, s, nb, A, B) : collision_body_pair_max_points(s, A, B);
  }
  for (PetscInt i = 0; i < nown; i++)
    for (int k = 0; k < set->nwalls; k++) {
      if (!collision_wall_may_touch(&set->walls[k], s->pos + 3 * (size_t)i, s->radius[i], env)) continue;
      rec[npairs++] = (PairRecord){collision_pair_key(&range, wall_global_id(k), s->id[i]), (int32_t)(nb + k),
                                   (int32_t)i};
      max_points += collision_pair_max_points(set, s, nb, (int32_t)(nb + k), (int32_t)i);
    }

  PetscCall(collision_sort_pairs(s, nb, &range, npairs, rec, tmp, &sorted));
  PetscCall(ContactSetReserve(cs, max_points));
  for (PetscInt k = 0; k < npairs; k++) {
    if (k + 8 < npairs) { /* key order reads the bodies in id order: fetch ahead */
      const PairRecord *ahead = &sorted[k + 8];
      if (ahead->a < nb) {
        __builtin_prefetch(s->pos + 3 * (size_t)ahead->a);
        __builtin_prefetch(s->size + 3 * (size_t)ahead->a);
      }
      __builtin_prefetch(s->pos + 3 * (size_t)ahead->b);
      __builtin_prefetch(s->size + 3 * (size_t)ahead->b);
      __builtin_prefetch(s->id + ahead->b);
    }
    contact_set_prefetch_appends(cs);
    if (collision_clump_pair(set, s, nb, sorted[k].a, sorted[k].b))
      append_clump_pair(set, s, nb, sorted[k].a, sorted[k].b, &cache, cs);
    else append_pair(set, s, nb, sorted[k].a, sorted[k].b, &cache, cs);
  }
  PetscCall(ContactSetSortByKey(cs)); /* already in order: the appends' flag says so, nothing to do */
  PetscFunctionReturn(PETSC_SUCCESS);
}
