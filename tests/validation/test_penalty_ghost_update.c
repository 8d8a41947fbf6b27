/* The penalty model's ghost update against a ghost rebuild every step, on several ranks: a 300-step
 * pour (200 spheres thrown sideways and down onto a floor across the process grid's cuts, Hertz
 * contacts with slide, roll and spin history), load balancing every 100 steps, run once keeping the
 * ghosts between rebuilds (the default: updated in place while no body drifted half the skin, the
 * halo widened by the skin, migration deferred) and once with -ghost_update false (the ghosts
 * rebuilt and the bodies migrated every step). At steps 60, 120, ..., 300 every body's state (id,
 * position, orientation, velocity) and every contact's history are gathered on rank 0 by id / key:
 * both runs must agree bit for bit, each contact remembered once. The run that keeps its ghosts must
 * have kept them on most steps, rebuilt them when bodies drifted, and owned bodies whose centre had
 * left its subdomain (the deferred migration, which the wider halo covers); the other must never
 * keep them. A contact missed for want of a ghost, or a stale ghost, would change the loads. On one
 * rank (no ghosts) both runs must simply agree and build no ghosts.
 * The same comparison on an open pour: spheres thrown out of the domain through a side (removed) while
 * an emitter pours new ones in, so the ghost-keeping decision also meets bodies that leave and
 * bodies that arrive (both force a rebuild).
 * Every run also checks each step (-penalty_check_sides) that the body sides the integrator wrote
 * at the end of the last step equal a fresh fill: no rearrangement of the bodies (emission,
 * removal, the spatial sort, migration, output placement) may leave one stale.
 * Then the halo's motion allowance alone: two spheres approach head-on across the cut at x = 0 (grid
 * P x 1 x 1), A just left of it, B just beyond 2 r + envelope to its right (outside a halo without the
 * skin), and touch before either moved half the skin: A's rank computes the contact from B's kept
 * ghost, so both runs agree only if the halo covers the drift. */
// ctest: labels=mpi timeout=600 ranks=2;4
#include "test_util.h"
#include "penalty/history.h"
#include "test_penalty_pour.h"

#define STEPS  300
#define CHECKS 5
#define STATE  14 /* id (as a double's bits), position 3, quaternion 4, velocity 6 */

/* radius 0.01, envelope 0.001, -neighbour_skin 0.004: a halo of 2 r + envelope = 0.021 without the
 * skin. B at 0.0230 beyond the cut is outside it; the gap 0.0035 closes to the envelope after 25
 * steps of 2 x 5e-5 m and to overlap (loads) after 35, before either body moved half the skin (40). */
static const char *crossing =
  "domain: {min: [-0.2, -0.05, -0.05], max: [0.2, 0.05, 0.05]}\n"
  "gravity: [0, 0, 0]\n"
  "time: {step: 1.0e-4, end: 1}\n"
  "contact: {model: penalty, envelope: 0.001}\n" PENALTY_POUR_MATERIALS "bodies:\n"
  "  - {shape: sphere, radius: 0.01, position: [-0.0005, 0, 0], velocity: [0.5, 0, 0], material: grit}\n"
  "  - {shape: sphere, radius: 0.01, position: [0.0230, 0, 0], velocity: [-0.5, 0, 0], material: grit}\n";

static const char *scenario = PENALTY_POUR_SCENARIO;

/* The pour thrown at 1.5 m/s towards x = 0.12, which the fastest spheres cross within the run, while
 * an emitter adds 60 spheres above the heap (2500 per second: all 60 within the 0.03 s). */
static const char *open_pour =
  "domain: {min: [-0.2, -0.2, -0.05], max: [0.12, 0.2, 0.5]}\n"
  "gravity: [0, 0, -9.81]\n"
  "time: {step: 1.0e-4, end: 1}\n"
  "contact: {model: penalty, envelope: 0.001}\n" PENALTY_POUR_MATERIALS "walls:\n"
  "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: grit}\n"
  "fills:\n"
  "  - {type: random, region: {min: [-0.1, -0.1, 0.0], max: [0.1, 0.1, 0.1]}, radius: 0.01, count: 200, seed: 3,\n"
  "     velocity: [1.5, 1.0, -3], material: grit}\n"
  "emitters:\n"
  "  - {region: {min: [-0.15, -0.15, 0.12], max: [0.05, 0.15, 0.2]}, rate: 2500, count: 60, seed: 5, material: grit,\n"
  "     velocity: [0, 0, -3], radius: 0.01}\n";

/* One run's view at a check: the bodies by id and the contacts' history by key, on rank 0. */
typedef struct {
  PetscInt n_bodies, n_contacts;
  double  *body;    /* STATE per body */
  char    *contact; /* key then PENALTY_HISTORY_WIDTH doubles per contact */
} Gathered;

typedef struct {
  PetscInt64 builds, updates, lagging; /* lagging: body-steps owned away from their centre's rank */
  PetscInt64 touching;                 /* steps with contacts (touching pairs: the penalty model keeps no other) */
  PetscInt64 removed, emitted;         /* bodies that left the domain, bodies the emitters made */
} RunCounts;

/* Bodies by id (the first 8 bytes of a record). */
static int CompareBody(const void *a, const void *b)
{
  int64_t x, y;
  memcpy(&x, a, sizeof(x));
  memcpy(&y, b, sizeof(y));
  return (x > y) - (x < y);
}

static int CompareKey(const void *pa, const void *pb)
{
  ContactKey a, b;
  memcpy(&a, pa, sizeof(a));
  memcpy(&b, pb, sizeof(b));
  if (a.ida != b.ida) return (a.ida > b.ida) - (a.ida < b.ida);
  if (a.idb != b.idb) return (a.idb > b.idb) - (a.idb < b.idb);
  return (a.sub > b.sub) - (a.sub < b.sub);
}

/* n records of rec bytes from every rank of comm, concatenated on rank 0 (*all, PetscFree it). */
static PetscErrorCode GatherRecords(MPI_Comm comm, size_t rec, PetscInt n, const char *mine, PetscInt *ntotal,
                                    char **all)
{
  PetscMPIInt size, rank, len = (PetscMPIInt)((size_t)n * rec), *counts = NULL, *displs = NULL;
  int         total = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) PetscCall(PetscMalloc2(size, &counts, size, &displs));
  PetscCallMPI(MPI_Gather(&len, 1, MPI_INT, counts, 1, MPI_INT, 0, comm));
  if (!rank)
    for (int r = 0; r < size; r++) {
      displs[r] = total;
      total += counts[r];
    }
  PetscCall(PetscMalloc1(total + 1, all));
  PetscCallMPI(MPI_Gatherv(mine, len, MPI_BYTE, *all, counts, displs, MPI_BYTE, 0, comm));
  *ntotal = (PetscInt)((size_t)total / rec);
  if (!rank) PetscCall(PetscFree2(counts, displs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Gather(Simulation sim, Gathered *g)
{
  const BodyStore     *s   = SimulationBodies(sim);
  const ImpulseMemory *m   = SimulationMemory(sim);
  const size_t         rec = sizeof(ContactKey) + sizeof(double) * PENALTY_HISTORY_WIDTH;
  double              *bodies;
  char                *contacts;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2((size_t)STATE * s->n_owned + 1, &bodies, rec * (size_t)m->n + 1, &contacts));
  for (PetscInt i = 0; i < s->n_owned; i++) {
    double *b = bodies + (size_t)STATE * i;
    memcpy(b, &s->id[i], sizeof(double));
    memcpy(b + 1, s->pos + 3 * i, 3 * sizeof(double));
    memcpy(b + 4, s->quat + 4 * i, 4 * sizeof(double));
    memcpy(b + 8, s->vel + 6 * i, 6 * sizeof(double));
  }
  for (PetscInt i = 0; i < m->n; i++) {
    memcpy(contacts + rec * i, &m->key[i], sizeof(ContactKey));
    memcpy(contacts + rec * i + sizeof(ContactKey), m->gamma + (size_t)PENALTY_HISTORY_WIDTH * i,
           sizeof(double) * PENALTY_HISTORY_WIDTH);
  }
  PetscCall(GatherRecords(SimulationComm(sim), STATE * sizeof(double), s->n_owned, (const char *)bodies, &g->n_bodies,
                          (char **)&g->body));
  PetscCall(GatherRecords(SimulationComm(sim), rec, m->n, contacts, &g->n_contacts, &g->contact));
  qsort(g->body, (size_t)g->n_bodies, STATE * sizeof(double), CompareBody);
  qsort(g->contact, (size_t)g->n_contacts, rec, CompareKey);
  PetscCall(PetscFree2(bodies, contacts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* yaml run for steps steps, keeping the ghosts or not, gathered every `every` steps into g. */
static PetscErrorCode Run(const char *yaml, int steps, int every, PetscBool keep, Gathered g[], RunCounts *rc)
{
  Simulation sim;

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-ghost_update", keep ? "true" : "false"));
  PetscCall(TestSimulationOnComm(PETSC_COMM_WORLD, yaml, "penalty-ghosts", &sim));
  PetscCall(PetscOptionsClearValue(NULL, "-ghost_update"));
  rc->lagging = rc->touching = 0;
  for (int n = 1; n <= steps; n++) {
    PetscInt64 lag;
    PetscCall(SimulationStep(sim));
    PetscCall(TestLaggingBodies(sim, &lag));
    rc->lagging += lag;
    rc->touching += SimulationLastStep(sim)->contacts > 0;
    if (n % every == 0) PetscCall(Gather(sim, &g[n / every - 1]));
  }
  SimulationGhostCounts(sim, &rc->builds, &rc->updates);
  rc->removed = SimulationRemoved(sim);
  rc->emitted = 0;
  for (int k = 0; k < SimulationScenario(sim)->n_emitters; k++) rc->emitted += SimulationEmitted(sim, k);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0: the run that kept its ghosts against the one that rebuilt them, at one check. */
static void CompareRuns(const Gathered *kept, const Gathered *rebuilt, int step)
{
  const size_t rec    = sizeof(ContactKey) + sizeof(double) * PENALTY_HISTORY_WIDTH;
  const int    bodies = kept->n_bodies == rebuilt->n_bodies &&
                     !memcmp(kept->body, rebuilt->body, sizeof(double) * STATE * (size_t)kept->n_bodies);
  const int hist = kept->n_contacts == rebuilt->n_contacts &&
                   !memcmp(kept->contact, rebuilt->contact, rec * (size_t)kept->n_contacts);
  int once = 1;
  for (PetscInt i = 1; i < kept->n_contacts; i++)
    once = once && CompareKey(kept->contact + rec * (i - 1), kept->contact + rec * i) < 0;
  printf("step %d: %" PetscInt_FMT " bodies, %" PetscInt_FMT
         " contacts remembered; states bitwise identical: %s; histories bitwise identical: %s\n",
         step, kept->n_bodies, kept->n_contacts, bodies ? "yes" : "no", hist ? "yes" : "no");
  TEST_CHECK(kept->n_contacts > 50, "only %" PetscInt_FMT " touching contacts at step %d: the pour should pile up",
             kept->n_contacts, step);
  TEST_CHECK(once, "a contact is remembered twice at step %d", step);
  TEST_CHECK(bodies, "the body states differ from the every-step rebuild at step %d", step);
  TEST_CHECK(hist, "the contact histories differ from the every-step rebuild at step %d", step);
}

static void FreeGathered(Gathered g[], int n)
{
  for (int c = 0; c < n; c++) {
    PetscCallVoid(PetscFree(g[c].body));
    PetscCallVoid(PetscFree(g[c].contact));
  }
}

int main(int argc, char **argv)
{
  Gathered    kept[CHECKS] = {{0}}, rebuilt[CHECKS] = {{0}};
  RunCounts   ck, cr;
  PetscMPIInt rank, size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsSetValue(NULL, "-balance_interval", "100"));
  PetscCall(PetscOptionsSetValue(NULL, "-penalty_check_sides",
                                 "true")); /* the sides the integrator wrote ahead, against a fresh fill every step */
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(Run(scenario, STEPS, STEPS / CHECKS, PETSC_TRUE, kept, &ck));
  PetscCall(Run(scenario, STEPS, STEPS / CHECKS, PETSC_FALSE, rebuilt, &cr));
  if (!rank) {
    printf("%d ranks, %d steps: ghosts kept on %" PetscInt64_FMT " steps, rebuilt on %" PetscInt64_FMT
           ", %" PetscInt64_FMT " body-steps owned away from their centre's rank; rebuilt every step: %" PetscInt64_FMT
           " builds, %" PetscInt64_FMT " updates\n",
           size, STEPS, ck.updates, ck.builds, ck.lagging, cr.builds, cr.updates);
    if (size == 1)
      TEST_CHECK(ck.builds + ck.updates + cr.builds + cr.updates == 0, "ghosts built or updated on one rank");
    else {
      TEST_CHECK(ck.updates > STEPS / 4,
                 "the ghosts were kept on only %" PetscInt64_FMT
                 " of %d steps (the thrown spheres move about a third of the half skin a step)",
                 ck.updates, STEPS);
      TEST_CHECK(ck.builds > 2,
                 "the ghosts were rebuilt only %" PetscInt64_FMT " times: the pour should drift past half the skin",
                 ck.builds);
      TEST_CHECK(ck.lagging > 0,
                 "no body was ever owned away from its centre's rank: the deferred migration was not exercised");
      TEST_CHECK(cr.updates == 0 && cr.builds == STEPS && cr.lagging == 0,
                 "with -ghost_update false: %" PetscInt64_FMT " updates, %" PetscInt64_FMT " builds, %" PetscInt64_FMT
                 " lagging",
                 cr.updates, cr.builds, cr.lagging);
    }
    for (int c = 0; c < CHECKS; c++) {
      const int step = (c + 1) * (STEPS / CHECKS);
      TEST_CHECK(kept[c].n_bodies == 200, "%" PetscInt_FMT " bodies at step %d, 200 expected", kept[c].n_bodies, step);
      CompareRuns(&kept[c], &rebuilt[c], step);
    }
  }
  { /* the crossing pair */
    Gathered  pk = {0}, pr = {0};
    RunCounts kk, kr;
    char      grid[32];
    PetscCall(PetscSNPrintf(grid, sizeof(grid), "%d,1,1", size));
    PetscCall(PetscOptionsSetValue(NULL, "-decomp_grid", grid));
    PetscCall(PetscOptionsSetValue(NULL, "-balance_interval", "0"));  /* the uniform cuts the pair crosses: */
    PetscCall(PetscOptionsSetValue(NULL, "-balance_threshold", "0")); /* cuts on two bodies would move with them */
    PetscCall(PetscOptionsSetValue(NULL, "-neighbour_skin", "0.004"));
    PetscCall(Run(crossing, 40, 40, PETSC_TRUE, &pk, &kk));
    PetscCall(Run(crossing, 40, 40, PETSC_FALSE, &pr, &kr));
    PetscCall(PetscOptionsClearValue(NULL, "-decomp_grid"));
    PetscCall(PetscOptionsClearValue(NULL, "-neighbour_skin"));
    if (!rank) {
      const int same = pk.n_bodies == 2 && pr.n_bodies == 2 && !memcmp(pk.body, pr.body, sizeof(double) * STATE * 2);
      printf("crossing pair: touching on %" PetscInt64_FMT " of 40 steps, ghosts kept on %" PetscInt64_FMT
             "; states bitwise identical to the every-step rebuild: %s\n",
             kk.touching, kk.updates, same ? "yes" : "no");
      /* the 3.5 mm gap closes at 1 m/s after 35 of the 40 steps: they touch on the last 5 */
      TEST_CHECK(kk.touching >= 3 && kk.touching == kr.touching,
                 "the pair touched on %" PetscInt64_FMT " steps (%" PetscInt64_FMT
                 " rebuilding every step); at least 3 expected",
                 kk.touching, kr.touching);
      TEST_CHECK(size == 1 || kk.updates >= 38,
                 "the ghosts were kept on %" PetscInt64_FMT " of the 39 steps after the first", kk.updates);
      TEST_CHECK(same, "the crossing pair's states differ from the every-step rebuild: a contact was missed");
    }
    PetscCall(PetscFree(pk.body));
    PetscCall(PetscFree(pk.contact));
    PetscCall(PetscFree(pr.body));
    PetscCall(PetscFree(pr.contact));
  }
  FreeGathered(kept, CHECKS);
  FreeGathered(rebuilt, CHECKS);
  { /* the open pour: bodies leave and arrive */
    RunCounts ok, orb;
    PetscCall(Run(open_pour, STEPS, STEPS / CHECKS, PETSC_TRUE, kept, &ok));
    PetscCall(Run(open_pour, STEPS, STEPS / CHECKS, PETSC_FALSE, rebuilt, &orb));
    if (!rank) {
      printf("open pour: %" PetscInt64_FMT " bodies left the domain, %" PetscInt64_FMT
             " emitted; ghosts kept on %" PetscInt64_FMT " steps, rebuilt on %" PetscInt64_FMT "\n",
             ok.removed, ok.emitted, ok.updates, ok.builds);
      TEST_CHECK(ok.removed > 0 && ok.removed == orb.removed,
                 "open pour: %" PetscInt64_FMT " bodies left the domain (%" PetscInt64_FMT
                 " rebuilding every step); some expected",
                 ok.removed, orb.removed);
      TEST_CHECK(ok.emitted == 60 && orb.emitted == 60,
                 "open pour: %" PetscInt64_FMT " and %" PetscInt64_FMT " bodies emitted, 60 expected", ok.emitted,
                 orb.emitted);
      TEST_CHECK(size == 1 || ok.updates > STEPS / 4,
                 "open pour: the ghosts were kept on only %" PetscInt64_FMT " of %d steps", ok.updates, STEPS);
      for (int c = 0; c < CHECKS; c++) CompareRuns(&kept[c], &rebuilt[c], (c + 1) * (STEPS / CHECKS));
    }
    FreeGathered(kept, CHECKS);
    FreeGathered(rebuilt, CHECKS);
  }
  int rc = TestFinish("penalty ghost update");
  PetscCall(PetscFinalize());
  return rc;
}
