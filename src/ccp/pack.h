/* Private: the solvers' packed layout of one CCP problem, built once per solve (O(contacts),
 * amortized over the iterations) and the sweep kernels that run on it (ccp/sweep.c). It sees the
 * problem and, for passes over several ranks, a coupling (ccp/coupling.h), never the solver object.
 *
 * Why (notes/performance.md): one struct per contact read through body indices ran 50-110 ns per
 * contact-iteration; blocks of 4 contacts with each field a 4-lane array (AoSoA) let the
 * compiler do 4 contacts per AVX2 instruction, and one record per body with its velocity, its
 * increment and its inverse mass and inertia makes each body one or two cache lines.
 *
 * Contacts: CCP_LANES per block, in an order of their own (by lower solver-body index, ties in
 * problem order: deterministic, and neighbouring bodies' contacts end up together); perm maps
 * packed slot -> problem contact. For Gauss-Seidel the blocks are conflict-free (no two lanes
 * share a movable body), so a block's lanes may be updated at once. Padding lanes (at the end, or
 * wherever conflicts left a block short) join the dummy body nbodies (zero inverse mass, zero
 * velocity) with zero geometry: every kernel maps them to zero, so no lane needs a branch.
 * A 3-dof contact is a 6-dof one with rho = sigma = 0, torque step t = 0 and rot = 0 (its torque
 * rows read no velocity), so its torque impulses stay exactly 0.
 * Multipliers in packed order: rows x CCP_LANES doubles per block, entry k of lane l of block q at
 * [CCP_LANES (rows q + k) + l], rows = 6, or 3 when every contact is 3-dof (all3: the torque rows would
 * hold only zeros; this halves the solvers' vectors, 2 or 3 of them, and their traffic).
 * The multipliers and velocities are double, the contacts' inputs single (CCPBlock).
 * Joint blocks (contacts with a RowBox) come after all contact blocks, in blocks of their own, so
 * a sweep tells them apart by the block index alone and a contact-only problem pays nothing. */
#ifndef CCPDEM_CCP_PACK_H
#define CCPDEM_CCP_PACK_H
#include "ccp/problem.h"
#include "ccp/coupling.h"
#include "base/scratch_pool.h"
#include "base/simd4_isa.h"
#include <stddef.h>

#define CCP_LANES 4
/* Above this many bytes of blocks (a quarter of this machine's 32 MB L3) the sweeps request each
 * block's lines ahead as they do its bodies': out of cache the hardware prefetcher, following the
 * block stream beside 5-6 multiplier streams, left the first load of each block waiting (10^5
 * spheres: Jacobi 42-45 -> 30-34, APGD 84-85 -> 63-65 ns per contact-iteration); in cache the
 * extra instructions cost a little. */
#define CCP_PREFETCH_BLOCKS_ABOVE ((size_t)8 << 20)

/* A block of CCP_LANES contacts, each field one entry per lane. The fields a 3-dof contact needs come
 * first (CCP_BLOCK3_BYTES, 6 cache lines), the 6-dof ones from `rho` on: a layout of 3-dof contacts
 * only (all3) stores blocks CCP_BLOCK3_BYTES apart and its kernels read nothing from `rho` on.
 * Single precision: the contacts' inputs (n, ra, rb, the friction coefficients, the law's c_lin,
 * cohesion and yield). Double: bn (phi / h: rounded, it set the 1- and 2-rank pours of
 * test_distributed_pour 1.7e-7 m/s apart instead of 2.2e-9), what the iteration derives (us, wt, eta,
 * crot), the multipliers and the velocities. Everything reads the rounded numbers, so a solve is exact
 * (to its tolerance) for normals and lever arms moved by at most 2^-24 relative; the reference loops
 * (-ccp_packed false) solve the unrounded problem, within about 1e-7 relative of the packed iterates.
 * Derived per block visit, not stored: the tangents, bit for bit those of v3_tangents(n), from us and
 * wt (a joint block's are in CCPRowBlock), and the metric (CCPMetric of ccp/kernels.h) from its seed
 * f, ell (ccp_kernel_metric_seed; consistent to rounding, so the fixed points stay the CCP's).
 * Why: 128 bytes per 6-dof contact instead of 224 (3-dof: 96, not 160); the single inputs, at no cost
 * in sweep speed, brought stepping under 1.5 KB per body at 10^5 bodies (docs/history/ccp-solver-layout.md). */
typedef struct {
  uint32_t a[CCP_LANES],
    b[CCP_LANES]; /* the bodies' records: byte offsets into body[] (index times body_bytes: no multiply per use) */
  float  n[3][CCP_LANES];
  float  ra[3][CCP_LANES], rb[3][CCP_LANES];
  float  mu[CCP_LANES];
  float  clin[CCP_LANES], coh[CCP_LANES];
  float  yield[CCP_LANES]; /* the yield impulse: gn + coh is capped at yield + coh (INFINITY: no cap) */
  float  pad[CCP_LANES];   /* unused: the doubles below start on a 32-byte boundary, the block on a line */
  double bn[CCP_LANES];
  double us[CCP_LANES], wt[CCP_LANES]; /* the tangents (above): u = us (e_k x n), w = n x u but w_k = wt */
  double eta[CCP_LANES];               /* also the force rows' step f of a 3-dof contact (CCPMetric of ccp/kernels.h) */
  /* 6-dof contacts only: */
  float rho[CCP_LANES], sigma[CCP_LANES];
  float f[CCP_LANES], ell[CCP_LANES]; /* the seed of the sweeps' metric (ccp_kernel_metric_seed): the force rows' step
                                         and the torque rows' scale */
  double crot[CCP_LANES];             /* the torque rows' compliance */
  /* Layouts with rolling springs (springs) only: the torque rows' stabilization b_rot of CCPContactTerms.
   * Without springs the block ends within brot[0] (CCP_BLOCK6_BYTES, on a line), which nothing reads. */
  double brot[3][CCP_LANES];
} CCPBlock;
#define CCP_BLOCK3_BYTES offsetof(CCPBlock, rho)
#define CCP_BLOCK6_BYTES ((size_t)512)
_Static_assert(CCP_BLOCK3_BYTES == 384 && offsetof(CCPBlock, brot) + sizeof(double[CCP_LANES]) == CCP_BLOCK6_BYTES &&
                 sizeof(CCPBlock) == 576,
               "blocks of each size start on cache lines, their double fields aligned");

/* The rows of a block of joint blocks (RowBox of contact/contact_set.h), lane-wise: blocks row0.. of a
 * packing hold only joint blocks, so the contact blocks carry none of this. b[0] is in bn; the
 * frame's tangents are the joint's own (not those of n: the CCPBlock's us, wt are unused). */
typedef struct {
  double b[6][CCP_LANES], lo[6][CCP_LANES], hi[6][CCP_LANES];
  double u[3][CCP_LANES], w[3][CCP_LANES];
} CCPRowBlock;

/* One solver body's record: `slots` velocity buffers of 6 (world linear, angular), then its
 * inverse mass and inertia in single precision (CCPBodyMass), which the sweeps load for 4 bodies
 * by 2 conversions and 2 transposes. Slot CCP_SLOT_V holds the velocity, CCP_SLOT_DV the
 * accumulator of a pass's changes (zero between passes); APGD's records have two more slots
 * (ccp/apgd.c: the velocities of its last two iterates and of the next rotate among V and
 * these). 128 bytes with 2 slots (Jacobi, Gauss-Seidel): 2 cache lines, where the 160 bytes of a
 * double mass touched 3 (records at 0 or 32 in a line); 256 with 4 (APGD; 32 bytes unused, so
 * that its records stay on 4 lines, the velocity slots on 3: the sweeps' prefetch).
 * Precision: as the contacts' inputs (CCPBlock), the inverse mass and inertia are the problem's
 * data, rounded once by the packing; the sweeps, the metric's traces, the residual and the final
 * velocities all read the rounded numbers, so a solve is exact, to its tolerance, for bodies
 * whose inverse mass and inertia moved by at most 2^-24 relative (per entry: ccp/packed_inertia.h
 * has what that is per direction, and the bound the scenario checks apply). A world inverse
 * inertia that rounding would make indefinite (principal moments 10^7 and more apart) is
 * rejected by the build. */
typedef struct {
  float im, I[6]; /* inverse mass, world inverse inertia (xx, yy, zz, xy, xz, yz) */
  float pad;
} CCPBodyMass;
enum {
  CCP_SLOT_V      = 0,
  CCP_SLOT_DV     = 1,
  CCP_SLOTS_SWEEP = 2,
  CCP_SLOTS_APGD  = 4
};
#define CCP_SLOT_BYTES          (6 * sizeof(double))
#define CCP_BODY_MASS_AT(slots) ((slots)*CCP_SLOT_BYTES) /* the mass's byte offset in a record */
/* the slots and the mass, rounded up to whole cache lines */
#define CCP_BODY_BYTES(slots) ((CCP_BODY_MASS_AT(slots) + sizeof(CCPBodyMass) + 63) / 64 * 64)
_Static_assert(sizeof(CCPBodyMass) == 32 && CCP_BODY_BYTES(CCP_SLOTS_SWEEP) == 128 &&
                 CCP_BODY_BYTES(CCP_SLOTS_APGD) == 256,
               "ccp/sweep.c loads the mass as 2 float quads; records on whole lines, APGD's velocity slots on 3");
_Static_assert(SCRATCH_ALIGN % 64 == 0 && CCP_BODY_MASS_AT(CCP_SLOTS_SWEEP) % 16 == 0 &&
                 CCP_BODY_MASS_AT(CCP_SLOTS_APGD) % 16 == 0,
               "records on a line-aligned array start on lines, the mass quads aligned");

/* A packed vector is longer than P->gamma's 6 nc doubles by the padding lanes' entries only: at most
 * 2 (CCP_LANES - 1) lanes (a contact part and a joint part, each padded) of 6 rows. */
#define CCP_STASH_TAIL (2 * (CCP_LANES - 1) * 6)

typedef struct {
  PetscInt  nc, nblk, nbodies; /* problem contacts, blocks, problem bodies (the dummy is extra) */
  PetscBool all3;              /* every contact 3-dof: the kernels skip the torque rows */
  PetscBool all6;              /* every contact 6-dof: every rot is 1, the sweeps skip its multiply */
  PetscBool springs;           /* some contact has rolling springs (c_roll > 0): blocks carry brot */
  Simd4Isa  simd;              /* the highest instantiation of the kernels allowed (base/simd4_isa.h) */
  PetscBool prefetch_blocks;   /* blocks beyond CCP_PREFETCH_BLOCKS_ABOVE bytes: the sweeps prefetch them too */
  CCPBlock *blk; /* slot SCRATCH_PACKED_BLOCKS of `vectors`, set by each build: block q at blk_bytes q (ccp_block_at) */
  size_t    blk_bytes; /* CCP_BLOCK6_BYTES; CCP_BLOCK3_BYTES when all3, sizeof(CCPBlock) with springs */
  PetscInt  row0;      /* blocks [row0, nblk) are joint blocks (rows[q - row0]); row0 = nblk: none */
  CCPRowBlock *rows;
  size_t       rows_cap;
  char        *body;               /* nbodies + 1 records of body_bytes, on a cache line (MemoryAllocAligned) */
  size_t       body_bytes;         /* CCP_BODY_BYTES(slots) of the build */
  size_t       mass_at;            /* CCP_BODY_MASS_AT(slots) of the build */
  PetscInt    *perm;               /* packed slot -> problem contact (-1: padding), nblk CCP_LANES entries */
  size_t       body_cap, perm_cap; /* body_cap in bytes */
  PetscInt    *count,
    *sorted; /* counting sort: buckets (nbodies + 1), contacts by lower body index; freed after the layout */
  size_t  count_cap, sorted_cap;
  double *g[7]; /* multiplier-sized packed vectors (ccp_packed_len): g[k] is slot k of `vectors`, set by each build */
  double  stash_tail[CCP_STASH_TAIL]; /* CCPPackedStash: what of a packed vector P->gamma's 6 nc doubles do not hold */
  ScratchPool vectors; /* the vectors and the blocks, dead between solves: collision detection and the warm-start memory
                          borrow them (CCPSolverScratch) */
} CCPPacked;

/* Body i's record, its velocity slot `slot`, its inverse mass and inertia. */
static inline char   *ccp_body_record(const CCPPacked *pk, PetscInt i) { return pk->body + (size_t)i * pk->body_bytes; }
static inline double *ccp_body_velocity(const CCPPacked *pk, PetscInt i, int slot)
{
  return (double *)(ccp_body_record(pk, i) + (size_t)slot * CCP_SLOT_BYTES);
}
/* where a record's mass starts: after its velocity slots, whichever kind of record */
static inline size_t       ccp_body_mass_at(const CCPPacked *pk) { return pk->mass_at; }
static inline CCPBodyMass *ccp_body_mass(const CCPPacked *pk, PetscInt i)
{
  return (CCPBodyMass *)(ccp_body_record(pk, i) + ccp_body_mass_at(pk));
}

/* Block q of the layout (its 6-dof fields exist only when !all3, brot only with springs). */
static inline CCPBlock *ccp_block_at(const CCPPacked *pk, PetscInt q)
{
  return (CCPBlock *)((char *)pk->blk + (size_t)q * pk->blk_bytes);
}
static inline int    ccp_packed_rows(const CCPPacked *pk) { return pk->all3 ? 3 : 6; }
static inline size_t ccp_packed_len(const CCPPacked *pk) { return (size_t)pk->nblk * ccp_packed_rows(pk) * CCP_LANES; }
/* Where entry k (< ccp_packed_rows) of packed slot `slot` sits in a multiplier-sized vector. */
static inline size_t ccp_packed_index(const CCPPacked *pk, PetscInt slot, int k)
{
  return (size_t)(slot / CCP_LANES) * ccp_packed_rows(pk) * CCP_LANES + (size_t)k * CCP_LANES +
         (size_t)(slot % CCP_LANES);
}

/* Build the layout of P (metrics included; every contact's terms from P and eta from the body records) and
 * pack P->gamma into pk->g[0], P's bodies (ccp_problem_body) into body records of `slots`
 * velocity slots (CCP_SLOTS_SWEEP or CCP_SLOTS_APGD; all 0 but the free velocity in
 * CCP_SLOT_V). nvec: how many of pk->g to provide (>= 1); conflict_free: blocks for Gauss-Seidel. */
PetscErrorCode CCPPackedBuild(CCPPacked *pk, const CCPProblem *P, int nvec, PetscBool conflict_free, int slots);
/* pk->g[0, nvec) of the built layout's size (the build provides them; a method that finds out
 * after the build that it needs more asks here). Contents of the ones it adds: undefined. */
PetscErrorCode CCPPackedVectors(CCPPacked *pk, int nvec);
/* P->gamma <- packed multipliers x (problem order; 3-dof torque entries 0). */
void CCPPackedUnpackGamma(const CCPPacked *pk, const double *x, CCPProblem *P);
/* Packed multipliers x <- P->gamma (padding lanes 0): the inverse of CCPPackedUnpackGamma. */
PetscErrorCode CCPPackedPackGamma(const CCPPacked *pk, const CCPProblem *P, double *x);
/* Keep the packed vector x in P->gamma's storage while a solve does not need P->gamma (from the
 * build to its end), in packed order: a copy, where CCPPackedUnpackGamma scatters it contact by
 * contact (ccp/apgd.c's apgd_free_buffer has what that cost). What does not fit goes to
 * pk->stash_tail. CCPPackedUnstash copies it back, bit for bit; P->gamma holds no impulses meanwhile. */
PetscErrorCode CCPPackedStash(CCPPacked *pk, const double *x, CCPProblem *P);
void           CCPPackedUnstash(const CCPPacked *pk, const CCPProblem *P, double *x);
/* The functions below take part in the coupling over ranks (ccp/coupling.h): collective over its
 * ranks when it has hooks, local when they are NULL. */
/* bodies' v <- v_free + M^-1 D x (packed order of accumulation), summed over ranks. fresh: the
 * bodies' v are still v_free as CCPPackedBuild wrote them (right after it), so v_free is not
 * evaluated again. */
PetscErrorCode CCPPackedVelocity(CCPPacked *pk, const CCPCoupling *coupling, const CCPProblem *P, const double *x,
                                 PetscBool fresh);
/* Around a sweep that adds to the bodies' v: mark before, sum the ranks' contributions after. */
PetscErrorCode CCPPackedMark(const CCPPacked *pk, const CCPCoupling *coupling);
PetscErrorCode CCPPackedSum(CCPPacked *pk, const CCPCoupling *coupling);
/* The same around a pass that adds to the bodies' velocity slot `slot`. */
PetscErrorCode CCPPackedMarkSlot(const CCPPacked *pk, const CCPCoupling *coupling, int slot);
PetscErrorCode CCPPackedSumSlot(CCPPacked *pk, const CCPCoupling *coupling, int slot);
/* The GUIDE residual of x at the bodies' velocities in `slot` over all ranks' contacts: max and RMS. */
PetscErrorCode CCPPackedResidual(const CCPPacked *pk, const CCPCoupling *coupling, const double *x, int slot,
                                 double *res_max, double *res_rms);
/* The end of a packed solve at x: P->gamma <- x (problem order), the bodies' v <- v_free + M^-1 D x
 * recomputed from scratch, and the exact GUIDE residual of x. Then x and the pool are dead: the caller
 * may give P->vel a buffer from the pool (CCPWorkspaceOutputVelocity) and CCPPackedVelocityOut fills it. */
PetscErrorCode CCPPackedFinish(CCPPacked *pk, const CCPCoupling *coupling, CCPProblem *P, const double *x,
                               double *res_max, double *res_rms);
/* P->vel <- the bodies' v (CCP_SLOT_V), for P's nbodies bodies. */
void CCPPackedVelocityOut(const CCPPacked *pk, CCPProblem *P);
/* Free the body records: dead from the end of a solve to the next build, which refills them from
 * the body source anyway (see CCPSolverSolve). */
PetscErrorCode CCPPackedReleaseBodies(CCPPacked *pk);
PetscErrorCode CCPPackedDestroy(CCPPacked *pk);

/* ---- Sweep kernels (ccp/sweep.c): AVX2+FMA when the CPU has it, else portable C ---- */

/* Projected Jacobi sweep: gamma <- gamma + lambda (Proj_B(gamma - omega B g) - gamma) for every
 * contact at the bodies' v, increments accumulated in dv then added to v. Returns the largest
 * |B_i^-1 change|^2. */
double ccp_sweep_jacobi(CCPPacked *pk, double *gamma, double omega, double lambda);
/* Projected Gauss-Seidel sweep over conflict-free blocks: each block's lanes at once, their
 * changes added to v before the next block. Returns the largest |B_i^-1 change|^2. */
double ccp_sweep_gauss_seidel(CCPPacked *pk, double *gamma, double omega);
/* Max and sum of squares of the GUIDE residual of x at the bodies' velocities in `slot`. */
void ccp_sweep_residual(const CCPPacked *pk, const double *x, int slot, double *res2_max, double *res2_sum);
/* bodies' v += M^-1 D x (all A lanes of a block, then all B lanes, block after block) */
void ccp_sweep_velocity(CCPPacked *pk, const double *x);
/* An APGD step (ccp/apgd.c) from the iterate xk and the one before, xkm1, whose velocities are
 * in the bodies' slots vk and vkm1: at y = xk + beta (xk - xkm1), whose velocity is
 * V(y) = V(xk) + beta (V(xk) - V(xkm1)) by linearity, of length `step` in the metric B. */
typedef struct {
  const double *xk, *xkm1;
  int           vk, vkm1;
  double        beta, step;
} CCPApgdStep;
/* The sums of an APGD pass over the contacts (this rank's): with d = x - y, |d|_B^-1^2, uphill =
 * -d^T B^-1 (x - xk), d^T C d, the largest |B_i^-1 d_i|^2, and, when asked for (else 0), the
 * largest squared GUIDE residual of xk, gdot = xk^T (N xk + r) (xk's multipliers times their
 * gradient at V(xk)) and xk^T C xk (ccp/apgd.c's test of an unsolvable step). */
typedef struct {
  double dBd, uphill, dCd, change2, res2, gdot, gcg;
} CCPApgdSums;
/* APGD's pass over the contacts: x = Proj_B(y - step B (N y + r)), the gradient from V(y); the
 * impulses D (x - y) added to the bodies' accumulators (CCP_SLOT_DV, no M^-1: the body pass
 * applies it once per body); with `residual`, the GUIDE residual of xk at V(xk) too. */
void ccp_sweep_apgd(CCPPacked *pk, const CCPApgdStep *p, double *x, PetscBool residual, CCPApgdSums *sums);
/* APGD's pass over the bodies after it: slot vnew <- V(y) + M^-1 p with p the accumulator, which
 * is zeroed. Returns the sum of p^T M^-1 p over bodies [0, nowned) (so that the step test's
 * (x - y)^T N (x - y) = that + dCd counts each body once over the ranks). */
double ccp_sweep_apgd_bodies(CCPPacked *pk, const CCPApgdStep *p, int vnew, PetscInt nowned);
/* Which kernels run on pk: "avx2" or "generic". */
const char *ccp_sweep_isa(const CCPPacked *pk);
#endif
