/* See base/log_events.h. */
#include "base/log_events.h"

PetscLogEvent CCPDEM_EVENT_DETECT, CCPDEM_EVENT_SOLVE, CCPDEM_EVENT_INTEGRATE, CCPDEM_EVENT_OUTPUT,
  CCPDEM_EVENT_CCP_SOLVE;

static PetscBool registered = PETSC_FALSE;

static PetscErrorCode CcpdemLogEventsForget(void)
{
  PetscFunctionBegin;
  registered = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CcpdemLogEventsRegister(void)
{
  PetscClassId step, output, solver;

  PetscFunctionBegin;
  if (registered) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscClassIdRegister("ccpdem", &step));
  PetscCall(PetscLogEventRegister("Detect", step, &CCPDEM_EVENT_DETECT));
  PetscCall(PetscLogEventRegister("Solve", step, &CCPDEM_EVENT_SOLVE));
  PetscCall(PetscLogEventRegister("Integrate", step, &CCPDEM_EVENT_INTEGRATE));
  PetscCall(PetscClassIdRegister("CCP solver", &solver));
  PetscCall(PetscLogEventRegister("CCPSolve", solver, &CCPDEM_EVENT_CCP_SOLVE));
  PetscCall(PetscClassIdRegister("ccpdem output", &output));
  PetscCall(PetscLogEventRegister("Output", output, &CCPDEM_EVENT_OUTPUT));
  PetscCall(PetscRegisterFinalize(CcpdemLogEventsForget));
  registered = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
