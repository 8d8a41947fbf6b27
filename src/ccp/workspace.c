/* The memory of a CCP solver's solves (ccp/workspace.h). */
#include "ccp/workspace.h"
#include "base/growth.h"
#include "ccp/kernels.h"

/* count vectors v[k] with room for n doubles each (contents not kept), sharing the capacity *cap. */
static PetscErrorCode EnsureVectors(double **v, int count, size_t *cap, size_t n)
{
  PetscFunctionBegin;
  if (n <= *cap) PetscFunctionReturn(PETSC_SUCCESS);
  *cap = GrowthCapacity(*cap, n);
  for (int k = 0; k < count; k++) {
    PetscCall(PetscFree(v[k]));
    PetscCall(PetscMalloc1(*cap, &v[k]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPWorkspaceEnsure(CCPWorkspace *w, const CCPProblem *P)
{
  PetscFunctionBegin;
  PetscCall(EnsureVectors(w->work_g, 6, &w->ngamma_cap, (size_t)CONTACT_DOF_MAX * P->ncontacts));
  PetscCall(EnsureVectors(w->work_v, 3, &w->nvel_cap, 6 * (size_t)P->nbodies));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPWorkspaceReferenceProblem(CCPWorkspace *w, const CCPProblem *P, CCPProblem *R)
{
  const size_t nb = (size_t)P->nbodies;

  PetscFunctionBegin;
  *R = *P;
  if (P->body) {
    if (nb > w->nbody_cap) {
      const size_t cap = GrowthCapacity(w->nbody_cap, nb);
      PetscCall(PetscFree3(w->ref_body[0], w->ref_body[1], w->ref_body[2]));
      PetscCall(PetscMalloc3(cap, &w->ref_body[0], 6 * cap, &w->ref_body[1], 6 * cap, &w->ref_body[2]));
      w->nbody_cap = cap;
    }
    for (size_t i = 0; i < nb; i++)
      ccp_problem_body(P, (PetscInt)i, w->ref_body[0] + i, w->ref_body[1] + 6 * i, w->ref_body[2] + 6 * i);
    R->body        = NULL;
    R->inv_mass    = w->ref_body[0];
    R->inv_inertia = w->ref_body[1];
    R->vel_free    = w->ref_body[2];
  }
  if ((size_t)P->ncontacts > w->nterms_cap) {
    const size_t cap = GrowthCapacity(w->nterms_cap, (size_t)P->ncontacts);
    PetscCall(PetscFree(w->ref_terms));
    PetscCall(PetscMalloc1(cap, &w->ref_terms));
    w->nterms_cap = cap;
  }
  for (PetscInt i = 0; i < R->ncontacts; i++) {
    const Contact   *c = &R->contact[i];
    const size_t     a = (size_t)c->a, b = (size_t)c->b;
    CCPContactTerms *t = &w->ref_terms[i];
    ccp_problem_terms(P, i, t);
    t->eta = ccp_contact_eta(c, t, R->inv_mass[a], R->inv_inertia + 6 * a, R->inv_mass[b], R->inv_inertia + 6 * b);
    PetscCall(CCPCheckEta(i, t->eta));
  }
  R->terms    = w->ref_terms;
  R->terms_fn = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPWorkspaceOutputVelocity(CCPWorkspace *w, PetscBool own_buffer, CCPProblem *P)
{
  const size_t bytes = 6 * sizeof(double) * (size_t)P->nbodies;

  PetscFunctionBegin;
  if (P->vel) PetscFunctionReturn(PETSC_SUCCESS);
  if (own_buffer) {
    PetscCall(PetscFree(w->vel_out));
    PetscCall(PetscMalloc(bytes + sizeof(double), &w->vel_out));
    P->vel = w->vel_out;
  } else PetscCall(ScratchPoolGet(&w->pk.vectors, SCRATCH_SOLVE_VELOCITIES, bytes, 0, (void **)&P->vel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPWorkspaceRelease(CCPWorkspace *w)
{
  PetscFunctionBegin;
  for (int k = 0; k < 6; k++) PetscCall(PetscFree(w->work_g[k]));
  for (int k = 0; k < 3; k++) PetscCall(PetscFree(w->work_v[k]));
  PetscCall(PetscFree3(w->ref_body[0], w->ref_body[1], w->ref_body[2]));
  PetscCall(PetscFree(w->ref_terms));
  w->ngamma_cap = w->nvel_cap = w->nbody_cap = w->nterms_cap = 0;
  PetscCall(CCPPackedDestroy(&w->pk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPWorkspaceDestroy(CCPWorkspace *w)
{
  PetscFunctionBegin;
  PetscCall(CCPWorkspaceRelease(w));
  PetscCall(PetscFree(w->vel_out));
  PetscFunctionReturn(PETSC_SUCCESS);
}
