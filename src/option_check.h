/* The command line's unknown options (option_check.c). */
#ifndef CCPDEM_OPTION_CHECK_H
#define CCPDEM_OPTION_CHECK_H
#include <petscsys.h>

/* err <- one message naming the first option on the command line (or in PETSC_OPTIONS) that
 * nothing has read so far and that is no ccpdem option, with the nearest ccpdem option as a
 * suggestion; "" when there is none. Call once everything that reads options was set up. */
PetscErrorCode OptionsCheckUnknown(char *err, size_t errlen);
#endif
