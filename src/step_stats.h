/* Per-step figures shared by the stepper, the time series and the progress line. */
#ifndef CCPDEM_STEP_STATS_H
#define CCPDEM_STEP_STATS_H
#include <petscsys.h>

/* What one step did, for the time series and the progress line. Global over ranks. */
typedef struct {
  PetscInt  step;             /* number of the step just taken (1 = first) */
  double    time;             /* simulated time after it */
  PetscInt  bodies, contacts;
  PetscInt  warm_started;     /* contacts that found last step's impulse in the memory */
  PetscInt  iterations;
  double    residual_max, residual_rms;
  PetscBool converged;
  double    max_speed;        /* largest body speed after the step (m/s) */
  double    kinetic_energy, potential_energy; /* J; potential relative to the origin, -m g.x */
  double    wall_detect, wall_solve, wall_integrate, wall_comm; /* s */
  PetscInt64 ghosts;          /* ghost copies this step, all ranks (0 on one rank) */
  double    imbalance;        /* max / mean owned bodies over ranks (1 on one rank) */
  PetscInt64 bytes_sent;      /* bytes sent by all ranks this step (migration, ghosts, solve) */
} StepStats;
#endif
