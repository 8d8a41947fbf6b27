/* ccpdem's commands, one file each (app/ccpdem.c dispatches): run and restart (app/cmd_run.c),
 * check (app/cmd_check.c), info (app/cmd_info.c), analyze (app/cmd_analyze.c), fclib (app/cmd_fclib.c). Each is
 * collective on PETSC_COMM_WORLD and sets *exit_code: 0, or CCPDEM_EXIT_BAD_INPUT after reporting the input it refused
 * in one line (ReportBadInput), or CCPDEM_EXIT_REQUEUE (a run checkpointed on a signal). A returned error is a runtime
 * failure (CCPDEM_EXIT_RUNTIME). */
#ifndef CCPDEM_APP_COMMANDS_H
#define CCPDEM_APP_COMMANDS_H
#include "scenario/scenario.h"
#include <petscsys.h>

/* ccpdem's exit codes (README "Command line"); 0 is success. */
#define CCPDEM_EXIT_RUNTIME   1 /* a run failed for a reason other than its input */
#define CCPDEM_EXIT_BAD_INPUT 2 /* the scenario or the command line was rejected */
#define CCPDEM_EXIT_REQUEUE   3 /* checkpointed on a signal: requeue me */

/* One line on stderr (rank 0 prints it): "ccpdem: error: msg". */
void ReportBadInput(const char *msg);

/* ccpdem run [SCENARIO.yaml] (path NULL: the embedded default scenario) */
PetscErrorCode CommandRun(const char *path, int *exit_code);
/* ccpdem restart CHECKPOINT.h5 [-o OUT] [--until T] */
PetscErrorCode CommandRestart(int argc, char **argv, int *exit_code);
/* ccpdem check SCENARIO.yaml */
PetscErrorCode CommandCheck(const char *path, int *exit_code);
/* ccpdem info FILE.h5 */
PetscErrorCode CommandInfo(const char *path, int *exit_code);
/* ccpdem analyze repose SNAPSHOT.h5 [...]. Bad input: err set (one line) and *exit_code
 * CCPDEM_EXIT_BAD_INPUT; the caller reports it. */
PetscErrorCode CommandAnalyze(int argc, char **argv, char *err, size_t errlen, int *exit_code);
/* ccpdem fclib solve PROBLEM.hdf5 [-o SOLUTION.hdf5] [...] (reports its bad input itself) */
PetscErrorCode CommandFclib(int argc, char **argv, int *exit_code);
#endif
