/* A rotating drum lifts its bed by friction: 400 spheres (d = 10 mm) settle for 0.4 s in a drum of
 * radius 0.1 m (a cylinder wall, inside) between two end planes, then drum and end planes turn at
 * omega = 3 rad/s about +y (Froude number omega^2 R / g = 0.09), until 3 s.
 * The drum's wall moves up on the -x side, so the bed must be carried up there: its centre of mass
 * goes to x < 0 and its free surface tilts (higher at -x). The surface angle is the tilt of the bed
 * section's major principal axis (the chord of a circular segment is parallel to it).
 * Checks (the thresholds are margins on measured values, stated in the messages):
 *  - at rest (t = 0.4 s) the bed is level: |x_com| < 5 mm and |surface angle| < 5 deg (a poured
 *    bed's scatter: measured below 1 mm and 2 deg);
 *  - spinning, the bed is carried up: x_com < -10 mm, angle > 10 deg in both windows
 *    [1.2, 2.1) s and [2.1, 3.0) s (the spin-up's overshoot is over by 1.1 s; measured about -39 mm
 *    and 43 deg without rolling friction, -44 mm and 57 deg with it);
 *  - without rolling friction the bed rolls steadily: the two windows' mean angles within 3 deg
 *    (measured 0.5 deg apart; the angle sampled every 0.1 s stays within 41-46 deg). With
 *    rho = sigma = 0.4 r it slumps instead (avalanches every 0.6-0.7 s, 48-68 deg), so only its
 *    mean over [1.2, 3.0) s is compared:
 *  - rolling friction steepens the bed by more than 3 deg (as a pile's angle of repose; run-to-run
 *    scatter of such beds is about 2 deg, README "Rolling friction"; measured 12 deg).
 * Runs on 1 and 2 ranks (the drum's motion is evaluated by every rank on its own). */
// ctest: ranks=2 timeout=600
#include "test_util.h"

#define R_DRUM 0.1
#define OMEGA  3.0

typedef struct {
  double xcom, zcom, angle; /* m, m, degrees */
} BedShape;

/* The bed's centre of mass (x, z) and surface angle (degrees; positive: higher at -x). Collective. */
static PetscErrorCode Shape(Simulation sim, BedShape *b)
{
  const BodyStore *s    = SimulationBodies(sim);
  double           m[6] = {0}, a[6];
  double           cxx, czz, cxz;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < s->n_owned; i++) {
    const double x = s->pos[3 * i], z = s->pos[3 * i + 2];
    m[0] += 1;
    m[1] += x;
    m[2] += z;
    m[3] += x * x;
    m[4] += z * z;
    m[5] += x * z;
  }
  PetscCallMPI(MPI_Allreduce(m, a, 6, MPI_DOUBLE, MPI_SUM, SimulationComm(sim)));
  b->xcom = a[1] / a[0];
  b->zcom = a[2] / a[0];
  cxx     = a[3] / a[0] - b->xcom * b->xcom;
  czz     = a[4] / a[0] - b->zcom * b->zcom;
  cxz     = a[5] / a[0] - b->xcom * b->zcom;
  /* the major axis of [[cxx, cxz], [cxz, czz]] is at 0.5 atan2(2 cxz, cxx - czz) from +x; higher at -x is negative */
  b->angle = -0.5 * atan2(2 * cxz, cxx - czz) * 180 / M_PI;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Mean shape over [t0, t1) (every step). */
static PetscErrorCode Window(Simulation sim, double t0, double t1, BedShape *mean)
{
  int n = 0;
  PetscFunctionBegin;
  *mean = (BedShape){0, 0, 0};
  PetscCall(TestRunUntil(sim, t0));
  while (SimulationTime(sim) < t1 - 0.5 * SimulationScenario(sim)->time_step) {
    BedShape b;
    PetscCall(SimulationStep(sim));
    PetscCall(Shape(sim, &b));
    mean->xcom += b.xcom;
    mean->zcom += b.zcom;
    mean->angle += b.angle;
    n++;
  }
  mean->xcom /= n;
  mean->zcom /= n;
  mean->angle /= n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Drum(double rho, BedShape *rest, BedShape *w1, BedShape *w2)
{
  char       yaml[4096];
  Simulation sim;

  PetscFunctionBegin;
  snprintf(yaml, sizeof yaml,
           "domain: {min: [-0.11, -0.021, -0.11], max: [0.11, 0.021, 0.11]}\n"
           "gravity: [0, 0, -9.81]\n"
           "time: {step: 0.004, end: 3.0}\n"
           "contact: {model: ccp, envelope: 0.002, max_recovery_speed: 0.2}\n"
           "solver: {type: apgd, max_iterations: 50, tolerance: 1.0e-4}\n"
           "materials:\n"
           "  - {name: g, density: 2500, friction: 0.5, rolling_friction: %g, spinning_friction: %g}\n"
           "walls:\n"
           "  - {type: cylinder, point: [0, 0, 0], axis: [0, 1, 0], radius: %g, inside: true, material: g,\n"
           "     motion: {angular_velocity: %g, start: 0.4}}\n"
           "  - {type: plane, point: [0, -0.02, 0], normal: [0, 1, 0], material: g,\n"
           "     motion: {axis: [0, 1, 0], angular_velocity: %g, start: 0.4}}\n"
           "  - {type: plane, point: [0, 0.02, 0], normal: [0, -1, 0], material: g,\n"
           "     motion: {axis: [0, 1, 0], angular_velocity: %g, start: 0.4}}\n"
           "fills:\n"
           "  - {type: random, region: {min: [-0.095, -0.0195, -0.095], max: [0.095, 0.0195, 0.095]}, radius: 0.005,\n"
           "     count: 400, seed: 3, material: g}\n",
           rho, rho, R_DRUM, OMEGA, OMEGA, OMEGA);
  PetscCall(TestSimulationFromText(yaml, &sim));
  PetscCall(TestRunUntil(sim, 0.4));
  PetscCall(Shape(sim, rest));
  PetscCall(Window(sim, 1.2, 2.1, w1));
  PetscCall(Window(sim, 2.1, 3.0, w2));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "rho = %g m: at rest x_com %.4f m, angle %.2f deg; spinning [1.2, 2.1) s x_com %.4f m, angle "
                        "%.2f deg; [2.1, 3.0) s x_com %.4f m, angle %.2f deg; %" PetscInt64_FMT " bodies\n",
                        rho, rest->xcom, rest->angle, w1->xcom, w1->angle, w2->xcom, w2->angle,
                        SimulationLastStep(sim)->bodies));
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const double rhos[2] = {0, 0.002};
  BedShape     rest[2], w1[2], w2[2];

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (int k = 0; k < 2; k++) {
    PetscCall(Drum(rhos[k], &rest[k], &w1[k], &w2[k]));
    TEST_CHECK(fabs(rest[k].xcom) < 5e-3 && fabs(rest[k].angle) < 5,
               "rho = %g: the bed at rest should be level: x_com %.4f m (|.| < 5 mm), angle %.2f deg (|.| < 5)",
               rhos[k], rest[k].xcom, rest[k].angle);
    TEST_CHECK(w1[k].xcom < -0.01 && w2[k].xcom < -0.01,
               "rho = %g: the spinning drum should carry the bed up its rising (-x) side: x_com %.4f, %.4f m (< -10 "
               "mm)",
               rhos[k], w1[k].xcom, w2[k].xcom);
    TEST_CHECK(w1[k].angle > 10 && w2[k].angle > 10, "rho = %g: surface angle %.2f, %.2f deg should exceed 10 deg",
               rhos[k], w1[k].angle, w2[k].angle);
  }
  TEST_CHECK(fabs(w1[0].angle - w2[0].angle) < 3,
             "the surface angle should be steady after spin-up: %.2f then %.2f deg (within 3 deg)", w1[0].angle,
             w2[0].angle);
  TEST_CHECK(w1[1].angle + w2[1].angle > w1[0].angle + w2[0].angle + 6,
             "rolling friction should steepen the bed by more than 3 deg: mean %.2f deg against %.2f deg",
             0.5 * (w1[1].angle + w2[1].angle), 0.5 * (w1[0].angle + w2[0].angle));
  int rc = TestFinish("rotating drum");
  PetscCall(PetscFinalize());
  return rc;
}
