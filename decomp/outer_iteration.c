#include "outer_iteration.h"
#include <petscsf.h>

struct _p_OuterIteration {
  MPI_Comm     comm;
  PetscInt     max_outer;   /* -outer_max_it */
  PetscInt     inner_its;   /* -outer_inner_its: local sweeps per outer iteration */
  PetscSF      sf;          /* roots: owned bodies; leaves: ghosts (storage index n_owned + g) */
  MPI_Datatype unit6;       /* 6 contiguous doubles: one body's velocity */
  PetscInt     n_owned, n_ghost;
  CCPSolver    local;       /* the local method, capped at inner_its sweeps */
  size_t       cap;         /* solver bodies the arrays below hold */
  double      *share;       /* ranks with contacts on the body (>= 1) */
  double      *inv_mass_split, *inv_inertia_split, *vel_free_split, *contrib, *vel_local;
  size_t       ccap;        /* contacts the step arrays hold */
  double      *eta_true, *eta_split; /* residual steps with true and with split masses */
};

/* The solvers read each contact's step eta from the contact: swap in the split or the true ones. */
static void SetSteps(CCPProblem *P, const double *eta)
{
  for (PetscInt c = 0; c < P->ncontacts; c++) P->contact[c].eta = eta[c];
}

PetscErrorCode OuterIterationCreate(MPI_Comm comm, OuterIteration *oi)
{
  OuterIteration o;

  PetscFunctionBegin;
  PetscCall(PetscNew(&o));
  o->comm      = comm;
  o->max_outer = 1000;
  o->inner_its = 10;
  PetscCallMPI(MPI_Type_contiguous(6, MPI_DOUBLE, &o->unit6));
  PetscCallMPI(MPI_Type_commit(&o->unit6));
  PetscCall(CCPSolverCreate(comm, &o->local));
  PetscCall(CCPSolverSetReturnLast(o->local, PETSC_TRUE));
  *oi = o;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode OuterIterationSetFromOptions(OuterIteration oi)
{
  PetscFunctionBegin;
  PetscOptionsBegin(oi->comm, NULL, "Distributed (outer) CCP iteration", NULL);
  PetscCall(PetscOptionsInt("-outer_max_it", "Cap on outer (block-Jacobi over ranks) iterations per step", NULL, oi->max_outer, &oi->max_outer, NULL));
  PetscCall(PetscOptionsInt("-outer_inner_its", "Local solver sweeps per outer iteration", NULL, oi->inner_its, &oi->inner_its, NULL));
  PetscOptionsEnd();
  PetscCheck(oi->max_outer >= 1, oi->comm, PETSC_ERR_ARG_OUTOFRANGE, "-outer_max_it must be >= 1, got %" PetscInt_FMT, oi->max_outer);
  PetscCheck(oi->inner_its >= 1, oi->comm, PETSC_ERR_ARG_OUTOFRANGE, "-outer_inner_its must be >= 1, got %" PetscInt_FMT, oi->inner_its);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode OuterIterationSetUp(OuterIteration oi, const Exchange *ex)
{
  PetscInt    *ilocal;
  PetscSFNode *iremote;

  PetscFunctionBegin;
  PetscCall(PetscSFDestroy(&oi->sf));
  oi->n_owned = ex->n_owned;
  oi->n_ghost = ex->n_ghost;
  PetscCall(PetscMalloc1(ex->n_ghost, &ilocal));
  PetscCall(PetscMalloc1(ex->n_ghost, &iremote));
  for (PetscInt g = 0; g < ex->n_ghost; g++) {
    ilocal[g]       = ex->n_owned + g;
    iremote[g].rank = ex->ghost_owner_rank[g];
    iremote[g].index = ex->ghost_owner_index[g];
  }
  PetscCall(PetscSFCreate(oi->comm, &oi->sf));
  PetscCall(PetscSFSetGraph(oi->sf, ex->n_owned, ex->n_ghost, ilocal, PETSC_OWN_POINTER, iremote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(oi->sf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Ghost -> owner sum, then owner -> ghost copy, of a per-body array with the given unit. */
static PetscErrorCode SumOverCopies(OuterIteration oi, MPI_Datatype unit, double *a)
{
  PetscFunctionBegin;
  PetscCall(PetscSFReduceBegin(oi->sf, unit, a, a, MPI_SUM));
  PetscCall(PetscSFReduceEnd(oi->sf, unit, a, a, MPI_SUM));
  PetscCall(PetscSFBcastBegin(oi->sf, unit, a, a, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(oi->sf, unit, a, a, MPI_REPLACE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EnsureArrays(OuterIteration oi, PetscInt nsolver)
{
  PetscFunctionBegin;
  if ((size_t)nsolver <= oi->cap) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree6(oi->share, oi->inv_mass_split, oi->inv_inertia_split, oi->vel_free_split, oi->contrib, oi->vel_local));
  oi->cap = (size_t)PetscMax(nsolver, 2 * (PetscInt)oi->cap);
  PetscCall(PetscMalloc6(oi->cap, &oi->share, oi->cap, &oi->inv_mass_split, 6 * oi->cap, &oi->inv_inertia_split, 6 * oi->cap, &oi->vel_free_split, 6 * oi->cap, &oi->contrib, 6 * oi->cap, &oi->vel_local));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The GUIDE residual over all ranks' contacts at the consolidated velocities. */
static PetscErrorCode GlobalResidual(OuterIteration oi, const CCPProblem *P, const double *v, double *res_max, double *res_rms)
{
  double   lmax, lrms, in[2], out[2], gmax;
  PetscInt n = P->ncontacts, gn;

  PetscFunctionBegin;
  ccp_residual(P, P->gamma, v, &lmax, &lrms);
  in[0] = lrms * lrms * n;
  in[1] = (double)n;
  PetscCallMPI(MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_SUM, oi->comm));
  PetscCallMPI(MPI_Allreduce(&lmax, &gmax, 1, MPI_DOUBLE, MPI_MAX, oi->comm));
  gn       = (PetscInt)out[1];
  *res_max = gmax;
  *res_rms = gn ? PetscSqrtReal(out[0] / gn) : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode OuterIterationSolve(OuterIteration oi, CCPSolver solver, CCPProblem *P, CCPSolveStats *stats)
{
  const PetscInt nlocal = oi->n_owned + oi->n_ghost, nsolver = P->nbodies;
  SolverType     type;
  double         tol;
  CCPProblem     Ps;
  CCPSolveStats  ls;

  PetscFunctionBegin;
  PetscCheck(oi->sf, oi->comm, PETSC_ERR_ARG_WRONGSTATE, "OuterIterationSolve: call OuterIterationSetUp after each ghost build");
  PetscCall(EnsureArrays(oi, nsolver));
  PetscCall(CCPSolverGetType(solver, &type));
  PetscCall(CCPSolverGetTolerance(solver, &tol));
  PetscCall(CCPSolverSetFromScenario(oi->local, type, oi->inner_its, 0.0));

  /* share_i: ranks with a contact on body i */
  for (PetscInt i = 0; i < nlocal; i++) oi->share[i] = 0;
  for (PetscInt c = 0; c < P->ncontacts; c++) {
    if (P->contact[c].a < nlocal) oi->share[P->contact[c].a] = 1;
    if (P->contact[c].b < nlocal) oi->share[P->contact[c].b] = 1;
  }
  PetscCall(SumOverCopies(oi, MPI_DOUBLE, oi->share));
  for (PetscInt i = 0; i < nsolver; i++) {
    const double k = i < nlocal ? PetscMax(oi->share[i], 1.0) : 1.0;
    oi->inv_mass_split[i] = k * P->inv_mass[i];
    for (int j = 0; j < 6; j++) oi->inv_inertia_split[6 * i + j] = k * P->inv_inertia[6 * i + j];
  }
  if ((size_t)P->ncontacts > oi->ccap) {
    PetscCall(PetscFree2(oi->eta_true, oi->eta_split));
    oi->ccap = (size_t)PetscMax(P->ncontacts, 2 * (PetscInt)oi->ccap);
    PetscCall(PetscMalloc2(oi->ccap, &oi->eta_true, oi->ccap, &oi->eta_split));
  }
  Ps             = *P;
  Ps.inv_mass    = oi->inv_mass_split;
  Ps.inv_inertia = oi->inv_inertia_split;
  Ps.vel_free    = oi->vel_free_split;
  Ps.vel         = oi->vel_local;
  for (PetscInt c = 0; c < P->ncontacts; c++) {
    oi->eta_true[c]  = P->contact[c].eta;
    oi->eta_split[c] = P->contact[c].dof / ccp_contact_trace(&Ps, c);
  }

  /* contributions of the warm start, summed over ranks: v = v_free + sum_r c_r */
  ccp_velocity_from_impulses(P, P->gamma, P->vel);
  for (PetscInt i = 0; i < 6 * nlocal; i++) oi->contrib[i] = P->vel[i] - P->vel_free[i];
  PetscCall(SumOverCopies(oi, oi->unit6, oi->contrib));
  for (PetscInt i = 0; i < 6 * nlocal; i++) P->vel[i] = P->vel_free[i] + oi->contrib[i];

  stats->iterations = 0;
  PetscCall(GlobalResidual(oi, P, P->vel, &stats->res_max, &stats->res_rms));
  while (stats->res_max > tol && stats->iterations < oi->max_outer) {
    /* this rank's own contribution, in split masses, taken out of the consolidated velocity */
    Ps.vel_free = P->vel_free;
    ccp_velocity_from_impulses(&Ps, P->gamma, oi->vel_local);
    Ps.vel_free = oi->vel_free_split;
    for (PetscInt i = 0; i < nsolver; i++)
      for (int j = 0; j < 6; j++) {
        const double own = oi->vel_local[6 * i + j] - P->vel_free[6 * i + j]; /* own contribution, split */
        oi->vel_free_split[6 * i + j] = (i < nlocal ? P->vel[6 * i + j] : P->vel_free[6 * i + j]) - own;
      }
    SetSteps(P, oi->eta_split);
    PetscCall(CCPSolverSolve(oi->local, &Ps, &ls));
    SetSteps(P, oi->eta_true);
    /* true-mass contribution of the new impulses: (split velocity change) / share */
    for (PetscInt i = 0; i < nlocal; i++) {
      const double k = PetscMax(oi->share[i], 1.0);
      for (int j = 0; j < 6; j++) oi->contrib[6 * i + j] = (oi->vel_local[6 * i + j] - oi->vel_free_split[6 * i + j]) / k;
    }
    PetscCall(SumOverCopies(oi, oi->unit6, oi->contrib));
    for (PetscInt i = 0; i < 6 * nlocal; i++) P->vel[i] = P->vel_free[i] + oi->contrib[i];
    stats->iterations++;
    PetscCall(GlobalResidual(oi, P, P->vel, &stats->res_max, &stats->res_rms));

  }
  for (PetscInt i = nlocal; i < nsolver; i++)
    for (int j = 0; j < 6; j++) P->vel[6 * i + j] = P->vel_free[6 * i + j]; /* walls */
  stats->converged = (PetscBool)(stats->res_max <= tol);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode OuterIterationDestroy(OuterIteration *oi)
{
  PetscFunctionBegin;
  if (!*oi) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscSFDestroy(&(*oi)->sf));
  PetscCallMPI(MPI_Type_free(&(*oi)->unit6));
  PetscCall(CCPSolverDestroy(&(*oi)->local));
  PetscCall(PetscFree6((*oi)->share, (*oi)->inv_mass_split, (*oi)->inv_inertia_split, (*oi)->vel_free_split, (*oi)->contrib, (*oi)->vel_local));
  PetscCall(PetscFree2((*oi)->eta_true, (*oi)->eta_split));
  PetscCall(PetscFree(*oi));
  PetscFunctionReturn(PETSC_SUCCESS);
}
