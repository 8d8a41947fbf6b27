/* The simulation: the bodies, walls, contacts and joints of a scenario, what carries from one step
 * to the next, and the time step (GUIDE "Time step"; the contact model, CCP or penalty, behind one
 * interface: step/contact_model.h). Opaque: its struct lives in step/simulation_impl.h, private to
 * src/step/; other layers use the functions below.
 *
 * Lifecycle: SimulationCreate (from a scenario) or SimulationCreateFromCheckpoint -> SimulationStep
 * (as often as wanted; SimulationWriteSnapshot, SimulationWriteCheckpoint between steps) ->
 * SimulationDestroy. Every function taking a Simulation is collective on its communicator unless
 * it says otherwise; the queries (functions that return a value directly) are not collective. */
#ifndef CCPDEM_STEP_SIMULATION_H
#define CCPDEM_STEP_SIMULATION_H
#include "scenario/scenario.h"
#include "bodies/body_store.h"
#include "bodies/walls.h"
#include "contact/contact_set.h"
#include "collision/neighbour_list.h"
#include "ccp/solver.h"
#include "decomp/domain.h"
#include "io/timeseries.h"
#include "io/run_dir.h"

typedef struct _p_Simulation *Simulation;

/* Requests of the run loop that ride on a step's statistics reduction, so that agreeing on them
 * costs no collective of its own: each rank sets its own (SimulationRequest) before the step, and
 * after it SimulationAgreed says whether any rank set one. */
typedef enum {
  RUN_FLAG_STOP,            /* a stop was requested (SIGUSR1/SIGTERM/SIGINT) */
  RUN_FLAG_WALL_CHECKPOINT, /* rank 0: a wall-clock checkpoint is due */
  RUN_FLAG_OUTPUT_FAILED,   /* rank 0: the last time-series row could not be written */
  RUN_FLAGS
} RunFlag;

/* Takes ownership of *sc (the caller's copy is zeroed), builds its bodies and checks them (options
 * read: the solver's, the time step's). Bad input (overlaps, bodies outside the domain, a process
 * grid or halo that does not fit, ...) returns PETSC_SUCCESS with err set (the same on every rank)
 * and *sim NULL. */
PetscErrorCode SimulationCreate(MPI_Comm comm, Scenario *sc, Simulation *sim, char *err, size_t errlen);
/* The simulation a checkpoint (io/checkpoint.h) holds, to continue it. A missing, foreign,
 * truncated or corrupt file, or one whose stored state does not fit its scenario, returns
 * PETSC_SUCCESS with *sim NULL and err set to one line naming the file. At one rank the bodies
 * and contact memory come back in the order written. */
PetscErrorCode SimulationCreateFromCheckpoint(MPI_Comm comm, const char *file, Simulation *sim, char *err,
                                              size_t errlen);
PetscErrorCode SimulationDestroy(Simulation *sim);

/* One time step of the scenario's length. */
PetscErrorCode SimulationStep(Simulation sim);
/* OUT/snapshots/snap-NNNNNN.h5 of the current state (io/snapshot.h), every body on its owner, with
 * the walls and their loads (and OUT/walls.csv) and with output.contacts the contact network, of
 * the step just taken: that step must have recorded them (SimulationRecordLoads), but at step 0. A
 * failure to write (a full disk): err <- "writing PATH: reason" on every rank, else "". */
PetscErrorCode SimulationWriteSnapshot(Simulation sim, const char *outdir, char *err, size_t errlen);
/* Whether the coming steps record what a snapshot shows of their contacts (the walls' loads, the
 * contact network): the steps that end at a snapshot. Not collective; give every rank the same. */
void SimulationRecordLoads(Simulation sim, PetscBool on);
/* OUT/checkpoints/ckpt-NNNNNN.h5 of the current state (io/checkpoint.h), every body and contact
 * record on its owner, with the run id (a simulation without one gets a new one first); path (may
 * be NULL) receives the file written. A failure to write: err as SimulationWriteSnapshot's. */
PetscErrorCode SimulationWriteCheckpoint(Simulation sim, const char *outdir, char *path, size_t pathlen, char *err,
                                         size_t errlen);
/* The run this simulation belongs to (io/run_dir.h; stored in its checkpoints and restored from
 * one): ccpdem run sets a new one, a restart has the checkpoint's; "" until either. Not collective:
 * give every rank the same. */
void         SimulationSetRunId(Simulation sim, const RunId *id);
const RunId *SimulationRunId(Simulation sim);
/* Between steps: a new body (rec, its id set here to the next global id), kept by the rank that owns
 * its centre. Not collective, but every rank must add the same bodies in the same order (a set-up
 * of tests and benchmarks; the scenario's bodies come with SimulationCreate). */
PetscErrorCode SimulationAddBody(Simulation sim, BodyRecord *rec);
/* A new end time for the scenario (restart --until). Not collective; give every rank the same. */
void SimulationSetEndTime(Simulation sim, double t_end);
/* Several ranks: choose the grid and move the cuts now so that the owned bodies are balanced (as
 * -balance_interval does, without the contacts); the next step migrates. One rank: nothing. */
PetscErrorCode SimulationBalance(Simulation sim);
/* The decomposition after the last step (not collective; the same on every rank): its grid (1 1 1
 * on one rank), the last step's imbalance (max / mean over ranks, 1 on one rank) of the contacts
 * and of the work (owned bodies + contacts; the bodies' is StepStats' imbalance), and the
 * rebalances so far (those that changed the grid among them). */
typedef struct {
  PetscInt   grid[3];
  double     contacts, work;
  PetscInt64 balances, regrids;
} SimulationDecomposition;
PetscErrorCode SimulationGetDecomposition(Simulation sim, SimulationDecomposition *info);

/* This rank's request for the next step's reduction, and whether some rank made it for the last. */
void      SimulationRequest(Simulation sim, RunFlag flag, PetscBool on);
PetscBool SimulationAgreed(Simulation sim, RunFlag flag);

/* Queries (not collective). */
MPI_Comm         SimulationComm(Simulation sim);
const Scenario  *SimulationScenario(Simulation sim);
PetscInt64       SimulationStepCount(Simulation sim);            /* steps taken (0 at the start) */
double           SimulationTime(Simulation sim);                 /* simulated time (s) */
const StepStats *SimulationLastStep(Simulation sim);             /* the last step's statistics (global) */
PetscInt64       SimulationRemoved(Simulation sim);              /* bodies that left the domain so far (global) */
int64_t          SimulationNextId(Simulation sim);               /* the global id the next new body gets */
int64_t          SimulationEmitted(Simulation sim, int emitter); /* bodies emitter k has made */
/* This rank's bodies: owned [0, n_owned), then the last step's ghosts. Between steps a caller may
 * change the owned bodies' state (velocities, positions: a test's set-up), not their number. */
BodyStore *SimulationBodies(Simulation sim);
/* The scenario's walls as they have moved, as this rank's detection reads them: on several ranks a fixed mesh wall's
 * mesh is this rank's part from the first step on (step/wall_meshes.h; SimulationScenario's walls keep the whole). */
const Wall          *SimulationWalls(Simulation sim);
const ContactSet    *SimulationContacts(Simulation sim); /* the last step's contacts of this rank, by key */
const ImpulseMemory *SimulationMemory(Simulation sim);   /* what this rank remembers per contact key */
const NeighbourList *SimulationNeighbourList(Simulation sim);
/* Storage index of the owned body with this id, or -1. */
PetscInt SimulationFindBody(Simulation sim, int64_t id);
/* The CCP solver (contact.model ccp), NULL under the penalty model; and the CCP warm start's
 * settings (-ccp_warm_start_scale, -ccp_warm_start_decay or solver.warm_start_decay). */
CCPSolver SimulationSolver(Simulation sim);
/* Steps of this run (since its start or restart) whose CCP solve stopped as unsolvable
 * (CCPSolveStats.infeasible; the first was reported with a warning); 0 under the penalty model. */
PetscInt64 SimulationInfeasibleSteps(Simulation sim);
/* The position pass of contact.overlap_correction position over this run (since its start or restart;
 * all zero otherwise): steps that ran it (it is skipped when no overlap is to be pushed apart), its
 * iterations in all, and its solves that stopped short of the tolerance. The same on every rank. */
typedef struct {
  PetscInt64 solves, iterations, unconverged;
} OverlapCorrectionStats;
void           SimulationOverlapCorrection(Simulation sim, OverlapCorrectionStats *stats);
PetscErrorCode SimulationGetWarmStart(Simulation sim, double *scale, double *decay);
/* Several ranks: the decomposition (NULL on one rank), the ghost builds and in-place updates so
 * far (this rank), the joint blocks of the last step (this rank). */
Domain   SimulationDomain(Simulation sim);
void     SimulationGhostCounts(Simulation sim, PetscInt64 *builds, PetscInt64 *updates);
PetscInt SimulationJointBlocks(Simulation sim);
PetscInt SimulationSortInterval(Simulation sim); /* -sort_interval */
#endif
