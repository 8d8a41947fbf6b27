/* Core benchmark (issue: Core; a program, not a test): settled piles of N spheres on one rank.
 *
 * Pile: a bed of N spheres (d = 20 mm, 2028 kg/m^3, mu = 0.6), 8 layers deep, on a cubic lattice of
 * spacing 1.05 d with a seeded lateral jitter of +-0.02 d, on a floor, under gravity. The
 * columns touch down, buckle and jam during the settling steps (default 200 steps of 5 ms), after
 * which it is a settled pack with about 3 contacts per body. The same pile is built with rho = sigma = 0
 * (3-dof contacts) and rho = sigma = 0.1 d (6-dof). Prints, per contact kind:
 *   contacts per body; seconds per step by phase (medians of TIMED_STEPS steps; APGD, tolerance 1e-4 m/s, warm started;
 * detection with the Morton sort of every -sort_interval steps amortized) and per body (the locality target compares N
 * = 10^6 with 10^4 at the same -step_cap); ns per contact per iteration for each solver: of a 30-iteration solve
 * (packing and setup included) and of the sweeps alone (the 130-iteration solve's extra time over 100 iterations);
 *   iterations each solver needs to reach 1e-4 m/s from the warm start; peak memory per body, of
 *   the whole run (above the MPI/PETSc baseline) and of stepping with each solver alone
 *   (StepFootprints: above the program's fixed footprint, FixedFootprint, and above that baseline).
 * Piles larger than -base_n (10^4) are a field of copies of the settled base pile.
 * Usage: bench_core [-n N] [-settle_steps S] [-base_n B] [-dof 3|6|0 (both)] [-conv_cap C (iteration cap of
 * the iterations-to-1e-4 runs, default 20000)] [-step_cap S (APGD cap of the timed steps, default 500)] */
#include "bench_piles.h"
#include "base/vec3.h"
#include "base/memory_policy.h"
#include "bodies/spatial_order.h"
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

static long baseline_rss_kb; /* MPI and PETSc before any body exists */
static long fixed_rss_kb;    /* the program's fixed footprint (FixedFootprint) */

/* A "VmRSS" / "VmHWM" figure (kB) of /proc/self/status, or -1 where there is none. */
static long proc_status_kb(const char *key)
{
  FILE  *f = fopen("/proc/self/status", "r");
  char   line[256];
  long   kb  = -1;
  size_t len = strlen(key);
  if (!f) return -1;
  while (fgets(line, sizeof(line), f))
    if (!strncmp(line, key, len) && line[len] == ':') kb = atol(line + len + 1);
  fclose(f);
  return kb;
}

/* Start a new peak (Linux: VmHWM restarts at the current RSS), so the 6-dof pile's figure is its
 * own and not the 3-dof pile's. Returns whether it could. */
static PetscBool peak_reset(void)
{
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (!f) return PETSC_FALSE;
  const PetscBool ok = (PetscBool)(fputs("5", f) >= 0);
  return (PetscBool)(fclose(f) == 0 && ok);
}

/* A field of copies of the settled base pile on a square grid (gap of 2 d between copies): a large
 * settled pack without settling it step by step. Ids are fresh (copy-major), so storage and id
 * order stay spatially coherent within each copy. */
static PetscErrorCode TilePile(Simulation base, PetscInt n, Simulation *sim)
{
  const BodyStore *b     = SimulationBodies(base);
  double           lo[2] = {1e300, 1e300}, hi[2] = {-1e300, -1e300};
  const int        copies = (int)ceil((double)n / b->n_owned), side = (int)ceil(sqrt((double)copies));

  PetscFunctionBegin;
  for (PetscInt i = 0; i < b->n_owned; i++)
    for (int k = 0; k < 2; k++) {
      lo[k] = PetscMin(lo[k], b->pos[3 * i + k]);
      hi[k] = PetscMax(hi[k], b->pos[3 * i + k]);
    }
  const double pitch = PetscMax(hi[0] - lo[0], hi[1] - lo[1]) + 0.06;
  {
    const double flo[2] = {lo[0] - 1, lo[1] - 1}, fhi[2] = {lo[0] + side * pitch + 1, lo[1] + side * pitch + 1};
    PetscCall(BenchSimulation(PETSC_COMM_WORLD, flo, fhi, SimulationScenario(base)->domain_max[2],
                              SimulationScenario(base)->materials[0].rolling_friction, 0.0, BENCH_SETTLE_SOLVER, NULL,
                              "", sim));
  }
  PetscCall(BodyStoreReserve(SimulationBodies(*sim), (PetscInt)copies * b->n_owned));
  for (int c = 0; c < copies; c++) {
    for (PetscInt i = 0; i < b->n_owned; i++) {
      BodyRecord r;
      BodyStoreGet(b, i, &r);
      r.pos[0] += (c % side) * pitch;
      r.pos[1] += (c / side) * pitch;
      PetscCall(SimulationAddBody(*sim, &r)); /* with a fresh id */
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The peak memory per body (above the baseline) of stepping with each solver alone, as a run whose
 * scenario picks that solver: each on a fresh copy of *sim (which replaces it), so that no buffer
 * a previous solver grew is resident (the solvers keep their buffers between steps), from a new
 * peak, over FOOTPRINT_STEPS steps (a cold one, then warm-started ones with the warm-start memory
 * in the solver's pool; the iteration count changes no buffer's size). bytes[t] < 0: no peak of
 * its own (no /proc/self/clear_refs). */
#define FOOTPRINT_STEPS 3
/* Give the heap's free pages back to the system (glibc): between the bench's simulations, so that
 * the next one's peak does not count what the destroyed one left free in the heap. */
static void release_free_heap(void)
{
#if defined(__GLIBC__)
  (void)malloc_trim(0);
#endif
}

/* bytes[t] above the fixed footprint, above_mpi[t] above the MPI/PETSc baseline */
static PetscErrorCode StepFootprints(Simulation *sim, double bytes[3], double above_mpi[3])
{
  const PetscInt nb = SimulationBodies(*sim)->n_owned;

  PetscFunctionBegin;
  for (int t = 0; t < 3; t++) {
    Simulation fresh;
    PetscCall(TilePile(*sim, nb, &fresh));
    PetscCall(SimulationDestroy(sim));
    release_free_heap();
    *sim = fresh;
    PetscCall(CCPSolverSetFromScenario(SimulationSolver(fresh), (SolverType)t, 10, 0.0));
    const PetscBool own_peak = peak_reset();
    for (int s = 0; s < FOOTPRINT_STEPS; s++) PetscCall(SimulationStep(fresh));
    const long peak = own_peak ? proc_status_kb("VmHWM") : -1;
    bytes[t]        = peak > 0 ? (peak - fixed_rss_kb) * 1024.0 / nb : -1;
    above_mpi[t]    = peak > 0 ? (peak - baseline_rss_kb) * 1024.0 / nb : -1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Seconds of CPU this process has used (user + system). */
static double cpu_seconds(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + 1e-6 * ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
         1e-6 * ru.ru_stime.tv_usec;
}

/* The solver figures: solves of sweep_its[0] and sweep_its[1] iterations, SWEEP_REPEATS of each
 * alternating, medians. The short solve's time per iteration includes the per-solve work
 * (packing, setup, the final velocity pass); the difference of the two is the sweeps' own cost. */
#define SWEEP_REPEATS 3
/* Steps timed by phase before the solver figures (medians: see Bench). */
#define TIMED_STEPS 5
static const PetscInt sweep_its[2] = {30, 130};

_Static_assert(TIMED_STEPS <= MEDIAN_MAX && SWEEP_REPEATS <= MEDIAN_MAX, "median's buffer holds the figures' samples");

/* Wall seconds of one Morton sort of sim's bodies, in place: sim must not step again (the stepper
 * would not know its bodies moved). */
static PetscErrorCode TimeSort(Simulation sim, double *seconds)
{
  PetscFunctionBegin;
  *seconds = MPI_Wtime();
  PetscCall(BodyStoreSortSpatially(SimulationBodies(sim), SimulationScenario(sim)->domain_min,
                                   SimulationScenario(sim)->domain_max));
  *seconds = MPI_Wtime() - *seconds;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Bench(PetscInt n, int dof, PetscInt settle, PetscInt base_n, PetscInt conv_cap, PetscInt step_cap)
{
  static const char *names[] = {"jacobi", "gauss-seidel", "apgd"};
  Simulation         sim, base;
  double             det[TIMED_STEPS], det_cpu[TIMED_STEPS], step_solve[TIMED_STEPS], step_integrate[TIMED_STEPS],
    rest_cpu[TIMED_STEPS];
  PetscInt      its = 0;
  struct rusage ru;

  PetscFunctionBegin;
  const PetscBool own_peak = peak_reset();
  PetscCall(BuildPile(PETSC_COMM_WORLD, PetscMin(n, base_n), 8, dof == 6 ? 0.002 : 0.0, 0.0, BENCH_SETTLE_SOLVER,
                      PETSC_FALSE, &base));
  for (PetscInt s = 0; s < settle; s++) PetscCall(SimulationStep(base));
  if (n > base_n) {
    PetscCall(TilePile(base, n, &sim));
    PetscCall(SimulationDestroy(&base));
    PetscCall(SimulationStep(sim)); /* contacts and warm start of the field */
  } else sim = base;
  const PetscInt nb = SimulationBodies(sim)->n_owned;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "N = %" PetscInt_FMT " spheres, %d-dof contacts, settled %" PetscInt_FMT
                        " steps: %.2f contacts per body, max speed %.2e m/s\n",
                        nb, dof, settle, (double)SimulationContacts(sim)->n / nb, SimulationLastStep(sim)->max_speed));
  PetscCall(CCPSolverSetFromScenario(SimulationSolver(sim), SOLVER_APGD, step_cap, 1e-4));
  /* Detection is timed in the steps without the Morton sort (every sort_interval steps, inside the
   * detect phase), which is timed on its own below and amortized over its interval: at N = 10^4 the
   * settled pile reaches the timed steps at step 200, a sorting one (at larger N the field's steps
   * do not sort). Each phase's figure is the median of its timed steps: single steps of the same
   * pile varied by up to 1.7x on a 2-vCPU AMD EPYC Zen 5 VM (detection at 10^5 and 10^6 read
   * 563-969 ns per body in 3-step means, 171-686 in medians of 5). */
  int       ndet            = 0; /* steps timed for detection: those without the sort, or the last step if all sort */
  PetscBool sorted_in_timed = PETSC_FALSE;
  for (int s = 0; s < TIMED_STEPS; s++) {
    const PetscBool sorts = (PetscBool)(SimulationSortInterval(sim) &&
                                        SimulationStepCount(sim) % SimulationSortInterval(sim) == 0);
    const double    w0 = MPI_Wtime(), c0 = cpu_seconds();
    PetscCall(SimulationStep(sim));
    const double busy = PetscMin((cpu_seconds() - c0) / (MPI_Wtime() - w0), 1.0); /* as the solver figures below */
    step_solve[s]     = SimulationLastStep(sim)->wall_solve;
    step_integrate[s] = SimulationLastStep(sim)->wall_integrate;
    rest_cpu[s]       = (SimulationLastStep(sim)->wall_solve + SimulationLastStep(sim)->wall_integrate) * busy;
    its += SimulationLastStep(sim)->iterations;
    if (sorts && (s < TIMED_STEPS - 1 || ndet > 0)) continue;
    sorted_in_timed = sorts;
    det[ndet]       = SimulationLastStep(sim)->wall_detect;
    det_cpu[ndet++] = SimulationLastStep(sim)->wall_detect * busy;
  }
  double detect = median(det, ndet), detect_cpu = median(det_cpu, ndet);
  for (int t = 0; t < 3; t++) {
    double   solve[2][SWEEP_REPEATS], busy[SWEEP_REPEATS];
    PetscInt ran[2]    = {PETSC_MAX_INT, PETSC_MAX_INT}; /* the fewest iterations a timed solve ran */
    PetscInt passes[2] = {0, 0}; /* the timed solves' passes over the contacts (APGD's rejected steps too) */
    PetscCall(CCPSolverSetFromScenario(SimulationSolver(sim), (SolverType)t, conv_cap, 1e-4));
    PetscCall(SimulationStep(sim));
    const PetscInt  it_conv = SimulationLastStep(sim)->iterations;
    const PetscBool conv    = SimulationLastStep(sim)->converged;
    for (int r = 0; r < SWEEP_REPEATS; r++)
      for (int k = 0; k < 2; k++) {
        PetscCall(CCPSolverSetFromScenario(SimulationSolver(sim), (SolverType)t, sweep_its[k], 0.0));
        const double w0 = MPI_Wtime(), c0 = cpu_seconds();
        PetscCall(SimulationStep(sim));
        solve[k][r] = SimulationLastStep(sim)->wall_solve / PetscMax(SimulationContacts(sim)->n, 1);
        ran[k]      = PetscMin(ran[k], SimulationLastStep(sim)->iterations);
        passes[k] += SimulationLastStep(sim)->passes;
        if (!k) busy[r] = PetscMin((cpu_seconds() - c0) / (MPI_Wtime() - w0), 1.0);
      }
    /* on a shared machine the wall time includes time the process waited for a core: scaled by
     * the step's CPU/wall ratio it estimates the solve's own time (the waits spread evenly) */
    const double whole = 1e9 * median(solve[0], SWEEP_REPEATS) / sweep_its[0];
    const double sweep = 1e9 * (median(solve[1], SWEEP_REPEATS) - median(solve[0], SWEEP_REPEATS)) /
                         (sweep_its[1] - sweep_its[0]);
    /* the same per pass over the contacts: APGD's iterations include its rejected steps' passes */
    const double extra_passes = (double)(passes[1] - passes[0]) / SWEEP_REPEATS,
                 per_pass     = extra_passes > 0 ? sweep * (sweep_its[1] - sweep_its[0]) / extra_passes : 0;
    if (ran[0] < sweep_its[0] ||
        ran[1] < sweep_its[1]) /* a diverged or contact-less solve: the figures would mislead */
      PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                            "  %-12s a timed solve stopped early (%" PetscInt_FMT " of %" PetscInt_FMT
                            ", %" PetscInt_FMT " of %" PetscInt_FMT
                            " iterations): the figures below are not per iteration\n",
                            names[t], ran[0], sweep_its[0], ran[1], sweep_its[1]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "  %-12s %6.1f ns per contact-iteration, %.1f per sweep (the first scaled by the step's "
                          "CPU/wall %.2f: %.1f); %5" PetscInt_FMT
                          " iterations to 1e-4 m/s%s; %.2f passes per iteration, %.1f ns per pass\n",
                          names[t], whole, sweep, median(busy, SWEEP_REPEATS), whole * median(busy, SWEEP_REPEATS),
                          it_conv, conv ? "" : " (cap reached)", extra_passes / (sweep_its[1] - sweep_its[0]),
                          per_pass));
  }
  getrusage(RUSAGE_SELF, &ru);
  const long peak_kb = own_peak && proc_status_kb("VmHWM") > 0 ? proc_status_kb("VmHWM") : ru.ru_maxrss;
  double     sort;
  PetscCall(TimeSort(sim, &sort));                           /* last: the bodies stay sorted */
  if (SimulationSortInterval(sim) > 0 && !sorted_in_timed) { /* no sort in the timed detections: add its share */
    detect += sort / SimulationSortInterval(sim);
    detect_cpu += sort / SimulationSortInterval(sim);
  }
  const double solve_med = median(step_solve, TIMED_STEPS), integrate_med = median(step_integrate, TIMED_STEPS);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  seconds per step (APGD to 1e-4 m/s, cap %" PetscInt_FMT
                        ", %.0f iterations; medians of %d steps): detect %.4f, solve %.4f, integrate %.4f; detect %.0f "
                        "ns per body (%.0f scaled by the steps' CPU/wall), with the Morton sort (%.0f ns per body) "
                        "every %" PetscInt_FMT " steps amortized\n",
                        step_cap, (double)its / TIMED_STEPS, TIMED_STEPS, detect, solve_med, integrate_med,
                        1e9 * detect / nb, 1e9 * detect_cpu / nb, 1e9 * sort / nb, SimulationSortInterval(sim)));
  /* the locality figure, the sum of the phases' medians: compare piles of different N at the same
   * cap (each step then runs the cap) */
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  per body and step: %.3f us (%.3f scaled by the steps' CPU/wall)\n",
                        1e6 * (detect + solve_med + integrate_med) / nb,
                        1e6 * (detect_cpu + median(rest_cpu, TIMED_STEPS)) / nb));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  peak memory above the MPI/PETSc baseline (%.0f MB): %.0f bytes per body%s\n",
                        baseline_rss_kb / 1024.0, (peak_kb - baseline_rss_kb) * 1024.0 / nb,
                        own_peak ? "" : " (the process's peak so far)"));
  {
    double bytes[3], above_mpi[3];
    PetscCall(StepFootprints(&sim, bytes, above_mpi));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "  peak memory of stepping with one solver (a fresh copy, %d steps): %s %.0f, %s %.0f, %s "
                          "%.0f bytes per body above the program's fixed footprint (%.0f MB); %.0f, %.0f, %.0f above "
                          "the MPI/PETSc baseline%s\n",
                          FOOTPRINT_STEPS, names[0], bytes[0], names[1], bytes[1], names[2], bytes[2],
                          fixed_rss_kb / 1024.0, above_mpi[0], above_mpi[1], above_mpi[2],
                          bytes[0] < 0 ? " (no peak of their own on this system: -1)" : ""));
  }
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The program's fixed footprint: the resident memory after tiny piles (64 spheres, 3- and 6-dof)
 * stepped with each solver and destroyed, the heap's free pages returned. It holds what does not
 * grow with N: the code pages of ccpdem, PETSc, MPI and libm that stepping touches, the libraries'
 * lazily made state. Above the MPI/PETSc baseline alone, these (1.4-2.3 MB between runs) were
 * 130-220 bytes per body of a 10^4 pile. */
static PetscErrorCode FixedFootprint(long *kb)
{
  PetscFunctionBegin;
  for (int k = 0; k < 2; k++) {
    Simulation tiny;
    PetscCall(BuildPile(PETSC_COMM_WORLD, 64, 8, k ? 0.002 : 0.0, 0.0, BENCH_SETTLE_SOLVER, PETSC_FALSE, &tiny));
    for (int t = 0; t < 3; t++) {
      PetscCall(CCPSolverSetFromScenario(SimulationSolver(tiny), (SolverType)t, 10, 0.0));
      for (int s = 0; s < FOOTPRINT_STEPS; s++) PetscCall(SimulationStep(tiny));
    }
    PetscCall(SimulationDestroy(&tiny));
  }
  release_free_heap();
  *kb = proc_status_kb("VmRSS");
  if (*kb <= 0) *kb = baseline_rss_kb; /* no /proc: the MPI/PETSc baseline */
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt n = 10000, settle = 200, dof = 0, base_n = 10000, conv_cap = 20000, step_cap = 500;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MemoryPolicyApply()); /* as ccpdem does */
  {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    baseline_rss_kb = ru.ru_maxrss;
  }
  PetscCall(FixedFootprint(&fixed_rss_kb));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-settle_steps", &settle, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dof", &dof, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-base_n", &base_n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-conv_cap", &conv_cap, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-step_cap", &step_cap, NULL));
  if (dof != 6) PetscCall(Bench(n, 3, settle, base_n, conv_cap, step_cap));
  if (dof != 3) PetscCall(Bench(n, 6, settle, base_n, conv_cap, step_cap));
  PetscCall(PetscFinalize());
  return 0;
}
