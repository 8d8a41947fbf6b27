/* APGD: Nesterov's accelerated projected gradient with adaptive step and restart, after Mazhar,
 * Heyn, Negrut and Tasora (ACM TOG 2015) and the idea of Chrono's multicore APGD, applied
 * matrix-free and in the metric of the per-contact steps B = diag(B_i) of ccp/kernels.h:
 *
 *   gamma+ = Proj_B(y - B (N y + r) / L)                    (L: Lipschitz estimate)
 *   accept when (gamma+ - y)^T N (gamma+ - y) <= L (gamma+ - y)^T B^-1 (gamma+ - y), else L *= 4
 *   theta+ from theta+^2 = (1 - theta+) theta^2;  beta = theta (1 - theta) / (theta^2 + theta+)
 *   y+ = gamma+ + beta (gamma+ - gamma);  restart (beta = 0, theta = 1) when
 *   (y - gamma+)^T B^-1 (gamma+ - gamma) > 0;  L *= 0.9 after each iteration.
 *
 * The restart test is O'Donoghue and Candes' gradient scheme with the gradient mapping
 * L B^-1 (y - gamma+) in place of the gradient N y + r that Mazhar et al. use: at a solution on the
 * cones' surfaces the gradient keeps a component normal to the active constraints, which made
 * that test fire at random late in the solve and APGD crawl as plain projected gradient; the
 * mapping vanishes at the solution. On settled piles of ~730 contacts at tol 1e-9 this cut the
 * iterations per step from 7600-10400 to 1900-2400.
 *
 * Why that metric: B N has diagonal blocks of trace dof, so the step is dimensionless and blind to
 * mass ratios and to the force/torque scale of 6-dof contacts, and L starts at 1 (the mean
 * eigenvalue of those blocks; a few backtracks find the rest). Proj_B is the projection in the
 * metric B^-1, which is per contact (ccp_kernel_project_metric).
 *
 * One pass over the contacts and one over the bodies per iteration, in velocities. The bodies
 * keep V_k = v(gamma_k) and V_k-1, the velocities of the last two iterates (v(x) = v_free +
 * M^-1 D x). v is linear, so y's is V(y) = V_k + beta (V_k - V_k-1), and the gradient at y,
 * N y + r = D^T V(y) + b + C y, is computed per contact from the two: the contact pass makes
 * gamma+ and adds the impulses p = D (gamma+ - y) to each body's accumulator, without M^-1; the
 * body pass makes V(gamma+) = V(y) + M^-1 p and the step test's
 * (gamma+ - y)^T N (gamma+ - y) = sum over bodies of p^T M^-1 p + sum over contacts of
 * d^T C d, so no gradient vector is stored and no second pass over the contacts is needed. The
 * contact pass has V_k at hand, so it also yields the exact GUIDE residual of gamma_k, on the
 * iterations apgd_check picks (one iteration late: a converged gamma_k is returned and the step
 * made from it dropped). Why velocities rather than stored gradients N gamma + r and a second,
 * gathering pass for the step test: 39-47 ns per contact-iteration instead of 58-62 (6-dof pile of
 * 10^5 spheres) and 3 multiplier-sized vectors instead of 7.
 * V(gamma+) is made from V(y), so its rounding errors e_k follow the momentum,
 * e_k+1 = (1 + beta) e_k - beta e_k-1 + eps: they grow like k^1.5 eps |v| until a restart,
 * about 1e-11 |v| after 10^4 iterations without one; the solve's end recomputes the velocity
 * from scratch and reports the exact residual of what it returns (CCPFinishPacked).
 *
 * Buffers: the multipliers gamma_k, gamma_k-1, gamma+ (a best iterate that would need a fourth
 * moves to P->gamma: apgd_free_buffer), and per body the three velocity slots of V_k, V_k-1,
 * V(gamma+) and the accumulator (ccp/pack.h's APGD records). Ranks: the accumulators' ghost
 * contributions are summed to their owners and back (the coupling's mark and sum), each rank's
 * body pass makes V(gamma+) of its ghosts too (the same numbers as the owner's) but counts
 * p^T M^-1 p over its owned bodies only, and one reduction per pass carries the sums.
 *
 * Two implementations of the same iteration: the packed one (default; ccp/pack.h, vectorized
 * blocks of 4 contacts, contacts in an order of their own) and the reference loops over the
 * problem's contacts (-ccp_packed false). They differ only in the order of floating-point sums.
 * Options: -ccp_apgd_lipschitz_initial (L0), -ccp_apgd_lipschitz_grow, -ccp_apgd_lipschitz_decay,
 * -ccp_apgd_check_interval; measured aids, off by default (docs/history/ccp-solver-candidates.md,
 * section 5, which also has the restart tests that lost to this one):
 * -ccp_apgd_lipschitz_keep (a solve starts from the last one's final L), -ccp_apgd_scaling
 * diagonal (per-contact steps from the Delassus diagonal, reference loops only: "Per-contact
 * scaling" below). */
#include "ccp/method.h"

#define MAX_BACKTRACKS 60 /* L would have grown 2^60: accept the step rather than loop */

/* A buffer of bufs[0..n) that is none of x, y, z, w; NULL if there is none. */
static double *unused_buffer(double *const *bufs, int n, const double *x, const double *y, const double *z,
                             const double *w)
{
  for (int k = 0; k < n; k++)
    if (bufs[k] != x && bufs[k] != y && bufs[k] != z && bufs[k] != w) return bufs[k];
  return NULL;
}

/* y = x + beta (x - xp) for one contact's 6 entries */
static inline void extrapolate(const double *x, const double *xp, double beta, double y[6])
{
  for (int k = 0; k < 6; k++) y[k] = x[k] + beta * (x[k] - xp[k]);
}

/* The momentum update after an accepted iteration (restart when the step went uphill). */
static inline void momentum(double uphill, double *theta, double *beta)
{
  const double theta_next = 0.5 * *theta * (sqrt(*theta * *theta + 4) - *theta);
  *beta                   = *theta * (1 - *theta) / (*theta * *theta + theta_next);
  *theta                  = theta_next;
  if (uphill > 0) { /* restart the momentum */
    *beta  = 0;
    *theta = 1;
  }
}

/* After an iteration: keep gnew as the best iterate when its residual is the lowest so far; false
 * when the iteration diverged (the method stops with its best iterate). */
static inline PetscBool accept(double **best, double *best_res, double *gnew, double res_max)
{
  if (ccp_improves(res_max, *best_res)) {
    *best     = gnew;
    *best_res = res_max;
  }
  return (PetscBool)!ccp_diverged(res_max, *best_res);
}

/* Whether the pass of iteration k + 1 computes the exact GUIDE residual of iterate k (the
 * residual's projection costs about a third of an iteration; the last iterate's gets a pass of its
 * own after the loop). `indicator`: the last exact residual computed, or, since, the last step's
 * gradient mapping max_i L |B_i^-1 (x_i - y_i)| (a velocity that tends to 0 with the residual;
 * measured 1-6 times the residual on a jammed pile). The warm start is always checked; then as
 * the sweeps' (ccp_need_check) with the indicator within APGD_CHECK_FACTOR of the tolerance, and
 * every -ccp_apgd_check_interval iterates. The residual of APGD's iterates jumps about (it is not
 * monotone), so a pile at rest, whose steps converge only now and then within the cap, needs the
 * checks dense near the tolerance: test_pile_rest's last 100 steps all converge with every
 * iteration checked; with a check every 4 iterations and a factor of 4, 16 missed the tolerance,
 * with a factor of 10 none (6 with every 6), with 30 none at every 4 or 6 (measured). */
#define APGD_CHECK_FACTOR 30
static inline PetscBool apgd_check(const CCPSettings *set, double indicator, double best_res, PetscInt k)
{
  const double scaled = indicator / APGD_CHECK_FACTOR;
  return (PetscBool)(k == 0 || ccp_need_check(set->tol, scaled, best_res, k - 1, set->apgd_check_interval));
}

/* *buf <- a buffer of G[0, n) that is none of x, y, z and the best iterate's. When only the best
 * iterate's is left, the best iterate moves to P->gamma's storage (CCPPackedStash: a copy in
 * packed order; *best <- NULL) and frees its buffer: one multiplier vector fewer. A copy, not a
 * scatter in problem order (CCPPackedUnpackGamma), which, up to once per check interval, took 3% of
 * APGD's samples in `bench_core -n 100000 -dof 6`. Without blocks the buffers may all be one empty
 * array (NULL then: nothing is read or written). */
static PetscErrorCode apgd_free_buffer(CCPPacked *pk, CCPProblem *P, double *const *G, int n, const double *x,
                                       const double *y, const double *z, double **best, double **buf)
{
  PetscFunctionBegin;
  *buf = unused_buffer(G, n, x, y, z, *best);
  if (!*buf && pk->nblk > 0) {
    PetscCall(CCPPackedStash(pk, *best, P));
    *best = NULL;
    *buf  = unused_buffer(G, n, x, y, z, NULL);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The solve's best iterate: best, or, stashed by apgd_free_buffer, copied back into G0. */
static void apgd_best(const CCPPacked *pk, const CCPProblem *P, double *G0, double **best)
{
  if (!*best) {
    *best = G0;
    CCPPackedUnstash(pk, P, *best);
  }
}

/* One iteration's step in flight: the sums of its passes over all ranks (CCPApgdSums and
 * the bodies' p^T M^-1 p), and the residual of gamma_k and its gdot when they were asked for. */
typedef struct {
  double dBd, uphill, dNd, gdot, gcg, res_or_indicator;
} ApgdStepSums;

/* r <- the reduction of one pass's sums over ranks: dBd, uphill, dNd (and with residual gdot, gcg)
 * sum; the last entry is the max of the squared residual of gamma_k (residual) or of the step's
 * gradient mapping. */
static PetscErrorCode apgd_reduce(const CCPCoupling *coupling, const CCPApgdSums *c, double pMp, double L,
                                  PetscBool residual, ApgdStepSums *r)
{
  double x[6] = {c->dBd, c->uphill, c->dCd + pMp, c->gdot, c->gcg, c->res2};

  PetscFunctionBegin;
  if (!residual) x[3] = c->change2 * L * L;
  PetscCall(CCPCouplingReduce(coupling, x, residual ? 6 : 4));
  *r = residual ? (ApgdStepSums){x[0], x[1], x[2], x[3], x[4], sqrt(x[5])}
                : (ApgdStepSums){x[0], x[1], x[2], 0, 0, sqrt(x[3])};
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- An unsolvable step (docs/design.md "Physics and numerics"; GUIDE "When the exact CCP is ill-posed") ----
 *
 * The step's problem: min f(g) = 1/2 g^T (N + C) g + r^T g over the reaction sets K, N = D^T M^-1 D,
 * r = D^T v_free + b. Over cones it has no solution exactly when some d in K has D d = 0, C d = 0
 * and b^T d < 0: impulses that cancel on every body and push overlapping contacts apart (a jam).
 * APGD's iterates then grow along d without bound while their velocities settle, to the cap.
 *
 * The certificate: with g in K, every s g (s >= 0) is in K, so a solvable step has
 *     f* <= f(s g) = s c + s^2 a / 2,   a = g^T (N + C) g = |v(g) - v_free|_M^2 + g^T C g,  c = r^T g,
 * and for c < 0 the minimum over s gives Q = c^2 / a <= -2 f*. At a solution, complementarity
 * (g*^T grad f(g*) = 0) makes -2 f* = |v* - v_free|_M^2 + g*^T C g*: twice the kinetic energy of
 * the velocity change the exact solution makes (plus its springs' energy). Along a jam's d, c falls
 * linearly in |g| while a stays bounded, so Q grows quadratically with the drift.
 * The test, at an iterate g_k of APGD's residual checks: stop as unsolvable when
 *     Q > APGD_UNSOLVABLE_FACTOR 2 E0,   E0 = E_free + 1/2 M v_push^2,
 * E_free = 1/2 v_free^T M v_free plus the energy the rolling springs hold (spring_energy: their
 * b_rot^T g may be negative on any cone), M the movable bodies' mass, v_push the step's largest push-apart
 * speed -b_n (or |b| of a joint row). A step so stopped has no solution, or one whose velocity change
 * carries more than APGD_UNSOLVABLE_FACTOR times the kinetic energy of the free motion plus every
 * movable body at the largest push-apart speed (speeds 30 times those): an explosion no solver
 * should follow (the GUIDE's exact solutions of 100 m/s). That holds whatever the iterates (no
 * false positive beyond that bound). A step without push-apart contacts (v_push = 0) is never
 * stopped: then b_n^T g_n >= 0 on the cones, the springs' terms are bounded by their energy, f(g) >= -E0
 * for all g, and Q <= -2 f* <= 2 E0.
 *
 * Cost: the check's pass sums gdot = g_k^T grad f(g_k) = a + c and g_k^T C g_k (a few
 * multiply-adds per contact and two more entries of the check's reduction, so every rank takes
 * the same decisions). gdot >= f(g_k) >= f* (gdot - f(g_k) = a / 2), so -gdot bounds -f* too; only
 * a check with gdot < -E0 computes a: a pass over the owned bodies for |v_k - v_free|_M^2 and one
 * reduction. E0 is computed once per solve, at its first check with gdot < 0 (a pass over the
 * bodies and the contacts, one reduction). Steps without push-apart contacts never pass gdot < -E0.
 * Rounding: a is a sum of squares; c = gdot - a is dominated by b^T g_k on a jam; the velocities
 * carry the iteration's rounding (about 1e-11 |v|) and the packed solve's masses differ from P's by
 * their single-precision rounding (2^-24 relative): both far below the factor's margin.
 * Cohesion shifts the cones (then s g need not be feasible) and a yield cap bounds them (a bounded
 * set: always solvable): with them the test reads the same Q, a bound on -2 f* only approximately.
 * False negatives: on a small jam Q passes the bound within a few checks (test_ccp_jam: 5); a jam of
 * a few bodies in a large pile must make Q exceed the whole pile's E0, may reach the cap first, and
 * is then reported as not converged, as without the test. Jacobi and Gauss-Seidel do not test. */
#define APGD_UNSOLVABLE_FACTOR 1e3

/* The test's state over one solve: E0 once known; whether the test stopped the solve. */
typedef struct {
  PetscBool e0_known, infeasible;
  double    e0;
} ApgdUnsolvable;

/* v^T M v for a body of inverse mass im > 0 and world inverse inertia Ii (xx, yy, zz, xy, xz, yz);
 * the rotation's part only when Ii is positive definite (else no rotation an impulse could change). */
static double mass_norm2(double im, const double Ii[6], const double v[6])
{
  double       I[6];
  const double lin = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) / im;
  /* the inertia from its inverse by cofactors, over the determinant below (xx, yy, zz, xy, xz, yz) */
  I[0]             = Ii[1] * Ii[2] - Ii[5] * Ii[5];
  I[1]             = Ii[0] * Ii[2] - Ii[4] * Ii[4];
  I[2]             = Ii[0] * Ii[1] - Ii[3] * Ii[3];
  I[3]             = Ii[4] * Ii[5] - Ii[3] * Ii[2];
  I[4]             = Ii[3] * Ii[5] - Ii[4] * Ii[1];
  I[5]             = Ii[3] * Ii[4] - Ii[0] * Ii[5];
  const double det = Ii[0] * I[0] + Ii[3] * I[3] + Ii[4] * I[4], *w = v + 3;
  if (!(det > 0)) return lin;
  return lin + (I[0] * w[0] * w[0] + I[1] * w[1] * w[1] + I[2] * w[2] * w[2] +
                2 * (I[3] * w[0] * w[1] + I[4] * w[0] * w[2] + I[5] * w[1] * w[2])) /
                 det;
}

/* Over this rank's owned movable bodies of P (the first nowned): with v NULL, sums[0] +=
 * 1/2 |v_free|_M^2 and sums[1] += the mass; else sums[0] += |v_j - v_free_j|_M^2, v_j at v(ctx, j).
 * Not collective. */
static void apgd_body_energy(const CCPProblem *P, PetscInt nowned, const double *(*v)(void *, int, PetscInt), void *ctx,
                             int slot, double sums[2])
{
  for (PetscInt j = 0; j < nowned; j++) {
    double im, Ii[6], vf[6];
    ccp_problem_body(P, j, &im, Ii, vf);
    if (!(im > 0)) continue; /* walls, the joints' ground */
    if (v) {
      const double *vj = v(ctx, slot, j);
      for (int k = 0; k < 6; k++) vf[k] = vj[k] - vf[k];
      sums[0] += mass_norm2(im, Ii, vf);
    } else {
      sums[0] += 0.5 * mass_norm2(im, Ii, vf);
      sums[1] += 1 / im;
    }
  }
}

/* The larger of *vmax and a joint row's |b| or a contact's -b_n (bn, and for a joint block its rows b). */
static inline void push_speed(double *vmax, double bn, const double *jb, size_t stride)
{
  ccp_keep_max(vmax, jb ? PetscAbsReal(bn) : -bn);
  if (jb)
    for (int k = 1; k < 6; k++) ccp_keep_max(vmax, PetscAbsReal(jb[k * stride]));
}

/* The bound on what a contact's rolling springs can lower f by: over its torque rows g_t, 1/2 c_rot |g_t|^2 +
 * b_rot^T g_t >= -|b_rot|^2 / (2 c_rot), the energy the springs hold (0 without b_rot). */
static inline double spring_energy(double c_rot, double b0, double b1, double b2)
{
  const double b2sum = b0 * b0 + b1 * b1 + b2 * b2;
  return b2sum > 0 ? b2sum / (2 * c_rot) : 0;
}

/* The velocity slot of an APGD record that is neither a nor b (CCP_SLOT_V and the two past the
 * accumulator rotate; ccp/pack.h). */
static int unused_slot(int a, int b)
{
  static const int slots[3] = {CCP_SLOT_V, CCP_SLOTS_SWEEP, CCP_SLOTS_SWEEP + 1};
  for (int k = 0; k < 3; k++)
    if (slots[k] != a && slots[k] != b) return slots[k];
  return -1; /* (unreachable: three slots, two excluded) */
}

/* One step's passes on the packed layout: the contact pass from p into x (with the residual of
 * p->xk when asked), the accumulators summed over ranks, the body pass into slot vnew. */
static PetscErrorCode apgd_step_packed(const CCPSolveContext *ctx, const CCPApgdStep *p, double *x, int vnew,
                                       PetscBool residual, double L, ApgdStepSums *r)
{
  CCPPacked  *pk = &ctx->work->pk;
  CCPApgdSums c;

  PetscFunctionBegin;
  PetscCall(CCPPackedMarkSlot(pk, ctx->coupling, CCP_SLOT_DV));
  ccp_sweep_apgd(pk, p, x, residual, &c);
  PetscCall(CCPPackedSumSlot(pk, ctx->coupling, CCP_SLOT_DV));
  const double pMp = ccp_sweep_apgd_bodies(pk, p, vnew, CCPCouplingOwned(ctx->coupling, pk->nbodies));
  PetscCall(apgd_reduce(ctx->coupling, &c, pMp, L, residual, r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After an accepted step: gamma_k-1 <- gamma_k <- x, and their velocity slots likewise. */
static void rotate_step(CCPApgdStep *p, const double *x, int vnew)
{
  p->xkm1 = p->xk;
  p->xk   = x;
  p->vkm1 = p->vk;
  p->vk   = vnew;
}

/* The bookkeeping of gamma_k's exact residual res (a step's pass yields it): the warm start's
 * residual, the best iterate. True when the solve stops at gamma_k: converged, or diverging. */
static PetscBool apgd_residual_known(PetscBool warm, const double *xk, double res, double **best, double *best_res,
                                     double *res_start, double tol)
{
  if (warm) *res_start = res;
  return (PetscBool)(!accept(best, best_res, (double *)xk, res) || *best_res <= tol);
}

/* What the iteration (apgd_iterate) runs on: the packed layout or the reference loops. */
typedef struct {
  /* one step's passes from p into x and the velocity slot vnew, with gamma_k's residual when asked */
  PetscErrorCode (*step)(void *ctx, const CCPApgdStep *p, double *x, int vnew, PetscBool residual, double L,
                         ApgdStepSums *r);
  /* the exact residual of p->xk at its velocities (slot p->vk) */
  PetscErrorCode (*residual)(void *ctx, const CCPApgdStep *p, double *res);
  /* a multiplier buffer for the step: none of p->xk, p->xkm1, *best (which may move out: NULL) */
  PetscErrorCode (*buffer)(void *ctx, const CCPApgdStep *p, double **best, double **x);
  /* this rank's largest push-apart speed (push_speed over its contacts), >= 0, and its springs' energy bound
     (spring_energy) summed */
  double (*vpush)(void *ctx, double *springs);
  /* this rank's contact (problem index) with the largest -b_n gamma_n > 0 at the multipliers x, and that
     value; -1 and 0 when none */
  void (*jam)(void *ctx, const double *x, PetscInt *contact, double *share);
  /* solver body j's velocity in slot `slot` */
  const double *(*velocity)(void *ctx, int slot, PetscInt j);
  void              *ctx;
  const CCPProblem  *P; /* the problem as given (its bodies for the test of an unsolvable step) */
  const CCPCoupling *coupling;
} ApgdOps;

/* The test of an unsolvable step (above) at a check of g_k = p->xk, whose sums r are known (the
 * same on every rank): u->infeasible when it says stop. Collective over the coupling when it needs
 * E0 or a (then every rank does, since r is the same). */
static PetscErrorCode apgd_unsolvable_test(const ApgdOps *ops, const CCPApgdStep *p, PetscInt nowned,
                                           const ApgdStepSums *r, ApgdUnsolvable *u)
{
  PetscFunctionBegin;
  if (!(r->gdot < 0)) PetscFunctionReturn(PETSC_SUCCESS);
  if (!u->e0_known) {
    double       springs = 0;
    const double v       = ops->vpush(ops->ctx, &springs);
    double       x[3]    = {springs, 0, v * v}; /* E_free and the springs', M summed; v_push^2 the max */
    apgd_body_energy(ops->P, nowned, NULL, NULL, 0, x);
    PetscCall(CCPCouplingReduce(ops->coupling, x, 3));
    u->e0       = x[0] + 0.5 * x[1] * x[2];
    u->e0_known = PETSC_TRUE;
  }
  if (!(u->e0 > 0 && r->gdot < -u->e0)) PetscFunctionReturn(PETSC_SUCCESS);
  double x[2] = {0, 0}; /* |v_k - v_free|_M^2 summed (the max unused) */
  apgd_body_energy(ops->P, nowned, ops->velocity, ops->ctx, p->vk, x);
  PetscCall(CCPCouplingReduce(ops->coupling, x, 2));
  const double a = x[0] + r->gcg, c = r->gdot - a;
  u->infeasible = (PetscBool)(a >= 0 && c < 0 && c * c > APGD_UNSOLVABLE_FACTOR * 2 * u->e0 * a);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The iteration from p (the warm start, its velocity in slot p->vk), its Lipschitz estimate from
 * *L_kept (with -ccp_apgd_lipschitz_keep and *L_kept > 0; else apgd_L0), the last one back into
 * *L_kept. Out: *best the best iterate
 * (NULL: stashed by ops->buffer), its residual and the warm start's, the iteration count k of
 * the last iterate gamma_k and the passes over the contacts that made a step (the rejected ones
 * too: on the bench's piles about 1.16 per iteration); stats' infeasible fields when the test of
 * an unsolvable step stopped it (at gamma_k, whose largest share it names). */
static PetscErrorCode apgd_iterate(const CCPSettings *set, const ApgdOps *ops, CCPApgdStep *p, double *L_kept,
                                   double **best, double *best_res, double *res_start, PetscInt *iterations,
                                   PetscInt *passes, CCPSolveStats *stats)
{
  double         L = set->apgd_L_keep && *L_kept > 0 ? *L_kept : set->apgd_L0, theta = 1, indicator = PETSC_INFINITY;
  PetscBool      known = PETSC_FALSE, stop = PETSC_FALSE; /* known: gamma_k's residual is */
  ApgdUnsolvable un     = {PETSC_FALSE, PETSC_FALSE, 0};
  const PetscInt nowned = CCPCouplingOwned(ops->coupling, ops->P->nbodies);

  PetscFunctionBegin;
  *best_res = *res_start = PETSC_INFINITY;
  *iterations = *passes = 0;
  for (PetscInt it = 1; it <= set->max_it && !stop; it++) {
    const PetscBool check = apgd_check(set, indicator, *best_res, it - 1); /* gamma_k's residual (k = it - 1) */
    const int       vnew  = unused_slot(p->vk, p->vkm1);
    double         *xnew;
    ApgdStepSums    r = {0, 0, 0, 0, 0, 0}; /* (set by the first pass; initialized for -Wmaybe-uninitialized) */

    PetscCall(ops->buffer(ops->ctx, p, best, &xnew));
    for (int bt = 0;; bt++) {
      p->step = 1.0 / L;
      PetscCall(ops->step(ops->ctx, p, xnew, vnew, (PetscBool)(check && bt == 0), L, &r));
      ++*passes;
      if (check && bt == 0) {
        known     = PETSC_TRUE;
        indicator = r.res_or_indicator;
        stop      = apgd_residual_known((PetscBool)(it == 1), p->xk, r.res_or_indicator, best, best_res, res_start,
                                        set->tol);
        if (!stop) {
          PetscCall(apgd_unsolvable_test(ops, p, nowned, &r, &un));
          stop = un.infeasible;
        }
        if (stop) break;
      }
      if (!(r.dNd > L * r.dBd) || bt == MAX_BACKTRACKS) break;
      L *= set->apgd_L_grow;
    }
    if (stop) break; /* at gamma_k: the step made from it is dropped */
    if (!check) indicator = r.res_or_indicator;
    *iterations = it;
    known       = PETSC_FALSE;
    momentum(r.uphill, &theta, &p->beta);
    rotate_step(p, xnew, vnew);
    L *= set->apgd_L_decay;
  }
  if (!known) { /* the last iterate's residual (the cap, or no iteration) */
    double res;
    PetscCall(ops->residual(ops->ctx, p, &res));
    (void)apgd_residual_known((PetscBool)(*iterations == 0), p->xk, res, best, best_res, res_start, set->tol);
  }
  if (isfinite(L) && L > 0) *L_kept = L; /* the same on every rank: L follows the reduced sums */
  if (un.infeasible) {
    stats->infeasible = PETSC_TRUE;
    ops->jam(ops->ctx, p->xk, &stats->infeasible_contact, &stats->infeasible_share);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- on the packed layout ---- */

/* Multiplier vectors: gamma_k, gamma_k-1, gamma+ (a best iterate that would need a fourth moves out). */
#define APGD_VECTORS 3
typedef struct {
  const CCPSolveContext *ctx;
  CCPProblem            *P;
} ApgdPacked;

static PetscErrorCode packed_step(void *ctx, const CCPApgdStep *p, double *x, int vnew, PetscBool residual, double L,
                                  ApgdStepSums *r)
{
  return apgd_step_packed(((ApgdPacked *)ctx)->ctx, p, x, vnew, residual, L, r);
}

static PetscErrorCode packed_residual(void *ctx, const CCPApgdStep *p, double *res)
{
  const CCPSolveContext *solve = ((ApgdPacked *)ctx)->ctx;
  double                 rms;
  return CCPPackedResidual(&solve->work->pk, solve->coupling, p->xk, p->vk, res, &rms);
}

static PetscErrorCode packed_buffer(void *ctx, const CCPApgdStep *p, double **best, double **x)
{
  const ApgdPacked *a  = (const ApgdPacked *)ctx;
  CCPPacked        *pk = &a->ctx->work->pk;
  return apgd_free_buffer(pk, a->P, pk->g, APGD_VECTORS, p->xk, p->xkm1, NULL, best, x);
}

static double packed_vpush(void *ctx, double *springs)
{
  const CCPPacked *pk = &((ApgdPacked *)ctx)->ctx->work->pk;
  double           v  = 0;
  for (PetscInt q = 0; q < pk->nblk; q++) {
    const CCPBlock    *K = ccp_block_at(pk, q);
    const CCPRowBlock *R = q >= pk->row0 ? &pk->rows[q - pk->row0] : NULL;
    for (int l = 0; l < CCP_LANES; l++) {
      if (pk->perm[q * CCP_LANES + l] < 0) continue;
      push_speed(&v, K->bn[l], R ? &R->b[0][l] : NULL, CCP_LANES);
      if (pk->springs) *springs += spring_energy(K->crot[l], K->brot[0][l], K->brot[1][l], K->brot[2][l]);
    }
  }
  return v;
}

static void packed_jam(void *ctx, const double *x, PetscInt *contact, double *share)
{
  const CCPPacked *pk = &((ApgdPacked *)ctx)->ctx->work->pk;
  *contact            = -1;
  *share              = 0;
  for (PetscInt slot = 0; slot < pk->nblk * CCP_LANES; slot++) {
    const double w = -ccp_block_at(pk, slot / CCP_LANES)->bn[slot % CCP_LANES] * x[ccp_packed_index(pk, slot, 0)];
    if (pk->perm[slot] >= 0 && w > *share) {
      *contact = pk->perm[slot];
      *share   = w;
    }
  }
}

static const double *packed_velocity(void *ctx, int slot, PetscInt j)
{
  return ccp_body_velocity(&((ApgdPacked *)ctx)->ctx->work->pk, j, slot);
}

static PetscErrorCode APGD_Packed(const CCPSolveContext *ctx, CCPProblem *P, CCPSolveStats *stats)
{
  CCPPacked    *pk     = &ctx->work->pk;
  ApgdPacked    packed = {ctx, P};
  const ApgdOps ops  = {packed_step, packed_residual, packed_buffer, packed_vpush, packed_jam, packed_velocity, &packed,
                        P,           ctx->coupling};
  double       *best = pk->g[0], best_res, res_start;
  PetscInt      iterations, passes;
  CCPApgdStep   p = {pk->g[0], pk->g[0], CCP_SLOT_V, CCP_SLOT_V, 0, 0}; /* from the warm start, whose velocity: */

  PetscFunctionBegin;
  PetscCall(CCPPackedVelocity(pk, ctx->coupling, P, p.xk, PETSC_TRUE));
  PetscCall(
    apgd_iterate(ctx->set, &ops, &p, &ctx->work->apgd_L, &best, &best_res, &res_start, &iterations, &passes, stats));
  apgd_best(pk, P, pk->g[0], &best);
  stats->improved = (PetscBool)(best_res < res_start);
  PetscCall(CCPFinishPacked(ctx, P, best, iterations, stats));
  stats->passes = passes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- on the reference loops (-ccp_packed false) ---- */

/* ---- Per-contact scaling (-ccp_apgd_scaling diagonal; the reference loops only) ----
 *
 * The sweeps' metric B_i = diag(f I3, t I3) gives a contact's three force rows one step, 3 over
 * their trace. For two spheres the normal row's diagonal N_nn = 1/m_a + 1/m_b is 2/7 of a
 * tangential one's (the lever arms add 5/(2m) per sphere there), so the normal rows, which carry
 * the weight down a force chain, step 8/3 times shorter than their own diagonal allows. The diagonal
 * scaling gives the normal row the step f_n = 1 / N_nn, the tangential pair f_t = 2 / (N_uu + N_ww)
 * and the torque rows t = 3 / their trace as before (B_i N_ii keeps a unit diagonal: L0 = 1 still).
 * The projection in the metric B^-1 stays exact and closed-form: in the variables (x_n, a x_t,
 * a x_torque), a = sqrt(f_n / f_t), the metric is f_t's, and the reaction set is the cone of
 * a mu, a rho, a sigma (the normal row, and with it the cohesion shift and the yield cap, unscaled),
 * which ccp_kernel_project_metric projects onto (the torque rows' ell on top). A joint block keeps
 * the sweeps' metric (its box is a clamp per row, exact in any diagonal metric, but kept simple). */
typedef struct {
  PetscBool diag;          /* false: the sweeps' metric m alone (ccp_kernel_metric), bit for bit */
  CCPMetric m;             /* f: the tangential rows' step f_t when diag */
  double    a, fn, inv_fn; /* sqrt(f_n / f_t), f_n and 1 / f_n when diag */
} ApgdMetric;

static void apgd_metric(ApgdScaling scaling, const Contact *c, const CCPContactTerms *t, double ima, const double *Ia,
                        double imb, const double *Ib, ApgdMetric *M)
{
  double tf = 0, tt = 0, an[3], bn[3], Ian[3], Ibn[3];

  M->diag = PETSC_FALSE;
  M->a    = 1;
  ccp_kernel_metric(c, t, ima, Ia, imb, Ib, &M->m);
  if (scaling != APGD_SCALING_DIAGONAL || c->box) return;
  ccp_kernel_traces(c, t, ima, Ia, imb, Ib, &tf, &tt);
  v3_cross(an, c->ra, c->n);
  v3_cross(bn, c->rb, c->n);
  sym_vec(Ian, Ia, an);
  sym_vec(Ibn, Ib, bn);
  const double nn = ima + imb + v3_dot(an, Ian) + v3_dot(bn, Ibn) + t->c_lin, tan2 = tf - nn; /* N_nn, N_uu + N_ww */
  if (!(nn > 0) || !(tan2 > 0)) return; /* a row without mobility: the sweeps' metric */
  M->diag    = PETSC_TRUE;
  M->inv_fn  = nn;
  M->fn      = 1 / nn;
  M->a       = sqrt(tan2 / (2 * nn));
  M->m.f     = 2 / tan2;
  M->m.inv_f = tan2 / 2;
  if (contact_dof(c) == 6) {
    M->m.t     = tt > 0 ? 3 / tt : M->m.f;
    M->m.inv_t = 1 / M->m.t;
    M->m.ell   = sqrt(M->m.t / M->m.f);
    M->m.il    = 1 / M->m.ell;
  }
}

/* z <- y - s B g (ccp_kernel_step in the metric M) */
static void apgd_metric_step(const ApgdMetric *M, double s, const double y[6], const double g[6], double z[6])
{
  ccp_kernel_step(&M->m, s, y, g, z);
  if (M->diag) z[0] = y[0] - s * M->fn * g[0];
}

/* z <- its projection onto the reaction set in the metric B^-1 of M */
static void apgd_metric_project(const Contact *c, const CCPContactTerms *t, const ApgdMetric *M, double z[6])
{
  if (!M->diag) {
    ccp_kernel_project_metric(c, t, &M->m, z);
    return;
  }
  Contact scaled = *c;
  scaled.mu *= M->a;
  scaled.rho *= M->a;
  scaled.sigma *= M->a;
  for (int k = 1; k < 6; k++) z[k] *= M->a;
  ccp_kernel_project_metric(&scaled, t, &M->m, z);
  for (int k = 1; k < 6; k++) z[k] /= M->a;
}

/* x^T B^-1 y in the metric M */
static double apgd_metric_dot(const ApgdMetric *M, const double x[6], const double y[6])
{
  if (!M->diag) return ccp_kernel_metric_dot(&M->m, x, y);
  return x[0] * y[0] * M->inv_fn + (x[1] * y[1] + x[2] * y[2]) * M->m.inv_f +
         (x[3] * y[3] + x[4] * y[4] + x[5] * y[5]) * M->m.inv_t;
}

/* |B^-1 d|^2 in the metric M */
static double apgd_metric_change2(const ApgdMetric *M, const double d[6])
{
  if (!M->diag) return ccp_kernel_change2(&M->m, d);
  const double fn = d[0] * M->inv_fn, t2 = d[1] * d[1] + d[2] * d[2], r2 = d[3] * d[3] + d[4] * d[4] + d[5] * d[5];
  return fn * fn + t2 * M->m.inv_f * M->m.inv_f + r2 * M->m.inv_t * M->m.inv_t;
}

/* The problem and the reference loops' buffers: velocities 6 per body, V[slot] for the slots of
 * the packed records (V[CCP_SLOT_DV]: the accumulator); four multiplier vectors (no stash); the
 * per-contact steps. */
typedef struct {
  const CCPProblem *P;
  double           *V[CCP_SLOTS_APGD], *G[4];
  ApgdScaling       scaling;
} ApgdReference;

/* The same passes as apgd_step_packed over the problem's contacts and bodies. Single-rank. */
static PetscErrorCode reference_step(void *ctx, const CCPApgdStep *p, double *x, int vnew, PetscBool residual, double L,
                                     ApgdStepSums *r)
{
  const ApgdReference *ref  = (const ApgdReference *)ctx;
  const CCPProblem    *P    = ref->P;
  const double         beta = p->beta, *vk = ref->V[p->vk], *vkm1 = ref->V[p->vkm1];
  double              *acc = ref->V[CCP_SLOT_DV], *vout = ref->V[vnew];
  CCPApgdSums          c   = {0, 0, 0, 0, 0, 0, 0};
  double               pMp = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < P->ncontacts; i++) {
    const Contact         *ct = &P->contact[i];
    const CCPContactTerms *t  = &P->terms[i];
    const size_t           a = (size_t)ct->a, b = (size_t)ct->b;
    const double          *xk = ccp_cblock(p->xk, i);
    double                 y[6], vya[6], vyb[6], g[6], z[6], d[6], e[6];
    ApgdMetric             m;

    if (residual) {
      ccp_kernel_gradient(ct, t, vk + 6 * a, vk + 6 * b, xk, g);
      const double r2 = ccp_kernel_residual2(ct, t, xk, g);
      if (!(r2 <= c.res2)) c.res2 = r2; /* NaN propagates */
      for (int k = 0; k < 6; k++) c.gdot += xk[k] * g[k];
      c.gcg += ccp_kernel_compliance_dot(ct, t, xk);
    }
    extrapolate(xk, ccp_cblock(p->xkm1, i), beta, y);
    extrapolate(vk + 6 * a, vkm1 + 6 * a, beta, vya);
    extrapolate(vk + 6 * b, vkm1 + 6 * b, beta, vyb);
    ccp_kernel_gradient(ct, t, vya, vyb, y, g);
    apgd_metric(ref->scaling, ct, t, P->inv_mass[a], P->inv_inertia + 6 * a, P->inv_mass[b], P->inv_inertia + 6 * b,
                &m);
    apgd_metric_step(&m, p->step, y, g, z);
    apgd_metric_project(ct, t, &m, z);
    for (int k = 0; k < 6; k++) {
      d[k]               = z[k] - y[k];  /* the step, for the Lipschitz test */
      e[k]               = z[k] - xk[k]; /* the progress, for the restart test */
      ccp_block(x, i)[k] = z[k];
    }
    c.dBd += apgd_metric_dot(&m, d, d);
    c.uphill -= apgd_metric_dot(&m, d, e);
    c.dCd += ccp_kernel_compliance_dot(ct, t, d);
    const double c2 = apgd_metric_change2(&m, d);
    if (!(c2 <= c.change2)) c.change2 = c2;
    ccp_kernel_impulse(ct, d, acc + 6 * a, acc + 6 * b);
  }
  for (PetscInt j = 0; j < P->nbodies; j++) {
    const double *pj = acc + 6 * j;
    double        dv[6];
    for (int k = 0; k < 3; k++) dv[k] = P->inv_mass[j] * pj[k];
    sym_vec(dv + 3, P->inv_inertia + 6 * j, pj + 3);
    for (int k = 0; k < 6; k++) {
      pMp += pj[k] * dv[k];
      vout[6 * j + k] = vk[6 * j + k] + beta * (vk[6 * j + k] - vkm1[6 * j + k]) + dv[k];
      acc[6 * j + k]  = 0;
    }
  }
  *r = (ApgdStepSums){c.dBd, c.uphill, c.dCd + pMp, c.gdot, c.gcg, sqrt(residual ? c.res2 : c.change2 * L * L)};
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode reference_residual(void *ctx, const CCPApgdStep *p, double *res)
{
  const ApgdReference *ref = (const ApgdReference *)ctx;
  double               rms;

  PetscFunctionBegin;
  ccp_residual(ref->P, p->xk, ref->V[p->vk], res, &rms);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode reference_buffer(void *ctx, const CCPApgdStep *p, double **best, double **x)
{
  ApgdReference *ref = (ApgdReference *)ctx;
  *x                 = unused_buffer(ref->G, 4, p->xk, p->xkm1, *best, NULL);
  return PETSC_SUCCESS;
}

static double reference_vpush(void *ctx, double *springs)
{
  const CCPProblem *P = ((const ApgdReference *)ctx)->P;
  double            v = 0;
  for (PetscInt i = 0; i < P->ncontacts; i++) {
    const Contact         *c = &P->contact[i];
    const CCPContactTerms *t = &P->terms[i];
    push_speed(&v, t->bn, c->box ? c->box->b : NULL, 1);
    if (!c->box && contact_dof(c) == 6)
      *springs += spring_energy(ccp_terms_c_rot(c, t), t->b_rot[0], t->b_rot[1], t->b_rot[2]);
  }
  return v;
}

static void reference_jam(void *ctx, const double *x, PetscInt *contact, double *share)
{
  const CCPProblem *P = ((const ApgdReference *)ctx)->P;
  *contact            = -1;
  *share              = 0;
  for (PetscInt i = 0; i < P->ncontacts; i++) {
    const double w = -P->terms[i].bn * ccp_cblock(x, i)[0];
    if (w > *share) {
      *contact = i;
      *share   = w;
    }
  }
}

static const double *reference_velocity(void *ctx, int slot, PetscInt j)
{
  return ((const ApgdReference *)ctx)->V[slot] + 6 * j;
}

static PetscErrorCode APGD_Reference(const CCPSolveContext *ctx, CCPProblem *P, CCPSolveStats *stats)
{
  CCPWorkspace *w = ctx->work;
  double       *best, best_res, res_start;
  PetscInt      iterations, passes;

  PetscFunctionBegin;
  PetscCall(CCPWorkspaceEnsure(w, P));
  ApgdReference ref = {P,
                       {P->vel, w->work_v[0], w->work_v[1], w->work_v[2]},
                       {P->gamma, w->work_g[0], w->work_g[1], w->work_g[2]},
                       ctx->set->apgd_scaling};
  const ApgdOps ops =
    {reference_step, reference_residual, reference_buffer, reference_vpush, reference_jam, reference_velocity, &ref, P,
     ctx->coupling};
  CCPApgdStep p = {ref.G[0], ref.G[0], CCP_SLOT_V, CCP_SLOT_V, 0, 0}; /* from the warm start, whose velocity: */
  ccp_velocity_from_impulses(P, p.xk, ref.V[CCP_SLOT_V]);
  PetscCall(PetscArrayzero(ref.V[CCP_SLOT_DV], 6 * (size_t)P->nbodies));
  best = ref.G[0];
  PetscCall(apgd_iterate(ctx->set, &ops, &p, &w->apgd_L, &best, &best_res, &res_start, &iterations, &passes, stats));
  stats->improved = (PetscBool)(best_res < res_start);
  ccp_finish_reference(P, best, iterations, ctx->set->tol, stats);
  stats->passes = passes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolve_APGD(const CCPSolveContext *ctx, CCPProblem *P, CCPSolveStats *stats)
{
  PetscFunctionBegin;
  PetscCall(CCPCheckReferenceLocal(ctx, "APGD"));
  if (ctx->set->packed) {
    PetscCall(CCPPackedBuild(&ctx->work->pk, P, APGD_VECTORS, PETSC_FALSE, CCP_SLOTS_APGD));
    ctx->work->pk.simd = ctx->set->simd;
    PetscCall(APGD_Packed(ctx, P, stats));
  } else PetscCall(APGD_Reference(ctx, P, stats));
  PetscFunctionReturn(PETSC_SUCCESS);
}
