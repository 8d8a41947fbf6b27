/* Command-line options that nothing reads: a misspelt option (-ccp_tolerance for -ccp_tol) would
 * otherwise be dropped without a word and the run would go on with the default. */
#include "app/option_check.h"
#include <stdio.h>
#include <string.h>

/* Every option ccpdem reads, some only in some runs (the penalty model's, a distributed run's, the
 * run loop's, which are read after this check): an option of this list that nothing read is not
 * an error. tests/cli/options.sh checks that every option the sources read is listed. */
static const char *const ccpdem_options[] = {
  "o",
  "ccp_type",
  "ccp_max_it",
  "ccp_tol",
  "ccp_jacobi_omega",
  "ccp_jacobi_lambda",
  "ccp_gs_omega",
  "ccp_check_interval",
  "ccp_apgd_check_interval",
  "ccp_packed",
  "ccp_release_layout",
  "ccp_simd",
  "ccp_apgd_lipschitz_initial",
  "ccp_apgd_lipschitz_grow",
  "ccp_apgd_lipschitz_decay",
  "ccp_warm_start_scale",
  "ccp_warm_start_decay",
  "balance_interval",
  "sort_interval",
  "neighbour_skin",
  "ghost_update",
  "decomp_grid",
  "penalty_simd",
  "penalty_per_contact",
  "penalty_check_sides",
  "checkpoint_every_steps",
  "checkpoint_interval",
  "checkpoint_wall_interval",
  "checkpoint_keep",
  "progress_interval",
  "until",
  "fclib_dump",
  "fclib_dir",
  "fclib_guess",
};
#define N_OPTIONS (sizeof(ccpdem_options) / sizeof(ccpdem_options[0]))

/* PETSc's own families, some read only at PetscFinalize (-options_left, -malloc_dump, -log_*): let
 * through whole rather than named one by one. */
static const char *const petsc_prefixes[] = {"options_", "malloc",  "log_",    "memory_", "objects_",          "info",
                                             "on_error", "fp_trap", "viewer_", "mpidump", "no_signal_handler", "help",
                                             "version"};
#define N_PREFIXES (sizeof(petsc_prefixes) / sizeof(petsc_prefixes[0]))

/* Edit distance of a and b (both shorter than 64 characters; longer ones compare as far apart). */
static size_t edit_distance(const char *a, const char *b)
{
  size_t la = strlen(a), lb = strlen(b), row[64];
  if (la >= 64 || lb >= 64) return 64;
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0]      = i;
    for (size_t j = 1; j <= lb; j++) {
      const size_t up = row[j], sub = diag + (a[i - 1] != b[j - 1]);
      row[j] = PetscMin(PetscMin(up + 1, row[j - 1] + 1), sub);
      diag   = up;
    }
  }
  return row[lb];
}

/* One of a and b starts with the other, which has at least 4 characters (-ccp_tolerance, -ccp_tol). */
static PetscBool prefix_of_either(const char *a, const char *b)
{
  const size_t n = PetscMin(strlen(a), strlen(b));
  return (PetscBool)(n >= 4 && !strncmp(a, b, n));
}

/* The listed option nearest to name (a prefix of it or it of one counts as one edit), or NULL when
 * none is within a third of its length. */
static const char *nearest_option(const char *name)
{
  const char *best = NULL;
  size_t      dist = strlen(name) / 3 + 1;
  for (size_t k = 0; k < N_OPTIONS; k++) {
    const size_t d = prefix_of_either(name, ccpdem_options[k]) ? 1 : edit_distance(name, ccpdem_options[k]);
    if (d < dist) {
      dist = d;
      best = ccpdem_options[k];
    }
  }
  return best;
}

static PetscBool listed(const char *name)
{
  for (size_t k = 0; k < N_OPTIONS; k++)
    if (!strcmp(name, ccpdem_options[k])) return PETSC_TRUE;
  for (size_t k = 0; k < N_PREFIXES; k++)
    if (!strncmp(name, petsc_prefixes[k], strlen(petsc_prefixes[k]))) return PETSC_TRUE;
  return PETSC_FALSE;
}

PetscErrorCode OptionsCheckUnknown(char *err, size_t errlen)
{
  PetscInt n;
  char   **names, **values;

  PetscFunctionBegin;
  err[0] = 0;
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  for (PetscInt i = 0; i < n && !err[0]; i++) {
    const char *name = names[i][0] == '-' ? names[i] + 1 : names[i];
    if (listed(name)) continue;
    const char *near = nearest_option(name);
    if (near)
      PetscCall(PetscSNPrintf(err, errlen,
                              "command line: unknown option -%s (neither ccpdem nor PETSc reads it); did you mean -%s? "
                              "(-help lists the options)",
                              name, near));
    else
      PetscCall(PetscSNPrintf(err, errlen,
                              "command line: unknown option -%s (neither ccpdem nor PETSc reads it); remove it or see "
                              "the options that -help lists",
                              name));
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool is_option_error(PetscErrorCode n)
{
  return (PetscBool)(n == PETSC_ERR_ARG_OUTOFRANGE || n == PETSC_ERR_ARG_WRONG || n == PETSC_ERR_ARG_INCOMP ||
                     n == PETSC_ERR_ARG_UNKNOWN_TYPE || n == PETSC_ERR_USER_INPUT || n == PETSC_ERR_USER);
}

static PetscErrorCode option_error_handler(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n,
                                           PetscErrorType p, const char *mess, void *ctx)
{
  OptionErrors *oe = (OptionErrors *)ctx;
  if (!is_option_error(n)) return PetscTraceBackErrorHandler(comm, line, fun, file, n, p, mess, NULL);
  if (p == PETSC_ERROR_INITIAL && !oe->msg[0])
    snprintf(oe->msg, sizeof(oe->msg), "command line: %s", mess && mess[0] ? mess : "a bad option value (see -help)");
  return n; /* unwinds the callers quietly: the message is reported once, as bad input */
}

PetscErrorCode OptionErrorsCatch(OptionErrors *oe)
{
  PetscFunctionBegin;
  oe->msg[0] = 0;
  PetscCall(PetscPushErrorHandler(option_error_handler, oe));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode OptionErrorsRelease(OptionErrors *oe, PetscErrorCode ierr, char *err, size_t errlen)
{
  PetscFunctionBegin;
  PetscCall(PetscPopErrorHandler());
  if (ierr && is_option_error(ierr) && oe->msg[0]) {
    PetscCall(PetscStrncpy(err, oe->msg, errlen));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscFunctionReturn(ierr);
}
