/* See ccp/pairs.h. */
#include "ccp/pairs.h"

PetscErrorCode ContactPairTableCreate(const Material *materials, int n, PairParams **table, PetscBool *yields)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc1((size_t)n * n + 1, table));
  *yields = PETSC_FALSE;
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++) {
      material_pair(&materials[a], &materials[b], &(*table)[a * n + b]);
      if ((*table)[a * n + b].yield_force > 0) *yields = PETSC_TRUE;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

void contact_pairs_terms(void *ctx, const Contact *c, CCPContactTerms *t)
{
  const ContactPairs *cp = (const ContactPairs *)ctx;
  contact_law_terms(c, contact_pair(cp, c), cp->h, cp->v_recover, cp->overlap_tolerance, cp->split, t);
}
