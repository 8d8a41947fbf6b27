/* The plastic return map after the solve (plasticity.h). */
#include "plasticity.h"

void PlasticityUpdate(const CCPProblem *P, double h)
{
  for (PetscInt i = 0; i < P->ncontacts; i++) {
    Contact *c = &P->contact[i];
    double   u[6];
    if (c->box || !(c->yield_force > 0)) continue;
    ccp_contact_velocity(P, i, P->vel, u); /* u[0] = u_n + bn */
    const double overlap = -(c->phi + h * (u[0] - c->bn)), flow = overlap - c->yield_force * c->compliance;
    if (flow > c->plastic) c->plastic = flow;
  }
}
