/* Prescribed wall motion (bodies/walls.h): the gate's timing and the same contacts on any rank count.
 *
 * 1. A gate: a sphere (r = 0.05 m) rests on a box wall that drops at 2 m/s from start = 0.1 s to
 *    end = 0.2 s (h = 5 ms). The box's pose is a pure function of time, so until t = 0.1 s its centre
 *    is the scenario's bit for bit, and after it z = -2 (min(t, 0.2) - 0.1) to rounding (1e-12 m);
 *    the velocity it gives the contacts over the next step is (0, 0, -2) exactly while the motion
 *    runs, zero otherwise. The sphere rests (z = 0.1 m within 1e-9 m: the solver's 1e-10 m/s over 20
 *    steps) until the gate starts, then falls freely behind it (the gate is faster than g t up to
 *    0.2 s): after k steps its velocity is -g h k within 1e-6 m/s (the solver's tolerance, well
 *    below the 0.049 m/s of one step's fall), so it starts falling in the step the gate starts.
 * 2. A drum turning at 2 rad/s from t = 0 under three rings of 13 spheres (r = 0.01 m) lying on its
 *    bottom, 0.1 mm apart (within the envelope: gaps >= 0 keep the step's CCP well posed, GUIDE "When
 *    the exact CCP is ill-posed"; touching rings make it infeasible): one step solved to 1e-9 m/s on this run's ranks
 * and, on rank 0, on one rank; the velocities (angular ones times r) agree within 1e-7 m/s (GUIDE "Distributed run":
 * the CCP velocities are unique; 100 times the tolerance, as test_distributed_step). Every sphere touches the turning
 * wall, so each rank's wall contacts must carry the drum's surface velocity: the bottom spheres gain |v| > 1e-3 m/s in
 * that step (friction of the moving wall). */
// ctest: ranks=2 timeout=300
#include "test_mesh.h"

static const char *gate = "domain: {min: [-0.5, -0.5, -0.6], max: [0.5, 0.5, 0.5]}\n"
                          "gravity: [0, 0, -9.81]\n"
                          "time: {step: 0.005, end: 0.3}\n"
                          "contact: {model: ccp, envelope: 0.01}\n"
                          "solver: {type: apgd, max_iterations: 2000, tolerance: 1.0e-10}\n"
                          "materials:\n"
                          "  - {name: m, density: 1000, friction: 0.5}\n"
                          "walls:\n"
                          "  - {type: box, center: [0, 0, 0], half_extents: [0.2, 0.2, 0.05], material: m,\n"
                          "     motion: {velocity: [0, 0, -2], start: 0.1, end: 0.2}}\n"
                          "bodies:\n"
                          "  - {shape: sphere, radius: 0.05, position: [0, 0, 0.1], material: m}\n";

static PetscErrorCode Gate(void)
{
  Simulation   sim;
  const double g = 9.81, h = 0.005;
  double       worst_rest = 0, worst_fall = 0, worst_pose = 0, worst_vel = 0;
  int          k_fall = 0;

  PetscFunctionBegin;
  PetscCall(TestSimulationFromText(gate, &sim));
  while (SimulationTime(sim) < 0.2 - 0.5 * h) {
    double      x[3] = {0}, v[6] = {0}, zc, vw;
    PetscInt    found;
    const Wall *w;
    double      t;
    PetscCall(SimulationStep(sim));
    PetscCall(TestBodyGet(sim, 0, x, v, &found));
    t  = SimulationTime(sim);
    w  = &SimulationWalls(sim)[0];
    zc = t <= 0.1 ? 0 : -2 * (PetscMin(t, 0.2) - 0.1);
    vw = t + 0.5 * h >= 0.1 && t + 0.5 * h < 0.2 ? -2 : 0;
    if (t <= 0.1)
      TEST_CHECK(w->center[2] == 0, "t = %.3f s: the gate moved before its start: z = %.3e m", t, w->center[2]);
    worst_pose = PetscMax(worst_pose, fabs(w->center[2] - zc) + fabs(w->center[0]) + fabs(w->center[1]));
    worst_vel  = PetscMax(worst_vel, fabs(w->velocity[2] - vw) + fabs(w->velocity[0]) + fabs(w->velocity[1]));
    if (t <= 0.1 + 0.5 * h) worst_rest = PetscMax(worst_rest, fabs(x[2] - 0.1) + fabs(v[2]));
    else {
      k_fall++;
      worst_fall = PetscMax(worst_fall, fabs(v[2] + g * h * k_fall));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "gate: pose off by %.2e m, velocity by %.2e m/s; the sphere at rest until 0.1 s within %.2e, "
                        "then %d steps of free fall within %.2e m/s\n",
                        worst_pose, worst_vel, worst_rest, k_fall, worst_fall));
  TEST_CHECK(worst_pose < 1e-12, "the gate's centre is off its prescribed path by %.3e m", worst_pose);
  TEST_CHECK(worst_vel == 0, "the gate's velocity is off the prescribed one by %.3e m/s", worst_vel);
  TEST_CHECK(worst_rest < 1e-9, "the sphere should rest on the gate until it starts: off by %.3e", worst_rest);
  TEST_CHECK(k_fall == 20 && worst_fall < 1e-6,
             "the sphere should fall freely from the gate's start (%d steps): velocity off -g h k by %.3e m/s", k_fall,
             worst_fall);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One step of the drum on comm, every body gathered on rank 0. */
static PetscErrorCode DrumStep(MPI_Comm comm, TestBodyVel **out, PetscInt *n)
{
  char       yaml[8192];
  Simulation sim;

  PetscFunctionBegin;
  TestDrumRings("  - {type: cylinder, point: [0, 0, 0], axis: [0, 1, 0], radius: 0.1, inside: true, material: m,\n"
                "     motion: {angular_velocity: 2}}\n"
                "  - {type: plane, point: [0, -0.035, 0], normal: [0, 1, 0], material: m}\n"
                "  - {type: plane, point: [0, 0.035, 0], normal: [0, -1, 0], material: m}\n",
                yaml, sizeof yaml);
  PetscCall(TestSimulationOnComm(comm, yaml, "moving-drum", &sim));
  PetscCall(SimulationStep(sim));
  TEST_CHECK(SimulationLastStep(sim)->converged, "the drum's step did not converge (residual %.3e m/s)",
             SimulationLastStep(sim)->residual_max);
  PetscCall(TestGatherVelocities(sim, out, n));
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DrumRanks(void)
{
  TestBodyVel *par = NULL, *ser = NULL;
  PetscInt     npar = 0, nser = 0;
  PetscMPIInt  rank, size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(DrumStep(PETSC_COMM_WORLD, &par, &npar));
  if (!rank) {
    PetscBool same_ids;
    double    vbottom;
    PetscCall(DrumStep(PETSC_COMM_SELF, &ser, &nser));
    const double worst = TestLargestVelocityDifference(par, npar, ser, nser, 0.01, &same_ids);
    vbottom            = v3_norm(par[6].v); /* the middle sphere of the first ring, at the bottom */
    printf("drum, %d ranks: %" PetscInt_FMT " bodies, largest velocity difference to 1 rank %.3e m/s; the bottom "
           "sphere's speed after one step %.3e m/s\n",
           size, npar, worst, vbottom);
    TEST_CHECK(same_ids && npar == 39, "the ids differ from the 1-rank run (%" PetscInt_FMT " bodies)", npar);
    TEST_CHECK(worst <= 1e-7, "velocities differ from the 1-rank solve by %.3e m/s > 1e-7", worst);
    TEST_CHECK(vbottom > 1e-3, "the turning drum should drag its bottom sphere: speed %.3e m/s", vbottom);
    PetscCall(PetscFree(ser));
    PetscCall(PetscFree(par));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The conveyor on model `model` (contact and material keys). */
static PetscErrorCode Conveyor(const char *model, const char *keys, double h)
{
  char         yaml[4096];
  Simulation   sim;
  double       x[3] = {0}, v[6] = {0};
  PetscInt     found;
  const double want = 2.0 / 7.0;

  PetscFunctionBegin;
  snprintf(yaml, sizeof yaml,
           "domain: {min: [-1, -1, -0.5], max: [1, 1, 1]}\n"
           "gravity: [0, 0, -9.81]\n"
           "time: {step: %g, end: 0.3}\n"
           "%s"
           "walls:\n"
           "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m, motion: {velocity: [1, 0, 0]}}\n"
           "bodies:\n"
           "  - {shape: sphere, radius: 0.05, position: [0, 0, 0.05], material: m}\n",
           h, keys);
  PetscCall(TestSimulationFromText(yaml, &sim));
  PetscCall(TestRunUntil(sim, 0.3));
  PetscCall(TestBodyGet(sim, 0, x, v, &found));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "conveyor, %s: v = %.5f m/s at 0.3 s, 2 V / 7 = %.5f (%.2e relative)\n",
                        model, v[0], want, v[0] / want - 1));
  TEST_CHECK(fabs(v[0] / want - 1) < 0.01, "conveyor, %s: the sphere should roll at 2 V / 7 = %.4f m/s, not %.4f",
             model, want, v[0]);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(Gate());
  PetscCall(DrumRanks());
  PetscCall(Conveyor("ccp",
                     "contact: {model: ccp, envelope: 0.005}\n"
                     "solver: {type: apgd, max_iterations: 1000, tolerance: 1.0e-10}\n"
                     "materials:\n  - {name: m, density: 1000, friction: 0.2}\n",
                     1e-3));
  PetscCall(
    Conveyor("penalty",
             "contact: {model: penalty, envelope: 0.005}\n"
             "materials:\n  - {name: m, density: 1000, friction: 0.25, kinetic_friction: 0.2, young_modulus: 1.0e8, "
             "poisson_ratio: 0.3, restitution: 0.2, tangential_stiffness: 1.0e5}\n",
             1e-4));
  int rc = TestFinish("moving walls");
  PetscCall(PetscFinalize());
  return rc;
}
