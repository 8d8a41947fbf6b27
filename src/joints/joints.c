/* Joint blocks from the bodies' state (joints/joints.h). */
#include "joints/joints.h"
#include "base/vec3.h"
#include <math.h>

static void quat_conj(double r[4], const double q[4])
{
  r[0] = q[0];
  r[1] = -q[1];
  r[2] = -q[2];
  r[3] = -q[3];
}

/* Pose of a joint's body at time 0 from the scenario (ground: origin, identity). */
static void spec_pose(const Scenario *sc, int body, double x[3], double q[4])
{
  static const double one[4] = {1, 0, 0, 0}, zero[3] = {0, 0, 0};
  v3_copy(x, body == JOINT_GROUND ? zero : sc->bodies[body].position);
  for (int k = 0; k < 4; k++) q[k] = body == JOINT_GROUND ? one[k] : sc->bodies[body].orientation[k];
}

PetscErrorCode JointsCreate(const Scenario *sc, Joints *J)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(J, sizeof(*J)));
  if (!sc->n_joints) PetscFunctionReturn(PETSC_SUCCESS);
  J->n       = sc->n_joints;
  J->spec    = sc->joints;
  J->nbodies = sc->n_bodies;
  PetscCall(PetscCalloc4(J->n, &J->frame, J->n, &J->rows, J->nbodies, &J->index, J->n, &J->computed));
  for (PetscInt j = 0; j < J->n; j++) {
    const JointSpec *sp = &J->spec[j];
    JointFrame      *f  = &J->frame[j];
    double           xa[3], qa[4], xb[3], qb[4], d[3], qi[4];
    spec_pose(sc, sp->body_a, xa, qa);
    spec_pose(sc, sp->body_b, xb, qb);
    v3_sub(d, sp->point, xa);
    quat_rotate_inv(f->pa, qa, d);
    v3_sub(d, sp->type == JOINT_DISTANCE ? sp->point_b : sp->point, xb);
    quat_rotate_inv(f->pb, qb, d);
    quat_rotate_inv(f->axa, qa, sp->axis);
    quat_rotate_inv(f->axb, qb, sp->axis);
    quat_conj(qi, qa);
    quat_mul(f->q0, qi, qb);
    v3_sub(d, sp->point_b, sp->point);
    f->length = v3_norm(d);
    v3_copy(f->x0, xb);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode JointsDestroy(Joints *J)
{
  PetscFunctionBegin;
  if (J->n) PetscCall(PetscFree4(J->frame, J->rows, J->index, J->computed));
  PetscCall(PetscMemzero(J, sizeof(*J)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscBool JointsBond(const Joints *J, PetscInt j, int64_t *guest, int64_t *host)
{
  if (J->spec[j].body_a == JOINT_GROUND) return PETSC_FALSE;
  *guest = J->spec[j].body_a;
  *host  = J->spec[j].body_b;
  return PETSC_TRUE;
}

void JointsGround(double *inv_mass, double inv_inertia[6], double vel_free[6])
{
  *inv_mass = 0;
  for (int k = 0; k < 6; k++) inv_inertia[k] = vel_free[k] = 0;
}

/* A body's state for the rows: solver index, position, orientation, world angular velocity. */
typedef struct {
  PetscInt idx;
  double   x[3], q[4], v[3], w[3];
} JointBody;

static void GetBody(const Joints *J, const BodyStore *s, PetscInt ground, int body, JointBody *B)
{
  if (body == JOINT_GROUND) {
    B->idx = ground;
    v3_set(B->x, 0, 0, 0);
    v3_set(B->v, 0, 0, 0);
    v3_set(B->w, 0, 0, 0);
    B->q[0] = 1;
    B->q[1] = B->q[2] = B->q[3] = 0;
    return;
  }
  const PetscInt i = J->index[body];
  B->idx           = i;
  v3_copy(B->x, s->pos + 3 * i);
  v3_copy(B->v, s->vel + 6 * i);
  for (int k = 0; k < 4; k++) B->q[k] = s->quat[4 * i + k];
  quat_rotate(B->w, B->q, s->vel + 6 * i + 3);
}

/* (Rot(h w) - I - h [w]x) r: how far the exponential map carries the lever r off its tangent. */
static void arc_drift(const double w[3], const double r[3], double h, double d[3])
{
  double q[4] = {1, 0, 0, 0}, rr[3], t[3];
  quat_integrate_world(q, w, h);
  quat_rotate(rr, q, r);
  v3_cross(t, w, r);
  for (int k = 0; k < 3; k++) d[k] = rr[k] - r[k] - h * t[k];
}

/* Rotation vector of q_B (q_A q0)^-1 (small-angle form 2 vec, sign of the shorter way). */
static void orientation_error(const JointBody *A, const JointBody *B, const double q0[4], double th[3])
{
  double qa0[4], inv[4], e[4];
  quat_mul(qa0, A->q, q0);
  quat_conj(inv, qa0);
  quat_mul(e, B->q, inv);
  const double s = e[0] < 0 ? -2 : 2;
  v3_set(th, s * e[1], s * e[2], s * e[3]);
}

static void set_row(RowBox *R, int k, double b, int kind) /* kind: 1 bilateral, 0 free */
{
  R->b[k]  = b;
  R->lo[k] = kind ? -INFINITY : 0;
  R->hi[k] = kind ? INFINITY : 0;
}

/* The block of joint j: frame, levers and rows. */
static void JointBlock(const Joints *J, PetscInt j, const JointBody *A, const JointBody *B, double t, double h,
                       Contact *c)
{
  const JointSpec  *sp = &J->spec[j];
  const JointFrame *f  = &J->frame[j];
  RowBox           *R  = &J->rows[j];
  double            PA[3], PB[3], la[3], lb[3], da[3], db[3], err[3], th[3] = {0, 0, 0}, e[3][3];

  quat_rotate(la, A->q, f->pa);
  quat_rotate(lb, B->q, f->pb);
  v3_add(PA, A->x, la);
  v3_add(PB, B->x, lb);
  arc_drift(A->w, la, h, da);
  arc_drift(B->w, lb, h, db);
  for (int k = 0; k < 3; k++)
    err[k] = PB[k] - PA[k] + db[k] - da[k]; /* anchors' gap after the step at the current rates */
  /* frame */
  v3_set(e[0], 1, 0, 0);
  v3_set(e[1], 0, 1, 0);
  v3_set(e[2], 0, 0, 1);
  if (sp->type == JOINT_REVOLUTE || sp->type == JOINT_PRISMATIC) quat_rotate(e[0], A->q, f->axa);
  if (sp->type == JOINT_DISTANCE) {
    v3_sub(e[0], PB, PA);
    v3_scale(e[0], 1 / v3_norm(e[0]), e[0]);
  }
  if (sp->type == JOINT_REVOLUTE || sp->type == JOINT_PRISMATIC || sp->type == JOINT_DISTANCE)
    v3_tangents(e[0], e[1], e[2]);
  /* levers: B's anchor, seen from both centres (exact Jacobian of the anchors' gap along a frame
   * that turns with A); the distance joint's two anchors are apart, each on its own body */
  v3_sub(c->ra, sp->type == JOINT_DISTANCE ? PA : PB, A->x);
  v3_copy(c->rb, lb);
  for (int k = 0; k < 3; k++) set_row(R, k, v3_dot(e[k], err) / h, 1);
  for (int k = 3; k < 6; k++) set_row(R, k, 0, 0);
  switch (sp->type) {
  case JOINT_FIXED:
  case JOINT_PRISMATIC:
    orientation_error(A, B, f->q0, th);
    for (int k = 0; k < 3; k++) set_row(R, 3 + k, v3_dot(e[k], th) / h, 1);
    if (sp->type == JOINT_PRISMATIC) { /* the sliding direction: free, or bounded friction */
      R->b[0]  = 0;
      R->lo[0] = -sp->friction * h;
      R->hi[0] = sp->friction * h;
    }
    break;
  case JOINT_SPHERICAL:
    break;
  case JOINT_REVOLUTE: {
    double aa[3], ab[3], x[3];
    quat_rotate(aa, A->q, f->axa);
    quat_rotate(ab, B->q, f->axb);
    v3_cross(x, aa, ab);
    set_row(R, 4, v3_dot(e[1], x) / h, 1);
    set_row(R, 5, v3_dot(e[2], x) / h, 1);
  } break;
  case JOINT_DISTANCE: { /* |d| is curved in d itself: the anchors' relative velocity across the
                          * line, s, lengthens it by h^2 s^2 / (2 |d|) over the step; predicted too */
    double d[3], wa[3], wb[3], rel[3];
    v3_sub(d, PB, PA);
    v3_cross(wa, A->w, la);
    v3_cross(wb, B->w, lb);
    for (int k = 0; k < 3; k++) rel[k] = B->v[k] + wb[k] - A->v[k] - wa[k];
    const double along = v3_dot(e[0], rel), across2 = PetscMax(v3_dot(rel, rel) - along * along, 0), len = v3_norm(d);
    set_row(R, 0, (len - f->length + v3_dot(e[0], db) - v3_dot(e[0], da) + h * h * across2 / (2 * len)) / h, 1);
    set_row(R, 1, 0, 0);
    set_row(R, 2, 0, 0);
  } break;
  case JOINT_MOTION: {
    const double t1 = t + h, om = 2 * M_PI * sp->frequency;
    for (int k = 0; k < 3; k++) {
      const double x = f->x0[k] + sp->velocity[k] * t1 + (om > 0 ? sp->amplitude[k] * (1 - cos(om * t1)) / om : 0);
      set_row(R, k, (B->x[k] - x) / h, 1);
      if (sp->angular) set_row(R, 3 + k, -sp->angular_velocity[k], 1);
    }
    v3_copy(c->ra, B->x); /* the ground's "point" under B's centre; immovable, so any lever will do */
    v3_set(c->rb, 0, 0, 0);
  } break;
  }
  v3_copy(c->n, e[0]);
  v3_copy(R->u, e[1]); /* the frame's tangents live with the rows (contact_frame): not always v3_tangents(n) */
  v3_copy(R->w, e[2]);
  c->a   = (int32_t)A->idx;
  c->b   = (int32_t)B->idx;
  c->box = R;
}

/* Whether this rank computes joint j: it owns B and holds A (owned, ghost or the ground). */
static PetscBool Computes(const Joints *J, const BodyStore *s, PetscInt j)
{
  const JointSpec *sp = &J->spec[j];
  const PetscInt   b  = J->index[sp->body_b];
  return (PetscBool)(b >= 0 && b < s->n_owned && (sp->body_a == JOINT_GROUND || J->index[sp->body_a] >= 0));
}

PetscErrorCode JointsAppend(Joints *J, MPI_Comm comm, const BodyStore *s, PetscInt ground, double t, double h,
                            ContactSet *cs)
{
  PetscFunctionBegin;
  for (int k = 0; k < J->nbodies; k++) J->index[k] = -1;
  for (PetscInt i = 0; i < s->n_owned + s->n_ghost; i++)
    if (s->id[i] < J->nbodies) J->index[s->id[i]] = i;
  for (PetscInt j = 0; j < J->n; j++) J->computed[j] = (int)Computes(J, s, j);
  PetscCallMPI(
    MPI_Allreduce(MPI_IN_PLACE, J->computed, (PetscMPIInt)J->n, MPI_INT, MPI_SUM, comm)); /* joints are few */
  J->active = 0;
  for (PetscInt j = 0; j < J->n; j++) {
    const JointSpec *sp = &J->spec[j];
    JointBody        A, B;
    Contact          c   = {0};
    ContactKey       key = {JOINT_KEY_BASE + j, sp->body_b, 0};
    if (sp->until > 0 && t >= sp->until) continue; /* released */
    PetscCheck(J->computed[j] == 1, comm, PETSC_ERR_ARG_OUTOFRANGE,
               "Joint %" PetscInt_FMT " (scenario line %d): its body %d or %d has left the domain at t = %g s; enlarge "
               "the domain so that jointed bodies stay in it",
               j, sp->line, sp->body_a, sp->body_b, t);
    if (!Computes(J, s, j)) continue; /* the owner of B computes it */
    J->active++;
    GetBody(J, s, ground, sp->body_a, &A);
    GetBody(J, s, ground, sp->body_b, &B);
    JointBlock(J, j, &A, &B, t, h, &c);
    PetscCall(ContactSetAppend(cs, &c, &key, NULL));
  }
  PetscCall(ContactSetSortByKey(cs));
  PetscFunctionReturn(PETSC_SUCCESS);
}
