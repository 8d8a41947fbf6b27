/* Load balancing by cut shifting (as LAMMPS' "balance shift" on a Cartesian grid): every cut axis'
 * interior cuts move to the quantiles of the owned bodies' centres along that axis, so each slab
 * holds the same share of the bodies.
 *
 * Work measure: owned bodies. The solve costs per contact and detection per body; in a dense pack
 * the contacts per body are nearly uniform (6-12), and a body count needs no per-contact
 * positions, so bodies it is. Imbalance = max over ranks / mean of owned bodies.
 *
 * Method: a histogram of BALANCE_BINS bins per axis over the domain, summed over ranks (integer
 * counts: exact, so every rank computes the same cuts), the cut placed by linear interpolation in
 * the bin where the cumulative count crosses j/p of the total, then pushed apart to the halo width
 * (DomainSetHalo's rule). The cuts of a tensor-product grid balance each axis' marginal
 * distribution; cells of a 3-D grid are balanced as far as the distribution is separable (a heap
 * on a 2 x 2 grid is, by symmetry). Recursive coordinate bisection (Zoltan) would balance cells
 * exactly but breaks the Cartesian neighbour structure the ghost exchange relies on.
 *
 * Call between steps, before the bodies migrate (the time step does it every -balance_interval
 * steps); ExchangeMigrate then moves the bodies to their new owners. Collective. */
#ifndef CCPDEM_DECOMP_BALANCE_H
#define CCPDEM_DECOMP_BALANCE_H
#include "bodies/body_store.h"
#include "decomp/domain.h"

#define BALANCE_BINS 4096

/* Move the cuts of every cut axis to the owned bodies' quantiles. *moved: whether any cut moved. */
PetscErrorCode DomainBalance(Domain d, const BodyStore *s, PetscBool *moved);
/* max / mean of the owned bodies over ranks (1 when there are none). Collective. */
PetscErrorCode DomainImbalance(Domain d, PetscInt n_owned, double *imbalance);
#endif
