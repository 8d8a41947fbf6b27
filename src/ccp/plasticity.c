/* The plastic return map after the solve (ccp/plasticity.h). */
#include "ccp/plasticity.h"

void PlasticityUpdate(const CCPProblem *P, const ContactPairs *cp)
{
  const double h = cp->h;
  if (!cp->yields) return; /* no pass over the contacts for nothing */
  for (PetscInt i = 0; i < P->ncontacts; i++) {
    Contact *c = &P->contact[i];
    if (c->box) continue;
    const PairParams *pp = contact_pair(cp, c);
    double            u[6], bn, c_lin;
    if (!(pp->yield_force > 0)) continue;
    contact_law_normal(c, pp, h, cp->v_recover, cp->overlap_tolerance, cp->split, &bn,
                       &c_lin); /* the solve's bn (contact_pairs_terms) */
    ccp_contact_relative_velocity(P, i, P->vel, u);
    u[0] += bn; /* u_n + bn, then less bn: the rounding of the row's velocity the solve saw */
    const double overlap = -(c->phi + h * (u[0] - bn)), flow = overlap - pp->yield_force * pp->compliance;
    if (flow > c->plastic) c->plastic = flow;
  }
}
