/* An emitter of clumps (emitters[i].clump, src/step/emitter.h) on this run's ranks against rank 0 alone:
 * trimers (three spheres r = 10 mm, centres 10 mm from the centre of mass: bounding radius 20 mm)
 * poured at 1250 per second for 0.12 s, flying down at 12 m/s without gravity, 60 steps of 2 ms.
 *  - the same bodies on any rank count: ids, positions, velocities, radii and orientations bitwise
 *    equal (free flight at one velocity: no pair ever approaches, integration is exact per body, so
 *    the tolerance is zero and any difference is the emitter's: an orientation stream advanced only
 *    on the rank that owns a clump differs at the first clump owned elsewhere);
 *  - every body a clump of the template: its mass that of the union (density times the template's
 *    volume, exactly), its radius the bounding radius;
 *  - the orientations are random: the body x axes (in the world) have mean components within 0.2 of 0
 *    (uniform directions: each component has variance 1/3, so 4 standard errors at n = 147 are 0.19),
 *    and no two bodies share an orientation;
 *  - no two new clumps overlap (member against member, the placement's bounding spheres are wider).
 * The region is cut by the process grid (-decomp_grid p,1,1 over x), so new clumps go to several
 * ranks. */
// ctest: labels=mpi ranks=2
#include "test_util.h"

static const char *scenario =
  "domain: {min: [-0.25, -0.25, -2.5], max: [0.25, 0.25, 0.25]}\n" /* no gravity */
  "time: {step: 0.002, end: 0.5}\n"
  "contact: {envelope: 0.002}\n"
  "solver: {max_iterations: 50, tolerance: 1.0e-7}\n"
  "materials: [{name: m, density: 2500, friction: 0.4}]\n"
  "clumps:\n"
  "  - name: trimer\n"
  "    members:\n"
  "      - {offset: [0.01, 0, 0], radius: 0.01}\n"
  "      - {offset: [-0.005, 0.008660254037844386, 0], radius: 0.01}\n"
  "      - {offset: [-0.005, -0.008660254037844386, 0], radius: 0.01}\n"
  "emitters:\n"
  "  - {region: {min: [-0.15, -0.15, 0.0], max: [0.15, 0.15, 0.15]}, rate: 1250, seed: 5, material: m, end: 0.12,\n"
  "     velocity: [0, 0, -12], clump: trimer}\n";

#define STEPS 60

/* Run STEPS steps on comm; all bodies gathered on rank 0 of comm; the template's clump mass, bounding
 * radius and member offsets (body frame). */
static PetscErrorCode Run(MPI_Comm comm, TestBodyVel **all, PetscInt *n, double *mass, double *bounding,
                          double offset[9])
{
  Simulation sim;

  PetscFunctionBegin;
  PetscCall(TestSimulationOnComm(comm, scenario, "clump-emitter", &sim));
  for (int k = 1; k <= STEPS; k++) PetscCall(SimulationStep(sim));
  *mass     = 2500 * SimulationScenario(sim)->clumps[0].volume;
  *bounding = SimulationScenario(sim)->clumps[0].bounding;
  for (int k = 0; k < 9; k++) offset[k] = SimulationScenario(sim)->clumps[0].offset[k];
  for (PetscInt i = 0; i < SimulationBodies(sim)->n_owned; i++) {
    TEST_CHECK(SimulationBodies(sim)->shape[i] == SHAPE_CLUMP && SimulationBodies(sim)->mass[i] == *mass,
               "body %lld: shape %d, mass %g, not a clump of the template (mass %g)",
               (long long)SimulationBodies(sim)->id[i], (int)SimulationBodies(sim)->shape[i],
               SimulationBodies(sim)->mass[i], *mass);
  }
  PetscCall(TestGatherVelocities(sim, all, n));
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* World centres of clump b's three members (offsets: the template's, body frame). */
static void MemberCentres(const TestBodyVel *b, const double offset[9], double c[3][3])
{
  for (int m = 0; m < 3; m++) {
    quat_rotate(c[m], b->q, offset + 3 * m);
    v3_add(c[m], c[m], b->x);
  }
}

/* Pairs of clumps of ser[0 .. n) whose members overlap (centre distance below 2 member radii). */
static int MemberOverlaps(const TestBodyVel *ser, PetscInt n, const double offset[9])
{
  int overlaps = 0;
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = i + 1; j < n; j++) {
      double ci[3][3], cj[3][3], d[3];
      MemberCentres(&ser[i], offset, ci);
      MemberCentres(&ser[j], offset, cj);
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
          v3_sub(d, ci[a], cj[b]);
          overlaps += v3_norm(d) < 0.02;
        }
    }
  return overlaps;
}

int main(int argc, char **argv)
{
  TestBodyVel *par = NULL, *ser = NULL;
  PetscInt     npar = 0, nser = 0;
  PetscMPIInt  rank, size;
  double       mass, bounding, offset[9];

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(TestSlabsAlongX("0"));
  PetscCall(Run(PETSC_COMM_WORLD, &par, &npar, &mass, &bounding, offset));
  if (!rank) {
    int overlaps;
    PetscCall(TestSerialReference());
    PetscCall(Run(PETSC_COMM_SELF, &ser, &nser, &mass, &bounding, offset));
    /* bodies are emitted at the start of a step: the last step's are those due at t = (STEPS - 1) h */
    TestCheckEmittedPoses(par, npar, ser, nser, (PetscInt)floor(1250 * (STEPS - 1) * 0.002 + 1e-9), size, "clumps");
    for (PetscInt i = 0; i < nser; i++)
      TEST_CHECK(ser[i].r == bounding, "clump %lld: radius %g, the bounding radius is %g", (long long)ser[i].id,
                 ser[i].r, bounding);
    overlaps = MemberOverlaps(ser, nser, offset);
    printf("%d member overlaps\n", overlaps);
    TEST_CHECK(overlaps == 0, "%d member pairs of emitted clumps overlap", overlaps);
    PetscCall(PetscFree(ser));
    PetscCall(PetscFree(par));
  }
  PetscCallMPI(MPI_Bcast(&failures, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  int rc = TestFinish("clump emitter");
  PetscCall(PetscFinalize());
  return rc;
}
