/* The position pass of contact.overlap_correction position (ccp/overlap_correction.h). */
#include "ccp/overlap_correction.h"
#include "ccp/kernels.h"
#include <string.h>

struct _p_OverlapCorrection {
  CCPSolver        solver;  /* the pass's own: its pool is not the velocity solve's */
  PetscInt         n, cap;  /* the pass's contacts, and the room of the arrays below */
  Contact         *contact; /* the velocity problem's contacts, frictionless, phi the gap after the step */
  CCPContactTerms *terms;   /* their b_n and C */
  double          *gamma;   /* CONTACT_DOF_MAX per contact: cold start in, pseudo-impulses out */
};

PetscErrorCode OverlapCorrectionCreate(MPI_Comm comm, SolverType type, PetscInt max_it, double tol,
                                       OverlapCorrection *oc)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(oc));
  PetscCall(CCPSolverCreate(comm, &(*oc)->solver));
  PetscCall(CCPSolverSetFromScenario((*oc)->solver, type, max_it, tol));
  PetscCall(CCPSolverSetFromOptions((*oc)->solver));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode OverlapCorrectionSetCoupling(OverlapCorrection oc, const CCPCoupling *coupling)
{
  PetscFunctionBegin;
  PetscCall(CCPSolverSetCoupling(oc->solver, coupling));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode OverlapCorrectionForm(OverlapCorrection oc, const CCPProblem *P, const ContactPairs *cp, PetscBool *push)
{
  const double h = cp->h;

  PetscFunctionBegin;
  if (P->ncontacts > oc->cap) {
    PetscCall(PetscFree3(oc->contact, oc->terms, oc->gamma));
    oc->cap = P->ncontacts;
    PetscCall(PetscMalloc3(oc->cap, &oc->contact, oc->cap, &oc->terms, (size_t)CONTACT_DOF_MAX * oc->cap, &oc->gamma));
  }
  *push = PETSC_FALSE;
  oc->n = 0;
  for (PetscInt i = 0; i < P->ncontacts; i++) {
    const Contact *c = &P->contact[i];
    if (c->box) continue; /* a joint's rows hold their own drift */
    const PairParams *pp = contact_pair(cp, c);
    Contact          *k  = &oc->contact[oc->n];
    CCPContactTerms  *t  = &oc->terms[oc->n];
    double            u[6], ima, imb;
    ccp_contact_relative_velocity(P, i, P->vel, u);
    *k         = *c;
    k->phi     = c->phi + c->plastic + h * u[0]; /* the elastic gap the step leaves */
    k->plastic = 0;
    k->mu = k->rho = k->sigma = 0;
    memset(t, 0, sizeof(*t));
    if (k->phi >= 0) t->bn = k->phi / h;
    else if (pp->compliance == 0) t->bn = contact_law_recovery(k->phi, h, cp->v_recover, cp->overlap_tolerance);
    ccp_problem_body(P, c->a, &ima, NULL, NULL);
    ccp_problem_body(P, c->b, &imb, NULL, NULL);
    t->c_lin = OVERLAP_CORRECTION_REGULARIZATION * (ima + imb);
    if (t->bn < 0) *push = PETSC_TRUE;
    memset(ccp_block(oc->gamma, oc->n), 0, CONTACT_DOF_MAX * sizeof(double));
    oc->n++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A CCPBodyFn over the velocity problem (ctx): its bodies' inverse mass and inertia, free velocity zero. */
static void PseudoBody(void *ctx, PetscInt i, double *inv_mass, double inv_inertia[6], double vel_free[6])
{
  ccp_problem_body((const CCPProblem *)ctx, i, inv_mass, inv_inertia, NULL);
  if (vel_free) memset(vel_free, 0, 6 * sizeof(double));
}

PetscErrorCode OverlapCorrectionSolve(OverlapCorrection oc, const CCPProblem *P, CCPSolveStats *stats, const double **w)
{
  CCPProblem Q = {.nbodies   = P->nbodies,
                  .body      = PseudoBody,
                  .body_ctx  = (void *)P,
                  .ncontacts = oc->n,
                  .contact   = oc->contact,
                  .gamma     = oc->gamma,
                  .terms     = oc->terms};

  PetscFunctionBegin;
  PetscCall(CCPSolverSolve(oc->solver, &Q, stats));
  *w = Q.vel;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode OverlapCorrectionDestroy(OverlapCorrection *oc)
{
  PetscFunctionBegin;
  if (!*oc) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(CCPSolverDestroy(&(*oc)->solver));
  PetscCall(PetscFree3((*oc)->contact, (*oc)->terms, (*oc)->gamma));
  PetscCall(PetscFree(*oc));
  PetscFunctionReturn(PETSC_SUCCESS);
}
