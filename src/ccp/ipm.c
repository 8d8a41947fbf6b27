/* The interior-point prototype (ccp/ipm.h). Notation of CVXOPT's coneqp with P = N, q = r, h = 0 and
 * its G = -G here (so that s = G g lies in the cones): residuals rx = N g + r - G^T z, rz = s - G g,
 * complementarity s o z = mu e, NT scaling W (symmetric, W z = W^-1 s = lambda), Newton systems
 *     N dg - G^T dz = -rx,   -G dg - W^2 dz = -rz - W q,   q = lambda \ rc,
 * where rc is -lambda o lambda (predictor) or that less dsa o dza plus sigma mu e (corrector, the
 * affine step's scaled directions). Eliminating dz gives (N + H) dg = f with H = G^T W^-2 G,
 * f = -rx + G^T W^-2 (rz + W q); with N = D^T M^-1 D + C and H' = H + C (block diagonal),
 * y = M^-1 D dg solves K y = D H'^-1 f, K = M + D H'^-1 D^T, and dg = H'^-1 (f - D^T y).
 * Then dz = W^-2 (rz + W q - G dg), ds = G dg - rz. */
#include "ccp/ipm.h"
#include "ccp/method.h"
#include "ccp/kernels.h"
#include <petscksp.h>
#include <stdlib.h>
#include <string.h>

#define IPM_ROWS      8    /* cone rows of a 6-dof contact: L3 + L3 + L2 */
#define IPM_STEP      0.99 /* fraction of the step to the cones' boundary */
#define IPM_SIGMA_EXP 3    /* Mehrotra's centering sigma = (1 - affine step)^3 */
#define IPM_BACKOFF   30 /* halvings of a step whose iterate cannot be scaled before the solve stops on the last one */
#define IPM_SCALE_MIN 1e-12
/* When the Newton iterations hand their best iterate to the polish (settings' handover; docs/history/ccp-solver-ipm.md,
 * "The polish in `-ccp_type ipm`, on by default, its own hand-over rule"). Measured on
 * the main job's first impact (step 49), the dumped drop problems and the 32-layer 6-dof bed: along most of the path
 * the GUIDE residual falls like mu^0.3-0.7 (sqrt(mu): no strict complementarity, first impacts and jammed beds
 * alike), and only a strictly complementary end reaches mu^1 (then one or two more Newton iterations finish); near
 * mu ~ 1e-12 rounding stops the iterations or makes them wander for tens of iterations without a new best, where a
 * few APGD iterations from the best iterate finish (3 on step 49). The rate alone cannot choose the moment (it is
 * below 0.75 from the second iteration on, when APGD from the iterate would cost as much as APGD alone on a deep
 * bed), so the slow rule also needs the iterate near the tolerance: IPM_HANDOVER_NEAR times it, the hand-over point
 * measured fastest on the 32-layer bed at 1e-4 m/s (IPM to 1e-3, then APGD). */
#define IPM_HANDOVER_NEAR 10   /* the slow rule applies at a residual of at most this times the tolerance */
#define IPM_HANDOVER_RATE 0.75 /* slow: res_prev / res < (mu_prev / mu)^this, mu falling, two iterations running */
#define IPM_STALL         5    /* Newton iterations without a new best residual (below the start's) ... */
/* ... once mu <= IPM_STALL_MU mu0: along the first iterations from a far start the residual may rise for several
 * iterations while mu falls (measured: 7 on the 32-layer bed; 3 on a pouring step of the main job, from 12 to
 * 64 m/s), and the best residual of that phase is no place to hand over (APGD's 300 from that step's 12 m/s ended at
 * 1.2e-3 m/s). */
#define IPM_STALL_MU 1e-6
/* The start's shift (ccp/ipm.h start_shift): on a settled 2048-sphere 3-dof bed, cold and warm, 0.1, 1, 10
 * and 100 took 31, 20 / 14, 15 and 18 iterations to 1e-4 m/s (docs/history/ccp-solver-ipm.md). */
#define IPM_START_SHIFT 10.0
/* A cone direction is stiff (the census, the clusters of the cluster preconditioner) when its stiffness in K
 * exceeds this many times the contact's effective mass; a cluster block has at most IPM_CLUSTER_MAX bodies
 * (dense factors: 6 n x 6 n each). */
#define IPM_STIFF       1e3
#define IPM_CLUSTER_MAX 64

/* *max <- x where x is larger (a NaN x propagates) */
static inline void keep_max(double *max, double x)
{
  if (!(x <= *max)) *max = x;
}

/* Row k of G_i picks multiplier col[k] of the contact and scales it by coef[k] (one entry per row),
 * and the rows form cones of dims dim[0 .. ncones). A block of multipliers whose coefficient is 0
 * (a frictionless wall's tangential pair) is held at 0: no cone, its columns not `used`; when no
 * block has a cone, gn >= 0 is a cone of dimension 1. */
typedef struct {
  int rows, ncones, dim[3], kind[3], col[IPM_ROWS], used[6]; /* kind: the block of a cone (0 friction, 1 rolling,
                                                                2 spinning) */
  double coef[IPM_ROWS];
} ConeMap;

static void cone_map(const Contact *c, ConeMap *m)
{
  const int    six = contact_dof(c) == 6, nblk = six ? 3 : 1;
  const double cf[3]       = {c->mu, c->rho, c->sigma};
  const int    bcols[3][2] = {{1, 2}, {4, 5}, {3, -1}};

  *m         = (ConeMap){.rows = 0};
  m->used[0] = 1;
  for (int k = 0; k < nblk; k++) {
    if (!(cf[k] > 0)) continue;
    m->col[m->rows]    = 0;
    m->coef[m->rows++] = cf[k];
    m->dim[m->ncones]  = 1;
    m->kind[m->ncones] = k;
    for (int l = 0; l < 2 && bcols[k][l] >= 0; l++) {
      m->col[m->rows]      = bcols[k][l];
      m->coef[m->rows++]   = 1;
      m->used[bcols[k][l]] = 1;
      m->dim[m->ncones]++;
    }
    m->ncones++;
  }
  if (!m->ncones) {
    m->col[0]  = 0;
    m->coef[0] = 1;
    m->dim[0]  = 1;
    m->kind[0] = 0;
    m->rows = m->ncones = 1;
  }
}

/* ---- Second-order cones L^n = {x0 >= |x1|} ---- */

static inline double jdot(const double *x, const double *y, int n)
{
  double s = x[0] * y[0];
  for (int k = 1; k < n; k++) s -= x[k] * y[k];
  return s;
}

/* x o y (Jordan product) into r */
static inline void jprod(const double *x, const double *y, int n, double *r)
{
  double d = 0;
  for (int k = 0; k < n; k++) d += x[k] * y[k];
  for (int k = 1; k < n; k++) r[k] = x[0] * y[k] + y[0] * x[k];
  r[0] = d;
}

/* x with l o x = r (l interior) */
static inline void jsolve(const double *l, const double *r, int n, double *x)
{
  double t = l[0] * r[0];
  for (int k = 1; k < n; k++) t -= l[k] * r[k];
  x[0] = t / jdot(l, l, n);
  for (int k = 1; k < n; k++) x[k] = (r[k] - x[0] * l[k]) / l[0];
}

/* The largest a >= 0 with x + a d in L^n (x interior); INFINITY when unbounded: the smallest positive
 * root of (x0 + a d0)^2 - |x1 + a d1|^2 on the branch x0 + a d0 >= 0. */
static inline double max_step(const double *x, const double *d, int n)
{
  const double a = jdot(d, d, n), b = jdot(x, d, n), c = jdot(x, x, n), disc = b * b - a * c;
  if (a < 0 || (b < 0 && disc >= 0)) return c / (-b + sqrt(PetscMax(disc, 0)));
  return INFINITY;
}

/* NT scaling of one cone: W = beta (2 v v^T - J) with W^2 z = s, lambda = W z (CVXOPT's compute_scaling). */
static inline void nt_scaling(const double *s, const double *z, int n, double *beta, double *v, double *lam)
{
  const double as = sqrt(jdot(s, s, n)), az = sqrt(jdot(z, z, n));
  double       sb[3] = {0}, zb[3] = {0}, vz;
  for (int k = 0; k < n; k++) {
    sb[k] = s[k] / as;
    zb[k] = z[k] / az;
  }
  double sz = 0;
  for (int k = 0; k < n; k++) sz += sb[k] * zb[k];
  /* the normalized scaling point wb = (sb + J zb) / (2 cc), then v = its square root (wb + e) / |...| */
  const double cc = sqrt(0.5 * (sz + 1)), w0 = (sb[0] + zb[0]) / (2 * cc), d = sqrt(2 * (w0 + 1));
  v[0] = (w0 + 1) / d;
  for (int k = 1; k < n; k++) v[k] = (sb[k] - zb[k]) / (2 * cc * d);
  *beta = sqrt(as / az);
  vz    = 0;
  for (int k = 0; k < n; k++) vz += v[k] * z[k];
  lam[0] = *beta * (2 * v[0] * vz - z[0]);
  for (int k = 1; k < n; k++) lam[k] = *beta * (2 * v[k] * vz + z[k]);
}

/* y = W x (inverse: W^-1 x = (2 J v v^T J - J) x / beta) */
static inline void nt_apply(double beta, const double *v, const double *x, int n, PetscBool inverse, double *y)
{
  double t = 0;
  if (!inverse) {
    for (int k = 0; k < n; k++) t += v[k] * x[k];
    y[0] = beta * (2 * v[0] * t - x[0]);
    for (int k = 1; k < n; k++) y[k] = beta * (2 * v[k] * t + x[k]);
  } else {
    t    = jdot(v, x, n);
    y[0] = (2 * v[0] * t - x[0]) / beta;
    for (int k = 1; k < n; k++) y[k] = (-2 * v[k] * t + x[k]) / beta;
  }
}

/* ---- Small dense helpers ---- */

/* In place: the inverse of the SPD n x n matrix A (row-major, leading dimension 6) by Cholesky;
 * false if A is not numerically positive definite. */
static PetscBool spd_invert(double *A, int n)
{
  double L[36] = {0}, Li[36] = {0};
  for (int j = 0; j < n; j++) {
    double d = A[6 * j + j];
    for (int k = 0; k < j; k++) d -= L[6 * j + k] * L[6 * j + k];
    if (!(d > 0)) return PETSC_FALSE;
    L[6 * j + j] = sqrt(d);
    for (int i = j + 1; i < n; i++) {
      double t = A[6 * i + j];
      for (int k = 0; k < j; k++) t -= L[6 * i + k] * L[6 * j + k];
      L[6 * i + j] = t / L[6 * j + j];
    }
  }
  for (int j = 0; j < n; j++) { /* Li = L^-1, lower triangular */
    Li[6 * j + j] = 1 / L[6 * j + j];
    for (int i = j + 1; i < n; i++) {
      double t = 0;
      for (int k = j; k < i; k++) t -= L[6 * i + k] * Li[6 * k + j];
      Li[6 * i + j] = t / L[6 * i + i];
    }
  }
  for (int i = 0; i < n; i++) /* A^-1 = Li^T Li */
    for (int j = 0; j <= i; j++) {
      double t = 0;
      for (int k = i; k < n; k++) t += Li[6 * k + i] * Li[6 * k + j];
      A[6 * i + j] = A[6 * j + i] = t;
    }
  return PETSC_TRUE;
}

/* In place: A (6 x 6, row-major) <- the inverse of its block of the used rows and columns, 0 elsewhere. */
static PetscBool spd_invert_used(double *A, const int used[6])
{
  double B[36];
  int    idx[6], n = 0;
  for (int k = 0; k < 6; k++)
    if (used[k]) idx[n++] = k;
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++) B[6 * a + b] = A[6 * idx[a] + idx[b]];
  if (!spd_invert(B, n)) return PETSC_FALSE;
  for (int a = 0; a < 36; a++) A[a] = 0;
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++) A[6 * idx[a] + idx[b]] = B[6 * a + b];
  return PETSC_TRUE;
}

/* The inverse of a symmetric 3x3 (xx, yy, zz, xy, xz, yz) as a full 3x3; zero if it is singular. */
static void sym3_inverse(const double S[6], double I[9])
{
  const double c00 = S[1] * S[2] - S[5] * S[5], c01 = S[4] * S[5] - S[3] * S[2], c02 = S[3] * S[5] - S[4] * S[1];
  const double c11 = S[0] * S[2] - S[4] * S[4], c12 = S[3] * S[4] - S[0] * S[5], c22 = S[0] * S[1] - S[3] * S[3];
  const double det = S[0] * c00 + S[3] * c01 + S[4] * c02;
  const double f   = det > 0 ? 1 / det : 0;
  I[0]             = f * c00;
  I[1] = I[3] = f * c01;
  I[2] = I[6] = f * c02;
  I[4]        = f * c11;
  I[5] = I[7] = f * c12;
  I[8]        = f * c22;
}

/* ---- The solver's state over one solve ---- */

/* The cluster block-Jacobi preconditioner's state (settings' cluster_pc): blocks of K's rows (6 per body of
 * a cluster), each factored by profile Cholesky with its bodies ordered along the cluster's longest extent (settings'
 * cluster_dense: densely, in body order); with settings' cluster_coarse, the coarse correction on the clusters'
 * rigid-body vectors (the prolongation P, K P, A_c = P^T K P factored by the KSP `coarse`) and its work vectors. */
typedef struct {
  PetscInt  nblk, *start, *rows; /* block b: rows[start[b] .. start[b + 1]) */
  size_t   *foff;                /* block b's factor at fac + foff[b] (dense row-major storage, n x n) */
  PetscInt *fst;                 /* per entry of rows: the first column of its row's envelope within its block */
  double   *fac, *work;
  PetscBool dense;        /* settings' cluster_dense: dense factors, bodies in body order */
  PetscBool check;        /* settings' cluster_check */
  double    check_err;    /* with check: the largest relative difference of the factors' solves from dense ones */
  PetscInt  largest;      /* the largest block's bodies (the monitor's) */
  PetscInt  coarse;       /* settings' cluster_coarse: 0 none, 1 multiplicative, 2 additive */
  PetscBool strongest;    /* settings' cluster_strongest */
  PetscBool failed;       /* the last set-up met a block that is not numerically positive definite (unusable) */
  PetscInt  ncoarse;      /* clusters with coarse columns (>= 2 bodies); 0: no coarse correction this iteration */
  Mat       K, P, KP, Ac; /* K borrowed from the solver; the others owned */
  KSP       ksp_coarse;
  Vec       xc, ec, r, z, t; /* coarse: P^T x and A_c^-1 of it; fine: work */
} ClusterPC;

typedef struct {
  CCPProblem   *P;
  PetscInt      nc, nb, nmov, nrows, ncones;
  PetscInt     *unknown; /* per solver body: its block row of K, -1 when immovable */
  PetscInt     *off;     /* per contact: its first cone row; off[nc] = nrows */
  double       *J;       /* per contact: 72 doubles, J_A then J_B (dof x 6 each, rows of 6; u = J_A v_A + J_B v_B) */
  double       *Hinv;    /* per contact: H'^-1, 6 x 6 (dof x dof used) */
  double       *s, *z, *lam; /* cone rows */
  double       *beta, *wv;   /* NT scaling: beta at each cone's first row, v at its rows */
  double       *rz, *q, *t;  /* cone rows: rz; lambda \ rc; rz + W q */
  double       *ds, *dz, *dsa, *dza, *rc;
  double       *rx, *f, *dg;  /* CONTACT_DOF_MAX per contact */
  double       *vel;          /* 6 per solver body */
  double       *s0, *z0, *g0; /* the last iterate that was scaled, for a step's back-off */
  Mat           K;
  Vec           b, y, yp;
  KSP           ksp, probe;  /* probe: NULL unless asked for */
  PetscInt      probe_its;   /* this iteration's probe KSP iterations (the monitor's) */
  double        rtol_min;    /* the first KSP's relative tolerance from the options (the adaptive one's floor) */
  const double *centre;      /* settings' centre (the coarse space's rigid-body vectors), or NULL */
  KSP           cluster_ksp; /* the KSP whose preconditioner is cpc (settings' cluster_pc), or NULL */
  ClusterPC     cpc;
  double        cluster_ratio;
  PetscInt      cluster_max;
  CCPIpmStats  *st;
} Ipm;

/* The contact's Jacobian blocks from the relative-velocity kernel (column k: the response to a unit
 * velocity entry k of A, then of B). */
static void contact_jacobian(const Contact *c, double *JA, double *JB)
{
  double zero[6] = {0}, e[6], u[6];
  for (int k = 0; k < 6; k++) {
    for (int l = 0; l < 6; l++) e[l] = l == k;
    ccp_kernel_relative_velocity(c, e, zero, u);
    for (int r = 0; r < 6; r++) JA[6 * r + k] = u[r];
    ccp_kernel_relative_velocity(c, zero, e, u);
    for (int r = 0; r < 6; r++) JB[6 * r + k] = u[r];
  }
}

static PetscErrorCode IpmCheckProblem(const CCPProblem *P)
{
  PetscFunctionBegin;
  PetscCheck(!P->body && P->inv_mass && P->vel_free && P->terms && P->vel, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "CCPIpmSolve needs the problem's bodies and terms as arrays and an output velocity buffer");
  for (PetscInt i = 0; i < P->ncontacts; i++) {
    const Contact         *c = &P->contact[i];
    const CCPContactTerms *t = &P->terms[i];
    PetscCheck(!c->box, PETSC_COMM_SELF, PETSC_ERR_SUP,
               "CCPIpmSolve: contact %" PetscInt_FMT " is a joint block: the"
               " interior-point prototype has no boxed rows",
               i);
    PetscCheck(t->cohesion_impulse == 0 && t->yield_impulse == 0, PETSC_COMM_SELF, PETSC_ERR_SUP,
               "CCPIpmSolve: contact %" PetscInt_FMT " has cohesion or a yield force: the prototype's cones start at"
               " gn = 0 and are unbounded",
               i);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Root of body j's cluster (union-find with path halving) */
static PetscInt uf_find(PetscInt *parent, PetscInt j)
{
  while (parent[j] != j) j = parent[j] = parent[parent[j]];
  return j;
}

/* Contact i's cone directions (*nd) and how many of them are stiff (*ns) at the current scaling (IpmScaling
 * done): a cone's W^2 has the eigenvalues beta^2 (v0 + |v1|)^4 and beta^2 (v0 - |v1|)^4 in the plane of its
 * axis and beta^2 across it; a direction is stiff when that stiffness exceeds `ratio` times the contact's own
 * effective mass (3 / trace of its force or torque rows of D^T M^-1 D): the bodies move together along it.
 * *kmax (may be NULL): out, the largest of those stiffnesses in units of the effective mass. */
static void contact_stiffness(const Ipm *ip, PetscInt i, double ratio, PetscInt *ns, PetscInt *nd, double *kmax)
{
  const CCPProblem *P = ip->P;
  const Contact    *c = &P->contact[i];
  ConeMap           m;
  PetscInt          r = ip->off[i];
  double            tf, tt;

  *ns = *nd = 0;
  if (kmax) *kmax = 0;
  cone_map(c, &m);
  ccp_kernel_traces(c, &P->terms[i], P->inv_mass[c->a], P->inv_inertia + 6 * c->a, P->inv_mass[c->b],
                    P->inv_inertia + 6 * c->b, &tf, &tt);
  for (int k = 0; k < m.ncones; k++) {
    const int     n = m.dim[k];
    const double *v = ip->wv + r, b2 = ip->beta[r] * ip->beta[r], scale = (m.kind[k] ? tt : tf) / 3;
    double        v1 = 0, eig[3];
    int           ne = 0;
    for (int l = 1; l < n; l++) v1 += v[l] * v[l];
    v1 = sqrt(v1);
    if (n == 1) eig[ne++] = b2;
    else {
      eig[ne++] = b2 * PetscPowReal(v[0] + v1, 4);
      eig[ne++] = b2 * PetscPowReal(v[0] - v1, 4);
      if (n == 3) eig[ne++] = b2;
    }
    for (int l = 0; l < ne; l++) {
      *ns += eig[l] * scale > ratio;
      if (kmax) keep_max(kmax, eig[l] * scale);
    }
    *nd += ne;
    r += n;
  }
}

typedef struct {
  PetscReal key;
  PetscInt  value;
} KeyedValue;

static int CompareKeyedValues(const void *x, const void *y)
{
  const KeyedValue *a = x, *b = y;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return (a->value > b->value) - (a->value < b->value);
}

/* value[0..n) (and key with it) sorted by key, ascending, equal keys by value: a total order, so the result does
 * not depend on the sort's algorithm. Not PETSc's PetscSortRealWithArrayInt: its quicksort recurses as deep as a
 * fraction of n when the keys are all equal (a cold start, where every contact of a uniform bed has the same
 * stiffness: 200,000 contacts, 130,000 levels, overflowed the stack; tests/ccp/test_ipm_big_cold.sh). */
static PetscErrorCode SortByKey(PetscInt n, PetscReal *key, PetscInt *value)
{
  KeyedValue *kv;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, &kv));
  for (PetscInt i = 0; i < n; i++) kv[i] = (KeyedValue){key[i], value[i]};
  qsort(kv, (size_t)n, sizeof(*kv), CompareKeyedValues);
  for (PetscInt i = 0; i < n; i++) {
    key[i]   = kv[i].key;
    value[i] = kv[i].value;
  }
  PetscCall(PetscFree(kv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Clusters of movable bodies joined by contacts, a union refused when the cluster would exceed max_size bodies
 * (<= 0: no limit). The joining contacts: strongest false, the stuck ones (every direction stiff at `ratio`,
 * contact_stiffness) in contact order; strongest true, those with any direction stiff at `ratio`, the stiffest
 * first (so that the cap cuts the softest of them). parent, size (nb): out, the union-find forest over solver
 * bodies and its roots' sizes; anchored (nb, may be NULL): out, 1 for a movable body with a joining contact to
 * an immovable one; *njoin: out, the number of joining contacts. */
static PetscErrorCode IpmClusters(const Ipm *ip, double ratio, PetscInt max_size, PetscBool strongest, PetscInt *parent,
                                  PetscInt *size, PetscInt *anchored, PetscInt *njoin)
{
  const CCPProblem *P = ip->P;
  PetscInt         *order;
  PetscReal        *key;

  PetscFunctionBegin;
  for (PetscInt j = 0; j < ip->nb; j++) {
    parent[j] = j;
    size[j]   = 1;
    if (anchored) anchored[j] = 0;
  }
  PetscCall(PetscMalloc2(ip->nc, &order, ip->nc, &key));
  *njoin = 0;
  for (PetscInt i = 0; i < ip->nc; i++) {
    PetscInt ns, nd;
    double   kmax;
    contact_stiffness(ip, i, ratio, &ns, &nd, &kmax);
    if (strongest ? ns > 0 : ns == nd) {
      key[*njoin]       = -kmax;
      order[(*njoin)++] = i;
    }
  }
  if (strongest) PetscCall(SortByKey(*njoin, key, order));
  for (PetscInt k = 0; k < *njoin; k++) {
    const Contact *c  = &P->contact[order[k]];
    const PetscInt ra = ip->unknown[c->a], rb = ip->unknown[c->b];
    if (ra >= 0 && rb >= 0) {
      const PetscInt x = uf_find(parent, c->a), y = uf_find(parent, c->b);
      if (x != y && (max_size <= 0 || size[x] + size[y] <= max_size)) {
        parent[x] = y;
        size[y] += size[x];
      }
    } else if (anchored) anchored[ra >= 0 ? c->a : c->b] = 1;
  }
  PetscCall(PetscFree2(order, key));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The monitor's census of K's stiff part at the current scaling: stiff directions (contact_stiffness at
 * IPM_STIFF), stuck contacts (every direction stiff), and the clusters of movable bodies they join (the
 * rigid clusters whose motions the near-null space of ccp/ipm.h describes), anchored when one of their
 * bodies has a stuck contact with an immovable body. One line on stdout. */
static PetscErrorCode IpmCensus(const Ipm *ip)
{
  PetscInt *parent, *size, *anchored, dirs = 0, stiff = 0, clusters = 0, in_clusters = 0, largest = 0, anch = 0, stuck;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(ip->nb, &parent, ip->nb, &size, ip->nb, &anchored));
  for (PetscInt i = 0; i < ip->nc; i++) {
    PetscInt ns, nd;
    contact_stiffness(ip, i, IPM_STIFF, &ns, &nd, NULL);
    dirs += nd;
    stiff += ns;
  }
  PetscCall(IpmClusters(ip, IPM_STIFF, 0, PETSC_FALSE, parent, size, anchored, &stuck));
  for (PetscInt j = 0; j < ip->nb; j++)
    if (ip->unknown[j] >= 0 && anchored[j]) anchored[uf_find(parent, j)] |= 2;
  for (PetscInt j = 0; j < ip->nb; j++)
    if (ip->unknown[j] >= 0 && parent[j] == j && size[j] >= 2) {
      clusters++;
      in_clusters += size[j];
      largest = PetscMax(largest, size[j]);
      anch += (anchored[j] & 2) != 0;
    }
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "      census: stiff directions %" PetscInt_FMT " of %" PetscInt_FMT
                        " (6 x movable bodies = %" PetscInt_FMT "), stuck contacts %" PetscInt_FMT " of %" PetscInt_FMT
                        ", clusters of >= 2 bodies %" PetscInt_FMT " (%" PetscInt_FMT " bodies, largest %" PetscInt_FMT
                        ", anchored %" PetscInt_FMT ")\n",
                        stiff, dirs, 6 * ip->nmov, stuck, ip->nc, clusters, in_clusters, largest, anch));
  PetscCall(PetscFree3(parent, size, anchored));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- The cluster block-Jacobi preconditioner (settings' cluster_pc) ---- */

/* In place: the lower Cholesky factor of the SPD n x n matrix A (row-major); false if not positive definite. */
static PetscBool dense_cholesky(double *A, PetscInt n)
{
  for (PetscInt j = 0; j < n; j++) {
    double d = A[n * j + j];
    for (PetscInt k = 0; k < j; k++) d -= A[n * j + k] * A[n * j + k];
    if (!(d > 0)) return PETSC_FALSE;
    d            = sqrt(d);
    A[n * j + j] = d;
    for (PetscInt i = j + 1; i < n; i++) {
      double t = A[n * i + j];
      for (PetscInt k = 0; k < j; k++) t -= A[n * i + k] * A[n * j + k];
      A[n * i + j] = t / d;
    }
  }
  return PETSC_TRUE;
}

/* x <- (L L^T)^-1 x for the factor L of dense_cholesky */
static void dense_cholesky_solve(const double *L, PetscInt n, double *x)
{
  for (PetscInt i = 0; i < n; i++) {
    double t = x[i];
    for (PetscInt k = 0; k < i; k++) t -= L[n * i + k] * x[k];
    x[i] = t / L[n * i + i];
  }
  for (PetscInt i = n - 1; i >= 0; i--) {
    double t = x[i];
    for (PetscInt k = i + 1; k < n; k++) t -= L[n * k + i] * x[k];
    x[i] = t / L[n * i + i];
  }
}

/* In place: the lower Cholesky factor of the SPD n x n matrix A (row-major) whose row i is zero left of column
 * fst[i] <= i (its envelope); the factor keeps that envelope, and only entries inside it are read or written (the
 * rest of A is left as it was). Work ~ sum_i (i - fst[i])^2 instead of n^3 / 3. False if not positive definite. */
static PetscBool profile_cholesky(double *A, PetscInt n, const PetscInt *fst)
{
  for (PetscInt i = 0; i < n; i++) {
    double *Li = A + n * i;
    for (PetscInt j = fst[i]; j < i; j++) {
      const double *Lj = A + n * j;
      double        t  = Li[j];
      for (PetscInt k = PetscMax(fst[i], fst[j]); k < j; k++) t -= Li[k] * Lj[k];
      Li[j] = t / Lj[j];
    }
    double d = Li[i];
    for (PetscInt k = fst[i]; k < i; k++) d -= Li[k] * Li[k];
    if (!(d > 0)) return PETSC_FALSE;
    Li[i] = sqrt(d);
  }
  return PETSC_TRUE;
}

/* x <- (L L^T)^-1 x for the factor L of profile_cholesky (the same fst) */
static void profile_cholesky_solve(const double *L, PetscInt n, const PetscInt *fst, double *x)
{
  for (PetscInt i = 0; i < n; i++) {
    const double *Li = L + n * i;
    double        t  = x[i];
    for (PetscInt k = fst[i]; k < i; k++) t -= Li[k] * x[k];
    x[i] = t / Li[i];
  }
  for (PetscInt i = n - 1; i >= 0; i--) {
    const double *Li = L + n * i;
    const double  t  = x[i] / Li[i];
    x[i]             = t;
    for (PetscInt k = fst[i]; k < i; k++) x[k] -= Li[k] * t;
  }
}

/* The KSPs' defaults without options (settings' cluster_pc): CG to a relative tolerance of 1e-8 (the adaptive
 * tolerance's floor) with at most 200 iterations per solve; the measured path needs at most 7
 * (docs/history/ccp-solver-ipm.md). */
#define IPM_KSP_RTOL   1e-8
#define IPM_KSP_MAX_IT 200

/* *ksp <- a sequential KSP of options prefix `prefix` (-ccp_ipm_ or the probe's -ccp_ipm_probe_), its options
 * applied over a default: with `cluster`, CG whose preconditioner is a PCSHELL that IpmCreate makes the cluster block
 * Jacobi; else, for the first KSP (!probe), a direct solve, PREONLY + Cholesky (CHOLMOD where PETSc has it), and for
 * the probe CG + GAMG to 1e-6. Not collective; the caller destroys it. */
static PetscErrorCode IpmKSPCreate(const char *prefix, PetscBool cluster, PetscBool probe, KSP *ksp)
{
  PC pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_SELF, ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, prefix));
  PetscCall(KSPGetPC(*ksp, &pc));
  if (cluster) {
    PetscCall(KSPSetType(*ksp, KSPCG));
    PetscCall(PCSetType(pc, PCSHELL));
    PetscCall(KSPSetTolerances(*ksp, IPM_KSP_RTOL, PETSC_DEFAULT, PETSC_DEFAULT, IPM_KSP_MAX_IT));
  } else if (probe) {
    PetscCall(KSPSetType(*ksp, KSPCG));
    PetscCall(PCSetType(pc, PCGAMG));
    PetscCall(KSPSetTolerances(*ksp, 1e-6, PETSC_DEFAULT, PETSC_DEFAULT, 10000));
  } else {
    PetscCall(KSPSetType(*ksp, KSPPREONLY));
    PetscCall(PCSetType(pc, PCCHOLESKY));
#if defined(PETSC_HAVE_SUITESPARSE)
    PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERCHOLMOD));
#endif
  }
  PetscCall(KSPSetFromOptions(*ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether ksp's preconditioner is a PCSHELL: the cluster block Jacobi (IpmKSPCreate) */
static PetscErrorCode IpmKSPIsCluster(KSP ksp, PetscBool *cluster)
{
  PC pc;

  PetscFunctionBegin;
  *cluster = PETSC_FALSE;
  if (!ksp) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCSHELL, cluster));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The solve's KSPs as IpmCreate makes them (*probe NULL unless settings' probe), their options checked: the cluster
 * block Jacobi on at most one of them, and a PREONLY KSP only with a factorization. The caller destroys both. */
static PetscErrorCode IpmKSPsCreate(const CCPIpmSettings *set, KSP *ksp, KSP *probe)
{
  PetscBool   cm, cp, preonly;
  const char *pct;
  PC          pc;

  PetscFunctionBegin;
  *probe = NULL;
  PetscCall(IpmKSPCreate("ccp_ipm_", (PetscBool)(set->cluster_pc && !set->probe), PETSC_FALSE, ksp));
  if (set->probe) PetscCall(IpmKSPCreate("ccp_ipm_probe_", set->cluster_pc, PETSC_TRUE, probe));
  PetscCall(IpmKSPIsCluster(*ksp, &cm));
  PetscCall(IpmKSPIsCluster(*probe, &cp));
  PetscCheck(!(cm && cp), PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
             "-ccp_ipm_pc_type and -ccp_ipm_probe_pc_type are both shell (the cluster block Jacobi), which only one "
             "KSP may use: give the probe another -ccp_ipm_probe_pc_type (gamg)");
  PetscCall(PetscObjectTypeCompare((PetscObject)*ksp, KSPPREONLY, &preonly));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCGetType(pc, &pct));
  PetscCheck(!preonly || cm == PETSC_FALSE, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
             "-ccp_ipm_ksp_type preonly applies the cluster block Jacobi once, not a solve: add -ccp_ipm_pc_type "
             "cholesky (a direct solve) or drop -ccp_ipm_ksp_type");
  PetscCheck(!preonly || (pct && (!strcmp(pct, PCCHOLESKY) || !strcmp(pct, PCLU))), PETSC_COMM_SELF,
             PETSC_ERR_ARG_INCOMP,
             "-ccp_ipm_ksp_type preonly with -ccp_ipm_pc_type %s is not a solve of the Newton system: give "
             "-ccp_ipm_pc_type cholesky (or lu)",
             pct ? pct : "none");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y <- B x, the block-Jacobi part (every row of K lies in one block) */
static PetscErrorCode ClusterBlocksApply(ClusterPC *cp, Vec x, Vec y)
{
  const PetscScalar *xv;
  PetscScalar       *yv;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(x, &xv));
  PetscCall(VecGetArray(y, &yv));
  for (PetscInt b = 0; b < cp->nblk; b++) {
    const PetscInt n = cp->start[b + 1] - cp->start[b], *r = cp->rows + cp->start[b];
    for (PetscInt k = 0; k < n; k++) cp->work[k] = xv[r[k]];
    if (cp->dense) dense_cholesky_solve(cp->fac + cp->foff[b], n, cp->work);
    else profile_cholesky_solve(cp->fac + cp->foff[b], n, cp->fst + cp->start[b], cp->work);
    for (PetscInt k = 0; k < n; k++) yv[r[k]] = cp->work[k];
  }
  PetscCall(VecRestoreArrayRead(x, &xv));
  PetscCall(VecRestoreArray(y, &yv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y <- C x = P A_c^-1 P^T x (ncoarse > 0); uses xc, ec */
static PetscErrorCode ClusterCoarseApply(ClusterPC *cp, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultTranspose(cp->P, x, cp->xc));
  PetscCall(KSPSolve(cp->ksp_coarse, cp->xc, cp->ec));
  PetscCall(MatMult(cp->P, cp->ec, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The PCSHELL's apply: B x; with the coarse space, B x + C x (additive) or C x + (I - C K) B (I - K C) x
 * (multiplicative: coarse, blocks, coarse; K C x from K P and the first coarse solve, K applied once). */
static PetscErrorCode ClusterPCApply(PC pc, Vec x, Vec y)
{
  ClusterPC *cp;

  PetscFunctionBegin;
  PetscCall(PCShellGetContext(pc, &cp));
  if (!cp->ncoarse) {
    PetscCall(ClusterBlocksApply(cp, x, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (cp->coarse == 2) {
    PetscCall(ClusterBlocksApply(cp, x, y));
    PetscCall(ClusterCoarseApply(cp, x, cp->z));
    PetscCall(VecAXPY(y, 1, cp->z));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(ClusterCoarseApply(cp, x, y)); /* y = C x, ec = A_c^-1 P^T x */
  PetscCall(MatMult(cp->KP, cp->ec, cp->r));
  PetscCall(VecAYPX(cp->r, -1, x)); /* r = (I - K C) x */
  PetscCall(ClusterBlocksApply(cp, cp->r, cp->z));
  PetscCall(VecAXPY(y, 1, cp->z));
  PetscCall(MatMult(cp->K, cp->z, cp->t));
  PetscCall(ClusterCoarseApply(cp, cp->t, cp->r));
  PetscCall(VecAXPY(y, -1, cp->r)); /* y = C x + z - C K z */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ClusterPCFree(ClusterPC *cp)
{
  PetscFunctionBegin;
  PetscCall(PetscFree4(cp->start, cp->rows, cp->foff, cp->fst));
  PetscCall(PetscFree2(cp->fac, cp->work));
  PetscCall(MatDestroy(&cp->P));
  PetscCall(MatDestroy(&cp->KP));
  PetscCall(MatDestroy(&cp->Ac));
  PetscCall(KSPDestroy(&cp->ksp_coarse));
  PetscCall(VecDestroy(&cp->xc));
  PetscCall(VecDestroy(&cp->ec));
  PetscCall(VecDestroy(&cp->r));
  PetscCall(VecDestroy(&cp->z));
  PetscCall(VecDestroy(&cp->t));
  cp->nblk = cp->ncoarse = 0;
  cp->failed             = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The coarse space of the blocks of >= 2 bodies (ClusterPCSetUp's first/next lists by root): P's 6 columns per
 * such cluster are its rigid-body vectors about the cluster's centroid c (v_i = e_k, w_i = 0; v_i = e_k x (x_i - c),
 * w_i = e_k, the world frame of the problem's angular velocities); then K P, A_c = P^T (K P), and a KSP of prefix
 * -ccp_ipm_coarse_ (default PREONLY + Cholesky, CHOLMOD where PETSc has it) set up on A_c. Not collective. */
static PetscErrorCode ClusterCoarseSetUp(const Ipm *ip, const PetscInt *first, const PetscInt *next,
                                         const PetscInt *size, ClusterPC *cp)
{
  const PetscInt nrows = 6 * ip->nmov;
  PetscInt       b     = 0;

  PetscFunctionBegin;
  cp->ncoarse = 0;
  for (PetscInt j = 0; j < ip->nb; j++) cp->ncoarse += first[j] >= 0 && size[j] >= 2;
  if (!cp->ncoarse) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, nrows, 6 * cp->ncoarse, 3, NULL, &cp->P));
  for (PetscInt j = 0; j < ip->nb; j++) {
    double c[3] = {0};
    if (first[j] < 0 || size[j] < 2) continue;
    for (PetscInt q = first[j]; q >= 0; q = next[q])
      for (int k = 0; k < 3; k++) c[k] += ip->centre[3 * q + k] / size[j];
    for (PetscInt q = first[j]; q >= 0; q = next[q]) {
      const PetscInt r0 = 6 * ip->unknown[q], c0 = 6 * b;
      const double   d[3] = {ip->centre[3 * q] - c[0], ip->centre[3 * q + 1] - c[1], ip->centre[3 * q + 2] - c[2]};
      for (int k = 0; k < 3; k++) {
        const PetscInt rows[3] = {r0 + k, r0 + (k + 1) % 3, r0 + (k + 2) % 3}, cr = c0 + 3 + k, w = r0 + 3 + k;
        const double   rot[2] = {-d[(k + 2) % 3], d[(k + 1) % 3]}, one = 1;
        PetscCall(MatSetValue(cp->P, rows[0], c0 + k, 1, INSERT_VALUES));        /* translation along e_k */
        PetscCall(MatSetValues(cp->P, 2, rows + 1, 1, &cr, rot, INSERT_VALUES)); /* rotation: v = e_k x d */
        PetscCall(MatSetValues(cp->P, 1, &w, 1, &cr, &one, INSERT_VALUES));      /* w = e_k */
      }
    }
    b++;
  }
  PetscCall(MatAssemblyBegin(cp->P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(cp->P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatMatMult(ip->K, cp->P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &cp->KP));
  PetscCall(MatTransposeMatMult(cp->P, cp->KP, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &cp->Ac));
  PetscCall(MatSetOption(cp->Ac, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(cp->Ac, MAT_SPD, PETSC_TRUE));
  PetscCall(MatCreateVecs(cp->Ac, &cp->ec, &cp->xc));
  PetscCall(MatCreateVecs(ip->K, &cp->r, &cp->z));
  PetscCall(VecDuplicate(cp->r, &cp->t));
  PetscCall(IpmKSPCreate("ccp_ipm_coarse_", PETSC_FALSE, PETSC_FALSE, &cp->ksp_coarse));
  PetscCall(KSPSetErrorIfNotConverged(cp->ksp_coarse, PETSC_TRUE));
  PetscCall(KSPSetOperators(cp->ksp_coarse, cp->Ac, cp->Ac));
  PetscCall(KSPSetUp(cp->ksp_coarse));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The block test vector of settings' cluster_check: a fixed value per row of K, away from zero */
static inline double check_entry(PetscInt row) { return 1 + (double)((row * 7919) % 13) / 13; }

/* The bodies of one cluster (list q = first, next[q], ...) into `body` (*m of them), in body order, or with the
 * centres (not NULL) ordered by their coordinate along the cluster's longest extent (a column of bodies: the
 * vertical; clusters of >= 3 bodies: two give the same envelope either way), so that a block's entries lie near
 * its diagonal. key: work, the cluster's size. */
static PetscErrorCode ClusterOrder(const double *centre, PetscInt first, const PetscInt *next, PetscInt *body,
                                   PetscReal *key, PetscInt *m)
{
  double lo[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL},
         hi[3] = {-PETSC_MAX_REAL, -PETSC_MAX_REAL, -PETSC_MAX_REAL};
  int axis     = 0;

  PetscFunctionBegin;
  *m = 0;
  for (PetscInt q = first; q >= 0; q = next[q]) body[(*m)++] = q;
  if (!centre || *m < 3) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt k = 0; k < *m; k++)
    for (int d = 0; d < 3; d++) {
      lo[d] = PetscMin(lo[d], centre[3 * body[k] + d]);
      hi[d] = PetscMax(hi[d], centre[3 * body[k] + d]);
    }
  for (int d = 1; d < 3; d++)
    if (hi[d] - lo[d] > hi[axis] - lo[axis]) axis = d;
  for (PetscInt k = 0; k < *m; k++) key[k] = centre[3 * body[k] + axis];
  PetscCall(SortByKey(*m, key, body));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* With settings' cluster_check: the largest relative difference (infinity norms) between block b's solve of the
 * test vector by cp's factor and by a dense factor of the same block in body order (rows `orig`, m of them), into
 * cp->check_err. A: work, m x m; y: work, K's rows. */
static PetscErrorCode ClusterCheckBlock(const Ipm *ip, ClusterPC *cp, PetscInt b, const PetscInt *orig, PetscInt m,
                                        double *A, double *y)
{
  const PetscInt *r    = cp->rows + cp->start[b];
  double          dmax = 0, ymax = 0;

  PetscFunctionBegin;
  PetscCall(MatGetValues(ip->K, m, orig, m, orig, A));
  PetscCheck(dense_cholesky(A, m), PETSC_COMM_SELF, PETSC_ERR_FP,
             "CCPIpmSolve: a cluster block of K is not positive definite");
  for (PetscInt k = 0; k < m; k++) cp->work[k] = check_entry(orig[k]);
  dense_cholesky_solve(A, m, cp->work);
  for (PetscInt k = 0; k < m; k++) y[orig[k]] = cp->work[k];
  for (PetscInt k = 0; k < m; k++) cp->work[k] = check_entry(r[k]);
  if (cp->dense) dense_cholesky_solve(cp->fac + cp->foff[b], m, cp->work);
  else profile_cholesky_solve(cp->fac + cp->foff[b], m, cp->fst + cp->start[b], cp->work);
  for (PetscInt k = 0; k < m; k++) {
    dmax = PetscMax(dmax, PetscAbsReal(cp->work[k] - y[r[k]]));
    ymax = PetscMax(ymax, PetscAbsReal(y[r[k]]));
  }
  cp->check_err = PetscMax(cp->check_err, dmax / ymax);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The m x m block of K (SeqAIJ, both triangles stored) on the rows r (row-major into A, zeros where K has no
 * entry), read row by row: O(nonzeros of the rows) instead of a search per entry. loc has one entry per row of
 * K, -1 on entry and on return. Not collective. */
static PetscErrorCode ClusterBlockFromRows(Mat K, PetscInt m, const PetscInt *r, PetscInt *loc, double *A)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < m; i++) loc[r[i]] = i;
  for (PetscInt i = 0; i < m; i++) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           ncols;
    double            *Ai = A + (size_t)m * i;
    for (PetscInt l = 0; l < m; l++) Ai[l] = 0;
    PetscCall(MatGetRow(K, r[i], &ncols, &cols, &vals));
    for (PetscInt l = 0; l < ncols; l++)
      if (loc[cols[l]] >= 0) Ai[loc[cols[l]]] = vals[l];
    PetscCall(MatRestoreRow(K, r[i], &ncols, &cols, &vals));
  }
  for (PetscInt i = 0; i < m; i++) loc[r[i]] = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rebuild the blocks from the current scaling (clusters at `ratio`, at most max_size bodies) and K's values, and
 * the coarse space (cp->coarse > 0: ClusterCoarseSetUp). Each block's bodies are ordered by ClusterOrder (with
 * the centres, unless cp->dense) and its rows factored by profile_cholesky over the envelope found in K's values
 * (cp->dense: dense_cholesky); only the order of the block's entries differs between the two. */
static PetscErrorCode ClusterPCSetUp(const Ipm *ip, double ratio, PetscInt max_size, ClusterPC *cp)
{
  PetscInt  *parent, *size, *first, *next, *body, *orig = NULL, *loc, nrows = 6 * ip->nmov, maxn = 0, njoin;
  PetscReal *key;
  double    *Acheck = NULL, *ycheck = NULL;
  size_t     nfac = 0;

  PetscFunctionBegin;
  PetscCall(ClusterPCFree(cp));
  PetscCall(PetscMalloc6(ip->nb, &parent, ip->nb, &size, ip->nb, &first, ip->nb, &next, ip->nb, &body, ip->nb, &key));
  PetscCall(IpmClusters(ip, ratio, max_size, cp->strongest, parent, size, NULL, &njoin));
  for (PetscInt j = 0; j < ip->nb; j++) first[j] = next[j] = -1;
  for (PetscInt j = ip->nb - 1; j >= 0; j--) /* bodies of each root, in body order */
    if (ip->unknown[j] >= 0) {
      const PetscInt x = uf_find(parent, j);
      next[j]          = first[x];
      first[x]         = j;
    }
  cp->largest = 0;
  for (PetscInt j = 0; j < ip->nb; j++)
    if (first[j] >= 0) {
      cp->nblk++;
      nfac += (size_t)36 * size[j] * size[j];
      maxn        = PetscMax(maxn, 6 * size[j]);
      cp->largest = PetscMax(cp->largest, size[j]);
    }
  PetscCall(PetscMalloc4(cp->nblk + 1, &cp->start, nrows, &cp->rows, cp->nblk + 1, &cp->foff, nrows, &cp->fst));
  PetscCall(PetscMalloc2(nfac, &cp->fac, maxn, &cp->work));
  if (cp->check) PetscCall(PetscMalloc3(maxn, &orig, (size_t)maxn * maxn, &Acheck, nrows, &ycheck));
  PetscCall(PetscMalloc1(nrows, &loc));
  for (PetscInt i = 0; i < nrows; i++) loc[i] = -1;
  cp->check_err = 0;
  PetscInt b = 0, n = 0;
  cp->start[0] = 0;
  cp->foff[0]  = 0;
  for (PetscInt j = 0; j < ip->nb; j++) {
    PetscInt nbody;
    if (first[j] < 0) continue;
    PetscCall(ClusterOrder(cp->dense ? NULL : ip->centre, first[j], next, body, key, &nbody));
    for (PetscInt q = 0; q < nbody; q++)
      for (int k = 0; k < 6; k++) cp->rows[n++] = 6 * ip->unknown[body[q]] + k;
    const PetscInt m = n - cp->start[b], *r = cp->rows + cp->start[b];
    PetscInt      *fst = cp->fst + cp->start[b];
    double        *A   = cp->fac + cp->foff[b];
    PetscCall(ClusterBlockFromRows(ip->K, m, r, loc, A));
    PetscBool spd;
    if (cp->dense) spd = dense_cholesky(A, m);
    else {
      for (PetscInt i = 0; i < m; i++)
        for (fst[i] = 0; fst[i] < i && A[m * i + fst[i]] == 0; fst[i]++) continue;
      spd = profile_cholesky(A, m, fst);
    }
    if (!spd) { /* K lost its definiteness to rounding (late, mu ~ 1e-12): the caller stops the solve */
      cp->failed = PETSC_TRUE;
      break;
    }
    cp->start[b + 1] = n;
    cp->foff[b + 1]  = cp->foff[b] + (size_t)m * m;
    if (cp->check) {
      PetscInt o = 0;
      for (PetscInt q = first[j]; q >= 0; q = next[q])
        for (int k = 0; k < 6; k++) orig[o++] = 6 * ip->unknown[q] + k;
      PetscCall(ClusterCheckBlock(ip, cp, b, orig, m, Acheck, ycheck));
    }
    b++;
  }
  cp->K = ip->K;
  if (cp->coarse && !cp->failed) PetscCall(ClusterCoarseSetUp(ip, first, next, size, cp));
  PetscCall(PetscFree3(orig, Acheck, ycheck));
  PetscCall(PetscFree(loc));
  PetscCall(PetscFree6(parent, size, first, next, body, key));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The rigid-body near-null space of K (ccp/ipm.h, settings' centre): 6 vectors over the movable bodies,
 * orthonormalised by two passes of Gram-Schmidt (MatNullSpaceCreate wants an orthonormal basis; GAMG uses
 * their span aggregate by aggregate), attached to K with MatSetNearNullSpace. Not collective (one rank). */
static PetscErrorCode IpmNearNullSpace(Ipm *ip, const double *centre)
{
  Vec          z[6];
  MatNullSpace nsp;
  double       c[3] = {0};
  PetscScalar *a[6];

  PetscFunctionBegin;
  for (PetscInt j = 0; j < ip->nb; j++)
    if (ip->unknown[j] >= 0)
      for (int k = 0; k < 3; k++) c[k] += centre[3 * j + k] / PetscMax(ip->nmov, 1);
  for (int k = 0; k < 6; k++) {
    PetscCall(VecDuplicate(ip->y, &z[k]));
    PetscCall(VecGetArray(z[k], &a[k]));
  }
  for (PetscInt j = 0; j < ip->nb; j++) {
    const PetscInt r = ip->unknown[j];
    if (r < 0) continue;
    const double d[3] = {centre[3 * j] - c[0], centre[3 * j + 1] - c[1], centre[3 * j + 2] - c[2]};
    for (int k = 0; k < 6; k++)
      for (int l = 0; l < 6; l++) a[k][6 * r + l] = 0;
    for (int k = 0; k < 3; k++) {
      a[k][6 * r + k]               = 1;               /* translation along e_k */
      a[3 + k][6 * r + 3 + k]       = 1;               /* rotation about c along e_k: w = e_k, */
      a[3 + k][6 * r + (k + 1) % 3] = -d[(k + 2) % 3]; /* v = e_k x d */
      a[3 + k][6 * r + (k + 2) % 3] = d[(k + 1) % 3];
    }
  }
  for (int k = 0; k < 6; k++) PetscCall(VecRestoreArray(z[k], &a[k]));
  for (int pass = 0; pass < 2; pass++)
    for (int k = 0; k < 6; k++) {
      PetscReal nrm;
      for (int l = 0; l < k; l++) {
        PetscScalar dot;
        PetscCall(VecDot(z[k], z[l], &dot));
        PetscCall(VecAXPY(z[k], -dot, z[l]));
      }
      PetscCall(VecNormalize(z[k], &nrm));
      PetscCheck(nrm > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
                 "CCPIpmSolve: the rigid-body vectors are dependent (fewer than 2 movable bodies off one line)");
    }
  PetscCall(MatNullSpaceCreate(PETSC_COMM_SELF, PETSC_FALSE, 6, z, &nsp));
  PetscCall(MatSetNearNullSpace(ip->K, nsp));
  PetscCall(MatNullSpaceDestroy(&nsp));
  for (int k = 0; k < 6; k++) PetscCall(VecDestroy(&z[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode IpmCreate(CCPProblem *P, const CCPIpmSettings *set, CCPIpmStats *st, Ipm *ip)
{
  PetscInt       *nnz;
  const PetscBool probe = set->probe;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(ip, sizeof(*ip)));
  ip->P  = P;
  ip->st = st;
  ip->nc = P->ncontacts;
  ip->nb = P->nbodies;
  PetscCall(PetscMalloc2(ip->nb, &ip->unknown, ip->nc + 1, &ip->off));
  for (PetscInt j = 0; j < ip->nb; j++) ip->unknown[j] = P->inv_mass[j] > 0 ? ip->nmov++ : -1;
  ip->off[0] = 0;
  for (PetscInt i = 0; i < ip->nc; i++) {
    ConeMap m;
    cone_map(&P->contact[i], &m);
    ip->off[i + 1] = ip->off[i] + m.rows;
    ip->ncones += m.ncones;
  }
  ip->nrows      = ip->off[ip->nc];
  const size_t R = (size_t)ip->nrows, G = (size_t)CONTACT_DOF_MAX * ip->nc;
  PetscCall(
    PetscMalloc5(72 * (size_t)ip->nc, &ip->J, 36 * (size_t)ip->nc, &ip->Hinv, R, &ip->s, R, &ip->z, R, &ip->lam));
  PetscCall(PetscMalloc5(R, &ip->beta, R, &ip->wv, R, &ip->rz, R, &ip->q, R, &ip->t));
  PetscCall(PetscMalloc5(R, &ip->ds, R, &ip->dz, R, &ip->dsa, R, &ip->dza, R, &ip->rc));
  PetscCall(PetscMalloc4(G, &ip->rx, G, &ip->f, G, &ip->dg, 6 * (size_t)ip->nb, &ip->vel));
  PetscCall(PetscMalloc3(R, &ip->s0, R, &ip->z0, G, &ip->g0));
  PetscCall(PetscMemzero(ip->Hinv, 36 * sizeof(double) * (size_t)ip->nc));
  for (PetscInt i = 0; i < ip->nc; i++) contact_jacobian(&P->contact[i], ip->J + 72 * i, ip->J + 72 * i + 36);

  /* K: movable bodies, 6 x 6 blocks; a block row's count over-estimates by the repeated pairs */
  PetscCall(PetscCalloc1(ip->nmov, &nnz));
  for (PetscInt j = 0; j < ip->nmov; j++) nnz[j] = 1;
  for (PetscInt i = 0; i < ip->nc; i++) {
    const PetscInt ra = ip->unknown[P->contact[i].a], rb = ip->unknown[P->contact[i].b];
    if (ra >= 0 && rb >= 0) {
      nnz[ra]++;
      nnz[rb]++;
    }
  }
  for (PetscInt j = 0; j < ip->nmov; j++) nnz[j] = PetscMin(nnz[j], ip->nmov);
  PetscCall(MatCreate(PETSC_COMM_SELF, &ip->K));
  PetscCall(MatSetSizes(ip->K, 6 * ip->nmov, 6 * ip->nmov, 6 * ip->nmov, 6 * ip->nmov));
  PetscCall(MatSetType(ip->K, MATSEQAIJ));
  PetscCall(MatSetBlockSize(ip->K, 6));
  PetscCall(MatXAIJSetPreallocation(ip->K, 6, nnz, NULL, NULL, NULL));
  PetscCall(MatSetOption(ip->K, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(ip->K, MAT_SPD, PETSC_TRUE));
  PetscCall(PetscFree(nnz));
  PetscCall(MatCreateVecs(ip->K, &ip->y, &ip->b));
  ip->centre = set->centre;
  if (set->near_null && set->centre && ip->nmov > 1) PetscCall(IpmNearNullSpace(ip, set->centre));

  PetscCall(IpmKSPsCreate(set, &ip->ksp, &ip->probe));
  PetscCall(KSPGetTolerances(ip->ksp, &ip->rtol_min, NULL, NULL, NULL));
  if (probe) PetscCall(VecDuplicate(ip->y, &ip->yp));
  PetscBool cm, cp;
  PetscCall(IpmKSPIsCluster(ip->ksp, &cm));
  PetscCall(IpmKSPIsCluster(ip->probe, &cp));
  if (cm || cp) {
    PC pc;
    ip->cluster_ksp   = cm ? ip->ksp : ip->probe;
    ip->cluster_ratio = set->cluster_ratio > 0 ? set->cluster_ratio : IPM_STIFF;
    ip->cluster_max   = set->cluster_max > 0 ? set->cluster_max : IPM_CLUSTER_MAX;
    ip->cpc.coarse    = set->cluster_coarse;
    ip->cpc.strongest = set->cluster_strongest;
    ip->cpc.dense     = set->cluster_dense;
    ip->cpc.check     = set->cluster_check && set->monitor;
    PetscCall(KSPGetPC(ip->cluster_ksp, &pc));
    PetscCall(PCShellSetContext(pc, &ip->cpc));
    PetscCall(PCShellSetApply(pc, ClusterPCApply));
    PetscCall(PCShellSetName(pc, "stuck-cluster block Jacobi"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode IpmDestroy(Ipm *ip)
{
  PetscFunctionBegin;
  PetscCall(KSPDestroy(&ip->ksp));
  PetscCall(KSPDestroy(&ip->probe));
  PetscCall(ClusterPCFree(&ip->cpc));
  PetscCall(VecDestroy(&ip->yp));
  PetscCall(VecDestroy(&ip->b));
  PetscCall(VecDestroy(&ip->y));
  PetscCall(MatDestroy(&ip->K));
  PetscCall(PetscFree2(ip->unknown, ip->off));
  PetscCall(PetscFree5(ip->J, ip->Hinv, ip->s, ip->z, ip->lam));
  PetscCall(PetscFree5(ip->beta, ip->wv, ip->rz, ip->q, ip->t));
  PetscCall(PetscFree5(ip->ds, ip->dz, ip->dsa, ip->dza, ip->rc));
  PetscCall(PetscFree4(ip->rx, ip->f, ip->dg, ip->vel));
  PetscCall(PetscFree3(ip->s0, ip->z0, ip->g0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Cone rows x <- G_i g (g: the contact's 6 multipliers) and g += G_i^T x */
static inline void G_apply(const ConeMap *m, const double *g, double *x)
{
  for (int k = 0; k < m->rows; k++) x[k] = m->coef[k] * g[m->col[k]];
}
static inline void Gt_add(const ConeMap *m, const double *x, double *g)
{
  for (int k = 0; k < m->rows; k++) g[m->col[k]] += m->coef[k] * x[k];
}

/* Apply W (or W^-1) cone by cone to the rows [off, off + m.rows) of x into y. */
static inline void W_rows(const Ipm *ip, const ConeMap *m, PetscInt off, const double *x, PetscBool inverse, double *y)
{
  PetscInt r = off;
  for (int k = 0; k < m->ncones; k++) {
    nt_apply(ip->beta[r], ip->wv + r, x + r, m->dim[k], inverse, y + r);
    r += m->dim[k];
  }
}

/* The starting point: s = G g0 pushed into the cones' interior by a typical impulse, z = a typical
 * contact speed on the cones' axes (both rms values of the start's contact velocities u0, the impulse
 * one scaled by eta). */
static void IpmStart(Ipm *ip, double shift)
{
  CCPProblem *P  = ip->P;
  double      su = 0, sg = 0;

  ccp_velocity_from_impulses(P, P->gamma, ip->vel);
  for (PetscInt i = 0; i < ip->nc; i++) {
    double u[6], u2 = 0;
    ccp_contact_gradient(P, i, ip->vel, ccp_cblock(P->gamma, i), u);
    for (int k = 0; k < contact_dof(&P->contact[i]); k++) u2 += u[k] * u[k];
    su += u2;
    sg += u2 * P->terms[i].eta * P->terms[i].eta;
  }
  const double vs = shift * PetscMax(sqrt(su / PetscMax(ip->nc, 1)), IPM_SCALE_MIN);
  const double gs = shift * PetscMax(sqrt(sg / PetscMax(ip->nc, 1)), IPM_SCALE_MIN);
  for (PetscInt i = 0; i < ip->nc; i++) {
    ConeMap m;
    cone_map(&P->contact[i], &m);
    double  *s = ip->s + ip->off[i], *z = ip->z + ip->off[i];
    PetscInt r = 0;
    for (int k = 0; k < 6; k++)
      if (!m.used[k]) ccp_block(P->gamma, i)[k] = 0;
    G_apply(&m, ccp_cblock(P->gamma, i), s);
    for (int k = 0; k < m.ncones; k++) {
      double t = 0;
      for (int l = 1; l < m.dim[k]; l++) t += s[r + l] * s[r + l];
      s[r] += PetscMax(0, sqrt(t) - s[r]) + gs;
      z[r] = vs;
      for (int l = 1; l < m.dim[k]; l++) z[r + l] = 0;
      r += m.dim[k];
    }
  }
}

/* The residuals of the iterate (ip->vel its velocity): rx, rz, and mu = s^T z / cones. */
static double IpmResiduals(Ipm *ip, double *rx_max, double *rz_max)
{
  CCPProblem *P   = ip->P;
  double      gap = 0;

  *rx_max = *rz_max = 0;
  for (PetscInt i = 0; i < ip->nc; i++) {
    ConeMap m;
    double  sg[IPM_ROWS], *rx = ccp_block(ip->rx, i);
    cone_map(&P->contact[i], &m);
    ccp_contact_gradient(P, i, ip->vel, ccp_cblock(P->gamma, i), rx);
    for (int k = 0; k < m.rows; k++) rx[m.col[k]] -= m.coef[k] * ip->z[ip->off[i] + k];
    G_apply(&m, ccp_cblock(P->gamma, i), sg);
    for (int k = 0; k < m.rows; k++) {
      const PetscInt r = ip->off[i] + k;
      ip->rz[r]        = ip->s[r] - sg[k];
      keep_max(rz_max, PetscAbsReal(ip->rz[r]));
      gap += ip->s[r] * ip->z[r];
    }
    for (int k = 0; k < 6; k++) {
      if (!m.used[k]) rx[k] = 0; /* a held multiplier: its velocity is free */
      keep_max(rx_max, PetscAbsReal(rx[k]));
    }
  }
  return gap / PetscMax(ip->ncones, 1);
}

/* The NT scaling of every cone, lambda, and every contact's H'^-1 = (G^T W^-2 G + C)^-1. Not collective. *bad is
 * -1 on success, else the first contact whose s or z is not strictly inside its cone (*why "left its cone's
 * interior") or whose scaled block is not positive definite; then the scaling is partly overwritten and must be
 * redone at another iterate before it is used. */
static PetscErrorCode IpmScaling(Ipm *ip, PetscInt *bad, const char **why)
{
  CCPProblem *P = ip->P;

  PetscFunctionBegin;
  *bad = -1;
  for (PetscInt i = 0; i < ip->nc; i++) {
    const Contact *c = &P->contact[i];
    ConeMap        m;
    PetscInt       r = ip->off[i];
    double        *H = ip->Hinv + 36 * i, Wi2[IPM_ROWS][IPM_ROWS] = {{0}};
    cone_map(c, &m);
    for (int k = 0; k < m.ncones; k++) {
      const int n = m.dim[k];
      if (!(ip->s[r] > 0 && ip->z[r] > 0 && jdot(ip->s + r, ip->s + r, n) > 0 && jdot(ip->z + r, ip->z + r, n) > 0)) {
        *bad = i;
        *why = "left its cone's interior";
        PetscFunctionReturn(PETSC_SUCCESS);
      }
      nt_scaling(ip->s + r, ip->z + r, n, &ip->beta[r], ip->wv + r, ip->lam + r);
      /* W^-2 of this cone: column l is W^-1 W^-1 e_l */
      for (int l = 0; l < n; l++) {
        double e[3] = {0}, a[3], b[3];
        e[l]        = 1;
        nt_apply(ip->beta[r], ip->wv + r, e, n, PETSC_TRUE, a);
        nt_apply(ip->beta[r], ip->wv + r, a, n, PETSC_TRUE, b);
        for (int p = 0; p < n; p++) Wi2[r - ip->off[i] + p][r - ip->off[i] + l] = b[p];
      }
      r += n;
    }
    const int dof = contact_dof(c);
    for (int a = 0; a < 36; a++) H[a] = 0;
    for (int k = 0; k < m.rows; k++)
      for (int l = 0; l < m.rows; l++) H[6 * m.col[k] + m.col[l]] += m.coef[k] * m.coef[l] * Wi2[k][l];
    const double cl = P->terms[i].c_lin, cr = dof == 6 ? ccp_terms_c_rot(c, &P->terms[i]) : 0;
    for (int a = 0; a < 3; a++) H[7 * a] += cl;
    for (int a = 3; a < dof; a++) H[7 * a] += cr;
    if (!spd_invert_used(H, m.used)) {
      *bad = i;
      *why = "has a scaled block that is not positive definite";
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* K = M + sum_i D_i H'_i^-1 D_i^T over the movable bodies; the KSP set up on it. */
static PetscErrorCode IpmAssemble(Ipm *ip)
{
  CCPProblem  *P  = ip->P;
  const double t0 = MPI_Wtime();

  PetscFunctionBegin;
  PetscCall(MatZeroEntries(ip->K));
  for (PetscInt j = 0; j < ip->nb; j++) {
    const PetscInt r       = ip->unknown[j];
    double         blk[36] = {0}, I[9];
    if (r < 0) continue;
    for (int k = 0; k < 3; k++) blk[7 * k] = 1 / P->inv_mass[j];
    sym3_inverse(P->inv_inertia + 6 * j, I);
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) blk[6 * (3 + a) + 3 + b] = I[3 * a + b];
    PetscCall(MatSetValuesBlocked(ip->K, 1, &r, 1, &r, blk, ADD_VALUES));
  }
  for (PetscInt i = 0; i < ip->nc; i++) {
    const Contact *c     = &P->contact[i];
    const int      dof   = contact_dof(c);
    const PetscInt ru[2] = {ip->unknown[c->a], ip->unknown[c->b]};
    const double  *Jx[2] = {ip->J + 72 * i, ip->J + 72 * i + 36}, *H = ip->Hinv + 36 * i;
    double         HJ[2][36];
    for (int s = 0; s < 2; s++) /* HJ_s = H'^-1 J_s (dof x 6) */
      for (int a = 0; a < dof; a++)
        for (int k = 0; k < 6; k++) {
          double t = 0;
          for (int l = 0; l < dof; l++) t += H[6 * a + l] * Jx[s][6 * l + k];
          HJ[s][6 * a + k] = t;
        }
    for (int s = 0; s < 2; s++)
      for (int u = 0; u < 2; u++) {
        double blk[36];
        if (ru[s] < 0 || ru[u] < 0) continue;
        for (int k = 0; k < 6; k++) /* J_s^T H'^-1 J_u */
          for (int l = 0; l < 6; l++) {
            double t = 0;
            for (int a = 0; a < dof; a++) t += Jx[s][6 * a + k] * HJ[u][6 * a + l];
            blk[6 * k + l] = t;
          }
        PetscCall(MatSetValuesBlocked(ip->K, 1, &ru[s], 1, &ru[u], blk, ADD_VALUES));
      }
  }
  PetscCall(MatAssemblyBegin(ip->K, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(ip->K, MAT_FINAL_ASSEMBLY));
  const double t1 = MPI_Wtime();
  if (ip->cluster_ksp == ip->ksp) {
    PetscCall(ClusterPCSetUp(ip, ip->cluster_ratio, ip->cluster_max, &ip->cpc));
    if (ip->cpc.failed) PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(KSPSetOperators(ip->ksp, ip->K, ip->K));
  PetscCall(KSPSetUp(ip->ksp));
  ip->st->seconds_assemble += t1 - t0;
  ip->st->seconds_setup += MPI_Wtime() - t1;
  if (ip->probe) {
    const double t2 = MPI_Wtime();
    if (ip->cluster_ksp == ip->probe) {
      PetscCall(ClusterPCSetUp(ip, ip->cluster_ratio, ip->cluster_max, &ip->cpc));
      if (ip->cpc.failed) PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(KSPSetOperators(ip->probe, ip->K, ip->K));
    PetscCall(KSPSetUp(ip->probe));
    ip->st->probe_seconds += MPI_Wtime() - t2;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x <- (N + H) ^-1 rhs (CONTACT_DOF_MAX per contact, the used multipliers of each contact; the others 0) by
 * Woodbury through K: K y = D H'^-1 rhs, x = H'^-1 (rhs - D^T y), one KSP solve (and the probe's). */
static PetscErrorCode IpmWoodbury(Ipm *ip, const double *rhs, double *x)
{
  CCPProblem        *P = ip->P;
  PetscScalar       *bv;
  const PetscScalar *yv;
  PetscInt           its;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(VecZeroEntries(ip->b));
  PetscCall(VecGetArray(ip->b, &bv));
  for (PetscInt i = 0; i < ip->nc; i++) {
    const Contact *c     = &P->contact[i];
    const int      dof   = contact_dof(c);
    const PetscInt ru[2] = {ip->unknown[c->a], ip->unknown[c->b]};
    const double  *H = ip->Hinv + 36 * i, *f = ccp_cblock(rhs, i);
    double         h[6] = {0};
    for (int a = 0; a < dof; a++)
      for (int l = 0; l < dof; l++) h[a] += H[6 * a + l] * f[l];
    for (int s = 0; s < 2; s++) {
      const double *Jx = ip->J + 72 * i + 36 * s;
      if (ru[s] < 0) continue;
      for (int k = 0; k < 6; k++) {
        double t = 0;
        for (int a = 0; a < dof; a++) t += Jx[6 * a + k] * h[a];
        bv[6 * ru[s] + k] += t;
      }
    }
  }
  PetscCall(VecRestoreArray(ip->b, &bv));
  const double t0 = MPI_Wtime();
  PetscCall(KSPSolve(ip->ksp, ip->b, ip->y));
  ip->st->seconds_solve += MPI_Wtime() - t0;
  PetscCall(KSPGetIterationNumber(ip->ksp, &its));
  PetscCall(KSPGetConvergedReason(ip->ksp, &reason));
  ip->st->linear_iterations += its;
  ip->st->linear_max = PetscMax(ip->st->linear_max, its);
  if (reason < 0) ip->st->linear_failures++;
  if (ip->probe) { /* the same system by the probe KSP, from zero; its error against y */
    PetscReal    e, ny;
    const double t1 = MPI_Wtime();
    PetscCall(KSPSolve(ip->probe, ip->b, ip->yp));
    ip->st->probe_seconds += MPI_Wtime() - t1;
    PetscCall(KSPGetIterationNumber(ip->probe, &its));
    PetscCall(KSPGetConvergedReason(ip->probe, &reason));
    ip->probe_its += its;
    ip->st->probe_iterations += its;
    ip->st->probe_max = PetscMax(ip->st->probe_max, its);
    if (reason < 0) ip->st->probe_failures++;
    PetscCall(VecNorm(ip->y, NORM_2, &ny));
    PetscCall(VecAXPY(ip->yp, -1, ip->y));
    PetscCall(VecNorm(ip->yp, NORM_2, &e));
    if (ny > 0) keep_max(&ip->st->probe_error, e / ny);
  }
  PetscCall(VecGetArrayRead(ip->y, &yv));
  for (PetscInt i = 0; i < ip->nc; i++) {
    const Contact *c     = &P->contact[i];
    const int      dof   = contact_dof(c);
    const PetscInt ru[2] = {ip->unknown[c->a], ip->unknown[c->b]};
    const double  *H = ip->Hinv + 36 * i, *f = ccp_cblock(rhs, i);
    double         e[6], *xi                 = ccp_block(x, i);
    for (int a = 0; a < dof; a++) e[a] = f[a]; /* rhs - D^T y */
    for (int s = 0; s < 2; s++) {
      const double *Jx = ip->J + 72 * i + 36 * s;
      if (ru[s] < 0) continue;
      for (int a = 0; a < dof; a++)
        for (int k = 0; k < 6; k++) e[a] -= Jx[6 * a + k] * yv[6 * ru[s] + k];
    }
    for (int a = 0; a < 6; a++) {
      xi[a] = 0;
      if (a < dof)
        for (int l = 0; l < dof; l++) xi[a] += H[6 * a + l] * e[l];
    }
  }
  PetscCall(VecRestoreArrayRead(ip->y, &yv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Newton direction (dg, ds, dz) for the complementarity right-hand side ip->rc: dg by IpmWoodbury, then ds
 * and dz. */
static PetscErrorCode IpmDirection(Ipm *ip)
{
  CCPProblem *P = ip->P;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < ip->nc; i++) {
    const Contact *c  = &P->contact[i];
    const PetscInt r0 = ip->off[i];
    ConeMap        m;
    double         w[IPM_ROWS], *f = ccp_block(ip->f, i);
    cone_map(c, &m);
    PetscInt r = r0;
    for (int k = 0; k < m.ncones; k++) { /* q = lambda \ rc */
      jsolve(ip->lam + r, ip->rc + r, m.dim[k], ip->q + r);
      r += m.dim[k];
    }
    W_rows(ip, &m, r0, ip->q, PETSC_FALSE, ip->t); /* t = rz + W q */
    for (int k = 0; k < m.rows; k++) ip->t[r0 + k] += ip->rz[r0 + k];
    W_rows(ip, &m, r0, ip->t, PETSC_TRUE, ip->dz); /* dz as scratch: W^-2 t */
    W_rows(ip, &m, r0, ip->dz, PETSC_TRUE, ip->ds);
    for (int k = 0; k < 6; k++) f[k] = -ccp_cblock(ip->rx, i)[k];
    for (int k = 0; k < m.rows; k++) w[k] = ip->ds[r0 + k];
    Gt_add(&m, w, f);
  }
  PetscCall(IpmWoodbury(ip, ip->f, ip->dg));
  for (PetscInt i = 0; i < ip->nc; i++) {
    const Contact *c  = &P->contact[i];
    const PetscInt r0 = ip->off[i];
    double         x[IPM_ROWS], wx[IPM_ROWS];
    ConeMap        m;
    cone_map(c, &m);
    G_apply(&m, ccp_cblock(ip->dg, i), x); /* ds = G dg - rz;  dz = W^-2 (t - G dg) */
    for (int k = 0; k < m.rows; k++) {
      ip->ds[r0 + k] = x[k] - ip->rz[r0 + k];
      x[k]           = ip->t[r0 + k] - x[k];
    }
    PetscInt r = 0;
    for (int k = 0; k < m.ncones; k++) {
      nt_apply(ip->beta[r0 + r], ip->wv + r0 + r, x + r, m.dim[k], PETSC_TRUE, wx + r);
      nt_apply(ip->beta[r0 + r], ip->wv + r0 + r, wx + r, m.dim[k], PETSC_TRUE, ip->dz + r0 + r);
      r += m.dim[k];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The largest step in [0, infinity) that keeps s + a ds and z + a dz in the cones. */
static double IpmMaxStep(const Ipm *ip)
{
  double a = INFINITY;
  for (PetscInt i = 0; i < ip->nc; i++) {
    ConeMap  m;
    PetscInt r = ip->off[i];
    cone_map(&ip->P->contact[i], &m);
    for (int k = 0; k < m.ncones; k++) {
      a = PetscMin(a, max_step(ip->s + r, ip->ds + r, m.dim[k]));
      a = PetscMin(a, max_step(ip->z + r, ip->dz + r, m.dim[k]));
      r += m.dim[k];
    }
  }
  return a;
}

/* The iterate (s, z, gamma) = the saved one (s0, z0, g0) + alpha (ds, dz, dg). Not collective. */
static void IpmStepFrom(Ipm *ip, double alpha)
{
  for (PetscInt k = 0; k < ip->nrows; k++) {
    ip->s[k] = ip->s0[k] + alpha * ip->ds[k];
    ip->z[k] = ip->z0[k] + alpha * ip->dz[k];
  }
  for (size_t k = 0; k < (size_t)CONTACT_DOF_MAX * ip->nc; k++) ip->P->gamma[k] = ip->g0[k] + alpha * ip->dg[k];
}

PetscErrorCode CCPIpmSolve(CCPProblem *P, const CCPIpmSettings *set, CCPIpmStats *st)
{
  Ipm          ip;
  const double t0       = MPI_Wtime();
  double      *gbest    = NULL; /* the best iterate so far (the lowest GUIDE residual), returned when not converged */
  double       best_res = INFINITY;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(st, sizeof(*st)));
  PetscCall(IpmCheckProblem(P));
  PetscCheck(set->cluster_coarse >= 0 && set->cluster_coarse <= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "CCPIpmSolve: cluster_coarse is %" PetscInt_FMT ": give 0 (none), 1 (multiplicative) or 2 (additive)",
             set->cluster_coarse);
  PetscCheck(!set->cluster_coarse || (set->cluster_pc && set->centre), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "CCPIpmSolve: cluster_coarse needs cluster_pc and the bodies' centres");
  PetscCall(IpmCreate(P, set, st, &ip));
  PetscCall(PetscMalloc1((size_t)CONTACT_DOF_MAX * ip.nc, &gbest));
  IpmStart(&ip, set->start_shift > 0 ? set->start_shift : IPM_START_SHIFT);
  double   alpha = 0, sigma = 1, mu0 = 0; /* the last step's length and centering (for the monitor); the start's mu */
  PetscInt halvings = 0;                  /* back-offs of the last step */
  double   res_prev = 0, mu_prev = 0;     /* the handover's: the previous Newton iteration's first iterate */
  PetscInt it_prev = -1, slow = 0, best_it = 0; /* its iteration; slow iterations running; the best's iteration */
  st->stop = IPM_STOP_CAP;
  for (PetscInt it = 0;;) {
    double rx_max, rz_max;
    ccp_velocity_from_impulses(P, P->gamma, ip.vel);
    ccp_residual(P, P->gamma, ip.vel, &st->res_max, &st->res_rms);
    PetscCheck(isfinite(st->res_max), PETSC_COMM_SELF, PETSC_ERR_FP,
               "The interior-point solve (-ccp_type ipm) reached a non-finite iterate (Newton iteration %" PetscInt_FMT
               ", residual %g): use -ccp_type apgd for this scenario",
               it, st->res_max);
    const double mu = IpmResiduals(&ip, &rx_max, &rz_max);
    st->iterations  = it;
    if (it == 0) mu0 = mu;
    if (it == 0 && !halvings) st->res_start = st->res_max;
    if (st->res_max < best_res) {
      best_res = st->res_max;
      best_it  = it;
      PetscCall(PetscArraycpy(gbest, P->gamma, (size_t)CONTACT_DOF_MAX * ip.nc));
    }
    if (set->monitor)
      PetscCall(PetscPrintf(PETSC_COMM_SELF,
                            "  ipm %3" PetscInt_FMT
                            " residual %.3e (rms %.3e) mu %.3e |rx| %.2e |rz| %.2e step %.3f sigma %.2e"
                            " lin %" PetscInt_FMT " probe %" PetscInt_FMT " t %.2f s\n",
                            it, st->res_max, st->res_rms, mu, rx_max, rz_max, alpha, sigma, st->linear_iterations,
                            ip.probe_its, MPI_Wtime() - t0));
    ip.probe_its = 0;
    if (st->res_max <= set->tol) {
      st->stop = IPM_STOP_CONVERGED;
      break;
    }
    if (it == set->max_it) break;
    if (set->handover && it > it_prev) { /* once per Newton iteration, on its first (unhalved) iterate */
      if (it_prev >= 0)
        slow = (mu < mu_prev && res_prev < st->res_max * PetscPowReal(mu_prev / mu, IPM_HANDOVER_RATE)) ? slow + 1 : 0;
      it_prev  = it;
      res_prev = st->res_max;
      mu_prev  = mu;
      if (slow >= 2 && st->res_max <= IPM_HANDOVER_NEAR * set->tol) st->stop = IPM_STOP_SLOW;
      else if (best_res < st->res_start && it - best_it >= IPM_STALL && mu <= IPM_STALL_MU * mu0)
        st->stop = IPM_STOP_STALL;
      if (st->stop != IPM_STOP_CAP) {
        if (set->monitor)
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "      handing over: %s\n",
                                st->stop == IPM_STOP_SLOW ? "near the tolerance, falling like sqrt(mu) or slower"
                                                          : "no new best residual"));
        break;
      }
    }
    PetscInt    bad;
    const char *why = NULL;
    PetscCall(IpmScaling(&ip, &bad, &why));
    /* The fraction-to-boundary rule keeps the iterate inside the cones in exact arithmetic; near the boundary (mu
     * below ~1e-12) rounding can still put it outside or make a scaled block indefinite. Then the last step is
     * halved from the last scaled iterate; after IPM_BACKOFF halvings the solve stops on that iterate (converged
     * only if it met the tolerance, which it did not, else the loop would have stopped there). */
    PetscCheck(bad < 0 || it > 0, PETSC_COMM_SELF, PETSC_ERR_FP,
               "CCPIpmSolve: contact %" PetscInt_FMT " %s at the start", bad, why);
    if (bad >= 0) {
      const PetscBool stop = (PetscBool)(halvings == IPM_BACKOFF);
      alpha                = stop ? 0 : 0.5 * alpha;
      halvings++;
      if (set->monitor)
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "      contact %" PetscInt_FMT " %s: %s\n", bad, why,
                              stop ? "stopping on the last scaled iterate" : "step halved"));
      IpmStepFrom(&ip, alpha);
      if (stop) {
        ccp_velocity_from_impulses(P, P->gamma, ip.vel);
        ccp_residual(P, P->gamma, ip.vel, &st->res_max, &st->res_rms);
        st->iterations = it - 1;
        st->stop       = IPM_STOP_ROUNDING;
        break;
      }
      continue;
    }
    halvings = 0;
    if (set->monitor) PetscCall(IpmCensus(&ip));
    if (set->adaptive_rtol) {
      const double rmax = set->rtol_max > 0 ? set->rtol_max : 1e-2;
      PetscCall(KSPSetTolerances(ip.ksp, PetscMax(ip.rtol_min, PetscMin(rmax, mu0 > 0 ? mu / mu0 : rmax)),
                                 PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
    }
    PetscCall(IpmAssemble(&ip));
    if (ip.cluster_ksp && ip.cpc.failed) { /* no usable preconditioner at this iterate: stop on the best one */
      if (set->monitor)
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "      a cluster block of K is not numerically positive definite: "
                                               "stopping\n"));
      st->stop = IPM_STOP_ROUNDING;
      break;
    }
    if (set->monitor && ip.cluster_ksp)
      PetscCall(PetscPrintf(PETSC_COMM_SELF,
                            "      cluster blocks %" PetscInt_FMT " (largest %" PetscInt_FMT
                            " bodies), coarse space %" PetscInt_FMT " clusters%s",
                            ip.cpc.nblk, ip.cpc.largest, ip.cpc.ncoarse, ip.cpc.check ? "" : "\n"));
    if (set->monitor && ip.cluster_ksp && ip.cpc.check)
      PetscCall(PetscPrintf(PETSC_COMM_SELF, ", %s factors' solve against dense %.1e\n",
                            ip.cpc.dense ? "dense" : "profile", ip.cpc.check_err));
    /* predictor: rc = -lambda o lambda */
    PetscInt r = 0;
    for (PetscInt i = 0; i < ip.nc; i++) {
      ConeMap m;
      cone_map(&P->contact[i], &m);
      for (int k = 0; k < m.ncones; k++) {
        jprod(ip.lam + r, ip.lam + r, m.dim[k], ip.rc + r);
        for (int l = 0; l < m.dim[k]; l++) ip.rc[r + l] = -ip.rc[r + l];
        r += m.dim[k];
      }
    }
    PetscCall(IpmDirection(&ip));
    sigma = PetscPowReal(1 - PetscMin(1, IpmMaxStep(&ip)), IPM_SIGMA_EXP);
    /* corrector: rc -= (W^-1 dsa) o (W dza), + sigma mu e */
    r = 0;
    for (PetscInt i = 0; i < ip.nc; i++) {
      ConeMap m;
      cone_map(&P->contact[i], &m);
      W_rows(&ip, &m, ip.off[i], ip.ds, PETSC_TRUE, ip.dsa);
      W_rows(&ip, &m, ip.off[i], ip.dz, PETSC_FALSE, ip.dza);
      for (int k = 0; k < m.ncones; k++) {
        double p[3];
        jprod(ip.dsa + r, ip.dza + r, m.dim[k], p);
        for (int l = 0; l < m.dim[k]; l++) ip.rc[r + l] -= p[l];
        ip.rc[r] += sigma * mu;
        r += m.dim[k];
      }
    }
    PetscCall(IpmDirection(&ip));
    alpha = PetscMin(1, IPM_STEP * IpmMaxStep(&ip));
    PetscCall(PetscArraycpy(ip.s0, ip.s, ip.nrows));
    PetscCall(PetscArraycpy(ip.z0, ip.z, ip.nrows));
    PetscCall(PetscArraycpy(ip.g0, P->gamma, (size_t)CONTACT_DOF_MAX * ip.nc));
    IpmStepFrom(&ip, alpha);
    it++;
  }
  if (!(st->res_max <= set->tol) && best_res < st->res_max) { /* not converged: the best iterate */
    PetscCall(PetscArraycpy(P->gamma, gbest, (size_t)CONTACT_DOF_MAX * ip.nc));
    ccp_velocity_from_impulses(P, P->gamma, ip.vel);
    ccp_residual(P, P->gamma, ip.vel, &st->res_max, &st->res_rms);
  }
  PetscCall(PetscFree(gbest));
  PetscCall(PetscArraycpy(P->vel, ip.vel, 6 * (size_t)ip.nb));
  st->converged = (PetscBool)(st->res_max <= set->tol);
  PetscCall(IpmDestroy(&ip));
  st->seconds_total = MPI_Wtime() - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPIpmCheckOptions(const CCPIpmSettings *set)
{
  KSP ksp, probe;

  PetscFunctionBegin;
  PetscCall(IpmKSPsCreate(set, &ksp, &probe));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(KSPDestroy(&probe));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* centre <- 3 per solver body: the movable bodies' centres relative to one body of each connected set of contacts
 * between movable bodies (contact c: centre_b - centre_a = ra - rb + phi n, the two contact points phi apart along
 * n), found breadth first; a body with no such contact at 0. Only differences within a cluster are used (its order,
 * its rigid-body vectors). */
static PetscErrorCode IpmCentresFromContacts(const CCPProblem *P, double *centre)
{
  PetscInt *start, *adj, *queue, *fill;
  char     *seen;

  PetscFunctionBegin;
  PetscCall(
    PetscCalloc4(P->nbodies + 1, &start, 2 * (size_t)P->ncontacts, &adj, P->nbodies, &queue, P->nbodies, &fill));
  PetscCall(PetscCalloc1(P->nbodies, &seen));
  for (PetscInt i = 0; i < P->ncontacts; i++) {
    const Contact *c = &P->contact[i];
    if (!(P->inv_mass[c->a] > 0 && P->inv_mass[c->b] > 0)) continue;
    start[c->a + 1]++;
    start[c->b + 1]++;
  }
  for (PetscInt j = 0; j < P->nbodies; j++) start[j + 1] += start[j];
  for (PetscInt i = 0; i < P->ncontacts; i++) {
    const Contact *c = &P->contact[i];
    if (!(P->inv_mass[c->a] > 0 && P->inv_mass[c->b] > 0)) continue;
    adj[start[c->a] + fill[c->a]++] = i;
    adj[start[c->b] + fill[c->b]++] = i;
  }
  for (PetscInt j = 0; j < 3 * P->nbodies; j++) centre[j] = 0;
  for (PetscInt root = 0; root < P->nbodies; root++) {
    PetscInt head = 0, tail = 0;
    if (seen[root]) continue;
    seen[root]    = 1;
    queue[tail++] = root;
    while (head < tail) {
      const PetscInt j = queue[head++];
      for (PetscInt e = start[j]; e < start[j + 1]; e++) {
        const Contact *c     = &P->contact[adj[e]];
        const PetscInt other = c->a == j ? c->b : c->a;
        const double   sign  = c->a == j ? 1 : -1; /* centre_other - centre_j */
        if (seen[other]) continue;
        seen[other]   = 1;
        queue[tail++] = other;
        for (int k = 0; k < 3; k++)
          centre[3 * other + k] = centre[3 * j + k] + sign * (c->ra[k] - c->rb[k] + c->phi * c->n[k]);
      }
    }
  }
  PetscCall(PetscFree4(start, adj, queue, fill));
  PetscCall(PetscFree(seen));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPSolve_IPM(const CCPSolveContext *ctx, CCPProblem *P, CCPSolveStats *stats)
{
  CCPIpmSettings set = ctx->set->ipm;
  CCPIpmStats    st;
  double        *centre;

  PetscFunctionBegin;
  PetscCheck(!CCPCoupled(ctx->coupling), ctx->comm, PETSC_ERR_SUP,
             "-ccp_type ipm is not coupled over ranks: on several ranks the time step gathers its CCP onto rank 0");
  PetscCall(PetscMalloc1(3 * (size_t)P->nbodies, &centre));
  PetscCall(IpmCentresFromContacts(P, centre));
  set.centre   = centre;
  set.max_it   = ctx->set->max_it;
  set.tol      = ctx->set->tol;
  set.handover = (PetscBool)(set.polish_it != 0);
  PetscCall(CCPIpmSolve(P, &set, &st));
  PetscCall(PetscFree(centre));
  stats->iterations        = st.iterations;
  stats->passes            = st.iterations;
  stats->linear_iterations = st.linear_iterations;
  stats->polish_iterations = 0;
  stats->res_max           = st.res_max;
  stats->res_rms           = st.res_rms;
  stats->converged         = st.converged;
  stats->improved          = (PetscBool)(st.res_max < st.res_start);
  if (set.polish_it != 0 && !st.converged) {
    /* The polish: APGD (its own loop, ccp/apgd.c) on the reference loops, P carrying their arrays, warm started from
       the IPM's returned iterate P->gamma, on ctx's communicator and coupling (none: the IPM refuses one). APGD returns
       its best iterate, the warm start included, so the result is never worse than the IPM's. */
    CCPSettings     aset = *ctx->set;
    CCPSolveContext actx = *ctx;
    CCPSolveStats   ast;
    PetscCall(PetscMemzero(&ast, sizeof(ast)));
    aset.packed = PETSC_FALSE;
    aset.max_it = set.polish_it > 0 ? set.polish_it : ctx->set->max_it;
    actx.set    = &aset;
    PetscCall(CCPSolve_APGD(&actx, P, &ast));
    stats->polish_iterations  = ast.iterations;
    stats->passes             = st.iterations + ast.iterations;
    stats->res_max            = ast.res_max;
    stats->res_rms            = ast.res_rms;
    stats->converged          = ast.converged;
    stats->improved           = (PetscBool)(ast.res_max < st.res_start);
    stats->infeasible         = ast.infeasible;
    stats->infeasible_contact = ast.infeasible_contact;
    stats->infeasible_share   = ast.infeasible_share;
    if (set.monitor)
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "IPM polish: %" PetscInt_FMT " APGD its, residual %g -> %g m/s\n",
                            ast.iterations, st.res_max, ast.res_max));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
