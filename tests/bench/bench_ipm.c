/* Interior-point prototype against APGD (issue 33; a program that prints figures, not a test; the
 * measurements: docs/history/ccp-solver-ipm.md). For each checkpoint of -ckpt (bench_solver's cached
 * beds) and each mode of -modes (warm: the checkpoint's impulses; cold: -ccp_warm_start_scale 0):
 *   1. a simulation from the checkpoint takes one step with APGD to -tol (cap -apgd_cap); its CCP
 *      is captured on the way (below) into arrays, as the reference loops take a problem;
 *   2. -repeats times, alternately: APGD (a CCPSolver of its own, packed, the same cap) on the
 *      captured problem, then the interior-point method (ccp/ipm.h) on it, both from the same start.
 * Step 2's APGD must take exactly the step's iterations: that checks the capture (printed as
 * "capture: ok"). Every solve reports the GUIDE residual of what it returns (m/s): APGD's own, and
 * ccp_residual for the IPM. One line per solve, with the load average at its start.
 *
 * The capture: the simulation's solver gets coupling hooks (ccp/coupling.h) that do nothing but
 * the first mark, which the packed solve calls once its problem is built, before any iterate: then
 * the body store, walls and contacts are the ones of the solve, and the bench copies the solver
 * bodies (inverse mass, world inverse inertia, free velocity: bodies/integrator.h as the step
 * computes them), the contacts, their warm start and their terms (ccp/pairs.h, eta by
 * ccp_contact_eta). One rank only: the hooks' sum and reduce are the identity there.
 *
 * Usage: bench_ipm -ckpt FILE[,FILE...] [-modes warm,cold] [-tol 1e-4] [-apgd_cap 20000] [-repeats 1]
 *        [-ipm_max_it 100] [-ipm_monitor] [-ipm_start_shift 10] [-ipm_probe [-ccp_ipm_probe_ksp_rtol 1e-6 ...]]
 *        [-ipm_near_null] [-ccp_ipm_ksp_type cg -ccp_ipm_pc_type gamg ... [-ipm_adaptive_rtol [-ipm_rtol_max 1e-2]]]
 * -ipm_near_null gives K the rigid-body near-null space of the bodies' centres (ccp/ipm.h, settings' centre);
 * -ipm_adaptive_rtol: the first KSP's tolerance follows mu (ccp/ipm.h); -ipm_cluster_pc [-ipm_cluster_ratio 1e3
 * -ipm_cluster_max 64]: the stuck-cluster block-Jacobi preconditioner (ccp/ipm.h) on the probe KSP (or the first,
 * then CG by default), the PCSHELL default of that KSP: a -ccp_ipm_pc_type (or -ccp_ipm_probe_pc_type) other than
 * shell replaces it (the history's command lines with -ccp_ipm_pc_type none: drop that option);
 * -ipm_cluster_coarse multiplicative|additive adds its coarse correction on the clusters' rigid-body vectors;
 * -ipm_cluster_strongest joins the clusters by any stiff direction, the stiffest contacts first; -ipm_cluster_dense
 * factors the blocks densely in body order (default: profile Cholesky along each cluster's longest extent);
 * -ipm_cluster_check prints, per iteration, the blocks' solves against dense factors in body order. */
#include "step/simulation.h"
#include "bodies/integrator.h"
#include "ccp/ipm.h"
#include "ccp/pairs.h"
#include <stdio.h>
#include <string.h>

#define MAX_FILES      8
#define EXIT_BAD_INPUT 2
#define EXIT_RUNTIME   1

typedef struct {
  Simulation       sim;
  PetscBool        done;
  CCPProblem       P;      /* the captured problem: arrays below */
  double          *gamma0; /* its start */
  double          *inv_mass, *inv_inertia, *vel_free, *gamma, *vel;
  double          *centre; /* 3 per solver body: the bodies' centres (walls: 0), for the IPM's near-null space */
  Contact         *contact;
  CCPContactTerms *terms;
} Capture;

/* The solver bodies, contacts, start and terms of the solve under way (see the header). */
static PetscErrorCode CaptureNow(Capture *cap)
{
  Simulation        sim = cap->sim;
  const BodyStore  *q   = SimulationBodies(sim);
  const Scenario   *sc  = SimulationScenario(sim);
  const Wall       *w   = SimulationWalls(sim);
  const ContactSet *cs  = SimulationContacts(sim);
  const PetscInt    nb = q->n_owned + q->n_ghost, n = nb + sc->n_walls, nc = cs->n;
  PairParams       *table;
  PetscBool         yields;

  PetscFunctionBegin;
  PetscCheck(sc->n_joints == 0, PETSC_COMM_SELF, PETSC_ERR_SUP, "bench_ipm: the scenario has joints");
  PetscCall(PetscMalloc5(n, &cap->inv_mass, 6 * n, &cap->inv_inertia, 6 * n, &cap->vel_free, 6 * n, &cap->vel, nc,
                         &cap->terms));
  PetscCall(PetscMalloc3(nc, &cap->contact, 6 * nc, &cap->gamma, 6 * nc, &cap->gamma0));
  PetscCall(PetscCalloc1(3 * n, &cap->centre));
  PetscCall(PetscArraycpy(cap->centre, q->pos, 3 * nb));
  for (PetscInt i = 0; i < nb; i++) {
    double R[9];
    quat_to_matrix(q->quat + 4 * i, R);
    cap->inv_mass[i] = 1.0 / q->mass[i];
    integrator_free_velocity(q, i, R, sc->gravity, sc->time_step, cap->inv_inertia + 6 * i, cap->vel_free + 6 * i);
  }
  for (PetscInt k = 0; k < sc->n_walls; k++) {
    const PetscInt i = nb + k;
    cap->inv_mass[i] = 0;
    for (int c = 0; c < 6; c++) cap->inv_inertia[6 * i + c] = 0;
    for (int c = 0; c < 3; c++) cap->vel_free[6 * i + c] = w[k].velocity[c];
    for (int c = 3; c < 6; c++) cap->vel_free[6 * i + c] = 0;
  }
  PetscCall(PetscArraycpy(cap->contact, cs->c, nc));
  PetscCall(PetscArraycpy(cap->gamma0, cs->gamma, 6 * nc));
  PetscCall(ContactPairTableCreate(sc->materials, sc->n_materials, &table, &yields));
  const ContactPairs cp = {.table             = table,
                           .n_materials       = sc->n_materials,
                           .body_material     = q->material,
                           .nb                = nb,
                           .walls             = w,
                           .h                 = sc->time_step,
                           .v_recover         = sc->max_recovery_speed,
                           .overlap_tolerance = sc->overlap_tolerance,
                           .yields            = yields};
  for (PetscInt i = 0; i < nc; i++) {
    const Contact *c = &cap->contact[i];
    contact_pairs_terms((void *)&cp, c, &cap->terms[i]);
    cap->terms[i].eta = ccp_contact_eta(c, &cap->terms[i], cap->inv_mass[c->a], cap->inv_inertia + 6 * c->a,
                                        cap->inv_mass[c->b], cap->inv_inertia + 6 * c->b);
  }
  PetscCall(PetscFree(table));
  cap->P    = (CCPProblem){.nbodies     = n,
                           .inv_mass    = cap->inv_mass,
                           .inv_inertia = cap->inv_inertia,
                           .vel_free    = cap->vel_free,
                           .vel         = cap->vel,
                           .ncontacts   = nc,
                           .contact     = cap->contact,
                           .gamma       = cap->gamma,
                           .terms       = cap->terms};
  cap->done = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HookMark(void *ctx, const double *v, size_t stride)
{
  Capture *cap = (Capture *)ctx;
  (void)v, (void)stride;
  PetscFunctionBegin;
  if (!cap->done) PetscCall(CaptureNow(cap));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode HookSum(void *ctx, double *v, size_t stride)
{
  (void)ctx, (void)v, (void)stride;
  return PETSC_SUCCESS;
}
static PetscErrorCode HookReduce(void *ctx, double *x, int n)
{
  (void)ctx, (void)x, (void)n;
  return PETSC_SUCCESS;
}
static PetscInt HookOwned(void *ctx)
{
  Capture *cap = (Capture *)ctx;
  return SimulationBodies(cap->sim)->n_owned + SimulationBodies(cap->sim)->n_ghost +
         SimulationScenario(cap->sim)->n_walls;
}

static PetscErrorCode CaptureFree(Capture *cap)
{
  PetscFunctionBegin;
  if (!cap->done) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree5(cap->inv_mass, cap->inv_inertia, cap->vel_free, cap->vel, cap->terms));
  PetscCall(PetscFree3(cap->contact, cap->gamma, cap->gamma0));
  PetscCall(PetscFree(cap->centre));
  cap->done = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static double Load1(void)
{
  double l = -1;
  FILE  *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf", &l) != 1) l = -1;
    fclose(f);
  }
  return l;
}

/* APGD on the captured problem from its start: a solver of its own (the options database's -ccp_*). */
static PetscErrorCode RunApgd(Capture *cap, PetscInt max_it, double tol, CCPSolveStats *st, double *seconds)
{
  CCPSolver s;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(st, sizeof(*st)));
  PetscCall(PetscArraycpy(cap->gamma, cap->gamma0, 6 * (size_t)cap->P.ncontacts));
  PetscCall(CCPSolverCreate(PETSC_COMM_SELF, &s));
  PetscCall(CCPSolverSetFromScenario(s, SOLVER_APGD, max_it, tol));
  PetscCall(CCPSolverSetFromOptions(s));
  const double t0 = MPI_Wtime();
  PetscCall(CCPSolverSolve(s, &cap->P, st));
  *seconds = MPI_Wtime() - t0;
  PetscCall(CCPSolverDestroy(&s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The IPM on the captured problem from its start, given the bodies' centres; near_null: K gets their rigid-body
 * near-null space. */
static PetscErrorCode RunIpm(Capture *cap, const CCPIpmSettings *set, PetscBool near_null, CCPIpmStats *st)
{
  CCPIpmSettings s = *set;

  PetscFunctionBegin;
  s.centre    = cap->centre;
  s.near_null = near_null;
  PetscCall(PetscArraycpy(cap->gamma, cap->gamma0, 6 * (size_t)cap->P.ncontacts));
  PetscCall(CCPIpmSolve(&cap->P, &s, st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunProblem(const char *file, PetscBool cold, double tol, PetscInt apgd_cap, PetscInt repeats,
                                 const CCPIpmSettings *iset, PetscBool near_null)
{
  Capture     cap = {0};
  CCPCoupling hooks;
  char        value[32], err[512] = "";
  const char *mode = cold ? "cold" : "warm";

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-ccp_type", "apgd"));
  PetscCall(PetscSNPrintf(value, sizeof(value), "%" PetscInt_FMT, apgd_cap));
  PetscCall(PetscOptionsSetValue(NULL, "-ccp_max_it", value));
  PetscCall(PetscSNPrintf(value, sizeof(value), "%.17g", tol));
  PetscCall(PetscOptionsSetValue(NULL, "-ccp_tol", value));
  if (cold) PetscCall(PetscOptionsSetValue(NULL, "-ccp_warm_start_scale", "0"));
  else PetscCall(PetscOptionsClearValue(NULL, "-ccp_warm_start_scale"));
  PetscCall(SimulationCreateFromCheckpoint(PETSC_COMM_SELF, file, &cap.sim, err, sizeof(err)));
  PetscCheck(!err[0], PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "%s", err);
  hooks = (CCPCoupling){.ctx = &cap, .mark = HookMark, .sum = HookSum, .reduce = HookReduce, .owned = HookOwned};
  PetscCall(CCPSolverSetCoupling(SimulationSolver(cap.sim), &hooks));
  double load = Load1();
  PetscCall(SimulationStep(cap.sim));
  const StepStats *ss = SimulationLastStep(cap.sim);
  PetscCheck(cap.done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "bench_ipm: the step of %s made no solve to capture", file);
  PetscInt n6 = 0;
  for (PetscInt i = 0; i < cap.P.ncontacts; i++) n6 += contact_dof(&cap.contact[i]) == 6;
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "%s %s: %" PetscInt_FMT " bodies, %" PetscInt_FMT " contacts (%" PetscInt_FMT " 6-dof)\n"
                        "  step    apgd its %6" PetscInt_FMT " passes %6" PetscInt_FMT
                        " residual %.3e %s %8.3f s  load %.1f\n",
                        file, mode, cap.P.nbodies, cap.P.ncontacts, n6, ss->iterations, ss->passes, ss->residual_max,
                        ss->converged ? "conv" : "CAP ", ss->wall_solve, load));
  for (PetscInt r = 0; r < repeats; r++) {
    CCPSolveStats as;
    CCPIpmStats   is;
    double        sec = 0;
    load              = Load1();
    PetscCall(RunApgd(&cap, apgd_cap, tol, &as, &sec));
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "  run %" PetscInt_FMT " apgd its %6" PetscInt_FMT " passes %6" PetscInt_FMT
                          " residual %.3e %s %8.3f s  load %.1f  capture: %s\n",
                          r, as.iterations, as.passes, as.res_max, as.converged ? "conv" : "CAP ", sec, load,
                          as.iterations == ss->iterations ? "ok" : "DIFFERS from the step"));
    load = Load1();
    PetscCall(RunIpm(&cap, iset, near_null, &is));
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "  run %" PetscInt_FMT " ipm  its %6" PetscInt_FMT " lin %6" PetscInt_FMT
                          " (max %" PetscInt_FMT ", failed %" PetscInt_FMT
                          ") residual %.3e %s %8.3f s (assemble %.3f, set-up %.3f, solves %.3f)"
                          "  load %.1f\n",
                          r, is.iterations, is.linear_iterations, is.linear_max, is.linear_failures, is.res_max,
                          is.converged ? "conv" : "CAP ", is.seconds_total, is.seconds_assemble, is.seconds_setup,
                          is.seconds_solve, load));
    if (iset->probe)
      PetscCall(PetscPrintf(PETSC_COMM_SELF,
                            "        probe its %6" PetscInt_FMT " (max %" PetscInt_FMT ", failed %" PetscInt_FMT
                            ") largest relative error %.2e, %.3f s\n",
                            is.probe_iterations, is.probe_max, is.probe_failures, is.probe_error, is.probe_seconds));
  }
  PetscCall(SimulationDestroy(&cap.sim));
  PetscCall(CaptureFree(&cap));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char          *files[MAX_FILES], *modes[2];
  PetscInt       nfiles = MAX_FILES, nmodes = 2, apgd_cap = 20000, repeats = 1;
  double         tol  = 1e-4;
  CCPIpmSettings iset = {.max_it = 100, .tol = 1e-4, .monitor = 0, .start_shift = 0};
  PetscBool      set, monitor = PETSC_FALSE, near_null = PETSC_FALSE;
  PetscMPIInt    size;
  char           msg[256] = "", coarse[32] = "none";
  const char    *coarse_types[3] = {"none", "multiplicative", "additive"};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-ckpt", files, &nfiles, &set));
  if (!set) nfiles = 0;
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-modes", modes, &nmodes, &set));
  if (!set) {
    nmodes = 2;
    PetscCall(PetscStrallocpy("warm", &modes[0]));
    PetscCall(PetscStrallocpy("cold", &modes[1]));
  }
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-apgd_cap", &apgd_cap, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeats", &repeats, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-ipm_max_it", &iset.max_it, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-ipm_monitor", &monitor, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-ipm_start_shift", &iset.start_shift, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-ipm_probe", &iset.probe, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-ipm_near_null", &near_null, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-ipm_adaptive_rtol", &iset.adaptive_rtol, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-ipm_rtol_max", &iset.rtol_max, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-ipm_cluster_pc", &iset.cluster_pc, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-ipm_cluster_ratio", &iset.cluster_ratio, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-ipm_cluster_max", &iset.cluster_max, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-ipm_cluster_strongest", &iset.cluster_strongest, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-ipm_cluster_dense", &iset.cluster_dense, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-ipm_cluster_check", &iset.cluster_check, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-ipm_cluster_coarse", coarse, sizeof(coarse), NULL));
  iset.cluster_coarse = -1;
  for (PetscInt k = 0; k < 3; k++)
    if (!strcmp(coarse, coarse_types[k])) iset.cluster_coarse = k;
  iset.tol     = tol;
  iset.monitor = monitor;
  if (size != 1) snprintf(msg, sizeof(msg), "runs on one rank (got %d): start it without mpiexec -n", (int)size);
  else if (!nfiles) snprintf(msg, sizeof(msg), "-ckpt: give one or more checkpoints (bench_solver's cached beds)");
  else if (!(tol > 0) || apgd_cap < 1 || repeats < 1 || iset.max_it < 1)
    snprintf(msg, sizeof(msg), "-tol, -apgd_cap, -repeats and -ipm_max_it must be positive");
  else if (iset.cluster_coarse < 0)
    snprintf(msg, sizeof(msg), "-ipm_cluster_coarse: '%.40s': give none, multiplicative or additive", coarse);
  else if (iset.cluster_coarse && !iset.cluster_pc)
    snprintf(msg, sizeof(msg), "-ipm_cluster_coarse needs -ipm_cluster_pc (the coarse space is the clusters')");
  for (PetscInt m = 0; m < nmodes && !msg[0]; m++)
    if (strcmp(modes[m], "warm") && strcmp(modes[m], "cold"))
      snprintf(msg, sizeof(msg), "-modes: '%.40s': give warm, cold or warm,cold", modes[m]);
  if (msg[0]) {
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR, "bench_ipm: error: %s\n", msg));
    PetscCall(PetscFinalize());
    return EXIT_BAD_INPUT;
  }
  for (PetscInt k = 0; k < nfiles; k++)
    for (PetscInt m = 0; m < nmodes; m++) {
      const PetscErrorCode ierr = RunProblem(files[k], (PetscBool)!strcmp(modes[m], "cold"), tol, apgd_cap, repeats,
                                             &iset, near_null);
      if (ierr) { /* PETSc printed the error; one line that names the problem, and the runtime exit code */
        PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR, "bench_ipm: error: %s (%s) failed (PETSc error %d)\n",
                               files[k], modes[m], (int)ierr));
        PetscCall(PetscFinalize());
        return EXIT_RUNTIME;
      }
    }
  for (PetscInt k = 0; k < nfiles; k++) PetscCall(PetscFree(files[k]));
  for (PetscInt m = 0; m < nmodes; m++) PetscCall(PetscFree(modes[m]));
  PetscCall(PetscFinalize());
  return 0;
}
