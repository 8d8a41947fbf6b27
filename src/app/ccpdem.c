/* ccpdem: the one entry point.
 *   ccpdem run [SCENARIO.yaml] [-o OUT] [--overwrite] [PETSc options]   (no scenario: the default pile)
 *   ccpdem restart CHECKPOINT.h5 [-o OUT] [--until T]     (continue a checkpointed run)
 *   ccpdem check SCENARIO.yaml                            (validate only)
 *   ccpdem info FILE.h5                                   (summary of a snapshot or checkpoint)
 *   ccpdem analyze repose SNAPSHOT.h5 [--x-range A,B]     (angle of repose of a pile)
 *   ccpdem fclib solve PROBLEM.hdf5 [-o SOLUTION.hdf5]    (solve an FCLIB problem file)
 *   ccpdem --version; ccpdem [COMMAND] -help (app/option_table.c; "-help petsc": PETSc's own list)
 * Exit codes: 0 success, CCPDEM_EXIT_BAD_INPUT (2) rejected input, CCPDEM_EXIT_RUNTIME (1) other
 * failures, CCPDEM_EXIT_REQUEUE (3) checkpointed on a signal. Either failure is one line on stderr,
 * "ccpdem: error: ..."; -debug_trace shows PETSc's trace of a runtime failure instead. */
#include "app/commands.h"
#include "app/option_check.h"
#include "app/option_table.h"
#include "app/run_loop.h"
#include "base/memory_policy.h"
#include <stdlib.h>
#include <string.h>

/* What PETSc prints above its own option list for "-help petsc" (ccpdem's own help comes from app/option_table.c). */
static const char petsc_help[] = "ccpdem: PETSc's options as PETSc lists them (ccpdem -help lists ccpdem's own)\n";

void ReportBadInput(const char *msg)
{
  PetscMPIInt rank = 0;
  if (MPI_Comm_rank(PETSC_COMM_WORLD, &rank) != MPI_SUCCESS) rank = 0; /* print it anyway */
  if (!rank) fprintf(stderr, "ccpdem: error: %s\n", msg);
}

/* Before MPI starts: whether this is the first process (the launchers' rank variables), which alone prints. */
static int FirstProcess(void)
{
  const char *rank = getenv("OMPI_COMM_WORLD_RANK");
  if (!rank) rank = getenv("PMI_RANK");
  if (!rank) rank = getenv("SLURM_PROCID");
  return !rank || !strcmp(rank, "0");
}

/* Before MPI starts: one line from the first process only, exit 2. */
static int RefuseBeforeInit(const char *msg)
{
  if (FirstProcess()) fprintf(stderr, "ccpdem: error: %s\n", msg);
  return CCPDEM_EXIT_BAD_INPUT;
}

/* The positional argument after the command, if any (PETSc options start with '-'). */
static const char *Positional(int argc, char **argv) { return argc > 2 && argv[2][0] != '-' ? argv[2] : NULL; }

/* The command line as ccpdem reads it. */
typedef struct {
  int    argc;
  char **argv;     /* what PETSc and the commands see: the arguments without the -set pairs (and "petsc" after
                      -help); it lives to the end of main, as PETSc keeps it */
  char *overrides; /* the -set values, '\n'-separated, in order (NULL: none) */
  int   help;      /* 0; 1: -help, --help or -h (ccpdem's help); 2: -help petsc (PETSc's list) */
} CommandLine;

/* Splits argv into cl (the caller frees cl->argv and cl->overrides). Plain C, before PetscInitialize: 0, or -1 with
 * one message in err (a -set without KEY=VALUE, out of memory). */
static int SplitCommandLine(int argc, char **argv, CommandLine *cl, char *err, size_t errlen)
{
  size_t used = 0, cap = 1;

  memset(cl, 0, sizeof(*cl));
  for (int i = 1; i < argc; i++) cap += strlen(argv[i]) + 1;
  cl->argv      = calloc((size_t)argc + 1, sizeof(char *));
  cl->overrides = calloc(cap, 1);
  if (!cl->argv || !cl->overrides) {
    snprintf(err, errlen, "out of memory while reading the command line");
    return -1;
  }
  cl->argv[cl->argc++] = argv[0];
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-set") || !strcmp(argv[i], "--set")) {
      if (i + 1 >= argc || argv[i + 1][0] == '-' || !strchr(argv[i + 1], '=') || strchr(argv[i + 1], '\n')) {
        snprintf(err, errlen,
                 "command line: -set needs KEY=VALUE on one line after it, e.g. -set time.end=2 or -set "
                 "materials[0].rolling_friction=0.005");
        return -1;
      }
      used += (size_t)sprintf(cl->overrides + used, "%s%s", used ? "\n" : "", argv[++i]);
      continue;
    }
    if (!strcmp(argv[i], "-help") || !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      if (i + 1 < argc && !strcmp(argv[i + 1], "petsc")) {
        cl->help             = 2;
        cl->argv[cl->argc++] = "-help";
        i++;
        continue;
      }
      if (!cl->help) cl->help = 1;
    }
    cl->argv[cl->argc++] = argv[i];
  }
  if (!used) {
    free(cl->overrides);
    cl->overrides = NULL;
  }
  return 0;
}

/* Options that only the command line may give: PETSc's options database keeps one value per name, so a -set in
 * PETSC_OPTIONS or an options file would keep only its last; refused, as bad input in err. */
static PetscErrorCode CheckSetSource(char *err, size_t errlen)
{
  PetscBool set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsHasName(NULL, NULL, "-set", &set));
  if (set)
    PetscCall(PetscSNPrintf(err, errlen,
                            "-set found in PETSC_OPTIONS or an options file; give each -set KEY=VALUE on the command "
                            "line"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr;
  int            exit_code = CCPDEM_EXIT_RUNTIME;
  CommandLine    cl;
  const char    *cmd = argc > 1 ? argv[1] : "";

  const int runs                  = !strcmp(cmd, "run") || !strcmp(cmd, "restart");
  char      err[SCENARIO_ERR_MAX] = "";

  if (!strcmp(cmd, "--version") || !strcmp(cmd, "-version")) {
    if (FirstProcess()) CommandVersion(stdout);
    return 0;
  }
  if (SplitCommandLine(argc, argv, &cl, err, sizeof(err))) return RefuseBeforeInit(err);
  if (cl.help == 1) { /* ccpdem's own help, from its option table: no PETSc, no MPI */
    if (FirstProcess()) OptionTablePrintHelp(stdout, cmd[0] == '-' ? "" : cmd);
    free(cl.argv);
    free(cl.overrides);
    return 0;
  }
  argc = cl.argc;
  argv = cl.argv;
  if (runs && RunLoopCatchStopSignals()) return CCPDEM_EXIT_RUNTIME; /* a batch system's signal may come at any time */
  if (OptionsCheckFiles(argc, argv, err, sizeof(err))) return RefuseBeforeInit(err);
  ierr = PetscInitialize(&argc, &argv, NULL, petsc_help);
  if (ierr) return CCPDEM_EXIT_RUNTIME;
  if (runs && RunLoopCatchStopSignals()) ierr = PETSC_ERR_SYS;
  if (!ierr) ierr = RuntimeErrorsCatch();
  if (!ierr) ierr = MemoryPolicyApply();
  if (!ierr && (runs || !strcmp(cmd, "check"))) ierr = OptionsCheckFinite(err, sizeof(err));
  if (!ierr && !err[0]) ierr = CheckSetSource(err, sizeof(err));
  if (ierr) exit_code = CCPDEM_EXIT_RUNTIME;
  else if (err[0]) {
    ReportBadInput(err);
    exit_code = CCPDEM_EXIT_BAD_INPUT;
  } else if (!strcmp(cmd, "run")) ierr = CommandRun(Positional(argc, argv), cl.overrides, &exit_code);
  else if (!strcmp(cmd, "restart")) ierr = CommandRestart(argc, argv, cl.overrides, &exit_code);
  else if (!strcmp(cmd, "check")) ierr = CommandCheck(Positional(argc, argv), cl.overrides, &exit_code);
  else if (!strcmp(cmd, "info")) ierr = CommandInfo(Positional(argc, argv), &exit_code);
  else if (!strcmp(cmd, "analyze")) {
    ierr = CommandAnalyze(argc, argv, err, sizeof(err), &exit_code);
    if (!ierr && err[0]) ReportBadInput(err);
  } else if (!strcmp(cmd, "fclib")) ierr = CommandFclib(argc, argv, &exit_code);
  else if (cl.help) exit_code = 0; /* -help petsc: PETSc printed its list */
  else {
    char msg[256];
    snprintf(msg, sizeof(msg),
             "unknown command '%s'; use 'run', 'restart', 'check', 'info', 'analyze' or 'fclib' (ccpdem -help lists "
             "them)",
             cmd);
    ReportBadInput(msg);
    exit_code = CCPDEM_EXIT_BAD_INPUT;
  }
  if (ierr) {
    RuntimeErrorReport();
    exit_code = CCPDEM_EXIT_RUNTIME;
  }
  ierr = PetscFinalize();
  if (ierr && !exit_code) exit_code = CCPDEM_EXIT_RUNTIME;
  free(cl.argv);
  free(cl.overrides);
  return exit_code;
}
