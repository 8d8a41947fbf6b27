/* A small clump pour on this run's ranks (slabs along x, cuts fixed) against rank 0 alone: 60
 * trimers (three overlapping spheres, r = 15 mm, the template of tests/validation/test_clump_rest.c
 * scaled) on a 5 x 4 x 3 lattice with orientations from a fixed hash, thrown sideways (0.3 m/s along
 * x, across the cut at x = 0) onto a floor, 60 steps of 5 ms (the three layers land and pile up:
 * 131 contacts at the end), CCP with APGD to 1e-7 m/s. Checked at every step: the same contact
 * count (member pairs included: a clump pair computed twice or never, or a ghost clump with stale
 * members, changes it), the same number of contacts warm-started from the memory (the member-pair
 * keys must follow their contacts between ranks) and every solve converged; at the end every
 * body's position within 1e-6 m and velocity within 1e-5 m/s of the serial run. Tolerances: two
 * runs whose sums are ordered differently differ per step by about the solver tolerance (1e-7 m/s)
 * in each velocity; over 60 steps of 5 ms that is 3e-8 m of position if it adds up every step, and
 * a jammed pack's solutions within the tolerance differ by up to 20 times that, 6e-7 m
 * (tests/validation/test_distributed_pour.c). Measured on 2 ranks: 2.3e-9 m and 9.4e-8 m/s (1.3e-7 m
 * and 3.0e-6 m/s over 120 steps, once the pack jams); the bounds, 1e-6 m and 1e-5 m/s, cover the
 * jammed case, while a lost or doubled member contact moves a clump by millimetres. Member-pair keys
 * that collide (the sub without the second member's index) stop the run: a key remembered twice.
 * Length: the pile's last steps dominate the cost (120 steps: 85,000 APGD iterations on 2 ranks,
 * 60 steps: 15,600, each with a neighbour exchange and an Allreduce that wait for the scheduler
 * beside a CPU-bound process), and every check above is exercised by step 60. */
// ctest: labels=mpi timeout=600 ranks=2
#include "test_util.h"

#define STEPS 60
#define NX    5
#define NY    4
#define NZ    3

typedef struct {
  PetscInt contacts, warm_started, converged;
} StepRecord;

/* A unit quaternion from body k's hash (splitmix64 bits), the same on every machine. */
static void orientation(int k, double q[4])
{
  uint64_t z = 0x9E3779B97F4A7C15ull * (uint64_t)(k + 1);
  double   n = 0;
  for (int a = 0; a < 4; a++) {
    z    = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z    = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z    = z ^ (z >> 31);
    q[a] = (double)(z >> 11) / 9007199254740992.0 - 0.5;
    n += q[a] * q[a];
  }
  for (int a = 0; a < 4; a++) q[a] /= sqrt(n);
}

static PetscErrorCode PourScenario(char **text)
{
  const size_t cap = 65536;
  size_t       len;
  char        *s;
  int          k = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(cap, &s));
  len = (size_t)snprintf(s, cap,
                         "domain: {min: [-0.3, -0.3, -0.05], max: [0.3, 0.3, 0.6]}\n"
                         "gravity: [0, 0, -9.81]\n"
                         "time: {step: 0.005, end: 1.0}\n"
                         "contact: {model: ccp, envelope: 0.0015, max_recovery_speed: 0.5}\n"
                         "solver: {type: apgd, max_iterations: 10000, tolerance: 1.0e-7}\n"
                         "materials:\n"
                         "  - {name: m, density: 2500, friction: 0.5}\n"
                         "walls:\n"
                         "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}\n"
                         "clumps:\n"
                         "  - {name: tri, members: [{offset: [0.012, 0, 0], radius: 0.015}, {offset: [-0.006, "
                         "0.0103923, 0], radius: 0.015}, {offset: [-0.006, -0.0103923, 0], radius: 0.015}]}\n"
                         "bodies:\n");
  for (int iz = 0; iz < NZ; iz++)
    for (int iy = 0; iy < NY; iy++)
      for (int ix = 0; ix < NX; ix++, k++) {
        double q[4];
        orientation(k, q);
        len += (size_t)snprintf(s + len, cap - len,
                                "  - {shape: clump, clump: tri, position: [%.6f, %.6f, %.6f], orientation: [%.17g, "
                                "%.17g, %.17g, %.17g], velocity: [0.3, 0, 0], material: m}\n",
                                -0.16 + 0.065 * ix, -0.1 + 0.065 * iy, 0.04 + 0.065 * iz, q[0], q[1], q[2], q[3]);
      }
  PetscCheck(len < cap, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the pour scenario needs more than %zu bytes", cap);
  *text = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Pour(MPI_Comm comm, const char *text, StepRecord *rec, TestBodyVel **end, PetscInt *nend)
{
  Simulation sim;

  PetscFunctionBegin;
  PetscCall(TestSimulationOnComm(comm, text, "clump-pour", &sim));
  for (int n = 0; n < STEPS; n++) {
    PetscCall(SimulationStep(sim));
    rec[n].contacts     = SimulationLastStep(sim)->contacts;
    rec[n].warm_started = SimulationLastStep(sim)->warm_started;
    rec[n].converged    = SimulationLastStep(sim)->converged;
  }
  PetscCall(TestGatherVelocities(sim, end, nend));
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  StepRecord  *par, *ser;
  TestBodyVel *bpar = NULL, *bser = NULL;
  PetscInt     npar = 0, nser = 0;
  PetscMPIInt  rank, size;
  char        *text = NULL;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscMalloc2(STEPS, &par, STEPS, &ser));
  PetscCall(PourScenario(&text));
  PetscCall(TestSlabsAlongX("0"));
  PetscCall(Pour(PETSC_COMM_WORLD, text, par, &bpar, &npar));
  if (!rank) {
    double   dx = 0, dv = 0;
    PetscInt unconverged = 0, warm = 0;
    PetscCall(TestSerialReference());
    PetscCall(Pour(PETSC_COMM_SELF, text, ser, &bser, &nser));
    for (int n = 0; n < STEPS; n++) {
      TEST_CHECK(par[n].contacts == ser[n].contacts,
                 "step %d: %" PetscInt_FMT " contacts on %d ranks, %" PetscInt_FMT " on one", n + 1, par[n].contacts,
                 size, ser[n].contacts);
      TEST_CHECK(par[n].warm_started == ser[n].warm_started,
                 "step %d: %" PetscInt_FMT " warm-started on %d ranks, %" PetscInt_FMT " on one", n + 1,
                 par[n].warm_started, size, ser[n].warm_started);
      unconverged += !par[n].converged || !ser[n].converged;
      warm += ser[n].warm_started;
    }
    TEST_CHECK(npar == nser && nser == NX * NY * NZ, "%" PetscInt_FMT " bodies on %d ranks, %" PetscInt_FMT " on one",
               npar, size, nser);
    for (PetscInt i = 0; i < PetscMin(npar, nser); i++) {
      double x[3], v[3];
      TEST_CHECK(bpar[i].id == bser[i].id, "body %" PetscInt_FMT ": ids differ", i);
      for (int k = 0; k < 3; k++) {
        x[k] = bpar[i].x[k] - bser[i].x[k];
        v[k] = bpar[i].v[k] - bser[i].v[k];
      }
      dx = PetscMax(dx, v3_norm(x));
      dv = PetscMax(dv, v3_norm(v));
    }
    printf("clump pour, %d ranks vs 1: %d steps, %" PetscInt_FMT " contacts at the end (%" PetscInt_FMT
           " warm starts in all), largest position difference %.3e m, velocity %.3e m/s, %" PetscInt_FMT
           " steps unconverged\n",
           size, STEPS, ser[STEPS - 1].contacts, warm, dx, dv, unconverged);
    TEST_CHECK(ser[STEPS - 1].contacts > NX * NY * NZ, "the pour ends with %" PetscInt_FMT " contacts: no pile",
               ser[STEPS - 1].contacts);
    TEST_CHECK(dx <= 1e-6, "positions differ by %.3e m > 1e-6", dx);
    TEST_CHECK(dv <= 1e-5, "velocities differ by %.3e m/s > 1e-5", dv);
    TEST_CHECK(unconverged == 0, "%" PetscInt_FMT " steps did not converge to 1e-7 m/s", unconverged);
  }
  PetscCallMPI(MPI_Bcast(&failures, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  PetscCall(PetscFree(bpar));
  PetscCall(PetscFree(bser));
  PetscCall(PetscFree(text));
  PetscCall(PetscFree2(par, ser));
  int rc = TestFinish("clump pour");
  PetscCall(PetscFinalize());
  return rc;
}
