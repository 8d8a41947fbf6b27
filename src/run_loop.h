/* The run: steps from the current state to the end time, writing the time series every step and
 * snapshots at the scenario's interval, with a progress line and a closing summary.
 * Like the stepper, a composing layer: it calls io/. */
#ifndef CCPDEM_RUN_LOOP_H
#define CCPDEM_RUN_LOOP_H
#include "stepper.h"

/* Collective. outdir must exist. */
PetscErrorCode RunLoop(Simulation *sim, const char *outdir);
#endif
