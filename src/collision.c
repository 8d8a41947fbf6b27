/* Collision detection for one step.
 *
 * 1. Broadphase pairs among bodies [0, nb); a pair is kept only on the rank that owns body A (the
 *    smaller global id), so with symmetric halos every contact is computed by exactly one rank. Every owned body is tested against every wall (walls are replicated, so
 *    the body's owner computes its wall contacts); ghosts never are.
 * 2. Each kept pair is staged as a KeyedPair (key, A, B): 32 bytes, no geometry yet. A is the
 *    smaller global id (walls have negative ids, so a wall is always A); the normal runs from A to B.
 * 3. Stable radix sort of (packed key, record index), then one pass in key order that runs the
 *    narrowphase of each pair and writes its points (sub 0, 1, ...) straight into the contact set,
 *    as the neighbour list does (src/neighbour_list.c). Staging the computed points instead (120
 *    bytes each) cost fresh pages and a random gather of two cache lines per point; reading the
 *    two bodies in key order costs about the same cache misses, and the sphere-sphere narrowphase
 *    is a square root. The broadphase's (i, j) sort is not needed: the key sort decides the order.
 *    ContactSetSortByKey then only verifies the order.
 *
 * Box-box contacts (two box bodies, or a box body and a box wall) are not supported: such pairs
 * are skipped here, and the scenario checker rejects scenarios that could produce them.
 *
 * The staging buffers are allocated per call (the header gives CollisionDetect no workspace) and
 * freed before the solve (README "Memory per body"). */
#include "collision.h"
#include "collision_impl.h"
#include <string.h>

/* Points between bodies A and B (storage indices), normal from A to B. */
int collision_body_pair_points(const BodyStore *s, PetscInt A, PetscInt B, double envelope, ContactPoint pts[NARROW_MAX_POINTS])
{
  const double *xa = s->pos + 3 * (size_t)A, *qa = s->quat + 4 * (size_t)A, *sa = s->size + 3 * (size_t)A;
  const double *xb = s->pos + 3 * (size_t)B, *qb = s->quat + 4 * (size_t)B, *sb = s->size + 3 * (size_t)B;
  const int     shape_a = s->shape[A], shape_b = s->shape[B];
  int           np;

  if (shape_a == SHAPE_SPHERE && shape_b == SHAPE_SPHERE) return narrow_sphere_sphere(xa, sa[0], xb, sb[0], envelope, pts);
  if (shape_a == SHAPE_BOX && shape_b == SHAPE_SPHERE) return narrow_box_sphere(xa, qa, sa, xb, sb[0], envelope, pts);
  if (shape_a == SHAPE_BOX) return 0; /* box - box: not supported */
  /* sphere A, box B: the kernel runs from the box, so turn its answer around */
  np = narrow_box_sphere(xb, qb, sb, xa, sa[0], envelope, pts);
  for (int k = 0; k < np; k++) {
    double t[3];
    v3_scale(pts[k].n, -1.0, pts[k].n);
    v3_copy(t, pts[k].p1); v3_copy(pts[k].p1, pts[k].p2); v3_copy(pts[k].p2, t);
  }
  return np;
}

/* Points between wall w (A) and body B, normal from the wall to the body. */
int collision_wall_body_points(const Wall *w, const BodyStore *s, PetscInt B, double envelope, ContactPoint pts[NARROW_MAX_POINTS])
{
  const double *xb = s->pos + 3 * (size_t)B, *qb = s->quat + 4 * (size_t)B, *sb = s->size + 3 * (size_t)B;
  if (w->type == WALL_PLANE) {
    if (s->shape[B] == SHAPE_SPHERE) return narrow_plane_sphere(w->point, w->normal, xb, sb[0], envelope, pts);
    return narrow_plane_box(w->point, w->normal, xb, qb, sb, envelope, pts);
  }
  if (s->shape[B] == SHAPE_SPHERE) return narrow_box_sphere(w->center, w->quat, w->half_extents, xb, sb[0], envelope, pts);
  return 0; /* box wall - box body: not supported */
}

/* Stage np points. ref_a/ref_b: the reference points ra/rb are measured from; ref_a NULL for a
 * plane, whose reference is the contact point itself (walls have zero inverse mass, so only
 * consistency matters). */
void collision_stage_points(StagedPoint *st, PetscInt *nst, const ContactPoint *pts, int np, int32_t a, int32_t b, int64_t ida, int64_t idb, int32_t mat_a, int32_t mat_b,
                             const double *ref_a, const double *ref_b)
{
  for (int k = 0; k < np; k++) {
    StagedPoint *p = &st[(*nst)++];
    memset(&p->key, 0, sizeof(p->key)); /* no uninitialized padding reaches checkpoints */
    p->key.ida = ida; p->key.idb = idb; p->key.sub = k;
    p->a = a; p->b = b; p->mat_a = mat_a; p->mat_b = mat_b;
    v3_copy(p->n, pts[k].n);
    v3_sub(p->ra, pts[k].p1, ref_a ? ref_a : pts[k].p1);
    v3_sub(p->rb, pts[k].p2, ref_b);
    p->phi = pts[k].phi;
  }
}

static inline int bit_length(uint64_t v) { return v ? 64 - __builtin_clzll(v) : 0; }

/* LSD radix sort by the low `bits` bits of the key, ping-ponging between r and tmp; digits of at
 * most 11 bits keep the histograms in L1. Stable. Returns the buffer holding the result. */
static SortRecord *radix_sort(SortRecord *r, SortRecord *tmp, PetscInt n, int bits)
{
  enum { MAX_PASSES = 6, MAX_DIGIT = 11 };
  const int      passes = (bits + MAX_DIGIT - 1) / MAX_DIGIT, width = passes ? (bits + passes - 1) / passes : 0;
  const uint64_t mask = ((uint64_t)1 << width) - 1;
  PetscInt       hist[MAX_PASSES][1 << MAX_DIGIT];

  if (n < 2) return r;
  memset(hist, 0, sizeof(hist));
  for (PetscInt k = 0; k < n; k++)
    for (int p = 0; p < passes; p++) hist[p][(r[k].key >> (p * width)) & mask]++;
  for (int p = 0; p < passes; p++) {
    PetscInt    sum = 0;
    SortRecord *swap;
    if (hist[p][(r[0].key >> (p * width)) & mask] == n) continue; /* all share this digit */
    for (uint64_t d = 0; d <= mask; d++) {
      const PetscInt c = hist[p][d];
      hist[p][d]       = sum;
      sum += c;
    }
    for (PetscInt k = 0; k < n; k++) tmp[hist[p][(r[k].key >> (p * width)) & mask]++] = r[k];
    swap = r; r = tmp; tmp = swap;
  }
  return r;
}

/* Records that start with a key, `stride` bytes apart. */
typedef struct {
  const char *base;
  size_t      stride;
} KeyedRecords;

static inline const ContactKey *keyed_key(const KeyedRecords *r, PetscInt k) { return (const ContactKey *)(r->base + r->stride * (size_t)k); }

/* Fallback order when the id ranges do not fit one 64-bit key: by key, then staging order. */
static int staged_compare(const void *pa, const void *pb, void *ctx)
{
  const KeyedRecords *st = (const KeyedRecords *)ctx;
  const SortRecord   *x = (const SortRecord *)pa, *y = (const SortRecord *)pb;
  const ContactKey   *kx = keyed_key(st, x->idx), *ky = keyed_key(st, y->idx);
  if (kx->ida != ky->ida) return kx->ida < ky->ida ? -1 : 1;
  if (kx->idb != ky->idb) return kx->idb < ky->idb ? -1 : 1;
  if (kx->sub != ky->sub) return kx->sub < ky->sub ? -1 : 1;
  return (x->idx > y->idx) - (x->idx < y->idx);
}

PetscErrorCode collision_sort_by_key(const void *records, size_t stride, PetscInt nst, SortRecord *rec, SortRecord *tmp, SortRecord **sorted)
{
  KeyedRecords st = {(const char *)records, stride};
  int64_t  alo = INT64_MAX, ahi = INT64_MIN, blo = INT64_MAX, bhi = INT64_MIN;
  int      bits_a, bits_b;
  PetscInt k;

  PetscFunctionBegin;
  for (k = 0; k < nst; k++) {
    const ContactKey *key = keyed_key(&st, k);
    alo = PetscMin(alo, key->ida); ahi = PetscMax(ahi, key->ida);
    blo = PetscMin(blo, key->idb); bhi = PetscMax(bhi, key->idb);
  }
  /* id ranges in unsigned arithmetic, exact for any int64 ids; sub < 4 takes 2 bits */
  bits_a = nst ? bit_length((uint64_t)ahi - (uint64_t)alo) : 0;
  bits_b = nst ? bit_length((uint64_t)bhi - (uint64_t)blo) : 0;
  if (bits_a + bits_b + 2 <= 64) {
    for (k = 0; k < nst; k++) {
      const ContactKey *key = keyed_key(&st, k);
      rec[k].key = ((((uint64_t)key->ida - (uint64_t)alo) << bits_b | ((uint64_t)key->idb - (uint64_t)blo)) << 2) | (uint64_t)key->sub;
      rec[k].idx = k;
    }
    *sorted = radix_sort(rec, tmp, nst, bits_a + bits_b + 2);
  } else {
    for (k = 0; k < nst; k++) rec[k].idx = k;
    PetscCall(PetscTimSort(nst, rec, sizeof(SortRecord), staged_compare, &st));
    *sorted = rec;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

void collision_contact_from(const CollisionSettings *set, const StagedPoint *p, Contact *c)
{
  PairParams pp;
  memset(c, 0, sizeof(*c)); /* bn, c_lin, c_rot, eta, cohesion_impulse: set by the stepper */
  material_pair(&set->materials[p->mat_a], &set->materials[p->mat_b], &pp);
  c->a = p->a; c->b = p->b; c->sub = p->key.sub;
  c->dof = (pp.rho == 0 && pp.sigma == 0) ? 3 : 6;
  v3_copy(c->n, p->n);
  v3_tangents(c->n, c->u, c->w);
  v3_copy(c->ra, p->ra); v3_copy(c->rb, p->rb);
  c->phi = p->phi;
  c->mu = pp.mu; c->rho = pp.rho; c->sigma = pp.sigma; c->cohesion = pp.cohesion; c->compliance = pp.compliance; c->damping = pp.damping; c->yield_force = pp.yield_force;
}

/* Append the contacts of one candidate pair, in key order: its narrowphase points, sub 0, 1, ... */
static PetscErrorCode collision_append_pair(const CollisionSettings *set, const BodyStore *s, PetscInt nb, const KeyedPair *q, ContactSet *cs)
{
  ContactPoint pts[NARROW_MAX_POINTS];
  StagedPoint  st[NARROW_MAX_POINTS];
  PetscInt     nst = 0;
  const Wall  *w   = q->a >= nb ? &set->walls[q->a - nb] : NULL;
  const int    np  = w ? collision_wall_body_points(w, s, q->b, set->envelope, pts) : collision_body_pair_points(s, q->a, q->b, set->envelope, pts);

  PetscFunctionBegin;
  if (!np) PetscFunctionReturn(PETSC_SUCCESS);
  if (w) collision_stage_points(st, &nst, pts, np, q->a, q->b, q->key.ida, q->key.idb, w->material, s->material[q->b], w->type == WALL_PLANE ? NULL : w->center, s->pos + 3 * (size_t)q->b);
  else collision_stage_points(st, &nst, pts, np, q->a, q->b, q->key.ida, q->key.idb, s->material[q->a], s->material[q->b], s->pos + 3 * (size_t)q->a, s->pos + 3 * (size_t)q->b);
  for (PetscInt k = 0; k < nst; k++) {
    Contact *c;
    PetscCall(ContactSetAppendSlot(cs, &st[k].key, &c));
    collision_contact_from(set, &st[k], c);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline void collision_keyed_pair(KeyedPair *q, int64_t ida, int64_t idb, int32_t a, int32_t b)
{
  memset(q, 0, sizeof(*q)); /* no uninitialized padding in the key */
  q->key.ida = ida;
  q->key.idb = idb;
  q->a       = a;
  q->b       = b;
}

PetscErrorCode CollisionDetect(const CollisionSettings *set, const BodyStore *s, PetscInt nb, Broadphase *bp, ContactSet *cs)
{
  const PetscInt  nown = PetscMin(nb, s->n_owned);
  const double    env  = set->envelope;
  PetscInt        nwall_tests = 0, cap, npairs = 0, max_points;
  const BodyPair *cand;
  KeyedPair      *pair;
  SortRecord     *rec, *tmp, *sorted = NULL;

  PetscFunctionBegin;
  PetscCheck(nb >= 0 && nb <= s->n_owned + s->n_ghost, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "CollisionDetect: nb = %" PetscInt_FMT " must lie in [0, owned + ghosts = %" PetscInt_FMT "]", nb, s->n_owned + s->n_ghost);
  PetscCheck(set->nwalls == 0 || set->walls, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "CollisionDetect: %d walls but no wall array", set->nwalls);
  ContactSetClear(cs);
  PetscCall(BroadphaseFindCandidates(bp, s, nb, env, &cand));

  for (PetscInt i = 0; i < nown; i++)
    for (int k = 0; k < set->nwalls; k++) nwall_tests += collision_wall_may_touch(&set->walls[k], s->pos + 3 * (size_t)i, s->radius[i], env);
  cap = bp->npairs + nwall_tests;
  PetscCall(PetscMalloc3((size_t)cap + 1, &pair, (size_t)cap + 1, &rec, (size_t)cap + 1, &tmp));

  for (PetscInt p = 0; p < bp->npairs; p++) {
    const int32_t i = cand[p].i, j = cand[p].j;
    if (i >= s->n_owned) continue; /* i < j, so both are ghosts: another rank computes it */
    const int32_t A = s->id[i] < s->id[j] ? i : j, B = A == i ? j : i;
    if (A >= s->n_owned) continue; /* the owner of A computes the contact: exactly one rank does */
    collision_keyed_pair(&pair[npairs++], s->id[A], s->id[B], A, B);
  }
  max_points = npairs; /* a body pair gives at most one point (box-box is skipped) */
  for (PetscInt i = 0; i < nown; i++)
    for (int k = 0; k < set->nwalls; k++) {
      if (!collision_wall_may_touch(&set->walls[k], s->pos + 3 * (size_t)i, s->radius[i], env)) continue;
      collision_keyed_pair(&pair[npairs++], wall_global_id(k), s->id[i], (int32_t)(nb + k), (int32_t)i);
      max_points += s->shape[i] == SHAPE_SPHERE ? 1 : NARROW_MAX_POINTS;
    }

  PetscCall(collision_sort_by_key(pair, sizeof(KeyedPair), npairs, rec, tmp, &sorted));
  PetscCall(ContactSetReserve(cs, max_points));
  for (PetscInt k = 0; k < npairs; k++) {
    if (k + 8 < npairs) { /* key order reads the bodies in id order: fetch ahead */
      const KeyedPair *ahead = &pair[sorted[k + 8].idx];
      if (ahead->a < nb) {
        __builtin_prefetch(s->pos + 3 * (size_t)ahead->a);
        __builtin_prefetch(s->size + 3 * (size_t)ahead->a);
      }
      __builtin_prefetch(s->pos + 3 * (size_t)ahead->b);
      __builtin_prefetch(s->size + 3 * (size_t)ahead->b);
    }
    PetscCall(collision_append_pair(set, s, nb, &pair[sorted[k].idx], cs));
  }
  PetscCall(PetscFree3(pair, rec, tmp));
  PetscCall(ContactSetSortByKey(cs)); /* already in order: this only verifies it */
  PetscFunctionReturn(PETSC_SUCCESS);
}
