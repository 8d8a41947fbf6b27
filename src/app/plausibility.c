/* Plausibility warnings on a scenario that passed its checks (app/commands.h ScenarioWarn). */
#include "app/commands.h"
#include <math.h>

/* The smallest body radius (a sphere's radius, a box's smallest half extent, a clump's smallest member) of each
 * material over the bodies, fills and emitters of sc into r_min (INFINITY: no body of it), and the smallest over
 * all in *r_all. */
static void SmallestRadii(const Scenario *sc, double *r_min, double *r_all)
{
  *r_all = INFINITY;
  for (int m = 0; m < sc->n_materials; m++) r_min[m] = INFINITY;
#define CCPDEM_TAKE(mat, r) \
  do { \
    r_min[mat] = fmin(r_min[mat], r); \
    *r_all     = fmin(*r_all, r); \
  } while (0)
  for (int b = 0; b < sc->n_bodies; b++) {
    const BodySpec *s = &sc->bodies[b];
    CCPDEM_TAKE(s->material, s->shape == SHAPE_SPHERE  ? s->size[0]
                             : s->shape == SHAPE_CLUMP ? sc->clumps[(int)s->size[0]].min_radius
                                                       : fmin(s->size[0], fmin(s->size[1], s->size[2])));
  }
  for (int f = 0; f < sc->n_fills; f++)
    CCPDEM_TAKE(sc->fills[f].material,
                sc->fills[f].clump ? sc->clumps[sc->fills[f].clump - 1].min_radius : sc->fills[f].radius);
  for (int e = 0; e < sc->n_emitters; e++) {
    const EmitterSpec *s = &sc->emitters[e];
    CCPDEM_TAKE(s->material, s->clump                ? sc->clumps[s->clump - 1].min_radius /* radius: the bounding */
                             : s->size == SIZE_FIXED ? s->radius
                                                     : s->radius_min);
  }
#undef CCPDEM_TAKE
}

PetscErrorCode ScenarioWarn(MPI_Comm comm, const Scenario *sc)
{
  double      *r_min, r_all;
  const double g = sqrt(sc->gravity[0] * sc->gravity[0] + sc->gravity[1] * sc->gravity[1] +
                        sc->gravity[2] * sc->gravity[2]);

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(sc->n_materials + 1, &r_min));
  SmallestRadii(sc, r_min, &r_all);
  for (int m = 0; m < sc->n_materials; m++) {
    const Material *mat       = &sc->materials[m];
    const double    length[2] = {mat->rolling_friction, mat->spinning_friction};
    const char     *key[2]    = {"rolling_friction", "spinning_friction"};
    for (int k = 0; k < 2; k++)
      if (isfinite(r_min[m]) && length[k] > r_min[m])
        PetscCall(PetscFPrintf(comm, stderr,
                               "ccpdem: warning: %s: materials[%d].%s = %g m is longer than the smallest radius of "
                               "the bodies of material '%s' (%g m); it is a length in m (rho = 0.1 d is %g m here), "
                               "not a dimensionless coefficient\n",
                               sc->path, m, key[k], length[k], mat->name, r_min[m], 0.2 * r_min[m]));
  }
  if (g > 0 && isfinite(r_all)) {
    const double t_fall = sqrt(2 * r_all / g); /* from rest through its own radius */
    if (sc->time_step > 0.1 * t_fall)
      PetscCall(PetscFPrintf(comm, stderr,
                             "ccpdem: warning: %s: time.step %g s is longer than a tenth of the time the smallest body "
                             "(radius %g m) takes to fall through its radius (%g s); contacts may be found late and "
                             "overlap deeply: a step of %.2g s or less is safer\n",
                             sc->path, sc->time_step, r_all, t_fall, 0.1 * t_fall));
  }
  PetscCall(PetscFree(r_min));
  PetscFunctionReturn(PETSC_SUCCESS);
}
