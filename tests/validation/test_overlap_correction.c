/* contact.overlap_correction position (ccp/law.h split, ccp/overlap_correction.h) makes a jammed,
 * overlapping step solvable, removes the overlaps by moving positions only, and adds no kinetic energy.
 *
 * Wedge: 3 spheres (R = 5 cm, 1.309 kg, mu = 0.5, 3 R apart along y) in a V groove of two planes
 * inclined 70 degrees, each sphere overlapping both planes by 0.4 mm (0.8% R), gravity down. The
 * horizontal pair of opposite wall impulses lies in both friction cones (20 degrees from each normal,
 * within atan 0.5 = 26.6), cancels on the sphere and, with b_n = -0.4 mm / h < 0 on both contacts,
 * does work b^T d < 0: under overlap_correction velocity the step's CCP has no solution (an impulse
 * loop, GUIDE "When the exact CCP is ill-posed"). The control run checks that APGD flags at least half
 * of its steps (measured: 15 of 20; the spheres are then thrown out of the groove at up to 0.05 m/s).
 *
 * Under position the same scene must give (measured 1 and 2 ranks alike):
 *   - no step flagged and every step converged (b_n >= 0: the problem is bounded, ccp/law.h);
 *   - the overlaps never growing above OVERLAP_FLOOR (below) and at most that after 20 steps
 *     (measured: 4e-4, 1.6e-5, 6.7e-7, 2.5e-8 m, then 2-5e-9 m);
 *   - the spheres at most 1e-5 m/s (ten times the tolerance; measured 9.3e-7) and their kinetic
 *     energy at most that of all three at the tolerance, 2e-12 J (measured 1.7e-12 J): the pass
 *     moved them by about 1.2 mm without giving them speed.
 * Checked to fail: with the split disabled (ContactPairs.split false under position, so the velocity
 * problem pushes the overlaps apart again) the flagged, converged, speed and energy checks (2 flagged,
 * 0.027 m/s); with the pass skipped the overlap checks (the overlaps stay at 0.4 mm).
 *
 * On 2 ranks (p x 1 x 1 grid) the cut at x = 0 runs through the spheres: the pass is coupled. */
// ctest: timeout=300 ranks=2
#include "test_util.h"

#define NSPHERE 3
/* A converged velocity step may leave the contact velocities off by the tolerance, 1e-6 m/s: h times
 * that is 5e-9 m of overlap a step; twice that is the floor below which an overlap may wander. */
#define OVERLAP_FLOOR 1e-8
/* The kinetic energy of the three spheres (1.309 kg each) all moving at the tolerance 1e-6 m/s. */
#define KE_TOLERANCE (NSPHERE * 0.5 * 1.309 * 1e-6 * 1e-6)

static const double R = 0.05, overlap0 = 4e-4, incline = 70.0 * PETSC_PI / 180.0;

/* The larger overlap of sphere k (centre x) with the two planes through the groove's bottom line. */
static double Overlap(const double x[3])
{
  const double n1[3] = {sin(incline), 0, cos(incline)}, n2[3] = {-sin(incline), 0, cos(incline)};
  return PetscMax(R - v3_dot(n1, x), R - v3_dot(n2, x));
}

typedef struct {
  PetscInt64 flagged;
  PetscInt   unconverged, shrink_failures;
  double     max_speed, overlap_end, ke_max;
} Outcome;

static PetscErrorCode Run(const char *correction, int nsteps, Outcome *o)
{
  char       yaml[8192];
  int        len;
  Simulation sim;
  double     prev[NSPHERE];

  PetscFunctionBegin;
  len = snprintf(yaml, sizeof(yaml),
                 "domain: {min: [-1, -1, -0.1], max: [1, 1, 1]}\n"
                 "gravity: [0, 0, -9.81]\n"
                 "time: {step: 0.005, end: 1.0}\n"
                 "contact: {model: ccp, envelope: 0.002, max_recovery_speed: 0.5, overlap_correction: %s}\n"
                 "solver: {type: apgd, max_iterations: 500, tolerance: 1e-6}\n"
                 "materials:\n"
                 "  - {name: m, density: 2500, friction: 0.5}\n"
                 "walls:\n"
                 "  - {type: plane, point: [0, 0, 0], normal: [%.17g, 0, %.17g], material: m}\n"
                 "  - {type: plane, point: [0, 0, 0], normal: [%.17g, 0, %.17g], material: m}\n"
                 "bodies:\n",
                 correction, sin(incline), cos(incline), -sin(incline), cos(incline));
  for (int k = 0; k < NSPHERE; k++)
    len += snprintf(yaml + len, sizeof(yaml) - len,
                    "  - {shape: sphere, radius: %g, position: [0, %.17g, %.17g], material: m}\n", R, 3 * R * (k - 1),
                    (R - overlap0) / cos(incline));
  PetscCall(TestSimulationFromText(yaml, &sim));
  for (int k = 0; k < NSPHERE; k++) prev[k] = overlap0;
  o->unconverged = o->shrink_failures = 0;
  o->max_speed = o->overlap_end = o->ke_max = 0;
  for (int s = 0; s < nsteps; s++) {
    PetscCall(SimulationStep(sim));
    const StepStats *st = SimulationLastStep(sim);
    o->unconverged += !st->converged;
    o->max_speed   = PetscMax(o->max_speed, st->max_speed);
    o->ke_max      = PetscMax(o->ke_max, st->kinetic_energy);
    o->overlap_end = 0;
    for (int k = 0; k < NSPHERE; k++) {
      double   x[3] = {0}, v[6];
      PetscInt found;
      PetscCall(TestBodyGet(sim, k, x, v, &found));
      PetscCheck(found == 1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "sphere %d has %" PetscInt_FMT " owners", k, found);
      const double d = Overlap(x);
      if (d > PetscMax(prev[k], OVERLAP_FLOOR)) o->shrink_failures++;
      prev[k]        = d;
      o->overlap_end = PetscMax(o->overlap_end, d);
    }
  }
  o->flagged = SimulationInfeasibleSteps(sim);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const int nsteps = 20;
  Outcome   vel, pos;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(TestSlabsAlongX("0")); /* the cut at x = 0, through the spheres */

  PetscCall(Run("velocity", nsteps, &vel));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "wedge, overlap_correction velocity: %" PetscInt64_FMT
                        " of %d steps flagged unsolvable, %" PetscInt_FMT
                        " not converged, max speed %.3g m/s, kinetic energy up to %.3g J, overlap at the end %.3g m\n",
                        vel.flagged, nsteps, vel.unconverged, vel.max_speed, vel.ke_max, vel.overlap_end));
  TEST_CHECK(vel.flagged >= nsteps / 2,
             "only %" PetscInt64_FMT " of %d wedge steps flagged under velocity: the wedge is not a jam", vel.flagged,
             nsteps);

  PetscCall(Run("position", nsteps, &pos));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "wedge, overlap_correction position: %" PetscInt64_FMT
                        " of %d steps flagged unsolvable, %" PetscInt_FMT
                        " not converged, max speed %.3g m/s, kinetic energy up to %.3g J, overlap at the end %.3g m "
                        "(start %g m), %" PetscInt_FMT " overlaps grew above %g m\n",
                        pos.flagged, nsteps, pos.unconverged, pos.max_speed, pos.ke_max, pos.overlap_end, overlap0,
                        pos.shrink_failures, OVERLAP_FLOOR));
  TEST_CHECK(pos.flagged == 0, "%" PetscInt64_FMT " wedge steps flagged unsolvable under position", pos.flagged);
  TEST_CHECK(pos.unconverged == 0, "%" PetscInt_FMT " wedge steps not converged under position", pos.unconverged);
  TEST_CHECK(pos.shrink_failures == 0, "an overlap grew in %" PetscInt_FMT " sphere-steps", pos.shrink_failures);
  TEST_CHECK(pos.overlap_end <= OVERLAP_FLOOR, "the overlap is %.3g m after %d steps (want at most %g m)",
             pos.overlap_end, nsteps, OVERLAP_FLOOR);
  TEST_CHECK(pos.max_speed <= 1e-5, "the wedged spheres reached %.3g m/s (want at most 1e-5 m/s)", pos.max_speed);
  TEST_CHECK(pos.ke_max <= KE_TOLERANCE, "the kinetic energy reached %.3g J (want at most %.3g J)", pos.ke_max,
             KE_TOLERANCE);

  int rc = TestFinish("overlap correction position: a wedge jam solvable, overlaps removed, no energy gained");
  PetscCall(PetscFinalize());
  return rc;
}
