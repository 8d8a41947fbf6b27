/* The benchmarks' piles (bench_core.c, bench_solver.c): beds of spheres (d = 20 mm, 2028 kg/m^3,
 * mu = 0.6, rolling and spinning friction rho = sigma) on a floor, under gravity, built on a cubic
 * lattice of spacing 1.05 d with a seeded lateral jitter of +-0.02 d, settled by the caller's steps;
 * and the median of a few timings. */
#ifndef CCPDEM_BENCH_PILES_H
#define CCPDEM_BENCH_PILES_H
#include "step/simulation.h"
#include <math.h>
#include <stdio.h>

/* The solver block of bench_core's piles: capped APGD steps, kept whole warm starts.
 * Full warm starts after non-converged steps too (solver.warm_start_decay 1): with a decay of 0.5
 * after every non-converged step, the 6-dof pile's capped settling solves (100 APGD iterations,
 * rarely converged) lost support step after step and from about step 175 the pile sank through
 * the floor, a layer per step. With 1 it settles to 1e-4 m/s; the bench keeps 1 rather than the
 * default 0.99, so that its piles stay the ones docs/performance.md's figures were taken on. */
#define BENCH_SETTLE_SOLVER   "{type: apgd, max_iterations: 100, tolerance: 1.0e-4, warm_start_decay: 1}"
#define BENCH_SETTLE_MAX_IT   100
#define BENCH_SETTLE_TOL      1.0e-4
#define BENCH_SPHERE_RADIUS   0.01 /* m */
#define BENCH_LATTICE_SPACING (2.1 * BENCH_SPHERE_RADIUS)

/* A simulation on comm of the bench's material (rho = sigma = rho; rolling springs of compliance c_r rad/(N m)
 * when c_r > 0) on a floor in the box [lo, hi] x
 * [-0.1, zmax], with solver (a YAML flow mapping: the scenario's solver block) and fills (YAML
 * list text, may be ""); side (NULL: none) = {x0, x1, y0, y1}: four frictionless plane walls
 * x = x0, x = x1, y = y0, y = y1 facing inwards. Collective on comm; the caller destroys *sim. */
static inline PetscErrorCode BenchSimulation(MPI_Comm comm, const double lo[2], const double hi[2], double zmax,
                                             double rho, double c_r, const char *solver, const double *side,
                                             const char *fills, Simulation *sim)
{
  char     yaml[4096], walls[1024] = "", springs[64] = "", err[SCENARIO_ERR_MAX] = "";
  Scenario sc;

  PetscFunctionBegin;
  if (side) /* friction is the smaller of a pair's materials' (docs/scenario.md "Pair parameters") */
    snprintf(walls, sizeof(walls),
             "  - {type: plane, point: [%.17g, 0, 0], normal: [1, 0, 0], material: smooth}\n"
             "  - {type: plane, point: [%.17g, 0, 0], normal: [-1, 0, 0], material: smooth}\n"
             "  - {type: plane, point: [0, %.17g, 0], normal: [0, 1, 0], material: smooth}\n"
             "  - {type: plane, point: [0, %.17g, 0], normal: [0, -1, 0], material: smooth}\n",
             side[0], side[1], side[2], side[3]);
  if (c_r > 0) snprintf(springs, sizeof(springs), ", rolling_compliance: %.17g", c_r);
  const int len =
    snprintf(yaml, sizeof(yaml),
             "domain: {min: [%.17g, %.17g, -0.1], max: [%.17g, %.17g, %.17g]}\n"
             "gravity: [0, 0, -9.81]\n"
             "time: {step: 0.005, end: 1000}\n"
             "contact: {model: ccp, envelope: 0.001, max_recovery_speed: 0.5}\n"
             "solver: %s\n"
             "materials:\n"
             "  - {name: gravel, density: 2028, friction: 0.6, rolling_friction: %g, spinning_friction: %g%s}\n"
             "%s"
             "walls:\n"
             "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: gravel}\n%s%s",
             lo[0], lo[1], hi[0], hi[1], zmax, solver, rho, rho, springs,
             side ? "  - {name: smooth, density: 2028, friction: 0}\n" : "", walls, fills);
  PetscCheck(len > 0 && (size_t)len < sizeof(yaml), comm, PETSC_ERR_PLIB, "bench scenario text longer than %zu bytes",
             sizeof(yaml));
  if (scenario_load_string(yaml, "bench", &sc, err, sizeof(err)))
    SETERRQ(comm, PETSC_ERR_PLIB, "bench scenario rejected: %s", err);
  PetscCall(SimulationCreate(comm, &sc, sim, err, sizeof(err)));
  PetscCheck(!err[0], comm, PETSC_ERR_PLIB, "bench scenario rejected: %s", err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A bed of at least n spheres, `layers` deep, on a square lattice side x side x layers (side =
 * ceil(sqrt(n / layers))) in [0, L]^2, jittered, not yet stepped; confined: between frictionless
 * side walls 0.05 R outside the lattice's outermost spheres (a 32-layer lattice standing free
 * collapses into a spreading heap). One rank (comm of size 1): the jitter follows the storage
 * order, which is the lattice's there. The caller destroys *sim. */
static inline PetscErrorCode BuildPile(MPI_Comm comm, PetscInt n, int layers, double rho, double c_r,
                                       const char *solver, PetscBool confined, Simulation *sim)
{
  const double R = BENCH_SPHERE_RADIUS, spacing = BENCH_LATTICE_SPACING;
  const int    side = (int)ceil(sqrt((double)n / layers));
  const double L = side * spacing, H = layers * spacing;
  const double lo[2] = {-0.5 * L - 1, -0.5 * L - 1}, hi[2] = {1.5 * L + 1, 1.5 * L + 1};
  /* the lattice's spheres span [0, L - 0.1 R] on each side axis (centres from R in steps of 2.1 R) */
  const double walls[4] = {-0.05 * R, L - 0.05 * R, -0.05 * R, L - 0.05 * R};
  char         fills[512];
  uint64_t     state = 12345;
  PetscMPIInt  size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCheck(size == 1, comm, PETSC_ERR_ARG_WRONG, "BuildPile builds its piles on one rank (got %d)", (int)size);
  /* the lattice region holds side^2 * layers >= n spheres */
  snprintf(fills, sizeof(fills),
           "fills:\n  - {type: lattice, region: {min: [0, 0, 0.0005], max: [%.17g, %.17g, %.17g]}, radius: %g, "
           "spacing: %.17g, material: gravel}\n",
           L, L, H + 0.0005, R, spacing);
  PetscCall(BenchSimulation(comm, lo, hi, 2 * H + 0.2, rho, c_r, solver, confined ? walls : NULL, fills, sim));
  for (PetscInt i = 0; i < SimulationBodies(*sim)->n_owned;
       i++) { /* seeded lateral jitter: break the columns' symmetry */
    for (int k = 0; k < 2; k++) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      SimulationBodies(*sim)->pos[3 * i + k] += 0.04 * R * ((double)(state >> 11) / 9007199254740992.0 - 0.5);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The median of x[0, n) (1 <= n <= MEDIAN_MAX; the upper one of the middle two when n is even). */
#define MEDIAN_MAX 8
static inline double median(const double *x, int n)
{
  double s[MEDIAN_MAX];
  PetscAssertAbort(n >= 1 && n <= MEDIAN_MAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "median of %d values", n);
  for (int i = 0; i < n; i++) { /* insertion sort of a copy */
    int j = i;
    for (; j > 0 && s[j - 1] > x[i]; j--) s[j] = s[j - 1];
    s[j] = x[i];
  }
  return s[n / 2];
}
#endif
