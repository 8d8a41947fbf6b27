/* The CCP of chosen steps as FCLIB global problems (step/fclib_dump.h). */
#include "step/fclib_dump.h"
#include <inttypes.h>
#include "step/simulation_impl.h"
#include "io/fclib.h"
#include "io/h5.h"
#include "decomp/ccp_gather.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define FCLIB_DUMP_MAX_STEPS 256

struct _p_FclibDump {
  PetscInt  steps[FCLIB_DUMP_MAX_STEPS]; /* -fclib_dump: the steps to write */
  PetscInt  nsteps;
  char      dir[PETSC_MAX_PATH_LEN]; /* -fclib_dir */
  PetscBool due;                     /* this step is written (FclibDumpBeforeSolve) */
  double   *warm;                    /* its warm start, 3 per contact */
};

/* Why the scenario's contacts cannot be an FCLIB global problem ("" if they can): the first pair of
 * materials with a term FCLIB has no place for, or joints. */
static void Unrepresentable(const Scenario *sc, const PairParams *pairs, char *why, size_t len)
{
  why[0] = 0;
  if (sc->n_joints > 0) {
    snprintf(why, len, "the scenario has %d joints, and FCLIB's global problem no bilateral row boxes", sc->n_joints);
    return;
  }
  for (int a = 0; a < sc->n_materials; a++)
    for (int b = a; b < sc->n_materials; b++) {
      const PairParams *p = &pairs[a * sc->n_materials + b];
      const char       *term =
        p->rho > 0 || p->sigma > 0
                ? "rolling or spinning friction (6-dof contacts; FCLIB's global problem has 3 rows per contact)"
                : (p->compliance > 0 ? "a compliance (FCLIB's global problem has none)"
                                     : (p->cohesion > 0 ? "a cohesion (FCLIB's cone starts at r_n = 0)"
                                                        : (p->yield_force > 0 ? "a yield force (FCLIB's global problem "
                                                                                "has no plasticity)"
                                                                              : NULL)));
      if (term) {
        snprintf(why, len, "materials %s and %s have %s", sc->materials[a].name, sc->materials[b].name, term);
        return;
      }
    }
}

PetscErrorCode FclibDumpCreate(Simulation sim, const PairParams *pairs, FclibDump *d)
{
  PetscInt  steps[FCLIB_DUMP_MAX_STEPS] = {0}, n = FCLIB_DUMP_MAX_STEPS; /* -help shows 0: none */
  char      dir[PETSC_MAX_PATH_LEN] = "fclib", why[320];
  PetscBool set;

  PetscFunctionBegin;
  *d = NULL;
  PetscOptionsBegin(sim->comm, NULL, "FCLIB problems of chosen steps", NULL);
  PetscCall(PetscOptionsIntArray("-fclib_dump",
                                 "Write these steps' CCPs (1 = the first step's solve) as FCLIB global problems "
                                 "DIR/fclib-NNNNNN.hdf5, with the run's solve as their solution",
                                 "FclibDumpCreate", steps, &n, &set));
  PetscCall(PetscOptionsString("-fclib_dir", "Directory of the -fclib_dump files (created if missing)",
                               "FclibDumpCreate", dir, dir, sizeof(dir), NULL));
  PetscOptionsEnd();
  if (!set) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(n > 0 && n < FCLIB_DUMP_MAX_STEPS, sim->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-fclib_dump needs 1 to %d steps, comma-separated (e.g. -fclib_dump 10,20)", FCLIB_DUMP_MAX_STEPS - 1);
  for (PetscInt k = 0; k < n; k++)
    PetscCheck(steps[k] >= 1, sim->comm, PETSC_ERR_ARG_OUTOFRANGE,
               "-fclib_dump step %" PetscInt_FMT " is not a step: steps count from 1 (the first step's solve)",
               steps[k]);
  { /* a step the run never takes would silently write nothing */
    const int64_t last = scenario_step_count(sim->sc.time_end, sim->sc.time_step, NULL, 0);
    for (PetscInt k = 0; k < n; k++)
      PetscCheck(steps[k] <= last, sim->comm, PETSC_ERR_ARG_OUTOFRANGE,
                 "-fclib_dump step %" PetscInt_FMT " is beyond the run's last step %" PRId64
                 " (time.end / time.step): give steps up to %" PRId64,
                 steps[k], last, last);
  }
  Unrepresentable(&sim->sc, pairs, why, sizeof(why));
  PetscCheck(!why[0], sim->comm, PETSC_ERR_ARG_WRONG,
             "-fclib_dump: %s; an FCLIB global problem holds rigid, cohesionless 3-dof frictional contacts only: drop "
             "-fclib_dump or those terms",
             why);
  PetscCall(PetscNew(d));
  PetscCall(PetscArraycpy((*d)->steps, steps, n));
  (*d)->nsteps = n;
  PetscCall(PetscStrncpy((*d)->dir, dir, sizeof((*d)->dir)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FclibDumpDestroy(FclibDump *d)
{
  PetscFunctionBegin;
  if (!*d) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree((*d)->warm));
  PetscCall(PetscFree(*d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FclibDumpBeforeSolve(FclibDump d, Simulation sim, const CCPProblem *P)
{
  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(PETSC_SUCCESS);
  d->due = PETSC_FALSE;
  for (PetscInt k = 0; k < d->nsteps; k++)
    if (d->steps[k] == sim->step + 1) d->due = PETSC_TRUE;
  if (!d->due) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(d->warm));
  PetscCall(PetscMalloc1(3 * (size_t)P->ncontacts + 1, &d->warm));
  for (PetscInt i = 0; i < P->ncontacts; i++)
    for (int k = 0; k < 3; k++) d->warm[3 * i + k] = P->gamma[(size_t)CONTACT_DOF_MAX * i + k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* This rank's owned bodies and contacts as gather records (arrays of nb_owned and P's contacts), with what
 * FCLIB adds: each body's mass and world inertia, each contact's warm start (aux[0..3)) and w (aux[3..6)). */
static PetscErrorCode LocalRecords(FclibDump d, Simulation sim, const CCPProblem *P, CCPGatherBody *bodies,
                                   CCPGatherContact *contacts)
{
  const BodyStore *s  = &sim->bodies;
  const PetscInt   nb = s->n_owned + s->n_ghost; /* solver bodies from nb on are walls */

  PetscFunctionBegin;
  PetscCall(CCPGatherLocal(P, s->n_owned, nb, s->id, sim->contacts.key, bodies, contacts));
  for (PetscInt i = 0; i < s->n_owned; i++) {
    CCPGatherBody *r = &bodies[i];
    double         R[9];
    r->mass = s->mass[i];
    quat_to_matrix(s->quat + 4 * i, R);
    sym_rotate_diag(r->J, R, s->inertia + 3 * i);
  }
  for (PetscInt i = 0; i < P->ncontacts; i++) {
    const Contact         *c = &P->contact[i];
    CCPGatherContact      *r = &contacts[i];
    const CCPContactTerms *t = &r->t;
    double                 e[3][3], vA[6] = {0}, pA[3], dA[3];

    PetscCheck(!c->box && contact_dof(c) == 3 && t->c_lin == 0 && t->cohesion_impulse == 0 && t->yield_impulse == 0 &&
                 c->plastic == 0,
               PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "-fclib_dump: contact %" PetscInt_FMT " has terms FCLIB cannot hold, which FclibDumpCreate refuses", i);
    v3_copy(e[0], c->n);
    contact_frame(c, e[1], e[2]);
    if (r->wall >= 0) ccp_problem_body(P, c->a, NULL, NULL, vA); /* its prescribed velocity enters u = D^T v + b */
    v3_cross(pA, vA + 3, c->ra);
    v3_add(dA, vA, pA);
    for (int k = 0; k < 3; k++) {
      r->aux[k]     = d->warm[3 * i + k];
      r->aux[3 + k] = -v3_dot(e[k], dA) + (k == 0 ? t->bn : 0);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* v = v_free + M^-1 H r and u = H^T v + w for impulses r (sol's r set): the velocities an impulse
 * gives. Hr: work, 6 per body. */
static void Velocities(const FclibGlobal *gp, const CCPGatherBody *b, PetscInt nb, double *Hr, FclibSolution *sol)
{
  for (PetscInt k = 0; k < 6 * nb; k++) Hr[k] = 0;
  FclibMatMult(&gp->H, sol->r, Hr);
  for (PetscInt j = 0; j < nb; j++) {
    double *v = sol->v + 6 * j;
    sym_vec(v + 3, b[j].Iinv, Hr + 6 * j + 3);
    for (int k = 0; k < 3; k++) {
      v[k] = b[j].vf[k] + b[j].im * Hr[6 * j + k];
      v[3 + k] += b[j].vf[3 + k];
    }
  }
  for (int k = 0; k < gp->H.n; k++) sol->u[k] = gp->w[k];
  FclibMatMultTranspose(&gp->H, sol->v, sol->u);
}

/* Rank 0: the problem, solution and guess of the gathered records (decomp/ccp_gather.h: in id and key order). */
static PetscErrorCode Assemble(const CCPGatherBody *b, PetscInt nb, const CCPGatherContact *c, PetscInt nc,
                               FclibGlobal *gp, FclibSolution *sol, FclibSolution *guess)
{
  const int n = (int)(6 * nb), m = (int)(3 * nc);
  double   *Hr;
  int       e = 0;

  PetscFunctionBegin;
  PetscCall(FclibMatrixCreate(n, n, 12 * (int)nb, &gp->M)); /* per body: m on 3 columns, J's 3 full columns */
  for (PetscInt j = 0; j < nb; j++) {
    const double *J    = b[j].J;
    const double  S[9] = {J[0], J[3], J[4], J[3], J[1], J[5], J[4], J[5], J[2]};
    for (int k = 0; k < 3; k++) {
      gp->M.colptr[6 * j + k] = e;
      gp->M.row[e]            = (int)(6 * j + k);
      gp->M.x[e++]            = b[j].mass;
    }
    for (int k = 0; k < 3; k++) {
      gp->M.colptr[6 * j + 3 + k] = e;
      for (int l = 0; l < 3; l++) {
        gp->M.row[e] = (int)(6 * j + 3 + l);
        gp->M.x[e++] = S[3 * k + l];
      }
    }
  }
  gp->M.colptr[n] = e;
  PetscCall(FclibMatrixCreate(n, m, 36 * (int)nc, &gp->H)); /* per contact 3 columns of 2 bodies' 6 rows */
  PetscCall(PetscMalloc1((size_t)n + 1, &gp->f));
  PetscCall(PetscMalloc1((size_t)m + 1, &gp->w));
  PetscCall(PetscMalloc1((size_t)nc + 1, &gp->mu));
  for (PetscInt j = 0; j < nb; j++) {
    double Jv[3];
    sym_vec(Jv, b[j].J, b[j].vf + 3);
    for (int k = 0; k < 3; k++) {
      gp->f[6 * j + k]     = b[j].mass * b[j].vf[k];
      gp->f[6 * j + 3 + k] = Jv[k];
    }
  }
  PetscCall(FclibSolutionCreate(n, m, 0, sol));
  PetscCall(FclibSolutionCreate(n, m, 0, guess));
  e = 0;
  for (PetscInt i = 0; i < nc; i++) {
    const CCPGatherContact *ci = &c[i];
    const PetscInt          ja = ci->wall >= 0 ? -1 : ci->c.a, jb = ci->c.b; /* a wall has no rows */
    double                  fr[3][3];
    v3_copy(fr[0], ci->c.n);
    v3_tangents(ci->c.n, fr[1], fr[2]); /* contact_frame of a contact (not a joint block) */
    for (int k = 0; k < 3; k++) {
      /* rows of the two bodies in ascending order: A has the smaller id, so the smaller index */
      const PetscInt side[2]  = {ja, jb};
      gp->H.colptr[3 * i + k] = e;
      for (int s = 0; s < 2; s++) {
        const double  sign = s ? 1 : -1;
        const double *off  = s ? ci->c.rb : ci->c.ra;
        double        arm[3];
        if (side[s] < 0) continue;
        v3_cross(arm, off, fr[k]);
        for (int l = 0; l < 6; l++) {
          gp->H.row[e] = (int)(6 * side[s] + l);
          gp->H.x[e++] = sign * (l < 3 ? fr[k][l] : arm[l - 3]);
        }
      }
      gp->w[3 * i + k]    = ci->aux[3 + k];
      sol->r[3 * i + k]   = ci->gamma[k];
      guess->r[3 * i + k] = ci->aux[k];
    }
    gp->mu[i] = ci->c.mu;
  }
  gp->H.colptr[m] = e;
  gp->H.nnz       = e;
  for (PetscInt j = 0; j < nb; j++) PetscCall(PetscArraycpy(sol->v + 6 * j, b[j].v, 6));
  PetscCall(PetscArraycpy(sol->u, gp->w, m));
  FclibMatMultTranspose(&gp->H, sol->v, sol->u);
  PetscCall(PetscMalloc1((size_t)n + 1, &Hr));
  Velocities(gp, b, nb, Hr, guess);
  PetscCall(PetscFree(Hr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FclibDumpAfterSolve(FclibDump d, Simulation sim, const CCPProblem *P, const CCPSolveStats *stats)
{
  CCPGatherBody    *mine_b = NULL;
  CCPGatherContact *mine_c = NULL;
  CCPGathered       all;
  FclibGlobal       gp  = {0};
  FclibSolution     sol = {0}, guess = {0};
  const PetscInt    step = sim->step + 1;
  char              path[PETSC_MAX_PATH_LEN], err[PETSC_MAX_PATH_LEN + 128] = "";
  PetscMPIInt       rank;

  PetscFunctionBegin;
  if (!d || !d->due) PetscFunctionReturn(PETSC_SUCCESS);
  d->due = PETSC_FALSE;
  PetscCallMPI(MPI_Comm_rank(sim->comm, &rank));
  PetscCall(PetscMalloc2(sim->bodies.n_owned + 1, &mine_b, P->ncontacts + 1, &mine_c));
  PetscCall(LocalRecords(d, sim, P, mine_b, mine_c));
  PetscCall(CCPGatherToRoot(sim->comm, mine_b, sim->bodies.n_owned, NULL, 0, mine_c, P->ncontacts, &all));
  PetscCall(PetscFree2(mine_b, mine_c));
  const PetscInt nb = all.nb, nc = all.nc;
  PetscCheck(6 * (int64_t)nb < INT_MAX / 2 && 36 * (int64_t)nc < INT_MAX / 2, sim->comm, PETSC_ERR_SUP,
             "-fclib_dump: %" PetscInt_FMT " bodies and %" PetscInt_FMT " contacts exceed FCLIB's 32-bit indices", nb,
             nc);
  if (!rank) PetscCall(Assemble(all.body, nb, all.contact, nc, &gp, &sol, &guess));
  PetscCall(CCPGatheredDestroy(&all));
  PetscCall(PetscSNPrintf(gp.title, sizeof(gp.title), "ccpdem step %" PetscInt_FMT, step));
  PetscCall(PetscSNPrintf(gp.description, sizeof(gp.description),
                          "ccpdem: the CCP of step %" PetscInt_FMT " (t = %.17g s to %.17g s) of %s, %" PetscInt_FMT
                          " bodies, %" PetscInt_FMT " contacts; the relaxed problem (u = H^T v + w in the dual cones, "
                          "no De Saxce term); /solution: the run's solve (GUIDE residual %.3g m/s after %" PetscInt_FMT
                          " iterations), /guesses/1: its warm start",
                          step, sim->time, (sim->step + 1) * sim->sc.time_step, sim->sc.path[0] ? sim->sc.path : "-",
                          nb, nc, stats->res_max, stats->iterations));
  PetscCallMPI(MPI_Bcast(gp.description, (PetscMPIInt)sizeof(gp.description), MPI_CHAR, 0, sim->comm));
  PetscCall(IoMakeDirs(sim->comm, d->dir, err, sizeof(err)));
  PetscCall(IoPathPrintf(path, sizeof(path), "%s/fclib-%06" PetscInt_FMT ".hdf5", d->dir, step));
  if (!err[0]) PetscCall(FclibWriteGlobal(sim->comm, path, &gp, &sol, &guess, err, sizeof(err)));
  /* err is the same on every rank (agreed by the writer): a collective stop, one line */
  PetscCheck(!err[0], sim->comm, PETSC_ERR_FILE_WRITE, "-fclib_dump: %s", err);
  PetscCall(PetscPrintf(sim->comm,
                        "ccpdem: step %" PetscInt_FMT "'s CCP written to %s (%" PetscInt_FMT " bodies, %" PetscInt_FMT
                        " contacts)\n",
                        step, path, nb, nc));
  PetscCall(FclibGlobalDestroy(&gp));
  PetscCall(FclibSolutionDestroy(&sol));
  PetscCall(FclibSolutionDestroy(&guess));
  PetscFunctionReturn(PETSC_SUCCESS);
}
