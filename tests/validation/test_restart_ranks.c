/* A checkpoint written on P ranks (P = this run's, 4 in the mpi variant) restarts on every smaller
 * rank count (1 .. P-1; sub-communicators of the first k ranks): after one step the velocities
 * equal the P-rank continuation within 1e-6 m/s (both solved to 1e-8 m/s; the CCP velocities are
 * unique, so two solves each within 1e-8 m/s of the solution differ by a small multiple of that).
 * The bodies are re-partitioned by position on read and the warm-start memory routed to the new
 * contact owners; the contact count and the number of warm-started contacts of that step must be
 * the P-rank ones exactly (the memory is complete on any rank count).
 * Scenario: the 512-sphere block of test_distributed_step after 5 steps in a box (many contacts
 * on every cut). */
// ctest: labels=restart;mpi timeout=300 ranks=4
#define _GNU_SOURCE
#include "test_util.h"
#include "test_block.h"
#include "io/checkpoint.h"
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  Simulation   sim;
  Scenario     sc;
  char         err[SCENARIO_ERR_MAX] = "", dir[] = "/tmp/ccpdem_test_restart_ranks_XXXXXX", path[PETSC_MAX_PATH_LEN];
  PetscMPIInt  rank, size;
  TestBodyVel *ref  = NULL;
  PetscInt     nref = 0, ref_contacts, ref_warm;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (!rank && !mkdtemp(dir)) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot create a temporary directory");
  PetscCallMPI(MPI_Bcast(dir, sizeof(dir), MPI_CHAR, 0, PETSC_COMM_WORLD));
  if (scenario_load_string(test_block_512, "restart-ranks", &sc, err, sizeof(err)))
    SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s", err);
  PetscCall(SimulationCreate(PETSC_COMM_WORLD, &sc, &sim, err, sizeof(err)));
  PetscCheck(!err[0], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s", err);
  for (int n = 0; n < 5; n++) PetscCall(SimulationStep(sim));
  PetscCall(SimulationWriteCheckpoint(sim, dir, path, sizeof(path), err, sizeof(err)));
  PetscCheck(!err[0], PETSC_COMM_WORLD, PETSC_ERR_FILE_WRITE, "%s", err);
  PetscCall(SimulationStep(sim));
  TEST_CHECK(SimulationLastStep(sim)->converged, "%d ranks: the step after the checkpoint did not converge (%.3e m/s)",
             size, SimulationLastStep(sim)->residual_max);
  ref_contacts = SimulationLastStep(sim)->contacts;
  ref_warm     = SimulationLastStep(sim)->warm_started;
  PetscCall(TestGatherVelocities(sim, &ref, &nref));
  PetscCall(SimulationDestroy(&sim));

  for (PetscMPIInt k = 1; k < PetscMax(size, 2); k++) {
    MPI_Comm     sub;
    TestBodyVel *got  = NULL;
    PetscInt     ngot = 0;
    PetscCallMPI(MPI_Comm_split(PETSC_COMM_WORLD, rank < k ? 0 : MPI_UNDEFINED, rank, &sub));
    if (sub != MPI_COMM_NULL) {
      PetscCall(SimulationCreateFromCheckpoint(sub, path, &sim, err, sizeof(err)));
      PetscCheck(sim, sub, PETSC_ERR_PLIB, "restart on %d ranks refused: %s", k, err);
      PetscCall(SimulationStep(sim));
      TEST_CHECK(SimulationLastStep(sim)->converged, "restart on %d ranks: the step did not converge (%.3e m/s)", k,
                 SimulationLastStep(sim)->residual_max);
      TEST_CHECK(SimulationLastStep(sim)->contacts == ref_contacts,
                 "restart on %d ranks: %" PetscInt64_FMT " contacts, %" PetscInt_FMT " on %d", k,
                 SimulationLastStep(sim)->contacts, ref_contacts, size);
      TEST_CHECK(SimulationLastStep(sim)->warm_started == ref_warm,
                 "restart on %d ranks: %" PetscInt64_FMT " contacts warm-started, %" PetscInt_FMT " on %d", k,
                 SimulationLastStep(sim)->warm_started, ref_warm, size);
      PetscCall(TestGatherVelocities(sim, &got, &ngot));
      if (!rank) {
        PetscBool    same_ids;
        const double worst = TestLargestVelocityDifference(got, ngot, ref, nref, 0.02, &same_ids);
        printf("checkpoint of %d ranks restarted on %d: %" PetscInt_FMT " bodies, %" PetscInt64_FMT
               " contacts (%" PetscInt64_FMT " warm-started), largest velocity difference after one step %.3e m/s\n",
               size, k, ngot, SimulationLastStep(sim)->contacts, SimulationLastStep(sim)->warm_started, worst);
        TEST_CHECK(same_ids && ngot == 512,
                   "restart on %d ranks: %" PetscInt_FMT " bodies or other ids than the %d-rank run", k, ngot, size);
        TEST_CHECK(worst <= 1e-6, "restart on %d ranks: velocities differ by %.3e m/s > 1e-6", k, worst);
        PetscCall(PetscFree(got));
      }
      PetscCall(SimulationDestroy(&sim));
      PetscCallMPI(MPI_Comm_free(&sub));
    }
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  }
  if (!rank) {
    unlink(path);
    char sub[PETSC_MAX_PATH_LEN];
    snprintf(sub, sizeof(sub), "%s/checkpoints", dir);
    rmdir(sub);
    rmdir(dir);
    PetscCall(PetscFree(ref));
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
  int rc = TestFinish("restart on other rank counts");
  PetscCall(PetscFinalize());
  return rc;
}
