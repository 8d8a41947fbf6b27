/* Where the bodies live (step/simulation_impl.h, Placement): on one rank the spatial order and the
 * removal of bodies that left the domain; on several ranks also the decomposition, each step's
 * ghosts, migration to the owners and load balancing (decomp/), with the contact memory routed
 * where its contacts will be computed. */
#include "step/simulation_impl.h"
#include "base/growth.h"
#include "step/emitter.h"
#include "bodies/spatial_order.h"
#include "decomp/balance.h"
#include "decomp/impulse_routing.h"

PetscErrorCode PlacementCreate(Simulation sim)
{
  Placement *pl = &sim->place;

  PetscFunctionBegin;
  PetscCall(DomainCreate(sim->comm, sim->sc.domain_min, sim->sc.domain_max, NULL, &pl->domain));
  PetscCall(ExchangeCreate(&pl->exchange));
  pl->exchange.skip_copy_lists = (PetscBool)!sim->model->coupled_solve;
  if (sim->joints.n) { /* a joint's rank holds both its bodies */
    PetscInt   nbonds = 0;
    GhostBond *bonds;
    PetscCall(PetscMalloc1(sim->joints.n, &bonds));
    for (PetscInt j = 0; j < sim->joints.n; j++)
      if (JointsBond(&sim->joints, j, &bonds[nbonds].guest, &bonds[nbonds].host)) nbonds++;
    PetscCall(ExchangeSetBonds(&pl->exchange, nbonds, bonds));
    PetscCall(PetscFree(bonds));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PlacementDestroy(Simulation sim)
{
  Placement *pl = &sim->place;

  PetscFunctionBegin;
  if (pl->domain) {
    PetscCall(ExchangeDestroy(&pl->exchange));
    PetscCall(DomainDestroy(&pl->domain));
  }
  PetscCall(PetscFree(pl->build_pos));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the cuts (and the grid) follow the work: some balancing is on. */
static PetscBool Balancing(const Placement *pl)
{
  return (PetscBool)(pl->balance_interval > 0 || pl->balance_threshold > 0);
}

/* The weights of DomainPlan (decomp/balance.h): 2 per owned body, and per contact of this rank 2
 * shared among its owned bodies, so that they sum to 2 x (owned bodies + contacts). Needs this
 * step's contacts with their indices into the current store. *weight: PetscFree it. */
static PetscErrorCode WorkWeights(Simulation sim, PetscInt **weight)
{
  const BodyStore  *s  = &sim->bodies;
  const ContactSet *cs = &sim->contacts;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(s->n_owned + 1, weight));
  for (PetscInt i = 0; i < s->n_owned; i++) (*weight)[i] = 2;
  for (PetscInt c = 0; c < cs->n; c++) {
    const PetscInt  a = cs->c[c].a, b = cs->c[c].b;
    const PetscBool oa = (PetscBool)(a >= 0 && a < s->n_owned), ob = (PetscBool)(b >= 0 && b < s->n_owned);
    if (oa) (*weight)[a] += ob ? 1 : 2;
    if (ob) (*weight)[b] += oa ? 1 : 2;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Choose the grid and cuts for the owned bodies (with contacts: their contacts' work too) and count
 * it. Collective. */
static PetscErrorCode Rebalance(Simulation sim, PetscBool contacts, DomainPlanResult *r)
{
  Placement *pl     = &sim->place;
  PetscInt  *weight = NULL;
  double     w;

  PetscFunctionBegin;
  if (contacts) PetscCall(WorkWeights(sim, &weight));
  PetscCall(DomainGetHalo(pl->domain, &w));
  PetscCall(DomainPlan(pl->domain, &sim->bodies, weight, PETSC_TRUE, w, r));
  PetscCall(PetscFree(weight));
  pl->balances++;
  if (r->regridded) pl->regrids++;
  pl->balance_due = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PlacementSetUpHalo(Simulation sim, PetscBool plan, char *err, size_t errlen)
{
  Placement *pl = &sim->place;
  PetscBool  ok, persist;

  PetscFunctionBegin;
  err[0] = 0;
  if (!pl->domain) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ExchangeHaloWidth(pl->domain, &sim->bodies, sim->sc.envelope, &pl->halo));
  pl->halo = PetscMax(pl->halo, 2 * emitter_max_radius(&sim->sc) + sim->sc.envelope); /* bodies to come */
  persist  = (PetscBool)(sim->model->ghosts_persist && sim->neighbour_skin > 0 && pl->ghost_update_allowed);
  if (plan && Balancing(pl)) { /* the grid and cuts from the bodies, slabs wide enough for the kept ghosts' halo if
                                  some grid allows it (DomainPlan keeps the grid where none fits) */
    DomainPlanResult r;
    PetscCall(
      DomainPlan(pl->domain, &sim->bodies, NULL, PETSC_TRUE, pl->halo + (persist ? sim->neighbour_skin : 0), &r));
    if (persist && !r.fits) PetscCall(DomainPlan(pl->domain, &sim->bodies, NULL, PETSC_TRUE, pl->halo, &r));
  }
  pl->ghost_update = PETSC_FALSE;
  if (persist) {
    /* Ghosts kept while no body moved skin / 2 since their build (PlacementEnd): a contact (A, B)
     * now had its centres within r_A + r_B + envelope + skin <= halo + skin at the build, when A lay
     * in its owner's subdomain, so B was ghosted there. Where the wider halo does not fit the
     * subdomains, the ghosts are rebuilt every step (the same cuts on every rank, so the same
     * choice). */
    char msg[512];
    PetscCall(DomainCheckHalo(pl->domain, pl->halo + sim->neighbour_skin, &ok, msg, sizeof(msg)));
    if (ok) {
      pl->halo += sim->neighbour_skin;
      pl->ghost_update = PETSC_TRUE;
    }
  }
  PetscCall(DomainCheckHalo(pl->domain, pl->halo, &ok, err, errlen));
  if (ok) PetscCall(DomainSetHalo(pl->domain, pl->halo));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bodies whose centre left the domain are removed and counted (this rank's count). */
static PetscInt RemoveEscaped(Simulation sim)
{
  BodyStore *s       = &sim->bodies;
  PetscInt   removed = 0;

  if (sim->advanced.valid && !sim->advanced.outside) return 0; /* the integrator saw every body inside */
  for (PetscInt i = s->n_owned - 1; i >= 0; i--) {
    if (!SimulationInDomain(sim, s->pos + 3 * i)) {
      BodyStoreRemoveOwned(s, i);
      SimulationBodiesRearranged(sim);
      removed++;
    }
  }
  return removed;
}

/* -ghost_rebuild_every_step, on a step that keeps the ghosts: the ghosts built afresh from the current
 * positions for the same owners (lagging up to skin / 2 behind their bodies), in id order, and the
 * ghost epoch advanced so that the solve's coupling is set up again; the owned bodies, their order
 * and the drift reference stay, so the migrations come on the same steps as when the ghosts are
 * kept. Every contact is then computed where it would be with the kept ghosts, and the solve sums
 * in the same order: the results agree bit for bit unless the kept ghosts miss a body. Collective. */
static PetscErrorCode FreshGhosts(Simulation sim, PetscInt64 *bytes)
{
  Placement      *pl   = &sim->place;
  const PetscBool kept = pl->exchange.counts_kept;

  PetscFunctionBegin;
  sim->bodies.n_ghost = 0;
  SimulationBodiesRearranged(sim);       /* the ghosts' indices change */
  pl->exchange.counts_kept = PETSC_TRUE; /* no body was added, removed or exchanged since the build */
  pl->exchange.lag         = 0.5 * sim->neighbour_skin;
  PetscCall(ExchangeBuildGhosts(pl->domain, pl->halo, &sim->bodies, &pl->exchange));
  pl->exchange.lag         = 0;
  pl->exchange.counts_kept = kept;
  pl->ghost_builds++;
  pl->ghost_epoch++;
  *bytes += pl->exchange.build_bytes_sent;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Several ranks, start of a step (emitted: bodies were added since the last step): bodies not yet
 * placed (first step, restart) to their owners (counting those outside the domain), the spatial
 * order (migration leaves the bodies in id order, or in last step's spatial order where none left
 * or arrived: then it costs a pass), the ghosts of this step. Or, while the ghosts are kept, their
 * update from the owners' motion (with -ghost_rebuild_every_step: FreshGhosts). */
static PetscErrorCode DistributedBegin(Simulation sim, PetscBool emitted, PetscInt64 *bytes)
{
  Placement *pl      = &sim->place;
  PetscInt   removed = 0;

  PetscFunctionBegin;
  if (pl->ghosts_kept) { /* the ghost set, the plan and the store's layout hold: the owners' motion */
    const Exchange *ex = &pl->exchange;
    PetscCheck(!emitted, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "ghosts kept although bodies were emitted (PlacementEnd checks the emitters)");
    if (pl->ghost_rebuild_every_step) {
      PetscCall(FreshGhosts(sim, bytes));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(ExchangeUpdateGhosts(&pl->exchange, &sim->bodies, EXCHANGE_FIELDS_MOTION));
    pl->ghost_updates++;
    *bytes += (PetscInt64)ex->send_start[ex->n_neighbors] * (PetscInt64)ExchangeFieldsBytes(EXCHANGE_FIELDS_MOTION);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  sim->bodies.n_ghost = 0;
  SimulationBodiesRearranged(sim);                                    /* migrated or sorted below */
  if (emitted || !pl->placed) pl->exchange.counts_kept = PETSC_FALSE; /* the ghost build counts them again */
  if (!pl->placed) { /* bodies and memory as created or read from a checkpoint */
    PetscCall(ExchangeMigrate(pl->domain, &sim->bodies, &removed, bytes));
    PetscCall(ImpulseMemoryRouteById(pl->domain, &sim->bodies, &sim->memory, bytes));
  }
  sim->removed += removed; /* bodies that arrived outside the domain (restart); 0 otherwise */
  pl->placed = PETSC_TRUE;
  if (sim->sort_interval > 0) PetscCall(BodyStoreSortSpatially(&sim->bodies, sim->sc.domain_min, sim->sc.domain_max));
  PetscCall(ExchangeBuildGhosts(pl->domain, pl->halo, &sim->bodies, &pl->exchange));
  pl->ghost_builds++;
  pl->ghost_epoch++;
  *bytes += pl->exchange.build_bytes_sent;
  if (pl->ghost_update) { /* the reference of the drift test, in the order the ghosts were built on */
    const size_t n = 3 * (size_t)sim->bodies.n_owned;
    if (n > pl->build_pos_cap) {
      PetscCall(PetscFree(pl->build_pos));
      pl->build_pos_cap = GrowthCapacity(pl->build_pos_cap, n);
      PetscCall(PetscMalloc1(pl->build_pos_cap, &pl->build_pos));
    }
    if (n) PetscCall(PetscArraycpy(pl->build_pos, sim->bodies.pos, n));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PlacementBegin(Simulation sim, PetscBool emitted, StepWork *w)
{
  const double t0 = MPI_Wtime();

  PetscFunctionBegin;
  if (emitted) SimulationBodiesRearranged(sim);
  if (sim->place.domain) {
    PetscCall(DistributedBegin(sim, emitted, &w->bytes));
    w->comm += MPI_Wtime() - t0;
    /* the mesh parts, where the cuts or the halo moved or a moving mesh's window ended */
    PetscCall(WallMeshesFit(&sim->meshes, sim->place.domain, sim->walls, sim->step, sim->sc.time_step));
  } else if (sim->sort_interval && sim->step % sim->sort_interval == 0) {
    PetscCall(BodyStoreSortSpatially(&sim->bodies, sim->sc.domain_min, sim->sc.domain_max));
    SimulationBodiesRearranged(sim);
  }
  w->nb = sim->bodies.n_owned + sim->bodies.n_ghost;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Migration as decided in mv: the memory goes where its contacts will be owned, then the bodies. */
static PetscErrorCode DistributedMove(Simulation sim, const ExchangeMoves *mv_in, PetscInt64 *bytes)
{
  Placement    *pl = &sim->place;
  ExchangeMoves mv = *mv_in;

  PetscFunctionBegin;
  mv.keep_order = (PetscBool)(sim->sort_interval > 0); /* DistributedBegin sorts them spatially */
  SimulationBodiesRearranged(sim);
  PetscCall(ImpulseMemoryRoute(pl->domain, &sim->bodies, &sim->contacts, &mv, &sim->memory, bytes));
  sim->bodies.n_ghost = 0;
  PetscCall(ExchangeMigrateMoves(pl->domain, &sim->bodies, &mv, bytes));
  sim->removed += mv.removed;
  pl->exchange.counts_kept = (PetscBool)(mv.moving == 0 && mv.removed == 0); /* the same on every rank */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Several ranks, end of a step (the owned bodies have moved): the cuts move if balancing is due,
 * the contact memory goes where its contacts will be owned, then the bodies migrate.
 * With ghost_update the migration waits, and the next step updates the ghosts in place, while every
 * owned body lies within skin / 2 of where it was at the ghost build, no body left the domain, no
 * balancing and no emission is due (decided in the statistics' one reduction, so alike on every
 * rank: StepStatsCompute, then PlacementDeferred).
 * Then the ghost set still covers every contact (PlacementSetUpHalo), and the neighbour lists built
 * on it stay complete; a body owned by a rank its centre has left computes its contacts there, once,
 * and the loads, summed per body in key order wherever the bodies live, keep every bit. */
static PetscErrorCode DistributedEnd(Simulation sim, PetscInt64 *bytes)
{
  Placement       *pl      = &sim->place;
  const PetscBool  balance = (PetscBool)((pl->balance_interval > 0 && (sim->step + 1) % pl->balance_interval == 0) ||
                                        pl->balance_due);
  DomainPlanResult r       = {0};
  ExchangeMoves    mv;

  PetscFunctionBegin;
  if (balance) PetscCall(Rebalance(sim, PETSC_TRUE, &r));
  pl->ghosts_kept = pl->moves_pending = PETSC_FALSE;
  if (pl->ghost_update && !balance && !SimulationEmissionDue(sim, sim->step + 1)) { /* decided with the statistics */
    PetscCall(ExchangeMovesLocal(pl->domain, &sim->bodies, pl->build_pos, 0.5 * sim->neighbour_skin, pl->moves_local));
    pl->moves_pending = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(ExchangeDecideMoves(pl->domain, &sim->bodies, &mv)); /* one reduction for the memory and the bodies */
  PetscCall(DistributedMove(sim, &mv, bytes));
  if (r.regridded) pl->exchange.counts_kept = PETSC_FALSE; /* new neighbours */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PlacementEnd(Simulation sim, StepWork *w)
{
  PetscFunctionBegin;
  if (sim->place.domain) {
    const double t0 = MPI_Wtime();
    PetscCall(DistributedEnd(sim, &w->bytes));
    w->comm += MPI_Wtime() - t0;
  } else {
    PetscInt removed = RemoveEscaped(sim), gremoved;
    PetscCallMPI(MPI_Allreduce(&removed, &gremoved, 1, MPIU_INT, MPI_SUM, sim->comm));
    sim->removed += gremoved;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The end of DistributedEnd when its decision rode on the statistics' reduction (after
 * StepStatsCompute, which counted the bodies leaving the domain as removed): the ghosts are kept
 * unless some body drifted or left the domain. Timed into this step's figures, its bytes into the
 * next step's. */
PetscErrorCode PlacementDeferred(Simulation sim)
{
  Placement    *pl = &sim->place;
  ExchangeMoves mv;
  double        t0;

  PetscFunctionBegin;
  if (!pl->moves_pending) PetscFunctionReturn(PETSC_SUCCESS);
  t0                = MPI_Wtime();
  pl->bytes_carry   = 0;
  pl->moves_pending = PETSC_FALSE;
  ExchangeMovesFromSums(pl->moves_global, &mv);
  pl->ghosts_kept = (PetscBool)(!mv.drifted && mv.removed == 0);
  if (!pl->ghosts_kept) PetscCall(DistributedMove(sim, &mv, &pl->bytes_carry));
  sim->last.wall_comm += MPI_Wtime() - t0;
  sim->last.wall_integrate += MPI_Wtime() - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After a kept step the bodies move now, with their memory (as DistributedEnd would have); after a
 * migrating one they are in place and only their order changes (the memory is already routed, and
 * the contacts' indices are stale, so it is not routed again). The next step rebuilds the ghosts
 * either way. Only with ghost_update, which lets ownership lag between rebuilds; otherwise the
 * bodies are on their owners already and nothing is done. */
PetscErrorCode PlacementForOutput(Simulation sim)
{
  Placement    *pl = &sim->place;
  ExchangeMoves mv;
  PetscInt64    bytes = 0;

  PetscFunctionBegin;
  if (!pl->domain || !pl->placed) PetscFunctionReturn(PETSC_SUCCESS);
  if (pl->output_placed_step == sim->step) PetscFunctionReturn(PETSC_SUCCESS); /* a second output of this step */
  if (pl->ghost_update) {
    PetscCall(ExchangeDecideMoves(pl->domain, &sim->bodies, &mv));
    mv.keep_order = PETSC_FALSE; /* id order */
    SimulationBodiesRearranged(sim);
    if (pl->ghosts_kept) {
      PetscCall(ImpulseMemoryRoute(pl->domain, &sim->bodies, &sim->contacts, &mv, &sim->memory, &bytes));
      pl->exchange.counts_kept = (PetscBool)(mv.moving == 0 && mv.removed == 0);
    } else
      PetscCheck(mv.moving == 0 && mv.removed == 0, sim->comm, PETSC_ERR_PLIB,
                 "PlacementForOutput: %" PetscInt_FMT " bodies misplaced after a migration", mv.moving + mv.removed);
    sim->bodies.n_ghost = 0;
    PetscCall(ExchangeMigrateMoves(pl->domain, &sim->bodies, &mv, &bytes));
    sim->removed += mv.removed;
    pl->ghosts_kept = PETSC_FALSE;
  }
  pl->output_placed_step = sim->step;
  if (pl->balance_due) { /* the file holds the new cuts; the next step migrates to them, as a restart from it does */
    DomainPlanResult r;
    PetscCall(Rebalance(sim, PETSC_FALSE, &r)); /* the contacts' indices are stale after a migration */
    pl->placed = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimulationBalance(Simulation sim)
{
  DomainPlanResult r;

  PetscFunctionBegin;
  if (!sim->place.domain) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(Rebalance(sim, PETSC_FALSE, &r));
  sim->place.placed = PETSC_FALSE; /* the next step migrates to the new cuts */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimulationGetDecomposition(Simulation sim, SimulationDecomposition *info)
{
  const Placement *pl = &sim->place;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(info, sizeof(*info)));
  for (int k = 0; k < 3; k++) info->grid[k] = 1;
  info->contacts = info->work = 1;
  if (!pl->domain) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DomainGetGrid(pl->domain, info->grid));
  if (sim->step > 0) {
    info->contacts = pl->imbalance_contacts;
    info->work     = pl->imbalance_work;
  }
  info->balances = pl->balances;
  info->regrids  = pl->regrids;
  PetscFunctionReturn(PETSC_SUCCESS);
}
