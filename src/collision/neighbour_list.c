/* See collision/neighbour_list.h. */
#include "collision/neighbour_list.h"
#include "base/growth.h"
#include "collision/detect_impl.h"
#include "collision/clump_contact.h"
#include <math.h>
#include <string.h>

PetscErrorCode NeighbourListCreate(NeighbourList *nl, double skin)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(nl, sizeof(*nl)));
  PetscCheck(skin >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "NeighbourListCreate: skin %g must be >= 0", skin);
  nl->skin = skin;
  nl->nb   = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode NeighbourListDestroy(NeighbourList *nl)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(nl->pair));
  PetscCall(PetscFree2(nl->id, nl->x0));
  PetscCall(PetscFree(nl->wall_travel));
  PetscCall(PetscMemzero(nl, sizeof(*nl)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline double dist2(const double a[3], const double b[3])
{
  const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
  return dx * dx + dy * dy + dz * dz;
}

/* Can the list serve this step: same layout, and nothing moved more than skin / 2 since the
 * build (a pair's gap then shrank by less than the skin, so no pair outside the list can touch). */
static PetscBool list_valid(const NeighbourList *nl, const CollisionSettings *set, const BodyStore *s, PetscInt nb)
{
  const double limit2 = 0.25 * nl->skin * nl->skin;
  double       worst  = 0;

  if (nl->nb != nb || nl->n_owned != s->n_owned || nl->nwalls != set->nwalls || nl->envelope != set->envelope)
    return PETSC_FALSE;
  if (nb && memcmp(nl->id, s->id, sizeof(int64_t) * (size_t)nb)) return PETSC_FALSE;
  for (PetscInt i = 0; i < nb; i++) {
    const double d = dist2(s->pos + 3 * (size_t)i, nl->x0 + 3 * (size_t)i);
    worst          = d > worst ? d : worst;
  }
  for (int k = 0; k < set->nwalls; k++) {
    const double moved = set->walls[k].travel - nl->wall_travel[k]; /* a turning wall's points move, not its centre */
    double       d     = dist2(set->walls[k].center, nl->x0 + 3 * ((size_t)nb + k));
    if (moved != 0) d = (sqrt(d) + moved) * (sqrt(d) + moved);
    worst = d > worst ? d : worst;
  }
  return (PetscBool)(worst <= limit2);
}

/* The candidates within envelope + skin, each on the rank that will compute it (as CollisionDetect
 * keeps them), in key order; and the layout they refer to. */
static PetscErrorCode list_build(NeighbourList *nl, const CollisionSettings *set, const BodyStore *s, PetscInt nb,
                                 Broadphase *bp)
{
  const PetscInt nown  = PetscMin(nb, s->n_owned);
  const double   reach = set->envelope + nl->skin;
  PetscInt       nwall = 0, nfound = 0, cap, max_points = 0;
  NeighbourPair *found;
  SortRecord    *rec, *tmp, *sorted;

  PetscFunctionBegin;
  PetscCall(BroadphaseFindPairs(bp, s, nb, reach));
  for (PetscInt i = 0; i < nown; i++)
    for (int k = 0; k < set->nwalls; k++)
      nwall += collision_wall_may_touch(&set->walls[k], s->pos + 3 * (size_t)i, s->radius[i], reach);
  cap = bp->npairs + nwall;
  PetscCall(PetscMalloc3((size_t)cap + 1, &found, (size_t)cap + 1, &rec, (size_t)cap + 1, &tmp));
  for (PetscInt p = 0; p < bp->npairs; p++) {
    const int32_t i = bp->pairs[p].i, j = bp->pairs[p].j;
    if (i >= s->n_owned) continue; /* both ghosts: another rank's */
    const int32_t A = s->id[i] < s->id[j] ? i : j, B = A == i ? j : i;
    if (A >= s->n_owned) continue;                    /* the owner of A computes the contact */
    memset(&found[nfound], 0, sizeof(found[nfound])); /* no uninitialized padding in the key */
    found[nfound].key.ida = s->id[A];
    found[nfound].key.idb = s->id[B];
    found[nfound].a       = A;
    found[nfound++].b     = B;
    max_points += set->clumps ? collision_pair_max_points(set, s, nb, A, B) : collision_body_pair_max_points(s, A, B);
  }
  for (PetscInt i = 0; i < nown; i++)
    for (int k = 0; k < set->nwalls; k++) {
      if (!collision_wall_may_touch(&set->walls[k], s->pos + 3 * (size_t)i, s->radius[i], reach)) continue;
      memset(&found[nfound], 0, sizeof(found[nfound]));
      found[nfound].key.ida = wall_global_id(k);
      found[nfound].key.idb = s->id[i];
      found[nfound].a       = (int32_t)(nb + k);
      found[nfound++].b     = (int32_t)i;
      max_points += set->clumps ? collision_pair_max_points(set, s, nb, (int32_t)(nb + k), (int32_t)i)
                                : collision_wall_max_points(&set->walls[k], (ShapeKind)s->shape[i]);
    }
  nl->max_points = max_points;
  PetscCall(collision_sort_by_key(found, sizeof(NeighbourPair), nfound, rec, tmp, &sorted));
  if (nfound > nl->cap) {
    PetscCall(PetscFree(nl->pair));
    nl->cap = (PetscInt)GrowthCapacity((size_t)nl->cap, (size_t)nfound);
    PetscCall(PetscMalloc1((size_t)nl->cap, &nl->pair));
  }
  for (PetscInt k = 0; k < nfound; k++) nl->pair[k] = found[sorted[k].idx];
  nl->n = nfound;
  PetscCall(PetscFree3(found, rec, tmp));

  if ((size_t)nb + (size_t)set->nwalls > nl->body_cap) {
    PetscCall(PetscFree2(nl->id, nl->x0));
    nl->body_cap = GrowthCapacity(nl->body_cap, (size_t)nb + (size_t)set->nwalls);
    PetscCall(PetscMalloc2(nl->body_cap, &nl->id, 3 * nl->body_cap, &nl->x0));
  }
  if (nb) {
    PetscCall(PetscArraycpy(nl->id, s->id, nb));
    PetscCall(PetscArraycpy(nl->x0, s->pos, 3 * (size_t)nb));
  }
  if (set->nwalls != nl->nwalls) {
    PetscCall(PetscFree(nl->wall_travel));
    PetscCall(PetscMalloc1(set->nwalls + 1, &nl->wall_travel));
  }
  for (int k = 0; k < set->nwalls; k++) {
    v3_copy(nl->x0 + 3 * ((size_t)nb + k), set->walls[k].center);
    nl->wall_travel[k] = set->walls[k].travel;
  }
  nl->nb       = nb;
  nl->n_owned  = s->n_owned;
  nl->nwalls   = set->nwalls;
  nl->envelope = set->envelope;
  nl->builds++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Contact geometry only: bodies, normal, B's offset and gap (the record's first cache line), as
 * collision_stage_points gives them; nothing else is written (the penalty model reads no more:
 * each further line written would be a line read for ownership). */
static void contact_geometry_from(const StagedPoint *p, Contact *c)
{
  c->a = p->a;
  c->b = p->b;
  v3_copy(c->n, p->n);
  v3_copy(c->rb, p->rb);
  c->phi = p->phi;
}

/* The geometry-only detection keeps the touching pairs (gap below 0): a pair in the envelope but
 * apart has neither load nor history in the penalty model, so its record would only cost a
 * contact's traffic every step (a fifth of the benchmark pile's contacts). */
#define TOUCHING_GAP 0.0

/* The list valid for this step (rebuilt if not), the set cleared with room for every point. */
static PetscErrorCode listed_begin(const CollisionSettings *set, const BodyStore *s, PetscInt nb, Broadphase *bp,
                                   NeighbourList *nl, ContactSet *cs)
{
  PetscFunctionBegin;
  PetscCheck(nb >= 0 && nb <= s->n_owned + s->n_ghost, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "detection from the neighbour list: nb = %" PetscInt_FMT " must lie in [0, owned + ghosts = %" PetscInt_FMT
             "]",
             nb, s->n_owned + s->n_ghost);
  PetscCheck(set->nwalls == 0 || set->walls, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL,
             "detection from the neighbour list: %d walls but no wall array", set->nwalls);
  if (!list_valid(nl, set, s, nb)) PetscCall(list_build(nl, set, s, nb, bp));
  nl->steps++;
  ContactSetClear(cs);
  PetscCall(ContactSetReserve(cs, nl->max_points));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Key order reads the bodies in id order: fetch candidate p's ahead. */
static inline void listed_prefetch(const NeighbourList *nl, const BodyStore *s, PetscInt nb, PetscInt p)
{
  if (p < nl->n) {
    const NeighbourPair *ahead = &nl->pair[p];
    if (ahead->a < nb) __builtin_prefetch(s->pos + 3 * (size_t)ahead->a);
    __builtin_prefetch(s->pos + 3 * (size_t)ahead->b);
    __builtin_prefetch(s->size + 3 * (size_t)ahead->b);
  }
}

/* A clump pair's touching points, as listed_geometry_pair writes them (reserved by listed_begin). */
typedef struct {
  ContactSet          *cs;
  const NeighbourPair *q;
  const double        *ref_b;
} ClumpGeometry;

static void clump_geometry_append(void *ctx, const ContactPoint *pt, int32_t sub)
{
  const ClumpGeometry *g   = (const ClumpGeometry *)ctx;
  ContactKey           key = g->q->key;
  Contact             *c;

  if (!(pt->phi < TOUCHING_GAP)) return;
  key.sub = sub;
  c       = contact_set_append_reserved(g->cs, &key);
  c->a    = g->q->a;
  c->b    = g->q->b;
  v3_copy(c->n, pt->n);
  v3_sub(c->rb, pt->p2, g->ref_b);
  c->phi = pt->phi;
}

/* Candidate q's touching points (gap below TOUCHING_GAP) through the general narrowphase and
 * staging, their geometry only (contact_geometry_from), each with the point index (sub) the
 * narrowphase gave it: the pairs listed_sphere_pair does not take. */
static PetscErrorCode listed_geometry_pair(const CollisionSettings *set, const BodyStore *s, PetscInt nb,
                                           const NeighbourPair *q, ContactSet *cs)
{
  ContactPoint pts[NARROW_MAX_POINTS];
  int32_t      sub[NARROW_MAX_POINTS];
  StagedPoint  st[NARROW_MAX_POINTS];
  PetscInt     nst = 0;
  int          np;

  PetscFunctionBegin;
  if (collision_clump_pair(set, s, nb, q->a, q->b)) {
    ClumpGeometry g = {cs, q, s->pos + 3 * (size_t)q->b};
    if (q->a >= nb)
      collision_clump_wall_points(set->clumps, &set->walls[q->a - nb], s, q->b, set->envelope, clump_geometry_append,
                                  &g);
    else collision_clump_pair_points(set->clumps, s, q->a, q->b, set->envelope, clump_geometry_append, &g);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (q->a >= nb) {
    const Wall *w = &set->walls[q->a - nb];
    np            = collision_wall_body_points(w, s, q->b, set->envelope, pts, sub);
    if (np)
      collision_stage_points(st, &nst, pts, sub, np, q->a, q->b, q->key.ida, q->key.idb, w->material, s->material[q->b],
                             collision_wall_reference(w), s->pos + 3 * (size_t)q->b);
  } else {
    np = collision_body_pair_points(s, q->a, q->b, set->envelope, pts, sub);
    if (np)
      collision_stage_points(st, &nst, pts, sub, np, q->a, q->b, q->key.ida, q->key.idb, s->material[q->a],
                             s->material[q->b], s->pos + 3 * (size_t)q->a, s->pos + 3 * (size_t)q->b);
  }
  for (PetscInt k = 0; k < nst; k++) {
    Contact *c;
    if (!(st[k].phi < TOUCHING_GAP)) continue;
    PetscCall(ContactSetAppendSlot(cs, &st[k].key, &c));
    contact_geometry_from(&st[k], c);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Point pt's geometry into the set with the pair's key (sub 0), as contact_geometry_from after
 * collision_stage_points: B's offset from its centre. */
static inline void sphere_geometry_append(ContactSet *cs, const NeighbourPair *q, const ContactPoint *pt,
                                          const double *ref_b)
{
  Contact *c = contact_set_append_reserved(cs, &q->key);
  c->a       = q->a;
  c->b       = q->b;
  v3_copy(c->n, pt->n);
  v3_sub(c->rb, pt->p2, ref_b);
  c->phi = pt->phi;
}

/* Candidate q when it is sphere - sphere or plane - sphere (the penalty model's piles): the inline
 * narrowphase kernel straight into the set, the same bits as listed_geometry_pair gives, if the pair
 * touches; at most one point, for which listed_begin reserved room. Returns whether q was of
 * these kinds. */
static inline PetscBool listed_sphere_pair(const CollisionSettings *set, const BodyStore *s, PetscInt nb,
                                           const NeighbourPair *q, ContactSet *cs)
{
  const double *xb = s->pos + 3 * (size_t)q->b;
  ContactPoint  pt;

  if (s->shape[q->b] != SHAPE_SPHERE) return PETSC_FALSE;
  if (q->a >= nb) {
    const Wall *w = &set->walls[q->a - nb];
    if (w->type != WALL_PLANE) return PETSC_FALSE;
    if (narrow_plane_sphere(w->point, w->normal, xb, s->size[3 * (size_t)q->b], TOUCHING_GAP, &pt))
      sphere_geometry_append(cs, q, &pt, xb);
    return PETSC_TRUE;
  }
  if (s->shape[q->a] != SHAPE_SPHERE) return PETSC_FALSE;
  {
    const double *xa = s->pos + 3 * (size_t)q->a;
    if (narrow_sphere_sphere(xa, s->size[3 * (size_t)q->a], xb, s->size[3 * (size_t)q->b], TOUCHING_GAP, &pt))
      sphere_geometry_append(cs, q, &pt, xb);
  }
  return PETSC_TRUE;
}

PetscErrorCode CollisionDetectListed(const CollisionSettings *set, const BodyStore *s, PetscInt nb, Broadphase *bp,
                                     NeighbourList *nl, ContactSet *cs)
{
  PairParamsCache cache = PAIR_PARAMS_CACHE_EMPTY;

  PetscFunctionBegin;
  PetscCall(listed_begin(set, s, nb, bp, nl, cs));
  for (PetscInt p = 0; p < nl->n; p++) {
    listed_prefetch(nl, s, nb, p + 8);
    collision_append_pair(set, s, nb, nl->pair[p].a, nl->pair[p].b, &cache, cs);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CollisionDetectListedGeometry(const CollisionSettings *set, const BodyStore *s, PetscInt nb,
                                             Broadphase *bp, NeighbourList *nl, ContactSet *cs)
{
  CollisionSettings touching = *set;

  PetscFunctionBegin;
  touching.envelope = TOUCHING_GAP; /* the list: pairs within the skin alone (the envelope's band would only add
                                       candidates that never touch before a rebuild) */
  PetscCall(listed_begin(&touching, s, nb, bp, nl, cs));
  for (PetscInt p = 0; p < nl->n; p++) {
    listed_prefetch(nl, s, nb, p + 8);
    if (!listed_sphere_pair(set, s, nb, &nl->pair[p], cs))
      PetscCall(listed_geometry_pair(set, s, nb, &nl->pair[p], cs));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
