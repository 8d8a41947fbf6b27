/* An unsolvable step is found and reported instead of iterated to the cap (ccp/apgd.c's test;
 * docs/design.md "Physics and numerics"), and a hard solvable one is not.
 *
 * Jam: 5 spheres (R = 5 cm) in a row, each between a floor and a fixed ceiling 2 R - 0.8 mm above
 * it, overlapping both by 0.4 mm (0.8% R) with overlap_tolerance 0: both contacts of a sphere ask
 * to separate at 0.4 mm / h = 0.08 m/s, which the walls forbid, so the step's CCP has no solution
 * (equal normal impulses on a sphere's two contacts cancel on it and do work b^T d < 0), on every
 * step, however the spheres move. Every step must be flagged unsolvable after at most 40
 * iterations (10 checks at the default check interval 4; measured: at most 20 on 1-3 ranks, 32
 * with -ccp_packed false), far below the cap of 500, and the spheres must stay slow: the solve
 * returns its best iterate, not the drifting one (below 1 m/s, twice the recovery speed; measured
 * 0.09 m/s). Without the test: 0 steps flagged, each at the cap.
 *
 * Control: a column of 10 spheres on the floor, each overlapping the one below by 0.4 mm, rolling
 * friction and gravity tilted by 0.01 rad as in test_stack, cap 20 iterations at 1e-8 m/s: solvable
 * (the column extends upwards) and hard: most steps stop at the cap (checked, so that the test
 * sees the checks of unconverged solves; measured 19 of 20). No step may be flagged (measured:
 * the test's Q reached 2.3% of its bound).
 *
 * On several ranks (p x 1 x 1 grid) a cut runs through the middle sphere of the row and through
 * the column: the decision must be the same on every rank (a rank that disagreed would leave the
 * solve's reductions: a hang, caught by the timeout) and the counts those of one rank. */
// ctest: timeout=300 ranks=2;3
#include "test_util.h"

/* Runs nsteps of a scenario of n spheres of radius R at heights z[k] (x[k] along x), a floor at z = 0
 * and, when ceiling > 0, a ceiling at z = ceiling; the solver capped at max_it, tolerance tol. Out:
 * steps flagged unsolvable, steps not converged, the largest iteration count and sphere speed. */
static PetscErrorCode Run(int n, const double *x, const double *z, double ceiling, int max_it, double tol, int nsteps,
                          PetscInt64 *flagged, PetscInt *unconverged, PetscInt *max_iter, double *max_speed)
{
  const double R = 0.05, tilt = 0.01;
  char         yaml[8192];
  int          len;
  Simulation   sim;

  PetscFunctionBegin;
  len = snprintf(yaml, sizeof(yaml),
                 "domain: {min: [-1, -1, -0.1], max: [1, 1, %.17g]}\n"
                 "gravity: [%.17g, 0, %.17g]\n"
                 "time: {step: 0.005, end: 1.0}\n"
                 "contact: {model: ccp, envelope: 0.002, max_recovery_speed: 0.5}\n"
                 "solver: {type: apgd, max_iterations: %d, tolerance: %g}\n"
                 "materials:\n"
                 "  - {name: m, density: 2500, friction: 0.5, rolling_friction: %g}\n"
                 "walls:\n"
                 "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}\n",
                 z[n - 1] + 2 * R, 9.81 * sin(tilt), -9.81 * cos(tilt), max_it, tol, 0.5 * R);
  if (ceiling > 0)
    len += snprintf(yaml + len, sizeof(yaml) - len,
                    "  - {type: plane, point: [0, 0, %.17g], normal: [0, 0, -1], material: m}\n", ceiling);
  len += snprintf(yaml + len, sizeof(yaml) - len, "bodies:\n");
  for (int k = 0; k < n; k++)
    len += snprintf(yaml + len, sizeof(yaml) - len,
                    "  - {shape: sphere, radius: %g, position: [%.17g, 0, %.17g], material: m}\n", R, x[k], z[k]);
  PetscCall(TestSimulationFromText(yaml, &sim));
  *unconverged = *max_iter = 0;
  *max_speed               = 0;
  for (int s = 0; s < nsteps; s++) {
    PetscCall(SimulationStep(sim));
    *unconverged += !SimulationLastStep(sim)->converged;
    *max_iter  = PetscMax(*max_iter, SimulationLastStep(sim)->iterations);
    *max_speed = PetscMax(*max_speed, SimulationLastStep(sim)->max_speed);
  }
  *flagged = SimulationInfeasibleSteps(sim);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const int    nsteps = 20;
  const double R = 0.05, delta = 4e-4;
  double       x[10], z[10];
  PetscInt64   flagged;
  PetscInt     unconverged, max_iter;
  double       max_speed;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(TestSlabsAlongX("0")); /* the cuts where the test puts them */

  /* the jam: 5 spheres in a row along x (3 R apart: no contact between them), each between the floor
   * and the ceiling, overlapping both by delta */
  for (int k = 0; k < 5; k++) {
    x[k] = -0.6 + 0.3 * k;
    z[k] = R - delta;
  }
  PetscCall(Run(5, x, z, 2 * R - 2 * delta, 500, 1e-6, nsteps, &flagged, &unconverged, &max_iter, &max_speed));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "jam (5 spheres between floor and ceiling, overlaps %g m): %" PetscInt64_FMT " of %d steps "
                        "flagged unsolvable, %" PetscInt_FMT " not converged, at most %" PetscInt_FMT
                        " iterations (cap 500), max speed %.3g m/s\n",
                        delta, flagged, nsteps, unconverged, max_iter, max_speed));
  TEST_CHECK(flagged == nsteps, "%" PetscInt64_FMT " of %d jammed steps were flagged unsolvable", flagged, nsteps);
  TEST_CHECK(max_iter <= 40, "a jammed step took %" PetscInt_FMT " iterations before it was flagged (at most 40)",
             max_iter);
  TEST_CHECK(max_speed < 1.0, "the jammed spheres reached %.3g m/s (at most 1 m/s)", max_speed);

  /* the control: a column of 10 on the floor, each overlapping the one below by delta */
  for (int k = 0; k < 10; k++) {
    x[k] = 0;
    z[k] = k ? z[k - 1] + 2 * R - delta : R - delta;
  }
  PetscCall(Run(10, x, z, 0, 20, 1e-8, nsteps, &flagged, &unconverged, &max_iter, &max_speed));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "control (10 overlapping spheres on a floor, cap 20): %" PetscInt64_FMT " of %d steps flagged "
                        "unsolvable, %" PetscInt_FMT " not converged, max speed %.3g m/s\n",
                        flagged, nsteps, unconverged, max_speed));
  TEST_CHECK(flagged == 0, "%" PetscInt64_FMT " steps of the solvable column were flagged unsolvable", flagged);
  TEST_CHECK(unconverged >= nsteps / 2,
             "only %" PetscInt_FMT " of %d control steps stopped at the cap: the control is not hard enough",
             unconverged, nsteps);

  int rc = TestFinish("unsolvable steps detected, solvable ones not");
  PetscCall(PetscFinalize());
  return rc;
}
