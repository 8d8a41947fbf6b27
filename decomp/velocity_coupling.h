/* The distributed CCP solve: one global iteration over all ranks' contacts (the ccp/solver.h
 * coupling), rather than local solves glued by an outer block-Jacobi loop.
 *
 * Each rank holds the contacts it owns (collision/detect.h: the owner of the lower-id body keeps them),
 * its owned bodies and the ghosts those contacts touch. Every iteration of the method (APGD or
 * Jacobi) is one pass over the rank's own contacts (the block-Jacobi sweep of the issue, one
 * sweep per block), then
 *   reverse scatter ADD: the impulse contributions a rank added to its ghosts during the pass are
 *     summed on their owners (PetscSF reduce, MPI_SUM; roots = owned bodies, leaves = ghosts,
 *     6 doubles a body, the layout of a ghosted block vector of block size 6);
 *   forward scatter: the owners' velocities copied to the ghosts (PetscSF broadcast);
 *   one Allreduce of the method's scalars (APGD's step and restart tests, the GUIDE residual).
 * (APGD sums impulses in a body accumulator the same way, and every rank then makes the velocities
 * of its owned bodies and ghosts from them, the same numbers on every copy; its sums over bodies
 * count the owned ones only: the hooks' `owned`.)
 * The iterates are then those of the 1-rank method on the union of the contacts, up to the order
 * of floating-point sums: the iteration count does not grow with the rank count and no damping
 * or mass splitting is needed.
 *
 * Why not the mass-split block-Jacobi (Tonge et al. 2012) with several local sweeps per outer
 * iteration: measured on a 512-sphere box at 2 ranks it stalled at a residual of 2.5e-2 m/s after
 * 1000 outer iterations of 10 local APGD sweeps, and at 1.4e-4 m/s with 100 local sweeps, where
 * one rank reaches 1e-8 m/s in 1805 APGD iterations; local sweeps cannot see the other ranks'
 * momentum and APGD's acceleration is lost at every outer restart. Communication per iteration
 * is the price: two neighbour messages and one 32-byte Allreduce.
 *
 * Determinism: the SF sums in a fixed order (PetscSF unpacks by rank, not by arrival) and the
 * Allreduce of a fixed rank count runs a fixed algorithm, so runs on the same ranks are bitwise
 * identical. */
#ifndef CCPDEM_DECOMP_VELOCITY_COUPLING_H
#define CCPDEM_DECOMP_VELOCITY_COUPLING_H
#include "ccp/solver.h"
#include "decomp/ghosts.h"

typedef struct _p_VelocityCoupling *VelocityCoupling;

/* Communication counters since VelocityCouplingResetStats, this rank. */
typedef struct {
  PetscInt64 bytes_sent; /* velocity messages and Allreduce payloads */
  PetscInt   sums;       /* velocity sums (one per pass) */
  PetscInt   reductions; /* Allreduces */
  double     seconds;    /* wall time inside the communication calls */
} CouplingStats;

PetscErrorCode VelocityCouplingCreate(MPI_Comm comm, VelocityCoupling *vc);
PetscErrorCode VelocityCouplingDestroy(VelocityCoupling *vc);
/* Build the communication graph from the ghost maps of the last ExchangeBuildGhosts (valid until
 * the next build). Collective. */
PetscErrorCode VelocityCouplingSetUp(VelocityCoupling vc, const Exchange *ex);
/* The hooks to pass to CCPSolverSetCoupling (ctx = vc). */
PetscErrorCode VelocityCouplingGetHooks(VelocityCoupling vc, CCPCoupling *hooks);
PetscErrorCode VelocityCouplingGetStats(VelocityCoupling vc, CouplingStats *st);
PetscErrorCode VelocityCouplingResetStats(VelocityCoupling vc);
#endif
