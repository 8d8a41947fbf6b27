/* The time step, top to bottom (GUIDE "Time step"; step/simulation.h). The contact model
 * (step/contact_model.h) detects the contacts, responds to them and moves the bodies; the
 * placement (step/placement.c) keeps every body on its owner and the ghosts current on several
 * ranks; the statistics of the step are combined over ranks in one reduction (step/step_stats.c). */
#include "step/simulation_impl.h"
#include "base/log_events.h"

PetscErrorCode SimulationStep(Simulation sim)
{
  const ContactModelOps *model = sim->model;
  StepWork               w     = {.bytes = sim->place.bytes_carry}; /* the last step's deferred migration sent these */
  PetscBool              emitted;
  double                 t0, t1, t2, t3;

  PetscFunctionBegin;
  sim->place.bytes_carry = 0;
  t0                     = MPI_Wtime();
  PetscCall(SimulationEmit(sim, &emitted));
  PetscCall(PlacementBegin(sim, emitted, &w)); /* bodies on their owners, spatial order, ghosts */

  PetscCall(PetscLogEventBegin(CCPDEM_EVENT_DETECT, 0, 0, 0, 0));
  PetscCall(model->detect(sim, &w)); /* contacts, and the last step's memory matched to them */
  PetscCall(PetscLogEventEnd(CCPDEM_EVENT_DETECT, 0, 0, 0, 0));
  t1 = MPI_Wtime();

  PetscCall(PetscLogEventBegin(CCPDEM_EVENT_SOLVE, 0, 0, 0, 0));
  PetscCall(model->respond(sim, &w));  /* CCP: impulses and velocities; penalty: loads */
  PetscCall(StepLoadsRecord(sim, &w)); /* what a snapshot shows of them, when asked for */
  PetscCall(PetscLogEventEnd(CCPDEM_EVENT_SOLVE, 0, 0, 0, 0));
  t2 = MPI_Wtime();

  PetscCall(PetscLogEventBegin(CCPDEM_EVENT_INTEGRATE, 0, 0, 0, 0));
  PetscCall(model->advance(sim, &w)); /* bodies and walls moved, memory kept for the next step */
  StepSetAsideNonFinite(sim, &w);     /* the statistics stop the run on them */
  PetscCall(PlacementEnd(sim, &w));   /* bodies out of the domain removed, balancing, migration */
  sim->step++;
  sim->time = sim->step * sim->sc.time_step; /* no drift from summing h */
  SimulationWallsAtTime(sim);                /* the moving walls' pose: a function of the time */
  PetscCall(PetscLogEventEnd(CCPDEM_EVENT_INTEGRATE, 0, 0, 0, 0));
  t3 = MPI_Wtime();

  sim->last.wall_detect    = t1 - t0;
  sim->last.wall_solve     = t2 - t1;
  sim->last.wall_integrate = t3 - t2;
  PetscCall(StepStatsCompute(sim, &w)); /* one reduction over ranks */
  PetscCall(PlacementDeferred(sim));    /* a migration decided in that reduction */
  PetscFunctionReturn(PETSC_SUCCESS);
}
