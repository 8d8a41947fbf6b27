/* Emitters (src/step/emitter.h) on this run's ranks against one rank (rank 0 alone):
 *  - the same bodies: after 60 steps the ids, positions, velocities and radii of all bodies are
 *    bitwise equal (all bodies fly at the same velocity without gravity, so none ever touches
 *    another and integration is exact per body: any difference is the emitter's; pairs closer than
 *    the envelope become contacts with zero impulse, checked by every velocity staying exact);
 *  - the schedule: after step n (time t = n h) emitter A has made floor(rate t) bodies, and B
 *    stops at its count;
 *  - the size distributions: A's radii are normal(10 mm, 1 mm) truncated to [8, 12] mm: all inside,
 *    mean 10 mm within 0.3 mm (4 standard errors of a 0.88 mm-wide truncated normal at n = 150),
 *    standard deviation 0.88 mm within 0.15 mm; B's radii uniform in [5, 6] mm: inside, mean
 *    5.5 mm within 0.15 mm (4 standard errors at n = 50);
 *  - no two new bodies overlap, and none is in the plane wall;
 *  - the velocity spread, by emitter_place directly: 2000 draws of spread [0.5, 0.2, 0] around
 *    (1, 2, 3) m/s stay inside the box and have means within 0.03 m/s (4 standard errors); per axis
 *    the standard deviation is spread / sqrt 3 (uniform in [-spread, spread]) within 4%, 4 standard
 *    errors (the sample variance of a uniform has relative standard error sqrt(0.8 / n) = 0.02, its
 *    square root half that), and the largest deviation reaches 0.99 spread (all 2000 inside 0.99 of
 *    it: probability 0.99^2000 = 2e-9); the axis without spread gets the velocity exactly.
 * The region is cut by the process grid (-decomp_grid p,1,1 over x), so new bodies go to several
 * ranks. */
// ctest: labels=mpi ranks=2;4
#include "test_util.h"
#include "step/emitter.h"

static const char *scenario =
  "domain: {min: [-0.2, -0.2, -2.0], max: [0.2, 0.2, 0.2]}\n"
  "gravity: [0, 0, 0]\n"
  "time: {step: 0.002, end: 1}\n"
  "contact: {model: ccp, envelope: 0.001, max_recovery_speed: 0.5}\n"
  "solver: {type: apgd, max_iterations: 100, tolerance: 1.0e-8}\n"
  "materials:\n"
  "  - {name: m, density: 2000, friction: 0.5}\n"
  "walls:\n"
  "  - {type: plane, point: [0, 0, 0.12], normal: [0, 0, -1], material: m}\n"
  "emitters:\n"
  "  - {region: {min: [-0.15, -0.15, 0.0], max: [0.15, 0.15, 0.15]}, rate: 1250, seed: 3, material: m, end: 0.12,\n"
  "     velocity: [0, 0, -12], radius: {distribution: normal, mean: 0.01, std: 0.001, min: 0.008, max: 0.012}}\n"
  "  - {region: {min: [-0.15, -0.15, 0.0], max: [0.15, 0.15, 0.15]}, rate: 1000, count: 50, seed: 4, material: m,\n"
  "     velocity: [0, 0, -12], radius: {distribution: uniform, min: 0.005, max: 0.006}}\n";

#define STEPS 60

/* Run STEPS steps on comm; all bodies on rank 0 of comm. Checks the schedule on the way. */
static PetscErrorCode Run(MPI_Comm comm, TestBodyVel **all, PetscInt *n)
{
  Simulation sim;

  PetscFunctionBegin;
  PetscCall(TestSimulationOnComm(comm, scenario, "emitter", &sim));
  for (int k = 1; k <= STEPS; k++) {
    PetscCall(SimulationStep(sim));
    /* bodies are emitted at the start of a step: due at t = (k - 1) h */
    const long a = (long)floor(1250 * PetscMin((k - 1) * 0.002, 0.12) + 1e-9),
               b = PetscMin((long)floor(1000 * (k - 1) * 0.002 + 1e-9), 50);
    TEST_CHECK(SimulationEmitted(sim, 0) == a && SimulationEmitted(sim, 1) == b,
               "step %d: emitted %lld and %lld, expected %ld and %ld", k, (long long)SimulationEmitted(sim, 0),
               (long long)SimulationEmitted(sim, 1), a, b);
    TEST_CHECK(SimulationLastStep(sim)->bodies == a + b, "step %d: %" PetscInt64_FMT " bodies, expected %ld", k,
               SimulationLastStep(sim)->bodies, a + b);
  }
  PetscCall(TestGatherVelocities(sim, all, n));
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sample mean and standard deviation of the radii of ids [from, to) (rank 0's gathered list). */
static void RadiusStats(const TestBodyVel *b, PetscInt n, double lo, double hi, int first_emitter_ids, double *mean,
                        double *sd, int *count, int *outside)
{
  double s = 0, s2 = 0;
  *count = *outside = 0;
  for (PetscInt i = 0; i < n; i++) {
    const PetscBool small = (PetscBool)(b[i].r < 0.007); /* B's spheres are the small ones */
    if (small == (PetscBool)first_emitter_ids) continue;
    s += b[i].r;
    s2 += b[i].r * b[i].r;
    (*count)++;
    *outside += b[i].r < lo || b[i].r > hi;
  }
  *mean = s / *count;
  *sd   = sqrt(PetscMax(s2 / *count - *mean * *mean, 0));
}

/* The velocity spread of emitter_place, against the uniform distribution it promises. */
static void CheckVelocitySpread(void)
{
  EmitterSpec    e;
  EmitterSphere *out;
  double(*vel)[3], sum[3] = {0, 0, 0}, sum2[3] = {0, 0, 0}, reach[3] = {0, 0, 0};
  const double spread[3] = {0.5, 0.2, 0}, mean[3] = {1, 2, 3};
  int          placed, inside                     = 1;

  memset(&e, 0, sizeof(e));
  for (int a = 0; a < 3; a++) {
    e.region_min[a]      = 0;
    e.region_max[a]      = 10;
    e.velocity[a]        = mean[a];
    e.velocity_spread[a] = spread[a];
  }
  e.size   = SIZE_FIXED;
  e.radius = e.radius_min = e.radius_max = 0.01;
  out                                    = malloc(2000 * sizeof(*out));
  vel                                    = malloc(2000 * sizeof(*vel));
  placed                                 = emitter_place(&e, 0, 7, NULL, 0, NULL, 0, 2000, out, vel);
  for (int k = 0; k < placed; k++)
    for (int a = 0; a < 3; a++) {
      sum[a] += vel[k][a];
      sum2[a] += (vel[k][a] - mean[a]) * (vel[k][a] - mean[a]);
      reach[a] = PetscMax(reach[a], fabs(vel[k][a] - mean[a]));
      inside   = inside && fabs(vel[k][a] - mean[a]) <= spread[a];
    }
  printf("  velocity spread: %d draws, means (%.4f, %.4f, %.4f) m/s, standard deviations (%.4f, %.4f, %.4f) m/s, "
         "largest deviations (%.4f, %.4f, %.4f) m/s\n",
         placed, sum[0] / placed, sum[1] / placed, sum[2] / placed, sqrt(sum2[0] / placed), sqrt(sum2[1] / placed),
         sqrt(sum2[2] / placed), reach[0], reach[1], reach[2]);
  TEST_CHECK(placed == 2000 && inside, "velocity spread: %d placed, inside the box: %d", placed, inside);
  for (int a = 0; a < 3; a++) {
    const double sd = sqrt(sum2[a] / placed), sd_exact = spread[a] / sqrt(3.0);
    TEST_CHECK(fabs(sum[a] / placed - mean[a]) < 0.03, "velocity spread: mean %g along %d, expected %g",
               sum[a] / placed, a, mean[a]);
    if (spread[a] > 0) {
      TEST_CHECK(fabs(sd / sd_exact - 1) < 0.04, "velocity spread: standard deviation %g along %d, expected %g", sd, a,
                 sd_exact);
      TEST_CHECK(reach[a] >= 0.99 * spread[a], "velocity spread: largest deviation %g along %d, spread %g", reach[a], a,
                 spread[a]);
    } else TEST_CHECK(reach[a] == 0, "velocity spread: deviation %g along %d without spread", reach[a], a);
  }
  free(out);
  free(vel);
}

int main(int argc, char **argv)
{
  TestBodyVel *par = NULL, *ser = NULL;
  PetscInt     npar = 0, nser = 0;
  PetscMPIInt  rank, size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(TestSlabsAlongX("0"));
  PetscCall(Run(PETSC_COMM_WORLD, &par, &npar));
  if (!rank) {
    double mean, sd;
    int    count, outside, overlaps = 0, bitwise = 1;
    PetscCall(TestSerialReference());
    PetscCall(Run(PETSC_COMM_SELF, &ser, &nser));
    TEST_CHECK(npar == nser, "%" PetscInt_FMT " bodies on %d ranks, %" PetscInt_FMT " on one", npar, size, nser);
    for (PetscInt i = 0; i < PetscMin(npar, nser); i++)
      bitwise = bitwise &&
                !memcmp(&par[i], &ser[i], sizeof(TestBodyVel)); /* id, position, velocity, radius, orientation */
    TEST_CHECK(bitwise, "the bodies on %d ranks differ from those on one rank", size);
    for (PetscInt i = 0; i < nser; i++)
      for (PetscInt j = i + 1; j < nser; j++) {
        double d[3];
        v3_sub(d, ser[i].x, ser[j].x);
        overlaps += v3_norm(d) < ser[i].r + ser[j].r;
      }
    TEST_CHECK(overlaps == 0, "%d pairs of emitted bodies overlap", overlaps);
    for (PetscInt i = 0; i < nser; i++) {
      TEST_CHECK(ser[i].v[0] == 0 && ser[i].v[1] == 0 && ser[i].v[2] == -12, "body %lld: velocity (%g, %g, %g) changed",
                 (long long)ser[i].id, ser[i].v[0], ser[i].v[1], ser[i].v[2]);
      TEST_CHECK(ser[i].x[2] + ser[i].r <= 0.12, "body %lld is in the wall", (long long)ser[i].id);
    }
    RadiusStats(ser, nser, 0.008, 0.012, 1, &mean, &sd, &count, &outside);
    printf("%d ranks vs 1: %" PetscInt_FMT
           " bodies, bitwise %s; emitter A: %d radii, mean %.4f mm, sd %.4f mm, %d outside [8, 12] mm\n",
           size, nser, bitwise ? "equal" : "DIFFERENT", count, 1e3 * mean, 1e3 * sd, outside);
    TEST_CHECK(outside == 0 && fabs(mean - 0.01) < 3e-4 && fabs(sd - 0.00088) < 1.5e-4,
               "emitter A's radii: mean %g, sd %g, %d outside", mean, sd, outside);
    RadiusStats(ser, nser, 0.005, 0.006, 0, &mean, &sd, &count, &outside);
    printf("  emitter B: %d radii, mean %.4f mm, %d outside [5, 6] mm\n", count, 1e3 * mean, outside);
    TEST_CHECK(count == 50 && outside == 0 && fabs(mean - 0.0055) < 1.5e-4,
               "emitter B's radii: %d, mean %g, %d outside", count, mean, outside);
    PetscCall(PetscFree(ser));
    PetscCall(PetscFree(par));
    CheckVelocitySpread();
  }
  PetscCallMPI(MPI_Bcast(&failures, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  int rc = TestFinish("emitters");
  PetscCall(PetscFinalize());
  return rc;
}
