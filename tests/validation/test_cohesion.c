/* Cohesion: the reaction cone shifted to gn >= -cohesion h (ccp/law.h's neighbour in
 * ccp/kernels.h), checked against statics and against a pile.
 *
 * 1. Hanging sphere. A sphere of mass m touches a ceiling plane from below; gravity pulls it off
 *    with m g. The contact may pull with up to c (the pair's cohesion). With c = m g / 0.99 it holds
 *    (after 0.5 s the sphere has not moved: |dz| < 1e-9 m, speed < 1e-8 m/s; the solves stop at
 *    1e-10 m/s). With c = m g / 1.01 and m g / 1.05 it releases: while the contact is in the
 *    active set the cohesion pulls with its full c, so the sphere accelerates at exactly
 *    a = g - c / m (symplectic Euler is exact for a constant force): v(0.1 s) = a 0.1 within 1%.
 * 2. Pile. A 4 x 4 x 8 column of spheres (r = 1 cm, mu = 0.5) on a floor, released at rest, once
 *    without cohesion and once with a cohesion of 5 sphere weights per contact. After 1 s the
 *    slope of the heap, atan(height / extent) with the extent the horizontal radius holding 95% of
 *    the spheres, must be steeper with cohesion, by at least 10 degrees (a cubic column without
 *    cohesion collapses; with it, it stands). */
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

/* atan(height / extent) of the settled column, degrees */
static PetscErrorCode PileSlope(double cohesion, double *slope_deg)
{
  char       yaml[2048];
  Simulation sim;
  double     cx = 0, cy = 0, top = 0, *rr;

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
  PetscCall(TestRunUntil(sim, 1.0));
  const PetscInt n = SimulationBodies(sim)->n_owned;
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
  const double extent = rr[(PetscInt)(0.95 * (n - 1))];
  *slope_deg          = atan(top / extent) * 180 / M_PI;
  printf("column of %" PetscInt_FMT
         " spheres, cohesion %g N: height %.4f m, extent %.4f m, slope %.1f deg, max speed %.2e m/s\n",
         n, cohesion, top, extent, *slope_deg, SimulationLastStep(sim)->max_speed);
  PetscCall(PetscFree(rr));
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
    TEST_CHECK(fabs(dz) < 1e-9 && v < 1e-8, "the cohesive contact should hold: moved %.3e m, speed %.3e m/s", dz, v);
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
    TEST_CHECK(fabs(v / (a * 0.1) - 1) < 0.01, "released sphere: speed %.6e vs %.6e", v, a * 0.1);
    PetscCall(SimulationDestroy(&sim));
  }
  {
    const double weight = 2500 * 4.0 / 3.0 * M_PI * 1e-6 * g; /* one sphere, N */
    double       plain, sticky;
    PetscCall(PileSlope(0, &plain));
    PetscCall(PileSlope(5 * weight, &sticky));
    TEST_CHECK(sticky > plain + 10,
               "the cohesive column (%.1f deg) should stand steeper than the plain one (%.1f deg) by 10 deg", sticky,
               plain);
  }
  int rc = TestFinish("cohesion");
  PetscCall(PetscFinalize());
  return rc;
}
