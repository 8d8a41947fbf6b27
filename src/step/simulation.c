/* The simulation object (step/simulation.h): creation from a scenario, the time step's options,
 * destruction and the queries. The time step is step/step.c. */
#include "step/simulation_impl.h"
#include "step/population.h"
#include "bodies/wall_motion.h"
#include "base/log_events.h"

static const ContactModelOps *ModelOf(const Scenario *sc)
{
  return sc->contact_model == CONTACT_MODEL_PENALTY ? &ContactModelPenalty : &ContactModelCCP;
}

/* The time step's options (the contact model reads its own in its create). */
static PetscErrorCode SetFromOptions(Simulation sim)
{
  Placement *pl = &sim->place;

  PetscFunctionBegin;
  pl->balance_interval     = 100;
  pl->balance_threshold    = 1.1;
  pl->ghost_update_allowed = PETSC_TRUE;
  sim->sort_interval       = 25;
  sim->neighbour_skin      = sim->model->list_by_default ? sim->sc.envelope : 0;
  PetscOptionsBegin(sim->comm, NULL, "Time stepper", NULL);
  PetscCall(PetscOptionsInt("-balance_interval",
                            "Distributed run: steps between load balancing (grid and cuts chosen on the bodies and "
                            "contacts; 0 = none)",
                            NULL, pl->balance_interval, &pl->balance_interval, NULL));
  PetscCall(PetscOptionsReal("-balance_threshold",
                             "Distributed run: rebalance (grid and cuts on the bodies and contacts) after a step whose "
                             "work imbalance, max / mean over ranks of owned bodies + contacts, exceeds it (0 = never; "
                             "with -balance_interval 0 as well, the uniform grid of MPI_Dims_create stays)",
                             NULL, pl->balance_threshold, &pl->balance_threshold, NULL));
  PetscCall(PetscOptionsInt("-sort_interval",
                            "Steps between spatial (Morton) reorderings of the bodies, for cache locality (0 = never)",
                            NULL, sim->sort_interval, &sim->sort_interval, NULL));
  PetscCall(PetscOptionsReal("-neighbour_skin",
                             "Skin (m) of the neighbour list, reused until a body moved half of it (0 = rebuilt every "
                             "step; default: contact.envelope for the penalty model, 0 for the CCP)",
                             NULL, sim->neighbour_skin, &sim->neighbour_skin, NULL));
  PetscCall(PetscOptionsBool("-ghost_update",
                             "Several ranks with -neighbour_skin > 0: keep the ghosts and the solve's coupling, "
                             "updating the ghosts in place, while no body moved half the skin since their build "
                             "(false: rebuilt and the bodies migrated every step)",
                             NULL, pl->ghost_update_allowed, &pl->ghost_update_allowed, NULL));
  PetscCall(PetscOptionsBool("-ghost_rebuild_every_step",
                             "With -ghost_update: on the steps that would keep the ghosts, build them afresh instead "
                             "(and the solve's coupling), with the same owners and migrations: a check that the kept "
                             "ghosts give the same results bit for bit",
                             NULL, pl->ghost_rebuild_every_step, &pl->ghost_rebuild_every_step, NULL));
  PetscOptionsEnd();
  PetscCheck(sim->neighbour_skin >= 0, sim->comm, PETSC_ERR_ARG_OUTOFRANGE, "-neighbour_skin must be >= 0 (m), got %g",
             sim->neighbour_skin);
  { /* a skin as wide as the domain lists every pair */
    double diag = 0;
    for (int k = 0; k < 3; k++) diag += PetscSqr(sim->sc.domain_max[k] - sim->sc.domain_min[k]);
    PetscCheck(sim->neighbour_skin <= PetscSqrtReal(diag), sim->comm, PETSC_ERR_ARG_OUTOFRANGE,
               "-neighbour_skin %g m exceeds the domain's diagonal %g m; give a skin of a fraction of the bodies' size",
               sim->neighbour_skin, PetscSqrtReal(diag));
  }
  PetscCheck(pl->balance_threshold == 0 || pl->balance_threshold >= 1, sim->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-balance_threshold must be 0 (never) or a ratio >= 1 such as 1.1, got %g", pl->balance_threshold);
  PetscCheck(pl->balance_interval >= 0, sim->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-balance_interval must be >= 0, got %" PetscInt_FMT, pl->balance_interval);
  PetscCheck(sim->sort_interval >= 0, sim->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-sort_interval must be >= 0, got %" PetscInt_FMT, sim->sort_interval);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimulationCreateEmpty(MPI_Comm comm, Scenario *sc, Simulation *simp, char *err, size_t errlen)
{
  Simulation  sim;
  PetscMPIInt size;
  PetscBool   grid_ok = PETSC_TRUE;
  WallMeshes  meshes;

  PetscFunctionBegin;
  *simp  = NULL;
  err[0] = 0;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(DomainCheckGrid(comm, NULL, &grid_ok, err, errlen)); /* also on one rank: -decomp_grid 3,1,1 is a mistake */
  if (!grid_ok) {
    scenario_free(sc);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(WallMeshesLoad(comm, sc, &meshes, err, errlen));
  if (err[0]) {
    scenario_free(sc);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(CcpdemLogEventsRegister());
  PetscCall(PetscNew(&sim));
  sim->comm  = comm;
  sim->size  = size;
  sim->sc    = *sc;
  sim->model = ModelOf(&sim->sc);
  PetscCall(PetscMemzero(sc, sizeof(*sc)));
  sim->meshes = meshes; /* sc.walls point at them */
  PetscCall(BodyStoreCreate(&sim->bodies));
  PetscCall(PetscMalloc1(sim->sc.n_walls + 1, &sim->walls));
  if (sim->sc.n_walls) PetscCall(PetscArraycpy(sim->walls, sim->sc.walls, sim->sc.n_walls));
  SimulationWallsAtTime(sim);
  PetscCall(PetscCalloc1(sim->sc.n_emitters + 1, &sim->emitted));
  PetscCall(ContactSetCreate(&sim->contacts));
  sim->contacts.no_impulses     = (PetscBool)!sim->model->impulses;
  sim->place.output_placed_step = -1;
  sim->loads.step               = -1;
  PetscCall(ImpulseMemoryCreate(&sim->memory));
  PetscCall(ImpulseMemorySetWidth(&sim->memory, sim->model->record_width));
  PetscCall(BroadphaseCreate(&sim->bp));
  sim->last.converged     = PETSC_TRUE;
  sim->last.keep_impulses = PETSC_TRUE;
  PetscCall(PetscCalloc(sim->model->state_size, &sim->model_state));
  PetscCall(sim->model->create(sim));
  PetscCall(SetFromOptions(sim));
  PetscCall(NeighbourListCreate(&sim->nlist, sim->neighbour_skin));
  PetscCall(JointsCreate(&sim->sc, &sim->joints));
  if (size > 1) {
    PetscCall(PlacementCreate(sim));
    if (sim->model->distribute) PetscCall(sim->model->distribute(sim, err, errlen));
  }
  if (err[0]) { /* bad input: the caller reports it */
    PetscCall(SimulationDestroy(&sim));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *simp = sim;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimulationCreate(MPI_Comm comm, Scenario *sc, Simulation *simp, char *err, size_t errlen)
{
  Simulation sim;

  PetscFunctionBegin;
  *simp  = NULL;
  err[0] = 0;
  PetscCall(SimulationCreateEmpty(comm, sc, &sim, err, errlen));
  if (err[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PopulationBuild(&sim->sc, &sim->bodies, err, errlen));
  if (err[0]) {
    PetscCall(SimulationDestroy(&sim));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  sim->next_id = sim->bodies.n_owned;
  if (sim->place.domain) { /* every rank built all bodies (deterministically): keep the own ones */
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    for (PetscInt i = sim->bodies.n_owned - 1; i >= 0; i--) {
      if (DomainOwnerOfPoint(sim->place.domain, sim->bodies.pos + 3 * i) != rank) BodyStoreRemoveOwned(&sim->bodies, i);
    }
  }
  PetscCall(PlacementSetUpHalo(sim, PETSC_TRUE, err, errlen));
  if (err[0]) {
    PetscCall(SimulationDestroy(&sim));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *simp = sim;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimulationDestroy(Simulation *simp)
{
  Simulation sim = *simp;

  PetscFunctionBegin;
  if (!sim) PetscFunctionReturn(PETSC_SUCCESS);
  if (sim->model_state) PetscCall(sim->model->destroy(sim));
  PetscCall(PetscFree(sim->model_state));
  PetscCall(BodyStoreDestroy(&sim->bodies));
  PetscCall(ContactSetDestroy(&sim->contacts));
  PetscCall(ImpulseMemoryDestroy(&sim->memory));
  PetscCall(BroadphaseDestroy(&sim->bp));
  PetscCall(NeighbourListDestroy(&sim->nlist));
  PetscCall(JointsDestroy(&sim->joints));
  PetscCall(PlacementDestroy(sim));
  PetscCall(PetscFree(sim->walls));
  PetscCall(WallMeshesDestroy(&sim->meshes));
  PetscCall(PetscFree(sim->emitted));
  PetscCall(StepLoadsFree(sim));
  scenario_free(&sim->sc);
  PetscCall(PetscFree(*simp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void SimulationBodiesRearranged(Simulation sim)
{
  if (sim->model->rearranged) sim->model->rearranged(sim);
  sim->advanced.valid = PETSC_FALSE;
}

PetscErrorCode SimulationAddBody(Simulation sim, BodyRecord *rec)
{
  PetscMPIInt rank;

  PetscFunctionBegin;
  rec->id[0] = sim->next_id++;
  PetscCallMPI(MPI_Comm_rank(sim->comm, &rank));
  if (sim->place.domain && DomainOwnerOfPoint(sim->place.domain, rec->pos) != rank) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(BodyStoreAppendOwned(&sim->bodies, rec));
  SimulationBodiesRearranged(sim);
  PetscFunctionReturn(PETSC_SUCCESS);
}

void SimulationSetEndTime(Simulation sim, double t_end) { sim->sc.time_end = t_end; }

void SimulationRequest(Simulation sim, RunFlag flag, PetscBool on) { sim->requests[flag] = on; }

PetscBool SimulationAgreed(Simulation sim, RunFlag flag) { return sim->agreed[flag]; }

PetscInt SimulationFindBody(Simulation sim, int64_t id)
{
  for (PetscInt i = 0; i < sim->bodies.n_owned; i++)
    if (sim->bodies.id[i] == id) return i;
  return -1;
}

MPI_Comm             SimulationComm(Simulation sim) { return sim->comm; }
const Scenario      *SimulationScenario(Simulation sim) { return &sim->sc; }
PetscInt64           SimulationStepCount(Simulation sim) { return sim->step; }
double               SimulationTime(Simulation sim) { return sim->time; }
const StepStats     *SimulationLastStep(Simulation sim) { return &sim->last; }
PetscInt64           SimulationRemoved(Simulation sim) { return sim->removed; }
int64_t              SimulationNextId(Simulation sim) { return sim->next_id; }
int64_t              SimulationEmitted(Simulation sim, int emitter) { return sim->emitted[emitter]; }
BodyStore           *SimulationBodies(Simulation sim) { return &sim->bodies; }
const Wall          *SimulationWalls(Simulation sim) { return sim->walls; }
const ContactSet    *SimulationContacts(Simulation sim) { return &sim->contacts; }
const ImpulseMemory *SimulationMemory(Simulation sim) { return &sim->memory; }
const NeighbourList *SimulationNeighbourList(Simulation sim) { return &sim->nlist; }
Domain               SimulationDomain(Simulation sim) { return sim->place.domain; }
PetscInt             SimulationJointBlocks(Simulation sim) { return sim->joints.active; }
PetscInt             SimulationSortInterval(Simulation sim) { return sim->sort_interval; }

void SimulationGhostCounts(Simulation sim, PetscInt64 *builds, PetscInt64 *updates)
{
  *builds  = sim->place.ghost_builds;
  *updates = sim->place.ghost_updates;
}

void SimulationWallsAtTime(Simulation sim)
{
  for (int k = 0; k < sim->sc.n_walls; k++) {
    const struct TriMesh *mesh = sim->walls[k].mesh; /* the whole mesh or this rank's part (step/wall_meshes.h) */
    if (!sim->sc.walls[k].motion.moving) continue;
    wall_pose_at(&sim->sc.walls[k], sim->time, sim->sc.time_step, &sim->walls[k]);
    sim->walls[k].mesh = mesh;
  }
}
