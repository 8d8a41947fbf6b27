/* ccpdem: the one entry point.
 *   ccpdem run [SCENARIO.yaml] [-o OUT] [PETSc options]   (no scenario: the embedded default pile)
 *   ccpdem restart CHECKPOINT.h5 [-o OUT] [--until T]     (continue a checkpointed run)
 *   ccpdem check SCENARIO.yaml                            (validate only)
 *   ccpdem info FILE.h5                                   (summary of a snapshot or checkpoint)
 *   ccpdem analyze repose SNAPSHOT.h5 [--x-range A,B]     (angle of repose of a pile)
 *   ccpdem fclib solve PROBLEM.hdf5 [-o SOLUTION.hdf5]    (solve an FCLIB problem file)
 * Exit codes: 0 success, CCPDEM_EXIT_BAD_INPUT (2) rejected input, CCPDEM_EXIT_RUNTIME (1) other
 * failures, CCPDEM_EXIT_REQUEUE (3) checkpointed on a signal. */
#include "app/commands.h"
#include "app/run_loop.h"
#include "base/memory_policy.h"
#include <string.h>

static const char help[] =
  "ccpdem: granular and multibody dynamics with frictional contact (CCP time stepping).\n"
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
  "  ccpdem fclib solve PROBLEM.hdf5 [-o SOLUTION.hdf5] [-fclib_guess false] [-ccp_* options]\n"
  "                                                  solve an FCLIB problem's relaxed CCP (README \"FCLIB\")\n"
  "Options: -o OUT (output directory, overrides output.dir), -progress_interval S,\n"
  "checkpoints: -checkpoint_every_steps N, -checkpoint_interval T (simulated s, overrides\n"
  "output.checkpoint_interval), -checkpoint_wall_interval W (wall s), -checkpoint_keep K (default 2);\n"
  "SIGUSR1 or SIGTERM: finish the step, checkpoint, exit 3 (requeue).\n"
  "-fclib_dump STEP[,STEP...] [-fclib_dir DIR]: write those steps' CCPs as FCLIB problems (default DIR: fclib).\n"
  "Solver options -ccp_* (see below), and every PETSc option (-log_view profiles the phases).\n"
  "Exit codes: 0 done, 1 runtime failure, 2 bad input, 3 checkpointed on a signal (requeue).\n";

void ReportBadInput(const char *msg)
{
  PetscMPIInt rank = 0;
  if (MPI_Comm_rank(PETSC_COMM_WORLD, &rank) != MPI_SUCCESS) rank = 0; /* print it anyway */
  if (!rank) fprintf(stderr, "ccpdem: error: %s\n", msg);
}

/* The positional argument after the command, if any (PETSc options start with '-'). */
static const char *Positional(int argc, char **argv) { return argc > 2 && argv[2][0] != '-' ? argv[2] : NULL; }

int main(int argc, char **argv)
{
  PetscErrorCode ierr;
  int            exit_code = CCPDEM_EXIT_RUNTIME;
  const char    *cmd       = argc > 1 ? argv[1] : "";

  const int runs = !strcmp(cmd, "run") || !strcmp(cmd, "restart");

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
  } else if (!strcmp(cmd, "fclib")) ierr = CommandFclib(argc, argv, &exit_code);
  else {
    char msg[256];
    PetscHelpPrintf(PETSC_COMM_WORLD, "%s", help);
    snprintf(msg, sizeof(msg), "unknown command '%s'; use 'run', 'restart', 'check', 'info', 'analyze' or 'fclib'",
             cmd);
    if (strcmp(cmd, "-help") && strcmp(cmd, "--help")) ReportBadInput(msg);
    exit_code = strcmp(cmd, "-help") && strcmp(cmd, "--help") ? CCPDEM_EXIT_BAD_INPUT : 0;
  }
  if (ierr) exit_code = CCPDEM_EXIT_RUNTIME;
  ierr = PetscFinalize();
  if (ierr && !exit_code) exit_code = CCPDEM_EXIT_RUNTIME;
  return exit_code;
}
