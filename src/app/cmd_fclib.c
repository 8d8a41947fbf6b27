/* ccpdem fclib solve PROBLEM.hdf5 [-o SOLUTION.hdf5] [-fclib_guess false] [-ccp_* options] (app/commands.h)
 *
 * Reads an FCLIB problem (io/fclib.h), solves its relaxed CCP (u = H^T v + w in the dual cones, r in
 * the friction cones, r orthogonal to u) with the CCP solver of -ccp_type, prints the iterations,
 * the time, the GUIDE residual (README "Physics in brief") and FCLIB's merit (the natural-map error of
 * FCLIB's Coulomb problem, whose u carries the De Saxce term mu ||u_t|| on the normal row, beside
 * the same error of the relaxed problem: their difference is the relaxation's effect), and with -o
 * writes the problem with r, u, v as its FCLIB solution.
 *
 * Which problems: the solver is matrix-free over rigid bodies (ccp/problem.h), so a global problem
 * is solved when it is one of rigid bodies: M block diagonal with 6 x 6 blocks (mass times the
 * identity, then a symmetric positive definite inertia), no bilateral constraints (G), and each
 * contact's 3 columns of H the rows of D of a contact between two such bodies (linear parts e_k and
 * -e_k, angular parts rb x e_k and -(ra x e_k), (e_0, e_1, e_2) orthonormal: B is the body of the
 * larger index, its linear part the frame) or between one body and the ground (an immovable body
 * whose velocity gives w's tangential rows). w's normal row is the stabilization bn; between two
 * bodies its tangential rows must be 0. The problems ccpdem writes (-fclib_dump) are of this kind.
 * Other global problems and local problems (W, q) are read in full, checked and refused with one
 * line: solving them needs a solver on assembled matrices (SolveGlobal is where one plugs in).
 * The command runs on one rank. The file's first guess, if any, is the solve's initial iterate
 * (-fclib_guess false: start from zero). */
#include "app/commands.h"
#include "app/option_check.h"
#include "io/fclib.h"
#include "ccp/solver.h"
#include "ccp/cone.h"
#include "base/memory_policy.h"
#include "base/vec3.h"
#include <math.h>
#include <string.h>

/* Relative tolerance of the structure checks: a file written from rigid bodies holds its
 * structure to rounding (about 1e-16 relative); 1e-9 leaves room for another writer's assembly. */
#define RIGID_TOL 1e-9

/* The rigid bodies and contacts of a global problem: solver bodies [0, nbodies) are the problem's
 * (6 dofs each, in its order), then one immovable ground body per contact with the ground. */
typedef struct {
  PetscInt         nbodies, nsolver, ncontacts;
  double          *inv_mass, *inv_inertia, *vel_free, *vel; /* per solver body: 1, 6, 6, 6 */
  Contact         *contact;                                 /* 64-byte aligned (CONTACT_ALIGN) */
  CCPContactTerms *terms;
  double          *gamma; /* CONTACT_DOF_MAX per contact */
  double          *Q;     /* per contact the 2 x 2 map of the file's tangent rows to ccpdem's frame */
} Rigid;

static PetscErrorCode RigidDestroy(Rigid *rb)
{
  PetscFunctionBegin;
  PetscCall(PetscFree4(rb->inv_mass, rb->inv_inertia, rb->vel_free, rb->vel));
  PetscCall(PetscFree3(rb->terms, rb->gamma, rb->Q));
  MemoryFreeAligned((void **)&rb->contact);
  PetscCall(PetscMemzero(rb, sizeof(*rb)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool Near(double a, double b, double scale) { return (PetscBool)(fabs(a - b) <= RIGID_TOL * scale); }

/* Body k's 6 x 6 block of M (D: row-major) from its columns; err if an entry lies outside the block. */
static void BodyBlock(const FclibMatrix *M, PetscInt k, double D[36], char *err, size_t errlen)
{
  for (int l = 0; l < 36; l++) D[l] = 0;
  for (int c = 0; c < 6 && !err[0]; c++) {
    const int j = (int)(6 * k + c);
    for (int e = M->colptr[j]; e < M->colptr[j + 1]; e++) {
      const int r = M->row[e] - (int)(6 * k);
      if (M->x[e] == 0) continue;
      if (r < 0 || r >= 6) {
        snprintf(err, errlen, "M(%d, %d) = %g couples two bodies (M must be block diagonal with 6 x 6 blocks)",
                 M->row[e], j, M->x[e]);
        return;
      }
      D[6 * r + c] = M->x[e];
    }
  }
}

/* Inverse mass, world inverse inertia (xx, yy, zz, xy, xz, yz) and free velocity of body k. */
static void RigidBody(const FclibGlobal *gp, PetscInt k, double *im, double Iinv[6], double vf[6], char *err,
                      size_t errlen)
{
  double D[36], J[3][3], C[3][3], det, scale;

  BodyBlock(&gp->M, k, D, err, errlen);
  if (err[0]) return;
  scale = fabs(D[0]);
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      if ((a == b && !Near(D[6 * a + b], D[0], scale)) || (a != b && D[6 * a + b] != 0) || D[6 * a + 3 + b] != 0 ||
          D[6 * (3 + a) + b] != 0) {
        snprintf(err, errlen,
                 "body %" PetscInt_FMT " (rows %" PetscInt_FMT "-%" PetscInt_FMT
                 "): its block of M is not mass times the identity beside an inertia (M(%d, %d) = %g)",
                 k, 6 * k, 6 * k + 5, (int)(6 * k + a), (int)(6 * k + b), D[6 * a + b]);
        return;
      }
      J[a][b] = D[6 * (3 + a) + 3 + b];
    }
  scale = fabs(J[0][0]) + fabs(J[1][1]) + fabs(J[2][2]);
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < a; b++)
      if (!Near(J[a][b], J[b][a], scale)) {
        snprintf(err, errlen, "body %" PetscInt_FMT ": its inertia block of M is not symmetric", k);
        return;
      }
  C[0][0] = J[1][1] * J[2][2] - J[1][2] * J[2][1];
  C[0][1] = J[0][2] * J[2][1] - J[0][1] * J[2][2];
  C[0][2] = J[0][1] * J[1][2] - J[0][2] * J[1][1];
  C[1][1] = J[0][0] * J[2][2] - J[0][2] * J[2][0];
  C[1][2] = J[0][2] * J[1][0] - J[0][0] * J[1][2];
  C[2][2] = J[0][0] * J[1][1] - J[0][1] * J[1][0];
  det     = J[0][0] * C[0][0] + J[1][0] * C[0][1] + J[2][0] * C[0][2]; /* C: the adjugate (J symmetric) */
  if (!(D[0] > 0) || !(J[0][0] > 0) || !(C[2][2] > 0) || !(det > 0)) { /* leading minors: positive definite */
    snprintf(err, errlen, "body %" PetscInt_FMT ": its mass %g or inertia block is not positive definite", k, D[0]);
    return;
  }
  *im     = 1 / D[0];
  Iinv[0] = C[0][0] / det;
  Iinv[1] = C[1][1] / det;
  Iinv[2] = C[2][2] / det;
  Iinv[3] = C[0][1] / det;
  Iinv[4] = C[0][2] / det;
  Iinv[5] = C[1][2] / det;
  for (int c = 0; c < 3; c++) vf[c] = *im * gp->f[6 * k + c];
  sym_vec(vf + 3, Iinv, gp->f + 6 * k + 3);
}

/* Contact i's columns of H as (body, its 6 rows) per column: the (at most 2) bodies they touch, in
 * index order; h[s][k][0..5]: body s's rows in column k. */
static int ContactBodies(const FclibMatrix *H, PetscInt i, PetscInt body[2], double h[2][3][6], char *err,
                         size_t errlen)
{
  int nb = 0;
  memset(h, 0, sizeof(double) * 36);
  body[0] = body[1] = -1;
  for (int k = 0; k < 3; k++) {
    const int j = (int)(3 * i + k);
    for (int e = H->colptr[j]; e < H->colptr[j + 1]; e++) {
      const PetscInt b = H->row[e] / 6;
      int            s;
      if (H->x[e] == 0) continue;
      for (s = 0; s < nb && body[s] != b; s++) {}
      if (s == nb) {
        if (nb == 2) {
          snprintf(err, errlen, "contact %" PetscInt_FMT " (columns %d-%d of H) touches more than two bodies", i,
                   (int)(3 * i), (int)(3 * i + 2));
          return 0;
        }
        body[nb++] = b;
      }
      h[s][k][H->row[e] % 6] = H->x[e];
    }
  }
  if (nb == 2 && body[0] > body[1]) { /* index order */
    double         t[3][6];
    const PetscInt b = body[0];
    memcpy(t, h[0], sizeof(t));
    memcpy(h[0], h[1], sizeof(t));
    memcpy(h[1], t, sizeof(t));
    body[0] = body[1];
    body[1] = b;
  }
  if (!nb)
    snprintf(err, errlen, "contact %" PetscInt_FMT " (columns %d-%d of H) touches no body", i, (int)(3 * i),
             (int)(3 * i + 2));
  return nb;
}

/* The offset r of a body whose angular rows in the 3 columns are c_k = r x e_k (sign applied):
 * r = 1/2 sum_k e_k x c_k; false if the columns are not of that form. */
static PetscBool Offset(const double e[3][3], const double c[3][3], double r[3])
{
  double scale = 0;
  v3_set(r, 0, 0, 0);
  for (int k = 0; k < 3; k++) {
    double t[3];
    v3_cross(t, e[k], c[k]);
    v3_axpy(r, 0.5, t);
    scale += v3_norm(c[k]);
  }
  for (int k = 0; k < 3; k++) {
    double t[3];
    v3_cross(t, r, e[k]);
    for (int l = 0; l < 3; l++)
      if (!Near(t[l], c[k][l], scale + v3_norm(r))) return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

/* Contact i of the problem as a ccpdem contact (*ground: it is against the ground, whose velocity
 * vg gives w's tangential rows), and Q, the map of the file's tangent rows to the frame ccpdem
 * takes from the normal (contact_frame). */
static void RigidContact(const FclibGlobal *gp, PetscInt i, Contact *c, PetscBool *ground, double vg[3], double Q[4],
                         char *err, size_t errlen)
{
  PetscInt      body[2];
  double        h[2][3][6], e[3][3], cb[3][3], ca[3][3], t[2][3];
  const int     nb = ContactBodies(&gp->H, i, body, h, err, errlen);
  const int     B  = nb - 1; /* the larger index: its linear rows are the frame */
  const double *w  = gp->w + 3 * i;

  if (!nb) return;
  memset(c, 0, sizeof(*c));
  for (int k = 0; k < 3; k++)
    for (int l = 0; l < 3; l++) {
      e[k][l]  = h[B][k][l];
      cb[k][l] = h[B][k][3 + l];
      ca[k][l] = -h[0][k][3 + l];
    }
  for (int k = 0; k < 3; k++)
    for (int l = 0; l < 3; l++)
      if (!Near(v3_dot(e[k], e[l]), k == l, 1)) {
        snprintf(err, errlen,
                 "contact %" PetscInt_FMT ": the linear rows of its 3 columns of H are not an orthonormal frame: not a "
                 "rigid contact",
                 i);
        return;
      }
  if (nb == 2)
    for (int k = 0; k < 3; k++)
      for (int l = 0; l < 3; l++)
        if (!Near(h[0][k][l], -e[k][l], 1)) {
          snprintf(err, errlen,
                   "contact %" PetscInt_FMT ": its two bodies' linear rows in H are not opposite: not a rigid contact",
                   i);
          return;
        }
  if (!Offset(e, cb, c->rb) || (nb == 2 && !Offset(e, ca, c->ra))) {
    snprintf(err, errlen,
             "contact %" PetscInt_FMT
             ": the angular rows of its columns of H are not r x e_k of one contact point: not "
             "a rigid contact",
             i);
    return;
  }
  *ground = (PetscBool)(nb == 1);
  if (nb == 2 && (w[1] != 0 || w[2] != 0)) {
    snprintf(err, errlen,
             "contact %" PetscInt_FMT " between two bodies has tangential w (%g, %g): ccpdem's contacts have a normal "
             "stabilization only",
             i, w[1], w[2]);
    return;
  }
  v3_copy(c->n, e[0]);
  c->mu = gp->mu[i];
  contact_frame(c, t[0], t[1]);
  for (int k = 0; k < 2; k++)
    for (int l = 0; l < 2; l++) Q[2 * k + l] = v3_dot(t[k], e[1 + l]);
  for (int l = 0; l < 3; l++) vg[l] = -(w[1] * e[1][l] + w[2] * e[2][l]);
  c->b = (int32_t)body[B];
  c->a = nb == 2 ? (int32_t)body[0] : -1; /* the ground's index is set by the caller */
}

/* The rigid bodies and contacts of gp; err (one line) if gp is not a problem of rigid bodies. */
static PetscErrorCode RigidFromGlobal(const FclibGlobal *gp, Rigid *rb, char *err, size_t errlen)
{
  const PetscInt n = gp->M.m, nc = gp->H.n / 3;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(rb, sizeof(*rb)));
  if (gp->G.n > 0) {
    snprintf(err, errlen, "the problem has %d bilateral constraints (G)", gp->G.n);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (n % 6) {
    snprintf(err, errlen, "M has %" PetscInt_FMT " rows, not 6 per body", n);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  rb->nbodies   = n / 6;
  rb->nsolver   = rb->nbodies + nc; /* at most one ground per contact */
  rb->ncontacts = nc;
  PetscCall(PetscCalloc4(rb->nsolver + 1, &rb->inv_mass, 6 * rb->nsolver + 1, &rb->inv_inertia, 6 * rb->nsolver + 1,
                         &rb->vel_free, 6 * rb->nsolver + 1, &rb->vel));
  PetscCall(PetscCalloc3(nc + 1, &rb->terms, CONTACT_DOF_MAX * nc + 1, &rb->gamma, 4 * nc + 1, &rb->Q));
  PetscCall(
    MemoryAllocAligned(sizeof(Contact) * (size_t)(nc + 1), CONTACT_ALIGN, "the contacts", (void **)&rb->contact));
  for (PetscInt k = 0; k < rb->nbodies && !err[0]; k++)
    RigidBody(gp, k, &rb->inv_mass[k], rb->inv_inertia + 6 * k, rb->vel_free + 6 * k, err, errlen);
  rb->nsolver = rb->nbodies;
  for (PetscInt i = 0; i < nc && !err[0]; i++) {
    PetscBool ground = PETSC_FALSE;
    double    vg[3];
    RigidContact(gp, i, &rb->contact[i], &ground, vg, rb->Q + 4 * i, err, errlen);
    if (err[0] || !ground) continue;
    rb->contact[i].a = (int32_t)rb->nsolver; /* an immovable body moving at vg */
    for (int l = 0; l < 3; l++) rb->vel_free[6 * rb->nsolver + l] = vg[l];
    rb->nsolver++;
  }
  for (PetscInt i = 0; i < nc && !err[0]; i++) rb->terms[i].bn = gp->w[3 * i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Tangential rows between the file's frame and ccpdem's: y = Q x (to ccpdem's) or Q^T x (back). */
static void Rotate(const double Q[4], PetscBool back, const double x[2], double y[2])
{
  const double a = x[0], b = x[1];
  y[0] = back ? Q[0] * a + Q[2] * b : Q[0] * a + Q[1] * b;
  y[1] = back ? Q[1] * a + Q[3] * b : Q[2] * a + Q[3] * b;
}

/* sqrt(sum_i |r_i - Proj_K(r_i - uhat_i)|^2), uhat = u + mu |u_t| e_n (coulomb) or u (relaxed): the
 * natural-map error of FCLIB's merit function (MERIT_1, its local form; r and u in their own units
 * with a unit step, as FCLIB defines it). */
static double NaturalMapError(const double *r, const double *u, const double *mu, PetscInt nc, PetscBool coulomb)
{
  double sum = 0;
  for (PetscInt i = 0; i < nc; i++) {
    const double *ri = r + 3 * i, *ui = u + 3 * i;
    const double  s    = coulomb ? mu[i] * hypot(ui[1], ui[2]) : 0;
    double        z[3] = {ri[0] - (ui[0] + s), ri[1] - ui[1], ri[2] - ui[2]};
    cone_project3(mu[i], z);
    for (int k = 0; k < 3; k++) sum += (ri[k] - z[k]) * (ri[k] - z[k]);
  }
  return sqrt(sum);
}

/* The figures a solve reports. */
typedef struct {
  CCPSolveStats stats;
  double        seconds;
  double        dynamics; /* max |M v - H r - f| / max(|f|, max |H r|): how well v fits r */
} SolveFigures;

/* Solves gp (guess: the initial r, or NULL) into sol (r, u, v) with the CCP solver s. Not a problem
 * of rigid bodies: err says why. The place for another solver: one on assembled M and H. */
static PetscErrorCode SolveGlobal(CCPSolver s, const FclibGlobal *gp, const FclibSolution *guess, FclibSolution *sol,
                                  SolveFigures *fig, char *err, size_t errlen)
{
  Rigid      rb;
  CCPProblem P;
  double    *Hr, fmax = 0, hmax = 0, dmax = 0;
  double     t0;

  PetscFunctionBegin;
  PetscCall(RigidFromGlobal(gp, &rb, err, errlen));
  if (err[0]) {
    PetscCall(RigidDestroy(&rb));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt i = 0; guess && i < rb.ncontacts; i++) {
    double *g = rb.gamma + CONTACT_DOF_MAX * i;
    g[0]      = guess->r[3 * i];
    Rotate(rb.Q + 4 * i, PETSC_FALSE, guess->r + 3 * i + 1, g + 1);
  }
  P  = (CCPProblem){.nbodies     = rb.nsolver,
                    .inv_mass    = rb.inv_mass,
                    .inv_inertia = rb.inv_inertia,
                    .vel_free    = rb.vel_free,
                    .vel         = rb.vel,
                    .ncontacts   = rb.ncontacts,
                    .contact     = rb.contact,
                    .gamma       = rb.gamma,
                    .terms       = rb.terms};
  t0 = MPI_Wtime();
  PetscCall(CCPSolverSolve(s, &P, &fig->stats));
  fig->seconds = MPI_Wtime() - t0;
  PetscCall(FclibSolutionCreate(gp->M.m, gp->H.n, 0, sol));
  for (PetscInt i = 0; i < rb.ncontacts; i++) {
    const double *g = rb.gamma + CONTACT_DOF_MAX * i;
    sol->r[3 * i]   = g[0];
    Rotate(rb.Q + 4 * i, PETSC_TRUE, g + 1, sol->r + 3 * i + 1);
  }
  PetscCall(PetscArraycpy(sol->v, P.vel, 6 * rb.nbodies));
  PetscCall(PetscArraycpy(sol->u, gp->w, gp->H.n));
  FclibMatMultTranspose(&gp->H, sol->v, sol->u);
  /* M v - H r - f, from the file's matrices: the rebuilt bodies and contacts are the file's */
  PetscCall(PetscCalloc1(gp->M.m + 1, &Hr));
  FclibMatMult(&gp->H, sol->r, Hr);
  for (int k = 0; k < gp->M.m; k++) {
    fmax  = PetscMax(fmax, fabs(gp->f[k]));
    hmax  = PetscMax(hmax, fabs(Hr[k]));
    Hr[k] = -Hr[k] - gp->f[k];
  }
  FclibMatMult(&gp->M, sol->v, Hr);
  for (int k = 0; k < gp->M.m; k++) dmax = PetscMax(dmax, fabs(Hr[k]));
  fig->dynamics = dmax / PetscMax(PetscMax(fmax, hmax), PETSC_SMALL);
  for (int k = 0; k < gp->H.n; k++) /* v enters u: a non-finite v shows here too */
    PetscCheck(isfinite(sol->r[k]) && isfinite(sol->u[k]), PETSC_COMM_SELF, PETSC_ERR_FP,
               "The solve gave a non-finite impulse or velocity (contact %d): nothing written", k / 3);
  PetscCall(PetscFree(Hr));
  PetscCall(RigidDestroy(&rb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ccpdem fclib solve PATH: bad input reported (one line) with *exit_code 2; else solved, printed, written. */
static PetscErrorCode Solve(const char *path, int *exit_code)
{
  char           err[SCENARIO_ERR_MAX] = "", why[512] = "", out[PETSC_MAX_PATH_LEN] = "";
  FclibKind      kind;
  FclibGlobal    gp    = {0};
  FclibLocal     lp    = {0};
  FclibSolution  guess = {0}, sol = {0};
  SolveFigures   fig       = {0};
  CCPSolver      s         = NULL;
  PetscBool      use_guess = PETSC_TRUE, has_o = PETSC_FALSE, found = PETSC_FALSE;
  OptionErrors   oe;
  PetscErrorCode ierr;
  SolverType     type;
  double         tol;

  PetscFunctionBegin;
  PetscCall(FclibRead(path, &kind, &gp, &lp, err, sizeof(err)));
  if (kind == FCLIB_LOCAL)
    snprintf(err, sizeof(err),
             "%s holds a local problem (W %d x %d, q, mu): ccpdem solves a global problem of rigid bodies (M block "
             "diagonal with 6 x 6 mass and inertia blocks, H of rigid contacts), as -fclib_dump writes them",
             path, lp.W.m, lp.W.n);
  if (!err[0]) { /* the options, each value checked as bad input */
    PetscCall(OptionErrorsCatch(&oe));
    ierr = CCPSolverCreate(PETSC_COMM_SELF, &s);
    if (!ierr) ierr = CCPSolverSetFromOptions(s);
    if (!ierr) {
      PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "ccpdem fclib solve", NULL);
      ierr = PetscOptionsBool("-fclib_guess", "Start from the file's first guess (/guesses/1) when it has one", NULL,
                              use_guess, &use_guess, NULL);
      PetscOptionsEnd();
    }
    PetscCall(OptionErrorsRelease(&oe, ierr, err, sizeof(err)));
  }
  if (!err[0]) PetscCall(PetscOptionsGetString(NULL, NULL, "-o", out, sizeof(out), &has_o));
  if (!err[0] && has_o && !out[0]) snprintf(err, sizeof(err), "-o needs the name of the solution file to write");
  if (!err[0]) PetscCall(OptionsCheckUnknown(err, sizeof(err)));
  if (!err[0] && use_guess)
    PetscCall(FclibReadSolution(path, "/guesses/1", gp.M.m, gp.H.n, gp.G.n, &guess, &found, err, sizeof(err)));
  if (!err[0]) {
    PetscCall(SolveGlobal(s, &gp, found ? &guess : NULL, &sol, &fig, why, sizeof(why)));
    PetscCall(CCPSolverGetType(s, &type));
    PetscCall(CCPSolverGetTolerance(s, &tol));
  }
  PetscCall(CCPSolverDestroy(&s));
  if (!err[0] && why[0])
    snprintf(err, sizeof(err),
             "%s: %s; ccpdem solves a global problem of rigid bodies (M block diagonal with 6 x 6 mass and inertia "
             "blocks, each contact 3 columns of H of one rigid contact between two bodies or a body and the ground, no "
             "G), as -fclib_dump writes them",
             path, why);
  if (err[0]) ReportBadInput(err);
  else {
    const PetscInt nc          = gp.H.n / 3;
    char           linear[128] = ""; /* the IPM: its linear (CG) iterations and its polish's APGD iterations */
    if (type == SOLVER_IPM)
      PetscCall(PetscSNPrintf(linear, sizeof(linear),
                              ", %" PetscInt_FMT " linear iterations, %" PetscInt_FMT " polish (APGD) iterations",
                              fig.stats.linear_iterations, fig.stats.polish_iterations));
    else if (fig.stats.linear_iterations)
      PetscCall(
        PetscSNPrintf(linear, sizeof(linear), ", %" PetscInt_FMT " linear iterations", fig.stats.linear_iterations));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ccpdem: %s: %s%s%d bodies, %" PetscInt_FMT " contacts, started from %s\n",
                          path, gp.title, gp.title[0] ? ", " : "", gp.M.m / 6, nc,
                          found ? "the file's first guess" : "zero impulses"));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "  solve (%s): %" PetscInt_FMT " %siterations (%" PetscInt_FMT " passes%s), %.3g s, %s "
                          "tolerance %g m/s\n",
                          CCPSolverTypeName(type), fig.stats.iterations, type == SOLVER_IPM ? "Newton " : "",
                          fig.stats.passes, linear, fig.seconds,
                          fig.stats.converged ? "reached the" : "did NOT reach the", tol));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  residual (README \"Physics in brief\"): max %.6g m/s, rms %.6g m/s\n",
                          fig.stats.res_max, fig.stats.res_rms));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "  FCLIB merit (natural-map error of the Coulomb problem, u + mu |u_t| e_n): %.6g; of the "
                          "relaxed problem ccpdem solves: %.6g\n",
                          NaturalMapError(sol.r, sol.u, gp.mu, nc, PETSC_TRUE),
                          NaturalMapError(sol.r, sol.u, gp.mu, nc, PETSC_FALSE)));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  dynamics |M v - H r - f| / max(|f|, |H r|): %.3g\n", fig.dynamics));
    *exit_code = 0;
    if (has_o) {
      char werr[PETSC_MAX_PATH_LEN + 128];

      PetscCall(FclibWriteGlobal(PETSC_COMM_WORLD, out, &gp, &sol, found ? &guess : NULL, werr, sizeof(werr)));
      if (werr[0]) {
        PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR, "ccpdem: error: %s\n", werr));
        *exit_code = CCPDEM_EXIT_RUNTIME;
      } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  written: %s (the problem, /solution: r, u, v)\n", out));
    }
  }
  PetscCall(FclibGlobalDestroy(&gp));
  PetscCall(FclibLocalDestroy(&lp));
  PetscCall(FclibSolutionDestroy(&guess));
  PetscCall(FclibSolutionDestroy(&sol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CommandFclib(int argc, char **argv, int *exit_code)
{
  const char *what = argc > 2 ? argv[2] : "", *path = argc > 3 && argv[3][0] != '-' ? argv[3] : NULL;
  PetscMPIInt size;

  PetscFunctionBegin;
  *exit_code = CCPDEM_EXIT_BAD_INPUT;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (strcmp(what, "solve"))
    ReportBadInput("unknown fclib command; use: ccpdem fclib solve PROBLEM.hdf5 [-o SOLUTION.hdf5] [-ccp_* options]");
  else if (!path) ReportBadInput("no FCLIB problem given; usage: ccpdem fclib solve PROBLEM.hdf5 [-o SOLUTION.hdf5]");
  else if (size > 1)
    ReportBadInput("ccpdem fclib solve runs on one rank (the file holds no decomposition): run it without mpiexec");
  else PetscCall(Solve(path, exit_code));
  PetscFunctionReturn(PETSC_SUCCESS);
}
