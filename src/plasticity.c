/* The plastic return map after the solve (plasticity.h). */
#include "plasticity.h"

void PlasticityUpdate(const CCPProblem *P, const ContactPairs *cp)
{
  const double h = cp->h;
  if (!cp->yields) return; /* no pass over the contacts for nothing */
  for (PetscInt i = 0; i < P->ncontacts; i++) {
    Contact *c = &P->contact[i];
    if (c->box) continue;
    const PairParams *pp = contact_pair(cp, c);
    CCPContactTerms   t;
    double            u[6];
    if (!(pp->yield_force > 0)) continue;
    ccp_problem_terms(P, i, &t);
    ccp_contact_velocity(P, i, P->vel, u); /* u[0] = u_n + bn */
    const double overlap = -(c->phi + h * (u[0] - t.bn)), flow = overlap - pp->yield_force * pp->compliance;
    if (flow > c->plastic) c->plastic = flow;
  }
}
