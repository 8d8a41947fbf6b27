// ctest: labels=mpi timeout=120 ranks=2;4
/* Plastic contact memory across ranks (docs/design.md "Elasto-plastic contacts"): the plastic
 * displacement delta_p lives with the contact's warm-start memory and must follow it when the
 * contact's owner changes, like any contact state.
 *
 * Two spheres (r = 5 cm) on prescribed motions (no gravity), touching at t = 0: A at x = -6 mm
 * moves at 0.1 m/s, B 0.1 m apart moves at 0.1 - u0 sin(2 pi f t) m/s (u0 = 0.01 m/s, f = 7.96 Hz),
 * so the overlap is d(t) = u0 (1 - cos 2 pi f t) / (2 pi f): it grows to d_max = 0.4 mm at 63 ms
 * and returns to 0 at 126 ms. The contact (compliance 5e-6 m/N per material: K = 1e5 N/m; yield
 * force F_y = 20 N) is elastic up to d = F_y / K = 0.2 mm (at 31 ms), yields with the force F_y
 * up to d_max, then unloads elastically: F = K (d - delta_p) with delta_p = d_max - F_y / K =
 * 0.2 mm, and loses its force when d falls below delta_p (at 94 ms).
 * On p ranks (process grid p x 1 x 1, cut at x = 0, no balancing) A, the contact's owning body
 * (lower id), crosses the cut at 60 ms, while the contact yields: its memory, with delta_p, must
 * move to B's rank. Had delta_p been lost there, the unloading force would be K d instead of
 * K (d - delta_p): 20 N instead of 0 at the end of the unloading.
 *
 * Checks (130 steps of 1 ms):
 *  - the contact force every step and delta_p at the end agree with the 1-rank run (rank 0
 *    alone) within 1e-6 F_y and 1e-12 m: the solves reach 1e-10 m/s, one contact and two motion
 *    joints make a strongly convex problem (compliance), so the runs differ by rounding only;
 *  - delta_p = d_max - F_y / K within 2% (the bound; the prescribed positions are exact
 *    at the step ends, so the discrete d_max is within (2 pi f h)^2 / 8 = 3e-5 of d_max);
 *  - the force while yielding equals F_y within 1e-6 relative, and the contact unloads to zero
 *    force (below 1e-6 F_y) by the end. */
#include "test_util.h"

#define STEPS 130
#define H     1e-3
#define U0    0.01
#define FREQ  7.9577471545947667 /* 1 / (2 pi 0.02): d_max = 2 U0 / (2 pi f) = 0.4 mm */
#define K     1e5
#define FY    20.0

static const char *scenario =
  "domain: {min: [-1, -1, -1], max: [1, 1, 1]}\n"
  "gravity: [0, 0, 0]\n"
  "time: {step: 0.001, end: 0.13}\n"
  "contact: {model: ccp, envelope: 0.001}\n"
  "solver: {type: apgd, max_iterations: 5000, tolerance: 1.0e-10}\n"
  "materials:\n"
  "  - {name: m, density: 7800, friction: 0.3, compliance: 5.0e-6, yield_force: 20}\n"
  "bodies:\n"
  "  - {id: a, shape: sphere, radius: 0.05, position: [-0.006, 0, 0], material: m}\n"
  "  - {id: b, shape: sphere, radius: 0.05, position: [0.094, 0, 0], material: m}\n"
  "joints:\n"
  "  - {type: motion, body: a, velocity: [0.1, 0, 0]}\n"
  "  - {type: motion, body: b, velocity: [0.1, 0, 0], amplitude: [-0.01, 0, 0], frequency: 7.9577471545947667}\n";

typedef struct {
  double force[STEPS], plastic;
  int    owner_a[2]; /* the rank owning A after the first and the last step */
} Record;

/* The pair contact's normal force this step and its plastic displacement, from its owner. */
static PetscErrorCode PairState(Simulation sim, double *force, double *plastic)
{
  double mine[2] = {0, 0}, all[2];

  PetscFunctionBegin;
  for (PetscInt i = 0; i < SimulationContacts(sim)->n; i++)
    if (SimulationContacts(sim)->key[i].ida == 0 && SimulationContacts(sim)->key[i].idb == 1)
      mine[0] = contact_gamma(SimulationContacts(sim), i)[0] / H;
  for (PetscInt i = 0; i < SimulationMemory(sim)->n; i++)
    if (SimulationMemory(sim)->key[i].ida == 0 && SimulationMemory(sim)->key[i].idb == 1)
      mine[1] = SimulationMemory(sim)->gamma[(size_t)SimulationMemory(sim)->width * i + CCP_RECORD_PLASTIC];
  PetscCallMPI(MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_SUM, SimulationComm(sim))); /* one owner: exact */
  *force   = all[0];
  *plastic = all[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Run(MPI_Comm comm, Record *r)
{
  Simulation sim;

  PetscFunctionBegin;
  PetscCall(TestSimulationOnComm(comm, scenario, "plastic-ranks", &sim));
  for (int n = 0; n < STEPS; n++) {
    PetscCall(SimulationStep(sim));
    PetscCall(PairState(sim, &r->force[n], &r->plastic));
    if (n == 0 || n == STEPS - 1) {
      PetscMPIInt rank;
      int         mine;
      PetscCallMPI(MPI_Comm_rank(comm, &rank));
      mine = SimulationFindBody(sim, 0) >= 0 ? (int)rank : -1;
      PetscCallMPI(MPI_Allreduce(&mine, &r->owner_a[n ? 1 : 0], 1, MPI_INT, MPI_MAX, comm));
    }
  }
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Record     *par, *ser;
  PetscMPIInt rank, size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(TestSlabsAlongX("0"));
  PetscCall(PetscNew(&par));
  PetscCall(PetscNew(&ser));
  PetscCall(Run(PETSC_COMM_WORLD, par));
  if (!rank) {
    const double dmax = 2 * U0 / (2 * M_PI * FREQ), expect = dmax - FY / K;
    double       df = 0, yield_err = 0, fmax = 0;
    PetscCall(TestSerialReference());
    PetscCall(Run(PETSC_COMM_SELF, ser));
    for (int n = 0; n < STEPS; n++) {
      const double t = (n + 1) * H, d = U0 * (1 - cos(2 * M_PI * FREQ * t)) / (2 * M_PI * FREQ);
      df   = PetscMax(df, fabs(par->force[n] - ser->force[n]));
      fmax = PetscMax(fmax, par->force[n]);
      if (t < 0.5 / FREQ && d > FY / K * 1.01)
        yield_err = PetscMax(yield_err, fabs(par->force[n] / FY - 1)); /* yielding */
    }
    printf("plastic contact on %d ranks vs 1: largest force difference %.2e N; delta_p %.6e m (1 rank %.6e m) vs d_max "
           "- F_y/K = %.6e m (rel. error %.2e); force while yielding within %.1e of F_y, largest %.6f N, final %.2e N; "
           "A owned by rank %d, then %d\n",
           (int)size, df, par->plastic, ser->plastic, expect, par->plastic / expect - 1, yield_err, fmax,
           par->force[STEPS - 1], par->owner_a[0], par->owner_a[1]);
    TEST_CHECK(size == 1 || par->owner_a[0] != par->owner_a[1], "A should change owner during the run (ranks %d, %d)",
               par->owner_a[0], par->owner_a[1]);
    TEST_CHECK(df < 1e-6 * FY, "contact force differs from the 1-rank run by %.3e N", df);
    TEST_CHECK(fabs(par->plastic - ser->plastic) < 1e-12, "delta_p %.9e m vs %.9e m on one rank", par->plastic,
               ser->plastic);
    TEST_CHECK(fabs(par->plastic / expect - 1) < 0.02, "delta_p %.6e m vs %.6e m", par->plastic, expect);
    TEST_CHECK(yield_err < 1e-6, "force while yielding off F_y by %.3e relative", yield_err);
    TEST_CHECK(fabs(par->force[STEPS - 1]) < 1e-6 * FY, "the contact should have unloaded, force %.3e N",
               par->force[STEPS - 1]);
  }
  PetscCallMPI(MPI_Bcast(&failures, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  PetscCall(PetscFree(par));
  PetscCall(PetscFree(ser));
  int rc = TestFinish("plasticity distributed");
  PetscCall(PetscFinalize());
  return rc;
}
