/* ccpdem: the one entry point.
 *   ccpdem run [SCENARIO.yaml] [-o OUT] [PETSc options]   (no scenario: the embedded default pile)
 *   ccpdem restart CHECKPOINT.h5 [-o OUT] [--until T]     (continue a checkpointed run)
 *   ccpdem check SCENARIO.yaml                            (validate only)
 *   ccpdem info FILE.h5                                   (summary of a snapshot or checkpoint)
 *   ccpdem analyze repose SNAPSHOT.h5 [--x-range A,B]     (angle of repose of a pile)
 * Exit codes: 0 success, CCPDEM_EXIT_BAD_INPUT (2) rejected input, CCPDEM_EXIT_RUNTIME (1) other
 * failures, CCPDEM_EXIT_REQUEUE (3) checkpointed on a signal. */
#include "scenario/scenario.h"
#include "step/population.h"
#include "step/simulation.h"
#include "app/run_loop.h"
#include "io/checkpoint.h"
#include "default_scenario.h"
#include "app/commands.h"
#include "base/memory_policy.h"
#include "app/option_check.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <sys/stat.h>

static const char help[] = "ccpdem: granular and multibody dynamics with frictional contact (CCP time stepping).\n"
                           "Usage:\n"
                           "  ccpdem run [SCENARIO.yaml] [-o OUT] [options]   run a scenario (default: the embedded pile)\n"
                           "  ccpdem restart CHECKPOINT.h5 [-o OUT] [--until T]\n"
                           "                                                  continue a run from a checkpoint, into OUT (default:\n"
                           "                                                  the checkpoint's run directory), to the end time T\n"
                           "                                                  (default: the scenario's time.end)\n"
                           "  ccpdem check SCENARIO.yaml [options]            validate a scenario (for the solver the options name) and exit\n"
                           "  ccpdem info FILE.h5                             summary of a snapshot or a checkpoint\n"
                           "  ccpdem analyze repose SNAPSHOT.h5 [--x-range A,B] [--floor Z]\n"
                           "                                                  angle of repose of the pile (of bodies with A <= x <= B)\n"
                           "Options: -o OUT (output directory, overrides output.dir), -progress_interval S,\n"
                           "checkpoints: -checkpoint_every_steps N, -checkpoint_interval T (simulated s, overrides\n"
                           "output.checkpoint_interval), -checkpoint_wall_interval W (wall s), -checkpoint_keep K (default 2);\n"
                           "SIGUSR1 or SIGTERM: finish the step, checkpoint, exit 3 (requeue).\n"
                           "Solver options -ccp_* (see below), and every PETSc option (-log_view profiles the phases).\n"
                           "Exit codes: 0 done, 1 runtime failure, 2 bad input, 3 checkpointed on a signal (requeue).\n";

/* One line on stderr for input the user must fix; the caller exits with CCPDEM_EXIT_BAD_INPUT. */
static void ReportBadInput(const char *msg)
{
  PetscMPIInt rank = 0;
  if (MPI_Comm_rank(PETSC_COMM_WORLD, &rank) != MPI_SUCCESS) rank = 0; /* print it anyway */
  if (!rank) fprintf(stderr, "ccpdem: error: %s\n", msg);
}

/* mkdir -p; returns 0 or an errno. */
static int MakeDirs(const char *path)
{
  char buf[SCENARIO_PATH_MAX];
  if (strlen(path) >= sizeof(buf)) return ENAMETOOLONG;
  strcpy(buf, path);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(buf, 0777) && errno != EEXIST) return errno;
    *p = '/';
  }
  if (mkdir(buf, 0777) && errno != EEXIST) return errno;
  struct stat st;
  if (stat(buf, &st) || !S_ISDIR(st.st_mode)) return ENOTDIR;
  if (access(buf, W_OK)) return errno;
  return 0;
}

/* The positional argument after the command, if any (PETSc options start with '-'). */
static const char *Positional(int argc, char **argv)
{
  return argc > 2 && argv[2][0] != '-' ? argv[2] : NULL;
}

static PetscErrorCode LoadScenario(const char *path, Scenario *sc, char *err, size_t errlen, int *bad)
{
  PetscFunctionBegin;
  *bad = path ? scenario_load_file(path, sc, err, errlen) : scenario_load_string(ccpdem_default_scenario, "<embedded default scenario>", sc, err, errlen);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CommandCheck(const char *path, int *exit_code)
{
  Scenario  sc;
  BodyStore bodies;
  char      err[SCENARIO_ERR_MAX] = "";
  int       bad;

  PetscFunctionBegin;
  *exit_code = CCPDEM_EXIT_BAD_INPUT;
  if (!path) {
    ReportBadInput("no scenario given; usage: ccpdem check SCENARIO.yaml");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(LoadScenario(path, &sc, err, sizeof(err), &bad));
  if (!bad) PetscCall(OptionsCheckUnknown(err, sizeof(err)));
  if (bad || err[0]) {
    ReportBadInput(err);
    if (!bad) scenario_free(&sc);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(BodyStoreCreate(&bodies));
  {
    OptionErrors oe; /* the checks read options (-ccp_packed): a bad value is bad input too */
    PetscCall(OptionErrorsCatch(&oe));
    const PetscErrorCode ierr = PopulationBuild(&sc, &bodies, err, sizeof(err));
    PetscCall(OptionErrorsRelease(&oe, ierr, err, sizeof(err)));
  }
  if (err[0]) ReportBadInput(err);
  else {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: ok: %" PetscInt_FMT " bodies, %d emitters, %d walls, %d materials, %g s in steps of %g s\n", path, bodies.n_owned, sc.n_emitters, sc.n_walls, sc.n_materials, sc.time_end, sc.time_step));
    *exit_code = 0;
  }
  PetscCall(BodyStoreDestroy(&bodies));
  scenario_free(&sc);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The simulation of scenario sc (from checkpoint file `from` when sc is NULL) and the run loop's
 * options, every option value checked: a bad one is bad input in err (one message, no trace, and
 * *sim NULL or still to be destroyed), as a bad scenario or checkpoint is. */
static PetscErrorCode CreateChecked(const char *from, Scenario *sc, Simulation **sim, char *err, size_t errlen)
{
  OptionErrors   oe;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  *sim = NULL;
  PetscCall(OptionErrorsCatch(&oe));
  ierr = sc ? SimulationCreate(PETSC_COMM_WORLD, sc, sim, err, errlen) : CheckpointRead(PETSC_COMM_WORLD, from, sim, err, errlen);
  if (!ierr && !err[0]) ierr = RunLoopCheckOptions(*sim);
  PetscCall(OptionErrorsRelease(&oe, ierr, err, errlen));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The last checks before a run writes anything: no option left that nothing read (a
 * misspelling), and the output directory made (by rank 0) and writable. On bad input: reported,
 * *sim destroyed, *ok false. dir_hint: how to choose another directory. */
static PetscErrorCode ClaimOutput(Simulation **sim, const char *outdir, const char *dir_hint, PetscBool *ok)
{
  char        err[SCENARIO_ERR_MAX] = "";
  int         rc = 0;
  PetscMPIInt rank;

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(OptionsCheckUnknown(err, sizeof(err)));
  if (!err[0]) { /* all checks passed: only now touch the output directory */
    if (!rank) rc = MakeDirs(outdir);
    PetscCallMPI(MPI_Bcast(&rc, 1, MPI_INT, 0, PETSC_COMM_WORLD));
    if (rc) PetscCall(PetscSNPrintf(err, sizeof(err), "output directory '%s' cannot be created or written (%s); %s", outdir, strerror(rc), dir_hint));
  }
  if (err[0]) {
    ReportBadInput(err);
    PetscCall(SimulationDestroy(sim));
  } else *ok = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CommandRun(const char *path, int *exit_code)
{
  Scenario    sc;
  Simulation *sim = NULL;
  char        err[SCENARIO_ERR_MAX] = "", outdir[SCENARIO_PATH_MAX];
  PetscBool   has_o, requeue, ok;
  int         bad;

  PetscFunctionBegin;
  *exit_code = CCPDEM_EXIT_BAD_INPUT;
  PetscCall(LoadScenario(path, &sc, err, sizeof(err), &bad));
  if (bad) {
    ReportBadInput(err);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscStrncpy(outdir, sc.output_dir, sizeof(outdir)));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-o", outdir, sizeof(outdir), &has_o));
  PetscCall(CreateChecked(path, &sc, &sim, err, sizeof(err)));
  if (err[0]) {
    ReportBadInput(err);
    if (sim) PetscCall(SimulationDestroy(&sim));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    PetscBool help;
    PetscCall(PetscOptionsHasHelp(NULL, &help));
    if (help) { /* the options were listed while the simulation was set up: nothing to run */
      PetscCall(SimulationDestroy(&sim));
      *exit_code = 0;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCall(ClaimOutput(&sim, outdir, "choose another with -o OUT or output.dir", &ok));
  if (!ok) PetscFunctionReturn(PETSC_SUCCESS);
  PetscInt nbodies;
  PetscCallMPI(MPI_Allreduce(&sim->bodies.n_owned, &nbodies, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ccpdem: %s: %" PetscInt_FMT " bodies, %d walls, h = %g s to t = %g s, output in %s\n", path ? path : "embedded default scenario", nbodies, sim->sc.n_walls, sim->sc.time_step, sim->sc.time_end, outdir));
  PetscCall(RunLoop(sim, outdir, &requeue));
  PetscCall(SimulationDestroy(&sim));
  *exit_code = requeue ? CCPDEM_EXIT_REQUEUE : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The run directory of a checkpoint: the parent of its checkpoints/ folder. 0, or 1 if the file
 * does not lie in a folder named checkpoints. */
static int RunDirOf(const char *ckpt, char *dir, size_t len)
{
  char *slash;

  if (snprintf(dir, len, "%s", ckpt) >= (int)len) return 1;
  slash = strrchr(dir, '/');
  if (!slash) return 1;
  *slash = 0; /* dir = folder of the file */
  slash  = strrchr(dir, '/');
  if (strcmp(slash ? slash + 1 : dir, "checkpoints")) return 1;
  if (slash == dir) strcpy(dir, "/");
  else if (slash) *slash = 0;
  else strcpy(dir, ".");
  return 0;
}

/* --until T (or -until T) from the command line: 0 absent, 1 given in *t, -1 not a number. */
static int UntilOption(int argc, char **argv, double *t)
{
  for (int i = 2; i < argc; i++) {
    char *end;
    if (strcmp(argv[i], "--until") && strcmp(argv[i], "-until")) continue;
    if (i + 1 >= argc) return -1;
    *t = strtod(argv[i + 1], &end);
    return end != argv[i + 1] && !*end && isfinite(*t) ? 1 : -1;
  }
  return 0;
}

static PetscErrorCode CommandRestart(int argc, char **argv, int *exit_code)
{
  const char *ckpt = Positional(argc, argv);
  Simulation *sim  = NULL;
  char        err[SCENARIO_ERR_MAX] = "", outdir[SCENARIO_PATH_MAX];
  PetscBool   has_o, requeue, ok;
  double      until = 0;
  int         until_given;

  PetscFunctionBegin;
  *exit_code = CCPDEM_EXIT_BAD_INPUT;
  if (!ckpt) {
    ReportBadInput("no checkpoint given; usage: ccpdem restart CHECKPOINT.h5 [-o OUT] [--until T]");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  until_given = UntilOption(argc, argv, &until);
  if (until_given < 0) {
    ReportBadInput("--until needs a number of simulated seconds, e.g. --until 2.5");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  outdir[0] = 0;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-o", outdir, sizeof(outdir), &has_o));
  if (!has_o && RunDirOf(ckpt, outdir, sizeof(outdir))) {
    PetscCall(PetscSNPrintf(err, sizeof(err), "%s is not inside a run's checkpoints/ folder, so its run directory is unknown; give the output directory with -o OUT", ckpt));
    ReportBadInput(err);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(CreateChecked(ckpt, NULL, &sim, err, sizeof(err)));
  if (err[0]) {
    ReportBadInput(err);
    if (sim) PetscCall(SimulationDestroy(&sim));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (until_given) {
    if (llround(until / sim->sc.time_step) <= sim->step) {
      PetscCall(PetscSNPrintf(err, sizeof(err), "--until %g is not after the checkpoint's time %.17g s (step %" PetscInt_FMT " of %g s); give a later end time", until, sim->time, sim->step, sim->sc.time_step));
      ReportBadInput(err);
      PetscCall(SimulationDestroy(&sim));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    sim->sc.time_end = until;
  } else if (llround(sim->sc.time_end / sim->sc.time_step) <= sim->step) {
    PetscCall(PetscSNPrintf(err, sizeof(err), "%s is already at the scenario's end time %g s; give a later end time with --until T", ckpt, sim->sc.time_end));
    ReportBadInput(err);
    PetscCall(SimulationDestroy(&sim));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(ClaimOutput(&sim, outdir, "choose another with -o OUT", &ok));
  if (!ok) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ccpdem: restart from %s: step %" PetscInt_FMT ", t = %.17g s, %" PetscInt_FMT " bodies, to t = %g s, output in %s\n", ckpt, sim->step, sim->time, sim->last.bodies, sim->sc.time_end, outdir));
  PetscCall(RunLoop(sim, outdir, &requeue));
  PetscCall(SimulationDestroy(&sim));
  *exit_code = requeue ? CCPDEM_EXIT_REQUEUE : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CommandInfo(const char *path, int *exit_code)
{
  char err[SCENARIO_ERR_MAX] = "";

  PetscFunctionBegin;
  *exit_code = CCPDEM_EXIT_BAD_INPUT;
  if (!path) {
    ReportBadInput("no file given; usage: ccpdem info FILE.h5");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(CheckpointPrintInfo(PETSC_COMM_WORLD, path, err, sizeof(err)));
  if (err[0]) ReportBadInput(err);
  else *exit_code = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr;
  int            exit_code = CCPDEM_EXIT_RUNTIME;
  const char    *cmd       = argc > 1 ? argv[1] : "";

  const int      runs = !strcmp(cmd, "run") || !strcmp(cmd, "restart");

  if (runs && RunLoopCatchStopSignals()) return CCPDEM_EXIT_RUNTIME; /* a batch system's signal may come at any time */
  ierr = PetscInitialize(&argc, &argv, NULL, help);
  if (ierr) return CCPDEM_EXIT_RUNTIME;
  if (runs && RunLoopCatchStopSignals()) ierr = PETSC_ERR_SYS;
  if (!ierr) ierr = MemoryPolicyApply();
  if (ierr) exit_code = CCPDEM_EXIT_RUNTIME;
  else if (!strcmp(cmd, "run")) ierr = CommandRun(Positional(argc, argv), &exit_code);
  else if (!strcmp(cmd, "restart")) ierr = CommandRestart(argc, argv, &exit_code);
  else if (!strcmp(cmd, "check")) ierr = CommandCheck(Positional(argc, argv), &exit_code);
  else if (!strcmp(cmd, "info")) ierr = CommandInfo(Positional(argc, argv), &exit_code);
  else if (!strcmp(cmd, "analyze")) {
    char err[SCENARIO_ERR_MAX];
    ierr = CommandAnalyze(argc, argv, err, sizeof(err), &exit_code);
    if (!ierr && err[0]) ReportBadInput(err);
  }
  else {
    char msg[256];
    PetscHelpPrintf(PETSC_COMM_WORLD, "%s", help);
    snprintf(msg, sizeof(msg), "unknown command '%s'; use 'run', 'restart', 'check', 'info' or 'analyze'", cmd);
    if (strcmp(cmd, "-help") && strcmp(cmd, "--help")) ReportBadInput(msg);
    exit_code = strcmp(cmd, "-help") && strcmp(cmd, "--help") ? CCPDEM_EXIT_BAD_INPUT : 0;
  }
  if (ierr) exit_code = CCPDEM_EXIT_RUNTIME;
  ierr = PetscFinalize();
  if (ierr && !exit_code) exit_code = CCPDEM_EXIT_RUNTIME;
  return exit_code;
}
