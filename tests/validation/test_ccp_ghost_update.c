/* The CCP model's kept ghosts and solve coupling against ghosts built afresh every step, on 1, 2 and 4
 * ranks: a pour of 200 spheres thrown sideways and down onto a floor across the process grid's cuts
 * (APGD, 6-dof contacts, neighbour list with a 4 mm skin), run once keeping the ghosts and the
 * coupling's PetscSF while no body moved half the skin (updated in place, migration deferred) and
 * once with -ghost_rebuild_every_step (on those steps the ghosts and the PetscSF are built afresh from
 * the current positions for the same owners). At steps 50, 100 and 150 every body's position and
 * velocity, gathered by id, must agree bit for bit: the owners, the contacts each rank computes and
 * their order (by owned index, then key), and so every sum of the solve, are those of the fresh
 * build unless the kept ghosts miss a body. The run that keeps its ghosts must have kept them on
 * most steps, rebuilt them when bodies drifted and owned bodies whose centre had left its subdomain;
 * the other must build every step with the same lagging owners. On one rank both runs simply agree.
 * 150 steps (the pour lands, piles up to 288 contacts and is rebalanced once, at step 100; on 2 ranks
 * the ghosts are kept on 107 steps and built on 43) exercise every check: more steps only add solves,
 * each with a neighbour exchange and an Allreduce per iteration that wait for the scheduler beside a
 * CPU-bound process (2 ranks: 319 s beside one `yes` on the 2 cores at load 5-10, 8 s in a `ctest -j2`
 * at load 10-15 without it): timeout 900 s. */
// ctest: labels=mpi timeout=900 ranks=2;4
#include "test_util.h"
#include <string.h>

#define STEPS  150
#define CHECKS 3

/* r = 0.01 m at up to 3.5 m/s and h = 2e-4 s: 0.7 mm a step against half the 4 mm skin, so the
 * thrown spheres force a rebuild every few steps and the settling pile keeps the ghosts longer. */
static const char *scenario =
  "domain: {min: [-0.2, -0.2, -0.05], max: [0.2, 0.2, 0.5]}\n"
  "gravity: [0, 0, -9.81]\n"
  "time: {step: 2.0e-4, end: 1}\n"
  "contact: {model: ccp, envelope: 0.001, max_recovery_speed: 0.5}\n"
  "solver: {type: apgd, max_iterations: 60, tolerance: 1.0e-7}\n"
  "materials:\n"
  "  - {name: grit, density: 2000, friction: 0.5, rolling_friction: 0.01, spinning_friction: 0.01}\n"
  "walls:\n"
  "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: grit}\n"
  "fills:\n"
  "  - {type: random, region: {min: [-0.1, -0.1, 0.0], max: [0.1, 0.1, 0.1]}, radius: 0.01, count: 200, seed: 3,\n"
  "     velocity: [1.5, 1.0, -3], material: grit}\n";

/* Two spheres closing head-on across the cut at x = 0 (grid P x 1 x 1) at 1 m/s: A just left of it, B
 * 30 mm to its right, beyond the halo with its skin (2 r + envelope + skin = 25 mm), so the ghosts
 * built at the start miss B on A's rank. Half the skin (2 mm) is moved after 40 steps: the ghosts
 * are built again (and A, which crossed the cut, migrates) before the gap closes to the envelope
 * after 90 steps. A run that kept its ghosts past that point would miss the contact on A's rank. */
static const char *crossing =
  "domain: {min: [-0.2, -0.05, -0.05], max: [0.2, 0.05, 0.05]}\n"
  "gravity: [0, 0, 0]\n"
  "time: {step: 1.0e-4, end: 1}\n"
  "contact: {model: ccp, envelope: 0.001, max_recovery_speed: 0.5}\n"
  "solver: {type: apgd, max_iterations: 60, tolerance: 1.0e-7}\n"
  "materials:\n"
  "  - {name: grit, density: 2000, friction: 0.5}\n"
  "bodies:\n"
  "  - {shape: sphere, radius: 0.01, position: [-0.0005, 0, 0], velocity: [0.5, 0, 0], material: grit}\n"
  "  - {shape: sphere, radius: 0.01, position: [0.0300, 0, 0], velocity: [-0.5, 0, 0], material: grit}\n";

typedef struct {
  PetscInt64 builds, updates, lagging; /* lagging: body-steps owned away from their centre's rank */
  PetscInt64 contacts;                 /* the largest contact count of a step */
} RunCounts;

/* yaml for steps steps, gathered every steps / CHECKS steps into g[] (on rank 0). */
static PetscErrorCode Run(const char *yaml, int steps, TestBodyVel *g[], PetscInt n[], RunCounts *rc)
{
  Simulation sim;
  int        c = 0;

  PetscFunctionBegin;
  rc->lagging = rc->contacts = 0;
  PetscCall(TestSimulationOnComm(PETSC_COMM_WORLD, yaml, "ccp-ghosts", &sim));
  for (int s = 1; s <= steps; s++) {
    PetscInt64 lag;
    PetscCall(SimulationStep(sim));
    PetscCall(TestLaggingBodies(sim, &lag));
    rc->lagging += lag;
    rc->contacts = PetscMax(rc->contacts, (PetscInt64)SimulationLastStep(sim)->contacts);
    if (s % (steps / CHECKS) == 0) {
      PetscCall(TestGatherVelocities(sim, &g[c], &n[c]));
      c++;
    }
  }
  SimulationGhostCounts(sim, &rc->builds, &rc->updates);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Both runs of yaml: keeping the ghosts (into kept) and building them afresh (into fresh). */
static PetscErrorCode RunBoth(const char *yaml, int steps, TestBodyVel *kept[], PetscInt nk[], RunCounts *ck,
                              TestBodyVel *fresh[], PetscInt nf[], RunCounts *cf)
{
  PetscFunctionBegin;
  PetscCall(Run(yaml, steps, kept, nk, ck));
  PetscCall(PetscOptionsSetValue(NULL, "-ghost_rebuild_every_step", "true"));
  PetscCall(Run(yaml, steps, fresh, nf, cf));
  PetscCall(PetscOptionsClearValue(NULL, "-ghost_rebuild_every_step"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  TestBodyVel *kept[CHECKS] = {NULL}, *fresh[CHECKS] = {NULL};
  PetscInt     nk[CHECKS] = {0}, nf[CHECKS] = {0};
  RunCounts    ck, cf;
  PetscMPIInt  rank, size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsSetValue(NULL, "-neighbour_skin", "0.004"));
  PetscCall(PetscOptionsSetValue(NULL, "-balance_interval", "100")); /* a rebalance forces a rebuild: both runs */
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(RunBoth(scenario, STEPS, kept, nk, &ck, fresh, nf, &cf));
  if (!rank) {
    printf("%d ranks, %d steps, up to %" PetscInt64_FMT " contacts a step: ghosts kept on %" PetscInt64_FMT
           " steps, built on %" PetscInt64_FMT ", %" PetscInt64_FMT
           " body-steps owned away from their centre's rank; built afresh every step: %" PetscInt64_FMT
           " builds, %" PetscInt64_FMT " updates, %" PetscInt64_FMT " lagging body-steps\n",
           size, STEPS, ck.contacts, ck.updates, ck.builds, ck.lagging, cf.builds, cf.updates, cf.lagging);
    TEST_CHECK(ck.contacts > 150, "only %" PetscInt64_FMT " contacts at most: the pour should pile up", ck.contacts);
    if (size == 1)
      TEST_CHECK(ck.builds + ck.updates + cf.builds + cf.updates == 0, "ghosts built or updated on one rank");
    else {
      TEST_CHECK(ck.updates > STEPS / 4, "the ghosts were kept on only %" PetscInt64_FMT " of %d steps", ck.updates,
                 STEPS);
      TEST_CHECK(ck.builds > 2,
                 "the ghosts were built only %" PetscInt64_FMT " times: the pour should drift past half the skin",
                 ck.builds);
      TEST_CHECK(ck.lagging > 0,
                 "no body was ever owned away from its centre's rank: the deferred migration was not exercised");
      TEST_CHECK(cf.updates == 0 && cf.builds == STEPS && cf.lagging == ck.lagging,
                 "with -ghost_rebuild_every_step: %" PetscInt64_FMT " updates, %" PetscInt64_FMT
                 " builds, %" PetscInt64_FMT " lagging body-steps (0, %d and %" PetscInt64_FMT
                 " expected: the same owners)",
                 cf.updates, cf.builds, cf.lagging, STEPS, ck.lagging);
    }
    for (int c = 0; c < CHECKS; c++) {
      const int same = nk[c] == nf[c] && !memcmp(kept[c], fresh[c], sizeof(TestBodyVel) * (size_t)nk[c]);
      printf("step %d: %" PetscInt_FMT " bodies; positions and velocities bitwise identical to the fresh builds: %s\n",
             (c + 1) * (STEPS / CHECKS), nk[c], same ? "yes" : "no");
      TEST_CHECK(nk[c] == 200, "%" PetscInt_FMT " bodies at step %d, 200 expected", nk[c], (c + 1) * (STEPS / CHECKS));
      TEST_CHECK(same, "the bodies differ from the fresh ghost builds at step %d", (c + 1) * (STEPS / CHECKS));
    }
  }
  for (int c = 0; c < CHECKS; c++) {
    PetscCall(PetscFree(kept[c]));
    PetscCall(PetscFree(fresh[c]));
  }
  { /* the crossing pair, on the uniform cuts it crosses (cuts balanced on two bodies would move with them) */
    char grid[32];
    PetscCall(PetscSNPrintf(grid, sizeof(grid), "%d,1,1", size));
    PetscCall(PetscOptionsSetValue(NULL, "-decomp_grid", grid));
    PetscCall(PetscOptionsSetValue(NULL, "-balance_interval", "0"));
    PetscCall(PetscOptionsSetValue(NULL, "-balance_threshold", "0"));
    PetscCall(RunBoth(crossing, 120, kept, nk, &ck, fresh, nf, &cf));
    if (!rank) {
      const int same = nk[CHECKS - 1] == 2 && nf[CHECKS - 1] == 2 &&
                       !memcmp(kept[CHECKS - 1], fresh[CHECKS - 1], 2 * sizeof(TestBodyVel));
      printf("crossing pair: up to %" PetscInt64_FMT " contacts a step, ghosts kept on %" PetscInt64_FMT
             " steps, built on %" PetscInt64_FMT "; bitwise identical to the fresh builds: %s; speeds %g and %g m/s\n",
             ck.contacts, ck.updates, ck.builds, same ? "yes" : "no", kept[CHECKS - 1][0].v[0],
             kept[CHECKS - 1][1].v[0]);
      TEST_CHECK(ck.contacts == 1 && cf.contacts == 1,
                 "the pair touched in neither run (%" PetscInt64_FMT " and %" PetscInt64_FMT " contacts at most)",
                 ck.contacts, cf.contacts);
      TEST_CHECK(size == 1 || (ck.updates >= 100 && ck.builds >= 2),
                 "the ghosts were kept on %" PetscInt64_FMT " of 120 steps and built %" PetscInt64_FMT " times",
                 ck.updates, ck.builds);
      /* the pair's collision is inelastic (CCP): it stops them, so a missed contact leaves 0.5 m/s */
      TEST_CHECK(fabs(kept[CHECKS - 1][0].v[0]) < 0.1, "A still moves at %g m/s: the contact was missed",
                 kept[CHECKS - 1][0].v[0]);
      TEST_CHECK(same, "the crossing pair differs from the fresh ghost builds: a contact was missed");
    }
    for (int c = 0; c < CHECKS; c++) {
      PetscCall(PetscFree(kept[c]));
      PetscCall(PetscFree(fresh[c]));
    }
  }
  int rc = TestFinish("ccp ghost update");
  PetscCall(PetscFinalize());
  return rc;
}
