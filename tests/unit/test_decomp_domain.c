/* Unit test of the process grid (decomp/domain.c) at any rank count, against the independent
 * reference geometry of decomp_reference.h (linear scans over the test's own cuts, MPI's own
 * Cartesian rank <-> cell maps):
 *   - the default grid is MPI_Dims_create's, the cuts start uniform, an explicit grid and the
 *     -decomp_grid option are obeyed, and a grid that does not match the rank count is rejected
 *     on every rank with a message naming both counts;
 *   - ownership is a partition, with uniform and with non-uniform cuts: for random points, the cut
 *     nodes themselves (faces, edges, corners of subdomains and domain) and points just outside,
 *     exactly one rank's box contains each point of the closed domain (half-open rule), none
 *     contains a point outside, and DomainOwnerOfPoint names that rank (-1 outside or NaN);
 *     the subdomain boxes are the reference boxes and their volumes add up to the domain's;
 *   - DomainRanksNearPoint and DomainGetNeighbors equal brute force over all ranks' boxes, for
 *     radii below and well above the slab widths;
 *   - the halo rule: a slab thinner than w fails DomainCheckHalo with the same verdict and message
 *     on every rank, and DomainSetHalo / DomainSetCuts raise it on every rank without hanging;
 *     bad cuts (not increasing, wrong ends, different on different ranks) are rejected.
 * Membership tests are exact: the reference evaluates the same closed-form distance, and random
 * coordinates make a tie with the radius practically impossible. */
// ctest: labels=decomp timeout=60 ranks=2;3;4;8
#include "decomp_reference.h"

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static double   urand(void) /* [0, 1), splitmix64: the same sequence on every rank */
{
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z          = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z          = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (double)((z ^ (z >> 31)) >> 11) * 0x1p-53;
}

static const double LO[3] = {-1.0, -0.5, 0.0}, HI[3] = {1.0, 0.7, 2.5};

/* Run f with PETSc's errors returned instead of printed; *err = its code. */
#define TRY(err, call) \
  do { \
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); \
    *(err) = (call); \
    PetscCall(PetscPopErrorHandler()); \
  } while (0)

/* The specific message of the last error, or "" if PETSc does not keep it. */
static const char *LastErrorText(PetscErrorCode err)
{
  const char *text;
  char       *specific = NULL;
  if (PetscErrorMessage(err, &text, &specific) || !specific) return "";
  return specific;
}

static PetscErrorCode RefFromDomain(Domain d, RefGrid *g)
{
  PetscFunctionBegin;
  PetscCall(DomainGetGrid(d, g->dims));
  PetscCall(RefSetComm(d, g));
  for (int k = 0; k < 3; k++) {
    g->lo[k] = LO[k];
    g->hi[k] = HI[k];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void UniformCuts(RefGrid *g)
{
  for (int k = 0; k < 3; k++) {
    for (PetscInt i = 0; i <= g->dims[k]; i++) g->cuts[k][i] = LO[k] + (HI[k] - LO[k]) * (double)i / (double)g->dims[k];
    g->cuts[k][g->dims[k]] = HI[k];
  }
}

/* Non-uniform cuts: slab widths proportional to 1, 2.5, 1.5, 1, 2.5, 1.5, ... */
static void UnevenCuts(RefGrid *g)
{
  static const double weight[3] = {1.0, 2.5, 1.5};
  for (int k = 0; k < 3; k++) {
    double total = 0, acc = 0;
    for (PetscInt i = 0; i < g->dims[k]; i++) total += weight[i % 3];
    g->cuts[k][0] = LO[k];
    for (PetscInt i = 1; i < g->dims[k]; i++) {
      acc += weight[(i - 1) % 3];
      g->cuts[k][i] = LO[k] + (HI[k] - LO[k]) * acc / total;
    }
    g->cuts[k][g->dims[k]] = HI[k];
  }
}

/* Ownership partition and boxes, for the cuts in g (already set on d). */
static PetscErrorCode CheckPartition(Domain d, const RefGrid *g, const char *what)
{
  PetscMPIInt rank, size;
  double      mylo[3], myhi[3], vol = 0, dvol = 1;
  PetscInt    npts = 0, cap, bad_count = 0, bad_owner = 0, bad_box = 0;
  double     *pts;
  int        *mine, *count, *claim, *gclaim;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(g->comm, &rank));
  PetscCallMPI(MPI_Comm_size(g->comm, &size));
  /* boxes: equal to the reference, volumes add up */
  for (PetscMPIInt r = 0; r < size; r++) {
    double lo[3], hi[3], rlo[3], rhi[3];
    PetscCall(DomainSubdomainBox(d, r, lo, hi));
    PetscCall(RefBox(g, r, rlo, rhi));
    for (int k = 0; k < 3; k++)
      if (lo[k] != rlo[k] || hi[k] != rhi[k]) bad_box++;
    vol += (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
  }
  for (int k = 0; k < 3; k++) dvol *= HI[k] - LO[k];
  CHECK(bad_box == 0, "%s: %d subdomain box bounds differ from the reference", what, (int)bad_box);
  /* 1e-12 relative: the sum of up to 8 box volumes, each a product of 3 differences (rounding ~1e-16 each) */
  CHECK(PetscAbsReal(vol - dvol) <= 1e-12 * dvol, "%s: subdomain volumes add up to %.17g, domain volume %.17g", what,
        vol, dvol);

  /* points: random in a box 10% larger than the domain, every cut node, and just outside the faces */
  cap = 3000 + (g->dims[0] + 1) * (g->dims[1] + 1) * (g->dims[2] + 1) + 7;
  PetscCall(PetscMalloc4(3 * cap, &pts, cap, &mine, cap, &count, 2 * cap, &claim));
  PetscCall(PetscMalloc1(2 * cap, &gclaim));
  for (PetscInt n = 0; n < 3000; n++, npts++)
    for (int k = 0; k < 3; k++) pts[3 * npts + k] = LO[k] - 0.1 * (HI[k] - LO[k]) + 1.2 * (HI[k] - LO[k]) * urand();
  for (PetscInt i = 0; i <= g->dims[0]; i++)
    for (PetscInt j = 0; j <= g->dims[1]; j++)
      for (PetscInt l = 0; l <= g->dims[2]; l++, npts++) {
        pts[3 * npts + 0] = g->cuts[0][i];
        pts[3 * npts + 1] = g->cuts[1][j];
        pts[3 * npts + 2] = g->cuts[2][l];
      }
  for (int k = 0; k < 3; k++) { /* one ulp outside the low and the high face */
    double x[3] = {0.5 * (LO[0] + HI[0]), 0.5 * (LO[1] + HI[1]), 0.5 * (LO[2] + HI[2])};
    x[k]        = nextafter(LO[k], -INFINITY);
    PetscCall(PetscArraycpy(pts + 3 * npts++, x, 3));
    x[k] = nextafter(HI[k], INFINITY);
    PetscCall(PetscArraycpy(pts + 3 * npts++, x, 3));
  }
  pts[3 * npts + 0] = NAN, pts[3 * npts + 1] = 0, pts[3 * npts + 2] = 0, npts++;

  PetscCall(RefBox(g, rank, mylo, myhi));
  for (PetscInt n = 0; n < npts; n++) {
    mine[n]          = RefInBox(g, mylo, myhi, pts + 3 * n);
    claim[2 * n]     = mine[n] ? rank : -1;                /* max -> the claiming rank */
    claim[2 * n + 1] = DomainOwnerOfPoint(d, pts + 3 * n); /* must agree on every rank */
  }
  PetscCallMPI(MPI_Allreduce(mine, count, (PetscMPIInt)npts, MPI_INT, MPI_SUM, g->comm));
  PetscCallMPI(MPI_Allreduce(claim, gclaim, 2 * (PetscMPIInt)npts, MPI_INT, MPI_MAX, g->comm));
  for (PetscInt n = 0; n < npts; n++) {
    PetscMPIInt ref;
    const int   inside = pts[3 * n] >= LO[0] && pts[3 * n] <= HI[0] && pts[3 * n + 1] >= LO[1] &&
                       pts[3 * n + 1] <= HI[1] && pts[3 * n + 2] >= LO[2] && pts[3 * n + 2] <= HI[2];
    PetscCall(RefOwner(g, pts + 3 * n, &ref));
    if (count[n] != (inside ? 1 : 0)) {
      if (bad_count++ < 3)
        printf("[rank %d]   %s: point (%g, %g, %g) is in %d boxes\n", rank, what, pts[3 * n], pts[3 * n + 1],
               pts[3 * n + 2], count[n]);
    }
    if (claim[2 * n + 1] != (inside ? gclaim[2 * n] : -1) || claim[2 * n + 1] != ref ||
        gclaim[2 * n + 1] != claim[2 * n + 1]) {
      if (bad_owner++ < 3)
        printf("[rank %d]   %s: point (%g, %g, %g): DomainOwnerOfPoint %d, box holder %d, reference %d\n", rank, what,
               pts[3 * n], pts[3 * n + 1], pts[3 * n + 2], claim[2 * n + 1], gclaim[2 * n], ref);
    }
  }
  CHECK(bad_count == 0, "%s: %d of %d points are not in exactly one box (inside) / no box (outside)", what,
        (int)bad_count, (int)npts);
  CHECK(bad_owner == 0, "%s: DomainOwnerOfPoint disagrees with the box holder or the reference for %d of %d points",
        what, (int)bad_owner, (int)npts);
  SAY("%s: %d points (%d cut nodes) each owned by exactly one rank; boxes tile the domain\n", what, (int)npts,
      (int)((g->dims[0] + 1) * (g->dims[1] + 1) * (g->dims[2] + 1)));
  PetscCall(PetscFree4(pts, mine, count, claim));
  PetscCall(PetscFree(gclaim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* DomainRanksNearPoint and DomainGetNeighbors against brute force over all boxes. */
static PetscErrorCode CheckNearQueries(Domain d, const RefGrid *g, const char *what)
{
  const double radii[4] = {1e-9, 0.05, 0.3, 1.5};
  PetscMPIInt  rank, size, *got, *want;
  double       mylo[3], myhi[3];
  PetscInt     bad = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(g->comm, &rank));
  PetscCallMPI(MPI_Comm_size(g->comm, &size));
  PetscCall(PetscMalloc2(size, &got, size, &want));
  for (int ir = 0; ir < 4; ir++) {
    const double r = radii[ir];
    for (int n = 0; n < 300; n++) {
      double   x[3];
      PetscInt ngot, nwant = 0;
      for (int k = 0; k < 3; k++) x[k] = LO[k] - 0.2 + (HI[k] - LO[k] + 0.4) * urand();
      PetscCall(DomainRanksNearPoint(d, x, r, size, got, &ngot));
      for (PetscMPIInt q = 0; q < size; q++) {
        double lo[3], hi[3];
        PetscCall(RefBox(g, q, lo, hi));
        if (RefPointBoxDist2(x, lo, hi) < r * r) want[nwant++] = q;
      }
      PetscBool same = (PetscBool)(ngot == nwant);
      for (PetscInt e = 0; same && e < ngot; e++) same = (PetscBool)(got[e] == want[e]);
      if (!same && bad++ < 3)
        printf("[rank %d]   %s: %d ranks near (%g, %g, %g) within %g, reference %d\n", rank, what, (int)ngot, x[0],
               x[1], x[2], r, (int)nwant);
    }
  }
  CHECK(bad == 0, "%s: DomainRanksNearPoint differs from brute force for %d queries", what, (int)bad);

  PetscCall(RefBox(g, rank, mylo, myhi));
  for (int ir = 0; ir < 4; ir++) {
    const double r = radii[ir];
    PetscMPIInt *nb;
    PetscInt     nnb, nwant = 0;
    PetscCall(DomainGetNeighbors(d, r, &nnb, &nb));
    for (PetscMPIInt q = 0; q < size; q++) {
      double lo[3], hi[3];
      PetscCall(RefBox(g, q, lo, hi));
      if (q != rank && RefBoxBoxDist2(mylo, myhi, lo, hi) < r * r) want[nwant++] = q;
    }
    PetscBool same = (PetscBool)(nnb == nwant);
    for (PetscInt e = 0; same && e < nnb; e++) same = (PetscBool)(nb[e] == want[e]);
    CHECK(same, "%s: DomainGetNeighbors(r = %g) gives %d ranks, brute force %d", what, r, (int)nnb, (int)nwant);
    PetscCall(PetscFree(nb));
  }
  SAY("%s: ranks near 1200 points and neighbours for 4 radii equal brute force\n", what);
  PetscCall(PetscFree2(got, want));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Grid choice, explicit grids, the option, and rejected grids. */
static PetscErrorCode CheckGrids(PetscMPIInt size)
{
  Domain         d = NULL;
  PetscInt       dims[3];
  PetscMPIInt    mpi_dims[3] = {0, 0, 0};
  PetscErrorCode err;
  char           opt[64], expect[64];

  PetscFunctionBegin;
  PetscCall(DomainCreate(PETSC_COMM_WORLD, LO, HI, NULL, &d));
  PetscCall(DomainGetGrid(d, dims));
  PetscCallMPI(MPI_Dims_create(size, 3, mpi_dims));
  CHECK(dims[0] == mpi_dims[0] && dims[1] == mpi_dims[1] && dims[2] == mpi_dims[2],
        "default grid %dx%dx%d, MPI_Dims_create gives %dx%dx%d", (int)dims[0], (int)dims[1], (int)dims[2], mpi_dims[0],
        mpi_dims[1], mpi_dims[2]);
  PetscCall(DomainDestroy(&d));
  CHECK(d == NULL, "DomainDestroy leaves the handle NULL");
  PetscCall(DomainDestroy(&d)); /* accepts NULL */

  { /* explicit grid, all along z; and a partly free one */
    const PetscInt along_z[3] = {1, 1, size}, free_xy[3] = {0, 0, size};
    PetscCall(DomainCreate(PETSC_COMM_WORLD, LO, HI, along_z, &d));
    PetscCall(DomainGetGrid(d, dims));
    CHECK(dims[0] == 1 && dims[1] == 1 && dims[2] == size, "grid {1,1,%d} gave %dx%dx%d", size, (int)dims[0],
          (int)dims[1], (int)dims[2]);
    PetscCall(DomainDestroy(&d));
    PetscCall(DomainCreate(PETSC_COMM_WORLD, LO, HI, free_xy, &d));
    PetscCall(DomainGetGrid(d, dims));
    CHECK(dims[0] == 1 && dims[1] == 1 && dims[2] == size, "grid {0,0,%d} gave %dx%dx%d", size, (int)dims[0],
          (int)dims[1], (int)dims[2]);
    PetscCall(DomainDestroy(&d));
  }
  { /* the option overrides the argument */
    const PetscInt along_x[3] = {size, 1, 1};
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "1,%d,1", size));
    PetscCall(PetscOptionsSetValue(NULL, "-decomp_grid", opt));
    PetscCall(DomainCreate(PETSC_COMM_WORLD, LO, HI, along_x, &d));
    PetscCall(DomainGetGrid(d, dims));
    CHECK(dims[0] == 1 && dims[1] == size && dims[2] == 1, "-decomp_grid %s gave %dx%dx%d", opt, (int)dims[0],
          (int)dims[1], (int)dims[2]);
    PetscCall(DomainDestroy(&d));
  }
  { /* wrong products: by the option and by the argument; rejected on every rank, naming both counts */
    const PetscInt too_many[3] = {size + 1, 1, 1}, not_dividing[3] = {size + 1, 0, 0};
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "%d,2,1", size));
    PetscCall(PetscOptionsSetValue(NULL, "-decomp_grid", opt));
    TRY(&err, DomainCreate(PETSC_COMM_WORLD, LO, HI, NULL, &d));
    CHECK(err == PETSC_ERR_ARG_INCOMP && d == NULL, "-decomp_grid %s on %d ranks: error %d, expected %d", opt, size,
          (int)err, PETSC_ERR_ARG_INCOMP);
    CHECK(SameOnAllRanks(err), "-decomp_grid %s: not the same error on every rank", opt);
    PetscCall(PetscSNPrintf(expect, sizeof(expect), "has %d subdomains but the run has %d MPI ranks", 2 * size, size));
    if (LastErrorText(err)[0])
      CHECK(strstr(LastErrorText(err), expect), "the message \"%s\" should contain \"%s\"", LastErrorText(err), expect);
    PetscCall(PetscOptionsClearValue(NULL, "-decomp_grid"));

    TRY(&err, DomainCreate(PETSC_COMM_WORLD, LO, HI, too_many, &d));
    CHECK(err == PETSC_ERR_ARG_INCOMP && d == NULL, "grid {%d,1,1} on %d ranks: error %d, expected %d", size + 1, size,
          (int)err, PETSC_ERR_ARG_INCOMP);
    CHECK(SameOnAllRanks(err), "grid {%d,1,1}: not the same error on every rank", size + 1);
    TRY(&err, DomainCreate(PETSC_COMM_WORLD, LO, HI, not_dividing, &d));
    CHECK(err == PETSC_ERR_ARG_INCOMP && d == NULL, "grid {%d,0,0} on %d ranks: error %d, expected %d", size + 1, size,
          (int)err, PETSC_ERR_ARG_INCOMP);
    TRY(&err, DomainCreate(PETSC_COMM_WORLD, HI, LO, NULL, &d));
    CHECK(err == PETSC_ERR_ARG_OUTOFRANGE && d == NULL, "domain with min > max: error %d, expected %d", (int)err,
          PETSC_ERR_ARG_OUTOFRANGE);
    SAY("grids: default = MPI_Dims_create (%dx%dx%d), explicit and -decomp_grid obeyed, wrong products rejected on "
        "every rank\n",
        mpi_dims[0], mpi_dims[1], mpi_dims[2]);
    if (LastErrorText(PETSC_ERR_ARG_INCOMP)[0] == 0)
      SAY("  (PETSc keeps no error text here: messages of raised errors not inspected)\n");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The halo rule and bad cuts, on a domain with uniform cuts in g. */
static PetscErrorCode CheckHaloAndBadCuts(Domain d, RefGrid *g)
{
  PetscMPIInt    size;
  PetscInt       axis = -1;
  PetscBool      ok;
  char           msg[512], first_msg[512], expect[128];
  PetscErrorCode err;
  double         cuts[65], w = -1;
  const double  *now;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(g->comm, &size));
  for (int k = 0; k < 3; k++)
    if (g->dims[k] > 1 && axis < 0) axis = k;
  if (axis < 0) { /* one rank: no axis is cut, so no halo can be too wide */
    PetscCall(DomainCheckHalo(d, 1e3, &ok, msg, sizeof(msg)));
    CHECK(ok && msg[0] == 0, "an uncut grid must accept any halo; got \"%s\"", msg);
    PetscCall(DomainSetHalo(d, 1e3));
    PetscCall(DomainSetHalo(d, 0));
    SAY("halo: no axis is cut on 1 rank, any halo accepted\n");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* slab 0 along the first cut axis made 0.01 m thin */
  PetscCall(PetscArraycpy(cuts, g->cuts[axis], g->dims[axis] + 1));
  cuts[1] = cuts[0] + 0.01;
  PetscCall(DomainSetCuts(d, axis, cuts));
  PetscCall(DomainCheckHalo(d, 0.05, &ok, msg, sizeof(msg)));
  CHECK(!ok, "a 0.01 m slab must fail a 0.05 m halo");
  CHECK(SameOnAllRanks(ok), "DomainCheckHalo verdict differs between ranks");
  {
    unsigned long long sum = 0; /* unsigned: the hash wraps by definition (a signed one overflows) */
    for (const char *c = msg; *c; c++) sum = sum * 31 + (unsigned char)*c;
    CHECK(SameOnAllRanks((long long)(sum >> 1)), "DomainCheckHalo message differs between ranks");
  }
  PetscCall(PetscSNPrintf(expect, sizeof(expect), "along axis %c", "xyz"[axis]));
  CHECK(strstr(msg, "subdomain 0") && strstr(msg, expect) && strstr(msg, "is 0.01 m wide") &&
          strstr(msg, "less than the halo w = 0.05 m") && strstr(msg, "-decomp_grid"),
        "unexpected message \"%s\"", msg);
  PetscCall(PetscStrncpy(first_msg, msg, sizeof(first_msg)));
  PetscCall(DomainCheckHalo(d, 0.0099, &ok, msg, sizeof(msg)));
  CHECK(ok, "a 0.01 m slab must pass a 0.0099 m halo; got \"%s\"", msg);
  TRY(&err, DomainSetHalo(d, 0.05));
  CHECK(err == PETSC_ERR_ARG_OUTOFRANGE, "DomainSetHalo(0.05) on a 0.01 m slab: error %d, expected %d", (int)err,
        PETSC_ERR_ARG_OUTOFRANGE);
  CHECK(SameOnAllRanks(err), "DomainSetHalo: not the same error on every rank");
  PetscCall(DomainGetHalo(d, &w));
  CHECK(w == 0, "a rejected halo must not be kept; halo is %g", w);

  /* with a halo set, thin cuts are rejected and the old cuts stay */
  PetscCall(DomainSetCuts(d, axis, g->cuts[axis]));
  PetscCall(DomainSetHalo(d, 0.05));
  TRY(&err, DomainSetCuts(d, axis, cuts));
  CHECK(err == PETSC_ERR_ARG_OUTOFRANGE, "DomainSetCuts with a 0.01 m slab under a 0.05 m halo: error %d, expected %d",
        (int)err, PETSC_ERR_ARG_OUTOFRANGE);
  CHECK(SameOnAllRanks(err), "DomainSetCuts: not the same error on every rank");
  PetscCall(DomainGetCuts(d, axis, &now));
  CHECK(now[1] == g->cuts[axis][1], "rejected cuts must leave the old ones; cut 1 is %g, was %g", now[1],
        g->cuts[axis][1]);

  /* bad cuts */
  PetscCall(PetscArraycpy(cuts, g->cuts[axis], g->dims[axis] + 1));
  cuts[1] = cuts[0]; /* not increasing */
  TRY(&err, DomainSetCuts(d, axis, cuts));
  CHECK(err == PETSC_ERR_ARG_OUTOFRANGE, "repeated cut: error %d", (int)err);
  PetscCall(PetscArraycpy(cuts, g->cuts[axis], g->dims[axis] + 1));
  cuts[0] = g->lo[axis] - 0.1; /* wrong end */
  TRY(&err, DomainSetCuts(d, axis, cuts));
  CHECK(err == PETSC_ERR_ARG_OUTOFRANGE, "cut outside the domain: error %d", (int)err);
  PetscCall(PetscArraycpy(cuts, g->cuts[axis], g->dims[axis] + 1));
  if (test_rank == size - 1) cuts[1] += 0.001; /* one rank disagrees */
  TRY(&err, DomainSetCuts(d, axis, cuts));
  CHECK(size == 1 || err == PETSC_ERR_ARG_INCOMP, "cuts differing between ranks: error %d, expected %d", (int)err,
        PETSC_ERR_ARG_INCOMP);
  CHECK(SameOnAllRanks(err), "differing cuts: not the same error on every rank");
  PetscCall(DomainGetCuts(d, axis, &now));
  CHECK(now[1] == g->cuts[axis][1], "rejected cuts must leave the old ones");
  SAY("halo: a 0.01 m slab along %c fails a 0.05 m halo with the same message on every rank:\n  \"%s\"\n", "xyz"[axis],
      first_msg);
  SAY("bad cuts (repeated, outside, different per rank) rejected on every rank\n");
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Domain        d;
  RefGrid       g;
  PetscMPIInt   size;
  const double *cuts;
  PetscInt      bad = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &test_rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  SAY("test_decomp_domain on %d rank(s)\n", size);
  PetscCall(CheckGrids(size));

  PetscCall(DomainCreate(PETSC_COMM_WORLD, LO, HI, NULL, &d));
  PetscCall(RefFromDomain(d, &g));
  UniformCuts(&g);
  for (int k = 0; k < 3; k++) { /* 1e-15 of the extent: lo + (hi - lo) i / p rounds differently by a few ulps at most */
    PetscCall(DomainGetCuts(d, k, &cuts));
    for (PetscInt i = 0; i <= g.dims[k]; i++)
      if (PetscAbsReal(cuts[i] - g.cuts[k][i]) > 1e-15 * (HI[k] - LO[k])) bad++;
    CHECK(cuts[0] == LO[k] && cuts[g.dims[k]] == HI[k], "uniform cuts along %d must end exactly at the domain bounds",
          k);
    PetscCall(DomainSetCuts(d, k, g.cuts[k])); /* the test's own cuts from here on */
  }
  CHECK(bad == 0, "%d initial cuts are not uniform", (int)bad);
  PetscCall(CheckPartition(d, &g, "uniform cuts"));
  PetscCall(CheckNearQueries(d, &g, "uniform cuts"));

  UnevenCuts(&g);
  for (int k = 0; k < 3; k++) PetscCall(DomainSetCuts(d, k, g.cuts[k]));
  for (int k = 0; k < 3; k++) {
    PetscCall(DomainGetCuts(d, k, &cuts));
    for (PetscInt i = 0; i <= g.dims[k]; i++)
      CHECK(cuts[i] == g.cuts[k][i], "DomainGetCuts(%d)[%d] = %g, set %g", k, (int)i, cuts[i], g.cuts[k][i]);
  }
  PetscCall(CheckPartition(d, &g, "non-uniform cuts"));
  PetscCall(CheckNearQueries(d, &g, "non-uniform cuts"));
  PetscCall(DomainDestroy(&d));

  /* the halo rule on a grid with a cut axis whenever there is more than one rank */
  PetscCall(DomainCreate(PETSC_COMM_WORLD, LO, HI, NULL, &d));
  PetscCall(RefFromDomain(d, &g));
  UniformCuts(&g);
  for (int k = 0; k < 3; k++) PetscCall(DomainSetCuts(d, k, g.cuts[k]));
  PetscCall(CheckHaloAndBadCuts(d, &g));
  PetscCall(DomainDestroy(&d));

  {
    const int code = RefFinish("test_decomp_domain");
    PetscCall(PetscFinalize());
    return code;
  }
}
