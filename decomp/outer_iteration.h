/* The distributed CCP solve: a block-Jacobi outer iteration over ranks with mass splitting.
 *
 * Each rank holds the contacts it owns (collision.h: the owner of body A keeps them) and the bodies
 * they touch (owned and ghosts). A body touched by contacts on k ranks is shared: plain block-Jacobi
 * would let all k ranks correct the same velocity error at once and over-correct, so each rank's
 * local problem sees the body with its inverse mass and inertia multiplied by k (mass splitting,
 * Tonge et al. 2012): the k copies then each take 1/k of the correction, and averaging the copies
 * equals summing the true-mass impulse contributions of all ranks. Per outer iteration:
 *   local sweeps on the owned contacts with every other rank's contributions frozen;
 *   contributions c_r = M^-1 D_r gamma_r of ghosts summed on their owners (PetscSF reduce, ADD);
 *   v = v_free + sum_r c_r sent back to the ghosts (PetscSF broadcast);
 *   the GUIDE residual at v over all contacts (one Allreduce).
 * Velocities and contributions live in arrays of 6 doubles per body in storage order (owned, then
 * ghosts), the layout of the PetscSF whose roots are the owned bodies and leaves the ghosts. */
#ifndef CCPDEM_OUTER_ITERATION_H
#define CCPDEM_OUTER_ITERATION_H
#include "ccp_solver.h"
#include "exchange.h"

typedef struct _p_OuterIteration *OuterIteration;

PetscErrorCode OuterIterationCreate(MPI_Comm comm, OuterIteration *oi);
/* -outer_max_it (default 1000), -outer_inner_its (sweeps per outer iteration, default 10). The
 * tolerance and the local method come from the main solver (-ccp_tol, -ccp_type). */
PetscErrorCode OuterIterationSetFromOptions(OuterIteration oi);
/* Build the communication graph from the ghost maps of the last ExchangeBuildGhosts. Collective. */
PetscErrorCode OuterIterationSetUp(OuterIteration oi, const Exchange *ex);
/* Solve P (true masses; solver bodies: n_owned + n_ghost bodies, then walls; contacts: the ones this
 * rank owns; gamma: warm start) to the tolerance of `solver`. On return gamma is this rank's
 * impulses, P->vel the consolidated velocities v = v_free + sum over ranks of M^-1 D gamma, and
 * stats the global residual (max, RMS over all contacts of all ranks) and the outer iteration
 * count. Collective. */
PetscErrorCode OuterIterationSolve(OuterIteration oi, CCPSolver solver, CCPProblem *P, CCPSolveStats *stats);
PetscErrorCode OuterIterationDestroy(OuterIteration *oi);
#endif
