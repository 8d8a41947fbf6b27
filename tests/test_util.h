/* Shared helpers of the test programs: build a simulation from YAML text, check with a message. */
#ifndef CCPDEM_TEST_UTIL_H
#define CCPDEM_TEST_UTIL_H
#include "stepper.h"
#include "vec3.h"
#include <stdio.h>
#include <stdlib.h>

#include "test_check.h"

#define TEST_CHECK CHECK

/* Create a simulation from scenario text; aborts the test on bad input. */
static inline PetscErrorCode TestSimulationFromText(const char *yaml, Simulation **sim)
{
  Scenario sc;
  char     err[SCENARIO_ERR_MAX] = "";

  PetscFunctionBegin;
  if (scenario_load_string(yaml, "test-scenario", &sc, err, sizeof(err))) {
    printf("FAIL: test scenario rejected: %s\n", err);
    exit(1);
  }
  PetscCall(SimulationCreate(PETSC_COMM_WORLD, &sc, sim, err, sizeof(err)));
  if (err[0]) {
    printf("FAIL: test scenario rejected: %s\n", err);
    exit(1);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Step until the simulated time reaches t (within half a step). */
static inline PetscErrorCode TestRunUntil(Simulation *sim, double t)
{
  PetscFunctionBegin;
  while (sim->time < t - 0.5 * sim->sc.time_step) PetscCall(SimulationStep(sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline int TestFinish(const char *name)
{
  if (failures) printf("%s: %d check(s) FAILED\n", name, failures);
  else printf("%s: all checks passed\n", name);
  return failures ? 1 : 0;
}
#endif
