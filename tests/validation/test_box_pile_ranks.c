/* A small box pile on 1 and on this run's ranks (GUIDE "Distributed run": the CCP velocities are
 * unique, so solves on any rank count agree within a small multiple of the tolerance). Eight boxes
 * (half extents 0.05, 0.04, 0.03 m) side by side on a plane, flush in x (face-face contacts across
 * the cut x = 0 of a 2 x 1 x 1 grid), three boxes turned 20 deg about z lying across them (clipped
 * manifolds), thrown down and sideways, and a box tilted 30 deg about x falling edge first onto the
 * middle one; a box wall closes the row's +x end. The velocities after one step and after 20 steps,
 * each solved by APGD to 1e-8 m/s, must agree with rank 0's 1-rank run within 1e-6 m/s (angular
 * rates times 0.05 m): two solves each within 1e-8 m/s of the unique velocities differ by a small
 * multiple of that per step, far below 1e-6 m/s over 20 steps (measured values printed); a box-box
 * contact lost or counted twice at the cut changes a velocity by its impulse over the mass,
 * ~1e-2 m/s. */
// ctest: labels=mpi timeout=300 ranks=2
#include "test_util.h"

static const char *pile(char *yaml, size_t len)
{
  int n = snprintf(yaml, len,
                   "domain: {min: [-0.5, -0.5, -0.1], max: [0.5, 0.5, 0.9]}\n"
                   "gravity: [0, 0, -9.81]\n"
                   "time: {step: 0.002, end: 1}\n"
                   "contact: {model: ccp, envelope: 0.003, max_recovery_speed: 0.5}\n"
                   "solver: {type: apgd, max_iterations: 20000, tolerance: 1.0e-8}\n"
                   "materials:\n"
                   "  - {name: m, density: 1000, friction: 0.4}\n"
                   "walls:\n"
                   "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}\n"
                   "  - {type: box, center: [0.25, 0, 0.05], half_extents: [0.05, 0.2, 0.05], material: m}\n"
                   "bodies:\n");
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 2; j++)
      n += snprintf(yaml + n, len - (size_t)n,
                    "  - {shape: box, half_extents: [0.05, 0.04, 0.03], position: [%g, %g, 0.03], material: m}\n",
                    -0.15 + 0.1 * i, -0.05 + 0.1 * j);
  for (int i = 0; i < 3; i++) {
    const double a = (i % 2 ? 20.0 : -20.0) * M_PI / 180;
    n += snprintf(yaml + n, len - (size_t)n,
                  "  - {shape: box, half_extents: [0.05, 0.04, 0.03], position: [%g, %g, 0.0905], orientation: [%.17g, "
                  "0, 0, %.17g], velocity: [%g, -0.1, -0.2], angular_velocity: [0, 0, %g], material: m}\n",
                  -0.13 + 0.13 * i + 0.005, 0.01 * i, cos(a / 2), sin(a / 2), 0.1 * (i - 1), 1.0 - i);
  }
  snprintf(yaml + n, len - (size_t)n,
           "  - {shape: box, half_extents: [0.05, 0.04, 0.03], position: [0.01, 0.0, 0.19], orientation: [%.17g, "
           "%.17g, "
           "0, 0], velocity: [0, 0, -0.5], material: m}\n",
           cos(M_PI / 12), sin(M_PI / 12));
  return yaml;
}

/* n steps on comm; the (id, velocity) of every body gathered on rank 0, sorted by id. */
static PetscErrorCode StepAndGather(MPI_Comm comm, int steps, TestBodyVel **out, PetscInt *n, PetscInt *unconverged)
{
  Simulation sim;
  char       yaml[8192];

  PetscFunctionBegin;
  PetscCall(TestSimulationOnComm(comm, pile(yaml, sizeof yaml), "box-pile", &sim));
  *unconverged = 0;
  for (int k = 0; k < steps; k++) {
    PetscCall(SimulationStep(sim));
    *unconverged += !SimulationLastStep(sim)->converged;
  }
  PetscCall(TestGatherVelocities(sim, out, n));
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Compare(int steps)
{
  PetscMPIInt  rank, size;
  PetscInt     unc_par, unc_ser = 0, npar = 0, nser = 0;
  TestBodyVel *par = NULL, *ser = NULL;

  PetscFunctionBegin;
  PetscCall(TestSlabsAlongX("0"));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(StepAndGather(PETSC_COMM_WORLD, steps, &par, &npar, &unc_par));
  PetscCall(TestSerialReference());
  if (!rank) {
    PetscBool same_ids;
    double    worst;
    PetscCall(StepAndGather(PETSC_COMM_SELF, steps, &ser, &nser, &unc_ser));
    worst = TestLargestVelocityDifference(par, npar, ser, nser, 0.05, &same_ids);
    printf("box pile, %d steps on %d ranks: %" PetscInt_FMT " bodies, largest velocity difference to 1 rank %.3e m/s; "
           "unconverged steps %" PetscInt_FMT " (1 rank %" PetscInt_FMT ")\n",
           steps, size, npar, worst, unc_par, unc_ser);
    TEST_CHECK(same_ids && npar == 12,
               "%d steps: %" PetscInt_FMT " bodies on %d ranks, %" PetscInt_FMT " on 1 (want 12)", steps, npar, size,
               nser);
    TEST_CHECK(worst <= 1e-6, "%d steps: velocities differ from the 1-rank run by %.3e m/s", steps, worst);
    TEST_CHECK(unc_par == 0 && unc_ser == 0, "%d steps: unconverged steps %" PetscInt_FMT " and %" PetscInt_FMT, steps,
               unc_par, unc_ser);
    PetscCall(PetscFree(ser));
    PetscCall(PetscFree(par));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(Compare(1));
  PetscCall(Compare(20));
  PetscCallMPI(MPI_Bcast(&failures, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  int rc = TestFinish("box pile on 1 and several ranks");
  PetscCall(PetscFinalize());
  return rc;
}
