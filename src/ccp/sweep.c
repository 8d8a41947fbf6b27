/* The sweep kernels on the packed layout (ccp/pack.h).
 *
 * Each kernel is written once, as an always-inline function on GCC vector types of CCP_LANES
 * doubles (one lane per contact of a block: 4-wide AVX2 code, or pairs of SSE2), with a constant
 * argument `six` (0: every contact 3-dof, the torque rows are skipped). It is instantiated for
 * the generic target and for AVX2+FMA; the AVX2 ones run when the CPU has both
 * (__builtin_cpu_supports), so the build stays portable. Body records are loaded with full-width
 * loads and 4x4 transposes; increments are added record after record (the A lanes in lane order,
 * then the B lanes): results depend on the inputs only. The exact
 * projections of ccp/cone.c run on all lanes at once (the same formulas), behind the common "already
 * inside" test.
 *
 * Software prefetch: the blocks stream, but their bodies are reached through indices; the body
 * records of the block PREFETCH_AHEAD blocks ahead are requested early, every line of them a
 * contact sweep touches (2 of a Jacobi or Gauss-Seidel record, the 3 of APGD's velocity slots),
 * and that block's own lines too when the layout outgrows the cache (pk->prefetch_blocks,
 * CCP_PREFETCH_BLOCKS_ABOVE). Every line, not only those of the record's start and of its inverse
 * inertia: the one between, which holds the velocity's end or the inverse mass, missed otherwise,
 * and out of cache (10^5 spheres, 3-dof) the sweeps waited on it (Jacobi 25-27 instead of 15, APGD
 * 43-44 instead of 25 ns per contact-iteration). */
#include "ccp/pack.h"
#include "ccp/cone.h"
#include "base/simd4.h"
#include <math.h>
#include <string.h>

#define PREFETCH_AHEAD 8
_Static_assert(CCP_LANES == SIMD4_LANES, "a block's lanes are the vector's");

/* The kernels' constant argument `six`: which contacts the layout holds. DOF_MIXED, DOF6 and
 * DOF_SPRINGS have the torque rows; with DOF6 every rot is 1 and its multiply is skipped (padding
 * lanes have rot 0, but both their ends are the dummy body, at rest: their rotation difference is 0
 * anyway); DOF_SPRINGS is DOF_MIXED whose blocks carry the springs' brot (ccp/pack.h). */
enum {
  DOF3        = 0,
  DOF_MIXED   = 1,
  DOF6        = 2,
  DOF_SPRINGS = 3
};

/* block q's multipliers: entry k of lane l at x[CCP_LANES (rows q + k) + l], rows = ROWS(six) (ccp_packed_rows) */
#define ROWS(six) ((six) ? 6 : 3)
ALWAYS_INLINE const double *cblk(const double *x, PetscInt q, const int six)
{
  return x + (size_t)q * ROWS(six) * CCP_LANES;
}
ALWAYS_INLINE double *blk(double *x, PetscInt q, const int six) { return x + (size_t)q * ROWS(six) * CCP_LANES; }
/* entry k of a block's multipliers, 0 for the rows a 3-dof layout does not store */
ALWAYS_INLINE v4d ldrow(const double *x, int k, const int six)
{
  return k < ROWS(six) ? ld(x + k * CCP_LANES) : splat(0);
}

/* A single-precision field of a block (ccp/pack.h: the contacts' inputs), widened to double.
 * Element by element: GCC 12 makes this one vcvtps2pd ymm, but __builtin_convertvector of a
 * 4-float vector two 2-wide conversions, a shuffle and an insert (a tenth slower sweeps). */
ALWAYS_INLINE v4d ldf(const float *p) { return (v4d){p[0], p[1], p[2], p[3]}; }

/* A field of a block's 6-dof part (from CCPBlock's rho on): 0 in a 3-dof layout, whose blocks end
 * before it (ccp/pack.h), where the pack would have stored 0 or a factor that multiplies 0. */
ALWAYS_INLINE v4d ldf6(const float *p, const int six) { return six ? ldf(p) : splat(0); }

/* the record at byte offset off (CCPBlock's a, b) */
ALWAYS_INLINE char *body_at(char *body, uint32_t off) { return body + off; }
/* velocity slot `slot` of a record (ccp/pack.h) */
ALWAYS_INLINE double *slot_of(char *rec, int slot) { return (double *)(rec + (size_t)slot * CCP_SLOT_BYTES); }
/* the Jacobi and Gauss-Seidel sweeps' records' mass quads (APGD's pass over the contacts reads none) */
#define SWEEP_MASS_AT CCP_BODY_MASS_AT(CCP_SLOTS_SWEEP)

ALWAYS_INLINE void prefetch_bodies(const CCPPacked *pk, PetscInt q)
{
  if (q < pk->nblk) {
    const CCPBlock *K = ccp_block_at(pk, q);
    if (pk->prefetch_blocks)
      for (size_t o = 0; o < pk->blk_bytes; o += 64) __builtin_prefetch((const char *)K + o, 0);
    const int lines =
      pk->body_bytes > 128
        ? 3
        : 2; /* APGD's: its 3 lines of velocity slots (the contact pass reads no mass); the others' whole records */
    for (int l = 0; l < CCP_LANES; l++) {
      const char *A = pk->body + K->a[l], *B = pk->body + K->b[l];
      for (int o = 0; o < lines; o++) { /* the lines the contact sweeps touch (ccp/pack.h: records on lines) */
        __builtin_prefetch((const char *)A + 64 * o, 1);
        __builtin_prefetch((const char *)B + 64 * o, 1);
      }
    }
  }
}

/* The lines of block q's multipliers in x, when the layout outgrows the cache (as its blocks'):
 * beside the blocks and the body records, the vectors are streams of their own that the hardware
 * prefetcher was left to find. */
ALWAYS_INLINE void prefetch_multipliers(const CCPPacked *pk, const double *x, PetscInt q, const int six,
                                        const int write)
{
  if (pk->prefetch_blocks && q < pk->nblk) {
    const char *p = (const char *)cblk(x, q, six);
    for (size_t o = 0; o < ROWS(six) * CCP_LANES * sizeof(double); o += 64) {
      if (write) __builtin_prefetch(p + o, 1);
      else __builtin_prefetch(p + o, 0);
    }
  }
}

/* entries 4, 5 of a record: one 16-byte load or read-modify-write, not two scalar ones */
typedef double    v2d __attribute__((vector_size(2 * sizeof(double))));
ALWAYS_INLINE v2d ld2(const double *p)
{
  v2d r;
  memcpy(&r, p, sizeof(r));
  return r;
}

/* x[k] = entry k (0..5) of 4 records given as their quads q[l] (entries 0-3) and pairs u[l] (4, 5) */
ALWAYS_INLINE void records_to_lanes(const v4d q[CCP_LANES], const v2d u[CCP_LANES], v4d x[6])
{
  transpose4(q, x);
  const v4l lo = {0, 4, 2, 6}, hi = {1, 5, 3, 7};
  const v4d u02 = __builtin_shufflevector(u[0], u[2], 0, 1, 2, 3),
            u13 = __builtin_shufflevector(u[1], u[3], 0, 1, 2, 3);
  x[4]          = __builtin_shuffle(u02, u13, lo);
  x[5]          = __builtin_shuffle(u02, u13, hi);
}

/* x[k] = entry k (0..5) of the 4 records p[l]: full-width loads and shuffles, not 24 scalar loads */
ALWAYS_INLINE void load6(const double *const p[CCP_LANES], v4d x[6])
{
  const v4d q[CCP_LANES] = {ld(p[0]), ld(p[1]), ld(p[2]), ld(p[3])};
  const v2d u[CCP_LANES] = {ld2(p[0] + 4), ld2(p[1] + 4), ld2(p[2] + 4), ld2(p[3] + 4)};
  records_to_lanes(q, u, x);
}

/* x[k] = entry k of p[l] + beta (p[l] - pm[l]) (APGD's extrapolated velocity): made record by
 * record before the one transpose (the same arithmetic per entry as on the lanes, half the shuffles) */
ALWAYS_INLINE void load6_extrapolated(const double *const p[CCP_LANES], const double *const pm[CCP_LANES], double beta,
                                      v4d x[6])
{
  const v2d b2 = {beta, beta};
  v4d       q[CCP_LANES];
  v2d       u[CCP_LANES];
  for (int l = 0; l < CCP_LANES; l++) {
    const v4d q0 = ld(p[l]);
    const v2d u0 = ld2(p[l] + 4);
    q[l]         = q0 + beta * (q0 - ld(pm[l]));
    u[l]         = u0 + b2 * (u0 - ld2(pm[l] + 4));
  }
  records_to_lanes(q, u, x);
}

/* p[l][k] += x[k][l], lane after lane (lanes may share a record: each add sees the previous) */
ALWAYS_INLINE void add6(double *const p[CCP_LANES], const v4d x[6])
{
  v4d r[4];
  transpose4(x, r);
  const v4d u01          = __builtin_shufflevector(x[4], x[5], 0, 4, 1, 5),
            u23          = __builtin_shufflevector(x[4], x[5], 2, 6, 3, 7);
  const v2d u[CCP_LANES] = {__builtin_shufflevector(u01, u01, 0, 1), __builtin_shufflevector(u01, u01, 2, 3),
                            __builtin_shufflevector(u23, u23, 0, 1), __builtin_shufflevector(u23, u23, 2, 3)};
  for (int l = 0; l < CCP_LANES; l++) {
    vst(p[l], ld(p[l]) + r[l]);
    const v2d s = ld2(p[l] + 4) + u[l];
    memcpy(p[l] + 4, &s, sizeof(s));
  }
}

/* A body's inverse mass and inertia as 2 single-precision quads (im, I[0..2]), (I[3..5], pad) of
 * its record (CCPBodyMass at byte mass_at): 2 widening loads and a transpose each for 4 records. */
ALWAYS_INLINE void load_inverse_mass(char *const B[CCP_LANES], size_t mass_at, v4d *im, v4d I[6])
{
  const float *p[CCP_LANES]   = {(const float *)(B[0] + mass_at), (const float *)(B[1] + mass_at),
                                 (const float *)(B[2] + mass_at), (const float *)(B[3] + mass_at)};
  const v4d    rlo[CCP_LANES] = {ldf(p[0]), ldf(p[1]), ldf(p[2]), ldf(p[3])};
  const v4d    rhi[CCP_LANES] = {ldf(p[0] + 4), ldf(p[1] + 4), ldf(p[2] + 4), ldf(p[3] + 4)};
  v4d          lo[4], hi[4];
  transpose4(rlo, lo);
  transpose4(rhi, hi);
  *im = lo[0];
  for (int k = 0; k < 3; k++) {
    I[k]     = lo[k + 1];
    I[k + 3] = hi[k];
  }
}

/* The joint rows of block q, or NULL for a block of contacts (ccp/pack.h: joint blocks come last). */
ALWAYS_INLINE const CCPRowBlock *row_block(const CCPPacked *pk, PetscInt q)
{
  return q >= pk->row0 ? &pk->rows[q - pk->row0] : NULL;
}

/* A block's contact frames, lane by lane: n, and the tangents rebuilt as v3_tangents(n) built them
 * for the packing (ccp/pack.h: us, wt), or a joint block's own (R). Once per block visit: the
 * gradient and the apply of a block share it. */
typedef struct {
  v4d n[3], u[3], w[3];
  v4d ra[3], rb[3]; /* the lever arms, widened once per visit: each use of a single-precision field
                       would be a conversion of its own (GCC reloads rather than keeps them) */
} BlockFrame;

ALWAYS_INLINE BlockFrame block_frame(const CCPBlock *restrict K, const CCPRowBlock *restrict R)
{
  BlockFrame F;
  for (int k = 0; k < 3; k++) {
    F.n[k]  = ldf(K->n[k]);
    F.ra[k] = ldf(K->ra[k]);
    F.rb[k] = ldf(K->rb[k]);
  }
  if (R) {
    for (int k = 0; k < 3; k++) {
      F.u[k] = ld(R->u[k]);
      F.w[k] = ld(R->w[k]);
    }
    return F;
  }
  const v4d *n = F.n, one = splat(1), third = splat(0.57735);
  const v4l  abs_mask = (v4l)splat(-0.0);
  const v4l  x = (v4d)((v4l)n[0] & ~abs_mask) < third, y = ~x & ((v4d)((v4l)n[1] & ~abs_mask) < third),
            z  = ~(x | y); /* v3_tangent_axis */
  const v4d t0 = (v4d)(x & (v4l)one), t1 = (v4d)(y & (v4l)one), t2 = (v4d)(z & (v4l)one), us = ld(K->us),
            wt = ld(K->wt);
  /* u = us (t x n): t's entries are 0 or 1, so each difference is exact however it is fused */
  F.u[0] = us * (t1 * n[2] - t2 * n[1]);
  F.u[1] = us * (t2 * n[0] - t0 * n[2]);
  F.u[2] = us * (t0 * n[1] - t1 * n[0]);
  /* w = n x u: off the axis one product is +-0 (u's axis entry is), so fused or not it rounds once */
  F.w[0] = sel(x, wt, n[1] * F.u[2] - n[2] * F.u[1]);
  F.w[1] = sel(y, wt, n[2] * F.u[0] - n[0] * F.u[2]);
  F.w[2] = sel(z, wt, n[0] * F.u[1] - n[1] * F.u[0]);
  return F;
}

/* A block's body records, lane by lane. A sweep finds them once per block and hands them to
 * block_gradient_of and block_apply_of: its stores to the multipliers in between would make the
 * compiler reload and add the offsets again (it cannot tell the multipliers from the block). */
typedef struct {
  char *a[CCP_LANES], *b[CCP_LANES];
} BlockBodies;

/* (the records are written only through the callers' writable body array) */
ALWAYS_INLINE BlockBodies block_bodies(const CCPBlock *restrict K, char *body)
{
  BlockBodies r;
  for (int l = 0; l < CCP_LANES; l++) {
    r.a[l] = body_at(body, K->a[l]);
    r.b[l] = body_at(body, K->b[l]);
  }
  return r;
}

/* The velocities in slot `slot` of the block's bodies, lane-wise: va of the A ends, vb of the B ends. */
ALWAYS_INLINE void block_velocities(const BlockBodies *AB, int slot, v4d va[6], v4d vb[6])
{
  const double *pa[CCP_LANES], *pb[CCP_LANES];
  for (int l = 0; l < CCP_LANES; l++) {
    pa[l] = slot_of(AB->a[l], slot);
    pb[l] = slot_of(AB->b[l], slot);
  }
  load6(pa, va);
  load6(pb, vb);
}

/* The velocities V(y) = V_k + beta (V_k - V_k-1) of the block's bodies, from the slots vk, vkm1
 * (APGD), lane-wise: va of the A ends, vb of the B ends. */
ALWAYS_INLINE void block_velocities_extrapolated(const BlockBodies *AB, int vk, int vkm1, double beta, v4d va[6],
                                                 v4d vb[6])
{
  const double *pa[CCP_LANES], *pb[CCP_LANES], *qa[CCP_LANES], *qb[CCP_LANES];
  for (int l = 0; l < CCP_LANES; l++) {
    pa[l] = slot_of(AB->a[l], vk);
    pb[l] = slot_of(AB->b[l], vk);
    qa[l] = slot_of(AB->a[l], vkm1);
    qb[l] = slot_of(AB->b[l], vkm1);
  }
  load6_extrapolated(pa, qa, beta, va);
  load6_extrapolated(pb, qb, beta, vb);
}

/* x's rows of a block, lane-wise (0 for the rows a 3-dof layout does not store) */
ALWAYS_INLINE void block_rows(const double *restrict x, v4d xr[6], const int six)
{
  for (int k = 0; k < 6; k++) xr[k] = ldrow(x, k, six);
}

/* rot of a mixed block's contact lanes (ccp/pack.h): 1 for 6-dof (rho or sigma nonzero), 0 for
 * 3-dof, whose torque rows then read no velocity */
ALWAYS_INLINE v4d block_rot(const CCPBlock *restrict K)
{
  const v4d rho = ldf(K->rho), sg = ldf(K->sigma);
  return (v4d)(((rho != 0) | (sg != 0)) & (v4l)splat(1));
}

/* The sweeps' metric of the block's lanes (CCPMetric of ccp/kernels.h), as ccp_kernel_metric_of
 * makes it, bit for bit: in a 6-dof layout from the stored seed (ccp/pack.h), with f = eta for
 * the 3-dof lanes of a mixed block (joint rows are 6-dof); in a 3-dof layout f = eta. */
typedef struct {
  v4d f, t, inv_f, inv_t, ell, il;
} BlockMetric;

ALWAYS_INLINE BlockMetric block_metric(const CCPBlock *restrict K, const CCPRowBlock *restrict R, const int six)
{
  BlockMetric m;
  const v4d   eta = ld(K->eta), zero = splat(0), one = splat(1);
  if (!six) {
    m.f     = eta;
    m.inv_f = 1 / eta;
    m.t = m.inv_t = zero;
    m.ell = m.il = one;
    return m;
  }
  const v4d f = ldf(K->f), ell = ldf(K->ell), p = 1 / (f * ell); /* ccp_kernel_metric_from_seed */
  m.f     = f;
  m.ell   = ell;
  m.t     = f * ell * ell;
  m.inv_f = p * ell;
  m.il    = p * f;
  m.inv_t = m.inv_f * m.il * m.il;
  if ((six == DOF_MIXED || six == DOF_SPRINGS) && !R) {
    const v4l three = block_rot(K) == zero;
    m.f             = sel(three, eta, m.f);
    m.inv_f         = sel(three, 1 / eta, m.inv_f);
    m.t             = sel(three, zero, m.t);
    m.inv_t         = sel(three, zero, m.inv_t);
    m.ell           = sel(three, one, m.ell);
    m.il            = sel(three, one, m.il);
  }
  return m;
}

/* g = D^T v + b + C x for the block's lanes at the velocities va, vb and the multipliers xr (torque
 * rows only when six); R: joint rows' b[1..5] */
ALWAYS_INLINE void block_gradient_at(const CCPBlock *restrict K, const CCPRowBlock *restrict R, const BlockFrame *F,
                                     const v4d va[6], const v4d vb[6], const v4d xr[6], v4d g[6], const int six)
{
  const v4d ra0 = F->ra[0], ra1 = F->ra[1], ra2 = F->ra[2], rb0 = F->rb[0], rb1 = F->rb[1], rb2 = F->rb[2];
  /* B's contact point velocity relative to A's: v + omega x r */
  const v4d d0 = vb[0] - va[0] + (vb[4] * rb2 - vb[5] * rb1) - (va[4] * ra2 - va[5] * ra1);
  const v4d d1 = vb[1] - va[1] + (vb[5] * rb0 - vb[3] * rb2) - (va[5] * ra0 - va[3] * ra2);
  const v4d d2 = vb[2] - va[2] + (vb[3] * rb1 - vb[4] * rb0) - (va[3] * ra1 - va[4] * ra0);
  const v4d n0 = F->n[0], n1 = F->n[1], n2 = F->n[2], u0 = F->u[0], u1 = F->u[1], u2 = F->u[2], w0 = F->w[0],
            w1 = F->w[1], w2 = F->w[2];
  const v4d clin = ldf(K->clin);
  g[0]           = n0 * d0 + n1 * d1 + n2 * d2 + ld(K->bn) + clin * xr[0];
  g[1]           = u0 * d0 + u1 * d1 + u2 * d2 + clin * xr[1];
  g[2]           = w0 * d0 + w1 * d1 + w2 * d2 + clin * xr[2];
  if (six) {
    const v4d rot = six == DOF6 || R ? splat(1) : block_rot(K), crot = ld(K->crot); /* x 1 folds away */
    const v4d e0 = rot * (vb[3] - va[3]), e1 = rot * (vb[4] - va[4]), e2 = rot * (vb[5] - va[5]);
    g[3] = n0 * e0 + n1 * e1 + n2 * e2 + crot * xr[3];
    g[4] = u0 * e0 + u1 * e1 + u2 * e2 + crot * xr[4];
    g[5] = w0 * e0 + w1 * e1 + w2 * e2 + crot * xr[5];
    if (six == DOF_SPRINGS)
      for (int k = 0; k < 3; k++) g[3 + k] += ld(K->brot[k]);
  } else g[3] = g[4] = g[5] = splat(0);
  if (R)
    for (int k = 1; k < 6; k++) g[k] += ld(R->b[k]);
}

/* block_gradient_at at the bodies' velocities in `slot` and the stored multipliers x */
ALWAYS_INLINE void block_gradient_of(const CCPBlock *restrict K, const CCPRowBlock *restrict R, const BlockFrame *F,
                                     const BlockBodies *AB, int slot, const double *restrict x, v4d g[6], const int six)
{
  v4d va[6] = {0}, vb[6] = {0}, xr[6]; /* (initialized only to quiet a false -Wmaybe-uninitialized) */
  block_velocities(AB, slot, va, vb);
  block_rows(x, xr, six);
  block_gradient_at(K, R, F, va, vb, xr, g, six);
}
ALWAYS_INLINE void block_gradient(const CCPBlock *restrict K, const CCPRowBlock *restrict R, char *body, int slot,
                                  const double *restrict x, v4d g[6], const int six)
{
  const BlockBodies AB = block_bodies(K, body);
  const BlockFrame  F  = block_frame(K, R);
  block_gradient_of(K, R, &F, &AB, slot, x, g, six);
}

/* Joint rows: the clamp of each row into [lo, hi] (the projection in any diagonal metric). */
ALWAYS_INLINE void block_clamp(const CCPRowBlock *restrict R, v4d z[6])
{
  for (int k = 0; k < 6; k++) {
    const v4d lo = ld(R->lo[k]), hi = ld(R->hi[k]);
    const v4l below = z[k]<lo, above = z[k]> hi;
    z[k]            = (v4d)((below & (v4l)lo) | (above & (v4l)hi) | (~(below | above) & (v4l)z[k]));
  }
}

/* The impulse D dg of the block's lanes on their bodies: force F and moments m = r x F + T about
 * each body's centre (B's; A's are the negatives: the callers negate). */
typedef struct {
  v4d F[3], ma[3], mb[3];
} BlockWrench;

ALWAYS_INLINE BlockWrench block_wrench(const BlockFrame *Fr, const v4d dg[6], const int six)
{
  BlockWrench W;
  v4d         T[3];
  for (int k = 0; k < 3; k++) {
    const v4d nk = Fr->n[k], uk = Fr->u[k], wk = Fr->w[k];
    W.F[k] = dg[0] * nk + dg[1] * uk + dg[2] * wk;
    T[k]   = six ? dg[3] * nk + dg[4] * uk + dg[5] * wk : splat(0);
  }
  const v4d *F = W.F, ra0 = Fr->ra[0], ra1 = Fr->ra[1], ra2 = Fr->ra[2], rb0 = Fr->rb[0], rb1 = Fr->rb[1],
            rb2 = Fr->rb[2];
  W.mb[0]       = rb1 * F[2] - rb2 * F[1] + T[0];
  W.mb[1]       = rb2 * F[0] - rb0 * F[2] + T[1];
  W.mb[2]       = rb0 * F[1] - rb1 * F[0] + T[2];
  W.ma[0]       = ra1 * F[2] - ra2 * F[1] + T[0];
  W.ma[1]       = ra2 * F[0] - ra0 * F[2] + T[1];
  W.ma[2]       = ra0 * F[1] - ra1 * F[0] + T[2];
  return W;
}

/* oa, ob added to slot `slot` of the A and B records: all A lanes, then all B lanes
 * (deterministic when lanes share a body) */
ALWAYS_INLINE void block_add(const BlockBodies *AB, int slot, const v4d oa[6], const v4d ob[6])
{
  double *ta[CCP_LANES], *tb[CCP_LANES];
  for (int l = 0; l < CCP_LANES; l++) {
    ta[l] = slot_of(AB->a[l], slot);
    tb[l] = slot_of(AB->b[l], slot);
  }
  add6(ta, oa);
  add6(tb, ob);
}

/* bodies a -= M_A^-1 (A's part of D dg), b += ...: into slot `slot`, the mass quads at byte mass_at
 * of the records. A's part is negated and added, not subtracted: the add takes the record from memory as
 * an operand, a subtraction would need it loaded first (more instructions, cachegrind). */
ALWAYS_INLINE void block_apply_of(const BlockFrame *Fr, const BlockBodies *AB, const v4d dg[6], const int six, int slot,
                                  size_t mass_at)
{
  v4d ima, imb, Iak[6], Ibk[6], oa[6], ob[6];
  load_inverse_mass(AB->b, mass_at, &imb, Ibk);
  load_inverse_mass(AB->a, mass_at, &ima, Iak);
  const BlockWrench W = block_wrench(Fr, dg, six);
  const v4d        *F = W.F, mb0 = W.mb[0], mb1 = W.mb[1], mb2 = W.mb[2], ma0 = W.ma[0], ma1 = W.ma[1], ma2 = W.ma[2];
  for (int k = 0; k < 3; k++) {
    ob[k] = imb * F[k];
    oa[k] = -ima * F[k];
  }
  ob[3] = Ibk[0] * mb0 + Ibk[3] * mb1 + Ibk[4] * mb2;
  ob[4] = Ibk[3] * mb0 + Ibk[1] * mb1 + Ibk[5] * mb2;
  ob[5] = Ibk[4] * mb0 + Ibk[5] * mb1 + Ibk[2] * mb2;
  oa[3] = -(Iak[0] * ma0 + Iak[3] * ma1 + Iak[4] * ma2);
  oa[4] = -(Iak[3] * ma0 + Iak[1] * ma1 + Iak[5] * ma2);
  oa[5] = -(Iak[4] * ma0 + Iak[5] * ma1 + Iak[2] * ma2);
  block_add(AB, slot, oa, ob);
}

ALWAYS_INLINE void block_apply(const CCPBlock *restrict K, const CCPRowBlock *restrict R, char *body, const v4d dg[6],
                               const int six, int slot, size_t mass_at)
{
  const BlockBodies AB = block_bodies(K, body);
  const BlockFrame  F  = block_frame(K, R);
  block_apply_of(&F, &AB, dg, six, slot, mass_at);
}

/* Project z (lanes) onto the reaction sets. M: in that metric of the per-contact step (the
 * torque entries scaled by il before and ell after, torque coefficients times il); NULL:
 * Euclidean. Lanes already inside take the vector test only. */
ALWAYS_INLINE void block_project(const CCPBlock *restrict K, const CCPRowBlock *restrict R, v4d z[6], const int six,
                                 const BlockMetric *M)
{
  if (R) {
    block_clamp(R, z);
    return;
  }
  const v4d mu = ldf(K->mu), coh = ldf(K->coh);
  v4d       rho = ldf6(K->rho, six), sg = ldf6(K->sigma, six);
  if (six && M) {
    const v4d il = M->il;
    z[3] *= il;
    z[4] *= il;
    z[5] *= il;
    rho *= il;
    sg *= il;
  }
  z[0] += coh;
  const v4d gn = z[0];
  v4l       in = (gn >= 0) & (z[1] * z[1] + z[2] * z[2] <= mu * mu * gn * gn);
  if (six) in &= (z[4] * z[4] + z[5] * z[5] <= rho * rho * gn * gn) & (z[3] * z[3] <= sg * sg * gn * gn);
  if (!simd4_all(in)) {
    /* Lanes in the polar cone (separating contacts: the common case after "inside") go to the
     * apex; the rest go onto a surface: cone_project3's closed form, or cone_project6's active-set
     * iteration. Norms as plain square roots of sums of squares: ccp/cone.c's hypot fallback only
     * matters below 1e-150 or above 1e150. */
    v4d ns = splat(0), nr = splat(0), nt = splat(0);
    for (int l = 0; l < CCP_LANES; l++) ns[l] = sqrt(z[1][l] * z[1][l] + z[2][l] * z[2][l]);
    if (six)
      for (int l = 0; l < CCP_LANES; l++) {
        nr[l] = sqrt(z[4][l] * z[4][l] + z[5][l] * z[5][l]);
        nt[l] = fabs(z[3][l]);
      }
    const v4l apex = ~in & (gn + mu * ns + rho * nr + sg * nt <= 0);
    const v4l keep = in | apex;
    if (!six) {
      const v4d q = gn + mu * ns, dd = 1 + mu * mu, sc = mu * q / (dd * ns),
                n0 = q / dd; /* lanes not on the surface discard these */
      const v4d z0 = n0, z1 = z[1] * sc, z2 = z[2] * sc;
      z[0] = (v4d)((in & (v4l)z[0]) | (~keep & (v4l)z0));
      z[1] = (v4d)((in & (v4l)z[1]) | (~keep & (v4l)z1));
      z[2] = (v4d)((in & (v4l)z[2]) | (~keep & (v4l)z2));
    } else if (!simd4_all(keep)) { /* some lane on a surface */
      /* cone_project6's active-set iteration on all lanes at once (see ccp/cone.c): minimize over
       * gn = y the sum of (y - x0)^2 and the squared excesses of the three blocks; start from
       * the blocks with a nonzero part and drop those whose breakpoint y_A has passed. */
      const v4d ms = mu * ns, mr = rho * nr, mt = sg * nt, zero = splat(0);
      v4l       as = ns > 0, ar = nr > 0, at = nt > 0;
      v4d       num = zero, den = zero;
      for (int pass = 0; pass < 4; pass++) { /* each pass shrinks a set strictly or stops it */
        num          = gn + (v4d)(as & (v4l)ms) + (v4d)(ar & (v4l)mr) + (v4d)(at & (v4l)mt);
        den          = 1 + (v4d)(as & (v4l)(mu * mu)) + (v4d)(ar & (v4l)(rho * rho)) + (v4d)(at & (v4l)(sg * sg));
        const v4l s2 = as & (mu * num < ns * den), r2 = ar & (rho * num < nr * den), t2 = at & (sg * num < nt * den);
        const v4l changed = (s2 ^ as) | (r2 ^ ar) | (t2 ^ at);
        as                = s2;
        ar                = r2;
        at                = t2;
        if (!simd4_any(changed)) break;
      }
      v4d y = num / den;
      y     = (v4d)((v4l)y & ~(y < 0)); /* y > 0 in exact arithmetic: the clamp guards rounding (a NaN stays) */
      /* radial clamp of each block into its ball of radius coefficient * y */
      const v4d ys = mu * y, yr = rho * y, yt = sg * y;
      const v4l cs = ns > ys, cr = nr > yr, ct = nt > yt;
      const v4d fs   = (v4d)((cs & (v4l)(ys / ns)) | (~cs & (v4l)splat(1)));
      const v4d fr   = (v4d)((cr & (v4l)(yr / nr)) | (~cr & (v4l)splat(1)));
      const v4d ft   = (v4d)((ct & (v4l)(yt / nt)) | (~ct & (v4l)splat(1)));
      const v4d p[6] = {y, fs * z[1], fs * z[2], ft * z[3], fr * z[4], fr * z[5]};
      for (int k = 0; k < 6; k++) z[k] = (v4d)((in & (v4l)z[k]) | (~keep & (v4l)p[k]));
    } else
      for (int k = 0; k < 6; k++) z[k] = (v4d)(~apex & (v4l)z[k]);
  }
  const v4d cap  = ldf(K->yield) + coh; /* as ccp/pack.c's yield_impulse + cohesion_impulse */
  const v4l over = z[0] > cap;
  if (simd4_any(over)) /* a yielding contact (rare): cone_cap lane by lane */
    for (int l = 0; l < CCP_LANES; l++) {
      double g[6] = {z[0][l], z[1][l], z[2][l], z[3][l], z[4][l], z[5][l]};
      cone_cap(six ? 6 : 3, K->mu[l], six ? rho[l] : 0, six ? sg[l] : 0, cap[l], g);
      for (int k = 0; k < 6; k++) z[k][l] = g[k];
    }
  z[0] -= coh;
  if (six && M) {
    const v4d ell = M->ell;
    z[3] *= ell;
    z[4] *= ell;
    z[5] *= ell;
  }
}

/* squared GUIDE residual |x - Proj(x - eta g)| / eta per lane */
ALWAYS_INLINE v4d block_residual2(const CCPBlock *restrict K, const CCPRowBlock *restrict R, const double *restrict x,
                                  const v4d g[6], const int six)
{
  const v4d eta = ld(K->eta);
  v4d       y[6], s = splat(0);
  for (int k = 0; k < 6; k++) y[k] = ldrow(x, k, six) - eta * g[k];
  block_project(K, R, y, six, NULL);
  for (int k = 0; k < (six ? 6 : 3); k++) {
    const v4d e = ld(x + k * CCP_LANES) - y[k];
    s += e * e;
  }
  return s / (eta * eta);
}

/* *m = lane-wise max of *m and r that keeps a NaN once seen: m where r <= m, else r */
ALWAYS_INLINE void lane_max(v4d *m, const v4d *r) { *m = sel(*r <= *m, *m, *r); }

ALWAYS_INLINE double hmax(const v4d *m)
{
  double r = 0;
  for (int l = 0; l < CCP_LANES; l++)
    if (!isnan(r) && !((*m)[l] <= r)) r = (*m)[l];
  return r;
}

/* ---- the kernels ---- */

/* The kernels read the layout (and APGD's step) through a local copy: their stores to the
 * multipliers and records are memcpy's, which may alias anything, so through the caller's pointer
 * GCC reloaded the body array, the block count and stride and the velocity slots after every
 * store (cachegrind, APGD's pass over the contacts: 8% of its instructions were those reloads and
 * the slot offsets made again from them). */
#define LOCAL_LAYOUT(name, from) const CCPPacked name##_copy = *(from), *name = &name##_copy

/* Jacobi (gs = 0): changes into dv, added to v after the sweep. Gauss-Seidel (gs = 1, lambda = 1,
 * conflict-free blocks): changes into v at once. A constant lambda of 1 folds its multiply away
 * (x 1 is exact: the same numbers). */
ALWAYS_INLINE double sweep_impl(const CCPPacked *pk_in, double *gamma, double omega, double lambda, const int six,
                                const int gs)
{
  LOCAL_LAYOUT(pk, pk_in);
  char *body    = pk->body;
  v4d   change2 = splat(0);

  for (PetscInt q = 0; q < pk->nblk; q++) {
    const CCPBlock *restrict K = ccp_block_at(pk, q);
    double *restrict x         = blk(gamma, q, six);
    v4d g[6], z[6], d[6];

    const CCPRowBlock *R = row_block(pk, q);
    prefetch_bodies(pk, q + PREFETCH_AHEAD);
    prefetch_multipliers(pk, gamma, q + PREFETCH_AHEAD, six, 1);
    const BlockBodies AB = block_bodies(K, body);
    const BlockFrame  F  = block_frame(K, R);
    block_gradient_of(K, R, &F, &AB, CCP_SLOT_V, x, g, six);
    const BlockMetric M  = block_metric(K, R, six);
    const v4d         sf = omega * M.f, st = omega * M.t;
    for (int k = 0; k < 3; k++) {
      z[k]     = ld(x + k * CCP_LANES) - sf * g[k];
      z[k + 3] = six ? ld(x + (k + 3) * CCP_LANES) - st * g[k + 3] : splat(0);
    }
    block_project(K, R, z, six, &M);
    for (int k = 0; k < 6; k++) d[k] = splat(0);
    for (int k = 0; k < ROWS(six); k++) {
      const v4d xk = ld(x + k * CCP_LANES);
      d[k]         = lambda * (z[k] - xk);
      vst(x + k * CCP_LANES, xk + d[k]);
    }
    const v4d f2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2], t2 = d[3] * d[3] + d[4] * d[4] + d[5] * d[5];
    const v4d fi = M.inv_f, ti = M.inv_t;
    const v4d r2 = f2 * fi * fi + t2 * ti * ti;
    lane_max(&change2, &r2);
    block_apply_of(&F, &AB, d, six, gs ? CCP_SLOT_V : CCP_SLOT_DV, SWEEP_MASS_AT);
  }
  for (PetscInt i = 0; !gs && i <= pk->nbodies; i++) {
    double *v = ccp_body_velocity(pk, i, CCP_SLOT_V), *dv = ccp_body_velocity(pk, i, CCP_SLOT_DV);
    for (int k = 0; k < 6; k++) {
      v[k] += dv[k];
      dv[k] = 0;
    }
  }
  return hmax(&change2);
}

ALWAYS_INLINE void residual_impl(const CCPPacked *pk_in, const double *x, int slot, double *res2_max, double *res2_sum,
                                 const int six)
{
  LOCAL_LAYOUT(pk, pk_in);
  v4d mx = splat(0), sum = splat(0);

  for (PetscInt q = 0; q < pk->nblk; q++) {
    const CCPBlock *restrict K = ccp_block_at(pk, q);
    v4d g[6];
    prefetch_bodies(pk, q + PREFETCH_AHEAD);
    const CCPRowBlock *R = row_block(pk, q);
    block_gradient(K, R, pk->body, slot, cblk(x, q, six), g, six);
    const v4d r2 = block_residual2(K, R, cblk(x, q, six), g, six);
    lane_max(&mx, &r2);
    sum += r2;
  }
  *res2_max = hmax(&mx);
  *res2_sum = sum[0] + sum[1] + sum[2] + sum[3];
}

/* The sums of an APGD pass, lane-wise (CCPApgdSums). */
typedef struct {
  v4d dd, de, dcd, change2, res2, gdot, gcg;
} ApgdLanes;

/* APGD's pass over the contacts (ccp_sweep_apgd): per block, the velocities of y at both ends from
 * those of xk and xkm1, the gradient at y, the projected step into x, the impulses D (x - y) into
 * the accumulators, the sums; with `residual` the GUIDE residual of xk from the velocities of xk
 * (already loaded). */
ALWAYS_INLINE void apgd_impl(const CCPPacked *pk_in, const CCPApgdStep *p_in, double *xout, CCPApgdSums *sums,
                             const int residual, const int six)
{
  LOCAL_LAYOUT(pk, pk_in);
  const CCPApgdStep step_copy = *p_in, *p = &step_copy;
  ApgdLanes         acc  = {splat(0), splat(0), splat(0), splat(0), splat(0), splat(0), splat(0)};
  const double      beta = p->beta, step = p->step;

  for (PetscInt q = 0; q < pk->nblk; q++) {
    const CCPBlock *restrict K = ccp_block_at(pk, q);
    const CCPRowBlock *R       = row_block(pk, q);
    const double      *X = cblk(p->xk, q, six), *Xp = cblk(p->xkm1, q, six);
    double            *Out   = blk(xout, q, six);
    v4d                va[6] = {0}, vb[6] = {0}, x0[6], y[6], g[6], z[6], d[6];

    prefetch_bodies(pk, q + PREFETCH_AHEAD);
    prefetch_multipliers(pk, p->xk, q + PREFETCH_AHEAD, six, 0);
    prefetch_multipliers(pk, p->xkm1, q + PREFETCH_AHEAD, six, 0);
    prefetch_multipliers(pk, xout, q + PREFETCH_AHEAD, six, 1);
    const BlockBodies AB = block_bodies(K, pk->body);
    const BlockFrame  F  = block_frame(K, R);
    block_rows(X, x0, six);
    if (residual) {
      block_velocities(&AB, p->vk, va, vb);
      block_gradient_at(K, R, &F, va, vb, x0, g, six);
      const v4d r2 = block_residual2(K, R, X, g, six);
      lane_max(&acc.res2, &r2);
      v4d xf = splat(0), xt = splat(0);
      for (int k = 0; k < 6; k++) {
        acc.gdot += x0[k] * g[k];
        if (k < 3) xf += x0[k] * x0[k];
        else xt += x0[k] * x0[k];
      }
      acc.gcg += ldf(K->clin) * xf + (six ? ld(K->crot) : splat(0)) * xt; /* C's rows as in block_gradient_at */
    }
    block_velocities_extrapolated(&AB, p->vk, p->vkm1, beta, va, vb);
    for (int k = 0; k < 6; k++) y[k] = x0[k] + beta * (x0[k] - ldrow(Xp, k, six));
    block_gradient_at(K, R, &F, va, vb, y, g, six);
    const BlockMetric M  = block_metric(K, R, six);
    const v4d         sf = step * M.f, st = step * M.t;
    for (int k = 0; k < 6; k++) z[k] = y[k] - (k < 3 ? sf : st) * g[k];
    block_project(K, R, z, six, &M);
    v4d ff = splat(0), ft = splat(0), ef = splat(0), et = splat(0);
    for (int k = 0; k < 6; k++) {
      const v4d e = z[k] - x0[k];
      d[k]        = z[k] - y[k];
      if (k < 3) {
        ff += d[k] * d[k];
        ef += d[k] * e;
      } else {
        ft += d[k] * d[k];
        et += d[k] * e;
      }
    }
    for (int k = 0; k < ROWS(six); k++) vst(Out + k * CCP_LANES, z[k]);
    const v4d fi = M.inv_f, ti = M.inv_t, crot = six ? ld(K->crot) : splat(0);
    acc.dd += ff * fi + ft * ti;
    acc.de += ef * fi + et * ti;
    acc.dcd += ldf(K->clin) * ff + crot * ft; /* C's rows as in block_gradient_at */
    const v4d c2 = ff * fi * fi + ft * ti * ti;
    lane_max(&acc.change2, &c2);
    const BlockWrench W = block_wrench(&F, d, six);
    v4d               oa[6], ob[6];
    for (int k = 0; k < 3; k++) {
      oa[k]     = -W.F[k];
      oa[k + 3] = -W.ma[k];
      ob[k]     = W.F[k];
      ob[k + 3] = W.mb[k];
    }
    block_add(&AB, CCP_SLOT_DV, oa, ob);
  }
  sums->dBd     = acc.dd[0] + acc.dd[1] + acc.dd[2] + acc.dd[3];
  sums->uphill  = -(acc.de[0] + acc.de[1] + acc.de[2] + acc.de[3]);
  sums->dCd     = acc.dcd[0] + acc.dcd[1] + acc.dcd[2] + acc.dcd[3];
  sums->change2 = hmax(&acc.change2);
  sums->res2    = hmax(&acc.res2);
  sums->gdot    = acc.gdot[0] + acc.gdot[1] + acc.gdot[2] + acc.gdot[3];
  sums->gcg     = acc.gcg[0] + acc.gcg[1] + acc.gcg[2] + acc.gcg[3];
}

/* One body of APGD's pass over the bodies: slot vnew <- V(y) + M^-1 p, p (the accumulator) <- 0;
 * p^T M^-1 p added to the lanes of *pMp when `owned`. Each slot as a quad (entries 0-3) and a pair
 * (4, 5): 40% fewer instructions than scalar code (cachegrind), the same V bits (each entry's
 * arithmetic is the scalar one). */
ALWAYS_INLINE void apgd_body(char *rec, const CCPApgdStep *p, int vnew, size_t mass_at, v4d *pMp, v2d *pMp45,
                             const int owned)
{
  const CCPBodyMass *M  = (const CCPBodyMass *)(rec + mass_at);
  const double      *vk = slot_of(rec, p->vk), *vkm1 = slot_of(rec, p->vkm1), beta = p->beta;
  const double       I[6] = {M->I[0], M->I[1], M->I[2], M->I[3], M->I[4], M->I[5]};
  double            *acc = slot_of(rec, CCP_SLOT_DV), *out = slot_of(rec, vnew);
  const v4d          a03 = ld(acc);
  const v2d          a45 = ld2(acc + 4);
  const double       a3 = a03[3], a4 = a45[0], a5 = a45[1];
  v4d                dv03 = splat(M->im) * a03; /* entries 0-2: M^-1's mass part; 3: the inertia's row */
  dv03[3]                 = I[0] * a3 + I[3] * a4 + I[4] * a5;
  const v2d dv45          = {I[3] * a3 + I[1] * a4 + I[5] * a5, I[4] * a3 + I[5] * a4 + I[2] * a5};
  if (owned) {
    *pMp += a03 * dv03;
    *pMp45 += a45 * dv45;
  }
  const v4d k03 = ld(vk);
  const v2d k45 = ld2(vk + 4), b2 = {beta, beta};
  vst(out, k03 + beta * (k03 - ld(vkm1)) + dv03);
  const v2d o45 = k45 + b2 * (k45 - ld2(vkm1 + 4)) + dv45, zero2 = {0, 0};
  memcpy(out + 4, &o45, sizeof(o45));
  vst(acc, splat(0));
  memcpy(acc + 4, &zero2, sizeof(zero2));
}

/* APGD's pass over the bodies (ccp_sweep_apgd_bodies), record after record: the owned ones, then
 * the ghosts, walls and the dummy. */
ALWAYS_INLINE double apgd_bodies_impl(const CCPPacked *pk_in, const CCPApgdStep *p_in, int vnew, PetscInt nowned)
{
  LOCAL_LAYOUT(pk, pk_in);
  const CCPApgdStep step_copy = *p_in, *p = &step_copy;
  const size_t      mass_at = ccp_body_mass_at(pk);
  v4d               pMp     = splat(0);
  v2d               pMp45   = {0, 0};
  PetscInt          i       = 0;

  for (; i < nowned; i++) apgd_body(ccp_body_record(pk, i), p, vnew, mass_at, &pMp, &pMp45, 1);
  for (; i <= pk->nbodies; i++) apgd_body(ccp_body_record(pk, i), p, vnew, mass_at, &pMp, &pMp45, 0);
  return (pMp[0] + pMp[1]) + (pMp[2] + pMp[3]) + (pMp45[0] + pMp45[1]);
}

/* v += M^-1 D x over all blocks (the warm start's and the final velocity; records of any kind) */
ALWAYS_INLINE void velocity_impl(const CCPPacked *pk_in, const double *x, const int six)
{
  LOCAL_LAYOUT(pk, pk_in);
  const size_t mass_at = ccp_body_mass_at(pk);
  for (PetscInt q = 0; q < pk->nblk; q++) {
    const double *X = cblk(x, q, six);
    v4d           d[6];
    prefetch_bodies(pk, q + PREFETCH_AHEAD);
    for (int k = 0; k < 6; k++) d[k] = ldrow(X, k, six);
    block_apply(ccp_block_at(pk, q), row_block(pk, q), pk->body, d, six, CCP_SLOT_V, mass_at);
  }
}

/* ---- instantiation and dispatch ---- */

/* sweep_impl with `six` as the layout says */
ALWAYS_INLINE double sweep_dof(CCPPacked *pk, double *gamma, double omega, double lambda, const int gs)
{
  if (pk->all3) return sweep_impl(pk, gamma, omega, lambda, DOF3, gs);
  if (pk->springs) return sweep_impl(pk, gamma, omega, lambda, DOF_SPRINGS, gs);
  return pk->all6 ? sweep_impl(pk, gamma, omega, lambda, DOF6, gs)
                  : sweep_impl(pk, gamma, omega, lambda, DOF_MIXED, gs);
}

/* kernel(args..., six) with `six` as the layout says: each instantiated for the four kinds */
#define BY_DOF(pk, kernel, ...) \
  ((pk)->all3      ? kernel(__VA_ARGS__, DOF3) \
   : (pk)->springs ? kernel(__VA_ARGS__, DOF_SPRINGS) \
   : (pk)->all6    ? kernel(__VA_ARGS__, DOF6) \
                   : kernel(__VA_ARGS__, DOF_MIXED))

#define INSTANTIATE(suffix, attr) \
  attr static double jacobi_##suffix(CCPPacked *pk, double *gamma, double omega, double lambda) \
  { \
    return lambda == 1 ? sweep_dof(pk, gamma, omega, 1, 0) : sweep_dof(pk, gamma, omega, lambda, 0); \
  } \
  attr static double gauss_seidel_##suffix(CCPPacked *pk, double *gamma, double omega) \
  { \
    return sweep_dof(pk, gamma, omega, 1, 1); \
  } \
  attr static void residual_##suffix(const CCPPacked *pk, const double *x, int slot, double *m, double *s) \
  { \
    BY_DOF(pk, residual_impl, pk, x, slot, m, s); \
  } \
  attr static void velocity_##suffix(CCPPacked *pk, const double *x) { BY_DOF(pk, velocity_impl, pk, x); } \
  attr static void apgd_##suffix(CCPPacked *pk, const CCPApgdStep *p, double *x, int residual, CCPApgdSums *sums) \
  { \
    if (residual) BY_DOF(pk, apgd_impl, pk, p, x, sums, 1); \
    else BY_DOF(pk, apgd_impl, pk, p, x, sums, 0); \
  } \
  attr static double apgd_bodies_##suffix(CCPPacked *pk, const CCPApgdStep *p, int vnew, PetscInt nowned) \
  { \
    return apgd_bodies_impl(pk, p, vnew, nowned); \
  }

INSTANTIATE(generic, )
#if SIMD4_HAVE_AVX2
INSTANTIATE(avx2, SIMD4_AVX2_ATTR)
INSTANTIATE(avx512vl, SIMD4_AVX512_ATTR)
#define DISPATCH(name, pk, ...) \
  (simd4_isa(pk->simd) == SIMD4_AVX512VL ? name##_avx512vl(pk, __VA_ARGS__) \
   : simd4_isa(pk->simd) == SIMD4_AVX2   ? name##_avx2(pk, __VA_ARGS__) \
                                         : name##_generic(pk, __VA_ARGS__))
#else
#define DISPATCH(name, pk, ...) name##_generic(pk, __VA_ARGS__)
#endif

double ccp_sweep_jacobi(CCPPacked *pk, double *gamma, double omega, double lambda)
{
  return DISPATCH(jacobi, pk, gamma, omega, lambda);
}
double ccp_sweep_gauss_seidel(CCPPacked *pk, double *gamma, double omega)
{
  return DISPATCH(gauss_seidel, pk, gamma, omega);
}
void ccp_sweep_residual(const CCPPacked *pk, const double *x, int slot, double *res2_max, double *res2_sum)
{
  DISPATCH(residual, pk, x, slot, res2_max, res2_sum);
}
void ccp_sweep_velocity(CCPPacked *pk, const double *x) { DISPATCH(velocity, pk, x); }
void ccp_sweep_apgd(CCPPacked *pk, const CCPApgdStep *p, double *x, PetscBool residual, CCPApgdSums *sums)
{
  DISPATCH(apgd, pk, p, x, residual ? 1 : 0, sums);
}
double ccp_sweep_apgd_bodies(CCPPacked *pk, const CCPApgdStep *p, int vnew, PetscInt nowned)
{
  return DISPATCH(apgd_bodies, pk, p, vnew, nowned);
}
const char *ccp_sweep_isa(const CCPPacked *pk) { return simd4_isa_name(simd4_isa(pk->simd)); }
