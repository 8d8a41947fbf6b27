/* Unit test of the load balancer (decomp/balance.c) at any rank count, on a p x 1 x 1 grid over the
 * unit cube. 20000 bodies with x = u^(1/3) (density 3 x^2: the last slab of uniform cuts holds
 * most of them) and y, z uniform; u, y, z are hashes of the id, so the set does not depend on the
 * rank count. Checks:
 *   - after DomainBalance the interior cuts are the analytic quantiles (j/p)^(1/3) within 0.01
 *     (sampling error of a quantile of 20000 draws ~0.002, histogram bin 1/4096);
 *   - after migrating to those cuts the imbalance (max/mean owned bodies) is at most 1.01, and it
 *     was worse before (p >= 2; at p = 2 exactly 2 x 7/8 = 1.75);
 *   - with a halo of 0.2 (p >= 3), cuts that the quantiles would put closer are pushed apart:
 *     every slab at least 0.2 wide, and the cuts the same on every rank (DomainSetCuts checks);
 *   - a second DomainBalance on the balanced bodies moves nothing by more than a bin. */
// ctest: labels=decomp timeout=60 ranks=2;3;4;8
#include "decomp/balance.h"
#include "decomp/migration.h"
#include "test_check.h"
#include <math.h>

#define N_BODIES 20000

static double Hash01(int64_t id, int salt)
{
  uint64_t z = (uint64_t)id * 0x9E3779B97F4A7C15ull + (uint64_t)salt * 0xD1B54A32D192ED03ull + 0x632BE59BD9B4E019ull;
  z          = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z          = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (double)((z ^ (z >> 31)) >> 11) * 0x1p-53;
}

/* This rank's share of the bodies (ids = rank mod size), anywhere in the cube. */
static PetscErrorCode MakeBodies(BodyStore *s, PetscMPIInt rank, PetscMPIInt size)
{
  PetscFunctionBegin;
  for (int64_t id = rank; id < N_BODIES; id += size) {
    BodyRecord b;
    memset(&b, 0, sizeof(b));
    b.id[0]     = id;
    b.pos[0]    = cbrt(Hash01(id, 1));
    b.pos[1]    = Hash01(id, 2);
    b.pos[2]    = Hash01(id, 3);
    b.quat[0]   = 1;
    b.mass[0]   = 1;
    b.radius[0] = 0.001;
    PetscCall(BodyStoreAppendOwned(s, &b));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Run(double halo)
{
  const double   lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  const PetscInt grid_in[3] = {0, 1, 1};
  PetscMPIInt    rank, size;
  Domain         d;
  BodyStore      s;
  PetscBool      moved;
  double         before, after;
  const double  *cuts;
  double         again[65];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(DomainCreate(PETSC_COMM_WORLD, lo, hi, grid_in, &d));
  PetscCall(DomainSetHalo(d, halo));
  PetscCall(BodyStoreCreate(&s));
  PetscCall(MakeBodies(&s, rank, size));
  PetscCall(ExchangeMigrate(d, &s, NULL, NULL));
  PetscCall(DomainImbalance(d, s.n_owned, &before));
  PetscCall(DomainBalance(d, &s, &moved));
  PetscCall(ExchangeMigrate(d, &s, NULL, NULL));
  PetscCall(DomainImbalance(d, s.n_owned, &after));
  PetscCall(DomainGetCuts(d, 0, &cuts));
  if (halo <= 0.01) {
    for (PetscMPIInt j = 1; j < size; j++) {
      const double q = cbrt((double)j / size);
      CHECK(fabs(cuts[j] - q) < 0.01, "halo %g: cut %d at %.5f, quantile %.5f", halo, j, cuts[j], q);
    }
    CHECK(after <= 1.01, "halo %g: imbalance %.4f after balancing (> 1.01)", halo, after);
    CHECK(size == 1 || (after < before && moved), "halo %g: imbalance %.4f before, %.4f after balancing", halo, before,
          after);
  }
  for (PetscMPIInt j = 0; j < size; j++)
    CHECK(cuts[j + 1] - cuts[j] >= halo, "halo %g: slab %d is %.5f wide", halo, j, cuts[j + 1] - cuts[j]);
  for (PetscMPIInt j = 0; j <= size; j++) again[j] = cuts[j];
  PetscCall(DomainBalance(d, &s, &moved));
  PetscCall(DomainGetCuts(d, 0, &cuts));
  for (PetscMPIInt j = 0; j <= size; j++)
    CHECK(fabs(cuts[j] - again[j]) <= 1.0 / BALANCE_BINS, "halo %g: rebalancing moved cut %d from %.6f to %.6f", halo,
          j, again[j], cuts[j]);
  if (!rank)
    printf("  halo %g, %d ranks: imbalance %.4f with uniform cuts, %.4f after balancing\n", halo, size, before, after);
  PetscCall(BodyStoreDestroy(&s));
  PetscCall(DomainDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscMPIInt size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size <= 64, PETSC_COMM_WORLD, PETSC_ERR_SUP, "at most 64 ranks");
  PetscCall(Run(0.001));
  if (size >= 3 && size <= 4) PetscCall(Run(0.2));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
  if (!failures) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "load balancing: all checks passed\n"));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
