/* The penalty model's contact loads on blocks of 4 or 8 contacts at once, one contact per SIMD lane
 * (src/base/simd4.h): the same formulas as the per-contact code (penalty/loads.c with penalty/normal.c,
 * penalty/tracking.c, penalty/slide.c, penalty/roll.c, penalty/spin.c), for the contacts that make
 * up a settled pile: touching, continuing (the last step touched too), a sphere on a sphere or on a
 * plane wall, Hertz normal force and the tracking roll model. Everything else (onsets, boxes,
 * Hooke, the legacy roll model, a frame turned edge-on, a step's spin beyond 1/128 rad) goes
 * through the per-contact code.
 *
 * A lane's result depends only on its own contact (no lane reads another's), so a contact gets the
 * same bits whichever block and lane it falls in: runs stay independent of the rank count. The
 * block code rounds differently from the per-contact code (fused multiply-adds on AVX2), within a
 * few ulps. */
#ifndef CCPDEM_PENALTY_KERNEL_H
#define CCPDEM_PENALTY_KERNEL_H
#include "penalty/loads.h"
#include "penalty/tracking.h"
#include "bodies/shapes.h"

#define PENALTY_BLOCK_MAX 8 /* lanes of the widest instantiation; penalty_block_lanes: this run's */

/* A body or wall as the contacts read it: filled once per step (PenaltyContactLoads). The doubles
 * come first in groups of 4 that the block kernel loads with one instruction per lane:
 * pose (x, R: 0-11), vel and mass (12-15), omega and inertia (16-19), kappa (20). 64-byte aligned
 * and padded to 192 bytes: a side spans exactly 3 cache lines (ctx->side is allocated so). */
struct PenaltySide {
  _Alignas(64) PenaltyPose pose; /* centre now and the turn over the last step (penalty/tracking.h) */
  double vel[3], mass;           /* world (m/s), kg; a wall: infinite mass */
  double omega[3], inertia;      /* world (rad/s), mean principal moment (kg m^2); a wall: infinite */
  double kappa;                  /* surface curvature of a sphere (a clump's members), 1 / radius; else 0 */
  int    material, shape;        /* ShapeKind, or a wall's: -1 plane or mesh, -2 box, -3 cylinder */
  int    wall;
  double inv_mass; /* 1 / mass, for the integrator (step/step.c); a wall: 0 */
};

/* What the time-step check needs of a touching contact: each spring's stiffness with the inertia
 * it moves (normal kn with m_eff, slide K_E with 2 m_eff / 7, roll K_R and spin K_psi with I_ij). */
typedef struct {
  double m_eff, kn, K_E, I_ij, K_R, K_psi;
} PenaltyStiffness;

/* One block: lane l's contact, its last history, where its new history and its loads (force and
 * torque on A, then on B: PENALTY_LOAD_WIDTH doubles) go, and its stiffnesses (out; by field, so
 * that the kernel stores each with one instruction and lane l is read back from that store). */
typedef struct {
  const Contact        *c[PENALTY_BLOCK_MAX];
  const PenaltyHistory *prev[PENALTY_BLOCK_MAX];
  PenaltyHistory       *rec[PENALTY_BLOCK_MAX];
  double               *load[PENALTY_BLOCK_MAX];
  double m_eff[PENALTY_BLOCK_MAX], kn[PENALTY_BLOCK_MAX], K_E[PENALTY_BLOCK_MAX], I_ij[PENALTY_BLOCK_MAX],
    K_R[PENALTY_BLOCK_MAX], K_psi[PENALTY_BLOCK_MAX];
  const PenaltyStepLimit *lim; /* the stiffest spring so far: lanes that may beat it are reported */
} PenaltyBlock;

/* penalty_block_loads' result: bit l (l < 8) lane l to compute again per contact, bit 8 + l lane l's
 * stiffness may beat blk->lim (the others' cannot). */
#define PENALTY_BLOCK_REDO(r)  ((r)&255)
#define PENALTY_BLOCK_BEATS(r) ((r) >> PENALTY_BLOCK_MAX & 255)

/* lane l's stiffnesses */
static inline PenaltyStiffness penalty_block_stiffness(const PenaltyBlock *b, int l)
{
  return (PenaltyStiffness){b->m_eff[l], b->kn[l], b->K_E[l], b->I_ij[l], b->K_R[l], b->K_psi[l]};
}

/* Whether the block kernel computes contact c with last history prev (NULL: none; the model's
 * settings are checked by the caller); see above. Inline and without branches: asked of every
 * contact, whose answers come in no pattern a branch predictor could learn, and whose loads
 * (the contact's gap, the history, both sides) then overlap. */
static inline int penalty_block_eligible(const PenaltyContext *ctx, const Contact *c, const PenaltyHistory *prev)
{
  static const PenaltyHistory none = {0};
  const PenaltySide          *A = &ctx->side[c->a], *B = &ctx->side[c->b];
  const PenaltyHistory       *h = prev ? prev : &none;
  return (c->phi < 0) & penalty_state_has(h, PENALTY_TOUCHING) & !B->wall & (B->shape == SHAPE_SPHERE) &
         (A->wall ? A->shape == -1 : A->shape == SHAPE_SPHERE);
}

/* Whether the model's settings let the block kernel compute any contact (Hertz, tracking roll, the
 * surfaces' spin curvature). */
static inline int penalty_block_model(const PenaltyContext *ctx)
{
  return ctx->set->normal == PENALTY_NORMAL_HERTZ && ctx->set->rolling == PENALTY_ROLLING_TRACKING &&
         ctx->set->spinning == PENALTY_SPINNING_CURVATURE;
}

/* The loads, new histories and stiffnesses of a block of 4 eligible contacts (lanes may repeat a
 * contact; their outputs must then be distinct). Lanes to compute again (their records are left
 * as they were, so that a record updated in place can still be read): those whose
 * tracking left the kernel's domain (see above). */
int penalty_block_loads(const PenaltyContext *ctx, PenaltyBlock *blk);
/* The contacts a block of penalty_block_loads takes with ctx->simd on this CPU: 8 (avx512), else 4. */
int penalty_block_lanes(const PenaltyContext *ctx);
/* The 8-lane instantiation (penalty/kernel8.c), which penalty_block_loads runs for avx512. */
int penalty_block_loads8(const PenaltyContext *ctx, PenaltyBlock *blk);

/* Whether the step computes the eligible contacts with the block kernel: not with per_contact, nor
 * with settings it does not cover, nor (ctx->simd above SIMD4_GENERIC) on a CPU without AVX2+FMA,
 * where the per-contact code is faster than the portable 4-lane code (0.89 against 1.52 ms per step
 * on the benchmark pile, where AVX2 takes 0.46); ctx->simd SIMD4_GENERIC asks for the portable code
 * (tests). */
int penalty_block_wanted(const PenaltyContext *ctx);

/* The name of the instantiation penalty_block_loads runs on this CPU with ctx->simd (base/simd4.h). */
const char *penalty_block_isa(const PenaltyContext *ctx);
#endif
