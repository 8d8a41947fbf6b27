/* ccpdem check SCENARIO.yaml [options] (app/commands.h): the scenario read and its initial bodies
 * built and checked as a run would (with the solver's options, e.g. -ccp_packed), then one line:
 * "FILE: ok: ..." or the first problem. Nothing is written. */
#include "app/commands.h"
#include "app/option_check.h"
#include "step/population.h"
#include <inttypes.h>

PetscErrorCode CommandCheck(const char *path, const char *overrides, int *exit_code)
{
  Scenario     sc;
  BodyStore    bodies;
  OptionErrors oe; /* the checks read options (-ccp_packed): a bad value is bad input too */
  char         err[SCENARIO_ERR_MAX] = "";
  int          bad;

  PetscFunctionBegin;
  *exit_code = CCPDEM_EXIT_BAD_INPUT;
  if (!path) {
    ReportBadInput("no scenario given; usage: ccpdem check SCENARIO.yaml");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  bad = scenario_load_file_set(path, overrides, &sc, err, sizeof(err));
  if (!bad) PetscCall(OptionsCheckUnknown(err, sizeof(err)));
  if (bad || err[0]) {
    ReportBadInput(err);
    if (!bad) scenario_free(&sc);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(BodyStoreCreate(&bodies));
  PetscCall(OptionErrorsCatch(&oe));
  const PetscErrorCode ierr = PopulationBuild(&sc, &bodies, err, sizeof(err));
  PetscCall(OptionErrorsRelease(&oe, ierr, err, sizeof(err)));
  if (err[0]) ReportBadInput(err);
  else {
    PetscCall(ScenarioWarn(PETSC_COMM_WORLD, &sc));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "%s: ok: %" PetscInt_FMT " bodies, %d emitters, %d walls, %d materials, %g s in %" PRId64
                          " steps of %g s\n",
                          path, bodies.n_owned, sc.n_emitters, sc.n_walls, sc.n_materials, sc.time_end,
                          scenario_step_count(sc.time_end, sc.time_step, NULL, 0), sc.time_step));
    *exit_code = 0;
  }
  PetscCall(BodyStoreDestroy(&bodies));
  scenario_free(&sc);
  PetscFunctionReturn(PETSC_SUCCESS);
}
