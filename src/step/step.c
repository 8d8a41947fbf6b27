/* The time step, top to bottom. See step/simulation.h and GUIDE "Time step". */
#include "step/simulation.h"
#include "step/step_reduce.h"
#include "collision/detect.h"
#include "step/population.h"
#include "bodies/spatial_order.h"
#include "decomp/balance.h"
#include "decomp/impulse_routing.h"
#include "step/emitter.h"
#include "decomp/force_routing.h"
#include "base/vec3.h"
#include "ccp/plasticity.h"
#include "penalty/side.h"
#include <string.h>

static PetscLogEvent EV_DETECT, EV_SOLVE, EV_INTEGRATE;

/* Owned bodies were added, removed or reordered since the integrator moved them: what it prepared
 * by index no longer holds (PenaltyAdvance: the penalty sides, the sums for the statistics). */
static void BodiesRearranged(Simulation *sim)
{
  sim->penalty.side_ahead = 0;
  sim->advanced.valid     = PETSC_FALSE;
}

/* Bodies whose centre leaves the domain are removed (GUIDE "Scenario files"). */
static inline PetscBool InDomain(const Simulation *sim, const double x[3])
{
  PetscBool in = PETSC_TRUE;
  for (int k = 0; k < 3; k++) in = (PetscBool)(in && x[k] >= sim->sc.domain_min[k] && x[k] <= sim->sc.domain_max[k]);
  return in;
}

/* Body i's terms of the step's statistics: its speed into *max_speed, its kinetic and potential
 * energy into energy[0] and energy[1]. */
static inline void StatsAddBody(const BodyStore *s, PetscInt i, const double g[3], double *max_speed, double energy[2])
{
  const double *v = s->vel + 6 * i, *J = s->inertia + 3 * i, m = s->mass[i];
  const double  sp = v3_norm(v);
  *max_speed = PetscMax(*max_speed, sp);
  energy[0] += 0.5 * m * sp * sp + 0.5 * (J[0] * v[3] * v[3] + J[1] * v[4] * v[4] + J[2] * v[5] * v[5]);
  energy[1] += -m * v3_dot(g, s->pos + 3 * i);
}

static PetscErrorCode StepperRegisterEvents(void)
{
  static PetscBool done = PETSC_FALSE;
  PetscClassId     cls;

  PetscFunctionBegin;
  if (done) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscClassIdRegister("ccpdem", &cls));
  PetscCall(PetscLogEventRegister("Detect", cls, &EV_DETECT));
  PetscCall(PetscLogEventRegister("Solve", cls, &EV_SOLVE));
  PetscCall(PetscLogEventRegister("Integrate", cls, &EV_INTEGRATE));
  done = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimulationCreateEmpty(MPI_Comm comm, Scenario *sc, Simulation **simp, char *err, size_t errlen)
{
  Simulation *sim;
  PetscMPIInt size;
  PetscBool   grid_ok = PETSC_TRUE;

  PetscFunctionBegin;
  *simp  = NULL;
  err[0] = 0;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size > 1) PetscCall(DomainCheckGrid(comm, NULL, &grid_ok, err, errlen));
  if (!grid_ok) {
    scenario_free(sc);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(StepperRegisterEvents());
  PetscCall(PetscNew(&sim));
  sim->comm = comm;
  sim->size = size;
  sim->sc   = *sc;
  PetscCall(PetscMemzero(sc, sizeof(*sc)));
  PetscCall(BodyStoreCreate(&sim->bodies));
  PetscCall(PetscMalloc1(sim->sc.n_walls + 1, &sim->walls));
  if (sim->sc.n_walls) PetscCall(PetscArraycpy(sim->walls, sim->sc.walls, sim->sc.n_walls));
  PetscCall(PetscCalloc1(sim->sc.n_emitters + 1, &sim->emitted));
  PetscCall(ContactSetCreate(&sim->contacts));
  sim->contacts.no_impulses = (PetscBool)(sim->sc.contact_model == CONTACT_MODEL_PENALTY); /* loads, not impulses */
  sim->output_placed_step   = -1;
  PetscCall(ImpulseMemoryCreate(&sim->previous));
  PetscCall(ImpulseMemoryCreate(&sim->pen_next));
  PetscCall(BroadphaseCreate(&sim->bp));
  PetscCall(CCPSolverCreate(comm, &sim->solver));
  PetscCall(CCPSolverSetFromScenario(sim->solver, sim->sc.solver_type, sim->sc.max_iterations, sim->sc.tolerance));
  PetscCall(CCPSolverSetFromOptions(sim->solver));
  if (sim->sc.contact_model == CONTACT_MODEL_CCP) PetscCall(CCPSolverScratch(sim->solver, &sim->bp.pool)); /* detection's arrays in the solver's vectors: each dead while the other runs */
  sim->warm_start_scale = 1.0;
  sim->warm_start_decay = sim->sc.warm_start_decay; /* the option below overrides the scenario */
  sim->sort_interval    = 25;
  sim->balance_interval = 100;
  sim->neighbour_skin   = sim->sc.contact_model == CONTACT_MODEL_PENALTY ? sim->sc.envelope : 0;
  sim->pen_limit.period = INFINITY;
  sim->ghost_update_allowed = PETSC_TRUE;
  PetscOptionsBegin(comm, NULL, "Time stepper", NULL);
  PetscCall(PetscOptionsReal("-ccp_warm_start_scale", "Factor on last step's impulses used as the initial guess (0 = cold start)", NULL, sim->warm_start_scale, &sim->warm_start_scale, NULL));
  PetscCall(PetscOptionsReal("-ccp_warm_start_decay", "Extra factor on the warm start after a step that did not converge and changed its warm start, so impulses cannot accumulate along an unbounded direction of an unsolvable step", NULL, sim->warm_start_decay, &sim->warm_start_decay, NULL));
  PetscCall(PetscOptionsInt("-balance_interval", "Distributed run: steps between load balancing (cuts moved to even out the owned bodies; 0 = never)", NULL, sim->balance_interval, &sim->balance_interval, NULL));
  PetscCall(PetscOptionsInt("-sort_interval", "Steps between spatial (Morton) reorderings of the bodies, for cache locality (0 = never)", NULL, sim->sort_interval, &sim->sort_interval, NULL));
  PetscCall(PetscOptionsReal("-neighbour_skin", "Skin (m) of the neighbour list, reused until a body moved half of it (0 = rebuilt every step; default: contact.envelope for the penalty model, 0 for the CCP)", NULL, sim->neighbour_skin, &sim->neighbour_skin, NULL));
  PetscCall(PetscOptionsBool("-ghost_update", "contact.model penalty on several ranks: keep the ghosts, updating them in place, while no body moved half the skin since their build (false: rebuilt every step)", NULL, sim->ghost_update_allowed, &sim->ghost_update_allowed, NULL));
  PetscOptionsEnd();
  PetscCheck(sim->neighbour_skin >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-neighbour_skin must be >= 0 (m), got %g", sim->neighbour_skin);
  PetscCall(NeighbourListCreate(&sim->nlist, sim->neighbour_skin));
  PetscCheck(sim->balance_interval >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-balance_interval must be >= 0, got %" PetscInt_FMT, sim->balance_interval);
  PetscCheck(sim->sort_interval >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-sort_interval must be >= 0, got %" PetscInt_FMT, sim->sort_interval);
  PetscCheck(sim->warm_start_scale >= 0 && sim->warm_start_scale <= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ccp_warm_start_scale must be in [0, 1], got %g", sim->warm_start_scale);
  PetscCheck(sim->warm_start_decay >= 0 && sim->warm_start_decay <= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ccp_warm_start_decay must be in [0, 1], got %g", sim->warm_start_decay);
  sim->last.converged     = PETSC_TRUE;
  sim->last.keep_impulses = PETSC_TRUE;
  PetscCall(JointsCreate(&sim->sc, &sim->joints));
  PetscCall(ContactPairTableCreate(sim->sc.materials, sim->sc.n_materials, &sim->ccp_pairs, &sim->ccp_pairs_yield));
  if (sim->sc.contact_model == CONTACT_MODEL_PENALTY) { /* history records instead of impulses */
    PetscCall(ImpulseMemorySetWidth(&sim->previous, PENALTY_HISTORY_WIDTH));
    PetscCall(PenaltyContextSetUp(&sim->penalty, &sim->sc.penalty, sim->sc.materials, sim->sc.n_materials));
    PetscCall(PenaltyContextSetFromOptions(&sim->penalty, comm));
  }
  if (size > 1) {
    CCPCoupling hooks;
    PetscCall(CCPSolverCheckCoupling(sim->solver, err, errlen));
    if (err[0]) { /* bad input: the caller reports it */
      PetscCall(SimulationDestroy(&sim));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(DomainCreate(comm, sim->sc.domain_min, sim->sc.domain_max, NULL, &sim->domain));
    PetscCall(ExchangeCreate(&sim->exchange));
    sim->exchange.skip_copy_lists = (PetscBool)(sim->sc.contact_model == CONTACT_MODEL_PENALTY);
    if (sim->joints.n) { /* a joint's rank holds both its bodies */
      PetscInt   nbonds;
      GhostBond *bonds;
      PetscCall(JointsGetBonds(&sim->joints, &nbonds, &bonds));
      PetscCall(ExchangeSetBonds(&sim->exchange, nbonds, bonds));
      PetscCall(PetscFree(bonds));
    }
    PetscCall(VelocityCouplingCreate(comm, &sim->coupling));
    PetscCall(VelocityCouplingGetHooks(sim->coupling, &hooks));
    PetscCall(CCPSolverSetCoupling(sim->solver, &hooks));
  }
  *simp = sim;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimulationCreate(MPI_Comm comm, Scenario *sc, Simulation **simp, char *err, size_t errlen)
{
  Simulation *sim;

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
  if (sim->size > 1) { /* every rank built all bodies (deterministically): keep the own ones */
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    for (PetscInt i = sim->bodies.n_owned - 1; i >= 0; i--) {
      if (DomainOwnerOfPoint(sim->domain, sim->bodies.pos + 3 * i) != rank) BodyStoreRemoveOwned(&sim->bodies, i);
    }
  }
  PetscCall(SimulationSetUpHalo(sim, err, errlen));
  if (err[0]) {
    PetscCall(SimulationDestroy(&sim));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *simp        = sim;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimulationSetUpHalo(Simulation *sim, char *err, size_t errlen)
{
  PetscBool ok;

  PetscFunctionBegin;
  err[0] = 0;
  if (!sim->domain) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ExchangeHaloWidth(sim->domain, &sim->bodies, sim->sc.envelope, &sim->halo));
  sim->halo = PetscMax(sim->halo, 2 * emitter_max_radius(&sim->sc) + sim->sc.envelope); /* bodies to come */
  sim->ghost_update = PETSC_FALSE;
  if (sim->sc.contact_model == CONTACT_MODEL_PENALTY && sim->neighbour_skin > 0 && sim->ghost_update_allowed) {
    /* Ghosts kept while no body moved skin / 2 since their build (DistributedEnd): a contact (A, B)
     * now had its centres within r_A + r_B + envelope + skin <= halo + skin at the build, when A lay
     * in its owner's subdomain, so B was ghosted there. Where the wider halo does not fit the
     * subdomains, the ghosts are rebuilt every step as before (the same cuts on every rank, so the
     * same choice). */
    char msg[512];
    PetscCall(DomainCheckHalo(sim->domain, sim->halo + sim->neighbour_skin, &ok, msg, sizeof(msg)));
    if (ok) {
      sim->halo += sim->neighbour_skin;
      sim->ghost_update = PETSC_TRUE;
    }
  }
  PetscCall(DomainCheckHalo(sim->domain, sim->halo, &ok, err, errlen));
  if (ok) PetscCall(DomainSetHalo(sim->domain, sim->halo));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimulationDestroy(Simulation **simp)
{
  Simulation *sim = *simp;

  PetscFunctionBegin;
  if (!sim) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(BodyStoreDestroy(&sim->bodies));
  PetscCall(ContactSetDestroy(&sim->contacts));
  PetscCall(ImpulseMemoryDestroy(&sim->previous));
  PetscCall(BroadphaseDestroy(&sim->bp));
  PetscCall(NeighbourListDestroy(&sim->nlist));
  PetscCall(CCPSolverDestroy(&sim->solver));
  PetscCall(JointsDestroy(&sim->joints));
  if (sim->domain) {
    PetscCall(VelocityCouplingDestroy(&sim->coupling));
    PetscCall(ExchangeDestroy(&sim->exchange));
    PetscCall(DomainDestroy(&sim->domain));
  }
  PetscCall(PetscFree(sim->walls));
  PetscCall(PetscFree(sim->ccp_pairs));
  PetscCall(PetscFree(sim->emitted));
  PetscCall(PetscFree2(sim->pen_match, sim->pen_load));
  PetscCall(PetscFree(sim->pen_acc));
  PetscCall(ImpulseMemoryDestroy(&sim->pen_next));
  PetscCall(PenaltyContextDestroy(&sim->penalty));
  PetscCall(PetscFree(sim->build_pos));
  scenario_free(&sim->sc);
  PetscCall(PetscFree(*simp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscInt SimulationFindBody(const Simulation *sim, int64_t id)
{
  for (PetscInt i = 0; i < sim->bodies.n_owned; i++)
    if (sim->bodies.id[i] == id) return i;
  return -1;
}

/* Body i's free linear velocity v + h g. */
static inline void free_linear(const BodyStore *s, PetscInt i, const double g[3], double h, double vel_free[3])
{
  for (int k = 0; k < 3; k++) vel_free[k] = s->vel[6 * i + k] + h * g[k];
}

/* Solver body i, whose orientation matrix is R: world inverse inertia (xx, yy, zz, xy, xz, yz), and
 * the free velocity M^-1 k = v + h M^-1 (f_ext + f_gyro) with the angular part converted to the
 * world frame. The gyroscopic torque -w x (J w) is taken explicitly in the body frame. A moment
 * equal to the one before it takes that one's inverse: the same bits, and a sphere pays one
 * division, not three. */
static inline void solver_body_turned(const BodyStore *s, PetscInt i, const double R[9], const double g[3], double h, double inv_inertia[6], double vel_free[6])
{
  const double *J = s->inertia + 3 * i, *wb = s->vel + 6 * i + 3;
  double        Jinv[3], Jw[3], gyro[3], wnew[3];
  Jinv[0] = 1 / J[0];
  Jinv[1] = J[1] == J[0] ? Jinv[0] : 1 / J[1];
  Jinv[2] = J[2] == J[1] ? Jinv[1] : 1 / J[2];
  sym_rotate_diag(inv_inertia, R, Jinv);
  free_linear(s, i, g, h, vel_free);
  v3_set(Jw, J[0] * wb[0], J[1] * wb[1], J[2] * wb[2]);
  v3_cross(gyro, wb, Jw);
  for (int k = 0; k < 3; k++) wnew[k] = wb[k] - h * Jinv[k] * gyro[k];
  mat_vec(vel_free + 3, R, wnew);
}

/* Solver body i: its inverse mass, then as solver_body_turned. */
static inline void solver_body(const BodyStore *s, PetscInt i, const double g[3], double h, double *inv_mass, double inv_inertia[6], double vel_free[6])
{
  double R[9];
  *inv_mass = 1.0 / s->mass[i];
  quat_to_matrix(s->quat + 4 * i, R);
  solver_body_turned(s, i, R, g, h, inv_inertia, vel_free);
}

/* The solver bodies as the CCP solve reads them (CCPBodyFn), computed from the body store whenever
 * the solve asks (a few times per solve) instead of copied beside its packed records: the bodies
 * [0, nb) (solver_body), then the walls (immovable, at their prescribed velocity), then the joints'
 * ground. */
typedef struct {
  const Simulation *sim;
  PetscInt          nb;
  double            h;
} SolverBodies;

static void solver_body_at(void *ctx, PetscInt i, double *inv_mass, double inv_inertia[6], double vel_free[6])
{
  const SolverBodies *sb  = (const SolverBodies *)ctx;
  const Simulation   *sim = sb->sim;
  double              im, I[6], vf[6];

  if (i < sb->nb) solver_body(&sim->bodies, i, sim->sc.gravity, sb->h, &im, I, vf);
  else if (i - sb->nb < sim->sc.n_walls) {
    const Wall *w = &sim->walls[i - sb->nb];
    im            = 0;
    for (int c = 0; c < 6; c++) I[c] = 0;
    for (int c = 0; c < 3; c++) vf[c] = w->velocity[c];
    for (int c = 3; c < 6; c++) vf[c] = 0;
  } else JointsGround(&im, I, vf);
  if (inv_mass) *inv_mass = im;
  if (inv_inertia) memcpy(inv_inertia, I, sizeof(I));
  if (vel_free) memcpy(vel_free, vf, sizeof(vf));
}

/* Body i (orientation matrix R) takes the step's world velocity vs (linear, angular): its stored
 * velocity (angular in its own frame) and its centre move on; the caller turns its orientation. */
static inline void integrate_body(BodyStore *s, PetscInt i, const double R[9], const double vs[6], double h)
{
  double *v = s->vel + 6 * i, *x = s->pos + 3 * i;
  for (int k = 0; k < 3; k++) v[k] = vs[k];
  mat_tvec(v + 3, R, vs + 3);
  v3_axpy(x, h, v);
}

static void IntegrateWalls(Simulation *sim, double h)
{
  for (int k = 0; k < sim->sc.n_walls; k++)
    if (sim->walls[k].type == WALL_BOX) v3_axpy(sim->walls[k].center, h, sim->walls[k].velocity);
}

static void Integrate(Simulation *sim, PetscInt nb, double h)
{
  for (PetscInt i = 0; i < nb; i++) {
    double R[9];
    quat_to_matrix(sim->bodies.quat + 4 * i, R);
    integrate_body(&sim->bodies, i, R, sim->vel + 6 * i, h);
    quat_integrate_world(sim->bodies.quat + 4 * i, sim->vel + 6 * i + 3, h);
  }
  IntegrateWalls(sim, h);
}

/* Bodies whose centre left the domain are removed and counted. */
static PetscInt RemoveEscaped(Simulation *sim)
{
  BodyStore *s       = &sim->bodies;
  PetscInt   removed = 0;

  if (sim->advanced.valid && !sim->advanced.outside) return 0; /* PenaltyAdvance saw every body inside */
  for (PetscInt i = s->n_owned - 1; i >= 0; i--) {
    if (!InDomain(sim, s->pos + 3 * i)) {
      BodyStoreRemoveOwned(s, i);
      BodiesRearranged(sim);
      removed++;
    }
  }
  return removed;
}

/* The time-step check of the penalty model (collective): once per run, a warning when h is more
 * than 1/PENALTY_STEPS_PER_PERIOD of the shortest contact oscillation period seen on any rank
 * (`shortest`, reduced with the step's statistics)
 * (normal, slide, roll or spin spring against its mass or inertia). A warning, not an error:
 * the step may be right for the contacts that matter, and the user decides. */
static PetscErrorCode PenaltyCheckStep(Simulation *sim, double shortest, double h)
{
  const PenaltyStepLimit *lim = &sim->pen_limit;
  struct {
    double period;
    int    rank;
  } mine, worst;
  PetscMPIInt rank;

  PetscFunctionBegin;
  if (sim->step_warned || !(h > shortest / PENALTY_STEPS_PER_PERIOD)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(sim->comm, &rank)); /* once per run: which rank has the shortest period */
  mine.period = lim->period;
  mine.rank   = rank;
  PetscCallMPI(MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE_INT, MPI_MINLOC, sim->comm));
  sim->step_warned = PETSC_TRUE;
  if (rank == worst.rank)
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR,
                           "ccpdem: warning: time.step %g s is more than 1/%d of the shortest contact oscillation period 2 pi sqrt(m/k) = %g s (%s spring k = %g against m = %g, step %" PetscInt_FMT "); "
                           "penalty contacts are resolved poorly or blow up: use time.step <= %g s or softer contacts\n",
                           h, PENALTY_STEPS_PER_PERIOD, lim->period, lim->what, lim->stiffness, lim->inertia, sim->step - 1, lim->period / PENALTY_STEPS_PER_PERIOD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

_Static_assert((int)STEP_MOVE_SUMS == (int)EXCHANGE_MOVE_COUNTS, "the statistics carry the migration decision's counts");

static PetscErrorCode ComputeStats(Simulation *sim, PetscInt64 bytes, PetscInt matched, StepStats *st)
{
  const BodyStore *s = &sim->bodies;
  double           sum[STEP_SUMS] = {0}, max[STEP_MAXES] = {0}, gsum[STEP_SUMS], gmax[STEP_MAXES];
  PetscMPIInt      size;
  PetscInt         leaving = 0; /* owned bodies out of the domain, removed after the reduction */

  PetscFunctionBegin;
  if (sim->moves_pending) {
    leaving = sim->moves_local[0];
    for (int k = 0; k < STEP_MOVE_SUMS; k++) sum[STEP_SUM_MOVES + k] = (double)sim->moves_local[k];
  }
  if (sim->advanced.valid && !leaving) { /* the same sums in the same order */
    max[0] = sim->advanced.max_speed;
    sum[0] = sim->advanced.energy[0];
    sum[1] = sim->advanced.energy[1];
  } else
    for (PetscInt i = 0; i < s->n_owned; i++) {
      if (leaving && DomainOwnerOfPoint(sim->domain, s->pos + 3 * i) < 0) continue; /* as if removed already */
      StatsAddBody(s, i, sim->sc.gravity, &max[0], sum);
    }
  sim->advanced.valid = PETSC_FALSE; /* used */
  sum[2] = (double)(s->n_owned - leaving);
  sum[3] = (double)(sim->contacts.n - sim->joints.active);
  sum[4] = (double)sim->exchange.n_ghost; /* the ghosts of this step (0 on one rank) */
  sum[5] = (double)bytes;
  sum[6] = (double)matched;
  max[1] = (double)(s->n_owned - leaving);
  max[2] = -sim->pen_limit.period; /* the shortest penalty contact period, for the time-step check */
  for (int k = 0; k < RUN_FLAGS; k++) max[STEP_MAX_FLAGS + k] = sim->run_flags[k] ? 1 : 0;
  PetscCall(StepReduce(sim->comm, sum, max, gsum, gmax));
  for (int k = 0; k < STEP_MOVE_SUMS; k++) sim->moves_global[k] = (PetscInt)gsum[STEP_SUM_MOVES + k];
  PetscCallMPI(MPI_Comm_size(sim->comm, &size));
  st->kinetic_energy   = gsum[0];
  st->potential_energy = gsum[1];
  st->bodies           = (PetscInt)gsum[2];
  st->contacts         = (PetscInt)gsum[3];
  st->ghosts           = (PetscInt64)gsum[4];
  st->bytes_sent       = (PetscInt64)gsum[5];
  st->warm_started     = (PetscInt)gsum[6];
  st->max_speed        = gmax[0];
  st->imbalance        = gsum[2] > 0 ? gmax[1] * size / gsum[2] : 1.0; /* as DomainImbalance */
  for (int k = 0; k < RUN_FLAGS; k++) st->run_flags[k] = (PetscBool)(gmax[STEP_MAX_FLAGS + k] > 0);
  if (sim->sc.contact_model == CONTACT_MODEL_PENALTY) PetscCall(PenaltyCheckStep(sim, -gmax[2], sim->sc.time_step));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Distributed run, start of a step (emitted: bodies were added since the last step): bodies not
 * yet placed (first step, restart) to their owners
 * (counting those outside the domain), the spatial order (migration leaves the bodies in id
 * order, or in last step's spatial order where none left or arrived: then it costs a pass), the
 * ghosts of this step and the solve's communication graph. */
static PetscErrorCode DistributedBegin(Simulation *sim, PetscBool emitted, PetscInt *removed, PetscInt64 *bytes)
{
  PetscFunctionBegin;
  if (sim->ghosts_kept) { /* the ghost set, the plan and the store's layout hold: the owners' motion */
    const Exchange *ex = &sim->exchange;
    PetscCheck(!emitted, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ghosts kept although bodies were emitted (DistributedEnd checks the emitters)");
    PetscCall(ExchangeUpdateGhosts(&sim->exchange, &sim->bodies, EXCHANGE_FIELDS_MOTION));
    sim->ghost_updates++;
    *bytes += (PetscInt64)ex->send_start[ex->n_neighbors] * (PetscInt64)ExchangeFieldsBytes(EXCHANGE_FIELDS_MOTION);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  sim->bodies.n_ghost = 0;
  BodiesRearranged(sim); /* migrated or sorted below */
  if (emitted || !sim->placed) sim->exchange.counts_kept = PETSC_FALSE; /* the ghost build counts them again */
  if (!sim->placed) { /* bodies and memory as created or read from a checkpoint */
    PetscCall(ExchangeMigrate(sim->domain, &sim->bodies, removed, bytes));
    PetscCall(ImpulseMemoryRouteById(sim->domain, &sim->bodies, &sim->previous, bytes));
  }
  sim->placed = PETSC_TRUE;
  if (sim->sort_interval > 0) PetscCall(BodyStoreSortSpatially(&sim->bodies, sim->sc.domain_min, sim->sc.domain_max));
  PetscCall(ExchangeBuildGhosts(sim->domain, sim->halo, &sim->bodies, &sim->exchange));
  sim->ghost_builds++;
  *bytes += sim->exchange.build_bytes_sent;
  if (sim->sc.contact_model == CONTACT_MODEL_CCP) PetscCall(VelocityCouplingSetUp(sim->coupling, &sim->exchange));
  if (sim->ghost_update) { /* the reference of the drift test, in the order the ghosts were built on */
    const size_t n = 3 * (size_t)sim->bodies.n_owned;
    if (n > sim->build_pos_cap) {
      PetscCall(PetscFree(sim->build_pos));
      sim->build_pos_cap = PetscMax(n, 2 * sim->build_pos_cap);
      PetscCall(PetscMalloc1(sim->build_pos_cap, &sim->build_pos));
    }
    if (n) PetscCall(PetscArraycpy(sim->build_pos, sim->bodies.pos, n));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DistributedMove(Simulation *sim, ExchangeMoves *mv, PetscInt *removed, PetscInt64 *bytes);

/* Distributed run, end of a step (the owned bodies have moved): the cuts move if balancing is due,
 * the warm-start memory goes where its contacts will be owned, then the bodies migrate.
 * With ghost_update the migration waits, and the next step updates the ghosts in place, while every
 * owned body lies within skin / 2 of where it was at the ghost build, no body left the domain, no
 * balancing and no emission is due (decided in the statistics' one reduction, so alike on every
 * rank: ComputeStats, then DistributedDeferredMoves).
 * Then the ghost set still covers every contact (SimulationSetUpHalo), and the neighbour lists built
 * on it stay complete; a body owned by a rank its centre has left computes its contacts there, once,
 * and the loads, summed per body in key order wherever the bodies live, keep every bit. */
static PetscErrorCode DistributedEnd(Simulation *sim, PetscInt *removed, PetscInt64 *bytes)
{
  const PetscBool balance = (PetscBool)(sim->balance_interval > 0 && (sim->step + 1) % sim->balance_interval == 0);
  PetscBool       moved;
  ExchangeMoves   mv;

  PetscFunctionBegin;
  if (balance) PetscCall(DomainBalance(sim->domain, &sim->bodies, &moved));
  sim->ghosts_kept = sim->moves_pending = PETSC_FALSE;
  if (sim->ghost_update && !balance && !SimulationEmissionDue(sim, sim->step + 1)) { /* decided with the statistics: DistributedDeferredMoves */
    PetscCall(ExchangeMovesLocal(sim->domain, &sim->bodies, sim->build_pos, 0.5 * sim->neighbour_skin, sim->moves_local));
    sim->moves_pending = PETSC_TRUE;
    *removed           = 0;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(ExchangeDecideMoves(sim->domain, &sim->bodies, &mv)); /* one reduction for the memory and the bodies */
  PetscCall(DistributedMove(sim, &mv, removed, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The end of DistributedEnd when its decision rode on the statistics' reduction (after ComputeStats,
 * which counted the bodies leaving the domain as removed): the ghosts are kept unless some body
 * drifted or left the domain. */
static PetscErrorCode DistributedDeferredMoves(Simulation *sim, PetscInt *removed, PetscInt64 *bytes)
{
  ExchangeMoves mv;

  PetscFunctionBegin;
  sim->moves_pending = PETSC_FALSE;
  *removed           = 0;
  ExchangeMovesFromSums(sim->moves_global, &mv);
  sim->ghosts_kept = (PetscBool)(!mv.drifted && mv.removed == 0);
  if (!sim->ghosts_kept) PetscCall(DistributedMove(sim, &mv, removed, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Migration as decided in mv: the memory goes where its contacts will be owned, then the bodies. */
static PetscErrorCode DistributedMove(Simulation *sim, ExchangeMoves *mv_in, PetscInt *removed, PetscInt64 *bytes)
{
  ExchangeMoves mv = *mv_in;

  PetscFunctionBegin;
  mv.keep_order = (PetscBool)(sim->sort_interval > 0); /* DistributedBegin sorts them spatially */
  BodiesRearranged(sim);
  PetscCall(ImpulseMemoryRoute(sim->domain, &sim->bodies, &sim->contacts, &mv, &sim->previous, bytes));
  sim->bodies.n_ghost = 0;
  PetscCall(ExchangeMigrateMoves(sim->domain, &sim->bodies, &mv, bytes));
  *removed                  = mv.removed;
  sim->exchange.counts_kept = (PetscBool)(mv.moving == 0 && mv.removed == 0); /* the same on every rank */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* See step/simulation.h. After a kept step the bodies move now, with their history (as DistributedEnd would
 * have); after a migrating one they are in place and only their order changes (the memory is
 * already routed, and the contacts' indices are stale, so it is not routed again). The next step
 * rebuilds the ghosts either way. */
PetscErrorCode SimulationPlaceForOutput(Simulation *sim)
{
  ExchangeMoves mv;
  PetscInt64    bytes = 0;

  PetscFunctionBegin;
  if (!sim->domain || !sim->ghost_update || !sim->placed) PetscFunctionReturn(PETSC_SUCCESS);
  if (sim->output_placed_step == sim->step) PetscFunctionReturn(PETSC_SUCCESS); /* a second output of this step */
  PetscCall(ExchangeDecideMoves(sim->domain, &sim->bodies, &mv));
  mv.keep_order = PETSC_FALSE; /* id order */
  BodiesRearranged(sim);
  if (sim->ghosts_kept) {
    PetscCall(ImpulseMemoryRoute(sim->domain, &sim->bodies, &sim->contacts, &mv, &sim->previous, &bytes));
    sim->exchange.counts_kept = (PetscBool)(mv.moving == 0 && mv.removed == 0);
  } else PetscCheck(mv.moving == 0 && mv.removed == 0, sim->comm, PETSC_ERR_PLIB, "SimulationPlaceForOutput: %" PetscInt_FMT " bodies misplaced after a migration", mv.moving + mv.removed);
  sim->bodies.n_ghost = 0;
  PetscCall(ExchangeMigrateMoves(sim->domain, &sim->bodies, &mv, &bytes));
  sim->removed += mv.removed;
  sim->ghosts_kept        = PETSC_FALSE;
  sim->output_placed_step = sim->step;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PenaltyEnsure(Simulation *sim, PetscInt ncontacts, PetscInt nbodies)
{
  PetscFunctionBegin;
  if ((size_t)ncontacts >= sim->pen_cap) {
    PetscCall(PetscFree2(sim->pen_match, sim->pen_load));
    sim->pen_cap = (size_t)PetscMax(ncontacts + 1, 2 * (PetscInt)sim->pen_cap + 64);
    PetscCall(PetscMalloc2(sim->pen_cap, &sim->pen_match, sim->pen_cap * PENALTY_LOAD_WIDTH, &sim->pen_load));
  }
  if ((size_t)nbodies >= sim->pen_body_cap) {
    PetscCall(PetscFree(sim->pen_acc));
    sim->pen_body_cap = (size_t)PetscMax(nbodies + 1, 2 * (PetscInt)sim->pen_body_cap + 16);
    PetscCall(PetscMalloc1(6 * sim->pen_body_cap, &sim->pen_acc));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The owned bodies under the summed penalty loads F (sim->pen_acc): velocities v = v_free + h M^-1 F,
 * then the step (as Integrate), in one pass with one orientation matrix per body; no solve reads
 * the solver body data, and the ghosts and walls get none (their owners sum their loads).
 * Each body's side for the next step's contacts is written as soon as it has moved (its side of
 * this step, already read, holds what stays with the body), and its terms of the statistics are
 * summed, unless the bodies are rearranged before then (BodiesRearranged). */
static void PenaltyAdvance(Simulation *sim, double h)
{
  enum { BLOCK = 32 };
  BodyStore   *s    = &sim->bodies;
  PenaltySide *side = sim->penalty.side;
  double       max_speed = 0, energy[2] = {0, 0};
  PetscInt     outside   = 0;
  for (PetscInt i0 = 0; i0 < s->n_owned; i0 += BLOCK) {
    const PetscInt i1 = PetscMin(i0 + BLOCK, s->n_owned);
    for (PetscInt i = i0; i < i1; i++) {
      const double *f = sim->pen_acc + 6 * i;
      const double  inv_mass = side[i].inv_mass; /* side i is body i's (written this step or kept) */
      const double *J = s->inertia + 3 * i;
      double        R[9], v[6], vf[6], dw[3];
      quat_to_matrix(s->quat + 4 * i, R);
      if (J[0] == J[1] && J[1] == J[2]) { /* isotropic inertia (a sphere): R diag(1/J) R^T = I / J and w x (J w) = 0, exactly (not to rounding, as solver_body_turned) */
        free_linear(s, i, sim->sc.gravity, h, vf);
        mat_vec(vf + 3, R, s->vel + 6 * i + 3);
        v3_scale(dw, 1 / J[0], f + 3);
      } else {
        double inv_inertia[6];
        solver_body_turned(s, i, R, sim->sc.gravity, h, inv_inertia, vf);
        sym_vec(dw, inv_inertia, f + 3);
      }
      for (int k = 0; k < 3; k++) v[k] = vf[k] + h * inv_mass * f[k];
      for (int k = 0; k < 3; k++) v[3 + k] = vf[3 + k] + h * dw[k];
      integrate_body(s, i, R, v, h);
      quat_integrate_world_series(s->quat + 4 * i, v + 3, h);
    }
    /* a loop of its own over bodies still in L1: a side waits on its body's new orientation, and
     * that chain, inside the integration's iteration, stalls it */
    for (PetscInt i = i0; i < i1; i++) {
      penalty_side_motion(s, i, h, &side[i]);
      StatsAddBody(s, i, sim->sc.gravity, &max_speed, energy);
      outside += !InDomain(sim, s->pos + 3 * i);
    }
  }
  sim->penalty.side_ahead = s->n_owned;
  sim->advanced.valid     = PETSC_TRUE;
  sim->advanced.outside   = outside;
  sim->advanced.max_speed = max_speed;
  sim->advanced.energy[0] = energy[0];
  sim->advanced.energy[1] = energy[1];
  IntegrateWalls(sim, h);
}

/* contact.model penalty in place of the CCP solve: loads of the contacts at the step's start,
 * summed per body in key order (on several ranks on the owners, decomp/force_routing.h), the new
 * history kept by key (PenaltyAdvance then moves the bodies). */
static PetscErrorCode PenaltyLoads(Simulation *sim, PetscInt nb, double h, PetscInt *matched, PetscInt64 *bytes)
{
  const ContactSet *cs = &sim->contacts;
  double           *rec; /* the new history: over the old one where possible, else into the memory's spare buffer */
  PetscBool         same, in_place;

  PetscFunctionBegin;
  PetscCall(PenaltyEnsure(sim, cs->n, nb));
  sim->penalty.walls  = sim->walls;
  sim->penalty.n_walls = sim->sc.n_walls;
  sim->penalty.bodies = &sim->bodies;
  sim->penalty.nb     = nb;
  sim->penalty.h      = h;
  PetscCall(ImpulseMemoryMatch(cs, &sim->previous, sim->pen_match, matched));
  /* both key lists sorted and without repeats: every key found and as many keys = the same keys, record i at i */
  same = (PetscBool)(*matched == cs->n && sim->previous.n == cs->n);
  /* a settled pile's usual step (the same contacts, or a few come and go): one history array
   * streams through the caches, not two */
  in_place = (PetscBool)(same || ImpulseMemoryWritableInPlace(&sim->previous, sim->pen_match, cs->n));
  if (in_place) rec = sim->previous.gamma;
  else PetscCall(ImpulseMemoryPrepare(&sim->pen_next, PENALTY_HISTORY_WIDTH, cs->n, &rec));
  PetscCall(PenaltyContactLoads(&sim->penalty, cs, &sim->previous, sim->pen_match, rec, sim->size > 1 ? sim->pen_load : NULL, sim->size > 1 ? NULL : sim->pen_acc, &sim->pen_limit));
  if (sim->size > 1) PetscCall(ForceRoutingSum(sim->domain, &sim->exchange, cs, sim->pen_load, sim->pen_acc, bytes));
  if (!in_place) PetscCall(ImpulseMemoryAdopt(&sim->previous, &sim->pen_next, cs->n, cs->key));
  else if (!same) PetscCall(ImpulseMemoryRekey(&sim->previous, cs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimulationStep(Simulation *sim)
{
  const double      h  = sim->sc.time_step;
  CollisionSettings cset;
  CCPProblem        P;
  CCPSolveStats     ss;
  StepStats        *st = &sim->last;
  PetscInt          matched = 0, removed = 0, gremoved = 0, nb;
  PetscInt64        bytes = sim->bytes_carry; /* sent by this rank (from the last step's deferred migration on) */
  const int64_t     next_id = sim->next_id; /* moves on (alike on every rank) when bodies are emitted */
  double            t0, t1, t2, t3, tcomm = 0;
  const PetscBool   sort = (PetscBool)(sim->sort_interval && sim->step % sim->sort_interval == 0);
  const PetscBool   penalty = (PetscBool)(sim->sc.contact_model == CONTACT_MODEL_PENALTY);

  PetscFunctionBegin;
  sim->bytes_carry = 0;
  t0 = MPI_Wtime();
  PetscCall(SimulationEmit(sim));
  if (sim->next_id != next_id) BodiesRearranged(sim);
  if (sim->size > 1) {
    PetscCall(VelocityCouplingResetStats(sim->coupling));
    PetscCall(DistributedBegin(sim, (PetscBool)(sim->next_id != next_id), &gremoved, &bytes));
    sim->removed += gremoved; /* bodies that arrived outside the domain (restart); 0 otherwise */
    tcomm = MPI_Wtime() - t0;
  } else if (sort) {
    PetscCall(BodyStoreSortSpatially(&sim->bodies, sim->sc.domain_min, sim->sc.domain_max));
    BodiesRearranged(sim);
  }
  nb = sim->bodies.n_owned + sim->bodies.n_ghost;
  PetscCall(PetscLogEventBegin(EV_DETECT, 0, 0, 0, 0));
  cset.envelope  = sim->sc.envelope;
  cset.materials = sim->sc.materials;
  cset.walls     = sim->walls;
  cset.nwalls    = sim->sc.n_walls;
  /* CCP: the warm start taken as detection appends the contacts (in key order); joints, appended
   * after it and sorted in, take it in a pass of its own */
  const PetscBool warm_appending = (PetscBool)(!penalty && !sim->joints.n);
  const double    warm_scale     = sim->warm_start_scale * (st->keep_impulses ? 1.0 : sim->warm_start_decay);
  if (warm_appending) PetscCall(ContactSetWarmBegin(&sim->contacts, &sim->previous, warm_scale));
  if (penalty) PetscCall(CollisionDetectListedGeometry(&cset, &sim->bodies, nb, &sim->bp, &sim->nlist, &sim->contacts));
  else if (sim->neighbour_skin > 0) PetscCall(CollisionDetectListed(&cset, &sim->bodies, nb, &sim->bp, &sim->nlist, &sim->contacts)); /* the same contacts, bit for bit */
  else PetscCall(CollisionDetect(&cset, &sim->bodies, nb, &sim->bp, &sim->contacts));
  if (sim->joints.n) PetscCall(JointsAppend(&sim->joints, sim->comm, &sim->bodies, nb + sim->sc.n_walls, sim->time, h, &sim->contacts));
  if (!penalty) { /* the memory is dead until ImpulseMemoryStore refills it, in the slot of the solver's
                     packed blocks, which are dead from then until the next solve: the two never add up */
    ScratchPool *pool;
    if (warm_appending) PetscCall(ContactSetWarmEnd(&sim->contacts, &matched));
    else PetscCall(ContactSetWarmStart(&sim->contacts, &sim->previous, warm_scale, &matched));
    PetscCall(ImpulseMemoryRelease(&sim->previous));
    PetscCall(CCPSolverScratch(sim->solver, &pool));
    PetscCall(ImpulseMemoryUsePool(&sim->previous, pool, SCRATCH_PACKED_BLOCKS)); /* every step: a restart's memory comes as arrays of its own */
  }
  PetscCall(PetscLogEventEnd(EV_DETECT, 0, 0, 0, 0));
  t1 = MPI_Wtime();

  PetscCall(PetscLogEventBegin(EV_SOLVE, 0, 0, 0, 0));
  if (penalty) {
    PetscCall(PenaltyLoads(sim, nb, h, &matched, &bytes));
    ss.iterations = ss.passes = 0; /* no solve: loads are explicit */
    ss.res_max = ss.res_rms = 0;
    ss.converged = PETSC_TRUE;
    ss.improved  = PETSC_FALSE;
  } else {
    SolverBodies sb = {.sim = sim, .nb = nb, .h = h};
    ContactPairs cp = {.table = sim->ccp_pairs, .n_materials = sim->sc.n_materials, .body_material = sim->bodies.material, .nb = nb, .walls = sim->walls,
                       .h = h, .v_recover = sim->sc.max_recovery_speed, .overlap_tolerance = sim->sc.overlap_tolerance, .yields = sim->ccp_pairs_yield};
    P = (CCPProblem){.nbodies = nb + sim->sc.n_walls + (sim->joints.n ? 1 : 0), /* the joints' ground after the walls */
                     .body = solver_body_at, .body_ctx = &sb, .ncontacts = sim->contacts.n, .contact = sim->contacts.c, .gamma = sim->contacts.gamma,
                     .terms_fn = contact_pairs_terms, .terms_ctx = &cp}; /* terms at packing: GUIDE step 3's stabilization, compliance, cohesion, yield */
    PetscCall(CCPSolverSolve(sim->solver, &P, &ss));
    sim->vel = P.vel; /* the solver's, until its pool's next user: after Integrate */
    PlasticityUpdate(&P, &cp);
  }
  PetscCall(PetscLogEventEnd(EV_SOLVE, 0, 0, 0, 0));
  t2 = MPI_Wtime();

  PetscCall(PetscLogEventBegin(EV_INTEGRATE, 0, 0, 0, 0));
  if (penalty) PenaltyAdvance(sim, h);
  else {
    Integrate(sim, sim->bodies.n_owned, h);
    sim->vel = NULL;
    PetscCall(ImpulseMemoryStore(&sim->previous, &sim->contacts));
  }
  if (sim->size > 1) {
    double        tm = MPI_Wtime();
    CouplingStats cs = {0};
    PetscCall(DistributedEnd(sim, &gremoved, &bytes));
    if (!penalty) PetscCall(VelocityCouplingGetStats(sim->coupling, &cs));
    tcomm += MPI_Wtime() - tm + cs.seconds;
    bytes += cs.bytes_sent;
  } else {
    removed = RemoveEscaped(sim);
    PetscCallMPI(MPI_Allreduce(&removed, &gremoved, 1, MPIU_INT, MPI_SUM, sim->comm));
  }
  sim->removed += gremoved;
  sim->step++;
  sim->time = sim->step * h; /* no drift from summing h */
  PetscCall(PetscLogEventEnd(EV_INTEGRATE, 0, 0, 0, 0));
  t3 = MPI_Wtime();

  st->step           = sim->step;
  st->time           = sim->time;
  st->iterations     = ss.iterations;
  st->passes         = ss.passes;
  st->residual_max   = ss.res_max;
  st->residual_rms   = ss.res_rms;
  st->converged      = ss.converged;
  /* A solve that returned its warm start unchanged added nothing that could accumulate, and a
   * decay would only take support away (README "Warm start"). */
  st->keep_impulses  = (PetscBool)(ss.converged || !ss.improved);
  st->wall_detect    = t1 - t0;
  st->wall_solve     = t2 - t1;
  st->wall_integrate = t3 - t2;
  st->wall_comm      = tcomm;
  PetscCall(ComputeStats(sim, bytes, matched, st));
  if (sim->moves_pending) { /* timed into this step's figures, its bytes into the next step's */
    const double tm = MPI_Wtime();
    sim->bytes_carry = 0;
    PetscCall(DistributedDeferredMoves(sim, &gremoved, &sim->bytes_carry));
    sim->removed += gremoved;
    st->wall_comm += MPI_Wtime() - tm;
    st->wall_integrate += MPI_Wtime() - tm;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
