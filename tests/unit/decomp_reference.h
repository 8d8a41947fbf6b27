/* Reference geometry for the decomposition tests, written independently of decomp/domain.c:
 * the slab of a coordinate by a linear scan over the cuts the test itself set, the rank of a cell
 * and the cell of a rank by MPI's own Cartesian topology (MPI_Cart_rank / MPI_Cart_coords), and
 * distances by the textbook case analysis. Plus a CHECK macro that reports the rank. */
#ifndef CCPDEM_TEST_DECOMP_REFERENCE_H
#define CCPDEM_TEST_DECOMP_REFERENCE_H
#include "decomp/domain.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static int         failures  = 0;
static PetscMPIInt test_rank = 0;

/* Record a failed check with what was expected; the test continues so it reports every failure. */
#define CHECK(cond, ...) \
  do { \
    if (!(cond)) { \
      failures++; \
      printf("[rank %d] FAIL %s:%d: ", test_rank, __FILE__, __LINE__); \
      printf(__VA_ARGS__); \
      printf("\n"); \
      fflush(stdout); \
    } \
  } while (0)

/* Print on rank 0 only. */
#define SAY(...) \
  do { \
    if (test_rank == 0) { \
      printf(__VA_ARGS__); \
      fflush(stdout); \
    } \
  } while (0)

/* The grid as the test knows it: its own copy of the cuts. */
typedef struct {
  MPI_Comm comm; /* a communicator carrying the domain's Cartesian topology (RefSetComm) */
  PetscInt dims[3];
  double   lo[3], hi[3];
  double   cuts[3][65]; /* cuts[k][0 .. dims[k]] */
} RefGrid;

/* g->comm: MPI_Cart_create (non-periodic, reorder = 0) over the domain's ranks with the grid g->dims,
 * the numbering decomp/domain.h promises, built by MPI rather than by the domain. Call after
 * g->dims is set; the communicator lives to the end of the test (MPI_Finalize frees it). */
static inline PetscErrorCode RefSetComm(Domain d, RefGrid *g)
{
  MPI_Comm    comm;
  PetscMPIInt dims[3], periods[3] = {0, 0, 0};

  PetscFunctionBegin;
  PetscCall(DomainGetComm(d, &comm));
  for (int k = 0; k < 3; k++) dims[k] = (PetscMPIInt)g->dims[k];
  PetscCallMPI(MPI_Cart_create(comm, 3, dims, periods, 0, &g->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscInt RefSlab(const RefGrid *g, int k, double x)
{
  for (PetscInt i = g->dims[k] - 1; i > 0; i--)
    if (x >= g->cuts[k][i]) return i;
  return 0;
}

/* Owner of x: -1 outside the closed domain box (or NaN). */
static inline PetscErrorCode RefOwner(const RefGrid *g, const double x[3], PetscMPIInt *owner)
{
  PetscMPIInt c[3];

  PetscFunctionBegin;
  *owner = -1;
  for (int k = 0; k < 3; k++) {
    if (!(x[k] >= g->lo[k] && x[k] <= g->hi[k])) PetscFunctionReturn(PETSC_SUCCESS);
    c[k] = (PetscMPIInt)RefSlab(g, k, x[k]);
  }
  PetscCallMPI(MPI_Cart_rank(g->comm, c, owner));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode RefBox(const RefGrid *g, PetscMPIInt rank, double lo[3], double hi[3])
{
  PetscMPIInt c[3];

  PetscFunctionBegin;
  for (int k = 0; k < 3; k++) lo[k] = hi[k] = NAN; /* set on every path (an MPI error returns early) */
  PetscCallMPI(MPI_Cart_coords(g->comm, rank, 3, c));
  for (int k = 0; k < 3; k++) {
    lo[k] = g->cuts[k][c[k]];
    hi[k] = g->cuts[k][c[k] + 1];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether x is in rank's box by the ownership rule: half-open, closed at the domain's max. */
static inline int RefInBox(const RefGrid *g, const double lo[3], const double hi[3], const double x[3])
{
  for (int k = 0; k < 3; k++) {
    const int in = x[k] >= lo[k] && (x[k] < hi[k] || (x[k] == hi[k] && hi[k] == g->hi[k]));
    if (!in) return 0;
  }
  return 1;
}

/* Squared distance from point x to the box [lo, hi] (0 inside). */
static inline double RefPointBoxDist2(const double x[3], const double lo[3], const double hi[3])
{
  double d2 = 0;
  for (int k = 0; k < 3; k++) {
    double g = 0;
    if (x[k] < lo[k]) g = lo[k] - x[k];
    else if (x[k] > hi[k]) g = x[k] - hi[k];
    d2 += g * g;
  }
  return d2;
}

/* Squared distance between boxes [alo, ahi] and [blo, bhi] (0 when they touch or overlap). */
static inline double RefBoxBoxDist2(const double alo[3], const double ahi[3], const double blo[3], const double bhi[3])
{
  double d2 = 0;
  for (int k = 0; k < 3; k++) {
    double g = 0;
    if (bhi[k] < alo[k]) g = alo[k] - bhi[k];
    else if (blo[k] > ahi[k]) g = blo[k] - ahi[k];
    d2 += g * g;
  }
  return d2;
}

/* Sum the failures over the ranks; rank 0 prints the verdict. Returns the exit code. */
static inline int RefFinish(const char *name)
{
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, PETSC_COMM_WORLD);
  if (total) SAY("%s: %d check(s) FAILED\n", name, total);
  else SAY("%s: all checks passed\n", name);
  return total ? 1 : 0;
}

/* Whether every rank got the same integer. */
static inline int SameOnAllRanks(long long v)
{
  long long mn, mx;
  MPI_Allreduce(&v, &mn, 1, MPI_LONG_LONG, MPI_MIN, PETSC_COMM_WORLD);
  MPI_Allreduce(&v, &mx, 1, MPI_LONG_LONG, MPI_MAX, PETSC_COMM_WORLD);
  return mn == mx;
}
#endif
