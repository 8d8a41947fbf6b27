/* The angles of repose of a simulation's piles (the scenario's analysis.repose; src/analysis/repose.h says
 * how one is measured), for the run's summary and the validation tests. */
#ifndef CCPDEM_STEP_PILE_ANALYSIS_H
#define CCPDEM_STEP_PILE_ANALYSIS_H
#include "step/simulation.h"
#include "analysis/repose.h"

/* Collective. For each pile p of the scenario's analysis.repose: the bodies with x_min <= x <= x_max (gathered from
 * all ranks), the floor at their lowest bottom (z - radius); status[p] = 0 and res[p] filled, or
 * status[p] = -1 when they form no pile with a usable flank. The same results on every rank. */
PetscErrorCode SimulationRepose(Simulation sim, ReposeResult res[], int status[]);
#endif
