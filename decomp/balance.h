/* Load balancing: the process grid and its cuts chosen from the bodies (a weighted work measure),
 * on the tensor-product grid of decomp/domain.h, so the ghost exchange keeps its Cartesian
 * neighbours.
 *
 * Cuts (as LAMMPS' "balance shift"): every cut axis' interior cuts move to the quantiles of the
 * owned bodies' work along that axis, so each slab holds the same share of it. Method: a histogram
 * of BALANCE_BINS bins per axis over the domain, summed over ranks (integer weights: exact, so every
 * rank computes the same cuts), the cut placed by linear interpolation in the bin where the
 * cumulative weight crosses j/p of the total, then pushed apart to the halo width (DomainSetHalo's
 * rule). The cuts of a tensor-product grid balance each axis' marginal distribution; the cells of a
 * 2-D or 3-D grid only as far as the distribution is separable, hence the grid choice below.
 * Recursive coordinate bisection (Zoltan) would balance cells exactly but breaks the Cartesian
 * neighbour structure the ghost exchange relies on.
 *
 * Grid (DomainPlan with choose_grid): every factorisation px * py * pz of the rank count that keeps
 * the counts fixed at creation (-decomp_grid) and whose uniform slabs are at least the halo wide is
 * a candidate; each gets its quantile cuts and is scored by the work of its cells, counted exactly
 * (one reduction for all candidates), and by its ghosts (bodies within the halo of an interior cut,
 * summed over the cut axes: the exchange's volume). The grid chosen is the one with the fewest
 * ghosts among those whose predicted imbalance (max / mean work per cell) is at most
 * max(BALANCE_GRID_ACCEPT, 1.02 x the best candidate's); the current grid is kept when it qualifies
 * and has at most 10% more ghosts than that one, so that grids do not alternate between rebalances.
 *
 * Work: a weight per owned body (NULL: 1 each). The time step (src/step/placement.c) gives each
 * body 2 units plus, per contact of this rank it takes part in, 2 units shared among the contact's
 * owned bodies, so a rank's weights sum to 2 x (owned bodies + contacts): the detection's and the
 * solver's work.
 *
 * Call between steps, before the bodies migrate; ExchangeMigrate (or the time step's migration) then
 * moves the bodies to their new owners. Collective. */
#ifndef CCPDEM_DECOMP_BALANCE_H
#define CCPDEM_DECOMP_BALANCE_H
#include "bodies/body_store.h"
#include "decomp/domain.h"

#define BALANCE_BINS        4096
#define BALANCE_GRID_ACCEPT 1.05 /* predicted imbalance a grid may have and still be chosen for fewer ghosts */

typedef struct {
  PetscBool fits;      /* some grid fits the halo w (else nothing changed) */
  PetscBool moved;     /* some cut moved, or the grid changed */
  PetscBool regridded; /* the grid changed (the neighbours of every rank may have changed) */
  double    predicted; /* max / mean work per cell of the grid chosen, with its cuts (1 with no work) */
  PetscInt  dims[3];   /* the grid chosen */
} DomainPlanResult;

/* Choose the cuts (and with choose_grid the grid) for the owned bodies of s (s->pos of the first
 * s->n_owned, weight[i] >= 0 each or NULL) with halo w (>= the domain's halo; every slab is kept at
 * least w wide) and install them on d. Collective; the same result on every rank. */
PetscErrorCode DomainPlan(Domain d, const BodyStore *s, const PetscInt weight[], PetscBool choose_grid, double w,
                          DomainPlanResult *r);
/* DomainPlan on the current grid with unit weights and the domain's halo. *moved: whether a cut moved. */
PetscErrorCode DomainBalance(Domain d, const BodyStore *s, PetscBool *moved);
/* max / mean of the owned bodies over ranks (1 when there are none). Collective. */
PetscErrorCode DomainImbalance(Domain d, PetscInt n_owned, double *imbalance);
#endif
