/* APGD: Nesterov's accelerated projected gradient with adaptive step and restart, after Mazhar,
 * Heyn, Negrut and Tasora (ACM TOG 2015) and the idea of Chrono's multicore APGD, applied
 * matrix-free and in the metric of the per-contact steps B = diag(B_i) of ccp_kernels.h:
 *
 *   gamma+ = Proj_B(y - B (N y + r) / L)                    (L: Lipschitz estimate)
 *   accept when (gamma+ - y)^T N (gamma+ - y) <= L (gamma+ - y)^T B^-1 (gamma+ - y), else L *= 2
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
 * eigenvalue of those blocks; a few doublings find the rest). Proj_B is the projection in the
 * metric B^-1, which is per contact (ccp_kernel_project_metric).
 *
 * One N-product per accepted iteration: a scatter pass computes gamma+ and adds M^-1 D (gamma+ -
 * gamma) to v, a gather pass takes gr+ = N gamma+ + r = D^T v + b + C gamma+ from v. The gradient
 * at y then follows by linearity, gy = gr + beta (gr - gr_prev), so y and gy are never stored:
 * both passes rebuild them per contact from (gamma, gamma_prev, gr, gr_prev, beta). The gather
 * pass can also yield the exact GUIDE residual of gamma+ (its gradient is at hand); it does so on
 * the iterations apgd_check picks, and the best iterate by that residual is kept among them, by
 * pointer (buffers rotate; no copies).
 *
 * One pass over the contacts per accepted iteration (packed, for large layouts: apgd_fuse): a
 * contact's scatter of iteration k+1 needs only its own gamma+, gamma, gr+, gr of iteration k, and
 * beta, L of k+1, which the reduction after the scatter of k already decides if k is accepted;
 * so each block's gather of k is followed at once by its scatter of k+1, speculating that k is
 * accepted. That scatter adds to a second velocity buffer (the bodies' dv; CCPVelocityBuffer),
 * a copy of v_k, since later blocks' gathers still read v_k: the same additions in the same
 * order, so the iterates are those of the two passes (-ccp_apgd_fused false) bit for bit
 * (test_ccp_packed). The buffers then swap roles. When the step test fails (about 15% of the
 * iterations) the speculative scatter is dropped, the scatter of k is redone with the larger L
 * exactly as in the two passes, and the gather of k is fused again; the last iteration (the cap)
 * speculates nothing. A failed test redoes the step from gamma_prev, so gamma_prev, gamma, gamma+
 * and the best iterate are all live when the speculative step needs a buffer: rather than a
 * fifth multiplier vector, a best iterate that would be overwritten moves to P->gamma (where the
 * solve leaves it anyway) and is packed back at the end if it is still the best (the two passes
 * do the same with their fourth: 6 vectors, 7 fused). Ranks:
 * the speculative scatter's ghost contributions are marked and summed in its own buffer; the
 * scatter's sums (|d|_B^-1^2, uphill) ride on the next reduction, the first and the redone
 * scatters' on one of their own.
 *
 * Two implementations of the same iteration: the packed one (default; ccp_pack.h, vectorized
 * blocks of 4 contacts, contacts in an order of their own) and the reference loops over the
 * problem's contacts (-ccp_packed false). They differ only in the order of floating-point sums.
 * Options: -ccp_apgd_lipschitz_initial (L0), -ccp_apgd_lipschitz_grow, -ccp_apgd_lipschitz_decay,
 * -ccp_apgd_fused. */
#include "ccp_kernels.h"

#define MAX_BACKTRACKS 60 /* L would have grown 2^60: accept the step rather than loop */

/* A buffer of bufs[0..n) that is none of x, y, z, w; NULL if there is none. */
static double *unused_buffer(double *const *bufs, int n, const double *x, const double *y, const double *z, const double *w)
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
  if (res_max < *best_res) {
    *best     = gnew;
    *best_res = res_max;
  }
  return (PetscBool)!ccp_diverged(res_max, *best_res);
}

/* Whether iteration it computes the exact GUIDE residual of its iterate (the residual's projection
 * costs about a third of an iteration). `indicator`: the last iteration's exact residual where it
 * was computed, else its step's gradient mapping max_i L |B_i^-1 (x_i - y_i)| (a velocity that
 * tends to 0 with the residual; measured 1-6 times the residual on a jammed pile). Checks as the
 * sweeps' (ccp_need_check) with the indicator within APGD_CHECK_FACTOR of the tolerance, every
 * -ccp_apgd_check_interval iterations and at the last one. The residual of APGD's iterates jumps
 * about (it is not monotone), so a pile at rest, whose steps converge only now and then within the
 * cap, needs the checks dense near the tolerance: test_pile_rest's last 100 steps all converge
 * with every iteration checked; with a check every 4 iterations and a factor of 4, 16 missed the
 * tolerance, with a factor of 10 none (6 with every 6), with 30 none at every 4 or 6 (measured). */
#define APGD_CHECK_FACTOR 30
static inline PetscBool apgd_check(const CCPSolver s, double indicator, double best_res, PetscInt it)
{
  return (PetscBool)(it == s->max_it || ccp_need_check(s, indicator / APGD_CHECK_FACTOR, best_res, it - 1, s->apgd_check_interval));
}

/* The buffers move one iteration on: previous <- current <- next (no copies). */
static inline void rotate(double **previous, double **current, double *next)
{
  *previous = *current;
  *current  = next;
}

/* The warm start gk, right after CCPPackedBuild: its velocity (buffer v), gradient rk and residual
 * (a gather pass with beta = 0). */
static PetscErrorCode apgd_warm_start(CCPSolver s, const CCPProblem *P, const double *gk, double *rk, double *res)
{
  const CCPApgdPoint p   = {gk, gk, gk, gk, 0};
  double             dNd = 0;

  PetscFunctionBegin;
  PetscCall(CCPPackedVelocity(s, P, gk, PETSC_TRUE));
  double r[2] = {0, ccp_sweep_apgd_gather(&s->pk, &p, gk, CCP_VELOCITY_V, rk, &dNd, PETSC_TRUE)};
  PetscCall(CCPCouplingReduce(s, r, 2));
  *res = sqrt(r[1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *buf <- a buffer of G[0, n) that is none of x, y, z and the best iterate's. When only the best
 * iterate's is left, the best iterate moves to P->gamma (problem order, where the solve leaves it
 * anyway; *best <- NULL) and frees its buffer: one multiplier vector fewer. Without blocks the
 * buffers may all be one empty array (NULL then: nothing is read or written). */
static void apgd_free_buffer(const CCPPacked *pk, CCPProblem *P, double *const *G, int n, const double *x, const double *y, const double *z, double **best, double **buf)
{
  *buf = unused_buffer(G, n, x, y, z, *best);
  if (!*buf && pk->nblk > 0) {
    CCPPackedUnpackGamma(pk, *best, P);
    *best = NULL;
    *buf  = unused_buffer(G, n, x, y, z, NULL);
  }
}

/* The solve's best iterate: best, or, stashed in P->gamma by apgd_free_buffer, packed back into G0. */
static PetscErrorCode apgd_best(const CCPPacked *pk, const CCPProblem *P, double *G0, double **best)
{
  PetscFunctionBegin;
  if (!*best) {
    *best = G0;
    PetscCall(CCPPackedPackGamma(pk, P, *best));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The two passes per iteration (-ccp_apgd_fused false): the reference for APGD_PackedFused. Six
 * vectors (APGD_PACKED_VECTORS): a step is made from gk and gkm1, into gnew, and a best iterate
 * that would take the fourth multiplier buffer moves out (apgd_free_buffer). */
#define APGD_PACKED_VECTORS 6
static PetscErrorCode APGD_PackedTwoPass(CCPSolver s, CCPProblem *P, CCPSolveStats *stats)
{
  CCPPacked   *pk  = &s->pk;
  const double tol = s->tol;
  double       best_res, L = s->apgd_L0, theta = 1, beta = 0, dNd = 0;
  PetscInt     iterations = 0;

  PetscFunctionBegin;
  double *const G[3] = {pk->g[0], pk->g[1], pk->g[2]}; /* multipliers */
  double *const R[3] = {pk->g[3], pk->g[4], pk->g[5]}; /* gradients N gamma + r */
  double       *gk = G[0], *gkm1 = G[0], *rk = R[0], *rkm1 = R[0], *best = G[0];
  PetscCall(apgd_warm_start(s, P, gk, rk, &best_res));
  const double res_start = best_res;
  double       indicator = best_res;
  for (PetscInt it = 1; it <= s->max_it && best_res > tol; it++) {
    double *gnew, *rnew = unused_buffer(R, 3, rk, rkm1, NULL, NULL);
    apgd_free_buffer(pk, P, G, 3, gk, gkm1, NULL, &best, &gnew);
    const double   *vref  = gk; /* v is the velocity of vref */
    const PetscBool check = apgd_check(s, indicator, best_res, it);
    double          res_max = 0, uphill = 0;

    for (int bt = 0;; bt++) {
      const CCPApgdPoint p    = {gk, gkm1, rk, rkm1, beta};
      double             r[4] = {0, 0, 0, 0}; /* |d|_B^-1^2, uphill, dNd: sums; squared residual or indicator: max */
      double             change2 = 0;
      PetscCall(CCPPackedMark(s));
      ccp_sweep_apgd_scatter(pk, &p, 1.0 / L, vref, gnew, CCP_VELOCITY_V, &r[0], &r[1], &change2);
      PetscCall(CCPPackedSum(s));
      r[3] = ccp_sweep_apgd_gather(pk, &p, gnew, CCP_VELOCITY_V, rnew, &r[2], check);
      if (!check) r[3] = change2 * L * L;
      PetscCall(CCPCouplingReduce(s, r, 4));
      uphill  = r[1];
      dNd     = r[2];
      res_max = sqrt(r[3]);
      if (!(dNd > L * r[0]) || bt == MAX_BACKTRACKS) break;
      L *= s->apgd_L_grow;
      vref = gnew;
    }
    iterations = it;
    indicator  = res_max;
    if (check && !accept(&best, &best_res, gnew, res_max)) break;
    momentum(uphill, &theta, &beta);
    rotate(&gkm1, &gk, gnew);
    rotate(&rkm1, &rk, rnew);
    L *= s->apgd_L_decay;
  }
  PetscCall(apgd_best(pk, P, G[0], &best));
  stats->improved = (PetscBool)(best_res < res_start);
  PetscCall(CCPPackedFinish(s, P, best, iterations, stats));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The fused iteration's state between passes. Seven vectors: the speculative step of the next
 * iteration needs a fourth multiplier buffer while gkm1 must stay for a redo. */
#define APGD_FUSED_VECTORS 7
/* The fused iteration's state between passes. */
typedef struct {
  double           *G[4], *R[3];                          /* multipliers, gradients N gamma + r */
  double           *gk, *gkm1, *gnew, *rk, *rkm1, *rnew; /* gnew: the current iteration's step */
  double           *best;                                 /* NULL: stashed in P->gamma */
  double            L, theta, beta;
  double            dBd, uphill, change2; /* gnew's scatter pass: the first two over all ranks, change2 this rank's */
  CCPVelocityBuffer vel;                  /* holds the velocity of gnew */
} ApgdState;

static CCPApgdPoint apgd_point(const ApgdState *a) { return (CCPApgdPoint){a->gk, a->gkm1, a->rk, a->rkm1, a->beta}; }

/* The scatter pass of the current iteration into gnew at the step 1/L, the velocity buffer moving
 * from the velocity of vref (gk, or gnew itself after a failed step test) to that of gnew. */
static PetscErrorCode apgd_scatter(CCPSolver s, ApgdState *a, const double *vref)
{
  const CCPApgdPoint p    = apgd_point(a);
  double             r[4] = {0, 0, 0, 0}; /* |d|_B^-1^2, uphill: sums (4 entries as the gather's reduction) */

  PetscFunctionBegin;
  PetscCall(CCPPackedMarkBuffer(s, a->vel));
  ccp_sweep_apgd_scatter(&s->pk, &p, 1.0 / a->L, vref, a->gnew, a->vel, &r[0], &r[1], &a->change2);
  PetscCall(CCPPackedSumBuffer(s, a->vel));
  PetscCall(CCPCouplingReduce(s, r, 4));
  a->dBd    = r[0];
  a->uphill = r[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The buffer for the next iteration's step: none of gkm1 (a failed step test redoes the current
 * step from it), gk, gnew, best (apgd_free_buffer: no fifth multiplier vector). */
static void apgd_next_buffer(const CCPPacked *pk, CCPProblem *P, ApgdState *a, double **gnext) { apgd_free_buffer(pk, P, a->G, 4, a->gkm1, a->gk, a->gnew, &a->best, gnext); }

/* The gather pass of gnew and, when speculate, the next iteration's scatter pass into gnext in the
 * same pass, as if this iteration's step were accepted (beta, L as apgd_move_on makes them), its
 * velocity changes into the other buffer, started as a copy of the current one. r <- the next
 * scatter's dBd and uphill, this gather's dNd and squared residual or indicator (over ranks);
 * next_change2: the next scatter's on this rank. Collective: speculate must be the same on every
 * rank (gnext need not: it may be NULL on a rank without contacts). */
static PetscErrorCode apgd_gather(CCPSolver s, const ApgdState *a, PetscBool check, PetscBool speculate, double *gnext, double r[4], double *next_change2)
{
  CCPPacked         *pk = &s->pk;
  const CCPApgdPoint p  = apgd_point(a);

  PetscFunctionBegin;
  r[0] = r[1] = r[2] = 0;
  if (speculate) {
    const CCPVelocityBuffer next  = ccp_velocity_other(a->vel);
    double                  theta = a->theta, beta = a->beta;
    momentum(a->uphill, &theta, &beta);
    CCPPackedCopyVelocity(pk, a->vel, next);
    PetscCall(CCPPackedMarkBuffer(s, next));
    r[3] = ccp_sweep_apgd_fused(pk, &p, a->gnew, a->vel, a->rnew, &r[2], check, beta, 1.0 / (a->L * s->apgd_L_decay), gnext, &r[0], &r[1], next_change2);
    PetscCall(CCPPackedSumBuffer(s, next));
  } else r[3] = ccp_sweep_apgd_gather(pk, &p, a->gnew, a->vel, a->rnew, &r[2], check);
  if (!check) r[3] = a->change2 * a->L * a->L;
  PetscCall(CCPCouplingReduce(s, r, 4));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After an accepted step: the next iteration, whose step apgd_gather made into gnext. */
static void apgd_move_on(CCPSolver s, ApgdState *a, double *gnext, const double r[4], double next_change2)
{
  momentum(a->uphill, &a->theta, &a->beta);
  rotate(&a->gkm1, &a->gk, a->gnew);
  a->gnew = gnext;
  rotate(&a->rkm1, &a->rk, a->rnew);
  a->rnew = unused_buffer(a->R, 3, a->rk, a->rkm1, NULL, NULL);
  a->L *= s->apgd_L_decay;
  a->dBd     = r[0];
  a->uphill  = r[1];
  a->change2 = next_change2;
  a->vel     = ccp_velocity_other(a->vel);
}

/* APGD with one pass over the contacts per accepted iteration (see the top of the file). */
static PetscErrorCode APGD_PackedFused(CCPSolver s, CCPProblem *P, CCPSolveStats *stats)
{
  CCPPacked   *pk  = &s->pk;
  const double tol = s->tol;
  double       best_res;
  PetscInt     iterations = 0;
  PetscBool    scattered  = PETSC_FALSE; /* the last pass made this iteration's step */
  ApgdState    a          = {.L = s->apgd_L0, .theta = 1, .beta = 0, .vel = CCP_VELOCITY_V};

  PetscFunctionBegin;
  for (int k = 0; k < 4; k++) a.G[k] = pk->g[k];
  for (int k = 0; k < 3; k++) a.R[k] = pk->g[4 + k];
  a.gk = a.gkm1 = a.best = a.G[0];
  a.rk = a.rkm1 = a.R[0];
  PetscCall(apgd_warm_start(s, P, a.gk, a.rk, &best_res));
  const double res_start = best_res;
  double       indicator = best_res;
  for (PetscInt it = 1; it <= s->max_it && best_res > tol; it++) {
    const PetscBool check = apgd_check(s, indicator, best_res, it), speculate = (PetscBool)(it < s->max_it); /* no step beyond the cap */
    double         *gnext = NULL, r[4], res_max = 0, next_change2 = 0;

    if (!scattered) {
      a.gnew = unused_buffer(a.G, 4, a.gk, a.gkm1, a.best, NULL);
      a.rnew = unused_buffer(a.R, 3, a.rk, a.rkm1, NULL, NULL);
      PetscCall(apgd_scatter(s, &a, a.gk));
    }
    if (speculate) apgd_next_buffer(pk, P, &a, &gnext);
    for (int bt = 0;; bt++) {
      PetscCall(apgd_gather(s, &a, check, speculate, gnext, r, &next_change2));
      res_max = sqrt(r[3]);
      if (!(r[2] > a.L * a.dBd) || bt == MAX_BACKTRACKS) break;
      a.L *= s->apgd_L_grow; /* the next step was made from a rejected one: redone by the next gather */
      PetscCall(apgd_scatter(s, &a, a.gnew));
    }
    iterations = it;
    indicator  = res_max;
    if (check && !accept(&a.best, &best_res, a.gnew, res_max)) break;
    scattered = speculate;
    if (scattered) apgd_move_on(s, &a, gnext, r, next_change2);
  }
  PetscCall(apgd_best(pk, P, a.G[0], &a.best));
  stats->improved = (PetscBool)(best_res < res_start);
  PetscCall(CCPPackedFinish(s, P, a.best, iterations, stats));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode APGD_Reference(CCPSolver s, CCPProblem *P, CCPSolveStats *stats)
{
  const PetscInt nc  = P->ncontacts;
  const double   tol = s->tol;
  double         best_res = 0, L = s->apgd_L0, theta = 1, beta = 0, *v = P->vel;
  PetscInt       iterations = 0;

  PetscFunctionBegin;
  PetscCall(CCPSolverEnsureWork(s, P));
  double *const G[4] = {P->gamma, s->work_g[0], s->work_g[1], s->work_g[2]}; /* multipliers */
  double *const R[3] = {s->work_g[3], s->work_g[4], s->work_g[5]};          /* gradients N gamma + r */
  double       *gk = G[0], *gkm1 = G[0], *rk = R[0], *rkm1 = R[0], *best = G[0];
  /* the warm start: its velocity, gradient and residual */
  ccp_velocity_from_impulses(P, gk, v);
  for (PetscInt i = 0; i < nc; i++) {
    const Contact *c = &P->contact[i];
    ccp_kernel_gradient(c, &P->terms[i], v + 6 * (size_t)c->a, v + 6 * (size_t)c->b, ccp_cblock(gk, i), ccp_block(rk, i));
    const double r2 = ccp_kernel_residual2(c, &P->terms[i], ccp_cblock(gk, i), ccp_cblock(rk, i));
    if (!(r2 <= best_res)) best_res = r2;
  }
  best_res               = sqrt(best_res);
  const double res_start = best_res;
  double       indicator = best_res;
  for (PetscInt it = 1; it <= s->max_it && best_res > tol; it++) {
    double         *gnew = unused_buffer(G, 4, gk, gkm1, best, NULL), *rnew = unused_buffer(R, 3, rk, rkm1, NULL, NULL);
    const double   *vref  = gk; /* v is the velocity of vref */
    const PetscBool check = apgd_check(s, indicator, best_res, it);
    double          res_max = 0, uphill = 0;

    for (int bt = 0;; bt++) {
      const double step = 1.0 / L;
      double       dNd = 0, dBd = 0, change2 = 0;
      uphill = 0;
      for (PetscInt i = 0; i < nc; i++) { /* scatter: gamma+, v += M^-1 D (gamma+ - vref), step and restart tests */
        const Contact *c = &P->contact[i];
        const size_t   a = (size_t)c->a, b = (size_t)c->b;
        const double   ima = P->inv_mass[a], imb = P->inv_mass[b], *Ia = P->inv_inertia + 6 * a, *Ib = P->inv_inertia + 6 * b;
        const double  *ref = ccp_cblock(vref, i);
        const double  *xk = ccp_cblock(gk, i);
        double         y[6], gy[6], z[6], d[6], e[6], dg[6], *x = ccp_block(gnew, i);
        CCPMetric      m;

        ccp_kernel_metric(c, &P->terms[i], ima, Ia, imb, Ib, &m);
        extrapolate(xk, ccp_cblock(gkm1, i), beta, y);
        extrapolate(ccp_cblock(rk, i), ccp_cblock(rkm1, i), beta, gy);
        ccp_kernel_step(&m, step, y, gy, z);
        ccp_kernel_project_metric(c, &P->terms[i], &m, z);
        for (int k = 0; k < 6; k++) {
          d[k]  = z[k] - y[k];   /* the step, for the Lipschitz test */
          e[k]  = z[k] - xk[k];  /* the progress, for the restart test */
          dg[k] = z[k] - ref[k]; /* the impulse change; ref may be x itself: read before the write */
          x[k]  = z[k];
        }
        dBd += ccp_kernel_metric_dot(&m, d, d);
        uphill -= ccp_kernel_metric_dot(&m, d, e);
        const double c2 = ccp_kernel_change2(&m, d);
        if (!(c2 <= change2)) change2 = c2;
        ccp_kernel_apply(c, ima, Ia, imb, Ib, dg, v + 6 * a, v + 6 * b);
      }
      res_max = 0;
      for (PetscInt i = 0; i < nc; i++) { /* gather: gr+ at gamma+, step test, residual */
        const Contact *c = &P->contact[i];
        const double  *x = ccp_cblock(gnew, i);
        double        *g = ccp_block(rnew, i), y[6], gy[6];

        ccp_kernel_gradient(c, &P->terms[i], v + 6 * (size_t)c->a, v + 6 * (size_t)c->b, x, g);
        extrapolate(ccp_cblock(gk, i), ccp_cblock(gkm1, i), beta, y);
        extrapolate(ccp_cblock(rk, i), ccp_cblock(rkm1, i), beta, gy);
        for (int k = 0; k < 6; k++) dNd += (x[k] - y[k]) * (g[k] - gy[k]);
        const double r2 = check ? ccp_kernel_residual2(c, &P->terms[i], x, g) : 0;
        if (!(r2 <= res_max)) res_max = r2; /* NaN propagates */
      }
      res_max = sqrt(check ? res_max : change2 * L * L);
      if (!(dNd > L * dBd) || bt == MAX_BACKTRACKS) break;
      L *= s->apgd_L_grow;
      vref = gnew;
    }
    iterations = it;
    indicator  = res_max;
    if (check && !accept(&best, &best_res, gnew, res_max)) break;
    momentum(uphill, &theta, &beta);
    rotate(&gkm1, &gk, gnew);
    rotate(&rkm1, &rk, rnew);
    L *= s->apgd_L_decay;
  }
  stats->improved = (PetscBool)(best_res < res_start);
  ccp_finish(P, best, iterations, tol, stats);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether this solve takes the fused pass: as -ccp_apgd_fused says, else (the default) when some
 * rank's blocks exceed the size from which the sweeps prefetch them (CCP_PREFETCH_BLOCKS_ABOVE, 8 MB):
 * out of cache the fused pass saves one stream of the blocks per iteration (6-dof pile of 10^5:
 * 67-78 against 83-97 ns per contact-iteration), in cache it costs 9-15% more instructions (the
 * speculative scatters that failed step tests drop, the velocity copy). Agreed on every rank (the
 * two passes' collectives differ). Results are the same bits either way. */
static PetscErrorCode apgd_fuse(CCPSolver s, PetscBool *fused)
{
  PetscFunctionBegin;
  if (s->apgd_fused_set) *fused = s->apgd_fused;
  else {
    double r[1] = {s->pk.prefetch_blocks ? 1 : 0}; /* the maximum over the coupled ranks */
    PetscCall(CCPCouplingReduce(s, r, 1));
    *fused = (PetscBool)(r[0] != 0);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolve_APGD(CCPSolver s, CCPProblem *P, CCPSolveStats *stats)
{
  PetscFunctionBegin;
  PetscCheck(s->packed || !CCPCoupled(s), s->comm, PETSC_ERR_SUP, "The reference APGD loops (-ccp_packed false) are single-rank only: drop -ccp_packed false to run on several ranks");
  if (s->packed) {
    PetscBool fused = PETSC_FALSE;
    PetscCall(CCPPackedBuild(&s->pk, P, APGD_PACKED_VECTORS, PETSC_FALSE));
    s->pk.simd = s->simd;
    PetscCall(apgd_fuse(s, &fused));
    if (fused) PetscCall(CCPPackedVectors(&s->pk, APGD_FUSED_VECTORS));
    if (fused) PetscCall(APGD_PackedFused(s, P, stats));
    else PetscCall(APGD_PackedTwoPass(s, P, stats));
  } else PetscCall(APGD_Reference(s, P, stats));
  PetscFunctionReturn(PETSC_SUCCESS);
}
