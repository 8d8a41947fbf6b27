/* Cohesion: the reaction cone shifted to gn >= -cohesion h (ccp/law.h's neighbour in
 * ccp/kernels.h), checked against statics and against a pile.
 *
 * 1. Hanging sphere. A sphere of mass m touches a ceiling plane from below; gravity pulls it off
 *    with m g. The contact may pull with up to c (the pair's cohesion). With c = m g / 0.99 it holds
 *    (after 0.5 s the sphere has not moved: |dz| < 1e-9 m, speed < 1.5e-9 m/s; the solves stop at
 *    1e-10 m/s; measured 1e-13 m and 1.6e-10 m/s). With c = m g / 1.01 and m g / 1.05 it releases:
 *    while the contact is in the active set the cohesion pulls with its full c, so the sphere
 *    accelerates at exactly a = g - c / m (symplectic Euler is exact for a constant force), up to
 *    the solves' 1e-10 m/s per step: 1e-8 m/s over 100 steps, 1e-6 of v(0.1 s) (measured 1.3e-6):
 *    v(0.1 s) = a 0.1 within 1.5e-5.
 * 2. Pile. A 4 x 4 x 8 column of spheres (r = 1 cm, mu = 0.5) on a floor, released at rest, once
 *    without cohesion and once with a cohesion of 5 sphere weights per contact; the slope of the
 *    heap is atan(height / extent), the extent the horizontal radius holding 95% of the spheres.
 *    With cohesion the column stands: after 1 s its slope is the built column's within 0.05 deg
 *    (the solves stop at 1e-5 m/s, so in 1 s the top and the extent move by at most 1e-5 m, 0.004
 *    deg of slope; measured 3e-6 deg). Without cohesion it collapses (no rolling friction holds a
 *    column of spheres): below half the built slope (measured 5.1 deg of 71.9). */
#include "test_util.h"
#include <stdlib.h>

static PetscErrorCode HangingSim(double cohesion, Simulation *sim)
{
  char yaml[2048];

  PetscFunctionBegin;
  snprintf(yaml, sizeof(yaml),
           "domain: {min: [-1, -1, -1], max: [1, 1, 1]}\n"
           "gravity: [0, 0, -9.81]\n"
           "time: {step: 0.001, end: 1.0}\n"
           "contact: {model: ccp, envelope: 0.005}\n"
           "solver: {type: apgd, max_iterations: 5000, tolerance: 1.0e-10}\n"
           "materials:\n"
           "  - {name: glue, density: 1000, friction: 0.5, cohesion: %.17g}\n"
           "walls:\n"
           "  - {type: plane, point: [0, 0, 0], normal: [0, 0, -1], material: glue}\n"
           "bodies:\n"
           "  - {shape: sphere, radius: 0.05, position: [0, 0, -0.05], mass: 1.0, material: glue}\n",
           cohesion);
  PetscCall(TestSimulationFromText(yaml, sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int cmp_double(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* atan(height / extent) of the bodies of sim, degrees (extent: the horizontal radius about their
 * centroid holding 95% of them); their top in *height */
static PetscErrorCode Slope(Simulation sim, double *slope_deg, double *height, double *extent_out)
{
  const PetscInt n  = SimulationBodies(sim)->n_owned;
  double         cx = 0, cy = 0, top = 0, *rr;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, &rr));
  for (PetscInt i = 0; i < n; i++) {
    cx += SimulationBodies(sim)->pos[3 * i] / n;
    cy += SimulationBodies(sim)->pos[3 * i + 1] / n;
    top = PetscMax(top, SimulationBodies(sim)->pos[3 * i + 2] + SimulationBodies(sim)->radius[i]);
  }
  for (PetscInt i = 0; i < n; i++)
    rr[i] = hypot(SimulationBodies(sim)->pos[3 * i] - cx, SimulationBodies(sim)->pos[3 * i + 1] - cy) +
            SimulationBodies(sim)->radius[i];
  qsort(rr, (size_t)n, sizeof(double), cmp_double);
  *extent_out = rr[(PetscInt)(0.95 * (n - 1))];
  *height     = top;
  *slope_deg  = atan(top / *extent_out) * 180 / M_PI;
  PetscCall(PetscFree(rr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The column's slope (degrees) as built and after 1 s */
static PetscErrorCode PileSlope(double cohesion, double *slope0_deg, double *slope_deg)
{
  char       yaml[2048];
  Simulation sim;
  double     top, extent;

  PetscFunctionBegin;
  snprintf(yaml, sizeof(yaml),
           "domain: {min: [-1, -1, -0.1], max: [1, 1, 1]}\n"
           "gravity: [0, 0, -9.81]\n"
           "time: {step: 0.002, end: 1.0}\n"
           "contact: {model: ccp, envelope: 0.001}\n"
           "solver: {type: apgd, max_iterations: 300, tolerance: 1.0e-5}\n"
           "materials:\n"
           "  - {name: grain, density: 2500, friction: 0.5, cohesion: %.17g}\n"
           "walls:\n"
           "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: grain}\n"
           "fills:\n"
           "  - {type: lattice, region: {min: [-0.04, -0.04, 0], max: [0.04, 0.04, 0.16]}, radius: 0.01, spacing: "
           "0.02, material: grain}\n",
           cohesion);
  PetscCall(TestSimulationFromText(yaml, &sim));
  PetscCall(Slope(sim, slope0_deg, &top, &extent));
  PetscCall(TestRunUntil(sim, 1.0));
  PetscCall(Slope(sim, slope_deg, &top, &extent));
  printf("column of %" PetscInt_FMT
         " spheres, cohesion %g N: height %.4f m, extent %.4f m, slope %.6f deg (as built %.6f deg), max speed %.2e "
         "m/s\n",
         SimulationBodies(sim)->n_owned, cohesion, top, extent, *slope_deg, *slope0_deg,
         SimulationLastStep(sim)->max_speed);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const double m = 1.0, g = 9.81;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  {
    Simulation sim;
    PetscCall(HangingSim(m * g / 0.99, &sim));
    PetscCall(TestRunUntil(sim, 0.5));
    const double dz = SimulationBodies(sim)->pos[2] + 0.05, v = v3_norm(SimulationBodies(sim)->vel);
    printf("hanging sphere, m g = 0.99 cohesion: moved %.2e m, speed %.2e m/s after 0.5 s\n", dz, v);
    TEST_CHECK(fabs(dz) < 1e-9 && v < 1.5e-9, "the cohesive contact should hold: moved %.3e m, speed %.3e m/s", dz, v);
    PetscCall(SimulationDestroy(&sim));
  }
  for (int k = 0; k < 2; k++) {
    const double ratio = k ? 1.05 : 1.01, c = m * g / ratio, a = g - c / m;
    Simulation   sim;
    PetscCall(HangingSim(c, &sim));
    PetscCall(TestRunUntil(sim, 0.1));
    const double v = -SimulationBodies(sim)->vel[2];
    printf("hanging sphere, m g = %.2f cohesion: speed after 0.1 s %.6e m/s ((g - c/m) t = %.6e; rel. error %.1e), "
           "contacts %" PetscInt_FMT "\n",
           ratio, v, a * 0.1, v / (a * 0.1) - 1, SimulationContacts(sim)->n);
    TEST_CHECK(SimulationContacts(sim)->n == 1, "the contact should still be in the active set");
    TEST_CHECK(fabs(v / (a * 0.1) - 1) < 1.5e-5, "released sphere: speed %.9e vs %.9e", v, a * 0.1);
    PetscCall(SimulationDestroy(&sim));
  }
  {
    const double weight = 2500 * 4.0 / 3.0 * M_PI * 1e-6 * g; /* one sphere, N */
    double       plain, sticky, plain0, sticky0;
    PetscCall(PileSlope(0, &plain0, &plain));
    PetscCall(PileSlope(5 * weight, &sticky0, &sticky));
    TEST_CHECK(fabs(sticky - sticky0) < 0.05, "the cohesive column should stand: slope %.6f deg, built %.6f deg",
               sticky, sticky0);
    TEST_CHECK(plain < 0.5 * plain0, "the column without cohesion should collapse: slope %.3f deg, built %.3f deg",
               plain, plain0);
  }
  int rc = TestFinish("cohesion");
  PetscCall(PetscFinalize());
  return rc;
}
