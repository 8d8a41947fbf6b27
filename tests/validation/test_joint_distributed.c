// ctest: labels=mpi timeout=1800 ranks=4
/* Joints on several ranks (docs/design.md "Joints", src/joints/joints.h): a joint is computed by the owner of its
 * body B, which holds body A as a ghost however far it is; A's impulse reaches A's owner through
 * the ghost. Run on this run's ranks (process grid p x 1 x 1 along x, load balancing every 50
 * steps) and, on rank 0 alone, on one rank; the trajectories must agree.
 *
 * Scenario (no contacts; domain x in [-2.5, 2.5], so on 4 ranks the cuts start at x = -1.25, 0,
 * 1.25; balancing moves them):
 *  - a double pendulum on revolute joints (axis y) hinged at the origin, links of 1 m (sphere
 *    centres 0.5 m below their hinges), at 45 degrees along +x, turning rigidly at 3 rad/s
 *    towards -x: link 1 starts on the rank of x in [0, 1.25), link 2 0.75 m (7 halos) from it; the
 *    hinge between them is computed with link 1 as a bonded ghost; link 1 swings through x = 0;
 *  - a distance joint of 3 m between a sphere hanging from the ground by a spherical joint at
 *    x = -1.5 and a sphere at x = +1.5 thrown down (6 m/s, along its circle) and along y: their
 *    owners are the two outer ranks (not neighbours on 4 ranks), and the far sphere falls on its
 *    3 m circle towards the middle ranks.
 *
 * Checks, every step for 0.3 s (h = 1 ms):
 *  - every body's position agrees with the 1-rank run within 1e-6 m. The solves reach 1e-9 m/s
 *    (checked below 1e-7 m/s), so the runs differ by ~1e-9 m/s per step in velocity and ~1e-9 m
 *    in position over 0.3 s, amplified by the double pendulum's sensitivity (a factor e^(1..3)
 *    over 0.3 s): 1e-6 m leaves a margin of ~100; a joint impulse lost on a ghost, or applied
 *    twice, moves a body by ~g h t = 3 mm over the run;
 *  - the number of rows warm-started from the last step's memory is the same as on one rank, step
 *    by step: a joint whose memory did not follow its body to the new owner (migration, balancing)
 *    would start cold there and count one less;
 *  - the joints hold on every rank count: hinge gaps and the distance error below 1e-6 m (the
 *    issue's bound for the pendulums), each joint computed by exactly one rank (the sum over ranks
 *    of the joint blocks equals the joint count).
 * Registered on 4 ranks only: there link 1 swings through the middle cut (x = 0 before balancing
 * moves it) and the distance joint joins ranks that are not neighbours, which covers the 2-rank
 * case's paths (a jointed body's partner held as a ghost, migration with the joint memory);
 * restart/joints_bitwise also runs joints on 2 ranks. Each step's solve to 1e-9 m/s takes about
 * 360 APGD iterations, each with an Allreduce that waits for the scheduler beside a CPU-bound
 * process: a second rank count would add minutes there (the 4-rank run took 153 s beside one `yes` on
 * 2 cores at load 17-19, 138-544 s in a `ctest -j2` beside one; 1 to 30 s idle): timeout 1800 s (over 3 times
 * the longest). */
#include "test_util.h"

#define STEPS  300
#define NBODY  4
#define NJOINT 4
#define L      0.5

static const char *scenario =
  "domain: {min: [-2.5, -1, -4], max: [2.5, 1, 2.5]}\n"
  "gravity: [0, 0, -9.81]\n"
  "time: {step: 0.001, end: 0.3}\n"
  "solver: {type: apgd, max_iterations: 5000, tolerance: 1.0e-9}\n"
  "materials:\n"
  "  - {name: m, density: 1000, friction: 0.5}\n"
  "bodies:\n"
  "  - {id: link1, shape: sphere, radius: 0.05, mass: 1.0, position: [0.35355339059327379, 0, -0.35355339059327379], "
  "velocity: [-1.0606601717798214, 0, -1.0606601717798214], angular_velocity: [0, 3, 0], material: m}\n"
  "  - {id: link2, shape: sphere, radius: 0.05, mass: 1.0, position: [1.0606601717798214, 0, -1.0606601717798214], "
  "velocity: [-3.1819805153394639, 0, -3.1819805153394639], angular_velocity: [0, 3, 0], material: m}\n"
  "  - {id: left, shape: sphere, radius: 0.05, mass: 1.0, position: [-1.5, 0, 0], material: m}\n"
  "  - {id: right, shape: sphere, radius: 0.05, mass: 1.0, position: [1.5, 0, 0], velocity: [0, 0.5, -6], material: "
  "m}\n"
  "joints:\n"
  "  - {type: revolute, body_a: ground, body_b: link1, point: [0, 0, 0], axis: [0, 1, 0]}\n"
  "  - {type: revolute, body_a: link1, body_b: link2, point: [0.70710678118654752, 0, -0.70710678118654752], axis: [0, "
  "1, 0]}\n"
  "  - {type: spherical, body_a: ground, body_b: left, point: [-1.5, 0, 0.5]}\n"
  "  - {type: distance, body_a: left, body_b: right, point_a: [-1.5, 0, 0], point_b: [1.5, 0, 0]}\n";

typedef struct {
  double   x[NBODY][3], q[NBODY][4];
  PetscInt warm_started, joint_blocks;
  double   residual;
} StepRecord;

/* Run the scenario on comm, recording every step (the same on every rank of comm). */
static PetscErrorCode Run(MPI_Comm comm, StepRecord *rec)
{
  Simulation sim;

  PetscFunctionBegin;
  PetscCall(TestSimulationOnComm(comm, scenario, "joint-distributed", &sim));
  for (int n = 0; n < STEPS; n++) {
    double   mine[NBODY * 7] = {0};
    PetscInt blocks          = SimulationJointBlocks(sim);
    PetscCall(SimulationStep(sim));
    for (PetscInt i = 0; i < SimulationBodies(sim)->n_owned; i++) {
      const int64_t id = SimulationBodies(sim)->id[i];
      for (int k = 0; k < 3; k++) mine[7 * id + k] = SimulationBodies(sim)->pos[3 * i + k];
      for (int k = 0; k < 4; k++) mine[7 * id + 3 + k] = SimulationBodies(sim)->quat[4 * i + k];
    }
    blocks = SimulationJointBlocks(sim);
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, mine, NBODY * 7, MPI_DOUBLE, MPI_SUM, comm)); /* one owner each: exact */
    PetscCallMPI(MPI_Allreduce(&blocks, &rec[n].joint_blocks, 1, MPIU_INT, MPI_SUM, comm));
    for (int b = 0; b < NBODY; b++) {
      for (int k = 0; k < 3; k++) rec[n].x[b][k] = mine[7 * b + k];
      for (int k = 0; k < 4; k++) rec[n].q[b][k] = mine[7 * b + 3 + k];
    }
    rec[n].warm_started = SimulationLastStep(sim)->warm_started;
    rec[n].residual     = SimulationLastStep(sim)->residual_max;
  }
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Largest joint error of a step (m): the two hinge gaps and the distance joint's length error. */
static double JointError(const StepRecord *r)
{
  const double y[3] = {0, 0, 0};
  double       lever[3], hinge[3], d[3], worst;
  /* link 1's hinge at the origin: its centre + the lever (-L sin 45, 0, L cos 45) in its frame */
  const double up[3] = {-L * M_SQRT1_2, 0, L * M_SQRT1_2}, down[3] = {L * M_SQRT1_2, 0, -L * M_SQRT1_2};
  quat_rotate(lever, r->q[0], up);
  v3_add(hinge, r->x[0], lever);
  v3_sub(d, hinge, y);
  worst = v3_norm(d);
  /* the middle hinge: link 1's centre + down, against link 2's centre + up */
  double h1[3], h2[3];
  quat_rotate(lever, r->q[0], down);
  v3_add(h1, r->x[0], lever);
  quat_rotate(lever, r->q[1], up);
  v3_add(h2, r->x[1], lever);
  v3_sub(d, h1, h2);
  worst = PetscMax(worst, v3_norm(d));
  v3_sub(d, r->x[3], r->x[2]); /* the distance joint's anchors are the centres */
  return PetscMax(worst, fabs(v3_norm(d) - 3));
}

int main(int argc, char **argv)
{
  StepRecord *par, *ser;
  PetscMPIInt rank, size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(TestSlabsAlongX("50"));
  PetscCall(PetscMalloc2(STEPS, &par, STEPS, &ser));
  PetscCall(Run(PETSC_COMM_WORLD, par));
  if (!rank) {
    double dx = 0, jerr = 0, res = 0, xmin[NBODY], xmax[NBODY];
    int    worst_step = 0, warm_diff = 0, blocks_bad = 0;
    PetscCall(TestSerialReference());
    PetscCall(Run(PETSC_COMM_SELF, ser));
    for (int b = 0; b < NBODY; b++) xmin[b] = xmax[b] = par[0].x[b][0];
    for (int n = 0; n < STEPS; n++) {
      for (int b = 0; b < NBODY; b++) {
        for (int k = 0; k < 3; k++)
          if (fabs(par[n].x[b][k] - ser[n].x[b][k]) > dx) {
            dx         = fabs(par[n].x[b][k] - ser[n].x[b][k]);
            worst_step = n + 1;
          }
        xmin[b] = PetscMin(xmin[b], par[n].x[b][0]);
        xmax[b] = PetscMax(xmax[b], par[n].x[b][0]);
      }
      jerr = PetscMax(jerr, PetscMax(JointError(&par[n]), JointError(&ser[n])));
      res  = PetscMax(res, PetscMax(par[n].residual, ser[n].residual));
      warm_diff += par[n].warm_started != ser[n].warm_started;
      blocks_bad += par[n].joint_blocks != NJOINT;
    }
    printf("joints on %d ranks vs 1, %d steps: largest position difference %.3e m (step %d); joint error %.2e m; "
           "largest residual %.1e m/s; %d steps with another warm-start count; x ranges:",
           (int)size, STEPS, dx, worst_step, jerr, res, warm_diff);
    for (int b = 0; b < NBODY; b++) printf(" [%.2f, %.2f]", xmin[b], xmax[b]);
    printf("\n");
    TEST_CHECK(dx < 1e-6, "positions differ from the 1-rank run by %.3e m > 1e-6 m", dx);
    TEST_CHECK(jerr < 1e-6, "joint error %.3e m > 1e-6 m", jerr);
    TEST_CHECK(res < 1e-7, "largest residual %.3e m/s: the joint rows were not solved", res);
    TEST_CHECK(warm_diff == 0,
               "%d steps warm-started another number of rows than on one rank (joint memory lost on migration?)",
               warm_diff);
    TEST_CHECK(blocks_bad == 0, "%d steps where the joints were not computed by exactly one rank each", blocks_bad);
    TEST_CHECK(xmin[0] < 0 && xmax[0] > 0 && xmin[3] < 1.1,
               "the bodies should cross the ranks' cuts: link 1 x in [%g, %g], far sphere x down to %g", xmin[0],
               xmax[0], xmin[3]);
  }
  PetscCallMPI(MPI_Bcast(&failures, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  PetscCall(PetscFree2(par, ser));
  int rc = TestFinish("joints distributed");
  PetscCall(PetscFinalize());
  return rc;
}
