/* The command line's unknown options and bad option values (app/option_check.c). */
#ifndef CCPDEM_APP_OPTION_CHECK_H
#define CCPDEM_APP_OPTION_CHECK_H
#include <petscsys.h>

/* err <- one message naming the first option on the command line (or in PETSC_OPTIONS) that
 * nothing has read so far and that is no ccpdem option, with the nearest ccpdem option as a
 * suggestion; "" when there is none. Call once everything that reads options was set up. */
PetscErrorCode OptionsCheckUnknown(char *err, size_t errlen);

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
