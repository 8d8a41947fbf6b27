/* An 80-step pour: a 6 x 6 x 5 lattice of spheres thrown sideways onto a floor, where it lands
 * layer by layer, spreads, and partly slides out of the domain. Run on this run's ranks and (rank 0
 * alone) on one rank: at every step the contact count, the bodies that left and the total linear
 * momentum must agree, as must the number of contacts that found their last impulse in the
 * warm-start memory (the memory follows a contact when its body changes owner), and no body may be
 * lost or duplicated (owned bodies summed over ranks =
 * created - left, each id owned once).
 *
 * Tolerances. Every solve reaches a residual of 1e-7 m/s (checked; the cap is 10000 iterations:
 * a jammed pack on the floor, the last steps of a 200-step plain pour, needs up to 5300
 * of them, measured on 3 ranks; 4700 on 1); two runs whose floating-point sums are ordered
 * differently then differ per step by about that much in each velocity. The runs stay within
 * 1e-9 m/s of each other as long as every solve stops at the same iteration; once one stops an
 * iteration earlier (its residual crossed 1e-7 m/s first; measured in a 200-step pour: step 97,
 * 393 against 392 iterations), the two take different paths, and two solutions of a jammed pack
 * each within 1e-7 m/s per contact differ in the mean velocity by up to about 20 times that
 * (measured: 1.8e-6 m/s at one step, 7e-8 the next). The momentum check allows a mean velocity
 * difference of 1e-5 m/s (|dP| <= 1e-5 m/s x total mass), a hundred times the solver tolerance
 * and four orders below the flow's speed (0.2 m/s): a lost impulse, a contact solved twice or a
 * ghost with a stale velocity shows up at 1e-3 or more.
 * Contact counts must be equal: a pair is a contact when its gap is below the envelope (0.5 mm),
 * and the runs' positions differ by ~1e-9 m, so only a pair that close to the envelope could flip.
 * Side walls are left out on purpose: spheres wedged between walls and neighbours make redundant
 * constraints on which APGD stalls above 1e-7 m/s (measured: 67 of 200 steps at 5000 iterations
 * with four walls), and an unconverged solve is path-dependent, so the runs would part for a
 * reason that is not the decomposition.
 *
 * The pour runs twice: plain, then cohesive (cohesion 0.5 N per contact, about 60% of a sphere's
 * weight, so landed spheres pull on each other and on the floor: the shifted cone of the cohesion
 * must give the same impulses whichever rank owns a contact). The cohesive pour is also compliant
 * (1e-6 m/N per material; a sphere's weight deflects a contact by 1.6 um): rigid and cohesive, 92 of
 * its 200 steps stalled above 1e-7 m/s at 5000 iterations (measured), an ill-posed pack again; the
 * compliance makes each step strongly convex, and every step then converges.
 *
 * Length. 80 steps: landing, spreading and the first 10 bodies leaving (8 in the cohesive pour).
 * Longer pours add a jammed pack on the floor whose solves at 1e-7 m/s dominate the cost: the two
 * 200-step pours need about 145,000 APGD iterations, 80 steps 19,000 (measured), each with a few
 * reductions. Beside CPU-bound processes on 2 cores those reductions wait for the scheduler: one
 * `yes` made 8 ranks take 130-166 s for 80 steps, and a machine at load 15 stopped the 200-step
 * pour on 2 ranks at ctest's 600 s (measured). */
// ctest: labels=mpi timeout=600 ranks=2;3;4;8
#include "test_util.h"

#define STEPS               80
#define COHESIVE_COMPLIANCE 1e-6 /* m/N per material: keeps the cohesive steps solvable */

static const char *scenario_format = "domain: {min: [-0.25, -0.25, -0.05], max: [0.25, 0.25, 0.75]}\n"
                                     "gravity: [0, 0, -9.81]\n"
                                     "time: {step: 0.005, end: 1.0}\n"
                                     "contact: {model: ccp, envelope: 0.0005, max_recovery_speed: 0.5}\n"
                                     "solver: {type: apgd, max_iterations: 10000, tolerance: 1.0e-7}\n"
                                     "materials:\n"
                                     "  - {name: m, density: 2500, friction: 0.5, rolling_friction: 0.001, "
                                     "spinning_friction: 0.001, cohesion: %g, compliance: %g}\n"
                                     "walls:\n"
                                     "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}\n"
                                     "fills:\n"
                                     "  - {type: lattice, region: {min: [-0.15, -0.15, 0.03], max: [0.15, 0.15, "
                                     "0.25]}, radius: 0.02, spacing: 0.045, material: m, velocity: [0.2, -0.1, 0]}\n";

typedef struct {
  PetscInt contacts, bodies, removed, converged, warm_started;
  double   momentum[3], mass;
} StepRecord;

/* Runs the pour (materials with this cohesion) on comm, recording every step (the same on every
 * rank of comm). */
static PetscErrorCode Pour(MPI_Comm comm, double cohesion, StepRecord *rec)
{
  char       scenario[2048];
  Simulation sim;
  Scenario   sc;
  char       err[SCENARIO_ERR_MAX] = "";
  PetscInt   created;

  PetscFunctionBegin;
  snprintf(scenario, sizeof scenario, scenario_format, cohesion, cohesion > 0 ? COHESIVE_COMPLIANCE : 0.0);
  if (scenario_load_string(scenario, "distributed-pour", &sc, err, sizeof(err)))
    SETERRQ(comm, PETSC_ERR_PLIB, "%s", err);
  PetscCall(SimulationCreate(comm, &sc, &sim, err, sizeof(err)));
  PetscCheck(!err[0], comm, PETSC_ERR_PLIB, "%s", err);
  PetscCallMPI(MPI_Allreduce(&SimulationBodies(sim)->n_owned, &created, 1, MPIU_INT, MPI_SUM, comm));
  for (int n = 0; n < STEPS; n++) {
    double   local[4] = {0, 0, 0, 0};
    int64_t *ids;
    PetscInt nall = 0, dup = 0;

    PetscCall(SimulationStep(sim));
    for (PetscInt i = 0; i < SimulationBodies(sim)->n_owned; i++) {
      for (int k = 0; k < 3; k++) local[k] += SimulationBodies(sim)->mass[i] * SimulationBodies(sim)->vel[6 * i + k];
      local[3] += SimulationBodies(sim)->mass[i];
    }
    PetscCallMPI(MPI_Allreduce(local, rec[n].momentum, 3, MPI_DOUBLE, MPI_SUM, comm));
    PetscCallMPI(MPI_Allreduce(&local[3], &rec[n].mass, 1, MPI_DOUBLE, MPI_SUM, comm));
    rec[n].contacts     = SimulationLastStep(sim)->contacts;
    rec[n].warm_started = SimulationLastStep(sim)->warm_started;
    rec[n].bodies       = SimulationLastStep(sim)->bodies;
    rec[n].removed      = SimulationRemoved(sim);
    rec[n].converged    = SimulationLastStep(sim)->converged;
    /* every id owned exactly once: gather the ids on every rank and look for repeats */
    {
      PetscMPIInt size, nl = (PetscMPIInt)SimulationBodies(sim)->n_owned, *counts, *displs;
      PetscCallMPI(MPI_Comm_size(comm, &size));
      PetscCall(PetscMalloc2(size, &counts, size, &displs));
      PetscCallMPI(MPI_Allgather(&nl, 1, MPI_INT, counts, 1, MPI_INT, comm));
      for (int r = 0; r < size; r++) {
        displs[r] = (PetscMPIInt)nall;
        nall += counts[r];
      }
      PetscCall(PetscMalloc1(nall + 1, &ids));
      PetscCallMPI(MPI_Allgatherv(SimulationBodies(sim)->id, nl, MPI_INT64_T, ids, counts, displs, MPI_INT64_T, comm));
      PetscCall(PetscSortInt64(nall, ids));
      for (PetscInt i = 1; i < nall; i++) dup += ids[i] == ids[i - 1];
      PetscCall(PetscFree(ids));
      PetscCall(PetscFree2(counts, displs));
    }
    TEST_CHECK(dup == 0, "step %d: %" PetscInt_FMT " bodies owned twice", n + 1, dup);
    TEST_CHECK(nall == rec[n].bodies && nall + rec[n].removed == created,
               "step %d: %" PetscInt_FMT " owned + %" PetscInt_FMT " left != %" PetscInt_FMT " created", n + 1, nall,
               rec[n].removed, created);
  }
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The pour on all ranks against rank 0 alone: the checks of the header. */
static PetscErrorCode ComparePours(double cohesion, StepRecord *par, StepRecord *ser)
{
  PetscMPIInt rank, size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(Pour(PETSC_COMM_WORLD, cohesion, par));
  if (!rank) {
    double worst_dp   = 0;
    int    worst_step = 0, unconverged = 0, first_contacts = 0;
    PetscCall(Pour(PETSC_COMM_SELF, cohesion, ser));
    for (int n = 0; n < STEPS; n++) {
      const double dp = PetscSqrtReal(PetscSqr(par[n].momentum[0] - ser[n].momentum[0]) +
                                      PetscSqr(par[n].momentum[1] - ser[n].momentum[1]) +
                                      PetscSqr(par[n].momentum[2] - ser[n].momentum[2])) /
                        ser[n].mass;
      if (dp > worst_dp) {
        worst_dp   = dp;
        worst_step = n + 1;
      }
      unconverged += !par[n].converged || !ser[n].converged;
      if (!first_contacts && ser[n].contacts) first_contacts = n + 1;
      TEST_CHECK(par[n].contacts == ser[n].contacts,
                 "cohesion %g, step %d: %" PetscInt_FMT " contacts on %d ranks, %" PetscInt_FMT " on one", cohesion,
                 n + 1, par[n].contacts, size, ser[n].contacts);
      TEST_CHECK(par[n].warm_started == ser[n].warm_started,
                 "cohesion %g, step %d: %" PetscInt_FMT " contacts warm-started on %d ranks, %" PetscInt_FMT
                 " on one (impulses lost when bodies migrate?)",
                 cohesion, n + 1, par[n].warm_started, size, ser[n].warm_started);
      TEST_CHECK(par[n].removed == ser[n].removed,
                 "cohesion %g, step %d: %" PetscInt_FMT " bodies left on %d ranks, %" PetscInt_FMT " on one", cohesion,
                 n + 1, par[n].removed, size, ser[n].removed);
    }
    printf("cohesion %g N, %d ranks vs 1: %d steps, contacts from step %d, %" PetscInt_FMT " at the end, %" PetscInt_FMT
           " bodies left the domain; largest momentum difference / mass %.3e m/s (step %d); %d steps unconverged\n",
           cohesion, size, STEPS, first_contacts, ser[STEPS - 1].contacts, ser[STEPS - 1].removed, worst_dp, worst_step,
           unconverged);
    TEST_CHECK(worst_dp <= 1e-5, "cohesion %g: momentum differs by %.3e m/s x mass > 1e-5", cohesion, worst_dp);
    TEST_CHECK(unconverged == 0, "cohesion %g: %d steps did not converge to 1e-7 m/s", cohesion, unconverged);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const double cohesion[] = {0, 0.5};
  StepRecord  *par, *ser;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscMalloc2(STEPS, &par, STEPS, &ser));
  for (int k = 0; k < 2; k++) PetscCall(ComparePours(cohesion[k], par, ser));
  PetscCallMPI(MPI_Bcast(&failures, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  PetscCall(PetscFree2(par, ser));
  int rc = TestFinish("distributed pour");
  PetscCall(PetscFinalize());
  return rc;
}
