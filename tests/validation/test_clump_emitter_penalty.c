/* Clumps from an emitter under the penalty model, on this run's ranks against rank 0 alone: 40 trimers
 * (three spheres r = 10 mm, centres 8 mm from the centre of mass: bounding radius 18 mm) emitted at
 * 20,000 per second (two per step: one step's clumps fall to both sides of the cut at x = 0 and
 * share the step's orientation stream) with random orientations from a region 0.05-0.15 m up at
 * 0.2 m/s down onto a floor (E = 2 MPa, restitution 0.1), 4000 steps of 0.1 ms (0.4 s: they land on
 * one another and come to rest). Checked:
 *  - every body, bitwise, equal on this run's ranks and on one (ids, positions, velocities,
 *    orientations): the emitted poses are drawn alike on every rank, and the penalty model's forces
 *    are summed in an order independent of the ranks (docs/design.md: histories bitwise across 1, 2
 *    and 4 ranks), so the tolerance is zero; an orientation drawn only by the rank that owns the clump
 *    fails here;
 *  - bounded: no body ever faster than free fall from the region's top plus 10%: a clump starts at most
 *    0.15 - 0.018 m up with at most 0.3 m/s down and 0.1 m/s along x and y, and its centre of mass
 *    cannot come below a member radius (0.01 m), so v_ff = sqrt(0.3^2 + 2 0.1^2 + 2 g 0.122) = 1.582 m/s;
 *    the springs' damping (restitution 0.1) only takes energy out, and the margin covers the
 *    integrator's error at 0.1 ms, some 40 steps per contact (measured top speed: 1.479 m/s);
 *  - settling: the kinetic energy at the end below 5% of its largest (measured 0.6%);
 *  - the clumps rest on their members: the lowest centre of mass below 1.25 member radii (a trimer
 *    lying flat has its centre one member radius up, less the springs' overlap; on its bounding sphere
 *    it would be 1.8 up);
 *  - all 40 clumps made, none left the domain, every centre of mass above the floor. */
// ctest: labels=mpi;validation timeout=300 ranks=2
#include "test_util.h"

static const char *scenario =
  "domain: {min: [-0.2, -0.2, -0.05], max: [0.2, 0.2, 0.4]}\n"
  "gravity: [0, 0, -9.81]\n"
  "time: {step: 1.0e-4, end: 0.4}\n"
  "contact: {model: penalty, envelope: 0.001}\n"
  "materials:\n"
  "  - {name: grit, density: 2000, friction: 0.5, kinetic_friction: 0.4, young_modulus: 2.0e6, poisson_ratio: 0.3,\n"
  "     restitution: 0.1, rolling_resistance: 0.1, spinning_resistance: 0.05}\n"
  "walls:\n"
  "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: grit}\n"
  "clumps:\n"
  "  - name: tri\n"
  "    members:\n"
  "      - {offset: [0.008, 0, 0], radius: 0.01}\n"
  "      - {offset: [-0.004, 0.0069282, 0], radius: 0.01}\n"
  "      - {offset: [-0.004, -0.0069282, 0], radius: 0.01}\n"
  "emitters:\n"
  "  - {region: {min: [-0.1, -0.1, 0.05], max: [0.1, 0.1, 0.15]}, rate: 20000, count: 40, seed: 7, material: grit,\n"
  "     velocity: [0, 0, -0.2], velocity_spread: [0.1, 0.1, 0.1], clump: tri}\n";

#define STEPS 4000

/* Run STEPS steps on comm: all bodies gathered on rank 0 of comm, the largest body speed and kinetic
 * energy over the steps, the last kinetic energy and the bodies that left the domain. */
static PetscErrorCode Run(MPI_Comm comm, TestBodyVel **all, PetscInt *n, double *top_speed, double *top_energy,
                          double *end_energy, PetscInt64 *removed)
{
  Simulation sim;

  PetscFunctionBegin;
  PetscCall(TestSimulationOnComm(comm, scenario, "clump-emitter-penalty", &sim));
  *top_speed = *top_energy = 0;
  for (int k = 1; k <= STEPS; k++) {
    PetscCall(SimulationStep(sim));
    *top_speed  = PetscMax(*top_speed, SimulationLastStep(sim)->max_speed);
    *top_energy = PetscMax(*top_energy, SimulationLastStep(sim)->kinetic_energy);
  }
  *end_energy = SimulationLastStep(sim)->kinetic_energy;
  *removed    = SimulationRemoved(sim);
  PetscCall(TestGatherVelocities(sim, all, n));
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const double v_ff = sqrt(0.3 * 0.3 + 2 * 0.1 * 0.1 + 2 * 9.81 * (0.15 - 0.018 - 0.01));
  TestBodyVel *par = NULL, *ser = NULL;
  PetscInt     npar = 0, nser = 0;
  PetscMPIInt  rank, size;
  double       top, peak, last, top1, peak1, last1;
  PetscInt64   removed, removed1;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(TestSlabsAlongX("0"));
  PetscCall(Run(PETSC_COMM_WORLD, &par, &npar, &top, &peak, &last, &removed));
  if (!rank) {
    int    bitwise = 1;
    double lowest  = INFINITY;
    PetscCall(TestSerialReference());
    PetscCall(Run(PETSC_COMM_SELF, &ser, &nser, &top1, &peak1, &last1, &removed1));
    TEST_CHECK(npar == nser && nser == 40,
               "%" PetscInt_FMT " clumps on %d ranks, %" PetscInt_FMT " on one, expected 40", npar, size, nser);
    for (PetscInt i = 0; i < PetscMin(npar, nser); i++) {
      bitwise = bitwise && !memcmp(&par[i], &ser[i], sizeof(TestBodyVel));
      lowest  = PetscMin(lowest, ser[i].x[2]);
    }
    printf("%d ranks vs 1: %" PetscInt_FMT " clumps, bitwise %s; free fall %.3f m/s, top speed %.3f m/s; kinetic "
           "energy largest %.3g J, at the end %.3g J (%.1f%%); %" PetscInt64_FMT " left; lowest centre %.4f m\n",
           size, nser, bitwise ? "equal" : "DIFFERENT", v_ff, top1, peak1, last1, 100 * last1 / peak1, removed1,
           lowest);
    TEST_CHECK(bitwise, "the clumps on %d ranks differ from those on one rank", size);
    TEST_CHECK(top1 <= 1.1 * v_ff && top <= 1.1 * v_ff,
               "a clump reached %.3f m/s (%d ranks: %.3f), more than free fall (%.3f m/s) plus 10%%", top1, size, top,
               v_ff);
    TEST_CHECK(last1 < 0.05 * peak1, "the kinetic energy at the end, %.3g J, is not below 5%% of its largest, %.3g J",
               last1, peak1);
    TEST_CHECK(removed1 == 0 && removed == 0,
               "clumps left the domain: %" PetscInt64_FMT " (%d ranks: %" PetscInt64_FMT ")", removed1, size, removed);
    TEST_CHECK(lowest > 0 && lowest < 0.0125, "the lowest centre of mass is at %.4f m, not 0 to 1.25 member radii up",
               lowest);
    PetscCall(PetscFree(ser));
    PetscCall(PetscFree(par));
  }
  PetscCallMPI(MPI_Bcast(&failures, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  int rc = TestFinish("clump emitter penalty");
  PetscCall(PetscFinalize());
  return rc;
}
