/* See penalty/loads.h. */
#include "penalty/loads.h"
#include "base/growth.h"
#include "penalty/friction.h"
#include "penalty/kernel.h"
#include "penalty/side.h"
#include "penalty/tracking.h"
#include "bodies/ellipsoid.h"
#include "base/memory_policy.h"
#include "base/vec3.h"
#include <math.h>
#include <stddef.h>
#include <string.h>

PetscErrorCode PenaltyContextSetUp(PenaltyContext *ctx, const PenaltySettings *set, const Material *materials,
                                   int n_materials)
{
  PetscFunctionBegin;
  /* every field: the sides' array, its capacity and side_ahead start empty (a context on the stack holds garbage) */
  *ctx = (PenaltyContext){.set = set, .materials = materials, .n_materials = n_materials, .simd = SIMD4_AVX512};
  PetscCall(PetscMalloc1((size_t)n_materials * n_materials, &ctx->pairs));
  for (int a = 0; a < n_materials; a++)
    for (int b = 0; b < n_materials; b++) penalty_pair(&materials[a], &materials[b], &ctx->pairs[a * n_materials + b]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PenaltyContextDestroy(PenaltyContext *ctx)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(ctx->pairs));
  MemoryFreeAligned((void **)&ctx->side);
  ctx->side_cap = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PenaltyContextSetFromOptions(PenaltyContext *ctx, MPI_Comm comm)
{
  const char *const simd4_isa_names[] = SIMD4_ISA_NAMES;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "Penalty contact model", NULL);
  PetscCall(PetscOptionsEnum("-penalty_simd",
                             "contact.model penalty: the block kernel's best instantiation the CPU runs up to this one "
                             "(avx512: 8 lanes of 512 bits; avx512vl, avx2: 4 lanes), else the per-contact code "
                             "(generic: the block kernel's portable code, which gives the per-contact code's bits)",
                             NULL, simd4_isa_names, (PetscEnum)ctx->simd, (PetscEnum *)&ctx->simd, NULL));
  PetscCall(PetscOptionsBool("-penalty_per_contact",
                             "contact.model penalty: every contact by the per-contact code, none by the block kernel "
                             "(the reference; slower)",
                             NULL, ctx->per_contact, &ctx->per_contact, NULL));
  PetscCall(PetscOptionsBool("-penalty_check_sides",
                             "contact.model penalty: check every step that the body sides the integrator wrote ahead "
                             "equal a fresh fill (for tests; slower)",
                             NULL, ctx->check_sides, &ctx->check_sides, NULL));
  PetscOptionsEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct PenaltySide Side;

/* Curvature of side o's surface at a contact with `other` (sec. 3.2): a sphere 1/R (a clump: its
 * members' 1/R); an ellipsoid NaN here (ellipsoid_curvature gives it); a plane 0; a
 * box touches a sphere with a face (0) and a plane with a corner (*pointed: no curvature); a
 * cylinder wall 0 (its radius is taken as large against the spheres': the Hertz radius is the
 * sphere's). */
static double curvature(const Side *o, const Side *other, int *pointed)
{
  if (o->shape == SHAPE_SPHERE || o->shape == SHAPE_CLUMP) return o->kappa; /* a clump touches by a member sphere */
  if (o->shape == SHAPE_ELLIPSOID) return NAN; /* depends on the point: ellipsoid_curvature */
  if ((o->shape == SHAPE_BOX || o->shape == -2) && other->shape != SHAPE_SPHERE && other->shape != SHAPE_CLUMP)
    *pointed = 1;
  return 0;
}

/* Ellipsoid body k's mean curvature (sec. 4.5, App. C: K = (k1 + k2) / 2) at its surface point with
 * outward unit normal out (world), from its orientation now (bodies/ellipsoid.h). */
static double ellipsoid_curvature(const BodyStore *bs, PetscInt k, const double out[3])
{
  double N[3];
  quat_rotate_inv(N, bs->quat + 4 * k, out);
  return ellipsoid_mean_curvature(bs->size + 3 * k, N);
}

static void velocity_at(const Side *o, const double point[3], double v[3])
{
  double r[3], wr[3];
  v3_sub(r, point, o->pose.x);
  v3_cross(wr, o->omega, r);
  v3_add(v, o->vel, wr);
}

/* Loads and new history of one touching contact (gap phi < 0). */
static void contact_loads(const PenaltyContext *ctx, const Contact *c, const PenaltyHistory *prev, PenaltyHistory *rec,
                          double load[PENALTY_LOAD_WIDTH], PenaltyStiffness *stiff)
{
  const Side          *A = &ctx->side[c->a], *B = &ctx->side[c->b];
  PenaltyFrictionState st;
  PenaltyTracking      t;
  const double         delta = -c->phi;
  double  point[3], va[3], vb[3], dv[3], m_eff, kn, a_hertz, fb[2], F[3], ma[2], mb[2], m3[3], tq[3], r[3], spin;
  double *FA = load, *TA = load + 3, *FB = load + 6, *TB = load + 9;

  /* the contact point: midway between the two surface points (p_B = x_B + r_B, p_A = p_B - phi n) */
  v3_add(point, B->pose.x, c->rb);
  v3_axpy(point, -0.5 * c->phi, c->n);
  st.set     = ctx->set;
  st.pair    = &ctx->pairs[A->material * ctx->n_materials + B->material];
  st.h       = ctx->h;
  st.pointed = 0;
  st.kappa_a = curvature(A, B, &st.pointed);
  st.kappa_b = curvature(B, A, &st.pointed);
  if (A->shape == SHAPE_ELLIPSOID && !A->wall) st.kappa_a = ellipsoid_curvature(ctx->bodies, c->a, c->n);
  if (B->shape == SHAPE_ELLIPSOID && !B->wall) {
    double out[3];
    v3_scale(out, -1.0, c->n); /* B's outward normal */
    st.kappa_b = ellipsoid_curvature(ctx->bodies, c->b, out);
  }
  st.R_eff = 1.0 / (st.kappa_a + st.kappa_b); /* infinite for a corner: only Hooke reaches here then */
  m_eff    = A->wall ? B->mass : A->mass * B->mass / (A->mass + B->mass);
  st.m_ij  = A->wall ? B->mass : 0.5 * (A->mass + B->mass); /* eq. 1c: the average, or the body's on the ground */
  st.I_ij  = A->wall ? B->inertia : 0.5 * (A->inertia + B->inertia);
  velocity_at(A, point, va);
  velocity_at(B, point, vb);
  v3_sub(dv, vb, va);
  st.N = penalty_normal_force(ctx->set, st.pair, delta, v3_dot(dv, c->n), st.R_eff, m_eff, &kn, &a_hertz);
  if (st.pair->K_E > 0) st.K_E = st.pair->K_E;
  else if (ctx->set->normal == PENALTY_NORMAL_HERTZ)
    st.K_E = 8 * st.pair->G_eff * a_hertz; /* Mindlin, eq. 5: 8 G_eff sqrt(R_eff delta) */
  else
    st.K_E = 4 * st.pair->G_eff / st.pair->E_eff * kn; /* Hooke: the Hertz-Mindlin ratio K_t / K_n = 4 G_eff / E_eff */
  penalty_friction_prepare(&st);

  penalty_track(&A->pose, &B->pose, c->n, point, prev, &t);
  /* the deflections and modes carry over (or start at zero); penalty_track_store writes the rest */
  if (prev && penalty_state_has(prev, PENALTY_TOUCHING)) {
    if (rec != prev) memcpy(rec, prev, offsetof(PenaltyHistory, frame)); /* (in place: already there) */
  } else memset(rec, 0, offsetof(PenaltyHistory, frame));
  penalty_state_put(rec, PENALTY_TOUCHING, 1);

  penalty_slide(&st, rec, t.pa, t.pb, fb);
  v3_scale(F, st.N, c->n);
  v3_axpy(F, fb[0], t.u);
  v3_axpy(F, fb[1], t.w);
  v3_copy(FB, F);
  v3_scale(FA, -1.0, F);
  v3_sub(r, point, A->pose.x);
  v3_cross(TA, r, FA);
  v3_sub(r, point, B->pose.x);
  v3_cross(TB, r, FB);

  if (ctx->set->rolling == PENALTY_ROLLING_LEGACY) {
    double wrel[3];
    v3_sub(wrel, A->omega, B->omega);
    penalty_roll_legacy(&st, c->n, wrel, tq);
    v3_add(TA, TA, tq);
    v3_sub(TB, TB, tq);
  } else {
    penalty_roll(&st, rec, t.pa, t.pb, ma, mb);
    v3_scale(m3, ma[0], t.u);
    v3_axpy(m3, ma[1], t.w);
    v3_cross(tq, c->n, m3); /* A's outward normal is n */
    v3_add(TA, TA, tq);
    v3_scale(m3, mb[0], t.u);
    v3_axpy(m3, mb[1], t.w);
    v3_cross(tq, c->n, m3); /* B's is -n */
    v3_sub(TB, TB, tq);
  }
  spin = penalty_spin(&st, rec, t.psi);
  v3_axpy(TA, spin, c->n);
  v3_axpy(TB, -spin, c->n);
  penalty_track_store(&A->pose, &B->pose, point, &t, rec);

  *stiff = (PenaltyStiffness){m_eff, kn, st.K_E, st.I_ij, st.K_R, st.K_psi};
}
/* Keeps the stiffest spring relative to its inertia (the shortest period 2 pi sqrt(inertia /
 * stiffness)) by cross-multiplying, so no contact pays a square root or a division for the check;
 * PenaltyContactLoads turns the winner into the period once. */
static void limit_update(PenaltyStepLimit *lim, double inertia, double stiffness, const char *what)
{
  if (!(stiffness > 0) || !isfinite(inertia)) return;
  if (stiffness * lim->inertia > lim->stiffness * inertia) {
    lim->stiffness = stiffness;
    lim->inertia   = inertia;
    lim->what      = what;
  }
}

static void limit_update_contact(PenaltyStepLimit *lim, const PenaltyStiffness *s)
{
  limit_update(lim, s->m_eff, s->kn, "normal");
  limit_update(lim, s->m_eff * (2.0 / 7.0), s->K_E, "slide"); /* a rolling sphere's tangential mass 2 m / 7 */
  limit_update(lim, s->I_ij, s->K_R, "roll");
  limit_update(lim, s->I_ij, s->K_psi, "spin");
}

enum {
  CHUNK = 64
};

static inline void prefetch_lines(const void *p, size_t bytes)
{
  for (size_t o = 0; o < bytes; o += 64) __builtin_prefetch((const char *)p + o);
}

/* contacts run in key order, sides in storage order: fetch ahead */
static inline void prefetch_contact(const PenaltyContext *ctx, const ContactSet *cs, const ImpulseMemory *prev,
                                    const PetscInt match[], PetscInt i)
{
  const Contact *c = &cs->c[i];
  prefetch_lines(&ctx->side[c->a], sizeof(Side));
  prefetch_lines(&ctx->side[c->b], sizeof(Side));
  if (match[i] >= 0) prefetch_lines(prev->gamma + (size_t)PENALTY_HISTORY_WIDTH * match[i], sizeof(PenaltyHistory));
}

typedef double v2d __attribute__((vector_size(16))); /* a pair of doubles (SSE2, every x86-64) */

/* p[0 .. n-1] = 0 (n even) by 16-byte stores: a short inline loop, where memset of a record's
 * size became a slow `rep stos` */
static inline void zero_doubles(double *p, int n)
{
  const v2d zero = {0, 0};
  for (int k = 0; k < n; k += 2) memcpy(p + k, &zero, sizeof(zero));
}

/* p[0 .. n-1] = q[0 .. n-1] (n even) by 16-byte moves, inline (a record's memcpy is a call) */
static inline void copy_doubles(double *p, const double *q, int n)
{
  for (int k = 0; k < n; k += 2) {
    v2d x;
    memcpy(&x, q + k, sizeof(x));
    memcpy(p + k, &x, sizeof(x));
  }
}

/* a[0..5] += b[0..5] in pairs (GCC does not vectorize the plain loop here) */
static inline void add6(double *a, const double *b)
{
  for (int k = 0; k < 6; k += 2) {
    v2d x, y;
    memcpy(&x, a + k, sizeof(x));
    memcpy(&y, b + k, sizeof(y));
    x += y;
    memcpy(a + k, &x, sizeof(x));
  }
}

/* acc (per body) += the loads of contact c on its bodies below nbody (walls receive nothing). */
static inline void accumulate(const Contact *c, const double l[PENALTY_LOAD_WIDTH], PetscInt nbody, double acc[])
{
  if (c->a < nbody) add6(acc + 6 * (size_t)c->a, l);
  if (c->b < nbody) add6(acc + 6 * (size_t)c->b, l + 6);
}

static inline const PenaltyHistory *history_of(const ImpulseMemory *prev, const PetscInt match[], PetscInt i)
{
  return match[i] >= 0 ? (const PenaltyHistory *)(prev->gamma + (size_t)PENALTY_HISTORY_WIDTH * match[i]) : NULL;
}

/* A chunk of contacts in key order: which of them the block kernel computes (packed 4 to a block,
 * so no lane idles on a contact that is apart or new), their loads, and what is left to do one by
 * one in key order: contacts outside the kernel, the time-step limit, the per-body sums. */
typedef struct {
  PetscInt              i0, n;
  const PenaltyHistory *prev[CHUNK];  /* history of contact i0 + k (NULL: none) */
  PenaltyHistory        moved[CHUNK]; /* histories read aside before the chunk writes over them (in place) */
  double (*load)[PENALTY_LOAD_WIDTH]; /* load of contact i0 + k at load[k] */
  PenaltyStiffness stiff[CHUNK];      /* of the contacts with `check` set */
  unsigned char    by_kernel[CHUNK], check[CHUNK];
} Chunk;

/* The eligible contacts of the chunk (their chunk offsets in `at`, n of them), a block (4 or 8
 * lanes: penalty_block_lanes) at a time. */
static void chunk_kernel(PenaltyContext *ctx, const ContactSet *cs, double rec[], const PenaltyStepLimit *lim,
                         const int at[], int n, Chunk *ch)
{
  const int      lanes = penalty_block_lanes(ctx);
  PenaltyHistory spare_rec[PENALTY_BLOCK_MAX];
  double         spare_load[PENALTY_BLOCK_MAX][PENALTY_LOAD_WIDTH];

  for (int q = 0; q < n; q += lanes) {
    PenaltyBlock blk;
    int          r;
    for (int l = 0; l < lanes; l++) {
      if (q + l < n) {
        const PetscInt i = ch->i0 + at[q + l];
        blk.c[l]         = &cs->c[i];
        blk.prev[l]      = ch->prev[at[q + l]];
        blk.rec[l]       = (PenaltyHistory *)(rec + (size_t)PENALTY_HISTORY_WIDTH * i);
        blk.load[l]      = ch->load[at[q + l]];
      } else { /* the last block's idle lanes compute a copy of its first contact, into scratch */
        blk.c[l]    = blk.c[0];
        blk.prev[l] = blk.prev[0];
        blk.rec[l]  = &spare_rec[l];
        blk.load[l] = spare_load[l];
      }
    }
    blk.lim = lim;
    r       = penalty_block_loads(ctx, &blk);
    for (int l = 0; l < lanes && q + l < n; l++) {
      const int k = at[q + l];
      if (PENALTY_BLOCK_REDO(r) >> l & 1) continue; /* by_kernel stays 0: computed again per contact */
      ch->by_kernel[k] = 1;
      if (PENALTY_BLOCK_BEATS(r) >> l & 1) {
        ch->check[k] = 1;
        ch->stiff[k] = penalty_block_stiffness(&blk, l);
      }
      ctx->block_contacts++;
    }
  }
}

static void chunk_loads(PenaltyContext *ctx, const ContactSet *cs, const ImpulseMemory *prev, const PetscInt match[],
                        double rec[], double load[], double acc[], PenaltyStepLimit *lim, Chunk *ch)
{
  double    mine[CHUNK][PENALTY_LOAD_WIDTH];
  int       at[CHUNK], n = 0;
  const int by_block = penalty_block_wanted(ctx);

  ch->load = load ? (double(*)[PENALTY_LOAD_WIDTH])(load + (size_t)PENALTY_LOAD_WIDTH * ch->i0) : mine;
  memset(ch->by_kernel, 0, sizeof(ch->by_kernel));
  memset(ch->check, 0, sizeof(ch->check));
  for (int k = 0; k < ch->n; k++) {
    const PetscInt i = ch->i0 + k;
    ch->prev[k]      = history_of(prev, match, i);
    if (match[i] > i && match[i] < ch->i0 + ch->n &&
        rec == prev->gamma) { /* in place: slot match[i] may be written in this chunk before contact i reads it */
      copy_doubles((double *)&ch->moved[k], (const double *)ch->prev[k], PENALTY_HISTORY_WIDTH);
      ch->prev[k] = &ch->moved[k];
    }
    at[n] = k;
    n += by_block && penalty_block_eligible(ctx, &cs->c[i], ch->prev[k]);
  }
  chunk_kernel(ctx, cs, rec, lim, at, n, ch);
  for (int k = 0; k < ch->n; k++) { /* key order */
    const PetscInt i = ch->i0 + k;
    if (!ch->by_kernel[k]) {
      PenaltyHistory *r = (PenaltyHistory *)(rec + (size_t)PENALTY_HISTORY_WIDTH * i);
      if (!(cs->c[i].phi < 0)) { /* in the envelope but apart: no load, no spring, and the history ends */
        zero_doubles((double *)r, PENALTY_HISTORY_WIDTH);
        zero_doubles(ch->load[k], PENALTY_LOAD_WIDTH);
      } else { /* the old record is read before the new one is written (they may be the same) */
        contact_loads(ctx, &cs->c[i], ch->prev[k], r, ch->load[k], &ch->stiff[k]);
        ch->check[k] = 1;
      }
    }
    /* a contact the kernel did not flag cannot beat the limit: it did not beat an earlier one */
    if (ch->check[k]) limit_update_contact(lim, &ch->stiff[k]);
    if (acc)
      accumulate(&cs->c[i], ch->load[k], ctx->nb, acc); /* every contact, as the sums over ranks do (force_routing.c) */
    if (i + CHUNK < cs->n)
      prefetch_contact(ctx, cs, prev, match, i + CHUNK); /* the next chunk's, a chunk's work ahead */
  }
}

/* Room in ctx->side for n sides, aligned as PenaltySide asks (its alignment, 64: whole lines). */
static PetscErrorCode side_reserve(PenaltyContext *ctx, PetscInt n)
{
  PetscFunctionBegin;
  if ((size_t)n <= ctx->side_cap) PetscFunctionReturn(PETSC_SUCCESS);
  MemoryFreeAligned((void **)&ctx->side);
  ctx->side_ahead = 0; /* gone with the old array */
  ctx->side_cap   = GrowthCapacity(ctx->side_cap, (size_t)n);
  PetscCall(MemoryAllocAligned(sizeof(Side) * ctx->side_cap, _Alignof(Side), "the penalty model's body sides",
                               (void **)&ctx->side));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PenaltyContactLoads(PenaltyContext *ctx, const ContactSet *cs, const ImpulseMemory *prev,
                                   const PetscInt match[], double rec[], double load[], double acc[],
                                   PenaltyStepLimit *lim)
{
  PetscFunctionBegin;
  PetscCall(side_reserve(ctx, ctx->nb + ctx->n_walls));
  for (PetscInt b = 0; ctx->check_sides && b < PetscMin(ctx->side_ahead, ctx->nb); b++) {
    PenaltySide fresh;
    penalty_side_of_body(ctx->bodies, b, ctx->h, &fresh);
    PetscCheck(penalty_side_same(&fresh, &ctx->side[b]), PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "-penalty_check_sides: the side the integrator wrote for body %" PetscInt_FMT " (id %" PetscInt64_FMT
               ") is not that body's now: the bodies were rearranged without BodiesRearranged (step/step.c)",
               b, (PetscInt64)ctx->bodies->id[b]);
  }
  for (PetscInt b = PetscMin(ctx->side_ahead, ctx->nb); b < ctx->nb; b++)
    penalty_side_of_body(ctx->bodies, b, ctx->h, &ctx->side[b]);
  for (PetscInt k = 0; k < ctx->n_walls; k++) penalty_side_of_wall(&ctx->walls[k], &ctx->side[ctx->nb + k]);
  ctx->side_ahead = 0; /* used: the integrator writes the next ones */
  PetscCheck(!load != !acc, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "PenaltyContactLoads: give either the per-contact loads or the per-body sums");
  if (acc) PetscCall(PetscArrayzero(acc, 6 * (size_t)ctx->nb));
  PetscCheck(prev->width == PENALTY_HISTORY_WIDTH, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "PenaltyContactLoads needs a memory of penalty history (width %" PetscInt_FMT
             "), got width %" PetscInt_FMT,
             PENALTY_HISTORY_WIDTH, prev->width);
  lim->stiffness = 0;
  lim->inertia   = 1;
  lim->what      = "none";
  for (PetscInt i = 0; i < PetscMin(CHUNK, cs->n); i++) prefetch_contact(ctx, cs, prev, match, i);
  for (PetscInt i0 = 0; i0 < cs->n; i0 += CHUNK) {
    Chunk ch;
    ch.i0 = i0;
    ch.n  = PetscMin(CHUNK, cs->n - i0);
    chunk_loads(ctx, cs, prev, match, rec, load, acc, lim, &ch);
  }
  lim->period = lim->stiffness > 0 ? 2 * M_PI * sqrt(lim->inertia / lim->stiffness) : INFINITY;
  PetscFunctionReturn(PETSC_SUCCESS);
}
