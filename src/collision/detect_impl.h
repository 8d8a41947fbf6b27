/* The pieces of collision detection (src/collision/detect.c) that the neighbour list
 * (src/collision/neighbour_list.c) runs on its own candidates: the same narrowphase calls, staging, key
 * sort and contact records, so both produce bit-identical contacts in the same key order. */
#ifndef CCPDEM_COLLISION_DETECT_IMPL_H
#define CCPDEM_COLLISION_DETECT_IMPL_H
#include "collision/detect.h"
#include "collision/narrowphase.h"
#include "collision/box_box.h"
#include "collision/cylinder_contact.h"
#include "collision/trimesh.h"
#include "collision/triangle_contact.h"
#include "base/vec3.h"

/* One contact point before the final ordering. */
typedef struct {
  ContactKey key;
  int32_t    a, b;         /* solver indices */
  int32_t    mat_a, mat_b; /* material indices */
  double     n[3], ra[3], rb[3], phi;
} StagedPoint;

typedef struct {
  uint64_t key; /* (id A, id B, sub) packed so that integer order is key order */
  PetscInt idx; /* staged point */
} SortRecord;

/* Conservative test on the bounding sphere: can a body at x with bounding radius r touch wall w? */
static inline int collision_wall_may_touch(const Wall *w, const double x[3], double r, double envelope)
{
  double d[3];
  if (w->type == WALL_PLANE) {
    v3_sub(d, x, w->point);
    return v3_dot(d, w->normal) - r < envelope;
  }
  if (w->type == WALL_CYLINDER) return cylinder_may_touch(w, x, r, envelope);
  if (w->type == WALL_MESH) { /* the mesh's bounding sphere, placed by the wall's pose; a rank's part may be empty */
    double c[3];
    if (!w->mesh->nt) return 0;
    if (quat_is_identity(w->quat)) v3_add(c, w->mesh->centre, w->center);
    else {
      quat_rotate(c, w->quat, w->mesh->centre);
      v3_add(c, c, w->center);
    }
    v3_sub(d, x, c);
    return v3_norm(d) - r - w->mesh->radius < envelope;
  }
  v3_sub(d, x, w->center);
  return v3_norm(d) - r - v3_norm(w->half_extents) < envelope;
}

/* The most points wall w and a body of this shape give. */
static inline int collision_wall_max_points(const Wall *w, ShapeKind shape)
{
  if (shape == SHAPE_BOX && (w->type == WALL_BOX || w->type == WALL_MESH)) return NARROW_MAX_POINTS;
  return (shape == SHAPE_SPHERE || shape == SHAPE_ELLIPSOID) && w->type != WALL_MESH ? 1 : NARROW_VERTEX_POINTS;
}

/* Points between wall w (A) and the sphere (c, r), normal from the wall to the sphere; returns how many. */
static inline int collision_wall_sphere_points(const Wall *w, const double c[3], double r, double envelope,
                                               ContactPoint pts[NARROW_MAX_POINTS])
{
  if (w->type == WALL_PLANE) return narrow_plane_sphere(w->point, w->normal, c, r, envelope, pts);
  if (w->type == WALL_CYLINDER) return narrow_cylinder_sphere(w, c, r, envelope, pts);
  if (w->type == WALL_MESH) return narrow_mesh_sphere(w->mesh, w->center, w->quat, c, r, envelope, pts);
  return narrow_box_sphere(w->center, w->quat, w->half_extents, c, r, envelope, pts);
}

/* Whether pair (a, b) (a: a body, or wall a - nb; b: a body) has a clump body, whose contacts are its
 * members' (collision/clump_contact.h). */
static inline int collision_clump_pair(const CollisionSettings *set, const BodyStore *s, PetscInt nb, int32_t a,
                                       int32_t b)
{
  return set->clumps && (s->shape[b] == SHAPE_CLUMP || (a < nb && s->shape[a] == SHAPE_CLUMP));
}
/* The most points bodies A and B (storage indices, neither a clump) give: two boxes a manifold, any
 * other pair one. */
static inline int collision_body_pair_max_points(const BodyStore *s, PetscInt A, PetscInt B)
{
  return s->shape[A] == SHAPE_BOX && s->shape[B] == SHAPE_BOX ? BOX_BOX_MAX_POINTS : 1;
}
/* The most points pair (a, b) gives (a: a body, or wall a - nb; b: a body), clumps included. */
int collision_pair_max_points(const CollisionSettings *set, const BodyStore *s, PetscInt nb, int32_t a, int32_t b);

/* Points between bodies A and B (storage indices), normal from A to B, and each point's key sub
 * (its index, or a box pair's feature number: collision/box_box.h), ascending; returns how many. */
int collision_body_pair_points(const BodyStore *s, PetscInt A, PetscInt B, double envelope,
                               ContactPoint pts[NARROW_MAX_POINTS], int32_t sub[NARROW_MAX_POINTS]);
/* The reference point of wall w's contact offsets ra: NULL (the contact point itself) for a plane
 * without motion, else its centre, about which its angular velocity turns the contact points. */
static inline const double *collision_wall_reference(const Wall *w)
{
  return w->type == WALL_PLANE && !w->motion.moving ? NULL : w->center;
}
/* Points between wall w (A) and body B, normal from the wall to the body, and their subs (as
 * collision_body_pair_points); returns how many. */
int collision_wall_body_points(const Wall *w, const BodyStore *s, PetscInt B, double envelope,
                               ContactPoint pts[NARROW_MAX_POINTS], int32_t sub[NARROW_MAX_POINTS]);
/* Append np points to st[*nst ..] with keys (ida, idb, sub[k]); ref_a, ref_b as in collision/detect.c. */
void collision_stage_points(StagedPoint *st, PetscInt *nst, const ContactPoint *pts, const int32_t *sub, int np,
                            int32_t a, int32_t b, int64_t ida, int64_t idb, int32_t mat_a, int32_t mat_b,
                            const double *ref_a, const double *ref_b);
/* A candidate pair (A, B) before the final ordering, 16 bytes: its key packed in 64 bits where the
 * ids allow (collision_pair_key), and A and B carried along by the sort, so that nothing is
 * gathered and no geometry is staged; the pair's points are computed in key order. */
typedef struct {
  uint64_t key;
  int32_t  a, b; /* solver indices: A a body or a wall (nb + k), B a body */
} PairRecord;

typedef struct {
  int64_t   lo;   /* smallest id of the bodies [0, nb) and the walls */
  int       bits; /* bits of the id span */
  PetscBool fits; /* two ids fit one 64-bit key */
} PairKeyRange;

PairKeyRange collision_pair_key_range(const BodyStore *s, PetscInt nb, int nwalls);
/* (id A, id B) packed so that integer order is key order (0 where they do not fit) */
static inline uint64_t collision_pair_key(const PairKeyRange *r, int64_t ida, int64_t idb)
{
  return r->fits ? ((uint64_t)ida - (uint64_t)r->lo) << r->bits | ((uint64_t)idb - (uint64_t)r->lo) : 0;
}
/* The n pairs in key order (ids of bodies [0, nb) of s; walls first), stably: a radix sort where
 * the keys fit, else a comparison sort. *sorted is rec or tmp (each n entries). */
PetscErrorCode collision_sort_pairs(const BodyStore *s, PetscInt nb, const PairKeyRange *r, PetscInt n, PairRecord *rec,
                                    PairRecord *tmp, PairRecord **sorted);
/* Stable order by key of nst records that each start with a ContactKey, `stride` bytes apart:
 * *sorted (rec or tmp, each of nst + 1 entries) lists their indices in key order. */
PetscErrorCode collision_sort_by_key(const void *records, size_t stride, PetscInt nst, SortRecord *rec, SortRecord *tmp,
                                     SortRecord **sorted);
/* The last materials' pair parameters: pairs in key order mostly share their materials (a
 * one-material scene always), so detection combines them once, not per contact. */
typedef struct {
  int32_t    mat_a, mat_b; /* -1: none yet */
  PairParams pp;
} PairParamsCache;
#define PAIR_PARAMS_CACHE_EMPTY \
  { \
    .mat_a = -1, .mat_b = -1 \
  }

/* Append the contacts of pair (a, b) (a: a body, or wall a - nb), whose turn in key order it is:
 * its narrowphase points, sub 0, 1, ... (a clump's: collision/clump_contact.h), each written straight into its record
 * (cs has room for them: the caller reserved it), ra and rb as collision_stage_points gives them. CollisionDetect and
 * the neighbour list's CollisionDetectListed both build their contacts with it. */
void collision_append_pair(const CollisionSettings *set, const BodyStore *s, PetscInt nb, int32_t a, int32_t b,
                           PairParamsCache *cache, ContactSet *cs);
#endif
