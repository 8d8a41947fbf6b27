/* ccpdem's commands beyond run/restart/check/info (src/app/ccpdem.c dispatches). */
#ifndef CCPDEM_APP_COMMANDS_H
#define CCPDEM_APP_COMMANDS_H
#include "scenario/scenario.h"
#include <petscsys.h>

/* ccpdem analyze repose SNAPSHOT.h5 [...] (src/app/analyze.c). Bad input: err set (one line)
 * and *exit_code CCPDEM_EXIT_BAD_INPUT; the caller reports it. Collective. */
PetscErrorCode CommandAnalyze(int argc, char **argv, char *err, size_t errlen, int *exit_code);
#endif
