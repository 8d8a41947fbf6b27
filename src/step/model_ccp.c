/* The CCP contact model (step/contact_model.h; GUIDE "Time step"): detection with the warm start
 * taken from the last step's impulses, one CCP solve for the impulses and velocities (coupled over
 * ranks by decomp/velocity_coupling.h), the plastic return map, and the bodies moved with the
 * solved velocities; the impulses are remembered for the next step. */
#include "step/simulation_impl.h"
#include "bodies/integrator.h"
#include "collision/neighbour_list.h"
#include "ccp/pairs.h"
#include "ccp/plasticity.h"
#include "ccp/overlap_correction.h"
#include "ccp/kernels.h"
#include "decomp/velocity_coupling.h"
#include "decomp/ccp_gather.h"
#include "step/fclib_dump.h"
#include <string.h>

typedef struct {
  CCPSolver   solver;
  PairParams *pairs;              /* material pair table (ContactPairTableCreate): the contacts' per-step terms */
  PetscBool   pairs_yield;        /* some pair has a yield force */
  PetscBool   springs;            /* some material has a rolling compliance: torque impulses are state (ContactSet) */
  double     *torque_prev;        /* with springs: the contacts' torque impulses before the solve, 3 per contact */
  PetscInt    torque_prev_cap;    /* its capacity in contacts */
  double      warm_start_scale;   /* -ccp_warm_start_scale, in [0, 1] */
  double      warm_start_decay;   /* -ccp_warm_start_decay: extra factor after a step that did not converge
                                     and changed its warm start (docs/design.md "Warm start") */
  double *vel;                    /* the solve's velocities, 6 per solver body, from the solve to advance: the
                                     solver's own buffer, in pages the solve had resident anyway */
  VelocityCoupling coupling;      /* several ranks: the solve over ranks (NULL on one) */
  PetscInt64       coupled_epoch; /* the ghost build the coupling was set up on */
  FclibDump        fclib;         /* -fclib_dump: steps written as FCLIB problems (NULL: none) */
  PetscInt64       infeasible;    /* steps of this run whose solve found them unsolvable (the first is reported) */
  /* -ccp_type ipm, on any rank count: each step's CCP gathered onto rank 0 (decomp/ccp_gather.h) and solved there
     by root, so the iterates do not depend on the decomposition */
  PetscBool gathered;
  CCPSolver root;       /* rank 0's solver of the gathered CCP, on PETSC_COMM_SELF (NULL on the other ranks) */
  double   *root_vel;   /* the velocities scattered back, 6 per solver body (the step's P.vel) */
  PetscInt  root_vel_n; /* its capacity in solver bodies */

  OverlapCorrection correct;            /* contact.overlap_correction position: the position pass (NULL: velocity) */
  const double     *pseudo;             /* the pass's pseudo-velocities, 6 per solver body, from the solve to advance
                                           (NULL: no pass this step) */
  OverlapCorrectionStats correct_stats; /* the pass over this run (SimulationOverlapCorrection) */
} CCPModel;

static CCPModel *State(Simulation sim) { return (CCPModel *)sim->model_state; }

/* -ccp_type ipm solves cones that start at gn = 0 and are unbounded, without joint blocks: a
 * scenario with joints, or a material pair with cohesion or a yield force, is bad input (one message, at set-up).
 * solver.type ipm in the file is refused earlier, at its key (scenario_check_solver_scope): here the type can only
 * come from the command line. */
static PetscErrorCode CheckIpmScope(Simulation sim, const CCPModel *m)
{
  SolverType type;
  const int  n = sim->sc.n_materials;

  PetscFunctionBegin;
  PetscCall(CCPSolverGetType(m->solver, &type));
  if (type != SOLVER_IPM) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(sim->sc.n_joints == 0, sim->comm, PETSC_ERR_ARG_INCOMP,
             "-ccp_type ipm (the interior-point method) has no joint rows, and the scenario has %d joints: use "
             "-ccp_type apgd",
             sim->sc.n_joints);
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++) {
      const PairParams *pp = &m->pairs[a * n + b];
      PetscCheck(pp->cohesion == 0 && pp->yield_force == 0, sim->comm, PETSC_ERR_ARG_INCOMP,
                 "-ccp_type ipm (the interior-point method) has no cohesion or yield force, and the pair of "
                 "materials '%s' and '%s' has %s: use -ccp_type apgd, or set their %s to 0",
                 sim->sc.materials[a].name, sim->sc.materials[b].name,
                 pp->cohesion != 0 ? "a cohesion" : "a yield force", pp->cohesion != 0 ? "cohesion" : "yield_force");
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -ccp_type ipm: m->gathered, and on rank 0 the solver of the gathered CCP with the run's settings (the
 * scenario's, then the options). Collective. */
static PetscErrorCode CreateRoot(Simulation sim, CCPModel *m)
{
  SolverType  type;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCall(CCPSolverGetType(m->solver, &type));
  m->gathered = (PetscBool)(type == SOLVER_IPM);
  PetscCallMPI(MPI_Comm_rank(sim->comm, &rank));
  if (!m->gathered || rank) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(CCPSolverCreate(PETSC_COMM_SELF, &m->root));
  PetscCall(CCPSolverSetFromScenario(m->root, sim->sc.solver_type, sim->sc.max_iterations, sim->sc.tolerance));
  PetscCall(CCPSolverSetFromOptions(m->root));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Create(Simulation sim)
{
  CCPModel *m = State(sim);

  PetscFunctionBegin;
  PetscCall(CCPSolverCreate(sim->comm, &m->solver));
  PetscCall(CCPSolverSetFromScenario(m->solver, sim->sc.solver_type, sim->sc.max_iterations, sim->sc.tolerance));
  PetscCall(CCPSolverSetFromOptions(m->solver));
  PetscCall(
    CCPSolverScratch(m->solver,
                     &sim->bp.pool)); /* detection's arrays in the solver's vectors: each dead while the other runs */
  m->warm_start_scale = 1.0;
  m->warm_start_decay = sim->sc.warm_start_decay; /* the option below overrides the scenario */
  PetscOptionsBegin(sim->comm, NULL, "CCP warm start", NULL);
  PetscCall(PetscOptionsReal("-ccp_warm_start_scale",
                             "Factor on last step's impulses used as the initial guess (0 = cold start)", NULL,
                             m->warm_start_scale, &m->warm_start_scale, NULL));
  PetscCall(PetscOptionsReal("-ccp_warm_start_decay",
                             "Extra factor on the warm start after a step that did not converge and changed its warm "
                             "start, so impulses cannot accumulate along an unbounded direction of an unsolvable step",
                             NULL, m->warm_start_decay, &m->warm_start_decay, NULL));
  PetscOptionsEnd();
  PetscCheck(m->warm_start_scale >= 0 && m->warm_start_scale <= 1, sim->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-ccp_warm_start_scale must be in [0, 1], got %g", m->warm_start_scale);
  PetscCheck(m->warm_start_decay >= 0 && m->warm_start_decay <= 1, sim->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-ccp_warm_start_decay must be in [0, 1], got %g", m->warm_start_decay);
  PetscCall(ContactPairTableCreate(sim->sc.materials, sim->sc.n_materials, &m->pairs, &m->pairs_yield));
  for (int i = 0; i < sim->sc.n_materials; i++)
    if (sim->sc.materials[i].rolling_compliance > 0) m->springs = PETSC_TRUE;
  PetscCall(CheckIpmScope(sim, m));
  PetscCall(CreateRoot(sim, m));
  PetscCall(FclibDumpCreate(sim, m->pairs, &m->fclib));
  if (sim->sc.overlap_correction == OVERLAP_CORRECTION_POSITION)
    PetscCall(
      OverlapCorrectionCreate(sim->comm, sim->sc.solver_type, sim->sc.max_iterations, sim->sc.tolerance, &m->correct));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Several ranks: one solve over all ranks' contacts, coupled through the ghosts (err: a method or
 * option that cannot be coupled); -ccp_type ipm is gathered onto rank 0 instead (SolveGathered), without the
 * position pass of the overlap correction, which would solve with the IPM coupled. */
static PetscErrorCode Distribute(Simulation sim, char *err, size_t errlen)
{
  CCPModel   *m = State(sim);
  CCPCoupling hooks;

  PetscFunctionBegin;
  if (!m->gathered) PetscCall(CCPSolverCheckCoupling(m->solver, err, errlen)); /* gathered: solved on rank 0 */
  if (m->gathered && m->correct) /* the position pass solves with the same -ccp_type, coupled over the ranks */
    PetscCall(PetscSNPrintf(err, errlen,
                            "solver type ipm with contact.overlap_correction position runs on 1 rank only (the "
                            "position pass is not gathered): run it on 1 rank, or use overlap_correction velocity"));
  if (err[0] || m->gathered) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VelocityCouplingCreate(sim->comm, &m->coupling));
  PetscCall(VelocityCouplingGetHooks(m->coupling, &hooks));
  PetscCall(CCPSolverSetCoupling(m->solver, &hooks));
  if (m->correct) PetscCall(OverlapCorrectionSetCoupling(m->correct, &hooks));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Destroy(Simulation sim)
{
  CCPModel *m = State(sim);

  PetscFunctionBegin;
  PetscCall(CCPSolverDestroy(&m->solver));
  PetscCall(CCPSolverDestroy(&m->root));
  PetscCall(PetscFree(m->root_vel));
  PetscCall(PetscFree(m->torque_prev));
  if (m->coupling) PetscCall(VelocityCouplingDestroy(&m->coupling));
  PetscCall(PetscFree(m->pairs));
  PetscCall(FclibDumpDestroy(&m->fclib));
  PetscCall(OverlapCorrectionDestroy(&m->correct));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The factor on the last step's impulses as this step's initial guess: the warm start scale, times the decay after
 * a step that did not converge and changed its warm start. */
static double WarmScale(Simulation sim, const CCPModel *m)
{
  return m->warm_start_scale * (sim->last.keep_impulses ? 1.0 : m->warm_start_decay);
}

/* The contacts in key order, each with the last step's impulses as its warm start (scaled, and
 * decayed after a step that did not converge and changed its warm start). Without joints the warm
 * start is taken as detection appends the contacts; joints, appended after it and sorted in, take
 * it in a pass of its own. */
static PetscErrorCode Detect(Simulation sim, StepWork *w)
{
  CCPModel               *m              = State(sim);
  const CollisionSettings cset           = {.envelope  = sim->sc.envelope,
                                            .materials = sim->sc.materials,
                                            .walls     = sim->walls,
                                            .nwalls    = sim->sc.n_walls,
                                            .clumps    = sim->sc.n_clumps ? sim->sc.clumps : NULL};
  const PetscBool         warm_appending = (PetscBool)!sim->joints.n;
  const double            warm_scale     = WarmScale(sim, m);
  ScratchPool            *pool;

  PetscFunctionBegin;
  sim->contacts.torque_springs = m->springs;
  if (warm_appending) PetscCall(ContactSetWarmBegin(&sim->contacts, &sim->memory, warm_scale));
  if (sim->neighbour_skin > 0)
    PetscCall(CollisionDetectListed(&cset, &sim->bodies, w->nb, &sim->bp, &sim->nlist,
                                    &sim->contacts)); /* the same contacts, bit for bit */
  else PetscCall(CollisionDetect(&cset, &sim->bodies, w->nb, &sim->bp, &sim->contacts));
  if (sim->joints.n)
    PetscCall(JointsAppend(&sim->joints, sim->comm, &sim->bodies, w->nb + sim->sc.n_walls, sim->time, sim->sc.time_step,
                           &sim->contacts));
  if (warm_appending) PetscCall(ContactSetWarmEnd(&sim->contacts, &w->matched));
  else PetscCall(ContactSetWarmStart(&sim->contacts, &sim->memory, warm_scale, &w->matched));
  /* The memory is dead until advance refills it, in the slot of the solver's packed blocks, which
   * are dead from then until the next solve: the two never add up. Every step: a restart's memory
   * comes as arrays of its own. */
  PetscCall(ImpulseMemoryRelease(&sim->memory));
  PetscCall(CCPSolverScratch(m->solver, &pool));
  PetscCall(ImpulseMemoryUsePool(&sim->memory, pool, SCRATCH_PACKED_BLOCKS));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The solver bodies as the CCP solve reads them (CCPBodyFn), computed from the body store whenever
 * the solve asks (a few times per solve) instead of copied beside its packed records: the bodies
 * [0, nb) with their free velocities (bodies/integrator.h), then the walls (immovable, at their
 * prescribed velocity and angular velocity), then the joints' ground. */
typedef struct {
  Simulation sim;
  PetscInt   nb;
  double     h;
} SolverBodies;

static void SolverBodyAt(void *ctx, PetscInt i, double *inv_mass, double inv_inertia[6], double vel_free[6])
{
  const SolverBodies *sb  = (const SolverBodies *)ctx;
  Simulation          sim = sb->sim;
  double              im, I[6], vf[6];

  if (i < sb->nb) {
    double R[9];
    im = 1.0 / sim->bodies.mass[i];
    quat_to_matrix(sim->bodies.quat + 4 * i, R);
    integrator_free_velocity(&sim->bodies, i, R, sim->sc.gravity, sb->h, I, vf);
  } else if (i - sb->nb < sim->sc.n_walls) {
    const Wall *wall = &sim->walls[i - sb->nb];
    im               = 0;
    for (int c = 0; c < 6; c++) I[c] = 0;
    for (int c = 0; c < 3; c++) vf[c] = wall->velocity[c]; /* at its reference point (detect.c's ra) */
    for (int c = 0; c < 3; c++) vf[3 + c] = wall->omega[c];
  } else JointsGround(&im, I, vf);
  if (inv_mass) *inv_mass = im;
  if (inv_inertia) memcpy(inv_inertia, I, sizeof(I));
  if (vel_free) memcpy(vel_free, vf, sizeof(vf));
}

/* The warning of the run's first unsolvable step (CCPSolveStats.infeasible, agreed over ranks), naming
 * the contact with the largest push-apart share over all ranks: its bodies' ids (or walls) and its
 * overlap. Collective. Later unsolvable steps are only counted (SimulationInfeasibleSteps). */
static PetscErrorCode ReportInfeasible(Simulation sim, const StepWork *w, const CCPProblem *P)
{
  CCPModel   *m = State(sim);
  PetscMPIInt rank;
  struct {
    double share;
    int    rank;
  } mine         = {w->solve.infeasible_share, 0}, top;
  double info[3] = {0, 0, 0}; /* body ids (-1 - k: wall k), overlap (m) */

  PetscFunctionBegin;
  if (m->infeasible++) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(sim->comm, &rank));
  mine.rank = rank;
  PetscCallMPI(MPI_Allreduce(&mine, &top, 1, MPI_DOUBLE_INT, MPI_MAXLOC, sim->comm));
  if (top.rank == rank && w->solve.infeasible_contact >= 0) {
    const Contact *c     = &P->contact[w->solve.infeasible_contact];
    const int32_t  ab[2] = {c->a, c->b};
    for (int k = 0; k < 2; k++) info[k] = ab[k] < w->nb ? (double)sim->bodies.id[ab[k]] : (double)(w->nb - 1 - ab[k]);
    info[2] = -(c->phi + c->plastic);
  }
  PetscCallMPI(MPI_Bcast(info, 3, MPI_DOUBLE, top.rank, sim->comm));
  char who[2][48];
  for (int k = 0; k < 2; k++)
    PetscCall(info[k] >= 0 ? PetscSNPrintf(who[k], sizeof(who[k]), "body %.0f", info[k])
                           : PetscSNPrintf(who[k], sizeof(who[k]), "wall %.0f", -info[k]));
  PetscCall(
    PetscPrintf(sim->comm,
                "ccpdem: warning: step %" PetscInt64_FMT
                " (t = %g s) is unsolvable: overlapping contacts must separate but cannot (a jam; the strongest "
                "push is between %s and %s, overlap %.3g m, overlap_tolerance %g m), so its CCP has no "
                "solution or one with explosive speeds; the solve stopped after %" PetscInt_FMT
                " iterations and kept its best iterate (residual %.3g m/s). Raise contact.overlap_tolerance "
                "above such overlaps, give the materials a compliance, or lower contact.max_recovery_speed; "
                "later such steps are only counted (run summary)\n",
                sim->step + 1, (sim->step + 1) * sim->sc.time_step, who[0], who[1], info[2], sim->sc.overlap_tolerance,
                w->solve.iterations, w->solve.res_max));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0: the gathered CCP g (walls: this rank's, the same on every rank) solved by m->root into vel (6 per
 * gathered body, then the walls) and gamma (CONTACT_DOF_MAX per gathered contact, in: the warm start); *ierr
 * the solve's error code (its message is the run's first error, reported by rank 0), not raised here so that
 * every rank can stop together. Not collective. */
static PetscErrorCode SolveOnRoot(Simulation sim, const CCPProblem *P, const CCPGathered *g, double *vel, double *gamma,
                                  CCPSolveStats *stats, PetscErrorCode *ierr)
{
  CCPModel        *m  = State(sim);
  const PetscInt   nw = sim->sc.n_walls, n = g->nb + nw;
  const PetscInt   nlocal = P->nbodies - nw; /* this rank's walls follow its bodies and ghosts */
  double          *im, *Iinv, *vf;
  Contact         *c;
  CCPContactTerms *t;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3((size_t)n + 1, &im, 6 * (size_t)n + 1, &Iinv, 6 * (size_t)n + 1, &vf));
  PetscCall(PetscMalloc2((size_t)g->nc + 1, &c, (size_t)g->nc + 1, &t));
  for (PetscInt k = 0; k < g->nb; k++) {
    im[k] = g->body[k].im;
    PetscCall(PetscArraycpy(Iinv + 6 * k, g->body[k].Iinv, 6));
    PetscCall(PetscArraycpy(vf + 6 * k, g->body[k].vf, 6));
  }
  for (PetscInt k = g->nb; k < n; k++) ccp_problem_body(P, nlocal + k - g->nb, im + k, Iinv + 6 * k, vf + 6 * k);
  for (PetscInt k = 0; k < g->nc; k++) {
    c[k] = g->contact[k].c;
    t[k] = g->contact[k].t;
    PetscCall(PetscArraycpy(gamma + CONTACT_DOF_MAX * k, g->contact[k].gamma, CONTACT_DOF_MAX));
  }
  CCPProblem Q = {.nbodies     = n,
                  .inv_mass    = im,
                  .inv_inertia = Iinv,
                  .vel_free    = vf,
                  .vel         = vel,
                  .ncontacts   = g->nc,
                  .contact     = c,
                  .gamma       = gamma,
                  .terms       = t};
  *ierr        = CCPSolverSolve(m->root, &Q, stats);
  PetscCall(PetscFree3(im, Iinv, vf));
  PetscCall(PetscFree2(c, t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -ccp_type ipm: P's CCP (this rank's owned bodies and contacts) gathered onto rank 0 in id and key order,
 * solved there (SolveOnRoot), and its answer scattered back: P's gamma, P->vel (m->root_vel: owned bodies,
 * ghosts, and the walls at their prescribed velocities) and w->solve the same on every rank. A failed solve
 * on rank 0 stops every rank (one line: rank 0's message). w->comm gets the gather's and scatter's time.
 * Collective; communication: one gather and one scatter of O(bodies + contacts), none during the solve. */
static PetscErrorCode SolveGathered(Simulation sim, CCPProblem *P, StepWork *w)
{
  CCPModel         *m      = State(sim);
  const BodyStore  *s      = &sim->bodies;
  const PetscInt    nlocal = s->n_owned + s->n_ghost;
  CCPGatherBody    *bodies;
  CCPGatherContact *contacts;
  CCPGathered       g;
  PetscMPIInt       rank;
  double           *vel = NULL, *gamma = NULL, t0, t1, t2;
  struct {
    CCPSolveStats  stats;
    PetscErrorCode ierr;
  } answer = {{0}, PETSC_SUCCESS};

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(sim->comm, &rank));
  t0 = MPI_Wtime();
  PetscCall(PetscMalloc2((size_t)s->n_owned + 1, &bodies, (size_t)P->ncontacts + 1, &contacts));
  PetscCall(CCPGatherLocal(P, s->n_owned, nlocal, s->id, sim->contacts.key, bodies, contacts));
  PetscCall(CCPGatherToRoot(sim->comm, bodies, s->n_owned, s->id + s->n_owned, s->n_ghost, contacts, P->ncontacts, &g));
  PetscCall(PetscFree2(bodies, contacts));
  t1 = MPI_Wtime();
  if (!rank) {
    PetscCall(PetscMalloc2(6 * ((size_t)g.nb + sim->sc.n_walls) + 1, &vel, CONTACT_DOF_MAX * (size_t)g.nc + 1, &gamma));
    answer.stats = w->solve; /* the fields a method leaves alone keep the step's (zeroed) values */
    PetscCall(SolveOnRoot(sim, P, &g, vel, gamma, &answer.stats, &answer.ierr));
  }
  t2 = MPI_Wtime();
  PetscCallMPI(MPI_Bcast(&answer, (PetscMPIInt)sizeof(answer), MPI_BYTE, 0, sim->comm));
  if (answer.ierr) {
    PetscCall(PetscFree2(vel, gamma));
    PetscCall(CCPGatheredDestroy(&g));
    SETERRQ(sim->comm, answer.ierr, "-ccp_type ipm: the solve of step %" PetscInt64_FMT "'s CCP on rank 0 failed",
            sim->step + 1);
  }
  if (m->root_vel_n < P->nbodies) {
    PetscCall(PetscFree(m->root_vel));
    PetscCall(PetscMalloc1(6 * (size_t)P->nbodies, &m->root_vel));
    m->root_vel_n = P->nbodies;
  }
  PetscCall(CCPGatherScatter(sim->comm, &g, vel, gamma, m->root_vel, P->gamma));
  for (PetscInt i = nlocal; i < P->nbodies; i++) ccp_problem_body(P, i, NULL, NULL, m->root_vel + 6 * i);
  P->vel   = m->root_vel;
  w->solve = answer.stats;
  PetscCall(PetscFree2(vel, gamma));
  PetscCall(CCPGatheredDestroy(&g));
  w->comm += (t1 - t0) + (MPI_Wtime() - t2);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The position pass (ccp/overlap_correction.h) after the velocity solve P: m->pseudo <- its
 * pseudo-velocities, or NULL when no contact on any rank has an overlap to push apart (the pass is
 * then skipped by all: one Allreduce when coupled). Collective when coupled. */
static PetscErrorCode CorrectOverlaps(Simulation sim, const CCPProblem *P, const ContactPairs *cp)
{
  CCPModel     *m = State(sim);
  PetscBool     push, any;
  CCPSolveStats st = {0};

  PetscFunctionBegin;
  m->pseudo = NULL;
  PetscCall(OverlapCorrectionForm(m->correct, P, cp, &push));
  any = push;
  if (m->coupling) PetscCallMPI(MPI_Allreduce(&push, &any, 1, MPIU_BOOL, MPI_LOR, sim->comm));
  if (!any) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(OverlapCorrectionSolve(m->correct, P, &st, &m->pseudo));
  m->correct_stats.solves++;
  m->correct_stats.iterations += st.iterations;
  m->correct_stats.unconverged += !st.converged;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* With rolling springs: the contacts' torque impulses as the warm start left them (the last step's, unscaled:
 * ContactSet's torque_springs) kept in m->torque_prev for P, whose springs' b_rot they set (ccp_problem_terms);
 * then, as an initial guess, scaled like the force rows' (WarmScale). */
static PetscErrorCode KeepTorques(Simulation sim, CCPModel *m, ContactSet *cs, CCPProblem *P)
{
  const double scale = WarmScale(sim, m);

  PetscFunctionBegin;
  if (cs->n > m->torque_prev_cap) {
    PetscCall(PetscFree(m->torque_prev));
    PetscCall(PetscMalloc1(3 * (size_t)cs->n, &m->torque_prev));
    m->torque_prev_cap = cs->n;
  }
  for (PetscInt i = 0; i < cs->n; i++) {
    double *g = contact_gamma(cs, i);
    for (int k = 0; k < 3; k++) {
      m->torque_prev[3 * (size_t)i + k] = g[3 + k];
      g[3 + k] *= scale;
    }
  }
  P->torque_prev = m->torque_prev;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One CCP solve of the step's contacts (GUIDE step 3: the terms of each contact's law computed at
 * packing: stabilization, compliance, cohesion, yield), then the plastic return map. On several
 * ranks the coupling follows the ghosts of this step: its PetscSF is built again only when they
 * were (ghost_epoch), and kept while they are updated in place. */
static PetscErrorCode Respond(Simulation sim, StepWork *w)
{
  CCPModel          *m  = State(sim);
  const double       h  = sim->sc.time_step;
  const SolverBodies sb = {.sim = sim, .nb = w->nb, .h = h};
  const ContactPairs cp = {.table             = m->pairs,
                           .n_materials       = sim->sc.n_materials,
                           .body_material     = sim->bodies.material,
                           .nb                = w->nb,
                           .walls             = sim->walls,
                           .h                 = h,
                           .v_recover         = sim->sc.max_recovery_speed,
                           .overlap_tolerance = sim->sc.overlap_tolerance,
                           .split             = (PetscBool)(m->correct != NULL),
                           .yields            = m->pairs_yield};
  CCPProblem P = {.nbodies = w->nb + sim->sc.n_walls + (sim->joints.n ? 1 : 0), /* the joints' ground after the walls */
                  .body    = SolverBodyAt,
                  .body_ctx  = (void *)&sb,
                  .ncontacts = sim->contacts.n,
                  .contact   = sim->contacts.c,
                  .gamma     = sim->contacts.gamma,
                  .terms_fn  = contact_pairs_terms,
                  .terms_ctx = (void *)&cp};

  PetscFunctionBegin;
  if (m->springs) PetscCall(KeepTorques(sim, m, &sim->contacts, &P));
  if (m->coupling) {
    if (m->coupled_epoch != sim->place.ghost_epoch) PetscCall(VelocityCouplingSetUp(m->coupling, &sim->place.exchange));
    m->coupled_epoch = sim->place.ghost_epoch;
    PetscCall(VelocityCouplingResetStats(m->coupling));
  }
  PetscCall(FclibDumpBeforeSolve(m->fclib, sim, &P));
  if (m->gathered) PetscCall(SolveGathered(sim, &P, w));
  else PetscCall(CCPSolverSolve(m->solver, &P, &w->solve));
  if (w->solve.infeasible) PetscCall(ReportInfeasible(sim, w, &P));
  PetscCall(FclibDumpAfterSolve(m->fclib, sim, &P, &w->solve));
  m->vel = P.vel; /* the solver's, until its pool's next user: after advance */
  if (m->correct) PetscCall(CorrectOverlaps(sim, &P, &cp));
  PlasticityUpdate(&P, &cp);
  if (m->coupling) {
    CouplingStats cs;
    PetscCall(VelocityCouplingGetStats(m->coupling, &cs));
    w->comm += cs.seconds;
    w->bytes += cs.bytes_sent;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The owned bodies and the walls moved with the solved velocities; the impulses remembered. */
static PetscErrorCode Advance(Simulation sim, StepWork *w)
{
  CCPModel    *m = State(sim);
  const double h = sim->sc.time_step;

  PetscFunctionBegin;
  (void)w;
  for (PetscInt i = 0; i < sim->bodies.n_owned; i++) {
    double R[9];
    quat_to_matrix(sim->bodies.quat + 4 * i, R);
    integrator_move_body(&sim->bodies, i, R, m->vel + 6 * i, h, ORIENTATION_EXACT);
    if (m->pseudo) integrator_move_pose(&sim->bodies, i, m->pseudo + 6 * i, h);
  }
  m->pseudo = NULL;
  integrator_move_walls(sim->walls, sim->sc.n_walls, h);
  m->vel = NULL;
  PetscCall(ImpulseMemoryStore(&sim->memory, &sim->contacts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Contact i's impulses over the time step: the step's mean force and torque on B. */
static void ContactLoad(Simulation sim, PetscInt i, double F[3], double T[3])
{
  const double inv_h = 1.0 / sim->sc.time_step;

  ccp_kernel_force_torque(&sim->contacts.c[i], contact_gamma(&sim->contacts, i), F, T);
  v3_scale(F, inv_h, F);
  v3_scale(T, inv_h, T);
}

/* Impulses kept between steps, detection without a list by default; with a list (-neighbour_skin)
 * the ghosts are kept while no body moved half the skin (step/placement.c), and with them the
 * solve's coupling, set up again only after a ghost build (ghost_epoch); nothing to redo when the
 * bodies are rearranged, and no figure of its own in the step's reduction. */
/* clang-format off */
const ContactModelOps ContactModelCCP = {
  .name = "ccp", .state_size = sizeof(CCPModel), .impulses = PETSC_TRUE, .record_width = CCP_RECORD_WIDTH,
  .ghosts_persist = PETSC_TRUE, .coupled_solve = PETSC_TRUE, .create = Create, .distribute = Distribute,
  .destroy = Destroy, .detect = Detect, .respond = Respond, .advance = Advance, .contact_load = ContactLoad};
/* clang-format on */

CCPSolver SimulationSolver(Simulation sim) { return sim->model == &ContactModelCCP ? State(sim)->solver : NULL; }

PetscInt64 SimulationInfeasibleSteps(Simulation sim)
{
  return sim->model == &ContactModelCCP ? State(sim)->infeasible : 0;
}

void SimulationOverlapCorrection(Simulation sim, OverlapCorrectionStats *stats)
{
  const OverlapCorrectionStats none = {0};
  *stats = sim->model == &ContactModelCCP && State(sim)->correct ? State(sim)->correct_stats : none;
}

PetscErrorCode SimulationGetWarmStart(Simulation sim, double *scale, double *decay)
{
  PetscFunctionBegin;
  PetscCheck(sim->model == &ContactModelCCP, sim->comm, PETSC_ERR_ARG_WRONG,
             "SimulationGetWarmStart: the penalty model has no warm start");
  *scale = State(sim)->warm_start_scale;
  *decay = State(sim)->warm_start_decay;
  PetscFunctionReturn(PETSC_SUCCESS);
}
