/* Per-step figures shared by the stepper, the time series and the progress line. */
#ifndef CCPDEM_STEP_STEP_STATS_H
#define CCPDEM_STEP_STEP_STATS_H
#include <petscsys.h>

/* Requests of the run loop that ride on the step's statistics reduction, so that agreeing on them
 * costs no collective of its own: each rank sets its own (Simulation.run_flags) before the step,
 * and StepStats.run_flags holds whether any rank set them. */
typedef enum {
  RUN_FLAG_STOP,            /* a stop was requested (SIGUSR1/SIGTERM) */
  RUN_FLAG_WALL_CHECKPOINT, /* rank 0: a wall-clock checkpoint is due */
  RUN_FLAG_OUTPUT_FAILED,   /* rank 0: the last time-series row could not be written */
  RUN_FLAGS
} RunFlag;

/* What one step did, for the time series and the progress line. Global over ranks. */
typedef struct {
  PetscInt  step;             /* number of the step just taken (1 = first) */
  double    time;             /* simulated time after it */
  PetscInt  bodies, contacts;
  PetscInt  warm_started;     /* contacts that found last step's impulse in the memory */
  PetscInt  iterations;
  PetscInt  passes;           /* the solve's passes over the contacts (CCPSolveStats) */
  double    residual_max, residual_rms;
  PetscBool converged;
  PetscBool keep_impulses;     /* the next warm start takes this step's impulses whole: it converged, or its
                                 solve returned its warm start unchanged (else times -ccp_warm_start_decay) */
  double    max_speed;        /* largest body speed after the step (m/s) */
  double    kinetic_energy, potential_energy; /* J; potential relative to the origin, -m g.x */
  double    wall_detect, wall_solve, wall_integrate, wall_comm; /* s */
  PetscInt64 ghosts;          /* ghost copies this step, all ranks (0 on one rank) */
  double    imbalance;        /* max / mean owned bodies over ranks (1 on one rank) */
  PetscInt64 bytes_sent;      /* bytes sent by all ranks this step (migration, ghosts, solve) */
  PetscBool  run_flags[RUN_FLAGS]; /* set on some rank before the step (RunFlag) */
} StepStats;
#endif
