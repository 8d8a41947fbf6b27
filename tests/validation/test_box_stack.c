/* Ten boxes (half extents 0.1, 0.1, 0.05 m, 4 kg) stacked on a plane, each turned about z by 5
 * degrees against the one below (alternately +-2.5 deg), so every box-box interface is a clipped
 * octagon of 8 contact points (collision/box_box.h); gravity tilted by 0.01 rad along x, so that
 * friction carries a lateral load and a contact lost or misplaced shows as drift. The exact answer
 * is static equilibrium. The criterion: after 5 s, no contact penetrates by more than 1e-3
 * of the half extent (5e-5 m); the stack also stays put (every box within 1e-4 m of its start,
 * every speed below 1e-4 m/s: a stack that slides, topples or creeps leaves both at once).
 *  - CCP, h = 0.005 s, APGD to 1e-8 m/s: a step solved to tol leaves a contact's normal velocity
 *    within tol of its target, h tol = 5e-11 m of position; measured values are printed.
 *  - Penalty, Hooke k = 1e7 N/m per point, h = 5e-5 s (the bottom box's 4 corners carry 392 N:
 *    9.8e-6 m static overlap, a fifth of the bound), 1 s: the boxes aligned (4 points per interface,
 *    the upper box's lower vertices) and gravity upright. Its normal oscillation is damped out
 *    within 0.3 s (restitution 0.2; measured: largest speed 3e-13 m/s from 0.3 s on). The turned
 *    and tilted stack does not settle under the penalty model (a rocking mode, alternating about y
 *    from box to box, keeps about 0.1 rad/s; the turned boxes' octagons lose contact): README
 *    "Limitations". */
// ctest: labels=validation timeout=600
#include "test_util.h"

#define NBOX 10
#define HX   0.1
#define HZ   0.05
#define TILT 0.01

/* The stack; the penalty model's aligned and upright (above) */
static PetscErrorCode MakeStack(PetscBool penalty, Simulation *sim)
{
  const double tilt = penalty ? 0 : TILT, turn = penalty ? 0 : 2.5;
  char         yaml[8192];
  int          len;

  PetscFunctionBegin;
  len = snprintf(yaml, sizeof(yaml),
                 "domain: {min: [-2, -2, -0.5], max: [2, 2, 2]}\n"
                 "gravity: [%.17g, 0, %.17g]\n"
                 "time: {step: %g, end: 10}\n"
                 "%s"
                 "materials:\n"
                 "  - {name: m, density: 1000, friction: 0.5%s}\n"
                 "walls:\n"
                 "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}\n"
                 "bodies:\n",
                 9.81 * sin(tilt), -9.81 * cos(tilt), penalty ? 5e-5 : 0.005,
                 penalty ? "contact: {model: penalty, normal: hooke, normal_stiffness: 1.0e7, envelope: 0.002}\n"
                         : "contact: {model: ccp, envelope: 0.005, max_recovery_speed: 0.5}\n"
                           "solver: {type: apgd, max_iterations: 5000, tolerance: 1.0e-8}\n",
                 penalty ? ", kinetic_friction: 0.5, young_modulus: 1.0e8, poisson_ratio: 0.3, restitution: 0.2, "
                           "tangential_stiffness: 1.0e6"
                         : "");
  for (int k = 0; k < NBOX; k++) {
    const double a = (k % 2 ? turn : -turn) * M_PI / 180;
    len += snprintf(yaml + len, sizeof(yaml) - (size_t)len,
                    "  - {shape: box, half_extents: [%g, %g, %g], position: [0, 0, %.17g], orientation: [%.17g, 0, 0, "
                    "%.17g], material: m}\n",
                    HX, HX, HZ, HZ + 2 * HZ * k, cos(a / 2), sin(a / 2));
  }
  PetscCall(TestSimulationFromText(yaml, sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunStack(PetscBool penalty, double t_end)
{
  Simulation sim;
  double     pen = 0, moved = 0, speed = 0, start[NBOX][3] = {{0}};
  PetscInt   boxbox = 0, unconverged = 0;

  PetscFunctionBegin;
  PetscCall(MakeStack(penalty, &sim));
  for (int k = 0; k < NBOX; k++) {
    double   v[6] = {0};
    PetscInt found;
    PetscCall(TestBodyGet(sim, k, start[k], v, &found));
  }
  while (SimulationTime(sim) < t_end - 0.5 * SimulationScenario(sim)->time_step) {
    PetscCall(SimulationStep(sim));
    unconverged += !penalty && !SimulationLastStep(sim)->converged;
  }
  for (PetscInt i = 0; i < SimulationContacts(sim)->n; i++) {
    pen = PetscMax(pen, -SimulationContacts(sim)->c[i].phi);
    boxbox += SimulationContacts(sim)->key[i].ida >= 0;
  }
  for (int k = 0; k < NBOX; k++) {
    double   x[3] = {0}, v[6] = {0}, d[3];
    PetscInt found;
    PetscCall(TestBodyGet(sim, k, x, v, &found));
    v3_sub(d, x, start[k]);
    moved = PetscMax(moved, v3_norm(d));
    speed = PetscMax(speed, v3_norm(v));
  }
  printf("%s stack of %d boxes after %g s: deepest penetration %.3e m (bound %.1e), %" PetscInt_FMT
         " box-box contact points, largest displacement %.3e m, largest speed %.3e m/s, %" PetscInt_FMT
         " steps unconverged\n",
         penalty ? "penalty" : "CCP", NBOX, t_end, pen, 1e-3 * HZ, boxbox, moved, speed, unconverged);
  TEST_CHECK(boxbox == (penalty ? 4 : 8) * (NBOX - 1),
             "%" PetscInt_FMT " box-box contact points, want %d per interface", boxbox, penalty ? 4 : 8);
  TEST_CHECK(pen < 1e-3 * HZ, "penetration %.3e m above 1e-3 of the half extent", pen);
  TEST_CHECK(moved < 1e-4, "a box moved %.3e m", moved);
  TEST_CHECK(speed < 1e-4, "a box moves at %.3e m/s", speed);
  TEST_CHECK(unconverged == 0, "%" PetscInt_FMT " steps unconverged", unconverged);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(RunStack(PETSC_FALSE, 5.0));
  PetscCall(RunStack(PETSC_TRUE, 1.0));
  int rc = TestFinish("stack of ten boxes");
  PetscCall(PetscFinalize());
  return rc;
}
