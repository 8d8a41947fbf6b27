/* The linear guideway of Tasora & Anitescu 2013, sec. 6.2: rolling friction in a mechanism.
 *
 * Model (cross-section y-z, pulling along x). A rail (fixed box walls) and a carriage carry rows of
 * steel balls of diameter 2 R_b = 6.4 mm whose contact lines are at 45 degrees, as in the paper
 * (which also models the raceways as stretched boxes aligned to 45 degrees, its Fig. 7). Row
 * right: ball centres at (y, z) = (a, 0); the rail raceway touches a ball at its lower inner
 * point, centre + R_b (-s, -s) (s = 1/sqrt 2), the carriage raceway at its upper outer point,
 * centre + R_b (s, s); the left row is the mirror image. Each raceway is a thin box turned 45
 * degrees about x: the rail's are long box walls; the carriage's are short box bodies, one per ball
 * (a box body may not start within its bounding radius of a box wall or box: box-box contact is
 * not implemented, so one long carriage box per row is refused; the raceways never touch, the
 * balls are between them), each held to a central body by a fixed joint. The carriage (central body
 * of mass M and six raceway boxes of 1 kg) is loaded by gravity: F_y = (M + 6 kg) g. It hangs from a puller by a
 * prismatic joint along z (free vertically, so the balls carry the load; x, y and rotation held);
 * the puller is driven at constant speed v along x by a prescribed motion, and rides on a
 * prismatic joint along x to the ground with seal friction S = 5.3 N (the seals' friction acts
 * between rail and carriage; the puller moves with the carriage along x, so it is the same force
 * on the same relative motion). Ball contacts: rolling friction rho = zeta R_b, zeta = 0.005,
 * sliding friction 0.3 (they roll), compliance 1e-8 m/N per surface (the paper's Tikhonov
 * regularization: the rows share the load uniquely).
 * Simplifications (stated): two loaded rows of three balls instead of four rows of nine. A pure
 * downward load without preload presses only the two upper rows (the paper's guideway "did not
 * consider static preload"): the two lower rows' raceways move away from their balls by the
 * deflection and carry no load, so they transmit no rolling resistance; they are left out (with
 * gravity their unloaded balls would need cages to stay in place). The ball count per row does
 * not enter the answer below. The balls' own weight (0.01 N each) is neglected in it (2e-5 of
 * the load).
 *
 * Expected force. A ball rolls without slip between the fixed rail and the carriage moving at v:
 * its centre moves at v / 2 and it turns at omega = v / (2 R_b) relative to both raceways (neither
 * turns), about an axis in both contact planes (n x e_x, n in the y-z plane). Each of its two
 * contacts carries the normal force N_b and resists the rolling with the torque rho N_b, so the
 * power it dissipates is 2 rho N_b omega = (rho / R_b) N_b v = zeta N_b v. The carriage's vertical
 * balance over the contact lines at 45 degrees gives sum_b N_b cos 45 = F_y, i.e. the balls carry
 * sum_b N_b = F_y / cos 45 = sqrt(2) F_y in all. The pull's power F_x v equals the dissipation,
 *     F_x = zeta sqrt(2) F_y + S,
 * which is the manufacturer's F_x = zeta F_y + S with zeta for the load on the balls' contact lines
 * (F_y / cos 45) rather than the vertical load: with contacts at 45 degrees the model's rolling
 * resistance is sqrt(2) times the catalogue formula's for the same zeta. The test compares with
 * the formula derived here, within 5% (the tolerance), for three loads, averaging the
 * motion joint's x reaction over 0.1..0.3 s (steady rolling; the start, where the balls spin up, is
 * left out). The solve stops at a residual of 1e-8 m/s (checked below 1e-6); the averaged force should be within ~1%.
 * At zero speed the carriage sticks: a pull by a force below the resistance (the puller free,
 * pulled by a gravity component along x giving 0.5 (zeta sqrt(2) F_y + S)) moves it by less than
 * 1e-6 m in 0.2 s (the elastic deflection of the contacts under it is ~1e-8 m). */
// ctest: timeout=120
#include "test_util.h"
#include "joints.h"

#define RB   0.0032
#define ZETA 0.005
#define SEAL 5.3
#define PITCH 0.016 /* ball spacing along a row (m): the carriage raceway boxes must not overlap (no box-box contact) */
#define MOTION_JOINT 8 /* index of the motion joint: 6 fixed, 2 prismatic, then it */

/* Scenario with load Fy (N); speed v along x (m/s) by a prescribed motion, or (v < 0) no motion
 * and a gravity component gx along x. */
static PetscErrorCode MakeSim(double Fy, double v, double gx, Simulation **sim)
{
  char         yaml[8192];
  size_t       len = 0;
  const double g = 9.81, s = M_SQRT1_2, a = 0.01, t = 0.002, M = Fy / g - 6;
#define ADD(...) len += (size_t)snprintf(yaml + len, sizeof(yaml) - len, __VA_ARGS__)

  PetscFunctionBegin;
  ADD("domain: {min: [-1, -1, -1], max: [1, 1, 1]}\n"
      "gravity: [%.17g, 0, %.17g]\n"
      "time: {step: 0.001, end: 1.0}\n"
      "contact: {model: ccp, envelope: 0.0003}\n"
      "solver: {type: apgd, max_iterations: 20000, tolerance: 1.0e-8}\n"
      "materials:\n"
      "  - {name: ball, density: 7800, friction: 0.3, rolling_friction: %.17g, compliance: 1.0e-8}\n"
      "  - {name: race, density: 7800, friction: 0.3, rolling_friction: %.17g, compliance: 1.0e-8}\n"
      "walls:\n",
      gx, -g, ZETA * RB, ZETA * RB);
  for (int side = -1; side <= 1; side += 2) { /* rail raceways: face through centre + R_b (-side s, -s) */
    const double nrm[2] = {side * s, s}, py = side * a - side * RB * s, pz = -RB * s, phi = -side * M_PI / 4;
    ADD("  - {type: box, center: [0.05, %.17g, %.17g], half_extents: [0.1, 0.004, %.17g], orientation: [%.17g, %.17g, 0, 0], material: race}\n",
        py - t * nrm[0], pz - t * nrm[1], t, cos(phi / 2), sin(phi / 2));
  }
  ADD("bodies:\n"
      "  - {id: carriage, shape: sphere, radius: 0.01, position: [0, 0, 0.08], mass: %.17g, material: race}\n"
      "  - {id: puller, shape: sphere, radius: 0.01, position: [0, 0, 0.2], mass: 1.0, material: race}\n",
      M);
  for (int side = -1; side <= 1; side += 2) /* carriage raceways: face through centre + R_b (side s, s), one per ball */
    for (int k = 0; k < 3; k++) {
      const double nrm[2] = {side * s, s}, py = side * a + side * RB * s, pz = RB * s, phi = -side * M_PI / 4, x = PITCH * (k - 1);
      ADD("  - {id: race%c%d, shape: box, half_extents: [0.006, 0.003, %.17g], position: [%.17g, %.17g, %.17g], orientation: [%.17g, %.17g, 0, 0], mass: 1.0, material: race}\n",
          side < 0 ? 'L' : 'R', k, t, x, py + t * nrm[0], pz + t * nrm[1], cos(phi / 2), sin(phi / 2));
      ADD("  - {shape: sphere, radius: %.17g, position: [%.17g, %.17g, 0], material: ball}\n", RB, x, side * a);
    }
  ADD("joints:\n");
  for (int side = -1; side <= 1; side += 2)
    for (int k = 0; k < 3; k++) ADD("  - {type: fixed, body_a: carriage, body_b: race%c%d, point: [0, 0, 0.08]}\n", side < 0 ? 'L' : 'R', k);
  ADD("  - {type: prismatic, body_a: puller, body_b: carriage, point: [0, 0, 0.08], axis: [0, 0, 1]}\n"
      "  - {type: prismatic, body_a: ground, body_b: puller, point: [0, 0, 0.2], axis: [1, 0, 0], friction: %.17g}\n",
      SEAL);
  if (v >= 0) ADD("  - {type: motion, body: puller, velocity: [%.17g, 0, 0]}\n", v);
#undef ADD
  PetscCheck(len < sizeof(yaml), PETSC_COMM_SELF, PETSC_ERR_PLIB, "scenario text too long");
  PetscCall(TestSimulationFromText(yaml, sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The x reaction (N) of joint j in the last step: its first row is along world x. */
static double JointForceX(const Simulation *sim, PetscInt j, double h)
{
  for (PetscInt i = 0; i < sim->contacts.n; i++)
    if (sim->contacts.key[i].ida == JOINT_KEY_BASE + j) return contact_gamma(&sim->contacts, i)[0] / h;
  return NAN;
}

int main(int argc, char **argv)
{
  const double h = 1e-3, v = 0.01, loads[3] = {245, 490, 980};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (int l = 0; l < 3; l++) {
    Simulation  *sim;
    const double expect = ZETA * M_SQRT2 * loads[l] + SEAL;
    double       sum = 0;
    int          n = 0, unconverged = 0;
    double       resmax = 0;
    PetscCall(MakeSim(loads[l], v, 0, &sim));
    while (sim->time < 0.3 - h / 2) {
      PetscCall(SimulationStep(sim));
      unconverged += !sim->last.converged;
      resmax = PetscMax(resmax, sim->last.residual_max);
      if (sim->time > 0.1 + h / 2) {
        sum += fabs(JointForceX(sim, MOTION_JOINT, h));
        n++;
      }
    }
    const double F = sum / n;
    printf("guideway F_y = %g N, v = %g m/s: resisting force %.5f N (mean of %d steps) vs zeta sqrt(2) F_y + S = %.5f N (rel. error %.2e; catalogue zeta F_y + S = %.5f N); %d steps not converged to 1e-8 m/s, largest residual %.1e m/s\n", loads[l], v, F, n, expect,
           F / expect - 1, ZETA * loads[l] + SEAL, unconverged, resmax);
    TEST_CHECK(resmax < 1e-6, "F_y = %g N: residual %.2e m/s: the steps are not solved", loads[l], resmax);
    TEST_CHECK(fabs(F / expect - 1) < 0.05, "F_y = %g N: resisting force %.5f N vs %.5f N", loads[l], F, expect);
    PetscCall(SimulationDestroy(&sim));
  }
  { /* zero pulling speed: the carriage sticks under a pull below the resistance */
    Simulation  *sim;
    const double Fy = 490, Fpull = 0.5 * (ZETA * M_SQRT2 * Fy + SEAL), mass = Fy / 9.81 + 1 + 6 * 1.07e-3; /* carriage, its raceways, the puller, the balls */
    double       x0[3], x1[3], vel[6];
    PetscInt     found;
    PetscCall(MakeSim(Fy, -1, Fpull / mass, &sim));
    PetscCall(TestBodyGet(sim, 0, x0, vel, &found));
    PetscCall(TestRunUntil(sim, 0.2));
    PetscCall(TestBodyGet(sim, 0, x1, vel, &found));
    printf("guideway at zero speed, pulled by %.4f N (half the resistance): carriage moved %.3e m along x in 0.2 s\n", Fpull, x1[0] - x0[0]);
    TEST_CHECK(found && fabs(x1[0] - x0[0]) < 1e-6, "the carriage should stick, moved %.3e m", x1[0] - x0[0]);
    PetscCall(SimulationDestroy(&sim));
  }
  int rc = TestFinish("guideway");
  PetscCall(PetscFinalize());
  return rc;
}
