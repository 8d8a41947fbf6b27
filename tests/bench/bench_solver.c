/* Solver benchmark (issue 33 item 1; a program that prints figures, not a test): every CCP solver on
 * the same settled problems, to 1e-4 m/s (GUIDE residual) from the warm start and cold, and steps at
 * the solver's default settings.
 *
 * Problems, each a checkpoint:
 *   beds (bench_piles.h; -beds N x LAYERS, default 10^4 spheres at 8, 16 and 32 layers and 10^5 at 8; none: no bed)
 *   with 3-dof contacts (rho = sigma = 0) and 6-dof ones (rho = sigma = 0.1 d = 2 mm; -dofs), between
 *   frictionless side walls, settled once on rank 0 without the command line's options: the jittered
 *   lattice, then -settle_steps (200) steps of APGD capped at -settle_its (100) iterations per 8
 *   layers, warm_start_decay 1, as bench_core settles, speeds limited in all but the last 40 steps
 *   (LimitSpeeds); cached in -cache DIR as bed-N<n>-L<layers>-<dof>dof-S<steps>-C<cap>.h5: delete a
 *   file (or DIR) to settle again;
 *   -rolling_compliance C_r (rad/(N m), default 0): the 6-dof beds' rolling springs (ccp/law.h), settled with
 *   them (bed names and cache files end in -Cr<C_r>);
 *   -pile FILE[,FILE...]: any ccpdem checkpoints (jobs/bench_solver.sh: the paper pile in its pour at 7.5 s and at
 *   rest at 15 s).
 * For every solver of -solvers (default jacobi,gauss-seidel,apgd,admm,ipm; the names this build's
 * -ccp_type does not take are left out of the default list) and every problem, a simulation
 * created from the checkpoint for each mode:
 *   warm:    one step to -tol (1e-4 m/s) within the solver's cap (-cap C for all, default 20000, ipm's at
 *            most 100 Newton iterations; -caps SOLVER=C or SOLVER:PROBLEM=C, ParseCaps), warm started
 *            with the checkpoint's impulses;
 *   cold:    the same with -ccp_warm_start_scale 0;
 *   default: -steps steps (3) at the scenario's solver settings (the beds': ccpdem's defaults, the
 *            pile's: its scenario file's), warm started: the median step's wall time.
 * Prints one line per (problem, solver, mode), then markdown tables (machine and date on top): the
 * figures per problem, and the cost per body of the deeper beds relative to the shallowest one of
 * the same N and contacts.
 * The bench sets -ccp_type, -ccp_max_it, -ccp_tol and -ccp_warm_start_scale itself; every other
 * option (-ccp_apgd_lipschitz_decay, a new method's) reaches every solver.
 * Usage: bench_solver [-cache DIR] [-beds 10000x8,...] [-dofs 3,6] [-pile CKPT,...] [-solvers LIST]
 *        [-cap C] [-caps SOLVER[:PROBLEM]=C,...] [-tol V] [-steps S] [-settle_steps S] [-settle_its C]
 *        [-rolling_compliance C_r] */
#include "bench_piles.h"
#include "base/memory_policy.h"
#include "io/h5.h"
#include <errno.h>
#include <libgen.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_SOLVERS    8
#define IPM_NEWTON_CAP 100 /* ipm's default cap (docs/history/ccp-solver-ipm.md: 8-22 Newton iterations) */
#define MAX_PROBLEMS   16
#define NAME_LEN       48
#define WHY_LEN        256
#define EXIT_BAD_INPUT 2
#define EXIT_RUNTIME   1

typedef enum {
  MODE_WARM,
  MODE_COLD,
  MODE_DEFAULT,
  MODES
} Mode;
static const char *const mode_names[MODES] = {"warm", "cold", "default"};

/* What one (problem, solver, mode) did. Warm and cold: the one step's solve; default: per step,
 * the means of the steps' counts and the median step. */
typedef struct {
  PetscBool ran; /* false: skipped (why in Result) */
  double    iterations, passes, linear_iterations;
  PetscInt  converged, steps; /* steps that reached the tolerance, of steps */
  PetscInt  cap;              /* the iteration cap it ran under */
  double    tol;              /* the tolerance it ran to (m/s) */
  double    residual;         /* the last step's max residual (m/s) */
  double    seconds;          /* warm, cold: the solve's wall time; default: the median step's */
  PetscInt  contacts;         /* of the last step */
} Figures;

typedef struct {
  Figures fig[MODES];
  char    why[WHY_LEN]; /* why the solver was skipped ("" if it ran) */
} Result;

typedef struct {
  char     name[NAME_LEN];
  char     file[PETSC_MAX_PATH_LEN];
  PetscInt n, layers, dof; /* beds: requested bodies, layers, contact dofs; a pile: 0 */
  PetscInt bodies;
  PetscInt cap[MAX_SOLVERS]; /* each solver's iteration cap on this problem (-cap, -caps) */
  Result   result[MAX_SOLVERS];
} Problem;

typedef struct {
  char      cache[PETSC_MAX_PATH_LEN];
  char      solver[MAX_SOLVERS][NAME_LEN];
  int       n_solvers;
  Problem   problem[MAX_PROBLEMS];
  int       n_problems;
  double    tol;
  PetscInt  steps, settle_steps, settle_its; /* settle_its: the settling steps' APGD cap per 8 layers */
  double    rolling_compliance;              /* -rolling_compliance: the 6-dof beds' rolling springs, rad/(N m) */
  PetscBool nonfinite;                       /* some solve returned a non-finite residual */
} Bench;

/* ------------------------------------------------------------------------------------------------ */
/* Options */

/* A PETSc error handler that keeps the first message of an error in ctx (WHY_LEN chars) and unwinds
 * the callers quietly, for a one-line report. */
static PetscErrorCode KeepMessage(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n,
                                  PetscErrorType p, const char *mess, void *ctx)
{
  char *why = (char *)ctx;
  (void)comm, (void)line, (void)fun, (void)file;
  if (p == PETSC_ERROR_INITIAL && !why[0]) snprintf(why, WHY_LEN, "%s", mess && mess[0] ? mess : "an error");
  return n;
}

/* A CCP solver set from the options database (-ccp_type name unless name is NULL): why "" if it
 * takes them, else the first error's message (an unknown -ccp_type: a method this build lacks,
 * such as admm before it is built in; a bad value). Collective on comm. */
static PetscErrorCode TrySolverOptions(MPI_Comm comm, const char *name, char why[WHY_LEN])
{
  CCPSolver s;

  PetscFunctionBegin;
  why[0] = 0;
  PetscCall(CCPSolverCreate(comm, &s));
  if (name) PetscCall(PetscOptionsSetValue(NULL, "-ccp_type", name));
  PetscCall(PetscPushErrorHandler(KeepMessage, why));
  const PetscErrorCode ierr = CCPSolverSetFromOptions(s);
  PetscCall(PetscPopErrorHandler());
  if (ierr && !why[0]) snprintf(why, WHY_LEN, "error %d", (int)ierr);
  PetscCall(PetscOptionsClearValue(NULL, "-ccp_type"));
  PetscCall(CCPSolverDestroy(&s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The settling steps' APGD cap of a bed of this depth: settle_its per 8 layers begun (the iterations
 * a step needs grow with the depth; 100 at 8 layers are bench_core's). */
static PetscInt SettleCap(const Bench *b, PetscInt layers) { return b->settle_its * ((layers + 7) / 8); }

/* A count as a name shows it: 10k, 100k, 1500. */
static void CountText(PetscInt n, char *s, size_t len)
{
  if (n % 1000 == 0) snprintf(s, len, "%" PetscInt_FMT "k", n / 1000);
  else snprintf(s, len, "%" PetscInt_FMT, n);
}

/* A problem's name: bed-10k-L8-3dof, bed-100k-L8-6dof. */
static void BedName(PetscInt n, PetscInt layers, PetscInt dof, char *name, size_t len)
{
  char count[32];
  CountText(n, count, sizeof(count));
  snprintf(name, len, "bed-%s-L%" PetscInt_FMT "-%" PetscInt_FMT "dof", count, layers, dof);
}

/* Every problem's caps: cap, then the entries of -caps in order, each SOLVER[:PREFIX]=C setting C
 * for that solver ("*": every one) on the problems whose names begin with PREFIX (none: every
 * problem), so that a later entry overrides an earlier one. A solver not benchmarked (admm on a
 * build without it) has nothing to cap. Bad input: msg set. */
static PetscErrorCode ParseCaps(Bench *b, PetscInt cap, char *msg, size_t len)
{
  char     *list[4 * MAX_SOLVERS];
  PetscInt  n = 4 * MAX_SOLVERS;
  PetscBool set;

  PetscFunctionBegin;
  for (int k = 0; k < b->n_problems; k++)
    for (int s = 0; s < b->n_solvers; s++)
      b->problem[k].cap[s] = strcmp(b->solver[s], "ipm") ? cap : PetscMin(cap, IPM_NEWTON_CAP);
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-caps", list, &n, &set));
  if (!set) n = 0;
  for (PetscInt e = 0; e < n; e++) {
    char      *eq = strchr(list[e], '='), *colon = strchr(list[e], ':'), *end = NULL;
    const long c = eq ? strtol(eq + 1, &end, 10) : 0;
    if (!msg[0] &&
        (!eq || (colon && colon > eq) || eq == list[e] || !end || end == eq + 1 || *end || c < 1 || c > PETSC_MAX_INT))
      snprintf(msg, len,
               "-caps: '%.60s': give SOLVER=CAP or SOLVER:PROBLEM=CAP entries (SOLVER * for all, PROBLEM the start of "
               "problem names), e.g. jacobi=2000,*:bed-100k=2000",
               list[e]);
    if (!msg[0]) {
      *eq = 0;
      if (colon) *colon = 0;
      const char *prefix = colon ? colon + 1 : "";
      for (int k = 0; k < b->n_problems; k++)
        for (int s = 0; s < b->n_solvers; s++)
          if ((!strcmp(list[e], "*") || !strcmp(list[e], b->solver[s])) &&
              !strncmp(b->problem[k].name, prefix, strlen(prefix)))
            b->problem[k].cap[s] = (PetscInt)c;
    }
    PetscCall(PetscFree(list[e]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The options into b; bad input: msg set (one line naming the option and what to change). */
static PetscErrorCode BenchOptions(Bench *b, char *msg, size_t len)
{
  static const char *const default_solvers[] = {"jacobi", "gauss-seidel", "apgd", "admm", "ipm"};
  char                    *list[2 * MAX_PROBLEMS + 1];
  PetscInt                 n, cap = 20000, dofs[4] = {3, 6}, n_dofs = 2;
  PetscBool                set;
  char                     why[WHY_LEN];

  PetscFunctionBegin;
  msg[0] = 0;
  PetscCall(PetscStrncpy(b->cache, "out/bench_solver", sizeof(b->cache)));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-cache", b->cache, sizeof(b->cache), NULL));
  b->tol          = 1e-4;
  b->steps        = 3;
  b->settle_steps = 200;
  b->settle_its   = BENCH_SETTLE_MAX_IT;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &b->tol, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &b->steps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-settle_steps", &b->settle_steps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-settle_its", &b->settle_its, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-cap", &cap, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-rolling_compliance", &b->rolling_compliance, NULL));
  if (!(b->rolling_compliance >= 0 && isfinite(b->rolling_compliance))) {
    snprintf(msg, len, "-rolling_compliance %g: give the rolling springs' compliance in rad/(N m), >= 0",
             b->rolling_compliance);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!(b->tol > 0 && isfinite(b->tol))) {
    snprintf(msg, len, "-tol %g: give a positive tolerance in m/s, e.g. 1e-4", b->tol);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (b->steps < 1 || b->steps > MEDIAN_MAX) {
    snprintf(msg, len, "-steps %" PetscInt_FMT ": give 1 to %d steps", b->steps, MEDIAN_MAX);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (b->settle_steps < 0 || b->settle_its < 1 || cap < 1) {
    snprintf(msg, len,
             "-settle_steps %" PetscInt_FMT ", -settle_its %" PetscInt_FMT ", -cap %" PetscInt_FMT
             ": give -settle_steps >= 0, -settle_its >= 1 and -cap >= 1",
             b->settle_steps, b->settle_its, cap);
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  /* the command line's other solver options, checked first (the probes below would take a bad one
   * for a missing method); -ccp_type is the bench's */
  PetscCall(PetscOptionsClearValue(NULL, "-ccp_type"));
  PetscCall(TrySolverOptions(PETSC_COMM_WORLD, NULL, why));
  if (why[0]) {
    snprintf(msg, len, "solver options on the command line: %s", why);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* solvers: the list given, or the default one less the names this build lacks */
  n = MAX_SOLVERS;
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-solvers", list, &n, &set));
  if (!set) {
    n = 0;
    for (size_t k = 0; k < sizeof(default_solvers) / sizeof(*default_solvers); k++)
      PetscCall(PetscStrallocpy(default_solvers[k], &list[n++]));
  }
  b->n_solvers = 0;
  for (PetscInt k = 0; k < n; k++) {
    PetscCall(TrySolverOptions(PETSC_COMM_SELF, list[k], why));
    const PetscBool ok = (PetscBool)!why[0];
    if (!ok && set && !msg[0])
      snprintf(msg, len, "-solvers: '%s' is not a -ccp_type of this build: give names that -ccp_type takes", list[k]);
    else if (ok && strlen(list[k]) < NAME_LEN) snprintf(b->solver[b->n_solvers++], NAME_LEN, "%s", list[k]);
    else if (!ok) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "(solver %s is not in this build: left out)\n", list[k]));
    else if (!msg[0]) snprintf(msg, len, "-solvers: '%.60s' is longer than %d characters", list[k], NAME_LEN - 1);
    PetscCall(PetscFree(list[k]));
  }
  if (msg[0]) PetscFunctionReturn(PETSC_SUCCESS);
  if (!b->n_solvers) {
    snprintf(msg, len, "-solvers: no solver to run: give a list such as jacobi,gauss-seidel,apgd");
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  /* problems: the beds, then the pile */
  n_dofs = 4;
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-dofs", dofs, &n_dofs, &set));
  if (!set) n_dofs = 2; /* 3,6 */
  for (PetscInt d = 0; d < n_dofs; d++)
    if (dofs[d] != 3 && dofs[d] != 6) {
      snprintf(msg, len, "-dofs %" PetscInt_FMT ": give 3 (no rolling friction), 6 (rho = sigma = 0.1 d) or 3,6",
               dofs[d]);
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  n = 2 * MAX_PROBLEMS;
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-beds", list, &n, &set));
  if (!set) {
    const char *beds[] = {"10000x8", "10000x16", "10000x32", "100000x8"};
    for (n = 0; n < 4; n++) PetscCall(PetscStrallocpy(beds[n], &list[n]));
  } else if (n == 1 && !strcmp(list[0], "none")) { /* -beds none: the -pile problems only */
    PetscCall(PetscFree(list[0]));
    n = 0;
  }
  b->n_problems = 0;
  for (PetscInt d = 0; d < n_dofs; d++)
    for (PetscInt k = 0; k < n; k++) {
      long long bn = 0, bl = 0;
      char      tail;
      if (!msg[0] && (sscanf(list[k], "%lldx%lld%c", &bn, &bl, &tail) != 2 || bn < 1 || bl < 1 || bn > 100000000)) {
        snprintf(msg, len, "-beds: '%.60s': give N x LAYERS (N up to 10^8), e.g. 10000x8,10000x32", list[k]);
        continue;
      }
      if (!msg[0] && b->n_problems == MAX_PROBLEMS)
        snprintf(msg, len, "more than %d problems: give fewer -beds", MAX_PROBLEMS);
      if (msg[0]) continue;
      Problem *p = &b->problem[b->n_problems++];
      p->n = (PetscInt)bn, p->layers = (PetscInt)bl, p->dof = dofs[d];
      BedName(p->n, p->layers, p->dof, p->name, sizeof(p->name));
      char springs[48] = "";
      if (p->dof == 6 && b->rolling_compliance > 0) {
        snprintf(springs, sizeof(springs), "-Cr%g", b->rolling_compliance);
        PetscCall(PetscStrlcat(p->name, springs, sizeof(p->name)));
      }
      PetscCall(PetscSNPrintf(p->file, sizeof(p->file),
                              "%s/bed-N%" PetscInt_FMT "-L%" PetscInt_FMT "-%" PetscInt_FMT "dof-S%" PetscInt_FMT
                              "-C%" PetscInt_FMT "%s.h5",
                              b->cache, p->n, p->layers, p->dof, b->settle_steps, SettleCap(b, p->layers), springs));
    }
  for (PetscInt k = 0; k < n; k++) PetscCall(PetscFree(list[k]));
  if (msg[0]) PetscFunctionReturn(PETSC_SUCCESS);
  n = 2 * MAX_PROBLEMS;
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-pile", list, &n, &set));
  for (PetscInt k = 0; set && k < n; k++) {
    const char *pile = list[k];
    if (!msg[0] && (!pile[0] || access(pile, R_OK)))
      snprintf(msg, len, "-pile '%.200s': %s: give ccpdem checkpoints (jobs/bench_solver.sh makes the paper pile's)",
               pile, pile[0] ? strerror(errno) : "empty name");
    if (!msg[0] && b->n_problems == MAX_PROBLEMS)
      snprintf(msg, len, "more than %d problems: give fewer -beds or -pile files", MAX_PROBLEMS);
    if (!msg[0]) {
      Problem *p = &b->problem[b->n_problems++];
      char     base[PETSC_MAX_PATH_LEN];
      PetscCall(PetscStrncpy(p->file, pile, sizeof(p->file)));
      PetscCall(PetscStrncpy(base, pile, sizeof(base)));
      snprintf(p->name, sizeof(p->name), "%.*s", NAME_LEN - 1, basename(base));
      char *dot = strrchr(p->name, '.');
      if (dot && dot != p->name) *dot = 0;
    }
    PetscCall(PetscFree(list[k]));
  }
  if (msg[0]) PetscFunctionReturn(PETSC_SUCCESS);
  if (!b->n_problems) snprintf(msg, len, "no problem to run: give -beds or -pile");
  if (!msg[0]) PetscCall(ParseCaps(b, cap, msg, len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* The problems' checkpoints */

/* The settling steps, all but the last SETTLE_FREE_STEPS, start with every body's speed (and the
 * speed of its surface, |omega| R) limited to SETTLE_SPEED_LIMIT, above the columns' free fall
 * through their 1 mm gaps (0.14 m/s). Without the limit, the capped steps of a 32-layer column
 * (6-dof, 400 iterations) pushed bodies upwards faster every step from step 8 on (residuals up to
 * 34 m/s), shot them out at 17 m/s and 1800 of 10368 left the domain; with it the same column
 * comes to rest (7e-3 m/s after the free steps) with all its bodies. */
#define SETTLE_SPEED_LIMIT 0.25 /* m/s */
#define SETTLE_FREE_STEPS  40

/* Scales each owned body's velocity (linear and angular alike) so that neither its speed nor its
 * surface speed |omega| R exceeds vmax. Not collective. */
static void LimitSpeeds(Simulation sim, double vmax)
{
  BodyStore *q = SimulationBodies(sim);

  for (PetscInt i = 0; i < q->n_owned; i++) {
    double      *v    = q->vel + 6 * (size_t)i;
    const double lin  = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    const double surf = q->radius[i] * sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
    const double f    = vmax / PetscMax(PetscMax(lin, surf), vmax);
    for (int k = 0; k < 6; k++) v[k] *= f;
  }
}

/* Builds and settles bed p on this rank alone (PETSC_COMM_SELF) in an options database of its
 * own, so that the cached bed does not depend on the command line, and writes its checkpoint to
 * p->file (through a temporary folder beside it, renamed into place when complete). */
static PetscErrorCode SettleBed(const Bench *b, const Problem *p)
{
  Simulation   sim;
  PetscOptions own;
  char tmp[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN], dir[PETSC_MAX_PATH_LEN], err[PETSC_MAX_PATH_LEN + 128];
  const double w0 = MPI_Wtime();

  PetscFunctionBegin;
  PetscCall(PetscOptionsCreate(&own));
  PetscCall(PetscOptionsPush(own));
  /* the bed's solver block: ccpdem's default cap and tolerance for the `default` mode; warm starts
   * kept whole (BENCH_SETTLE_SOLVER says why); the settling steps capped at -settle_its per 8 layers */
  PetscCall(BuildPile(PETSC_COMM_SELF, p->n, (int)p->layers, p->dof == 6 ? 0.2 * BENCH_SPHERE_RADIUS : 0.0,
                      p->dof == 6 ? b->rolling_compliance : 0.0, "{type: apgd, warm_start_decay: 1}", PETSC_TRUE,
                      &sim));
  PetscCall(CCPSolverSetFromScenario(SimulationSolver(sim), SOLVER_APGD, SettleCap(b, p->layers), BENCH_SETTLE_TOL));
  for (PetscInt s = 0; s < b->settle_steps; s++) {
    if (s < b->settle_steps - SETTLE_FREE_STEPS) LimitSpeeds(sim, SETTLE_SPEED_LIMIT);
    PetscCall(SimulationStep(sim));
  }
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.settling-%d", p->file, (int)getpid()));
  PetscCall(SimulationWriteCheckpoint(sim, tmp, path, sizeof(path), err, sizeof(err)));
  PetscCheck(!err[0], PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "%s", err);
  PetscCheck(!rename(path, p->file), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot rename %s to %s: %s", path, p->file,
             strerror(errno));
  PetscCall(PetscSNPrintf(dir, sizeof(dir), "%s/checkpoints", tmp));
  PetscCheck(!rmdir(dir) && !rmdir(tmp), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot remove %s: %s", dir,
             strerror(errno));
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "settled %s: %" PetscInt_FMT " bodies, %" PetscInt_FMT " steps in %.0f s, %" PetscInt64_FMT
                        " contacts, %" PetscInt64_FMT
                        " bodies left the domain, max speed %.2e m/s, last step %s (%" PetscInt_FMT
                        " APGD iterations); cached in %s\n",
                        p->name, SimulationBodies(sim)->n_owned, b->settle_steps, MPI_Wtime() - w0,
                        SimulationLastStep(sim)->contacts, SimulationRemoved(sim), SimulationLastStep(sim)->max_speed,
                        SimulationLastStep(sim)->converged ? "converged" : "capped",
                        SimulationLastStep(sim)->iterations, p->file));
  PetscCall(SimulationDestroy(&sim));
  PetscCall(PetscOptionsPop());
  PetscCall(PetscOptionsDestroy(&own));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective. The beds that are not cached are settled (on rank 0, the others waiting: a bed is
 * the same whatever the rank count that runs the bench); then every problem's checkpoint is read
 * once (bodies counted). A checkpoint that cannot be read: msg set (one line: the file and what to
 * do) and *code the exit code (-pile's: bad input; a cached bed's: a runtime failure). */
static PetscErrorCode PrepareProblems(Bench *b, char *msg, size_t len, int *code)
{
  PetscMPIInt rank;

  PetscFunctionBegin;
  msg[0] = 0;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(IoMakeDirs(PETSC_COMM_WORLD, b->cache, msg, len));
  if (msg[0]) {
    *code = 1;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (int k = 0; k < b->n_problems; k++) {
    Problem *p = &b->problem[k];
    int      missing;
    if (!p->layers) continue; /* the pile: the job's checkpoint */
    missing = rank == 0 && access(p->file, F_OK) != 0;
    PetscCallMPI(MPI_Bcast(&missing, 1, MPI_INT, 0, PETSC_COMM_WORLD));
    if (!missing) continue;
    /* rank 0's error (its trace printed) reaches every rank before any leaves */
    PetscErrorCode ierr = rank == 0 ? SettleBed(b, p) : PETSC_SUCCESS;
    PetscCallMPI(MPI_Bcast(&ierr, 1, MPI_INT, 0, PETSC_COMM_WORLD));
    PetscCheck(!ierr, PETSC_COMM_WORLD, PETSC_ERR_LIB, "settling %s on rank 0 failed (error %d above)", p->name,
               (int)ierr);
  }
  for (int k = 0; k < b->n_problems; k++) {
    Problem   *p = &b->problem[k];
    Simulation sim;
    char       err[512] = "";
    PetscCall(SimulationCreateFromCheckpoint(PETSC_COMM_WORLD, p->file, &sim, err, sizeof(err)));
    if (err[0]) {
      snprintf(msg, len, "%.400s%s", err,
               p->layers ? ": delete it (or the cache folder) to settle the bed again" : " (-pile)");
      *code = p->layers ? EXIT_RUNTIME : EXIT_BAD_INPUT;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    p->bodies = SimulationLastStep(sim)->bodies;
    PetscCall(SimulationDestroy(&sim));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* The runs */

static PetscErrorCode SetOrClear(const char *name, PetscBool on, const char *value)
{
  PetscFunctionBegin;
  if (on) PetscCall(PetscOptionsSetValue(NULL, name, value));
  else PetscCall(PetscOptionsClearValue(NULL, name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective. Solver k of b on problem p in mode m: a simulation from p's checkpoint, one step
 * (warm, cold) or b->steps (default), into f. A solver the simulation refuses (gauss-seidel on
 * several ranks): f->ran false, why set. */
static PetscErrorCode RunMode(Bench *b, Problem *p, int k, Mode m, Figures *f, char *why, size_t len)
{
  Simulation sim;
  char       value[32];
  double     wall[MEDIAN_MAX];
  const int  steps = m == MODE_DEFAULT ? (int)b->steps : 1;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(f, sizeof(*f)));
  PetscCall(PetscOptionsSetValue(NULL, "-ccp_type", b->solver[k]));
  PetscCall(PetscSNPrintf(value, sizeof(value), "%" PetscInt_FMT, p->cap[k]));
  PetscCall(SetOrClear("-ccp_max_it", (PetscBool)(m != MODE_DEFAULT), value));
  PetscCall(PetscSNPrintf(value, sizeof(value), "%.17g", b->tol));
  PetscCall(SetOrClear("-ccp_tol", (PetscBool)(m != MODE_DEFAULT), value));
  PetscCall(SetOrClear("-ccp_warm_start_scale", (PetscBool)(m == MODE_COLD), "0"));
  PetscCall(SimulationCreateFromCheckpoint(PETSC_COMM_WORLD, p->file, &sim, why, len));
  if (why[0]) PetscFunctionReturn(PETSC_SUCCESS);
  f->ran   = PETSC_TRUE;
  f->steps = steps;
  f->cap   = m == MODE_DEFAULT ? SimulationScenario(sim)->max_iterations : p->cap[k];
  PetscCall(CCPSolverGetTolerance(SimulationSolver(sim), &f->tol));
  for (int s = 0; s < steps; s++) {
    const double w0 = MPI_Wtime();
    PetscCall(SimulationStep(sim));
    wall[s]             = MPI_Wtime() - w0;
    const StepStats *st = SimulationLastStep(sim);
    f->iterations += (double)st->iterations / steps;
    f->passes += (double)st->passes / steps;
    f->linear_iterations += (double)st->linear_iterations / steps;
    f->converged += st->converged;
    f->residual = st->residual_max;
    f->contacts = st->contacts;
    if (!isfinite(st->residual_max)) b->nonfinite = PETSC_TRUE;
    if (m != MODE_DEFAULT) f->seconds = st->wall_solve;
  }
  if (m == MODE_DEFAULT) f->seconds = median(wall, steps);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define LINE_FMT "%-18s %-13s %-8s %10s %10s %8s %-9s %9s %10s\n"

/* The iterations as printed: "cap" where the cap stopped a solve short of the tolerance. */
static void ItsText(const Figures *f, char *s, size_t len)
{
  if (!f->ran) snprintf(s, len, "-");
  else if (f->steps == 1 && !f->converged && f->iterations >= f->cap) snprintf(s, len, "cap");
  else snprintf(s, len, "%.0f", f->iterations);
}

static PetscErrorCode PrintLine(const Problem *p, const char *solver, Mode m, const Figures *f, const char *why)
{
  char its[32], passes[32], lin[32], reached[32], res[32], sec[32];

  PetscFunctionBegin;
  if (!f->ran) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-18s %-13s %-8s skipped: %s\n", p->name, solver, mode_names[m], why));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  ItsText(f, its, sizeof(its));
  snprintf(passes, sizeof(passes), "%.0f", f->passes);
  snprintf(lin, sizeof(lin), "%.0f", f->linear_iterations);
  if (f->steps == 1) snprintf(reached, sizeof(reached), "%s", f->converged ? "yes" : "no");
  else snprintf(reached, sizeof(reached), "%" PetscInt_FMT "/%" PetscInt_FMT, f->converged, f->steps);
  snprintf(res, sizeof(res), "%.2e", f->residual);
  snprintf(sec, sizeof(sec), "%.3f", f->seconds);
  PetscCall(
    PetscPrintf(PETSC_COMM_WORLD, LINE_FMT, p->name, solver, mode_names[m], its, passes, lin, reached, res, sec));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */
/* Machine, date and the summary tables */

/* The first line of file that starts with key, without its newline, in s; fallback if none. */
static void ProcLine(const char *file, const char *key, const char *fallback, char *s, size_t len)
{
  FILE *f = fopen(file, "r");

  snprintf(s, len, "%s", fallback);
  if (!f) return;
  while (fgets(s, (int)len, f)) {
    s[strcspn(s, "\n")] = 0;
    if (!strncmp(s, key, strlen(key))) {
      fclose(f);
      return;
    }
  }
  snprintf(s, len, "%s", fallback);
  fclose(f);
}

/* The machine line: date, CPU, cores, ranks, load. */
static PetscErrorCode PrintMachine(const char *when)
{
  char        cpu[256], load[256], date[64];
  double      avg[3];
  time_t      now = time(NULL);
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  ProcLine("/proc/cpuinfo", "model name", "model name: unknown CPU", cpu, sizeof(cpu));
  ProcLine("/proc/loadavg", "", "? ? ?", load, sizeof(load));
  if (sscanf(load, "%lf %lf %lf", &avg[0], &avg[1], &avg[2]) == 3) /* the 1-, 5- and 15-minute averages */
    snprintf(load, sizeof(load), "%.2f %.2f %.2f", avg[0], avg[1], avg[2]);
  strftime(date, sizeof(date), "%Y-%m-%d %H:%M %Z", localtime(&now));
  const char *model = strchr(cpu, ':') ? strchr(cpu, ':') + 1 : cpu;
  while (*model == ' ' || *model == '\t') model++;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s, %s, %ld CPUs online, %d rank%s; load average %s\n", when, date,
                        model, sysconf(_SC_NPROCESSORS_ONLN), (int)size, size > 1 ? "s" : "", load));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A markdown cell of warm or cold figures: "548 (592 passes)" and the seconds ("> 16.2" where
 * the cap stopped the solve short of the tolerance). */
static void SolveCells(const Figures *f, char *its, char *sec, size_t len)
{
  if (!f->ran) {
    snprintf(its, len, "-");
    snprintf(sec, len, "-");
    return;
  }
  char i[32];
  ItsText(f, i, sizeof(i));
  if (f->linear_iterations > 0) snprintf(its, len, "%s (%.0f, %.0f lin.)", i, f->passes, f->linear_iterations);
  else snprintf(its, len, "%s (%.0f)", i, f->passes);
  if (!strcmp(i, "cap")) snprintf(its, len, "cap %" PetscInt_FMT " (%.0f)", f->cap, f->passes);
  snprintf(sec, len, "%s%.3f", f->converged ? "" : "> ", f->seconds);
}

static PetscErrorCode PrintTables(const Bench *b)
{
  char wi[64], ws[64], ci[64], cs[64];

  PetscFunctionBegin;
  PetscCall(
    PetscPrintf(PETSC_COMM_WORLD,
                "\n| problem | bodies | contacts | solver | warm: its to %g m/s (passes%s) | warm: s | cold: its "
                "(passes) | cold: s | a step at the scenario's settings: s (its, cap; steps converged to tol) |\n"
                "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
                b->tol, ", lin. its where any"));
  for (int k = 0; k < b->n_problems; k++) {
    const Problem *p = &b->problem[k];
    for (int s = 0; s < b->n_solvers; s++) {
      const Figures *f = p->result[s].fig;
      SolveCells(&f[MODE_WARM], wi, ws, sizeof(wi));
      SolveCells(&f[MODE_COLD], ci, cs, sizeof(ci));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                            "| %s | %" PetscInt_FMT " | %" PetscInt_FMT " | %s | %s | %s | %s | %s | ", p->name,
                            p->bodies, f[MODE_WARM].contacts, b->solver[s], wi, ws, ci, cs));
      if (f[MODE_DEFAULT].ran)
        PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                              "%.3f (%.0f its, cap %" PetscInt_FMT "; %" PetscInt_FMT "/%" PetscInt_FMT " to %g) |\n",
                              f[MODE_DEFAULT].seconds, f[MODE_DEFAULT].iterations, f[MODE_DEFAULT].cap,
                              f[MODE_DEFAULT].converged, f[MODE_DEFAULT].steps, f[MODE_DEFAULT].tol));
      else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s |\n", p->result[s].why));
    }
  }
  /* Per body: each bed's solve to the tolerance over its bodies, for the beds of one N and contact
   * kind at several depths; the ratio of the deepest to the shallowest (the target: at most 2). */
  PetscBool header = PETSC_FALSE;
  for (int k = 0; k < b->n_problems; k++) {
    const Problem *shallow = &b->problem[k], *deep = shallow;
    PetscBool      first = PETSC_TRUE; /* shallow is the shallowest of its group (the first listed of equals) */
    if (!shallow->layers) continue;
    for (int j = 0; j < b->n_problems; j++) {
      const Problem *q = &b->problem[j];
      if (!q->layers || q->n != shallow->n || q->dof != shallow->dof || j == k) continue;
      if (q->layers < shallow->layers || (q->layers == shallow->layers && j < k)) first = PETSC_FALSE;
      if (q->layers > deep->layers) deep = q;
    }
    if (!first || deep == shallow) continue;
    if (!header)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                            "\n| beds | solver | mode | us per body to %g m/s, by depth | its, by depth | deepest / "
                            "shallowest, per body |\n| --- | --- | --- | --- | --- | --- |\n",
                            b->tol));
    header = PETSC_TRUE;
    for (int s = 0; s < b->n_solvers; s++)
      for (int m = MODE_WARM; m <= MODE_COLD; m++) {
        char           cost[256] = "", its[256] = "", ratio[64], group[NAME_LEN];
        const Figures *fs = &shallow->result[s].fig[m], *fd = &deep->result[s].fig[m];
        for (PetscInt layers = shallow->layers; layers <= deep->layers; layers++)
          for (int j = 0; j < b->n_problems; j++) { /* the first bed of this depth in the group */
            const Problem *q = &b->problem[j];
            const Figures *f = &q->result[s].fig[m];
            char           c[64], i[32];
            if (q->n != shallow->n || q->dof != shallow->dof || q->layers != layers) continue;
            ItsText(f, i, sizeof(i));
            if (f->ran)
              snprintf(c, sizeof(c), "%s%s%.2f (L%" PetscInt_FMT ")", cost[0] ? ", " : "", f->converged ? "" : "> ",
                       1e6 * f->seconds / q->bodies, q->layers);
            else snprintf(c, sizeof(c), "%s- (L%" PetscInt_FMT ")", cost[0] ? ", " : "", q->layers);
            strncat(cost, c, sizeof(cost) - strlen(cost) - 1);
            snprintf(c, sizeof(c), "%s%s", its[0] ? " / " : "", i);
            strncat(its, c, sizeof(its) - strlen(its) - 1);
            break;
          }
        if (!fs->ran || !fd->ran) snprintf(ratio, sizeof(ratio), "-");
        else if (!fs->converged) snprintf(ratio, sizeof(ratio), "? (cap at L%" PetscInt_FMT ")", shallow->layers);
        else
          snprintf(ratio, sizeof(ratio), "%s%.2f", fd->converged ? "" : "> ",
                   (fd->seconds / deep->bodies) / (fs->seconds / shallow->bodies));
        CountText(shallow->n, group, sizeof(group));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "| %s, %" PetscInt_FMT "-dof | %s | %s | %s | %s | %s |\n", group,
                              shallow->dof, b->solver[s], mode_names[m], cost, its, ratio));
      }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
  static Bench b;
  char         msg[512];
  int          code = EXIT_BAD_INPUT;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  const double w0 = MPI_Wtime();
  PetscCall(MemoryPolicyApply()); /* as ccpdem does */
  PetscCall(PrintMachine("bench_solver start"));
  PetscCall(BenchOptions(&b, msg, sizeof(msg)));
  if (!msg[0]) PetscCall(PrepareProblems(&b, msg, sizeof(msg), &code));
  if (msg[0]) {
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR, "bench_solver: error: %s\n", msg));
    PetscCall(PetscFinalize());
    return code;
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, LINE_FMT, "problem", "solver", "mode", "its", "passes", "lin.its", "reached",
                        "residual", "seconds"));
  for (int k = 0; k < b.n_problems; k++) {
    Problem *p = &b.problem[k];
    for (int s = 0; s < b.n_solvers; s++)
      for (int m = 0; m < MODES; m++) {
        Result *r = &p->result[s];
        if (r->why[0]) continue; /* the simulation refused this solver in an earlier mode */
        PetscCall(RunMode(&b, p, s, (Mode)m, &r->fig[m], r->why, sizeof(r->why)));
        PetscCall(PrintLine(p, b.solver[s], (Mode)m, &r->fig[m], r->why));
      }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  PetscCall(PrintMachine("bench_solver"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%.0f s in all; to %g m/s: one step from the checkpoint, warm (its impulses) or cold "
                        "(-ccp_warm_start_scale 0), solve wall time; defaults: median of %" PetscInt_FMT
                        " steps' wall time, the scenario's cap and tolerance\n",
                        MPI_Wtime() - w0, b.tol, b.steps));
  PetscCall(PrintTables(&b));
  if (b.nonfinite)
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR,
                           "bench_solver: error: a solve returned a non-finite residual (lines above)\n"));
  PetscCall(PetscFinalize());
  return b.nonfinite ? EXIT_RUNTIME : 0;
}
