/* The body of the penalty model's block kernel, for PENALTY_LANES contacts at once, one per SIMD lane: included
 * by penalty/kernel.c (4 lanes, src/base/simd4.h) and penalty/kernel8.c (8 lanes, src/base/simd8.h), each
 * having defined first the lane count PENALTY_LANES, the vector types vd (doubles) and vl (64-bit integers,
 * masks), and the helpers ld, vst, splat, sel, vsqrt, gather4, scatter4 and lanes_any. The
 * formulas, step by step, are those of the per-contact code; the comments name the function each
 * part mirrors. Branches become lane selects (sel): the stick/slip caps, a wall on side A, a pair
 * without roll or spin resistance. Every lane runs the same operations on its own contact only, so
 * a contact gets the same bits in either width, in any lane. Not a header to include elsewhere. */
#include "penalty/kernel.h"
#include "penalty/history.h"
#include <stddef.h>

_Static_assert(PENALTY_LANES <= PENALTY_BLOCK_MAX, "a block holds the lanes");
_Static_assert(offsetof(struct PenaltySide, vel) == 12 * sizeof(double) &&
                 offsetof(struct PenaltySide, omega) == 16 * sizeof(double) &&
                 offsetof(struct PenaltySide, kappa) == 20 * sizeof(double),
               "the block kernel loads a side's doubles in groups of 4");
_Static_assert(sizeof(struct PenaltySide) == 192 && _Alignof(struct PenaltySide) == 64, "a side is 3 cache lines");
/* doubles of a Contact (contact/contact_set.h) as the kernel loads them, all in its first cache line: n then
 * phi, rb then the bits of the indices a and b (a 4th lane that is dropped, never computed with) */
enum {
  CONTACT_N  = offsetof(Contact, n) / sizeof(double),
  CONTACT_RB = offsetof(Contact, rb) / sizeof(double)
};
_Static_assert(offsetof(Contact, n) % sizeof(double) == 0 &&
                 offsetof(Contact, phi) == offsetof(Contact, n) + 3 * sizeof(double) &&
                 offsetof(Contact, rb) == offsetof(Contact, phi) + sizeof(double) &&
                 offsetof(Contact, rb) + 4 * sizeof(double) <= CONTACT_ALIGN,
               "the block kernel's view of a contact");
/* doubles of a history record (penalty/history.h) as the kernel loads them */
enum {
  H_STATE  = 0,
  H_SLIDE  = 1,
  H_ROLL_A = 3,
  H_ROLL_B = 5,
  H_SPIN   = 7,
  H_FRAME  = 8,
  H_ARM_A  = 14,
  H_ARM_B  = 17,
  H_GROUPS = 5
};
_Static_assert(offsetof(PenaltyHistory, state) == H_STATE * sizeof(double) &&
                 offsetof(PenaltyHistory, spin) == H_SPIN * sizeof(double) &&
                 offsetof(PenaltyHistory, frame) == H_FRAME * sizeof(double) &&
                 offsetof(PenaltyHistory, arm_b) == H_ARM_B * sizeof(double) && PENALTY_HISTORY_WIDTH == 4 * H_GROUPS,
               "the block kernel's view of a history record");

/* ---- lane-wise 3-vectors: v[k] is component k, one contact per lane ---- */
ALWAYS_INLINE vd   dot3(const vd a[3], const vd b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
ALWAYS_INLINE void cross3(vd r[3], const vd a[3], const vd b[3])
{
  const vd x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
  r[0] = x;
  r[1] = y;
  r[2] = z;
}
/* r = R a (R row-major, R[9] lanes) */
ALWAYS_INLINE void matvec3(vd r[3], const vd R[9], const vd a[3])
{
  for (int i = 0; i < 3; i++) r[i] = R[3 * i] * a[0] + R[3 * i + 1] * a[1] + R[3 * i + 2] * a[2];
}
ALWAYS_INLINE vd  vabs(vd x) { return (vd)((vl)x & ~(vl)splat(-0.0)); }
ALWAYS_INLINE int lane_bits(vl m)
{
  int bits = 0;
  for (int l = 0; l < PENALTY_LANES; l++) bits |= m[l] ? 1 << l : 0;
  return bits;
}

/* A side of the block's contacts, one per lane: the doubles of PenaltySide, loaded by groups of 4. */
typedef struct {
  vd x[3], R[9], vel[3], omega[3], mass, inertia, kappa;
} SideLanes;

ALWAYS_INLINE void load_side(const PenaltySide *const s[PENALTY_LANES], SideLanes *o)
{
  const double *p[PENALTY_LANES];
  vd            g[5][4];
  for (int l = 0; l < PENALTY_LANES; l++) p[l] = (const double *)s[l];
  for (int k = 0; k < 5; k++) gather4(p, 4 * k, g[k]);
  for (int i = 0; i < 3; i++) o->x[i] = g[0][i];
  o->R[0] = g[0][3];
  for (int i = 0; i < 4; i++) {
    o->R[1 + i] = g[1][i];
    o->R[5 + i] = g[2][i];
  }
  for (int i = 0; i < 3; i++) {
    o->vel[i]   = g[3][i];
    o->omega[i] = g[4][i];
  }
  o->mass    = g[3][3];
  o->inertia = g[4][3];
  for (int l = 0; l < PENALTY_LANES; l++) o->kappa[l] = s[l]->kappa;
}

/* The pair constants the kernel reads, per lane (one material pair, the common case: splats). */
typedef struct {
  vd E_eff, G_eff, damping_hertz, mu_s, mu_k, eta_r, eta_psi, root_eta_r, root_eta_psi, K_E;
} PairLanes;

/* the double at byte `at` of each lane's pair */
ALWAYS_INLINE vd pair_lanes(const PenaltyPair *const p[PENALTY_LANES], int one, size_t at)
{
  vd r;
  if (one) return splat(*(const double *)((const char *)p[0] + at));
  for (int l = 0; l < PENALTY_LANES; l++) r[l] = *(const double *)((const char *)p[l] + at);
  return r;
}

ALWAYS_INLINE void load_pair(const PenaltyPair *const p[PENALTY_LANES], PairLanes *o)
{
  int one = 1; /* one material pair in the block (the common case): splats */
  for (int l = 1; l < PENALTY_LANES; l++) one &= p[l] == p[0];
#define PAIR_LANES(f) pair_lanes(p, one, offsetof(PenaltyPair, f))
  o->E_eff         = PAIR_LANES(E_eff);
  o->G_eff         = PAIR_LANES(G_eff);
  o->damping_hertz = PAIR_LANES(damping_hertz);
  o->mu_s          = PAIR_LANES(mu_s);
  o->mu_k          = PAIR_LANES(mu_k);
  o->eta_r         = PAIR_LANES(eta_r);
  o->eta_psi       = PAIR_LANES(eta_psi);
  o->root_eta_r    = PAIR_LANES(root_eta_r);
  o->root_eta_psi  = PAIR_LANES(root_eta_psi);
  o->K_E           = PAIR_LANES(K_E);
#undef PAIR_LANES
}

/* penalty_deflection_update: x += dx, capped by the threshold of the mode (0 stick, 1 slip) */
ALWAYS_INLINE void deflection_update(const int dim, vd x[], const vd dx[], vd cap_s, vd cap_k, vd *mode, vd change[])
{
  vd old[2], norm2 = splat(0);
  for (int k = 0; k < dim; k++) {
    old[k] = x[k];
    x[k] += dx[k];
    norm2 += x[k] * x[k];
  }
  const vd cap  = sel(*mode == splat(PENALTY_STICK), cap_s, cap_k);
  const vl over = norm2 > cap * cap;
  for (int k = 0; k < dim; k++) change[k] = x[k] - old[k];
  *mode = sel(over, splat(PENALTY_SLIP), splat(PENALTY_STICK));
  if (lanes_any(over)) { /* the root and division only when a lane slips (rarely, in a settled pile) */
    const vd scale = cap / vsqrt(norm2);
    for (int k = 0; k < dim; k++) {
      x[k]      = sel(over, x[k] * scale, x[k]);
      change[k] = sel(over, splat(0), change[k]);
    }
  }
}

/* penalty_deflection_load: K x + D_h change, within |out| <= K cap_s */
ALWAYS_INLINE void deflection_load(const int dim, vd K, vd D_h, const vd x[], const vd change[], vd cap_s, vd out[])
{
  const vd limit = K * cap_s;
  vd       norm2 = splat(0);
  for (int k = 0; k < dim; k++) {
    out[k] = K * x[k] + D_h * change[k];
    norm2 += out[k] * out[k];
  }
  const vl over = norm2 > limit * limit;
  if (lanes_any(over)) {
    const vd scale = limit / vsqrt(norm2);
    for (int k = 0; k < dim; k++) out[k] = sel(over, out[k] * scale, out[k]);
  }
}

/* PenaltyHistory.state (an integer 0..31 held as a double) as integer bits and back: adding 2^52
 * puts the integer in the low mantissa bits, exactly, without a conversion instruction. */
ALWAYS_INLINE vl state_bits(vd state) { return (vl)(state + splat(0x1p52)); }
ALWAYS_INLINE vd state_of_bits(vl bits) { return (vd)(bits | (vl)splat(0x1p52)) - splat(0x1p52); }
/* the mode of the deflection whose slip bit is `bit` (penalty_mode), and the bit of a mode */
ALWAYS_INLINE vd mode_of(vl bits, PenaltyState bit)
{
  return sel((bits & (int64_t)bit) != 0, splat(PENALTY_SLIP), splat(PENALTY_STICK));
}
ALWAYS_INLINE vl bit_of(vd mode, PenaltyState bit) { return (mode == splat(PENALTY_SLIP)) & (int64_t)bit; }

/* The history records' doubles, one record per lane: h[i] = double i of the record, in groups of 4. */
ALWAYS_INLINE void load_history(const PenaltyHistory *const r[PENALTY_LANES], vd h[PENALTY_HISTORY_WIDTH])
{
  const double *p[PENALTY_LANES];
  for (int l = 0; l < PENALTY_LANES; l++) p[l] = (const double *)r[l];
  for (int k = 0; k < H_GROUPS; k++) gather4(p, 4 * k, h + 4 * k);
}
/* ... and back, for the lanes not in `skip` (bit l: lane l), whose records stay as they were */
ALWAYS_INLINE void store_history(PenaltyHistory *const r[PENALTY_LANES], const vd h[PENALTY_HISTORY_WIDTH], int skip)
{
  double *p[PENALTY_LANES];
  for (int l = 0; l < PENALTY_LANES; l++) p[l] = (double *)r[l];
  for (int k = 0; k < H_GROUPS; k++) scatter4(p, 4 * k, h + 4 * k, skip);
}

ALWAYS_INLINE int block_loads_impl(const PenaltyContext *ctx, PenaltyBlock *blk)
{
  const PenaltySide *sa[PENALTY_LANES], *sb[PENALTY_LANES];
  const PenaltyPair *pp[PENALTY_LANES];
  SideLanes          A, B;
  PairLanes          P;
  vd                 n[3], rb[3], phi, h[PENALTY_HISTORY_WIDTH];
  for (int l = 0; l < PENALTY_LANES; l++) {
    const Contact *c = blk->c[l];
    sa[l]            = &ctx->side[c->a];
    sb[l]            = &ctx->side[c->b];
    pp[l]            = &ctx->pairs[sa[l]->material * ctx->n_materials + sb[l]->material];
  }
  load_side(sa, &A);
  load_side(sb, &B);
  load_pair(pp, &P);
  load_history(blk->prev, h);
  {
    const double *p[PENALTY_LANES];
    vd            g[4];
    for (int l = 0; l < PENALTY_LANES; l++) p[l] = (const double *)blk->c[l];
    gather4(p, CONTACT_N, g); /* n and phi */
    for (int k = 0; k < 3; k++) n[k] = g[k];
    phi = g[3];
    gather4(p, CONTACT_RB, g); /* rb, and a and b in g[3] (not read: integer bits) */
    for (int k = 0; k < 3; k++) rb[k] = g[k];
  }
  vl wall;
  for (int l = 0; l < PENALTY_LANES; l++) wall[l] = sa[l]->wall ? -1 : 0;

  /* contact_loads: the point, masses, relative velocity */
  const vd delta = -phi, inv_h = splat(1.0 / ctx->h);
  vd       point[3], ra[3], rbp[3], va[3], vb[3], dv[3];
  for (int k = 0; k < 3; k++) {
    point[k] = B.x[k] + rb[k] + (-0.5 * phi) * n[k];
    ra[k]    = point[k] - A.x[k];
    rbp[k]   = point[k] - B.x[k];
  }
  const vd kappa_sum = A.kappa + B.kappa, R_eff = 1.0 / kappa_sum;
  const vd m_eff = sel(wall, B.mass, A.mass * B.mass / (A.mass + B.mass));
  const vd m_ij  = sel(wall, B.mass, 0.5 * (A.mass + B.mass));
  const vd I_ij  = sel(wall, B.inertia, 0.5 * (A.inertia + B.inertia));
  cross3(va, A.omega, ra);
  cross3(vb, B.omega, rbp);
  for (int k = 0; k < 3; k++) dv[k] = (B.vel[k] + vb[k]) - (A.vel[k] + va[k]);

  /* penalty_normal_force (Hertz) and the Mindlin slide stiffness */
  const vd a_hertz = vsqrt(R_eff * delta), kn = 2 * P.E_eff * a_hertz;
  const vd f   = (2.0 / 3.0) * kn * delta - P.damping_hertz * vsqrt(m_eff * kn) * dot3(dv, n);
  const vd N   = sel(f > 0, f, splat(0));
  const vd K_E = sel(P.K_E > 0, P.K_E, 8 * P.G_eff * a_hertz);
  /* penalty_friction_prepare */
  const vd N_over_K_E = N / K_E, root_IK = vsqrt(I_ij * K_E);
  const vd K_R = 4 * P.eta_r * K_E * R_eff * R_eff, K_psi = P.eta_psi * K_E * R_eff * R_eff;

  /* penalty_track: A's frame continued (continue_frame), the spin angle, the surface motions */
  vd a[3], b[3], v[3], u[3], w[3], d[3], pa[2], pb[2];
  matvec3(a, A.R, h + H_FRAME);
  matvec3(b, A.R, h + H_FRAME + 3);
  cross3(v, b, n);
  for (int k = 0; k < 3; k++) v[k] += a[k];
  const vd vn = dot3(v, n);
  for (int k = 0; k < 3; k++) v[k] -= vn * n[k];
  const vd len = vsqrt(dot3(v, v)), inv_len = 1.0 / len;
  for (int k = 0; k < 3; k++) u[k] = inv_len * v[k];
  cross3(w, n, u);
  matvec3(a, B.R, h + H_FRAME);
  matvec3(b, B.R, h + H_FRAME + 3);
  cross3(v, b, n);
  for (int k = 0; k < 3; k++) v[k] += a[k];
  const vd sx = dot3(v, u), sy = -dot3(v, w); /* spin_angle, then step_angle's series */
  const vd t = sy / sx, t2 = t * t;
  const vd psi = t * (1 - t2 * (1.0 / 3 - t2 * (1.0 / 5 - t2 * (1.0 / 7))));
  /* surface_motion: from where the old point is now, R arm + x, to this step's point */
  for (int side = 0; side < 2; side++) {
    const SideLanes *S = side ? &B : &A;
    vd              *p = side ? pb : pa;
    matvec3(d, S->R, h + (side ? H_ARM_B : H_ARM_A));
    for (int k = 0; k < 3; k++) d[k] = point[k] - (d[k] + S->x[k]);
    p[0] = dot3(d, u);
    p[1] = dot3(d, w);
  }
  const vl redo = ~(len >= 1e-9) | ~(sx * sx + sy * sy >= 1e-18) | ~(sx > 0) | ~(vabs(sy) * 128 <= sx) | ~(K_E > 0);

  /* penalty_slide */
  vd       F[3], TA[3], TB[3], tq[3], m3[3], change[2], load2[2], mode;
  const vl old_state = state_bits(h[H_STATE]);
  vl       new_state = (vl){0} | (int64_t)PENALTY_TOUCHING;
  {
    const vd dS[2] = {pa[0] - pb[0], pa[1] - pb[1]}, cap_s = P.mu_s * N_over_K_E;
    const vd D_h = ctx->set->slide_damping * 2 * vsqrt(m_ij * K_E) * inv_h;
    mode         = mode_of(old_state, PENALTY_SLIDE_SLIP);
    deflection_update(2, h + H_SLIDE, dS, cap_s, P.mu_k * N_over_K_E, &mode, change);
    new_state |= bit_of(mode, PENALTY_SLIDE_SLIP);
    deflection_load(2, K_E, D_h, h + H_SLIDE, change, cap_s, load2);
  }
  for (int k = 0; k < 3; k++) F[k] = N * n[k] - load2[0] * u[k] - load2[1] * w[k];
  {
    vd FA[3] = {-F[0], -F[1], -F[2]};
    cross3(TA, ra, FA);
    cross3(TB, rbp, F);
  }

  /* penalty_roll: each body's Theta (roll_one), none where K_R = 0 (history kept as it was) */
  {
    const vl rolls      = K_R > 0;
    const vd half_kappa = 0.5 * kappa_sum;
    const vd D_h        = ctx->set->roll_damping * 4 * R_eff * P.root_eta_r * root_IK * inv_h;
    const vd cap_s = P.mu_s * N_over_K_E * half_kappa, cap_k = P.mu_k * N_over_K_E * half_kappa;
    for (int side = 0; side < 2; side++) {
      const int          at    = side ? H_ROLL_B : H_ROLL_A;
      const PenaltyState slip  = side ? PENALTY_ROLL_B_SLIP : PENALTY_ROLL_A_SLIP;
      const vd           kappa = side ? B.kappa : A.kappa, *p = side ? pb : pa;
      const vd           dtheta[2] = {kappa * p[0], kappa * p[1]};
      vd                 theta[2]  = {h[at], h[at + 1]}, moment[2];
      mode                         = mode_of(old_state, slip);
      deflection_update(2, theta, dtheta, cap_s, cap_k, &mode, change);
      deflection_load(2, K_R, D_h, theta, change, cap_s, moment);
      h[at]     = sel(rolls, theta[0], h[at]);
      h[at + 1] = sel(rolls, theta[1], h[at + 1]);
      new_state |= (rolls & bit_of(mode, slip)) | (~rolls & old_state & (int64_t)slip);
      for (int k = 0; k < 3; k++) m3[k] = sel(rolls, moment[0] * u[k] + moment[1] * w[k], splat(0));
      cross3(tq, n, m3); /* A's outward normal is n, B's -n */
      for (int k = 0; k < 3; k++) {
        if (side) TB[k] -= tq[k];
        else TA[k] += tq[k];
      }
    }
  }

  /* penalty_spin */
  {
    const vl spins = K_psi > 0;
    const vd D_h   = ctx->set->spin_damping * 2 * R_eff * P.root_eta_psi * root_IK * inv_h;
    const vd cap_s = kappa_sum * P.mu_s * N_over_K_E;
    vd       Psi   = h[H_SPIN], load1;
    mode           = mode_of(old_state, PENALTY_SPIN_SLIP);
    deflection_update(1, &Psi, &psi, cap_s, kappa_sum * P.mu_k * N_over_K_E, &mode, change);
    deflection_load(1, K_psi, D_h, &Psi, change, cap_s, &load1);
    h[H_SPIN] = sel(spins, Psi, h[H_SPIN]);
    new_state |= (spins & bit_of(mode, PENALTY_SPIN_SLIP)) | (~spins & old_state & (int64_t)PENALTY_SPIN_SLIP);
    const vd spin = sel(spins, -load1, splat(0));
    for (int k = 0; k < 3; k++) {
      TA[k] += spin * n[k];
      TB[k] -= spin * n[k];
    }
  }

  /* penalty_track_store: this step's frame and the point's arms */
  h[H_STATE] = state_of_bits(new_state);
  for (int k = 0; k < 3; k++) {
    h[H_FRAME + k]     = u[k];
    h[H_FRAME + 3 + k] = w[k];
    h[H_ARM_A + k]     = ra[k];
    h[H_ARM_B + k]     = rbp[k];
  }
  /* a lane computed again per contact keeps its old record: it may be the one to read (in place) */
  const int redo_bits = lane_bits(redo);
  store_history(blk->rec, h, redo_bits);
  {
    const vd out[12] = {-F[0], -F[1], -F[2], TA[0], TA[1], TA[2], F[0], F[1], F[2], TB[0], TB[1], TB[2]};
    for (int k = 0; k < 3; k++) scatter4(blk->load, 4 * k, out + 4 * k, 0);
  }
  vst(blk->m_eff, m_eff);
  vst(blk->kn, kn);
  vst(blk->K_E, K_E);
  vst(blk->I_ij, I_ij);
  vst(blk->K_R, K_R);
  vst(blk->K_psi, K_psi);
  /* limit_update's test (cross-multiplied) against the stiffest spring so far */
  const vd best_k = splat(blk->lim->stiffness), best_m = splat(blk->lim->inertia);
  const vl beats = ((kn > 0) & (kn * best_m > best_k * m_eff)) |
                   ((K_E > 0) & (K_E * best_m > best_k * (m_eff * (2.0 / 7.0)))) |
                   ((K_R > 0) & (K_R * best_m > best_k * I_ij)) | ((K_psi > 0) & (K_psi * best_m > best_k * I_ij));
  return redo_bits | lane_bits(beats) << PENALTY_BLOCK_MAX;
}
