/* ccpdem: the one entry point.
 *   ccpdem run [SCENARIO.yaml] [-o OUT] [--overwrite] [PETSc options]   (no scenario: the default pile)
 *   ccpdem restart CHECKPOINT.h5 [-o OUT] [--until T]     (continue a checkpointed run)
 *   ccpdem check SCENARIO.yaml                            (validate only)
 *   ccpdem info FILE.h5                                   (summary of a snapshot or checkpoint)
 *   ccpdem analyze repose SNAPSHOT.h5 [--x-range A,B]     (angle of repose of a pile)
 *   ccpdem fclib solve PROBLEM.hdf5 [-o SOLUTION.hdf5]    (solve an FCLIB problem file)
 * Exit codes: 0 success, CCPDEM_EXIT_BAD_INPUT (2) rejected input, CCPDEM_EXIT_RUNTIME (1) other
 * failures, CCPDEM_EXIT_REQUEUE (3) checkpointed on a signal. Either failure is one line on stderr,
 * "ccpdem: error: ..."; -debug_trace shows PETSc's trace of a runtime failure instead. */
#include "app/commands.h"
#include "app/option_check.h"
#include "app/run_loop.h"
#include "base/memory_policy.h"
#include <stdlib.h>
#include <string.h>

static const char help[] =
  "ccpdem: granular and multibody dynamics with frictional contact (CCP time stepping).\n"
  "Usage:\n"
  "  ccpdem run [SCENARIO.yaml] [-o OUT] [--overwrite] [options]\n"
  "                                                  run a scenario (default: the embedded pile) into OUT, which\n"
  "                                                  must hold no other run's files (--overwrite: delete them first)\n"
  "  ccpdem restart CHECKPOINT.h5 [-o OUT] [--until T]\n"
  "                                                  continue a run from a checkpoint, into OUT (default:\n"
  "                                                  the checkpoint's run directory; another must be new or empty),\n"
  "                                                  to the end time T (default: the scenario's time.end)\n"
  "  ccpdem check SCENARIO.yaml [options]            validate a scenario (for the solver the options name) and exit\n"
  "  ccpdem info FILE.h5                             summary of a snapshot or a checkpoint\n"
  "  ccpdem analyze repose SNAPSHOT.h5 [--x-range A,B] [--floor Z]\n"
  "                                                  angle of repose of the pile (of bodies with A <= x <= B)\n"
  "  ccpdem fclib solve PROBLEM.hdf5 [-o SOLUTION.hdf5] [-fclib_guess false] [-ccp_* options]\n"
  "                                                  solve an FCLIB problem's relaxed CCP (README \"FCLIB\")\n"
  "Options: -o OUT (output directory, overrides output.dir), -progress_interval S,\n"
  "checkpoints: -checkpoint_every_steps N, -checkpoint_interval T (simulated s, overrides\n"
  "output.checkpoint_interval), -checkpoint_wall_interval W (wall s), -checkpoint_keep K (default 2);\n"
  "SIGUSR1 or SIGTERM: finish the step, checkpoint, exit 3 (requeue). -debug_trace: PETSc's trace of a\n"
  "runtime failure (else one line).\n"
  "-fclib_dump STEP[,STEP...] [-fclib_dir DIR]: write those steps' CCPs as FCLIB problems (default DIR: fclib).\n"
  "Solver options -ccp_* (see below), and every PETSc option (-log_view profiles the phases).\n"
  "Exit codes: 0 done, 1 runtime failure (e.g. a full disk: one line naming the last good checkpoint),\n"
  "2 bad input, 3 checkpointed on a signal (requeue).\n"
  "Test knobs: -io_fail_after_bytes N [-io_fail_rank R] (output writes fail as on a full disk after N bytes).\n";

void ReportBadInput(const char *msg)
{
  PetscMPIInt rank = 0;
  if (MPI_Comm_rank(PETSC_COMM_WORLD, &rank) != MPI_SUCCESS) rank = 0; /* print it anyway */
  if (!rank) fprintf(stderr, "ccpdem: error: %s\n", msg);
}

/* Before MPI starts: one line from the first process only (the launchers' rank variables), exit 2. */
static int RefuseBeforeInit(const char *msg)
{
  const char *rank = getenv("OMPI_COMM_WORLD_RANK");
  if (!rank) rank = getenv("PMI_RANK");
  if (!rank) rank = getenv("SLURM_PROCID");
  if (!rank || !strcmp(rank, "0")) fprintf(stderr, "ccpdem: error: %s\n", msg);
  return CCPDEM_EXIT_BAD_INPUT;
}

/* The positional argument after the command, if any (PETSc options start with '-'). */
static const char *Positional(int argc, char **argv) { return argc > 2 && argv[2][0] != '-' ? argv[2] : NULL; }

int main(int argc, char **argv)
{
  PetscErrorCode ierr;
  int            exit_code = CCPDEM_EXIT_RUNTIME;
  const char    *cmd       = argc > 1 ? argv[1] : "";

  const int runs                  = !strcmp(cmd, "run") || !strcmp(cmd, "restart");
  char      err[SCENARIO_ERR_MAX] = "";

  if (runs && RunLoopCatchStopSignals()) return CCPDEM_EXIT_RUNTIME; /* a batch system's signal may come at any time */
  if (OptionsCheckFiles(argc, argv, err, sizeof(err))) return RefuseBeforeInit(err);
  ierr = PetscInitialize(&argc, &argv, NULL, help);
  if (ierr) return CCPDEM_EXIT_RUNTIME;
  if (runs && RunLoopCatchStopSignals()) ierr = PETSC_ERR_SYS;
  if (!ierr) ierr = RuntimeErrorsCatch();
  if (!ierr) ierr = MemoryPolicyApply();
  if (!ierr && (runs || !strcmp(cmd, "check"))) ierr = OptionsCheckFinite(err, sizeof(err));
  if (ierr) exit_code = CCPDEM_EXIT_RUNTIME;
  else if (err[0]) {
    ReportBadInput(err);
    exit_code = CCPDEM_EXIT_BAD_INPUT;
  } else if (!strcmp(cmd, "run")) ierr = CommandRun(Positional(argc, argv), &exit_code);
  else if (!strcmp(cmd, "restart")) ierr = CommandRestart(argc, argv, &exit_code);
  else if (!strcmp(cmd, "check")) ierr = CommandCheck(Positional(argc, argv), &exit_code);
  else if (!strcmp(cmd, "info")) ierr = CommandInfo(Positional(argc, argv), &exit_code);
  else if (!strcmp(cmd, "analyze")) {
    ierr = CommandAnalyze(argc, argv, err, sizeof(err), &exit_code);
    if (!ierr && err[0]) ReportBadInput(err);
  } else if (!strcmp(cmd, "fclib")) ierr = CommandFclib(argc, argv, &exit_code);
  else {
    char msg[256];
    PetscHelpPrintf(PETSC_COMM_WORLD, "%s", help);
    snprintf(msg, sizeof(msg), "unknown command '%s'; use 'run', 'restart', 'check', 'info', 'analyze' or 'fclib'",
             cmd);
    if (strcmp(cmd, "-help") && strcmp(cmd, "--help")) ReportBadInput(msg);
    exit_code = strcmp(cmd, "-help") && strcmp(cmd, "--help") ? CCPDEM_EXIT_BAD_INPUT : 0;
  }
  if (ierr) {
    RuntimeErrorReport();
    exit_code = CCPDEM_EXIT_RUNTIME;
  }
  ierr = PetscFinalize();
  if (ierr && !exit_code) exit_code = CCPDEM_EXIT_RUNTIME;
  return exit_code;
}
