/* Load balance from the first step, and rebalancing on the imbalance threshold (decomp/balance.h,
 * src/step/placement.c), on this run's ranks.
 *
 * Skewed pile: 2,000 spheres heaped in one corner of a 4 m x 1 m x 1 m domain (a 0.5 x 0.5 x 0.24 m
 * random fill, and on its corner a 0.25 x 0.25 x 0.23 m one), so that the default grid of
 * MPI_Dims_create with uniform cuts leaves all of them to one or two ranks. After one step:
 *   - the work imbalance (max / mean over ranks of owned bodies + contacts) and the bodies' are at
 *     most 1.10 (the target); with balancing off (-balance_interval 0 -balance_threshold 0,
 *     the old default grid) the bodies' imbalance exceeds 1.5, so the scenario tells the two apart;
 *   - after 20 steps (the lowest spheres on the floor, others colliding) the velocities equal those of
 *     one rank within 1e-6 m/s (every step solved to 1e-8 m/s: two solves within 1e-8 of the solution
 *     set differ by a small multiple of that; test_distributed_step's bound).
 * Threshold: 2,000 spheres without gravity moving at 1 m/s along x through slabs along x
 * (-decomp_grid P,1,1), 0.01 m a step, with -balance_interval 0 and -balance_threshold 1.1: every
 * step's bodies' imbalance stays at most 1.25 (the threshold, plus two steps of drift: the decision
 * rides on a step's statistics and the cuts move at the end of the next; one step moves about 5% of a
 * 0.2 m slab's bodies across a cut at 4 ranks) and some rebalance happened; without the threshold
 * the imbalance passes 1.5 by the last step (the first slab empties). On one rank (no decomposition)
 * only the runs themselves are checked (the solves converge, the 1-rank comparison is with itself). */
// ctest: labels=decomp;mpi timeout=300 ranks=2;4
#include "test_util.h"
#include <string.h>

static const char *pile = "domain: {min: [0, 0, 0], max: [4, 1, 1]}\n"
                          "gravity: [0, 0, -9.81]\n"
                          "time: {step: 0.005, end: 1}\n"
                          "contact: {model: ccp, envelope: 0.001}\n"
                          "solver: {type: apgd, max_iterations: 2000, tolerance: 1.0e-8}\n"
                          "materials: [{name: m, density: 2500, friction: 0.5}]\n"
                          "walls: [{type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}]\n"
                          "fills:\n"
                          "  - {type: random, region: {min: [0, 0, 0.01], max: [0.5, 0.5, 0.25]}, radius: 0.01, "
                          "count: 1500, seed: 1, material: m}\n"
                          "  - {type: random, region: {min: [0, 0, 0.27], max: [0.25, 0.25, 0.5]}, radius: 0.01, "
                          "count: 500, seed: 2, material: m}\n";

static const char *drift = "domain: {min: [0, 0, 0], max: [4, 1, 1]}\n"
                           "gravity: [0, 0, 0]\n"
                           "time: {step: 0.01, end: 1}\n"
                           "contact: {model: ccp, envelope: 0.001}\n"
                           "solver: {type: apgd, max_iterations: 100, tolerance: 1.0e-8}\n"
                           "materials: [{name: m, density: 2500, friction: 0.5}]\n"
                           "fills:\n"
                           "  - {type: random, region: {min: [0.2, 0.1, 0.1], max: [1.0, 0.9, 0.9]}, radius: 0.01, "
                           "count: 2000, seed: 3, material: m, velocity: [1, 0, 0]}\n";

#define PILE_STEPS  20 /* compared with one rank after these: the lowest spheres have reached the floor */
#define DRIFT_STEPS 30

static PetscErrorCode SetOption(const char *name, const char *value)
{
  PetscFunctionBegin;
  if (value) PetscCall(PetscOptionsSetValue(NULL, name, value));
  else PetscCall(PetscOptionsClearValue(NULL, name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The pile on comm with balancing on (the defaults) or off: its grid and imbalances after one step,
 * and with vel the velocities after PILE_STEPS, gathered on rank 0. */
static PetscErrorCode PileStep(MPI_Comm comm, PetscBool balancing, double *bodies, double *work, PetscInt grid[3],
                               TestBodyVel **vel, PetscInt *n)
{
  Simulation              sim;
  SimulationDecomposition info;

  PetscFunctionBegin;
  PetscCall(SetOption("-balance_interval", balancing ? NULL : "0"));
  PetscCall(SetOption("-balance_threshold", balancing ? NULL : "0"));
  PetscCall(TestSimulationOnComm(comm, pile, "skewed-pile", &sim));
  PetscCall(SimulationStep(sim));
  PetscCall(SimulationGetDecomposition(sim, &info));
  *bodies = SimulationLastStep(sim)->imbalance;
  *work   = info.work;
  for (int k = 0; k < 3; k++) grid[k] = info.grid[k];
  for (int k = 1; vel && k < PILE_STEPS; k++) {
    PetscCall(SimulationStep(sim));
    TEST_CHECK(SimulationLastStep(sim)->converged, "pile: step %d did not converge (residual %.3e m/s)", k + 1,
               SimulationLastStep(sim)->residual_max);
  }
  if (vel) PetscCall(TestGatherVelocities(sim, vel, n));
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SkewedPile(void)
{
  PetscMPIInt  rank, size;
  double       bodies, work, off_bodies, off_work;
  TestBodyVel *par = NULL, *ser = NULL;
  PetscInt     npar = 0, nser = 0, grid[3], off_grid[3], g1[3];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PileStep(PETSC_COMM_WORLD, PETSC_FALSE, &off_bodies, &off_work, off_grid, NULL, NULL));
  PetscCall(PileStep(PETSC_COMM_WORLD, PETSC_TRUE, &bodies, &work, grid, &par, &npar));
  TEST_CHECK(size == 1 || off_bodies > 1.5, "pile, %d ranks, balancing off: imbalance %.3f (expected > 1.5)", size,
             off_bodies);
  TEST_CHECK(bodies <= 1.10 && work <= 1.10, "pile, %d ranks: imbalance at step 1 %.3f (bodies), %.3f (work) > 1.10",
             size, bodies, work);
  if (!rank) {
    PetscBool same_ids;
    double    b1, w1;
    PetscCall(PileStep(PETSC_COMM_SELF, PETSC_TRUE, &b1, &w1, g1, &ser, &nser));
    const double worst = TestLargestVelocityDifference(par, npar, ser, nser, 0.01, &same_ids); /* angular: times R */
    TEST_CHECK(same_ids && npar == nser, "pile: the bodies differ from the 1-rank run");
    TEST_CHECK(worst <= 1e-6, "pile, %d ranks: velocities differ from 1 rank by %.3e m/s (> 1e-6)", size, worst);
    printf("pile, %d ranks: grid %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT
           ", imbalance at step 1 %.3f bodies, %.3f work (balancing off: grid %" PetscInt_FMT ",%" PetscInt_FMT
           ",%" PetscInt_FMT ", %.3f, %.3f); largest velocity difference to 1 rank %.3e m/s\n",
           size, grid[0], grid[1], grid[2], bodies, work, off_grid[0], off_grid[1], off_grid[2], off_bodies, off_work,
           worst);
  }
  PetscCall(PetscFree(par));
  PetscCall(PetscFree(ser));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The drift with -balance_threshold threshold: the largest and the last step's bodies' imbalance, and
 * the rebalances. */
static PetscErrorCode Drift(const char *threshold, double *worst, double *last, PetscInt64 *balances)
{
  Simulation              sim;
  SimulationDecomposition info;
  PetscMPIInt             size;
  char                    grid[32];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  snprintf(grid, sizeof grid, "%d,1,1", (int)size);
  PetscCall(SetOption("-decomp_grid", grid));
  PetscCall(SetOption("-balance_interval", "0"));
  PetscCall(SetOption("-balance_threshold", threshold));
  PetscCall(TestSimulationOnComm(PETSC_COMM_WORLD, drift, "drift", &sim));
  *worst = 0;
  for (int k = 0; k < DRIFT_STEPS; k++) {
    PetscCall(SimulationStep(sim));
    *last  = SimulationLastStep(sim)->imbalance;
    *worst = PetscMax(*worst, *last);
  }
  PetscCall(SimulationGetDecomposition(sim, &info));
  *balances = info.balances;
  PetscCall(SimulationDestroy(&sim));
  PetscCall(SetOption("-decomp_grid", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Threshold(void)
{
  PetscMPIInt size;
  double      worst, last, off_worst, off_last;
  PetscInt64  balances, off_balances;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(Drift("0", &off_worst, &off_last, &off_balances));
  PetscCall(Drift("1.1", &worst, &last, &balances));
  TEST_CHECK(size == 1 || (off_last > 1.5 && off_balances == 0),
             "drift, %d ranks, no threshold: imbalance %.3f at the end (expected > 1.5)", size, off_last);
  TEST_CHECK(size == 1 || (worst <= 1.25 && balances > 0),
             "drift, %d ranks, threshold 1.1: largest imbalance %.3f (> 1.25?) after %" PetscInt64_FMT " rebalances",
             size, worst, balances);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "drift, %d ranks: threshold 1.1: largest imbalance %.3f, %" PetscInt64_FMT
                        " rebalances; none: %.3f at the end\n",
                        size, worst, balances, off_last));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(SkewedPile());
  PetscCall(Threshold());
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
  int rc = TestFinish("test_balance_first_step");
  PetscCall(PetscFinalize());
  return rc;
}
