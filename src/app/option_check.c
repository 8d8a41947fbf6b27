/* Command-line options that nothing reads: a misspelt option (-ccp_tolerance for -ccp_tol) would
 * otherwise be dropped without a word and the run would go on with the default. Option values
 * that are not finite numbers, options files that cannot be read, and the one-line report of a
 * runtime failure. */
#include "app/option_check.h"
#include "app/option_table.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* PETSc's own families, some read only at PetscFinalize (-options_left, -malloc_dump, -log_*), and the multigrid
 * levels' options of the IPM's KSPs (read when a solve sets GAMG up): let through whole rather than named one by
 * one. */
static const char *const petsc_prefixes[] = {"options_",
                                             "malloc",
                                             "log_",
                                             "memory_",
                                             "objects_",
                                             "info",
                                             "on_error",
                                             "fp_trap",
                                             "viewer_",
                                             "mpidump",
                                             "no_signal_handler",
                                             "help",
                                             "version",
                                             "ccp_ipm_mg_levels_",
                                             "ccp_ipm_probe_mg_levels_"};
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

/* The ccpdem option (app/option_table.h) nearest to name (a prefix of it or it of one counts as one
 * edit), or NULL when none is within a third of its length. */
static const char *nearest_option(const char *name)
{
  const char *best = NULL;
  size_t      dist = strlen(name) / 3 + 1;
  for (size_t k = 0; k < ccpdem_option_count; k++) {
    const char  *opt = ccpdem_option_table[k].name;
    const size_t d   = prefix_of_either(name, OptionBareName(opt)) ? 1 : edit_distance(name, OptionBareName(opt));
    if (d < dist) {
      dist = d;
      best = opt;
    }
  }
  return best;
}

/* Every option of the table, some read only in some runs (the penalty model's, a distributed run's, the
 * run loop's, which are read after the unknown-option check): one of them that nothing read is no error. */
static PetscBool listed_ccpdem(const char *name) { return (PetscBool)(OptionTableFind(name) != NULL); }

static PetscBool listed(const char *name)
{
  if (listed_ccpdem(name)) return PETSC_TRUE;
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
                              "command line: unknown option -%s (neither ccpdem nor PETSc reads it); did you mean %s? "
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

PetscErrorCode OptionsCheckFinite(char *err, size_t errlen)
{
  char       *all, *save = NULL;
  const char *name = NULL;

  PetscFunctionBegin;
  err[0] = 0;
  PetscCall(PetscOptionsGetAll(NULL, &all));
  for (char *tok = strtok_r(all, " ", &save); tok && !err[0]; tok = strtok_r(NULL, " ", &save)) {
    char        *end;
    const double x = strtod(tok, &end);
    if (end != tok && !*end) { /* a number ("-inf" too), the value of the option before it */
      if (!isfinite(x) && name && strcmp(name, "-o") && listed_ccpdem(name + 1))
        PetscCall(PetscSNPrintf(err, errlen,
                                "command line: %s %s is not a finite number; give a finite value (-help "
                                "lists the options)",
                                name, tok));
    } else if (tok[0] == '-') name = tok;
  }
  PetscCall(PetscFree(all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int OptionsCheckFiles(int argc, char **argv, char *err, size_t errlen)
{
  for (int i = 1; i + 1 < argc; i++) {
    if (strcmp(argv[i], "-options_file") && strcmp(argv[i], "-options_file_yaml")) continue;
    if (access(argv[i + 1], R_OK)) {
      snprintf(err, errlen, "command line: %s %s cannot be read (%s); check the path", argv[i], argv[i + 1],
               strerror(errno));
      return -1;
    }
  }
  return 0;
}

static PetscBool is_option_error(PetscErrorCode n)
{
  return (PetscBool)(n == PETSC_ERR_ARG_OUTOFRANGE || n == PETSC_ERR_ARG_WRONG || n == PETSC_ERR_ARG_INCOMP ||
                     n == PETSC_ERR_ARG_UNKNOWN_TYPE || n == PETSC_ERR_USER_INPUT || n == PETSC_ERR_USER);
}

/* What an option error's message starts with. */
#define OPTION_ERROR_PREFIX "command line: "

static PetscErrorCode option_error_handler(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n,
                                           PetscErrorType p, const char *mess, void *ctx)
{
  OptionErrors *oe = (OptionErrors *)ctx;
  if (!is_option_error(n)) return RuntimeErrorHandler(comm, line, fun, file, n, p, mess, NULL);
  if (p == PETSC_ERROR_INITIAL && !oe->msg[0])
    snprintf(oe->msg, sizeof(oe->msg), "%s%s", OPTION_ERROR_PREFIX,
             mess && mess[0] ? mess : "a bad option value (see -help)");
  return n; /* unwinds the callers quietly: the message is reported once, as bad input */
}

PetscErrorCode OptionErrorsCatch(OptionErrors *oe)
{
  PetscFunctionBegin;
  oe->msg[0] = 0;
  PetscCall(PetscPushErrorHandler(option_error_handler, oe));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's parsers name the value but not the option ("Input string abc has no numeric value", "Unknown logical
 * value: abc"): the name of the first option given that value, into name (NULL when none is, or the message is
 * another's). */
static PetscErrorCode option_of_bad_value(const char *mess, char *name, size_t len, PetscBool *found)
{
  static const char *const prefixes[] = {"Input string ", "Unknown logical value: "};
  char                     value[256] = "", *all, *save = NULL;
  const char              *prev = NULL;

  PetscFunctionBegin;
  *found = PETSC_FALSE;
  for (size_t k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]) && !value[0]; k++)
    if (!strncmp(mess, prefixes[k], strlen(prefixes[k]))) sscanf(mess + strlen(prefixes[k]), "%255s", value);
  if (!value[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscOptionsGetAll(NULL, &all));
  for (char *tok = strtok_r(all, " ", &save); tok && !*found; tok = strtok_r(NULL, " ", &save)) {
    if (prev && !strcmp(tok, value)) {
      PetscCall(PetscStrncpy(name, prev, len));
      *found = PETSC_TRUE;
    }
    prev = tok[0] == '-' ? tok : NULL;
  }
  PetscCall(PetscFree(all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode OptionErrorsRelease(OptionErrors *oe, PetscErrorCode ierr, char *err, size_t errlen)
{
  char      name[256];
  PetscBool found;

  PetscFunctionBegin;
  PetscCall(PetscPopErrorHandler());
  if (ierr && is_option_error(ierr) && oe->msg[0]) {
    const char *mess = oe->msg + strlen(OPTION_ERROR_PREFIX); /* PETSc's message */
    PetscCall(option_of_bad_value(mess, name, sizeof(name), &found));
    if (found) {
      const char *hint = strstr(mess, "integer") ? "a whole number"
                       : strstr(mess, "logical") ? "true or false"
                                                 : "a number";
      PetscCall(PetscSNPrintf(err, errlen, "%s%s: %s; give %s (-help lists the options)", OPTION_ERROR_PREFIX, name,
                              mess, hint));
    } else PetscCall(PetscStrncpy(err, oe->msg, errlen));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscFunctionReturn(ierr);
}

/* The first runtime error: its message, and whether this rank prints it. */
static struct {
  PetscBool trace; /* -debug_trace or -on_error_*: PETSc's own handling */
  PetscBool set, print;
  char      msg[1024];
} runtime_error;

PetscErrorCode RuntimeErrorHandler(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n,
                                   PetscErrorType p, const char *mess, void *ctx)
{
  PetscMPIInt rank = 0;
  const char *text = NULL;

  (void)ctx;
  if (runtime_error.trace) return PetscTraceBackErrorHandler(comm, line, fun, file, n, p, mess, NULL);
  if (p != PETSC_ERROR_INITIAL || runtime_error.set) return n;
  runtime_error.set = PETSC_TRUE;
  if (comm != PETSC_COMM_SELF && MPI_Comm_rank(comm, &rank) != MPI_SUCCESS) rank = 0;
  runtime_error.print = (PetscBool)(rank == 0);
  if (mess && mess[0]) snprintf(runtime_error.msg, sizeof(runtime_error.msg), "%s", mess);
  else { /* PETSc's own errors (out of memory) carry only a code: name it and where */
    (void)PetscErrorMessage(n, &text, NULL);
    snprintf(runtime_error.msg, sizeof(runtime_error.msg), "%s (in %s)%s", text ? text : "PETSc error", fun,
             n == PETSC_ERR_MEM ? "; give the run more memory or more ranks" : "");
  }
  for (char *c = runtime_error.msg; *c; c++)
    if (*c == '\n') *c = ' ';
  return n;
}

PetscErrorCode RuntimeErrorsCatch(void)
{
  PetscBool debug, abort_on, debugger;

  PetscFunctionBegin;
  PetscCall(PetscOptionsHasName(NULL, NULL, "-debug_trace", &debug));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-on_error_abort", &abort_on));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-on_error_attach_debugger", &debugger));
  runtime_error.trace = (PetscBool)(debug || abort_on || debugger);
  if (!runtime_error.trace) PetscCall(PetscPushErrorHandler(RuntimeErrorHandler, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void RuntimeErrorReport(void)
{
  if (runtime_error.set && runtime_error.print) fprintf(stderr, "ccpdem: error: %s\n", runtime_error.msg);
}
