/* ccpdem's commands, one file each (app/ccpdem.c dispatches): run and restart (app/cmd_run.c),
 * check (app/cmd_check.c), info (app/cmd_info.c), analyze (app/cmd_analyze.c), fclib (app/cmd_fclib.c). Each is
 * collective on PETSC_COMM_WORLD and sets *exit_code: 0, or CCPDEM_EXIT_BAD_INPUT after reporting the input it refused
 * in one line (ReportBadInput), or CCPDEM_EXIT_REQUEUE (a run checkpointed on a signal). A returned error is a runtime
 * failure (CCPDEM_EXIT_RUNTIME). */
#ifndef CCPDEM_APP_COMMANDS_H
#define CCPDEM_APP_COMMANDS_H
#include "scenario/scenario.h"
#include "step/simulation.h"
#include <petscsys.h>

/* ccpdem's exit codes (README "Command line"); 0 is success. */
#define CCPDEM_EXIT_RUNTIME   1 /* a run failed for a reason other than its input */
#define CCPDEM_EXIT_BAD_INPUT 2 /* the scenario or the command line was rejected */
#define CCPDEM_EXIT_REQUEUE   3 /* checkpointed on a signal: requeue me */

/* One line on stderr (rank 0 prints it): "ccpdem: error: msg". */
void ReportBadInput(const char *msg);

/* Plausibility warnings on a scenario that passed its checks, each one line "ccpdem: warning: ..." on stderr of
 * comm's rank 0, never an error: rolling or spinning friction longer than the smallest radius of the bodies of
 * that material (a dimensionless coefficient given where a length is meant), and a time step longer than a tenth
 * of the smallest body's free-fall time through its radius. Collective on comm. */
PetscErrorCode ScenarioWarn(MPI_Comm comm, const Scenario *sc);
/* ccpdem --version: the version, the git commit it was built from, the build's type, compiler and flags, and
 * the versions of PETSc, HDF5 and MPI (at run time, and those it was built against), to f. Plain C: callable
 * before PetscInitialize. */
void CommandVersion(FILE *f);
/* ccpdem run [SCENARIO.yaml] [-set KEY=VALUE ...] (path NULL: the embedded default scenario; overrides: the -set
 * values, '\n'-separated, or NULL; scenario/yaml_override.h) */
PetscErrorCode CommandRun(const char *path, const char *overrides, int *exit_code);
/* ccpdem restart CHECKPOINT.h5 [-o OUT] [--until T]: the run's recorded -set overrides apply; overrides (the
 * command line's, or NULL) must be absent or the same. */
PetscErrorCode CommandRestart(int argc, char **argv, const char *overrides, int *exit_code);
/* The simulation of scenario sc (from checkpoint file `from` when sc is NULL) and the run loop's options, every
 * option value checked (--overwrite's too, into *overwrite) as run and restart check them: a bad one is bad input in
 * err (one message, no trace, and *sim NULL or still to be destroyed), as a bad scenario or checkpoint is. Writes
 * nothing. app/cmd_run.c; check uses it too, so that it refuses what a run would refuse before its first step. */
PetscErrorCode CommandCreateSimulation(const char *from, Scenario *sc, Simulation *sim, PetscBool *overwrite, char *err,
                                       size_t errlen);
/* ccpdem check SCENARIO.yaml [-set KEY=VALUE ...] */
PetscErrorCode CommandCheck(const char *path, const char *overrides, int *exit_code);
/* ccpdem info FILE.h5 */
PetscErrorCode CommandInfo(const char *path, int *exit_code);
/* ccpdem analyze repose SNAPSHOT.h5 [...]. Bad input: err set (one line) and *exit_code
 * CCPDEM_EXIT_BAD_INPUT; the caller reports it. */
PetscErrorCode CommandAnalyze(int argc, char **argv, char *err, size_t errlen, int *exit_code);
/* ccpdem fclib solve PROBLEM.hdf5 [-o SOLUTION.hdf5] [...] (reports its bad input itself) */
PetscErrorCode CommandFclib(int argc, char **argv, int *exit_code);
#endif
