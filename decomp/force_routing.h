/* Penalty contact loads summed on the bodies' owners in a fixed order, whatever the rank count.
 *
 * A contact is computed by the owner of its body A (collision/detect.h); its body B may be a ghost there,
 * whose load must reach B's owner. ExchangeReduceArray would add the ghost sums in neighbour order,
 * which differs between rank counts. Here each load on a ghost travels with its contact key to the
 * owner, which sums every load of each owned body in contact key order from zero: the order a
 * one-rank run sums in (PenaltyContactLoads), so the sums are bitwise the same on any rank count.
 *
 * Pre: ex was built on the store the contacts were detected on (contact solver indices below
 * n_owned + n_ghost are storage indices; walls from there on); body A of every contact is owned.
 * Post: acc[6 k ..] = force and torque on owned body k (k < n_owned). Collective. */
#ifndef CCPDEM_DECOMP_FORCE_ROUTING_H
#define CCPDEM_DECOMP_FORCE_ROUTING_H
#include "contact/contact_set.h"
#include "decomp/ghosts.h"

PetscErrorCode ForceRoutingSum(Domain d, const Exchange *ex, const ContactSet *cs, const double load[], double acc[],
                               PetscInt64 *bytes_sent);
#endif
