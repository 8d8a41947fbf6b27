/* The command line's unknown options and bad option values (app/option_check.c), and the one-line
 * report of a runtime failure. */
#ifndef CCPDEM_APP_OPTION_CHECK_H
#define CCPDEM_APP_OPTION_CHECK_H
#include <petscsys.h>

/* err <- one message naming the first option on the command line (or in PETSC_OPTIONS) that
 * nothing has read so far and that is no ccpdem option, with the nearest ccpdem option as a
 * suggestion; "" when there is none. Call once everything that reads options was set up. */
PetscErrorCode OptionsCheckUnknown(char *err, size_t errlen);
/* err <- one message naming the first of ccpdem's options (but -o, a path) whose value is a number
 * that is not finite ("-ccp_tol inf", "nan", "1e999"): none takes one; "" when there is none. Not
 * collective (every rank holds the same options). */
PetscErrorCode OptionsCheckFinite(char *err, size_t errlen);
/* Options files named on the command line (-options_file F, -options_file_yaml F) that cannot be
 * read: PetscInitialize would stop on them with a trace. Plain C, before PetscInitialize: returns 0,
 * or -1 with one message in err. */
int OptionsCheckFiles(int argc, char **argv, char *err, size_t errlen);

/* Runtime failures as one line: RuntimeErrorsCatch (after PetscInitialize) makes every error that
 * nothing else handles keep its first message instead of printing PETSc's trace (unless
 * -debug_trace, or one of PETSc's -on_error_* options, is given); RuntimeErrorReport prints it,
 * "ccpdem: error: MESSAGE", on rank 0 of the communicator the error was raised on (on each rank
 * that raised it, for an error on PETSC_COMM_SELF). RuntimeErrorHandler is that handler, for a
 * handler pushed above it to pass other errors on to. */
PetscErrorCode RuntimeErrorsCatch(void);
void           RuntimeErrorReport(void);
PetscErrorCode RuntimeErrorHandler(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n,
                                   PetscErrorType p, const char *mess, void *ctx);

/* Bad option values as bad input: between OptionErrorsCatch and OptionErrorsRelease, an error of
 * the kinds the set-up's option checks raise (PETSC_ERR_ARG_OUTOFRANGE, _WRONG, _INCOMP,
 * _UNKNOWN_TYPE, PETSC_ERR_USER(_INPUT): our PetscChecks and PETSc's own parsing, "-ccp_tol abc",
 * "-ccp_type foo") prints no trace and is kept as one message. OptionErrorsRelease(ierr): ierr is
 * the code of the calls in between; returns 0 with err set to the message if it was such an
 * error, else ierr (any other error prints its trace as usual). */
typedef struct {
  char msg[1024];
} OptionErrors;
PetscErrorCode OptionErrorsCatch(OptionErrors *oe);
PetscErrorCode OptionErrorsRelease(OptionErrors *oe, PetscErrorCode ierr, char *err, size_t errlen);
#endif
