/* The run: steps from the current state to the end time, writing the time series every step,
 * snapshots at the scenario's interval and checkpoints (io/checkpoint.h) every
 * -checkpoint_every_steps N steps, every -checkpoint_interval T simulated seconds (default: the
 * scenario's output.checkpoint_interval), every -checkpoint_wall_interval W wall seconds, and at the
 * end when any of those is set; with a progress line and a closing summary.
 * SIGUSR1, SIGTERM or SIGINT (unless SIGINT was ignored at start): the current step is finished, a
 * checkpoint written, and RunLoop returns RUN_REQUEUE (ccpdem then exits with CCPDEM_EXIT_REQUEUE); a
 * second SIGINT ends the process at once. Ranks agree on stopping every step.
 * An output that cannot be written (a full disk: ENOSPC, EIO, EDQUOT; a row of the time series, a
 * snapshot, a checkpoint) stops every rank at once, agreed by all of them: one line "ccpdem: error:
 * writing OUT/...: reason; the last good checkpoint is ..." (or "no checkpoint was written") and
 * RUN_FAILED (exit 1); the previous checkpoints stay as they were. A composing layer above step/:
 * it calls io/ too. */
#ifndef CCPDEM_APP_RUN_LOOP_H
#define CCPDEM_APP_RUN_LOOP_H
#include "step/simulation.h"

typedef enum {
  RUN_DONE,    /* at the end time */
  RUN_REQUEUE, /* stopped by a signal after a checkpoint */
  RUN_FAILED   /* an output could not be written: reported (one line on rank 0) */
} RunEnd;

/* Collective. outdir must exist. A simulation at step > 0 (a restart) appends to the time series
 * (dropping rows at or after its next step) and writes no initial snapshot; from (may be NULL) is
 * the checkpoint it was restarted from, the last good one until this run writes its own. */
PetscErrorCode RunLoop(Simulation sim, const char *outdir, const char *from, RunEnd *end);
/* Read and check the options RunLoop and its checkpoints read (-checkpoint_*, -progress_interval,
 * and the write-fault injection of tests, io/fault.h, which this arms), so that the caller can
 * refuse bad values before it creates the output directory. Collective. */
PetscErrorCode RunLoopCheckOptions(Simulation sim);
/* Catch SIGUSR1/SIGTERM/SIGINT from now on (ccpdem calls it before and again after PetscInitialize, which
 * may install handlers of its own): a signal that arrives while the run starts up is remembered,
 * and RunLoop checkpoints after its first step and returns with *requeue set, instead of the
 * process being killed. Plain C, no PETSc; 0 on success, -1 if sigaction fails. */
int RunLoopCatchStopSignals(void);
#endif
