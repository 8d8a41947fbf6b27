/* ccpdem analyze repose SNAPSHOT.h5 [--x-range A,B] [--floor Z] (app/commands.h)
 * The angle of repose of the pile in a snapshot (src/analysis/repose.h says how it is measured), printed as
 *   angle of repose: 27.3 deg (± 1.1)
 * and a line with the pile's height, toe radius, bodies and sectors used. --x-range keeps the
 * bodies with A <= x <= B (one of several piles side by side); --floor gives the floor height
 * (default: the lowest body bottom, z - radius). Rank 0 reads and analyses; bad input (a missing or
 * foreign file, an unknown analysis, a pile without a usable flank) is one line and exit 2. */
#include "app/commands.h"
#include "analysis/repose.h"
#include "io/snapshot_read.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "--name value" from argv[from ..]: NULL if absent. */
static const char *OptionValue(int argc, char **argv, int from, const char *name)
{
  for (int i = from; i + 1 < argc; i++)
    if (!strcmp(argv[i], name)) return argv[i + 1];
  return NULL;
}

static PetscErrorCode Repose(const char *path, const char *xrange, const char *floor_opt, char *err, size_t errlen)
{
  SnapshotBodies b;
  ReposeResult   res;
  double         lo = -INFINITY, hi = INFINITY, floor_z = 0;
  size_t         kept = 0;
  int            status;

  PetscFunctionBegin;
  if (xrange && sscanf(xrange, "%lf,%lf", &lo, &hi) != 2) {
    snprintf(err, errlen, "--x-range '%s' is not two numbers A,B; e.g. --x-range -1,0", xrange);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (floor_opt && sscanf(floor_opt, "%lf", &floor_z) != 1) {
    snprintf(err, errlen, "--floor '%s' is not a number; give the floor height in m", floor_opt);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(SnapshotReadBodies(path, &b, err, errlen));
  if (err[0]) PetscFunctionReturn(PETSC_SUCCESS);
  status = repose_angle_x_range((size_t)b.n, b.pos, b.radius, lo, hi, floor_opt ? &floor_z : NULL, &res, &kept,
                                &floor_z);
  if (!kept) snprintf(err, errlen, "%s: no body has %g <= x <= %g; give an --x-range around a pile", path, lo, hi);
  else if (status)
    snprintf(err, errlen,
             "%s: the %zu bodies selected do not form a pile with a usable flank (too few, or not settled on a floor "
             "at z = %g m); select one pile with --x-range A,B",
             path, kept, floor_z);
  else {
    printf("angle of repose: %.1f deg (± %.1f)\n", res.angle_deg, res.uncertainty_deg);
    char when[64];
    if (isfinite(b.time)) snprintf(when, sizeof(when), "step %lld, t = %g s", (long long)b.step, b.time);
    else snprintf(when, sizeof(when), "step %lld", (long long)b.step); /* a LAMMPS dump has no time */
    printf("  %s (%s): %zu bodies, pile height %.4g m above z = %.4g m, toe radius %.4g m, %d of 8 sectors fitted\n",
           path, when, kept, res.height, floor_z, res.radius, res.sectors_used);
  }
  PetscCall(SnapshotBodiesDestroy(&b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CommandAnalyze(int argc, char **argv, char *err, size_t errlen, int *exit_code)
{
  PetscMPIInt rank;
  const char *what = argc > 2 ? argv[2] : "", *path = argc > 3 && argv[3][0] != '-' ? argv[3] : NULL;

  PetscFunctionBegin;
  err[0]     = 0;
  *exit_code = CCPDEM_EXIT_BAD_INPUT;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (strcmp(what, "repose"))
    snprintf(err, errlen, "unknown analysis '%s'; use: ccpdem analyze repose SNAPSHOT.h5 [--x-range A,B] [--floor Z]",
             what);
  else if (!path)
    snprintf(err, errlen, "no snapshot given; usage: ccpdem analyze repose SNAPSHOT.h5 [--x-range A,B] [--floor Z]");
  else if (!rank)
    PetscCall(
      Repose(path, OptionValue(argc, argv, 4, "--x-range"), OptionValue(argc, argv, 4, "--floor"), err, errlen));
  PetscCallMPI(MPI_Bcast(err, (PetscMPIInt)errlen, MPI_CHAR, 0, PETSC_COMM_WORLD));
  if (!err[0]) *exit_code = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
