/* ccpdem check SCENARIO.yaml [options] (app/commands.h): the scenario read and its simulation set up as a run
 * would set it up (CommandCreateSimulation: the bodies built and checked, every option value read and checked, the
 * solver's -ccp_type and its scope among them), without a step, then one line: "FILE: ok: ..." or the first problem.
 * Nothing is written. */
#include "app/commands.h"
#include "app/option_check.h"
#include <inttypes.h>

PetscErrorCode CommandCheck(const char *path, const char *overrides, int *exit_code)
{
  Scenario        sc;
  Simulation      sim = NULL;
  const Scenario *set;
  char            err[SCENARIO_ERR_MAX] = "";
  PetscBool       overwrite;
  PetscInt        nbodies;

  PetscFunctionBegin;
  *exit_code = CCPDEM_EXIT_BAD_INPUT;
  if (!path) {
    ReportBadInput("no scenario given; usage: ccpdem check SCENARIO.yaml");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (scenario_load_file_set(path, overrides, &sc, err, sizeof(err))) {
    ReportBadInput(err);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(CommandCreateSimulation(path, &sc, &sim, &overwrite, err, sizeof(err)));
  if (!err[0]) PetscCall(OptionsCheckUnknown(err, sizeof(err)));
  if (err[0]) {
    ReportBadInput(err);
    if (sim) PetscCall(SimulationDestroy(&sim));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  set = SimulationScenario(sim);
  PetscCall(ScenarioWarn(PETSC_COMM_WORLD, set));
  PetscCallMPI(MPI_Allreduce(&SimulationBodies(sim)->n_owned, &nbodies, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%s: ok: %" PetscInt_FMT " bodies, %d emitters, %d walls, %d materials, %g s in %" PRId64
                        " steps of %g s\n",
                        path, nbodies, set->n_emitters, set->n_walls, set->n_materials, set->time_end,
                        scenario_step_count(set->time_end, set->time_step, NULL, 0), set->time_step));
  PetscCall(SimulationDestroy(&sim));
  *exit_code = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
