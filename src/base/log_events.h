/* ccpdem's PETSc log events, so that -log_view shows the time of each phase: registered together
 * by CcpdemLogEventsRegister, which every object that logs calls when it is created (idempotent;
 * registrations are forgotten at PetscFinalize, as PETSc forgets its own). */
#ifndef CCPDEM_BASE_LOG_EVENTS_H
#define CCPDEM_BASE_LOG_EVENTS_H
#include <petscsys.h>

extern PetscLogEvent CCPDEM_EVENT_DETECT;    /* collision detection (and the model's matching of memory) */
extern PetscLogEvent CCPDEM_EVENT_SOLVE;     /* the contact model's response: CCP solve or penalty loads */
extern PetscLogEvent CCPDEM_EVENT_INTEGRATE; /* moving the bodies, migration */
extern PetscLogEvent CCPDEM_EVENT_OUTPUT;    /* snapshots and checkpoints */
extern PetscLogEvent CCPDEM_EVENT_CCP_SOLVE; /* CCPSolverSolve itself (inside Solve) */

/* Not collective. */
PetscErrorCode CcpdemLogEventsRegister(void);
#endif
