/* The warm start after steps that do not converge (GUIDE "When the exact CCP is ill-posed"; docs/design.md
 * "Warm start"): it must neither accumulate impulses along the unbounded direction of an unsolvable
 * step nor take away the support of a pile whose solves stop at the iteration cap.
 *
 * 1. Unsolvable steps: a sphere (R = 1 cm) squeezed between two parallel walls, overlapping each by
 *    1e-3 R, gravity along the walls. Both contacts ask to separate (b_n = phi/h < 0) and cannot:
 *    the equal and opposite normal impulses are a direction with D gamma = 0 and b.gamma < 0, so
 *    no step has a solution and an iterative solver drifts along it. 2000 steps with each solver
 *    and the default settings; the largest normal impulse of steps 1001-2000 must be at most 1.1
 *    times that of steps 1-1000 (bounded). With the warm start kept whole (-ccp_warm_start_decay
 *    1) it grows linearly: measured 2026-11-23, Jacobi and Gauss-Seidel about 2x between the two
 *    halves (the check fails); APGD keeps its best iterate, the warm start, and does not drift.
 * 2. A deep pile whose solves stop at the cap: 2048 spheres (R = 1 cm, 2028 kg/m^3, mu = 0.6,
 *    rho = sigma = 2 mm: 6-dof contacts) in 8 lattice layers 1 mm apart, settling on a floor with
 *    APGD capped at 100 iterations (few steps converge), h = 5 ms, 250 steps, default settings.
 *    Over the last 100 steps no body may be faster than g h / 2 = 0.0245 m/s (a body that lost
 *    its support gains g h = 0.049 m/s a step) and no centre lower than 0.99 R (the bottom layer
 *    pressed into the floor). Measured 2026-11-23 (this program with -ccp_warm_start_decay D):
 *    D = 0.5, the old default's factor, 1.7 m/s and a centre at 3.3 mm (the capped solves cannot
 *    rebuild half the support each step); D = 0.9 .. 0.995, 2.6e-4 .. 3.3e-3 m/s; D = 1, 1.1e-2 m/s (it
 *    passes this part; the first catches it). With 50 iterations the outcome depends on D
 *    chaotically (0.97, 0.98 and 0.99 held, 0.985 nearly, 0.993, 0.995 and 1 burst): not a test.
 * 3. The exemption: a solve that returns its warm start unchanged keeps it whole.
 *    (a) The squeeze without gravity, APGD: every step, the first too, returns its warm start (zero
 *        impulses: the iterates only move along the direction that changes no velocity and never
 *        beat it, ccp_improves), and no step may count as decayed (without the exemption all 199).
 *    (b) Non-zero impulses: the same squeeze with the sphere thrown sideways at 0.1 m/s, so that
 *        friction stops it in the first step and the normal impulses stay non-zero. Steps alternate
 *        between a solve that improves its warm start (not converged: decayed next) and one that
 *        returns it. Every step that returned its warm start unchanged (kept, not converged) must
 *        hold exactly the warm start the previous step left: its impulses times the decay after a
 *        decayed step, times 1 after a kept one (bitwise: the warm start is one product, repeated
 *        here); measured, 503 such steps over 1000, their normal impulses ~3.2e-3 N s (at least 250
 *        required). A decay after a kept step, or a kept step that changed its impulses, breaks
 *        the equality (a decay after every step: 9 of the 503 steps differ). */
// ctest: timeout=300
#include "test_util.h"

static const char *const solvers[] = {"jacobi", "gauss-seidel", "apgd"};

/* A sphere squeezed between two walls for `steps` steps with gravity gx along them. Returns the
 * largest normal impulse of the first and the second half of the steps, the smallest and largest
 * of steps 2 on, and the steps from 2 on after which the warm start decayed. */
typedef struct {
  double   half_max[2], from2_min, from2_max;
  PetscInt decayed;
} Squeeze;

/* The squeeze of part 3(b): `steps` steps, the sphere thrown along x at 0.1 m/s. *returned: the
 * steps (2 on) that kept their impulses without converging, with non-zero impulses; *wrong: those of
 * them whose impulses are not exactly the warm start the previous step left (its impulses times the
 * decay after a decayed step, times 1 after a kept one). */
static PetscErrorCode squeeze_thrown(int steps, PetscInt *returned, PetscInt *wrong)
{
  const double R = 0.01, overlap = 1e-3 * R;
  char         yaml[2048];
  Simulation   sim;
  double       prev[2][CONTACT_DOF_MAX], scale, decay;
  PetscBool    prev_keep = PETSC_TRUE;

  PetscFunctionBegin;
  snprintf(yaml, sizeof yaml,
           "domain: {min: [-1, -1, -1], max: [1, 1, 1]}\n"
           "gravity: [0, 0, 0]\n"
           "time: {step: 0.005, end: 10}\n"
           "contact: {model: ccp, envelope: 0.001}\n"
           "solver: {type: apgd, max_iterations: 50, tolerance: 1.0e-6}\n"
           "materials:\n  - {name: m, density: 2000, friction: 0.5}\n"
           "walls:\n"
           "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}\n"
           "  - {type: plane, point: [0, 0, %.17g], normal: [0, 0, -1], material: m}\n"
           "bodies:\n  - {shape: sphere, radius: %g, position: [0, 0, %.17g], velocity: [0.1, 0, 0], material: m}\n",
           2 * (R - overlap), R, R - overlap);
  PetscCall(TestSimulationFromText(yaml, &sim));
  PetscCall(SimulationGetWarmStart(sim, &scale, &decay));
  *returned = *wrong = 0;
  for (int step = 1; step <= steps; step++) {
    const ContactSet *c = NULL;
    PetscCall(SimulationStep(sim));
    c = SimulationContacts(sim);
    TEST_CHECK(c->n == 2, "thrown sphere, step %d: %" PetscInt_FMT " contacts, not the two walls", step, c->n);
    if (c->n != 2) break;
    if (step >= 2 && SimulationLastStep(sim)->keep_impulses && !SimulationLastStep(sim)->converged &&
        contact_gamma(c, 0)[0] > 0) {
      const double s    = scale * (prev_keep ? 1.0 : decay); /* as the warm start takes it */
      int          same = 1;
      for (int i = 0; i < 2; i++)
        for (int k = 0; k < contact_dof(&c->c[i]); k++) same = same && contact_gamma(c, i)[k] == prev[i][k] * s;
      (*returned)++;
      *wrong += !same;
    }
    for (int i = 0; i < 2; i++)
      for (int k = 0; k < contact_dof(&c->c[i]); k++) prev[i][k] = contact_gamma(c, i)[k];
    prev_keep = SimulationLastStep(sim)->keep_impulses;
  }
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode squeeze(const char *solver, double gx, int steps, Squeeze *q)
{
  const double R = 0.01, overlap = 1e-3 * R;
  char         yaml[2048];
  Simulation   sim;

  PetscFunctionBegin;
  snprintf(yaml, sizeof yaml,
           "domain: {min: [-1, -1, -1], max: [1, 1, 1]}\n"
           "gravity: [%g, 0, 0]\n"
           "time: {step: 0.005, end: 10}\n"
           "contact: {model: ccp, envelope: 0.001}\n"
           "solver: {type: %s, max_iterations: 50, tolerance: 1.0e-6}\n"
           "materials:\n  - {name: m, density: 2000, friction: 0.5}\n"
           "walls:\n"
           "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}\n"
           "  - {type: plane, point: [0, 0, %.17g], normal: [0, 0, -1], material: m}\n"
           "bodies:\n  - {shape: sphere, radius: %g, position: [0, 0, %.17g], material: m}\n",
           gx, solver, 2 * (R - overlap), R, R - overlap);
  PetscCall(TestSimulationFromText(yaml, &sim));
  *q                 = (Squeeze){.from2_min = INFINITY};
  int other_contacts = 0; /* steps without exactly the two wall contacts */
  for (int step = 1; step <= steps; step++) {
    PetscCall(SimulationStep(sim));
    other_contacts += SimulationContacts(sim)->n != 2;
    q->decayed += step >= 2 && !SimulationLastStep(sim)->keep_impulses;
    for (PetscInt i = 0; i < SimulationContacts(sim)->n; i++) {
      const double gn               = contact_gamma(SimulationContacts(sim), i)[0];
      q->half_max[2 * step > steps] = PetscMax(q->half_max[2 * step > steps], gn);
      if (step >= 2) q->from2_min = PetscMin(q->from2_min, gn), q->from2_max = PetscMax(q->from2_max, gn);
    }
  }
  TEST_CHECK(!other_contacts, "%s: %d steps do not have exactly the two wall contacts", solver, other_contacts);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Over steps 151-250: the largest body speed and the lowest centre. */
static PetscErrorCode deep_pile(double *vmax, double *zmin)
{
  const double R = 0.01, spacing = 2.1 * R, side = 16 * spacing, height = 8 * spacing;
  char         yaml[2048];
  Simulation   sim;
  uint64_t     state = 12345;

  PetscFunctionBegin;
  snprintf(yaml, sizeof yaml,
           "domain: {min: [-1, -1, -0.1], max: [%.17g, %.17g, %.17g]}\n"
           "gravity: [0, 0, -9.81]\n"
           "time: {step: 0.005, end: 10}\n"
           "contact: {model: ccp, envelope: 0.001}\n"
           "solver: {type: apgd, max_iterations: 100, tolerance: 1.0e-4}\n"
           "materials:\n  - {name: gravel, density: 2028, friction: 0.6, rolling_friction: 0.002, spinning_friction: "
           "0.002}\n"
           "walls:\n  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: gravel}\n"
           "fills:\n  - {type: lattice, region: {min: [0, 0, 0.0005], max: [%.17g, %.17g, %.17g]}, radius: %g, "
           "spacing: %.17g, material: gravel}\n",
           side + 1, side + 1, 2 * height + 0.2, side, side, height + 0.0005, R, spacing);
  PetscCall(TestSimulationFromText(yaml, &sim));
  TEST_CHECK(SimulationBodies(sim)->n_owned == 2048, "the lattice holds %" PetscInt_FMT " spheres, not 2048",
             SimulationBodies(sim)->n_owned);
  for (PetscInt i = 0; i < SimulationBodies(sim)->n_owned;
       i++) /* seeded lateral jitter of 2% R: break the columns' symmetry */
    for (int k = 0; k < 2; k++) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      SimulationBodies(sim)->pos[3 * i + k] += 0.04 * R * ((double)(state >> 11) / 9007199254740992.0 - 0.5);
    }
  *vmax = 0;
  *zmin = INFINITY;
  for (int step = 1; step <= 250; step++) {
    PetscCall(SimulationStep(sim));
    if (step <= 150) continue;
    *vmax = PetscMax(*vmax, SimulationLastStep(sim)->max_speed);
    for (PetscInt i = 0; i < SimulationBodies(sim)->n_owned; i++)
      *zmin = PetscMin(*zmin, SimulationBodies(sim)->pos[3 * i + 2]);
  }
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const double R = 0.01, g = 9.81, h = 0.005;
  double       vmax, zmin;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (int s = 0; s < 3; s++) {
    Squeeze q;
    PetscCall(squeeze(solvers[s], -g, 2000, &q));
    printf("squeezed sphere, %s: largest normal impulse %.4e N s in steps 1-1000, %.4e in 1001-2000 (ratio %.3f)\n",
           solvers[s], q.half_max[0], q.half_max[1], q.half_max[1] / q.half_max[0]);
    TEST_CHECK(q.half_max[1] <= 1.1 * q.half_max[0],
               "%s: the impulses of an unsolvable step keep growing (%.4e -> %.4e N s)", solvers[s], q.half_max[0],
               q.half_max[1]);
  }
  { /* 3(a). without gravity every step is the same unsolvable problem, and APGD's iterates never
     * beat its warm start's residual (the drift changes no velocity): it returns the warm start
     * unchanged (zero), and no step counts as decayed. */
    Squeeze  q;
    PetscInt returned, wrong;
    PetscCall(squeeze("apgd", 0, 200, &q));
    printf("squeezed sphere without gravity, apgd: normal impulse %.6e .. %.6e N s over steps 2-200, %" PetscInt_FMT
           " decays after them\n",
           q.from2_min, q.from2_max, q.decayed);
    TEST_CHECK(q.decayed == 0, "a solve that returned its warm start unchanged decayed it (%" PetscInt_FMT " decays)",
               q.decayed);
    /* 3(b). non-zero impulses, returned unchanged in every other step */
    PetscCall(squeeze_thrown(1000, &returned, &wrong));
    printf("squeezed sphere thrown sideways, apgd: %" PetscInt_FMT
           " steps returned their non-zero warm start, %" PetscInt_FMT " of them not exactly the warm start due\n",
           returned, wrong);
    TEST_CHECK(returned >= 250 && wrong == 0,
               "thrown sphere: %" PetscInt_FMT " steps returned their warm start (>= 250 expected), %" PetscInt_FMT
               " of them not the warm start the previous step left",
               returned, wrong);
  }
  PetscCall(deep_pile(&vmax, &zmin));
  printf("deep pile, 100 APGD iterations, steps 151-250: largest speed %.3e m/s (limit g h / 2 = %.4f), lowest centre "
         "%.5f m (limit 0.99 R = %.4f)\n",
         vmax, 0.5 * g * h, zmin, 0.99 * R);
  TEST_CHECK(vmax <= 0.5 * g * h, "the pile lost its support: a body reached %.3e m/s", vmax);
  TEST_CHECK(zmin >= 0.99 * R, "the pile sank into the floor: a centre at %.5f m", zmin);
  int rc = TestFinish("warm start after unconverged steps");
  PetscCall(PetscFinalize());
  return rc;
}
