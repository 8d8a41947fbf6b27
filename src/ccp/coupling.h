/* Coupling of one solve over several ranks (decomp/velocity_coupling.h provides it; CCPSolverSetCoupling
 * of ccp/solver.h sets it). Each rank passes its own contacts and its solver bodies (owned, ghosts,
 * walls); the methods then call:
 *   mark(ctx, v, stride)   before a pass that adds impulse contributions to the velocities v
 *                          (body i's 6 values at v + stride i): remember the ghosts' values;
 *   sum(ctx, v, stride)    after it: every copy of a shared body gets its value at the mark plus
 *                          the contributions added since by all ranks (the owner sums, in a fixed
 *                          order, then copies to the ghosts);
 *   reduce(ctx, x, n)      x[0 .. n-1) summed over ranks, x[n-1] the maximum (one Allreduce);
 *   owned(ctx)             the count of owned bodies (APGD sums over the bodies count each once).
 * With a coupling the solve is collective: every rank takes part in every iteration, whatever
 * its contacts, and the iterates are those of one solve of all contacts together (up to the
 * order of floating-point sums). Supported by the packed APGD and Jacobi methods.
 * All hooks NULL (the default) makes the solve local. The coupling must outlive the solves. */
#ifndef CCPDEM_CCP_COUPLING_H
#define CCPDEM_CCP_COUPLING_H
#include <petscsys.h>

typedef struct {
  void *ctx;
  PetscErrorCode (*mark)(void *ctx, const double *v, size_t stride);
  PetscErrorCode (*sum)(void *ctx, double *v, size_t stride);
  PetscErrorCode (*reduce)(void *ctx, double *x, int n);
  PetscInt (*owned)(void *ctx); /* how many of the solver bodies, from the first, this rank owns (the rest: ghosts,
                                   walls) */
} CCPCoupling;

/* The coupling's calls; each does nothing on a local solve (c's hooks NULL). Not collective when
 * local; collective over the coupling's ranks otherwise. */
static inline PetscErrorCode CCPCouplingMark(const CCPCoupling *c, const double *v, size_t stride)
{
  return c->mark ? c->mark(c->ctx, v, stride) : PETSC_SUCCESS;
}
static inline PetscErrorCode CCPCouplingSum(const CCPCoupling *c, double *v, size_t stride)
{
  return c->sum ? c->sum(c->ctx, v, stride) : PETSC_SUCCESS;
}
static inline PetscErrorCode CCPCouplingReduce(const CCPCoupling *c, double *x, int n)
{
  return c->reduce ? c->reduce(c->ctx, x, n) : PETSC_SUCCESS;
}
static inline PetscBool CCPCoupled(const CCPCoupling *c) { return (PetscBool)(c->sum != NULL); }
/* How many of the nbodies solver bodies this rank owns: the coupling's count, or all of them on a local solve. */
static inline PetscInt CCPCouplingOwned(const CCPCoupling *c, PetscInt nbodies)
{
  return CCPCoupled(c) ? c->owned(c->ctx) : nbodies;
}
#endif
