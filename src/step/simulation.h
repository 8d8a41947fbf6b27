/* The simulation state and the time step, top to bottom (GUIDE "Time step"):
 *   detect contacts -> warm start -> free velocity k = M v + h f -> CCP solve -> v = v_free + M^-1 D gamma
 *   -> positions and orientations (exponential map) -> remove bodies that left the domain.
 * With contact.model penalty the solve is replaced by the contact loads F of the penalty model
 * (src/penalty/loads.h) at the step's start: v = v_free + h M^-1 F (half-implicit symplectic Euler).
 * The stepper is the composing layer: it is the only core file that will call decomp/ and io/. */
#ifndef CCPDEM_STEP_SIMULATION_H
#define CCPDEM_STEP_SIMULATION_H
#include "scenario/scenario.h"
#include "bodies/body_store.h"
#include "contact/contact_set.h"
#include "collision/broadphase.h"
#include "ccp/solver.h"
#include "step/step_stats.h"
#include "decomp/domain.h"
#include "decomp/ghosts.h"
#include "decomp/migration.h"
#include "decomp/velocity_coupling.h"
#include "joints/joints.h"
#include "penalty/loads.h"
#include "collision/neighbour_list.h"


typedef struct {
  MPI_Comm    comm;
  Scenario    sc;             /* owned: the simulation frees it */
  BodyStore   bodies;
  Wall       *walls;          /* copy of sc.walls; moving boxes advance with their velocity */
  ContactSet  contacts;       /* this step's contacts */
  ImpulseMemory previous;     /* by key: the last step's impulses (ccp: warm start) or friction
                                 history (penalty: PenaltyHistory records) */
  Broadphase  bp;
  NeighbourList nlist;        /* contact.model penalty: detection from a Verlet list */
  double      neighbour_skin; /* -neighbour_skin (m) */
  CCPSolver   solver;
  PairParams *ccp_pairs;      /* material pair table (ContactPairTableCreate): the contacts' per-step terms */
  PetscBool   ccp_pairs_yield; /* some pair has a yield force */
  Joints      joints;         /* joint blocks, appended to the contacts each step (none: n = 0) */
  /* distributed run (more than one rank): */
  PetscMPIInt    size;          /* ranks */
  Domain         domain;        /* process grid and cuts */
  Exchange       exchange;      /* ghosts of this step and their maps */
  VelocityCoupling coupling;    /* the solve over ranks */
  double         halo;          /* ghost halo width (m) */
  PetscBool      placed;        /* every owned body is on its owner (after a step's migration) */
  PetscBool      ghost_update;  /* contact.model penalty with a skin whose halo fits: ghosts kept and
                                   updated in place while no body drifted skin / 2 (step/step.c) */
  PetscBool      ghosts_kept;   /* the last step kept the ghosts and deferred migration: owners lag */
  PetscInt       output_placed_step; /* the step at whose end SimulationPlaceForOutput last ran (-1: none) */
  PetscBool      ghost_update_allowed; /* -ghost_update (default true) */
  PetscBool      moves_pending; /* this step's migration decision rides on the statistics' reduction */
  PetscInt       moves_local[EXCHANGE_MOVE_COUNTS], moves_global[EXCHANGE_MOVE_COUNTS]; /* its counts (ExchangeMovesLocal), here and summed */
  PetscInt64     bytes_carry;   /* bytes the deferred migration sent after the step's statistics */
  PetscInt64     ghost_builds, ghost_updates; /* steps that rebuilt the ghosts, that updated them */
  double        *build_pos;     /* owned positions at the last ghost build (ghost_update) */
  size_t         build_pos_cap;
  PetscInt       balance_interval; /* -balance_interval: steps between load balancing (0 = never) */
  PetscInt    step;
  double      time;
  PetscInt    removed;        /* bodies that left the domain so far (global) */
  int64_t     next_id;        /* next global id to hand out (the same on every rank) */
  int64_t    *emitted;        /* bodies each emitter has made so far (sc.n_emitters) */
  double      warm_start_scale; /* -ccp_warm_start_scale, in [0, 1] */
  double      warm_start_decay; /* -ccp_warm_start_decay: extra factor after a step that did not converge
                                   and changed its warm start (last.keep_impulses; README "Warm start") */
  PetscInt    sort_interval;    /* -sort_interval: steps between Morton reorderings of the bodies */
  StepStats   last;
  PetscBool   run_flags[RUN_FLAGS]; /* this rank's requests for the next step's reduction (RunFlag) */
  double     *vel;            /* the CCP solve's velocities, 6 per solver body (bodies, walls, the joints'
                                 ground), from the solve to the integration: the solver's own buffer
                                 (CCPProblem.vel NULL), in pages the solve had resident anyway */
  /* contact.model penalty: the pair table and per-contact workspace */
  PenaltyContext penalty;
  size_t      pen_cap, pen_body_cap;
  PetscInt   *pen_match;      /* per contact: its history entry in previous, or -1 */
  ImpulseMemory pen_next;     /* the memory's second buffer: this step's new history is written there */
  double     *pen_load;       /* per contact: loads on A and B (PENALTY_LOAD_WIDTH) */
  double     *pen_acc;        /* per body: summed force and torque (6) */
  PenaltyStepLimit pen_limit; /* this step's shortest contact period on this rank (the time-step check) */
  struct {
    PetscBool valid;          /* the owned bodies are as PenaltyAdvance left them (step/step.c) */
    PetscInt  outside;        /* bodies out of the domain */
    double    max_speed, energy[2]; /* ComputeStats' per-body sums (kinetic, potential), in storage order */
  } advanced;                 /* contact.model penalty: what PenaltyAdvance summed as it moved the bodies */
  PetscBool   step_warned;    /* the time-step warning was printed */
} Simulation;

/* Takes ownership of *sc (the caller's copy is zeroed). Builds the bodies from the scenario.
 * Bad input (overlaps, bodies outside the domain, ...) returns PETSC_SUCCESS with err set
 * (err[0] != 0) and *sim NULL. */
PetscErrorCode SimulationCreate(MPI_Comm comm, Scenario *sc, Simulation **sim, char *err, size_t errlen);
/* As SimulationCreate, but without bodies (step 0, no contacts memory): for a restart, whose
 * bodies and state come from a checkpoint; call SimulationSetUpHalo once they are in. Takes
 * ownership of *sc. A process grid that does not fit the rank count (-decomp_grid) is bad input:
 * err set, *sim NULL. */
PetscErrorCode SimulationCreateEmpty(MPI_Comm comm, Scenario *sc, Simulation **sim, char *err, size_t errlen);
/* Distributed run: the ghost halo from the bodies' largest radius (collective). A subdomain
 * narrower than the halo is bad input: err set (the same on every rank). Nothing on one rank. */
PetscErrorCode SimulationSetUpHalo(Simulation *sim, char *err, size_t errlen);
PetscErrorCode SimulationStep(Simulation *sim);
/* Before a snapshot or checkpoint (collective): every owned body on the owner of its centre, sorted
 * by id, so the file's layout does not depend on when the ghosts were last rebuilt (a restart
 * rebuilds them at its first step, the straight run may not have). Only with ghost_update, which
 * lets ownership lag between rebuilds; otherwise nothing. */
PetscErrorCode SimulationPlaceForOutput(Simulation *sim);
/* The emitters' bodies due at the current time (src/step/emission.c); called by SimulationStep. */
PetscErrorCode SimulationEmit(Simulation *sim);
/* Whether some emitter owes bodies at the start of step `step` (time step * h), as SimulationEmit decides. */
PetscBool      SimulationEmissionDue(const Simulation *sim, PetscInt step);
PetscErrorCode SimulationDestroy(Simulation **sim);
/* Storage index of the owned body with this id, or -1. */
PetscInt SimulationFindBody(const Simulation *sim, int64_t id);
#endif
