/* ccpdem run [SCENARIO.yaml] [-o OUT] [--overwrite] and ccpdem restart CHECKPOINT.h5 [-o OUT]
 * [--until T] (app/commands.h): the simulation from a scenario or a checkpoint, every option value
 * checked, then the output directory claimed for the run (io/run_dir.h: one run, one output
 * directory), then the run loop (app/run_loop.h). Nothing is written before every check has
 * passed. */
#include "app/commands.h"
#include "app/run_loop.h"
#include "app/option_check.h"
#include "io/run_dir.h"
#include "default_scenario.h"
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* --overwrite (or -overwrite): PETSc keeps "--name" as the option "-name". */
static PetscErrorCode OverwriteOption(PetscBool *overwrite)
{
  PetscBool dashes = PETSC_FALSE, dash = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "--overwrite", &dashes, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-overwrite", &dash, NULL));
  *overwrite = (PetscBool)(dashes || dash);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CommandCreateSimulation(const char *from, Scenario *sc, Simulation *sim, PetscBool *overwrite, char *err,
                                       size_t errlen)
{
  OptionErrors   oe;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  *sim       = NULL;
  *overwrite = PETSC_FALSE;
  PetscCall(OptionErrorsCatch(&oe));
  ierr = sc ? SimulationCreate(PETSC_COMM_WORLD, sc, sim, err, errlen)
            : SimulationCreateFromCheckpoint(PETSC_COMM_WORLD, from, sim, err, errlen);
  if (!ierr && !err[0]) ierr = RunLoopCheckOptions(*sim);
  if (!ierr && !err[0]) ierr = OverwriteOption(overwrite);
  PetscCall(OptionErrorsRelease(&oe, ierr, err, errlen));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0's part of ClaimOutput: returns 0, or the exit code of a refusal with its line in err. */
static int ClaimOnRoot(const char *outdir, PetscBool restart, PetscBool overwrite, RunId *id, char *err, size_t errlen)
{
  RunDirContents c;
  char           failed[PETSC_MAX_PATH_LEN];
  const char    *hint = restart ? "choose another with -o OUT" : "choose another with -o OUT or output.dir";
  int            e;

  if ((e = RunDirInspect(outdir, &c))) {
    snprintf(err, errlen, "output directory '%s' cannot be read (%s); %s", outdir, strerror(e), hint);
    return CCPDEM_EXIT_BAD_INPUT;
  }
  if (c.present[0] && !restart && !overwrite) {
    snprintf(err, errlen,
             "output directory '%s' holds the files of another run (%s); choose a new directory with -o OUT (or "
             "output.dir), or add --overwrite to delete that run's files first",
             outdir, c.present);
    return CCPDEM_EXIT_BAD_INPUT;
  }
  if (c.present[0] && restart && !(c.id_valid && !strcmp(c.id.hex, id->hex))) {
    if (c.id_valid)
      snprintf(err, errlen,
               "output directory '%s' belongs to another run (its run.id %s, the checkpoint's run %s); continue this "
               "run into a new or empty directory with -o OUT",
               outdir, c.id.hex, id->hex);
    else
      snprintf(err, errlen,
               "output directory '%s' holds run files (%s) but no run.id saying they are this run's; continue into a "
               "new or empty directory with -o OUT",
               outdir, c.present);
    return CCPDEM_EXIT_BAD_INPUT;
  }
  /* all checks passed: only now touch the output directory */
  if (c.present[0] && (e = RunDirClear(outdir, overwrite, failed, sizeof(failed)))) {
    snprintf(err, errlen, "cannot delete %.900s (%s)%s; delete it yourself, or %s", failed, strerror(e),
             overwrite ? " for --overwrite" : "", hint);
    return CCPDEM_EXIT_BAD_INPUT;
  }
  if ((e = MakeDirs(outdir))) {
    snprintf(err, errlen, "output directory '%s' cannot be created or written (%s); %s", outdir, strerror(e), hint);
    return CCPDEM_EXIT_BAD_INPUT;
  }
  if (restart && c.present[0]) return 0; /* its own directory: run.id is there */
  if (!restart && (e = RunIdNew(id))) {
    snprintf(err, errlen, "cannot draw a run id: getrandom: %s", strerror(e));
    return CCPDEM_EXIT_RUNTIME;
  }
  if ((e = RunIdWrite(outdir, id))) {
    snprintf(err, errlen, "writing %s/run.id: %s; no checkpoint was written", outdir, strerror(e));
    return CCPDEM_EXIT_RUNTIME;
  }
  return 0;
}

/* The last checks before a run writes anything, then the output directory claimed for it (rank 0):
 * no option left that nothing read (a misspelling); run: outdir holds no other run's files (with
 * overwrite they are deleted first), gets a new run id in OUT/run.id, and sim that id; restart: outdir
 * is this run's (OUT/run.id is the checkpoint's run id) or holds no run's files (it gets run.id).
 * Refused: reported (one line), *sim destroyed, *exit_code set, *ok false. */
static PetscErrorCode ClaimOutput(Simulation *sim, const char *outdir, PetscBool restart, PetscBool overwrite,
                                  int *exit_code, PetscBool *ok)
{
  char        err[SCENARIO_ERR_MAX] = "";
  int         rc                    = CCPDEM_EXIT_BAD_INPUT;
  RunId       id                    = *SimulationRunId(*sim);
  PetscMPIInt rank;

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(OptionsCheckUnknown(err, sizeof(err)));
  if (!err[0]) {
    if (!rank) rc = ClaimOnRoot(outdir, restart, overwrite, &id, err, sizeof(err));
    PetscCallMPI(MPI_Bcast(&rc, 1, MPI_INT, 0, PETSC_COMM_WORLD));
    PetscCallMPI(MPI_Bcast(id.hex, sizeof(id.hex), MPI_CHAR, 0, PETSC_COMM_WORLD));
  }
  if (rc) {
    ReportBadInput(err); /* rank 0 holds the line */
    PetscCall(SimulationDestroy(sim));
    *exit_code = rc;
  } else {
    SimulationSetRunId(*sim, &id);
    *ok = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The scenario's -set overrides, one line on rank 0 ("  -set KEY=VALUE ..."), if it has any. */
static PetscErrorCode PrintOverrides(const Scenario *sc)
{
  PetscFunctionBegin;
  if (!sc->overrides) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  with -set "));
  for (const char *s = sc->overrides; *s;) {
    const size_t len = strcspn(s, "\n");
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%.*s%s", (int)len, s, s[len] ? " -set " : "\n"));
    s += len + (s[len] == '\n');
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bad input: the restart's -set overrides (NULL: none given) differ from those the checkpoint's run recorded
 * (which apply either way). */
static PetscErrorCode CheckRestartOverrides(Simulation sim, const char *ckpt, const char *overrides, char *err,
                                            size_t errlen)
{
  const char *recorded  = SimulationScenario(sim)->overrides;
  char        list[512] = "none";
  size_t      k         = 0;

  PetscFunctionBegin;
  if (!overrides || (recorded && !strcmp(overrides, recorded))) PetscFunctionReturn(PETSC_SUCCESS);
  for (const char *s = recorded; s && *s && k < sizeof(list);) { /* "-set A -set B" */
    const size_t len = strcspn(s, "\n");
    const int    w   = snprintf(list + k, sizeof(list) - k, "%s-set %.*s", k ? " " : "", (int)len, s);
    if (w < 0) break;
    k += (size_t)w;
    s += len + (s[len] == '\n');
  }
  PetscCall(PetscSNPrintf(err, errlen,
                          "-set on restart must repeat the run's overrides exactly, but %s records %s; restart "
                          "without -set (the recorded overrides apply), or start a new run to change the scenario",
                          ckpt, list));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Runs sim (claimed output directory outdir; restarted from checkpoint from, or NULL) to its end
 * time, then destroys it. */
static PetscErrorCode RunAndDestroy(Simulation *sim, const char *outdir, const char *from, int *exit_code)
{
  RunEnd end;

  PetscFunctionBegin;
  PetscCall(RunLoop(*sim, outdir, from, &end));
  PetscCall(SimulationDestroy(sim));
  *exit_code = end == RUN_REQUEUE ? CCPDEM_EXIT_REQUEUE : end == RUN_FAILED ? CCPDEM_EXIT_RUNTIME : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CommandRun(const char *path, const char *overrides, int *exit_code)
{
  Scenario   sc;
  Simulation sim                   = NULL;
  char       err[SCENARIO_ERR_MAX] = "", outdir[SCENARIO_PATH_MAX];
  PetscBool  has_o, ok, help, overwrite;
  PetscInt   nbodies;
  int        bad;

  PetscFunctionBegin;
  *exit_code = CCPDEM_EXIT_BAD_INPUT;
  if (path) bad = scenario_load_file_set(path, overrides, &sc, err, sizeof(err));
  else
    bad = scenario_load_string_set(ccpdem_default_scenario, "<embedded default scenario>", overrides, &sc, err,
                                   sizeof(err));
  if (bad) {
    ReportBadInput(err);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscStrncpy(outdir, sc.output_dir, sizeof(outdir)));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-o", outdir, sizeof(outdir), &has_o));
  PetscCall(CommandCreateSimulation(path, &sc, &sim, &overwrite, err, sizeof(err)));
  if (err[0]) {
    ReportBadInput(err);
    if (sim) PetscCall(SimulationDestroy(&sim));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) { /* the options were listed while the simulation was set up: nothing to run */
    PetscCall(SimulationDestroy(&sim));
    *exit_code = 0;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(ClaimOutput(&sim, outdir, PETSC_FALSE, overwrite, exit_code, &ok));
  if (!ok) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ScenarioWarn(PETSC_COMM_WORLD, SimulationScenario(sim)));
  PetscCallMPI(MPI_Allreduce(&SimulationBodies(sim)->n_owned, &nbodies, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "ccpdem: %s: %" PetscInt_FMT " bodies, %d walls, h = %g s to t = %g s, output in %s\n",
                        path ? path : "embedded default scenario", nbodies, SimulationScenario(sim)->n_walls,
                        SimulationScenario(sim)->time_step, SimulationScenario(sim)->time_end, outdir));
  PetscCall(PrintOverrides(SimulationScenario(sim)));
  PetscCall(RunAndDestroy(&sim, outdir, NULL, exit_code));
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

/* Bad input: the end time (the scenario's, or --until's) is not after the checkpoint's step, or
 * more steps away than a run may take (scenario_step_count). */
static PetscErrorCode CheckEndTime(Simulation sim, const char *ckpt, int until_given, double until, char *err,
                                   size_t errlen)
{
  const Scenario *sc = SimulationScenario(sim);
  char            why[256];
  const int64_t   steps = scenario_step_count(until_given ? until : sc->time_end, sc->time_step, why, sizeof(why));

  PetscFunctionBegin;
  if (!steps && until_given) PetscCall(PetscSNPrintf(err, errlen, "--until %g: %s", until, why));
  else if (!steps) PetscCall(PetscSNPrintf(err, errlen, "%s: its scenario's time.end: %s", ckpt, why));
  else if (until_given) {
    if (steps <= SimulationStepCount(sim))
      PetscCall(PetscSNPrintf(err, errlen,
                              "--until %g is not after the checkpoint's time %g s (step %" PetscInt64_FMT
                              " of %g s); give a later end time",
                              until, SimulationTime(sim), SimulationStepCount(sim), sc->time_step));
    else SimulationSetEndTime(sim, until);
  } else if (steps <= SimulationStepCount(sim))
    PetscCall(PetscSNPrintf(err, errlen,
                            "%s is already at the scenario's end time %g s; give a later end time with --until T", ckpt,
                            sc->time_end));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CommandRestart(int argc, char **argv, const char *overrides, int *exit_code)
{
  const char *ckpt                  = argc > 2 && argv[2][0] != '-' ? argv[2] : NULL;
  Simulation  sim                   = NULL;
  char        err[SCENARIO_ERR_MAX] = "", outdir[SCENARIO_PATH_MAX];
  PetscBool   has_o, ok, overwrite;
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
    PetscCall(PetscSNPrintf(err, sizeof(err),
                            "%s is not inside a run's checkpoints/ folder, so its run directory is unknown; give the "
                            "output directory with -o OUT",
                            ckpt));
    ReportBadInput(err);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(CommandCreateSimulation(ckpt, NULL, &sim, &overwrite, err, sizeof(err)));
  if (!err[0] && overwrite)
    PetscCall(PetscSNPrintf(err, sizeof(err),
                            "--overwrite is an option of run: restart continues only its own run's directory, or a new "
                            "or empty one given with -o OUT"));
  if (!err[0]) PetscCall(CheckRestartOverrides(sim, ckpt, overrides, err, sizeof(err)));
  if (!err[0]) PetscCall(CheckEndTime(sim, ckpt, until_given, until, err, sizeof(err)));
  if (err[0]) {
    ReportBadInput(err);
    if (sim) PetscCall(SimulationDestroy(&sim));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(ClaimOutput(&sim, outdir, PETSC_TRUE, PETSC_FALSE, exit_code, &ok));
  if (!ok) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "ccpdem: restart from %s: step %" PetscInt64_FMT ", t = %g s, %" PetscInt64_FMT
                        " bodies, to t = %g s, output in %s\n",
                        ckpt, SimulationStepCount(sim), SimulationTime(sim), SimulationLastStep(sim)->bodies,
                        SimulationScenario(sim)->time_end, outdir));
  PetscCall(PrintOverrides(SimulationScenario(sim)));
  PetscCall(RunAndDestroy(&sim, outdir, ckpt, exit_code));
  PetscFunctionReturn(PETSC_SUCCESS);
}
