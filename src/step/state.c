/* The simulation's state in and out of files: snapshots (io/snapshot.h), and checkpoints through
 * the state they carry (io/checkpoint.h CheckpointState): filled from a simulation to write one,
 * and a simulation rebuilt around one read, after checking that it fits its own scenario. */
#include "step/simulation_impl.h"
#include "io/checkpoint.h"
#include "io/snapshot.h"
#include <math.h>
#include <string.h>

void SimulationSetRunId(Simulation sim, const RunId *id) { sim->run_id = *id; }

const RunId *SimulationRunId(Simulation sim) { return &sim->run_id; }

PetscErrorCode SimulationWriteSnapshot(Simulation sim, const char *outdir, char *err, size_t errlen)
{
  SnapshotExtras x;

  PetscFunctionBegin;
  PetscCall(PlacementForOutput(sim)); /* the layout independent of the last ghost rebuild */
  PetscCall(StepLoadsExtras(sim, &x));
  x.clumps = sim->sc.n_clumps ? sim->sc.clumps : NULL;
  PetscCall(SnapshotWrite(sim->comm, outdir, sim->step, sim->time, &sim->bodies, &x, err, errlen));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new run id for a simulation that has none (a program that writes checkpoints without ccpdem
 * run's set-up), drawn on rank 0 and the same on every rank. */
static PetscErrorCode EnsureRunId(Simulation sim)
{
  PetscMPIInt rank;
  int         e = 0;

  PetscFunctionBegin;
  if (sim->run_id.hex[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(sim->comm, &rank));
  if (rank == 0) e = RunIdNew(&sim->run_id);
  PetscCallMPI(MPI_Bcast(&e, 1, MPI_INT, 0, sim->comm));
  PetscCheck(!e, sim->comm, PETSC_ERR_SYS, "Cannot draw a run id: getrandom: %s", strerror(e));
  PetscCallMPI(MPI_Bcast(sim->run_id.hex, sizeof(sim->run_id.hex), MPI_CHAR, 0, sim->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimulationWriteCheckpoint(Simulation sim, const char *outdir, char *path, size_t pathlen, char *err,
                                         size_t errlen)
{
  CheckpointState st;
  double          cuts[3 * 64 + 3];
  PetscInt        ncuts = 0;

  PetscFunctionBegin;
  PetscCall(EnsureRunId(sim));
  PetscCall(PlacementForOutput(sim)); /* the layout independent of the last ghost rebuild (moves the memory too) */
  PetscCall(PetscMemzero(&st, sizeof(st)));
  st.run_id             = sim->run_id;
  st.step               = sim->step;
  st.time               = sim->time;
  st.removed            = sim->removed;
  st.next_id            = sim->next_id;
  st.last_keep_impulses = sim->last.keep_impulses;
  st.bodies             = &sim->bodies;
  st.memory             = &sim->memory;
  st.n_walls            = sim->sc.n_walls;
  st.scenario_text      = sim->sc.text;
  st.scenario_path      = sim->sc.path;
  st.scenario_overrides = sim->sc.overrides;
  st.n_emitters         = sim->sc.n_emitters;
  st.emitted            = sim->emitted;
  st.cuts               = cuts;
  for (PetscInt axis = 0; axis < 3; axis++) { /* the cuts, or on one rank the domain box */
    PetscInt      dims[3] = {1, 1, 1};
    const double *c       = NULL;
    const double  box[2]  = {sim->sc.domain_min[axis], sim->sc.domain_max[axis]};
    if (sim->place.domain) {
      PetscCall(DomainGetGrid(sim->place.domain, dims));
      PetscCall(DomainGetCuts(sim->place.domain, axis, &c));
    }
    st.grid[axis] = dims[axis];
    PetscCheck(dims[axis] <= 64, sim->comm, PETSC_ERR_SUP,
               "checkpoint: more than 64 subdomains along one axis are not supported");
    for (PetscInt j = 0; j <= dims[axis]; j++) cuts[ncuts++] = c ? c[j] : box[j];
  }
  PetscCall(PetscMalloc1(3 * sim->sc.n_walls + 1, &st.wall_centers));
  for (int k = 0; k < sim->sc.n_walls; k++) PetscCall(PetscArraycpy(st.wall_centers + 3 * k, sim->walls[k].center, 3));
  PetscCall(CheckpointWrite(sim->comm, &st, outdir, path, pathlen, err, errlen));
  PetscCall(PetscFree(st.wall_centers));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The writer's cuts, when this run has the same process grid (else the cuts stay as chosen from the
 * bodies, or uniform where balancing is off). */
static PetscErrorCode RestoreCuts(Simulation sim, const CheckpointState *st)
{
  PetscInt dims[3], offset = 0;

  PetscFunctionBegin;
  if (!st->cuts || !sim->place.domain) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DomainGetGrid(sim->place.domain, dims));
  if (dims[0] != st->grid[0] || dims[1] != st->grid[1] || dims[2] != st->grid[2]) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt axis = 0; axis < 3; axis++) {
    PetscCall(DomainSetCuts(sim->place.domain, axis, st->cuts + offset));
    offset += dims[axis] + 1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The writer's process grid, when it fits this run's ranks and -decomp_grid (then RestoreCuts puts its
 * cuts back, and a restart on the writer's rank count continues bitwise); else *adopted = PETSC_FALSE
 * and the grid is chosen from the bodies (PlacementSetUpHalo). */
static PetscErrorCode AdoptGrid(Simulation sim, const CheckpointState *st, PetscBool *adopted)
{
  PetscInt want[3], dims[3];

  PetscFunctionBegin;
  *adopted = PETSC_FALSE;
  if (!st->cuts || !sim->place.domain) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DomainGetGridWanted(sim->place.domain, want));
  for (int k = 0; k < 3; k++) {
    if (st->grid[k] < 1 || st->grid[k] > sim->size || (want[k] && want[k] != st->grid[k]))
      PetscFunctionReturn(PETSC_SUCCESS);
    dims[k] = (PetscInt)st->grid[k];
  }
  if (dims[0] * dims[1] * dims[2] != sim->size) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DomainSetGrid(sim->place.domain, dims));
  *adopted = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What BodyFault finds wrong with a body read from a checkpoint (0: nothing). */
static const char *const body_faults[] = {
  NULL,
  "a body's id is negative or not below the checkpoint's next_id",
  "its material index is not one of its scenario's materials",
  "its shape is not a sphere, a box, an ellipsoid, nor a clump of one of its scenario's clump templates",
  "its mass is not a positive finite number",
  "its bounding radius is not a positive finite number",
  "a moment of inertia is not a positive finite number",
  "a size is negative or not finite",
  "its position is not finite",
  "its velocity is not finite",
  "its orientation is not a unit quaternion",
};

/* The first fault (an index into body_faults) of body b against the scenario's materials and shapes
 * and what the integrator and the solvers assume, or 0. The checksum finds damage; this finds a
 * file that is consistent but not one ccpdem would write. */
static int BodyFault(const BodyRecord *b, int n_materials, int n_clumps, int64_t next_id)
{
  const double qq = b->quat[0] * b->quat[0] + b->quat[1] * b->quat[1] + b->quat[2] * b->quat[2] +
                    b->quat[3] * b->quat[3];

  if (b->id[0] < 0 || b->id[0] >= next_id) return 1;
  if (b->material[0] < 0 || b->material[0] >= n_materials) return 2;
  if (b->shape[0] != SHAPE_SPHERE && b->shape[0] != SHAPE_BOX && b->shape[0] != SHAPE_ELLIPSOID &&
      !(b->shape[0] == SHAPE_CLUMP && b->size[0] >= 0 && b->size[0] < n_clumps && b->size[0] == floor(b->size[0])))
    return 3;
  if (!(b->mass[0] > 0 && isfinite(b->mass[0]))) return 4;
  if (!(b->radius[0] > 0 && isfinite(b->radius[0]))) return 5;
  for (int a = 0; a < 3; a++) {
    if (!(b->inertia[a] > 0 && isfinite(b->inertia[a]))) return 6;
    if (!(b->size[a] >= 0 && isfinite(b->size[a]))) return 7;
    if (!isfinite(b->pos[a])) return 8;
  }
  for (int a = 0; a < 6; a++)
    if (!isfinite(b->vel[a])) return 9;
  if (!(fabs(qq - 1) < 1e-6)) return 10; /* the integrator keeps |q| = 1 to rounding */
  return 0;
}

/* Collective. why <- the fault of the body with the lowest id that BodyFault refuses, the same on
 * every rank; untouched when every body passes. */
static PetscErrorCode CheckBodies(MPI_Comm comm, const CheckpointState *st, int n_materials, int n_clumps, char *why,
                                  size_t whylen)
{
  const int64_t n_codes = (int64_t)(sizeof(body_faults) / sizeof(body_faults[0]));
  int64_t       mine    = INT64_MAX, first; /* id * n_codes + fault: the lowest id's fault */
  BodyRecord    b;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < st->bodies->n_owned; i++) {
    int f;

    BodyStoreGet(st->bodies, i, &b);
    f = BodyFault(&b, n_materials, n_clumps, st->next_id);
    if (f) mine = PetscMin(mine, (f == 1 ? 0 : b.id[0]) * n_codes + f); /* an id out of range sorts first */
  }
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_INT64_T, MPI_MIN, comm));
  if (first != INT64_MAX && first % n_codes == 1) snprintf(why, whylen, "%s", body_faults[1]);
  else if (first != INT64_MAX)
    snprintf(why, whylen, "body %lld: %s", (long long)(first / n_codes), body_faults[first % n_codes]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The simulation around the verified state st: its scenario from the stored text, then the state
 * handed over (st keeps nothing of the bodies and memory). A state that does not fit its scenario:
 * why set, *simp NULL. */
static PetscErrorCode Rebuild(MPI_Comm comm, CheckpointState *st, Simulation *simp, char *why, size_t whylen)
{
  Scenario   sc;
  Simulation sim;
  char       serr[SCENARIO_ERR_MAX] = "";
  PetscBool  adopted;

  PetscFunctionBegin;
  *simp = NULL;
  if (scenario_load_string_set(st->scenario_text, st->scenario_path, st->scenario_overrides, &sc, serr, sizeof(serr))) {
    snprintf(why, whylen, "its stored scenario is rejected: %.400s", serr);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(CheckBodies(comm, st, sc.n_materials, sc.n_clumps, why, whylen));
  if (why[0]) {
    scenario_free(&sc);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (sc.n_walls != st->n_walls) {
    snprintf(why, whylen, "it stores %d walls but its scenario has %d", st->n_walls, sc.n_walls);
    scenario_free(&sc);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(SimulationCreateEmpty(comm, &sc, &sim, serr, sizeof(serr)));
  if (serr[0]) {
    snprintf(why, whylen, "%.480s", serr);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (st->memory->width != sim->memory.width) {
    snprintf(why, whylen, "its contact memory (%s) does not belong to its scenario's contact model",
             CheckpointContactDataset(st->memory->width));
    PetscCall(SimulationDestroy(&sim));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (st->n_emitters != sim->sc.n_emitters && (st->n_emitters || st->emitted)) {
    snprintf(why, whylen, "it stores the state of %lld emitters but its scenario has %d", (long long)st->n_emitters,
             sim->sc.n_emitters);
    PetscCall(SimulationDestroy(&sim));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* hand the verified state over; the empty store and memory it replaces are released */
  PetscCall(BodyStoreDestroy(&sim->bodies));
  PetscCall(ImpulseMemoryDestroy(&sim->memory));
  sim->bodies = *st->bodies;
  sim->memory = *st->memory;
  PetscCall(BodyStoreCreate(st->bodies));
  PetscCall(ImpulseMemoryCreate(st->memory));
  for (int k = 0; k < st->n_walls; k++) PetscCall(PetscArraycpy(sim->walls[k].center, st->wall_centers + 3 * k, 3));
  sim->step               = st->step;
  sim->time               = st->time;
  sim->removed            = st->removed;
  sim->next_id            = st->next_id;
  sim->last.keep_impulses = st->last_keep_impulses;
  sim->run_id             = st->run_id;
  sim->last.step          = sim->step;
  sim->last.time          = sim->time;
  SimulationWallsAtTime(sim); /* the centres stored for walls with a motion are these, bit for bit */
  sim->last.bodies = st->bodies_total;
  for (int64_t k = 0; k < st->n_emitters; k++) sim->emitted[k] = st->emitted[k];
  PetscCall(AdoptGrid(sim, st, &adopted));
  PetscCall(PlacementSetUpHalo(sim, (PetscBool)!adopted, serr, sizeof(serr)));
  if (serr[0]) {
    snprintf(why, whylen, "%.480s", serr);
    PetscCall(SimulationDestroy(&sim));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(RestoreCuts(sim, st));
  *simp = sim;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimulationCreateFromCheckpoint(MPI_Comm comm, const char *file, Simulation *sim, char *err,
                                              size_t errlen)
{
  CheckpointState st;
  char            why[512] = "";

  PetscFunctionBegin;
  *sim = NULL;
  PetscCall(CheckpointRead(comm, file, &st, err, errlen));
  if (!err[0]) {
    PetscCall(Rebuild(comm, &st, sim, why, sizeof(why)));
    if (why[0]) snprintf(err, errlen, "%s: not a usable ccpdem checkpoint: %s", file, why);
  }
  PetscCall(CheckpointStateDestroy(&st));
  PetscFunctionReturn(PETSC_SUCCESS);
}
