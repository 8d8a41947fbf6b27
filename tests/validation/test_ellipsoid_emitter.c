/* An emitter of ellipsoids (emitters[i].semi_axes, src/step/emitter.h) on this run's ranks against rank 0 alone,
 * and a small pour of them onto a plane.
 * Free flight: ellipsoids of semi-axes 20, 12, 8 mm poured at 1250 per second for 0.12 s, flying down at
 * 12 m/s without gravity, 60 steps of 2 ms:
 *  - the same bodies on any rank count: ids, positions, velocities, radii and orientations bitwise
 *    equal (free flight at one velocity: no pair ever approaches, so the tolerance is zero and any
 *    difference is the emitter's: an orientation stream advanced only on the rank that owns an
 *    ellipsoid differs at the first one owned elsewhere);
 *  - every body an ellipsoid of those semi-axes, its mass density times 4/3 pi a b c (to rounding,
 *    1e-14 relative), its radius the largest semi-axis;
 *  - the orientations are random: the body x axes have mean components within 0.2 of 0 (uniform
 *    directions: each component has variance 1/3, so 4 standard errors at n = 147 are 0.19), and no
 *    two bodies share an orientation; no two overlap (narrow_ellipsoid_ellipsoid's gap > 0).
 * Pour: 50 such ellipsoids from rest in a region 0.3 to 0.45 m above the plane z = 0 under gravity, 0.6
 * s of steps of 1 ms (CCP): no body ever faster than free fall from the region's top allows,
 * sqrt(2 g 0.45) = 2.97 m/s, plus the recovery speed (0.1 m/s) that may push an overlap apart: 3.1 m/s;
 * all 50 still in the domain at the end, each centre above the plane by at least its shortest
 * semi-axis less 1 mm (none sunk through; the envelope is 2 mm), all speeds finite.
 * The region is cut by the process grid (-decomp_grid p,1,1 over x), so new bodies go to several
 * ranks. Drawing the orientation only on the owning rank fails the bitwise check on 2 ranks; pouring
 * spheres instead (semi_axes ignored) fails the shape check. */
// ctest: labels=mpi ranks=2
#include "test_util.h"
#include "collision/ellipsoid_contact.h"

static const double SEMI[3] = {0.02, 0.012, 0.008};

static const char *flight =
  "domain: {min: [-0.25, -0.25, -2.5], max: [0.25, 0.25, 0.25]}\n" /* no gravity */
  "time: {step: 0.002, end: 0.5}\n"
  "contact: {envelope: 0.002}\n"
  "solver: {max_iterations: 50, tolerance: 1.0e-7}\n"
  "materials: [{name: m, density: 2500, friction: 0.4}]\n"
  "emitters:\n"
  "  - {region: {min: [-0.15, -0.15, 0.0], max: [0.15, 0.15, 0.15]}, rate: 1250, seed: 5, material: m, end: 0.12,\n"
  "     velocity: [0, 0, -12], semi_axes: [0.02, 0.012, 0.008]}\n";

static const char *pour =
  "domain: {min: [-1.5, -1.5, -0.1], max: [1.5, 1.5, 0.6]}\n"
  "gravity: [0, 0, -9.81]\n"
  "time: {step: 0.001, end: 0.6}\n"
  "contact: {envelope: 0.002, max_recovery_speed: 0.1}\n"
  "solver: {type: apgd, max_iterations: 300, tolerance: 1.0e-6}\n"
  "materials: [{name: m, density: 2500, friction: 0.4}]\n"
  "walls: [{type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}]\n"
  "emitters:\n"
  "  - {region: {min: [-0.1, -0.1, 0.3], max: [0.1, 0.1, 0.45]}, rate: 500, count: 50, seed: 3,\n"
  "     material: m, semi_axes: [0.02, 0.012, 0.008]}\n";

#define STEPS 60

/* Run STEPS steps of the free flight on comm; all bodies gathered on rank 0 of comm. */
static PetscErrorCode Flight(MPI_Comm comm, TestBodyVel **all, PetscInt *n)
{
  Simulation   sim;
  const double mass = 2500 * 4.0 / 3.0 * M_PI * SEMI[0] * SEMI[1] * SEMI[2];

  PetscFunctionBegin;
  PetscCall(TestSimulationOnComm(comm, flight, "ellipsoid-emitter", &sim));
  for (int k = 1; k <= STEPS; k++) PetscCall(SimulationStep(sim));
  for (PetscInt i = 0; i < SimulationBodies(sim)->n_owned; i++) {
    const BodyStore *s = SimulationBodies(sim);
    TEST_CHECK(s->shape[i] == SHAPE_ELLIPSOID && s->size[3 * i] == SEMI[0] && s->size[3 * i + 1] == SEMI[1] &&
                 s->size[3 * i + 2] == SEMI[2] && fabs(s->mass[i] - mass) < 1e-14 * mass,
               "body %lld: shape %d, mass %g, not an ellipsoid of the emitter (mass %g)", (long long)s->id[i],
               (int)s->shape[i], s->mass[i], mass);
  }
  PetscCall(TestGatherVelocities(sim, all, n));
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The pour on PETSC_COMM_WORLD: speeds every step, heights and count at the end. */
static PetscErrorCode Pour(void)
{
  Simulation   sim;
  double       vmax = 0;
  PetscInt64   n, nloc;
  PetscMPIInt  rank;
  TestBodyVel *all = NULL;
  PetscInt     nall;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(TestSimulationOnComm(PETSC_COMM_WORLD, pour, "ellipsoid-pour", &sim));
  while (SimulationTime(sim) < 0.6 - 0.0005) {
    double mine = 0, top;
    PetscCall(SimulationStep(sim));
    for (PetscInt i = 0; i < SimulationBodies(sim)->n_owned; i++) {
      const double v = v3_norm(SimulationBodies(sim)->vel + 6 * i);
      mine           = v == v ? fmax(mine, v) : INFINITY; /* NaN: fail */
    }
    PetscCallMPI(MPI_Allreduce(&mine, &top, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    vmax = fmax(vmax, top);
  }
  nloc = SimulationBodies(sim)->n_owned;
  PetscCallMPI(MPI_Allreduce(&nloc, &n, 1, MPIU_INT64, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(TestGatherVelocities(sim, &all, &nall));
  if (!rank) {
    double lowest = HUGE_VAL;
    for (PetscInt i = 0; i < nall; i++) lowest = fmin(lowest, all[i].x[2]);
    printf("pour: %lld ellipsoids, largest speed %.3f m/s, lowest centre %.5f m\n", (long long)n, vmax, lowest);
    TEST_CHECK(lowest > SEMI[2] - 0.001, "pour: a centre at %.5f m, below the shortest semi-axis %g m less 1 mm",
               lowest, SEMI[2]);
    PetscCall(PetscFree(all));
  }
  TEST_CHECK(n == 50, "pour: %lld ellipsoids at the end, want 50", (long long)n);
  TEST_CHECK(vmax <= 3.1, "pour: a body at %.3f m/s, faster than free fall from 0.45 m allows (3.1 m/s)", vmax);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The free flight on every rank against rank 0 alone (collective; rank 0 checks). */
static PetscErrorCode CompareFlight(void)
{
  int          overlaps = 0;
  PetscMPIInt  rank, size;
  TestBodyVel *par = NULL, *ser = NULL;
  PetscInt     npar = 0, nser = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(Flight(PETSC_COMM_WORLD, &par, &npar));
  if (rank) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(TestSerialReference());
  PetscCall(Flight(PETSC_COMM_SELF, &ser, &nser));
  /* bodies are emitted at the start of a step: the last step's are those due at t = (STEPS - 1) h */
  TestCheckEmittedPoses(par, npar, ser, nser, (PetscInt)floor(1250 * (STEPS - 1) * 0.002 + 1e-9), size, "ellipsoids");
  for (PetscInt i = 0; i < nser; i++) {
    TEST_CHECK(ser[i].r == SEMI[0], "ellipsoid %lld: radius %g, the largest semi-axis is %g", (long long)ser[i].id,
               ser[i].r, SEMI[0]);
    for (PetscInt j = i + 1; j < nser; j++) {
      ContactPoint cp;
      overlaps += narrow_ellipsoid_ellipsoid(ser[i].x, ser[i].q, SEMI, ser[j].x, ser[j].q, SEMI, 0, &cp);
    }
  }
  printf("%d overlaps\n", overlaps);
  TEST_CHECK(overlaps == 0, "%d pairs of emitted ellipsoids overlap", overlaps);
  PetscCall(PetscFree(ser));
  PetscCall(PetscFree(par));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(TestSlabsAlongX("0"));
  PetscCall(Pour());
  PetscCall(CompareFlight());
  PetscCallMPI(MPI_Bcast(&failures, 1, MPI_INT, 0, PETSC_COMM_WORLD)); /* rank 0 checked the flight */
  {
    const int rc = TestFinish("ellipsoid emitter");
    PetscCall(PetscFinalize());
    return rc;
  }
}
