/* The penalty contact model (step/contact_model.h; Fang & Negrut, penalty/loads.h): detection of the
 * touching pairs' geometry, their loads from the positions at the step's start with the friction
 * history of the last step (summed per body on the owners: decomp/force_routing.h), and the bodies
 * moved by v = v_free + h M^-1 F (half-implicit symplectic Euler); the new history is remembered. */
#include "step/simulation_impl.h"
#include "base/growth.h"
#include "bodies/integrator.h"
#include "penalty/side.h"
#include "decomp/force_routing.h"

typedef struct {
  PenaltyContext   ctx;
  size_t           cap, body_cap;
  PetscInt        *match;       /* per contact: its history entry in the memory, or -1 */
  ImpulseMemory    next;        /* the memory's second buffer: this step's new history is written there */
  double          *load;        /* per contact: loads on A and B (PENALTY_LOAD_WIDTH) */
  double          *acc;         /* per body: summed force and torque (6) */
  PenaltyStepLimit limit;       /* this step's shortest contact period on this rank (the time-step check) */
  PetscBool        step_warned; /* the time-step warning was printed */
} PenaltyModel;

static PenaltyModel *State(Simulation sim) { return (PenaltyModel *)sim->model_state; }

static PetscErrorCode Create(Simulation sim)
{
  PenaltyModel *m = State(sim);
  PetscBool     dump;

  PetscFunctionBegin;
  PetscCall(PetscOptionsHasName(NULL, NULL, "-fclib_dump", &dump));
  PetscCheck(!dump, sim->comm, PETSC_ERR_ARG_WRONG,
             "-fclib_dump: the penalty model solves no CCP to write; FCLIB problems come from contact.model ccp runs");
  PetscCall(ImpulseMemoryCreate(&m->next));
  m->limit.period = INFINITY;
  PetscCall(PenaltyContextSetUp(&m->ctx, &sim->sc.penalty, sim->sc.materials, sim->sc.n_materials));
  PetscCall(PenaltyContextSetFromOptions(&m->ctx, sim->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Destroy(Simulation sim)
{
  PenaltyModel *m = State(sim);

  PetscFunctionBegin;
  PetscCall(PetscFree2(m->match, m->load));
  PetscCall(PetscFree(m->acc));
  PetscCall(ImpulseMemoryDestroy(&m->next));
  PetscCall(PenaltyContextDestroy(&m->ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The touching pairs' geometry (the loads read nothing else), from the neighbour list. */
static PetscErrorCode Detect(Simulation sim, StepWork *w)
{
  const CollisionSettings cset = {.envelope  = sim->sc.envelope,
                                  .materials = sim->sc.materials,
                                  .walls     = sim->walls,
                                  .nwalls    = sim->sc.n_walls,
                                  .clumps    = sim->sc.n_clumps ? sim->sc.clumps : NULL};

  PetscFunctionBegin;
  PetscCall(CollisionDetectListedGeometry(&cset, &sim->bodies, w->nb, &sim->bp, &sim->nlist, &sim->contacts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Ensure(PenaltyModel *m, PetscInt ncontacts, PetscInt nbodies)
{
  PetscFunctionBegin;
  if ((size_t)ncontacts >= m->cap) {
    PetscCall(PetscFree2(m->match, m->load));
    m->cap = GrowthCapacity(m->cap, (size_t)ncontacts + 1);
    PetscCall(PetscMalloc2(m->cap, &m->match, m->cap * PENALTY_LOAD_WIDTH, &m->load));
  }
  if ((size_t)nbodies >= m->body_cap) {
    PetscCall(PetscFree(m->acc));
    m->body_cap = GrowthCapacity(m->body_cap, (size_t)nbodies + 1);
    PetscCall(PetscMalloc1(6 * m->body_cap, &m->acc));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* acc[6 k ..] <- the sum of the loads on body k < nb in key order from zero: the same sums, bit for
 * bit, as PenaltyContactLoads gives into acc (penalty/loads.h), from the loads it kept per contact. */
static void SumLoads(const ContactSet *cs, const double *load, PetscInt nb, double *acc)
{
  for (PetscInt j = 0; j < 6 * nb; j++) acc[j] = 0;
  for (PetscInt i = 0; i < cs->n; i++) {
    const Contact *c = &cs->c[i];
    const double  *l = load + (size_t)PENALTY_LOAD_WIDTH * i;
    if (c->a < nb)
      for (int j = 0; j < 6; j++) acc[6 * c->a + j] += l[j];
    if (c->b < nb)
      for (int j = 0; j < 6; j++) acc[6 * c->b + j] += l[6 + j];
  }
}

/* The loads of the contacts at the step's start, summed per body in key order (on several ranks on
 * the owners, decomp/force_routing.h), the new history kept by key. No solve: the step's solve
 * figures are those of a converged one without iterations. */
static PetscErrorCode Respond(Simulation sim, StepWork *w)
{
  PenaltyModel     *m  = State(sim);
  const ContactSet *cs = &sim->contacts;
  double           *rec; /* the new history: over the old one where possible, else into the memory's spare buffer */
  PetscBool         same, in_place;
  const PetscBool   per_contact = (PetscBool)(sim->size > 1 || sim->loads.wanted); /* keep each contact's loads */

  PetscFunctionBegin;
  PetscCall(Ensure(m, cs->n, w->nb));
  m->ctx.walls   = sim->walls;
  m->ctx.n_walls = sim->sc.n_walls;
  m->ctx.bodies  = &sim->bodies;
  m->ctx.nb      = w->nb;
  m->ctx.h       = sim->sc.time_step;
  PetscCall(ImpulseMemoryMatch(cs, &sim->memory, m->match, &w->matched));
  /* both key lists sorted and without repeats: every key found and as many keys = the same keys, record i at i */
  same = (PetscBool)(w->matched == cs->n && sim->memory.n == cs->n);
  /* a settled pile's usual step (the same contacts, or a few come and go): one history array
   * streams through the caches, not two */
  in_place = (PetscBool)(same || ImpulseMemoryWritableInPlace(&sim->memory, m->match, cs->n));
  if (in_place) rec = sim->memory.gamma;
  else PetscCall(ImpulseMemoryPrepare(&m->next, PENALTY_HISTORY_WIDTH, cs->n, &rec));
  PetscCall(PenaltyContactLoads(&m->ctx, cs, &sim->memory, m->match, rec, per_contact ? m->load : NULL,
                                per_contact ? NULL : m->acc, &m->limit));
  if (sim->size > 1)
    PetscCall(ForceRoutingSum(sim->place.domain, &sim->place.exchange, cs, m->load, m->acc, &w->bytes));
  else if (per_contact) SumLoads(cs, m->load, w->nb, m->acc);
  if (!in_place) PetscCall(ImpulseMemoryAdopt(&sim->memory, &m->next, cs->n, cs->key));
  else if (!same) PetscCall(ImpulseMemoryRekey(&sim->memory, cs));
  w->solve = (CCPSolveStats){.converged = PETSC_TRUE};
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The owned bodies under the summed loads F: v = v_free + h M^-1 F, then the step, in one pass with
 * one orientation matrix per body; the ghosts and walls get none (their owners sum their loads).
 * Each body's side for the next step's contacts is written as soon as it has moved (its side of
 * this step, already read, holds what stays with the body), and its terms of the statistics are
 * summed (AdvancedSums), unless the bodies are rearranged before then. */
static PetscErrorCode Advance(Simulation sim, StepWork *w)
{
  enum {
    BLOCK = 32
  };
  PenaltyModel *m         = State(sim);
  BodyStore    *s         = &sim->bodies;
  PenaltySide  *side      = m->ctx.side;
  const double  h         = sim->sc.time_step;
  double        max_speed = 0, energy[2] = {0, 0};
  PetscInt      outside = 0;

  PetscFunctionBegin;
  (void)w;
  for (PetscInt i0 = 0; i0 < s->n_owned; i0 += BLOCK) {
    const PetscInt i1 = PetscMin(i0 + BLOCK, s->n_owned);
    for (PetscInt i = i0; i < i1; i++) {
      const double *f        = m->acc + 6 * i;
      const double  inv_mass = side[i].inv_mass; /* side i is body i's (written this step or kept) */
      const double *J        = s->inertia + 3 * i;
      double        R[9], v[6], vf[6], dw[3];
      quat_to_matrix(s->quat + 4 * i, R);
      if (J[0] == J[1] && J[1] == J[2]) { /* isotropic inertia (a sphere): R diag(1/J) R^T = I / J and w x (J w) = 0,
                                             exactly (not to rounding, as integrator_free_velocity) */
        integrator_free_linear(s, i, sim->sc.gravity, h, vf);
        mat_vec(vf + 3, R, s->vel + 6 * i + 3);
        v3_scale(dw, 1 / J[0], f + 3);
      } else {
        double inv_inertia[6];
        integrator_free_velocity(s, i, R, sim->sc.gravity, h, inv_inertia, vf);
        sym_vec(dw, inv_inertia, f + 3);
      }
      for (int k = 0; k < 3; k++) v[k] = vf[k] + h * inv_mass * f[k];
      for (int k = 0; k < 3; k++) v[3 + k] = vf[3 + k] + h * dw[k];
      integrator_move_body(s, i, R, v, h, ORIENTATION_SERIES);
    }
    /* a loop of its own over bodies still in L1: a side waits on its body's new orientation, and
     * that chain, inside the integration's iteration, stalls it */
    for (PetscInt i = i0; i < i1; i++) {
      penalty_side_motion(s, i, h, &side[i]);
      StepStatsAddBody(s, i, sim->sc.gravity, &max_speed, energy);
      outside += !SimulationInDomain(sim, s->pos + 3 * i);
    }
  }
  m->ctx.side_ahead       = s->n_owned;
  sim->advanced.valid     = PETSC_TRUE;
  sim->advanced.outside   = outside;
  sim->advanced.max_speed = max_speed;
  sim->advanced.energy[0] = energy[0];
  sim->advanced.energy[1] = energy[1];
  integrator_move_walls(sim->walls, sim->sc.n_walls, h);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void Rearranged(Simulation sim) { State(sim)->ctx.side_ahead = 0; }

/* The shortest contact period of this rank (as a maximum: its negative), for the time-step check. */
static double LocalMaximum(Simulation sim) { return -State(sim)->limit.period; }

/* The time-step check (collective): once per run, a warning when h is more than
 * 1/PENALTY_STEPS_PER_PERIOD of the shortest contact oscillation period seen on any rank (normal,
 * slide, roll or spin spring against its mass or inertia). A warning, not an error: the step may
 * be right for the contacts that matter, and the user decides. */
static PetscErrorCode Reduced(Simulation sim, double maximum)
{
  PenaltyModel           *m        = State(sim);
  const PenaltyStepLimit *lim      = &m->limit;
  const double            shortest = -maximum, h = sim->sc.time_step;
  struct {
    double period;
    int    rank;
  } mine, worst;
  PetscMPIInt rank;

  PetscFunctionBegin;
  if (m->step_warned || !(h > shortest / PENALTY_STEPS_PER_PERIOD)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(sim->comm, &rank)); /* once per run: which rank has the shortest period */
  mine.period = lim->period;
  mine.rank   = rank;
  PetscCallMPI(MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE_INT, MPI_MINLOC, sim->comm));
  m->step_warned = PETSC_TRUE;
  if (rank == worst.rank)
    PetscCall(
      PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR,
                   "ccpdem: warning: time.step %g s is more than 1/%d of the shortest contact oscillation period 2 pi "
                   "sqrt(m/k) = %g s (%s spring k = %g against m = %g, step %" PetscInt64_FMT "); "
                   "penalty contacts are resolved poorly or blow up: use time.step <= %g s or softer contacts\n",
                   h, PENALTY_STEPS_PER_PERIOD, lim->period, lim->what, lim->stiffness, lim->inertia, sim->step - 1,
                   lim->period / PENALTY_STEPS_PER_PERIOD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Contact i's loads on B as PenaltyContactLoads kept them (a step with sim->loads.wanted, or several
 * ranks): the force, and the torque about B's centre less the force's moment, about the point. */
static void ContactLoad(Simulation sim, PetscInt i, double F[3], double T[3])
{
  const double  *l = State(sim)->load + (size_t)PENALTY_LOAD_WIDTH * i + 6;
  const Contact *c = &sim->contacts.c[i];
  double         m[3];

  v3_copy(F, l);
  v3_cross(m, c->rb, F);
  v3_sub(T, l + 3, m);
}

/* Friction histories kept between steps (no impulses), detection from a neighbour list by default,
 * ghosts kept while no body drifted half the skin; nothing to set up for several ranks (the loads
 * are summed on the owners by decomp/force_routing.h). */
/* clang-format off */
const ContactModelOps ContactModelPenalty = {
  .name = "penalty", .state_size = sizeof(PenaltyModel), .record_width = PENALTY_HISTORY_WIDTH,
  .list_by_default = PETSC_TRUE, .ghosts_persist = PETSC_TRUE, .create = Create, .destroy = Destroy, .detect = Detect,
  .respond = Respond, .advance = Advance, .contact_load = ContactLoad, .rearranged = Rearranged,
  .local_maximum = LocalMaximum, .reduced = Reduced};
/* clang-format on */
