/* Shared helpers of the test programs: build a simulation from YAML text, check with a message. */
#ifndef CCPDEM_TEST_UTIL_H
#define CCPDEM_TEST_UTIL_H
#include "step/simulation.h"
#include "base/vec3.h"
#include <stdio.h>
#include <stdlib.h>

#include "test_check.h"

#define TEST_CHECK CHECK

/* Create a simulation from scenario text; aborts the test on bad input. */
static inline PetscErrorCode TestSimulationFromText(const char *yaml, Simulation *sim)
{
  Scenario sc;
  char     err[SCENARIO_ERR_MAX] = "";

  PetscFunctionBegin;
  if (scenario_load_string(yaml, "test-scenario", &sc, err, sizeof(err))) {
    printf("FAIL: test scenario rejected: %s\n", err);
    exit(1);
  }
  PetscCall(SimulationCreate(PETSC_COMM_WORLD, &sc, sim, err, sizeof(err)));
  if (err[0]) {
    printf("FAIL: test scenario rejected: %s\n", err);
    exit(1);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Create a simulation of scenario text on comm (named name in messages); a rejected scenario is
 * an error on comm. */
static inline PetscErrorCode TestSimulationOnComm(MPI_Comm comm, const char *yaml, const char *name, Simulation *sim)
{
  Scenario sc;
  char     err[SCENARIO_ERR_MAX] = "";

  PetscFunctionBegin;
  if (scenario_load_string(yaml, name, &sc, err, sizeof(err))) SETERRQ(comm, PETSC_ERR_PLIB, "%s", err);
  PetscCall(SimulationCreate(comm, &sc, sim, err, sizeof(err)));
  PetscCheck(!err[0], comm, PETSC_ERR_PLIB, "%s", err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Step until the simulated time reaches t (within half a step). */
static inline PetscErrorCode TestRunUntil(Simulation sim, double t)
{
  PetscFunctionBegin;
  while (SimulationTime(sim) < t - 0.5 * SimulationScenario(sim)->time_step) PetscCall(SimulationStep(sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Position, orientation and velocity (linear world, angular body frame, as stored) of the body with this
 * id, from whichever rank owns it, on every rank (collective; zeros if no rank owns it). *found: owners. */
static inline PetscErrorCode TestBodyGetPose(Simulation sim, int64_t id, double x[3], double q[4], double v[6],
                                             PetscInt *found)
{
  double   mine[14] = {0}, all[14];
  PetscInt i        = SimulationFindBody(sim, id);

  PetscFunctionBegin;
  if (i >= 0) {
    for (int k = 0; k < 3; k++) mine[k] = SimulationBodies(sim)->pos[3 * i + k];
    for (int k = 0; k < 6; k++) mine[3 + k] = SimulationBodies(sim)->vel[6 * i + k];
    for (int k = 0; k < 4; k++) mine[9 + k] = SimulationBodies(sim)->quat[4 * i + k];
    mine[13] = 1;
  }
  PetscCallMPI(MPI_Allreduce(mine, all, 14, MPI_DOUBLE, MPI_SUM, SimulationComm(sim))); /* one owner: exact */
  for (int k = 0; k < 3; k++) x[k] = all[k];
  for (int k = 0; k < 6; k++) v[k] = all[3 + k];
  if (q)
    for (int k = 0; k < 4; k++) q[k] = all[9 + k];
  if (found) *found = (PetscInt)all[13];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* TestBodyGetPose without the orientation. */
static inline PetscErrorCode TestBodyGet(Simulation sim, int64_t id, double x[3], double v[6], PetscInt *found)
{
  return TestBodyGetPose(sim, id, x, NULL, v, found);
}

/* Distributed tests: the process grid (e.g. "1,1,4") on more than one rank and the steps between
 * load balancing ("0": never, and no threshold either, so the cuts stay uniform or where the test
 * put them). Call before creating the simulation. */
static inline PetscErrorCode TestGrid(const char *grid, const char *balance_interval)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size > 1) PetscCall(PetscOptionsSetValue(NULL, "-decomp_grid", grid));
  PetscCall(PetscOptionsSetValue(NULL, "-balance_interval", balance_interval));
  if (!strcmp(balance_interval, "0")) PetscCall(PetscOptionsSetValue(NULL, "-balance_threshold", "0"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode TestFixedGrid(const char *grid) { return TestGrid(grid, "0"); }

/* Before the serial reference of a distributed test (a simulation on PETSC_COMM_SELF, after the
 * distributed run): the process grid TestGrid set describes the distributed run's ranks, and
 * SimulationCreate refuses a grid that does not match its communicator's size. */
static inline PetscErrorCode TestSerialReference(void) { return PetscOptionsClearValue(NULL, "-decomp_grid"); }

/* One slab along x per rank (grid "P,1,1"). */
static inline PetscErrorCode TestSlabsAlongX(const char *balance_interval)
{
  PetscMPIInt size;
  char        grid[32];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  snprintf(grid, sizeof grid, "%d,1,1", (int)size);
  PetscCall(TestGrid(grid, balance_interval));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A body's id, position, orientation and velocity (linear world, angular body frame, as stored). */
typedef struct {
  int64_t id;
  double  x[3], v[6], r, q[4];
} TestBodyVel;

static inline int TestCompareBodyVel(const void *a, const void *b)
{
  const int64_t x = ((const TestBodyVel *)a)->id, y = ((const TestBodyVel *)b)->id;
  return (x > y) - (x < y);
}

/* Records of `size` bytes, n of them at mine on each rank of comm, gathered on rank 0 and sorted by cmp (NULL:
 * in rank order): *out allocated there (PetscFree it), *nout their count there (0 on the other ranks).
 * Collective. */
static inline PetscErrorCode TestGatherRecords(MPI_Comm comm, const void *mine, PetscInt n, size_t size, void *out,
                                               PetscInt *nout, int (*cmp)(const void *, const void *))
{
  PetscMPIInt rank, nranks, bytes = (PetscMPIInt)(n * (PetscInt)size);
  int        *counts = NULL, *displs = NULL;
  char      **all = (char **)out;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &nranks));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) PetscCall(PetscMalloc2(nranks, &counts, nranks, &displs));
  PetscCallMPI(MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, comm));
  *nout = 0;
  if (!rank) {
    for (int r = 0; r < nranks; r++) {
      displs[r] = (int)(*nout * (PetscInt)size);
      *nout += counts[r] / (PetscInt)size;
    }
    PetscCall(PetscMalloc((size_t)(*nout + 1) * size, all));
  }
  PetscCallMPI(MPI_Gatherv(mine, bytes, MPI_BYTE, rank ? NULL : *all, counts, displs, MPI_BYTE, 0, comm));
  if (!rank) {
    if (cmp) qsort(*all, (size_t)*nout, size, cmp);
    PetscCall(PetscFree2(counts, displs));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The (id, position, velocity, radius, orientation) of every body of sim gathered on rank 0 of SimulationComm(sim),
 * sorted by id
 * (*out allocated there, PetscFree it; other ranks get *n = 0). Collective. */
static inline PetscErrorCode TestGatherVelocities(Simulation sim, TestBodyVel **out, PetscInt *n)
{
  const PetscInt nloc = SimulationBodies(sim)->n_owned;
  TestBodyVel   *mine;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nloc + 1, &mine));
  for (PetscInt i = 0; i < nloc; i++) {
    mine[i].id = SimulationBodies(sim)->id[i];
    mine[i].r  = SimulationBodies(sim)->radius[i];
    for (int k = 0; k < 3; k++) mine[i].x[k] = SimulationBodies(sim)->pos[3 * i + k];
    for (int k = 0; k < 6; k++) mine[i].v[k] = SimulationBodies(sim)->vel[6 * i + k];
    for (int k = 0; k < 4; k++) mine[i].q[k] = SimulationBodies(sim)->quat[4 * i + k];
  }
  PetscCall(TestGatherRecords(SimulationComm(sim), mine, nloc, sizeof(TestBodyVel), out, n, TestCompareBodyVel));
  PetscCall(PetscFree(mine));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Largest velocity difference (m/s; angular rates times the length scale R) between two gathered
 * sets, which must hold the same ids (*same_ids says whether they do). */
static inline double TestLargestVelocityDifference(const TestBodyVel *a, PetscInt na, const TestBodyVel *b, PetscInt nb,
                                                   double R, PetscBool *same_ids)
{
  double worst = 0;
  *same_ids    = (PetscBool)(na == nb);
  for (PetscInt i = 0; i < PetscMin(na, nb); i++) {
    if (a[i].id != b[i].id) *same_ids = PETSC_FALSE;
    for (int k = 0; k < 6; k++) worst = PetscMax(worst, fabs(a[i].v[k] - b[i].v[k]) * (k < 3 ? 1.0 : R));
  }
  return worst;
}

/* Owned bodies whose centre lies in another rank's subdomain (a migration deferred while the ghosts
 * are kept), summed over ranks into *n (0 on one rank). Collective. */
static inline PetscErrorCode TestLaggingBodies(Simulation sim, PetscInt64 *n)
{
  PetscMPIInt rank;
  PetscInt64  mine = 0;

  PetscFunctionBegin;
  *n = 0;
  if (!SimulationDomain(sim)) PetscFunctionReturn(PETSC_SUCCESS); /* one rank owns everything */
  PetscCallMPI(MPI_Comm_rank(SimulationComm(sim), &rank));
  for (PetscInt i = 0; i < SimulationBodies(sim)->n_owned; i++)
    mine += DomainOwnerOfPoint(SimulationDomain(sim), SimulationBodies(sim)->pos + 3 * i) != rank;
  PetscCallMPI(MPI_Allreduce(&mine, n, 1, MPIU_INT64, MPI_SUM, SimulationComm(sim)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The head of a scenario that settles bodies on the floor z = 0 in either contact model, into buf (n
 * bytes): domain [-1, 1] x [-1, 1] x [-0.5, 1], g = 9.81 down, 10 s of steps of 1 ms (CCP: APGD to
 * 1e-8 m/s) or 0.1 ms (penalty, Hertz), the envelope, material m (density 2500, friction 0.5; penalty:
 * kinetic friction 0.4, E = 1e8 Pa, nu = 0.3, restitution 0.2, then penalty_keys, e.g. ", tangential_stiffness:
 * 1.0e5") and the plane. Returns what snprintf returns; the caller appends clumps and bodies. */
static inline int TestFloorScenario(char *buf, size_t n, int penalty, double envelope, const char *penalty_keys)
{
  return snprintf(buf, n,
                  "domain: {min: [-1, -1, -0.5], max: [1, 1, 1]}\n"
                  "gravity: [0, 0, -9.81]\n"
                  "time: {step: %g, end: 10}\n"
                  "contact: {model: %s, envelope: %g}\n"
                  "%s"
                  "materials:\n"
                  "  - {name: m, density: 2500, friction: 0.5%s%s}\n"
                  "walls:\n"
                  "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}\n",
                  penalty ? 1e-4 : 1e-3, penalty ? "penalty" : "ccp", envelope,
                  penalty ? "" : "solver: {type: apgd, max_iterations: 5000, tolerance: 1.0e-8}\n",
                  penalty ? ", kinetic_friction: 0.4, young_modulus: 1.0e8, poisson_ratio: 0.3, restitution: 0.2" : "",
                  penalty ? penalty_keys : "");
}

/* Checks of an emitter's bodies on several ranks (par) against one rank (ser), both sorted by id: want
 * of them, bitwise equal (free flight: any difference is the emitter's); orientations random (the
 * body x axes' mean components within 0.2 of 0: uniform directions have variance 1/3 per component,
 * so 4 standard errors at n = 147 are 0.19) and no two alike. what names the bodies in messages. */
static inline void TestCheckEmittedPoses(const TestBodyVel *par, PetscInt npar, const TestBodyVel *ser, PetscInt nser,
                                         PetscInt want, int size, const char *what)
{
  int          bitwise = 1, same_q = 0;
  double       mean_axis[3] = {0, 0, 0};
  const double ex[3]        = {1, 0, 0};
  TEST_CHECK(npar == nser && nser == want,
             "%" PetscInt_FMT " %s on %d ranks, %" PetscInt_FMT " on one, expected %" PetscInt_FMT, npar, what, size,
             nser, want);
  for (PetscInt i = 0; i < PetscMin(npar, nser); i++)
    bitwise = bitwise && !memcmp(&par[i], &ser[i], sizeof(TestBodyVel));
  TEST_CHECK(bitwise, "the %s on %d ranks differ from those on one rank", what, size);
  for (PetscInt i = 0; i < nser; i++) {
    double axis[3];
    quat_rotate(axis, ser[i].q, ex);
    for (int a = 0; a < 3; a++) mean_axis[a] += axis[a] / nser;
    for (PetscInt j = i + 1; j < nser; j++) same_q += !memcmp(ser[i].q, ser[j].q, sizeof(ser[i].q));
  }
  printf("%d ranks vs 1: %" PetscInt_FMT " %s, bitwise %s; mean body x axis (%.3f, %.3f, %.3f); %d pairs with one "
         "orientation\n",
         size, nser, what, bitwise ? "equal" : "DIFFERENT", mean_axis[0], mean_axis[1], mean_axis[2], same_q);
  TEST_CHECK(same_q == 0, "%d pairs of %s share an orientation", same_q, what);
  for (int a = 0; a < 3; a++)
    TEST_CHECK(fabs(mean_axis[a]) < 0.2, "mean body x axis component %d is %.3f: orientations not uniform", a,
               mean_axis[a]);
}

static inline int TestFinish(const char *name)
{
  if (failures) printf("%s: %d check(s) FAILED\n", name, failures);
  else printf("%s: all checks passed\n", name);
  return failures ? 1 : 0;
}
#endif
