/* See collision/clump_contact.h. */
#include "collision/clump_contact.h"
#include "collision/detect_impl.h"
#include "collision/ellipsoid_contact.h"

typedef struct {
  int    n;
  double c[CLUMP_MAX_MEMBERS][3], r[CLUMP_MAX_MEMBERS];
} Members;

/* A shape that is one member of its own, touching each member of the other body by its own kernel. */
static int solid_shape(int shape) { return shape == SHAPE_BOX || shape == SHAPE_ELLIPSOID; }

static int member_count(const Clump *clumps, const BodyStore *s, PetscInt i)
{
  return s->shape[i] == SHAPE_CLUMP ? clumps[(int)s->size[3 * (size_t)i]].n : 1;
}

/* Body i's member spheres in world coordinates (a sphere: itself). */
static void members_of(const Clump *clumps, const BodyStore *s, PetscInt i, Members *m)
{
  const double *x = s->pos + 3 * (size_t)i;
  if (s->shape[i] != SHAPE_CLUMP) {
    m->n = 1;
    v3_copy(m->c[0], x);
    m->r[0] = s->size[3 * (size_t)i];
    return;
  }
  {
    const Clump *t = &clumps[(int)s->size[3 * (size_t)i]];
    m->n           = t->n;
    for (int k = 0; k < t->n; k++) {
      clump_member_centre(t, x, s->quat + 4 * (size_t)i, k, m->c[k]);
      m->r[k] = t->radius[k];
    }
  }
}

int collision_clump_pair_max_points(const Clump *clumps, const BodyStore *s, PetscInt A, PetscInt B)
{
  return member_count(clumps, s, A) * member_count(clumps, s, B);
}

int collision_clump_wall_max_points(const Clump *clumps, const Wall *w, const BodyStore *s, PetscInt B)
{
  return member_count(clumps, s, B) * (w->type == WALL_MESH ? NARROW_MAX_POINTS : 1);
}

void collision_clump_pair_points(const Clump *clumps, const BodyStore *s, PetscInt A, PetscInt B, double envelope,
                                 ClumpPointFn emit, void *ctx)
{
  Members      ma, mb;
  ContactPoint pt;

  if (solid_shape(s->shape[A]) || solid_shape(s->shape[B])) { /* the box or ellipsoid against each member */
    const PetscInt solid = solid_shape(s->shape[A]) ? A : B, other = solid == A ? B : A;
    const double *xs = s->pos + 3 * (size_t)solid, *qs = s->quat + 4 * (size_t)solid, *ss = s->size + 3 * (size_t)solid;
    members_of(clumps, s, other, &ma);
    for (int k = 0; k < ma.n; k++) {
      if (!(s->shape[solid] == SHAPE_BOX ? narrow_box_sphere(xs, qs, ss, ma.c[k], ma.r[k], envelope, &pt)
                                         : narrow_ellipsoid_sphere(xs, qs, ss, ma.c[k], ma.r[k], envelope, &pt)))
        continue;
      if (solid == B) { /* the kernel runs from the box or ellipsoid: turn its answer around */
        double t[3];
        v3_scale(pt.n, -1.0, pt.n);
        v3_copy(t, pt.p1);
        v3_copy(pt.p1, pt.p2);
        v3_copy(pt.p2, t);
      }
      emit(ctx, &pt, solid == A ? clump_contact_sub(0, k, 0) : clump_contact_sub(k, 0, 0));
    }
    return;
  }
  members_of(clumps, s, A, &ma);
  members_of(clumps, s, B, &mb);
  for (int i = 0; i < ma.n; i++)
    for (int j = 0; j < mb.n; j++)
      if (narrow_sphere_sphere(ma.c[i], ma.r[i], mb.c[j], mb.r[j], envelope, &pt))
        emit(ctx, &pt, clump_contact_sub(i, j, 0));
}

void collision_clump_wall_points(const Clump *clumps, const Wall *w, const BodyStore *s, PetscInt B, double envelope,
                                 ClumpPointFn emit, void *ctx)
{
  Members      mb;
  ContactPoint pts[NARROW_MAX_POINTS];

  members_of(clumps, s, B, &mb);
  for (int i = 0; i < mb.n; i++) {
    const int np = collision_wall_sphere_points(w, mb.c[i], mb.r[i], envelope, pts);
    for (int k = 0; k < np; k++) emit(ctx, &pts[k], clump_contact_sub(i, 0, k));
  }
}
