/* The penalty model's friction history on several ranks: a 200-step pour (200 spheres thrown
 * sideways and down onto a floor across the process grid's cuts, Hertz contacts with slide, roll and
 * spin history; tests/restart/penalty_pour.yaml's material) run twice on this run's ranks, with load
 * balancing every 50 steps (the cuts move, so contacts change owner without their bodies moving
 * far), and on one rank (rank 0 alone). At steps 100 and 200 every rank's history memory is gathered
 * on rank 0 and sorted by key:
 *  - each contact is remembered exactly once (a duplicate key is an error of ImpulseMemorySet) and
 *    the two runs on this rank count have the same keys and the same bits in every record;
 *  - against one rank: the same keys, and every value within 1e-12 relative (of the largest magnitude
 *    of that field over all contacts; the bound). The loads are summed in contact key order
 *    on any rank count (decomp/force_routing.h), so the runs are in fact expected to agree bitwise;
 *    the test prints the largest difference found.
 * A history lost at a migration or an ownership change restarts that contact from zero (its
 * micro-deflections, modes and frame), which shows as a difference of order the deflection itself.
 * That needs histories that change rank: after every step the keys of every rank's memory are
 * gathered with their rank, and on several ranks some contact held at two consecutive steps must
 * have changed rank between them (measured over the 200 steps: 48 such handovers on 2 ranks, 109 on 4). A NaN
 * in a history counts as an infinite difference (a NaN compares false with everything, so a test
 * of d > 0 would skip it). */
// ctest: labels=mpi timeout=600 ranks=2;4
#include "test_util.h"
#include "penalty/history.h"
#include "test_penalty_pour.h"

#define STEPS 200

static const char *scenario = PENALTY_POUR_SCENARIO;

typedef struct {
  PetscInt    n;
  ContactKey *key;
  double     *rec;
} Gathered;

/* sim's history memory of all ranks on rank 0 of comm, sorted by key (others: n = 0). */
static PetscErrorCode Gather(Simulation sim, Gathered *g)
{
  const ImpulseMemory *m   = SimulationMemory(sim);
  const size_t         rec = sizeof(ContactKey) + sizeof(double) * PENALTY_HISTORY_WIDTH;
  PetscMPIInt          size, rank, mine = (PetscMPIInt)(m->n * (PetscInt)rec), *counts = NULL, *displs = NULL;
  char                *buf, *all = NULL;
  ImpulseMemory        sorted;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(SimulationComm(sim), &size));
  PetscCallMPI(MPI_Comm_rank(SimulationComm(sim), &rank));
  PetscCall(PetscMalloc1(mine + 1, &buf));
  for (PetscInt i = 0; i < m->n; i++) {
    memcpy(buf + rec * i, &m->key[i], sizeof(ContactKey));
    memcpy(buf + rec * i + sizeof(ContactKey), m->gamma + (size_t)PENALTY_HISTORY_WIDTH * i,
           sizeof(double) * PENALTY_HISTORY_WIDTH);
  }
  if (!rank) PetscCall(PetscMalloc2(size, &counts, size, &displs));
  PetscCallMPI(MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, SimulationComm(sim)));
  g->n = 0;
  if (!rank) {
    int total = 0;
    for (int r = 0; r < size; r++) {
      displs[r] = total;
      total += counts[r];
    }
    g->n = total / (PetscInt)rec;
    PetscCall(PetscMalloc1(total + 1, &all));
  }
  PetscCallMPI(MPI_Gatherv(buf, mine, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, SimulationComm(sim)));
  if (!rank) {
    ContactKey *key;
    double     *val;
    PetscCall(PetscMalloc2(g->n + 1, &key, (size_t)(g->n + 1) * PENALTY_HISTORY_WIDTH, &val));
    for (PetscInt i = 0; i < g->n; i++) {
      memcpy(&key[i], all + rec * i, sizeof(ContactKey));
      memcpy(val + (size_t)PENALTY_HISTORY_WIDTH * i, all + rec * i + sizeof(ContactKey),
             sizeof(double) * PENALTY_HISTORY_WIDTH);
    }
    PetscCall(ImpulseMemoryCreate(&sorted));
    PetscCall(ImpulseMemorySetWidth(&sorted, PENALTY_HISTORY_WIDTH));
    PetscCall(ImpulseMemorySet(&sorted, g->n, key, val)); /* sorts; refuses a key remembered twice */
    PetscCall(PetscMalloc2(g->n + 1, &g->key, (size_t)(g->n + 1) * PENALTY_HISTORY_WIDTH, &g->rec));
    if (g->n) {
      PetscCall(PetscArraycpy(g->key, sorted.key, g->n));
      PetscCall(PetscArraycpy(g->rec, sorted.gamma, (size_t)g->n * PENALTY_HISTORY_WIDTH));
    }
    PetscCall(ImpulseMemoryDestroy(&sorted));
    PetscCall(PetscFree2(key, val));
    PetscCall(PetscFree2(counts, displs));
  }
  PetscCall(PetscFree(all));
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  ContactKey key;
  int        rank;
} KeyRank;

static int CompareKeyRank(const void *a, const void *b)
{
  return contact_key_compare(&((const KeyRank *)a)->key, &((const KeyRank *)b)->key);
}

/* The keys of sim's history memory with the rank holding each, on rank 0 of its communicator
 * sorted by key (*out allocated there, PetscFree it; other ranks get *n = 0). Collective. */
static PetscErrorCode GatherOwners(Simulation sim, KeyRank **out, PetscInt *n)
{
  const ImpulseMemory *m = SimulationMemory(sim);
  PetscMPIInt size, rank, mine = (PetscMPIInt)(m->n * (PetscInt)sizeof(ContactKey)), *counts = NULL, *displs = NULL;
  ContactKey *all = NULL;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(SimulationComm(sim), &size));
  PetscCallMPI(MPI_Comm_rank(SimulationComm(sim), &rank));
  if (!rank) PetscCall(PetscMalloc2(size, &counts, size + 1, &displs));
  PetscCallMPI(MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, SimulationComm(sim)));
  *n = 0;
  if (!rank) {
    displs[0] = 0;
    for (int r = 0; r < size; r++) displs[r + 1] = displs[r] + counts[r];
    *n = displs[size] / (PetscInt)sizeof(ContactKey);
    PetscCall(PetscMalloc1(*n + 1, &all));
  }
  PetscCallMPI(MPI_Gatherv(m->key, mine, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, SimulationComm(sim)));
  if (!rank) {
    PetscCall(PetscMalloc1(*n + 1, out));
    for (int r = 0; r < size; r++)
      for (PetscInt i = displs[r] / (PetscInt)sizeof(ContactKey); i < displs[r + 1] / (PetscInt)sizeof(ContactKey);
           i++) {
        (*out)[i].key  = all[i];
        (*out)[i].rank = r;
      }
    qsort(*out, (size_t)*n, sizeof(KeyRank), CompareKeyRank);
    PetscCall(PetscFree(all));
    PetscCall(PetscFree2(counts, displs));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Keys in both sorted lists whose rank differs. */
static PetscInt Handovers(const KeyRank *a, PetscInt na, const KeyRank *b, PetscInt nb)
{
  PetscInt i = 0, j = 0, moved = 0;
  while (i < na && j < nb) {
    const int c = contact_key_compare(&a[i].key, &b[j].key);
    if (c < 0) i++;
    else if (c > 0) j++;
    else moved += a[i++].rank != b[j++].rank;
  }
  return moved;
}

/* The pour on comm; the history at steps 100 and 200 gathered on its rank 0, and there the number of
 * contacts whose history changed rank from one step to the next. */
static PetscErrorCode Pour(MPI_Comm comm, Gathered g[2], PetscInt *handovers)
{
  Simulation sim;
  KeyRank   *prev = NULL, *now = NULL;
  PetscInt   nprev = 0, nnow = 0;

  PetscFunctionBegin;
  *handovers = 0;
  PetscCall(TestSimulationOnComm(comm, scenario, "penalty-pour", &sim));
  for (int n = 1; n <= STEPS; n++) {
    PetscCall(SimulationStep(sim));
    if (n == STEPS / 2) PetscCall(Gather(sim, &g[0]));
    PetscCall(GatherOwners(sim, &now, &nnow));
    *handovers += Handovers(prev, nprev, now, nnow);
    PetscCall(PetscFree(prev));
    prev  = now;
    nprev = nnow;
    now   = NULL;
  }
  PetscCall(PetscFree(prev));
  PetscCall(Gather(sim, &g[1]));
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int SameKeys(const Gathered *a, const Gathered *b)
{
  if (a->n != b->n) return 0;
  for (PetscInt i = 0; i < a->n; i++)
    if (a->key[i].ida != b->key[i].ida || a->key[i].idb != b->key[i].idb || a->key[i].sub != b->key[i].sub) return 0;
  return 1;
}

/* Largest difference of a and b relative to the largest magnitude of the field over a's contacts. */
static double RelativeDifference(const Gathered *a, const Gathered *b)
{
  double worst = 0;
  for (PetscInt k = 0; k < PENALTY_HISTORY_WIDTH; k++) {
    double scale = 0;
    for (PetscInt i = 0; i < a->n; i++) scale = PetscMax(scale, fabs(a->rec[PENALTY_HISTORY_WIDTH * i + k]));
    for (PetscInt i = 0; i < a->n; i++) {
      const double d = fabs(a->rec[PENALTY_HISTORY_WIDTH * i + k] - b->rec[PENALTY_HISTORY_WIDTH * i + k]);
      if (isnan(d)) worst = INFINITY; /* a NaN on either side */
      else if (d > 0) worst = PetscMax(worst, scale > 0 ? d / scale : INFINITY);
    }
  }
  return worst;
}

static PetscInt Touching(const Gathered *g)
{
  PetscInt n = 0;
  for (PetscInt i = 0; i < g->n; i++)
    n += penalty_state_has((const PenaltyHistory *)(g->rec + PENALTY_HISTORY_WIDTH * i), PENALTY_TOUCHING);
  return n;
}

int main(int argc, char **argv)
{
  Gathered    run1[2] = {{0}}, run2[2] = {{0}}, one[2] = {{0}};
  PetscMPIInt rank, size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsSetValue(NULL, "-balance_interval", "50"));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscInt handovers, handovers2, handovers1;
  PetscCall(Pour(PETSC_COMM_WORLD, run1, &handovers));
  PetscCall(Pour(PETSC_COMM_WORLD, run2, &handovers2));
  if (!rank) PetscCall(Pour(PETSC_COMM_SELF, one, &handovers1));
  if (!rank) {
    printf("%" PetscInt_FMT " times a contact's history changed rank from one step to the next on %d ranks\n",
           handovers, size);
    TEST_CHECK(size == 1 || handovers > 0,
               "no history changed rank on %d ranks: the migration of histories is not exercised", size);
    for (int s = 0; s < 2; s++) {
      const int same_bits = SameKeys(&run1[s], &run2[s]) &&
                            !memcmp(run1[s].rec, run2[s].rec, sizeof(double) * PENALTY_HISTORY_WIDTH * run1[s].n);
      const int    same_keys = SameKeys(&run1[s], &one[s]);
      const double diff      = same_keys ? RelativeDifference(&one[s], &run1[s]) : INFINITY;
      printf("step %d: %" PetscInt_FMT " contacts remembered (%" PetscInt_FMT " touching) on %d ranks, %" PetscInt_FMT
             " on 1; two %d-rank runs bitwise identical: %s; against 1 rank: same keys %s, largest relative difference "
             "%.3e\n",
             (s + 1) * STEPS / 2, run1[s].n, Touching(&run1[s]), size, one[s].n, size, same_bits ? "yes" : "no",
             same_keys ? "yes" : "no", diff);
      TEST_CHECK(Touching(&run1[s]) > 100, "only %" PetscInt_FMT " touching contacts: the pour should pile up",
                 Touching(&run1[s]));
      TEST_CHECK(same_bits, "two runs on %d ranks differ at step %d", size, (s + 1) * STEPS / 2);
      TEST_CHECK(same_keys, "the contacts on %d ranks differ from one rank's at step %d", size, (s + 1) * STEPS / 2);
      TEST_CHECK(diff <= 1e-12, "history differs from one rank's by %.3e relative at step %d", diff,
                 (s + 1) * STEPS / 2);
    }
  }
  for (int s = 0; s < 2; s++) {
    PetscCall(PetscFree2(run1[s].key, run1[s].rec));
    PetscCall(PetscFree2(run2[s].key, run2[s].rec));
    PetscCall(PetscFree2(one[s].key, one[s].rec));
  }
  int rc = TestFinish("penalty distributed pour");
  PetscCall(PetscFinalize());
  return rc;
}
