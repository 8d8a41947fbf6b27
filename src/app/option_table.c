/* ccpdem's options and the -help text (app/option_table.h). */
#include "app/option_table.h"
#include <string.h>

/* Topics, in the order -help lists them. */
#define T_OUT  "Scenario, output and messages"
#define T_CKPT "Checkpoints (a run stops with exit 3 after a checkpoint on SIGUSR1, SIGTERM or SIGINT)"
#define T_CCP  "CCP solver (contact.model ccp)"
#define T_PEN  "Penalty model (contact.model penalty)"
#define T_STEP "Stepping and domain decomposition"
#define T_FCL  "FCLIB problems"
#define T_ANA  "analyze repose"
#define T_TEST "Test knobs"

const CcpdemOption ccpdem_option_table[] = {
  {T_OUT, "-o", "OUT", "output.dir", "output directory (fclib solve: the solution file)", OPT_RUNS | OPT_FCLIB},
  {T_OUT, "--overwrite", "", "off", "run: delete the files of another run in OUT first", OPT_RUN},
  {T_OUT, "--until", "T", "time.end", "restart: a new end time (simulated s)", OPT_RESTART},
  {T_OUT, "-set", "KEY=VALUE", "none",
   "set a scenario key (repeatable): -set time.end=2 -set materials[0].friction=0.4", OPT_RUN | OPT_CHECK},
  {T_OUT, "-progress_interval", "S", "0.5 on a terminal, else 2", "wall seconds between progress lines", OPT_RUNS},
  {T_OUT, "-debug_trace", "", "off", "a runtime failure prints PETSc's trace instead of one line", OPT_ALL},
  {T_CKPT, "-checkpoint_every_steps", "N", "0 (off)", "checkpoint every N steps", OPT_RUNS},
  {T_CKPT, "-checkpoint_interval", "T", "output.checkpoint_interval", "checkpoint every T simulated s (0: off)",
   OPT_RUNS},
  {T_CKPT, "-checkpoint_wall_interval", "W", "0 (off)", "checkpoint every W wall-clock s", OPT_RUNS},
  {T_CKPT, "-checkpoint_keep", "K", "2", "checkpoints kept (the newest)", OPT_RUNS},
  {T_CCP, "-ccp_type", "jacobi|gauss-seidel|apgd|ipm", "solver.type", "the CCP solver (ipm: solved on rank 0)",
   OPT_ALL},
  {T_CCP, "-ccp_max_it", "N", "solver.max_iterations", "iteration cap of one solve", OPT_ALL},
  {T_CCP, "-ccp_tol", "V", "solver.tolerance", "tolerance on the max residual (m/s)", OPT_ALL},
  {T_CCP, "-ccp_jacobi_omega", "W", "0.3", "Jacobi step scale (paper eq. 46)", OPT_ALL},
  {T_CCP, "-ccp_jacobi_lambda", "L", "1", "Jacobi relaxation in (0, 1] (eq. 46)", OPT_ALL},
  {T_CCP, "-ccp_gs_omega", "W", "1", "Gauss-Seidel relaxation in (0, 2)", OPT_ALL},
  {T_CCP, "-ccp_check_interval", "N", "10", "Jacobi, Gauss-Seidel: sweeps between residual checks", OPT_ALL},
  {T_CCP, "-ccp_apgd_check_interval", "N", "4", "APGD: iterations between residual checks", OPT_ALL},
  {T_CCP, "-ccp_apgd_lipschitz_initial", "L", "1", "APGD: initial Lipschitz estimate", OPT_ALL},
  {T_CCP, "-ccp_apgd_lipschitz_grow", "F", "4", "APGD: factor on L after a rejected step (> 1)", OPT_ALL},
  {T_CCP, "-ccp_apgd_lipschitz_decay", "F", "0.9", "APGD: factor on L after an accepted step, in (0, 1]", OPT_ALL},
  {T_CCP, "-ccp_apgd_lipschitz_keep", "B", "false", "APGD: start from the last solve's final L", OPT_ALL},
  {T_CCP, "-ccp_apgd_scaling", "trace|diagonal", "trace", "APGD: per-contact steps (diagonal: -ccp_packed false)",
   OPT_ALL},
  {T_CCP, "-ccp_ipm_ksp_type", "cg|preonly|...", "cg", "IPM: the Newton systems' KSP (preonly: with a factorization)",
   OPT_ALL},
  {T_CCP, "-ccp_ipm_pc_type", "shell|cholesky|gamg|...", "shell", "IPM: its preconditioner (shell: the cluster blocks)",
   OPT_ALL},
  {T_CCP, "-ccp_ipm_ksp_rtol", "R", "1e-8", "IPM: the KSP's relative tolerance (the adaptive one's floor)", OPT_ALL},
  {T_CCP, "-ccp_ipm_ksp_max_it", "N", "200", "IPM: KSP iterations per Newton system at most", OPT_ALL},
  {T_CCP, "-ccp_ipm_adaptive_rtol", "B", "true", "IPM: the KSP's tolerance follows mu, at most -ccp_ipm_rtol_max",
   OPT_ALL},
  {T_CCP, "-ccp_ipm_rtol_max", "R", "1e-2", "IPM: the loosest adaptive tolerance, in (0, 1)", OPT_ALL},
  {T_CCP, "-ccp_ipm_cluster_pc", "B", "true", "IPM: CG + cluster blocks by default (false: a direct factorization)",
   OPT_ALL},
  {T_CCP, "-ccp_ipm_cluster_ratio", "R", "1", "IPM: stiffness (x the effective mass) that joins a cluster", OPT_ALL},
  {T_CCP, "-ccp_ipm_cluster_max", "N", "64", "IPM: bodies per cluster block at most", OPT_ALL},
  {T_CCP, "-ccp_ipm_cluster_strongest", "B", "true", "IPM: clusters joined stiffest first by any stiff direction",
   OPT_ALL},
  {T_CCP, "-ccp_ipm_cluster_coarse", "none|multiplicative|additive", "none", "IPM: the clusters' coarse correction",
   OPT_ALL},
  {T_CCP, "-ccp_ipm_cluster_dense", "B", "false", "IPM: dense cluster factors instead of profile factors", OPT_ALL},
  {T_CCP, "-ccp_ipm_cluster_check", "B", "false", "IPM, with the monitor: cluster factors against dense ones", OPT_ALL},
  {T_CCP, "-ccp_ipm_start_shift", "S", "10", "IPM: the start's distance into the cones (typical sizes)", OPT_ALL},
  {T_CCP, "-ccp_ipm_monitor", "B", "false", "IPM: one line per Newton iteration", OPT_ALL},
  {T_CCP, "-ccp_ipm_probe", "B", "false", "IPM: a second KSP (-ccp_ipm_probe_*) counts CG its along the path", OPT_ALL},
  {T_CCP, "-ccp_ipm_near_null", "B", "false", "IPM: K's rigid-body near-null space (for GAMG)", OPT_ALL},
  {T_CCP, "-ccp_ipm_polish", "N", "-ccp_max_it", "IPM: APGD iterations at most from its iterate (0: none)", OPT_ALL},
  {T_CCP, "-ccp_warm_start_scale", "S", "1", "factor on the last step's impulses as the first guess (0: cold)",
   OPT_RUNS},
  {T_CCP, "-ccp_warm_start_decay", "D", "solver.warm_start_decay", "extra factor after an unconverged step", OPT_RUNS},
  {T_CCP, "-ccp_packed", "B", "true", "the packed, vectorized solver layout (false: the reference loops)", OPT_ALL},
  {T_CCP, "-ccp_release_layout", "", "false", "free the packed layout after each solve (lower peak memory)", OPT_ALL},
  {T_CCP, "-ccp_simd", "avx512vl|avx2|generic", "avx512vl", "best packed-kernel instruction set to use", OPT_ALL},
  {T_PEN, "-penalty_simd", "avx512|avx512vl|avx2|generic", "avx512", "best block-kernel instruction set to use",
   OPT_RUNS},
  {T_PEN, "-penalty_per_contact", "", "false", "every contact by the per-contact reference code", OPT_RUNS},
  {T_PEN, "-penalty_check_sides", "", "false", "check the integrator's body sides every step (tests)", OPT_RUNS},
  {T_STEP, "-neighbour_skin", "D", "penalty: contact.envelope; CCP: 0", "neighbour-list skin (m; 0: detect every step)",
   OPT_RUNS},
  {T_STEP, "-sort_interval", "N", "25", "steps between Morton reorderings of the bodies (0: never)", OPT_RUNS},
  {T_STEP, "-decomp_grid", "px,py,pz", "automatic", "process grid (product = ranks; a 0 is chosen from the bodies)",
   OPT_RUNS},
  {T_STEP, "-balance_interval", "K", "100", "steps between load balancing (0: never)", OPT_RUNS},
  {T_STEP, "-balance_threshold", "X", "1.1", "rebalance when a step's work imbalance (max / mean) exceeds X (0: never)",
   OPT_RUNS},
  {T_STEP, "-ghost_update", "B", "true", "several ranks, skin > 0: update ghosts in place while none moved far",
   OPT_RUNS},
  {T_STEP, "-ghost_rebuild_every_step", "", "false", "build afresh where the ghosts would be kept (a check)", OPT_RUNS},
  {T_FCL, "-fclib_dump", "STEP[,STEP...]", "off", "write these steps' CCPs as FCLIB problems", OPT_RUNS},
  {T_FCL, "-fclib_dir", "DIR", "fclib", "directory of the -fclib_dump files", OPT_RUNS},
  {T_FCL, "-fclib_guess", "B", "true", "fclib solve: start from the file's first guess", OPT_FCLIB},
  {T_ANA, "--x-range", "A,B", "all bodies", "the pile of the bodies with A <= x <= B", OPT_ANALYZE},
  {T_ANA, "--floor", "Z", "the lowest body bottom", "height of the floor (m)", OPT_ANALYZE},
  {T_TEST, "-io_fail_after_bytes", "N", "-1 (never)", "output writes fail with ENOSPC after N bytes", OPT_RUNS},
  {T_TEST, "-io_fail_rank", "R", "-1 (every rank)", "only rank R's writes fail", OPT_RUNS},
};
const size_t ccpdem_option_count = sizeof(ccpdem_option_table) / sizeof(ccpdem_option_table[0]);

const char *OptionBareName(const char *name)
{
  while (*name == '-') name++;
  return name;
}

const CcpdemOption *OptionTableFind(const char *bare)
{
  for (size_t k = 0; k < ccpdem_option_count; k++)
    if (!strcmp(bare, OptionBareName(ccpdem_option_table[k].name))) return &ccpdem_option_table[k];
  return NULL;
}

typedef struct {
  const char *name;  /* command */
  unsigned    bit;   /* its OPT_* bit (0: it has no options) */
  const char *usage; /* one or two lines */
} CommandHelp;

static const CommandHelp commands[] = {
  {"run", OPT_RUN,
   "  ccpdem run [SCENARIO.yaml] [-o OUT] [--overwrite] [-set KEY=VALUE ...] [options]\n"
   "      run a scenario (none: the embedded pile, jobs/pile/default.yaml) into OUT, which must hold no other run\n"},
  {"restart", OPT_RESTART,
   "  ccpdem restart CHECKPOINT.h5 [-o OUT] [--until T] [options]\n"
   "      continue a run from a checkpoint (OUT: its run directory, or a new or empty one)\n"},
  {"check", OPT_CHECK,
   "  ccpdem check SCENARIO.yaml [-set KEY=VALUE ...] [options]\n"
   "      validate a scenario and print its bodies and step count\n"},
  {"info", 0, "  ccpdem info FILE.h5\n      summary of a snapshot or a checkpoint\n"},
  {"analyze", OPT_ANALYZE,
   "  ccpdem analyze repose SNAPSHOT.h5 [--x-range A,B] [--floor Z]\n"
   "      angle of repose of a settled pile\n"},
  {"fclib", OPT_FCLIB,
   "  ccpdem fclib solve PROBLEM.hdf5 [-o SOLUTION.hdf5] [options]\n"
   "      solve an FCLIB problem's relaxed CCP\n"},
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const char progress_legend[] =
  "\nProgress (stderr, rank 0; redrawn in place on a terminal, else a line every -progress_interval s):\n"
  "  step N/TOTAL  t=T/END s  bodies B  contacts C  it I  res R[*]  S steps/s  ETA E s\n"
  "  it, res: the last step's solver iterations and largest residual (m/s); * = that solve stopped at the\n"
  "  iteration cap (solver.max_iterations) before reaching the tolerance; ETA: wall seconds to the end.\n";

static const char trailer[] =
  "\nPETSc: its options pass too (-log_view: wall time per phase; -options_file F; -malloc_debug; -info);\n"
  "  ccpdem COMMAND ... -help petsc lists them as PETSc prints them.\n"
  "Exit codes: 0 done, 1 runtime failure (one line 'ccpdem: error: ...'), 2 bad input (one line naming the\n"
  "  file, line and key, or the option), 3 checkpointed on a signal: requeue and restart the newest checkpoint.\n";

/* The options of the commands in bits, grouped by topic. */
static void PrintOptions(FILE *f, unsigned bits)
{
  const char *last = NULL;

  fprintf(f, "\nOptions [default]:\n");
  for (size_t k = 0; k < ccpdem_option_count; k++) {
    const CcpdemOption *o = &ccpdem_option_table[k];
    char                left[64];
    if (!(o->commands & bits)) continue;
    if (!last || strcmp(last, o->topic)) fprintf(f, " %s\n", o->topic);
    last = o->topic;
    snprintf(left, sizeof(left), "%s%s%s", o->name, o->arg[0] ? " " : "", o->arg);
    if (strlen(left) > 27) fprintf(f, "  %s\n  %-27s %s [%s]\n", left, "", o->help, o->deflt);
    else fprintf(f, "  %-27s %s [%s]\n", left, o->help, o->deflt);
  }
}

void OptionTablePrintHelp(FILE *f, const char *cmd)
{
  const CommandHelp *one = NULL;

  for (size_t c = 0; c < N_COMMANDS; c++)
    if (!strcmp(cmd, commands[c].name)) one = &commands[c];
  fprintf(f, "ccpdem: granular and multibody dynamics with frictional contact (CCP and penalty time stepping)\n");
  fprintf(f, "Usage:\n");
  if (one) fputs(one->usage, f);
  else {
    for (size_t c = 0; c < N_COMMANDS; c++) fputs(commands[c].usage, f);
    fputs("  ccpdem --version\n      version, commit, build options, PETSc, HDF5 and MPI versions\n"
          "  ccpdem [COMMAND] -help\n      this text (with COMMAND: that command's options only)\n",
          f);
  }
  if (!one || one->bit) PrintOptions(f, one ? one->bit : OPT_ALL | OPT_ANALYZE);
  if (!one || one->bit & OPT_RUNS) fputs(progress_legend, f);
  fputs(trailer, f);
}
