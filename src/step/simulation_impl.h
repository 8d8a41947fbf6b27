/* Private to src/step/: the simulation's struct and the functions its files share. Nothing outside
 * src/step/ includes this header (tests/architecture/check_includes.sh). */
#ifndef CCPDEM_STEP_SIMULATION_IMPL_H
#define CCPDEM_STEP_SIMULATION_IMPL_H
#include "step/simulation.h"
#include "step/contact_model.h"
#include "step/wall_meshes.h"
#include "collision/broadphase.h"
#include "joints/joints.h"
#include "decomp/ghosts.h"
#include "decomp/migration.h"
#include "base/vec3.h"
#include "io/snapshot.h"

/* Where the bodies live on several ranks (step/placement.c): the decomposition, this step's
 * ghosts, and the migration between steps. All zero on one rank. */
typedef struct {
  Domain    domain;                   /* process grid and cuts; NULL on one rank */
  Exchange  exchange;                 /* the ghosts of this step and their maps */
  double    halo;                     /* ghost halo width (m) */
  PetscBool placed;                   /* every owned body is on its owner (after a step's migration) */
  PetscBool ghost_update;             /* the model's ghosts persist (ContactModelOps.ghosts_persist) with a skin whose
                                         halo fits: kept and updated in place while no body drifted skin / 2 */
  PetscBool ghost_update_allowed;     /* -ghost_update (default true) */
  PetscBool ghost_rebuild_every_step; /* -ghost_rebuild_every_step (a check of the kept ghosts): where they
                                         would be kept, a fresh build instead, the same owners and migrations */
  PetscBool  ghosts_kept;             /* the last step kept the ghosts and deferred migration: owners lag */
  PetscInt64 output_placed_step;      /* the step at whose end PlacementForOutput last ran (-1: none) */
  PetscBool  moves_pending;           /* this step's migration decision rides on the statistics' reduction */
  PetscInt   moves_local[EXCHANGE_MOVE_COUNTS], moves_global[EXCHANGE_MOVE_COUNTS]; /* its counts
                                    (ExchangeMovesLocal), here and summed */
  PetscInt64 bytes_carry;                 /* bytes the deferred migration sent after the step's statistics */
  PetscInt64 ghost_builds, ghost_updates; /* steps that rebuilt the ghosts, that updated them */
  PetscInt64 ghost_epoch;                 /* ghost builds so far: a user of the ghost maps rebuilds on a change */
  double    *build_pos;                   /* owned positions at the last ghost build (ghost_update) */
  size_t     build_pos_cap;
  PetscInt   balance_interval;  /* -balance_interval: steps between load balancing (0 = none) */
  double     balance_threshold; /* -balance_threshold: rebalance when the work imbalance exceeds it (0 = never) */
  PetscBool  balance_due;       /* the last step's work imbalance exceeded the threshold (the same on every rank) */
  double     imbalance_contacts, imbalance_work; /* the last step's max / mean over ranks (StepStatsCompute) */
  PetscInt64 balances, regrids;                  /* rebalances so far, and those that changed the grid */
} Placement;

/* What the integrator summed over the owned bodies as it moved them (a model's advance may set
 * it), so that the step's statistics need no pass of their own; valid until the bodies are
 * rearranged. */
typedef struct {
  PetscBool valid;
  PetscInt  outside;              /* bodies out of the domain */
  double    max_speed, energy[2]; /* the statistics' per-body sums (kinetic, potential), in storage order */
} AdvancedSums;

/* What the outputs show of a step's contacts (step/output_loads.c), recorded on the steps asked for
 * (SimulationRecordLoads): this rank's sums of the loads on each wall, and with output.contacts
 * its contacts, as the snapshot writer takes them (io/snapshot.h). */
typedef struct {
  PetscBool  wanted;        /* SimulationRecordLoads: the coming steps record */
  PetscInt64 step;          /* the step recorded last (-1: none) */
  double    *wall;          /* 9 per wall: this rank's force on it (N), torque (N m) about the point that
                               follows (io/wall_output.h), all at the step's start; then the global sums */
  Wall *drawn;              /* the walls as written: sim->walls with each mesh wall's whole mesh (the detection's
                               may be this rank's part) */
  SnapshotContact *contact; /* output.contacts: this rank's contacts, in key order */
  PetscInt         n, cap;  /* contacts recorded, room */
} StepLoads;

struct _p_Simulation {
  MPI_Comm      comm;
  PetscMPIInt   size;     /* ranks */
  Scenario      sc;       /* owned: the simulation frees it */
  BodyStore     bodies;   /* owned bodies, then this step's ghosts */
  Wall         *walls;    /* sc.walls now: boxes advanced by their velocity, motions at time */
  WallMeshes    meshes;   /* the mesh walls' triangles, which sc.walls and walls point at */
  ContactSet    contacts; /* this step's contacts and joint blocks, by key */
  ImpulseMemory memory;   /* by key: what the model remembers from the last step (CCP:
                             impulses for the warm start; penalty: friction history) */
  Broadphase             bp;
  NeighbourList          nlist;          /* detection from a Verlet list (-neighbour_skin > 0) */
  double                 neighbour_skin; /* -neighbour_skin (m) */
  Joints                 joints;         /* joint blocks, appended to the contacts each step (none: n = 0) */
  const ContactModelOps *model;
  void                  *model_state; /* the model's own (model_ccp.c, model_penalty.c) */
  Placement              place;
  PetscInt               sort_interval; /* -sort_interval: steps between Morton reorderings of the bodies */
  PetscInt64             step;          /* steps taken */
  double                 time;          /* step * h (no drift from summing h) */
  PetscInt64             removed;       /* bodies that left the domain so far (global) */
  int64_t                next_id;       /* next global id to hand out (the same on every rank) */
  int64_t               *emitted;       /* bodies each emitter has made so far (sc.n_emitters) */
  StepStats              last;          /* the last step's statistics */
  RunId                  run_id;        /* the run it belongs to (SimulationSetRunId), "" until set */
  PetscBool              requests[RUN_FLAGS], agreed[RUN_FLAGS]; /* SimulationRequest, SimulationAgreed */
  AdvancedSums           advanced;
  StepLoads              loads; /* the outputs' view of the last step's contacts (SimulationRecordLoads) */
};

/* The simulation around a scenario, without bodies (step 0, no contact memory): SimulationCreate
 * adds the scenario's, a restart the checkpoint's; then PlacementSetUpHalo (with plan: the grid and
 * cuts chosen from those bodies first, where balancing is on). Takes ownership of
 * *sc. Bad input (a process grid that does not fit, options the model refuses): err set, *sim NULL. */
PetscErrorCode SimulationCreateEmpty(MPI_Comm comm, Scenario *sc, Simulation *sim, char *err, size_t errlen);
/* The owned bodies were added, removed or reordered: what was prepared by index is stale. */
void SimulationBodiesRearranged(Simulation sim);
/* The walls with a prescribed motion put at sim->time, with their velocities for the step that
 * starts there (bodies/wall_motion.h); the others are left as they are. A mesh wall keeps the mesh
 * its detection reads (the whole, or this rank's part: step/wall_meshes.h). Not collective. */
void SimulationWallsAtTime(Simulation sim);
/* Whether a body at x lies in the domain (bodies that leave it are removed). */
static inline PetscBool SimulationInDomain(Simulation sim, const double x[3])
{
  PetscBool in = PETSC_TRUE;
  for (int k = 0; k < 3; k++) in = (PetscBool)(in && x[k] >= sim->sc.domain_min[k] && x[k] <= sim->sc.domain_max[k]);
  return in;
}

/* step/emission.c: the emitters' bodies due at the current time (*emitted: some were added);
 * whether some emitter owes bodies at the start of step `step`. */
PetscErrorCode SimulationEmit(Simulation sim, PetscBool *emitted);
PetscBool      SimulationEmissionDue(Simulation sim, PetscInt64 step);

/* step/placement.c. Create: the decomposition on several ranks (nothing on one). SetUpHalo: the
 * ghost halo from the bodies' largest radius; a subdomain narrower than it is bad input (err set,
 * the same on every rank). Begin, before detection: bodies not yet placed to their owners, the
 * spatial order, this step's ghosts (w->removed: bodies that arrived outside the domain), this rank's parts of the
 * fixed mesh walls where the cuts or the halo moved (step/wall_meshes.h). End,
 * after the bodies moved: the removal of bodies that left the domain, balancing, migration (or
 * its decision, deferred to the statistics' reduction: Deferred, after it; it also decides whether
 * the work imbalance calls for a rebalance). ForOutput: every body on its owner, by id, before a
 * file is written, and a rebalance that is due (its migration then left to the next step, as after
 * a restart, so that a restart from that file continues bitwise). */
PetscErrorCode PlacementCreate(Simulation sim);
PetscErrorCode PlacementDestroy(Simulation sim);
PetscErrorCode PlacementSetUpHalo(Simulation sim, PetscBool plan, char *err, size_t errlen);
PetscErrorCode PlacementBegin(Simulation sim, PetscBool emitted, StepWork *w);
PetscErrorCode PlacementEnd(Simulation sim, StepWork *w);
PetscErrorCode PlacementDeferred(Simulation sim);
PetscErrorCode PlacementForOutput(Simulation sim);

/* Body i's terms of the step's statistics: its speed into *max_speed, its kinetic and potential
 * energy into energy[0] and energy[1] (g: gravity). Inline: a model's advance may sum them as it
 * moves the bodies (AdvancedSums). */
static inline void StepStatsAddBody(const BodyStore *s, PetscInt i, const double g[3], double *max_speed,
                                    double energy[2])
{
  const double *v = s->vel + 6 * i, *J = s->inertia + 3 * i, m = s->mass[i];
  const double  sp = v3_norm(v);
  *max_speed       = PetscMax(*max_speed, sp);
  energy[0] += 0.5 * m * sp * sp + 0.5 * (J[0] * v[3] * v[3] + J[1] * v[4] * v[4] + J[2] * v[5] * v[5]);
  energy[1] += -m * v3_dot(g, s->pos + 3 * i);
}

/* step/output_loads.c. Record, after the response and before the bodies move (their positions and
 * the contacts' body indices are the step's): the loads of the step's contacts, when asked for
 * (not collective). Extras: what SimulationWriteSnapshot adds to the bodies, the wall loads summed
 * over ranks (collective); the loads must be of the current step (any at step 0: none). Free: the
 * record's memory. */
PetscErrorCode StepLoadsRecord(Simulation sim, const StepWork *w);
PetscErrorCode StepLoadsExtras(Simulation sim, SnapshotExtras *x);
PetscErrorCode StepLoadsFree(Simulation sim);

/* step/step_stats.c. SetAsideNonFinite, after the bodies moved and before the placement (whose
 * migration and balancing must not see a NaN position): owned bodies whose position, velocity or
 * orientation is not finite are removed, counted in w and the lowest id kept (one pass of
 * multiplies and adds; the run stops at the statistics). Not collective.
 * Compute: the step's statistics from the step's work, in one reduction over ranks; a body set
 * aside on some rank, or statistics that are not finite (energies, speed, residual: then one more
 * reduction finds the lowest id of a body with a non-finite term), are an error (PETSC_ERR_FP) on
 * every rank, naming the body and the step. */
void           StepSetAsideNonFinite(Simulation sim, StepWork *w);
PetscErrorCode StepStatsCompute(Simulation sim, const StepWork *w);
#endif
