/* ccpdem info FILE.h5 (app/commands.h): a short summary of a snapshot or a checkpoint (rank 0
 * prints it). A checkpoint is read in full, so the summary also says whether it would restart. */
#include "app/commands.h"
#include "step/simulation.h"
#include "io/checkpoint.h"
#include <string.h>

static PetscErrorCode PrintCheckpoint(const char *path, char *err, size_t errlen)
{
  Simulation           sim;
  const ImpulseMemory *memory;

  PetscFunctionBegin;
  PetscCall(SimulationCreateFromCheckpoint(PETSC_COMM_WORLD, path, &sim, err, errlen));
  if (!sim) PetscFunctionReturn(PETSC_SUCCESS);
  memory = SimulationMemory(sim);
  PetscCall(
    PetscPrintf(PETSC_COMM_WORLD,
                "%s: ccpdem checkpoint, format version %d (checksum verified)\n  step %" PetscInt64_FMT
                ", time %.17g s, end time %.17g s\n  bodies %" PetscInt64_FMT " (%" PetscInt64_FMT
                " left the domain), next id %" PRId64 "\n  contacts stored: %" PetscInt_FMT
                " (%s)\n  walls %d, scenario %s\n",
                path,
                SimulationScenario(sim)->overrides ? CHECKPOINT_FORMAT_VERSION_OVERRIDES : CHECKPOINT_FORMAT_VERSION,
                SimulationStepCount(sim), SimulationTime(sim), SimulationScenario(sim)->time_end,
                SimulationLastStep(sim)->bodies, SimulationRemoved(sim), SimulationNextId(sim), memory->n,
                memory->width == CCP_RECORD_WIDTH ? "warm-start impulses and plastic displacements"
                                                  : "penalty friction history",
                SimulationScenario(sim)->n_walls, SimulationScenario(sim)->path));
  if (SimulationScenario(sim)->overrides) { /* '\n'-separated: one per line */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  scenario overrides (-set), applied in order:\n"));
    for (const char *s = SimulationScenario(sim)->overrides; *s;) {
      const size_t len = strcspn(s, "\n");
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "    %.*s\n", (int)len, s));
      s += len + (s[len] == '\n');
    }
  }
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CommandInfo(const char *path, int *exit_code)
{
  CheckpointFileInfo info;
  char               err[SCENARIO_ERR_MAX] = "";

  PetscFunctionBegin;
  *exit_code = CCPDEM_EXIT_BAD_INPUT;
  if (!path) {
    ReportBadInput("no file given; usage: ccpdem info FILE.h5");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(CheckpointInspect(PETSC_COMM_WORLD, path, &info, err, sizeof(err)));
  if (!err[0] && info.checkpoint) PetscCall(PrintCheckpoint(path, err, sizeof(err)));
  else if (!err[0])
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "%s: ccpdem snapshot\n  step %" PRId64
                          ", time %.17g s\n  bodies %llu\n  contacts stored: none (snapshots hold bodies only)\n",
                          path, info.step, info.time, (unsigned long long)info.bodies));
  if (err[0]) ReportBadInput(err);
  else *exit_code = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
