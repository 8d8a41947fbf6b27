/* The simulation's use of the emitters (step/emitter.h): at the start of a step, each emitter's due
 * bodies are placed against the bodies near its region, gathered from all ranks in id order, and
 * each rank keeps the new bodies whose centre (a clump's centre of mass) it owns. Collective. */
#include "step/simulation_impl.h"
#include "step/emitter.h"
#include "step/population.h"
#include <stdlib.h>

typedef struct {
  int64_t id;
  double  x[3], r;
} NearBody;

static int CompareNear(const void *a, const void *b)
{
  const int64_t x = ((const NearBody *)a)->id, y = ((const NearBody *)b)->id;
  return (x > y) - (x < y);
}

/* The owned bodies of all ranks whose bounding sphere comes within reach of the box, in id order,
 * on every rank. */
static PetscErrorCode GatherNear(Simulation sim, const double lo[3], const double hi[3], double reach,
                                 EmitterSphere **near, long *nnear)
{
  const BodyStore *s = &sim->bodies;
  NearBody        *mine, *all;
  PetscMPIInt      size, nmine = 0, *counts, *displs;
  long             total = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(sim->comm, &size));
  PetscCall(PetscMalloc1(s->n_owned + 1, &mine));
  for (PetscInt i = 0; i < s->n_owned; i++) {
    const double *x  = s->pos + 3 * i;
    double        d2 = 0;
    for (int a = 0; a < 3; a++) {
      const double d = x[a] < lo[a] ? lo[a] - x[a] : (x[a] > hi[a] ? x[a] - hi[a] : 0);
      d2 += d * d;
    }
    const double within = reach + s->radius[i];
    if (d2 >= within * within) continue;
    mine[nmine].id = s->id[i];
    for (int a = 0; a < 3; a++) mine[nmine].x[a] = x[a];
    mine[nmine++].r = s->radius[i];
  }
  PetscCall(PetscMalloc2(size, &counts, size, &displs));
  nmine *= (PetscMPIInt)sizeof(NearBody);
  PetscCallMPI(MPI_Allgather(&nmine, 1, MPI_INT, counts, 1, MPI_INT, sim->comm));
  for (int r = 0; r < size; r++) {
    displs[r] = (PetscMPIInt)total;
    total += counts[r];
  }
  PetscCall(PetscMalloc1(total / (long)sizeof(NearBody) + 1, &all));
  PetscCallMPI(MPI_Allgatherv(mine, nmine, MPI_BYTE, all, counts, displs, MPI_BYTE, sim->comm));
  *nnear = total / (long)sizeof(NearBody);
  qsort(all, (size_t)*nnear, sizeof(NearBody), CompareNear);
  PetscCall(PetscMalloc1(*nnear + 1, near));
  for (long k = 0; k < *nnear; k++) {
    for (int a = 0; a < 3; a++) (*near)[k].x[a] = all[k].x[a];
    (*near)[k].r = all[k].r;
  }
  PetscCall(PetscFree(all));
  PetscCall(PetscFree2(counts, displs));
  PetscCall(PetscFree(mine));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Append new body `id` (a sphere, or for a clump or ellipsoid emitter a clump or ellipsoid turned by
 * the next orientation of *orient) if this rank owns its centre. Every rank calls it for every new body, so that
 * *orient advances alike on all. */
static PetscErrorCode AppendIfMine(Simulation sim, const EmitterSpec *e, int64_t id, const EmitterSphere *c,
                                   const double v[3], uint64_t *orient)
{
  PetscMPIInt rank;
  BodySpec    spec;
  BodyRecord  rec;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(sim->comm, &rank));
  PetscCall(PetscMemzero(&spec, sizeof(spec)));
  spec.shape          = SHAPE_SPHERE;
  spec.size[0]        = c->r;
  spec.orientation[0] = 1;
  spec.material       = e->material;
  for (int a = 0; a < 3; a++) {
    spec.position[a] = c->x[a];
    spec.velocity[a] = v[a];
  }
  if (e->clump) population_clump_pose(&sim->sc, e->clump - 1, c->x, orient, &spec);
  else if (e->semi_axes[0] > 0) population_ellipsoid_pose(e->semi_axes, orient, &spec);
  if (sim->place.domain && DomainOwnerOfPoint(sim->place.domain, c->x) != rank) PetscFunctionReturn(PETSC_SUCCESS);
  population_record_from_spec(&sim->sc, &spec, id, &rec);
  PetscCall(BodyStoreAppendOwned(&sim->bodies, &rec));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bodies emitter k owes at time t: due by its schedule, not yet placed. */
static long emitter_owed(Simulation sim, int k, double t)
{
  return emitter_due(&sim->sc.emitters[k], t) - (long)sim->emitted[k];
}

PetscBool SimulationEmissionDue(Simulation sim, PetscInt64 step)
{
  for (int k = 0; k < sim->sc.n_emitters; k++)
    if (emitter_owed(sim, k, step * sim->sc.time_step) > 0) return PETSC_TRUE;
  return PETSC_FALSE;
}

PetscErrorCode SimulationEmit(Simulation sim, PetscBool *emitted)
{
  const int64_t next_id = sim->next_id;

  PetscFunctionBegin;
  for (int k = 0; k < sim->sc.n_emitters; k++) {
    const EmitterSpec *e   = &sim->sc.emitters[k];
    const long         due = emitter_owed(sim, k, sim->time);
    EmitterSphere     *near, *out;
    uint64_t           orient;
    double(*vel)[3];
    long nnear;
    int  placed;

    if (due <= 0) continue;
    PetscCall(GatherNear(sim, e->region_min, e->region_max, e->radius_max, &near, &nnear));
    PetscCall(PetscMalloc2(due, &out, due, &vel));
    placed = emitter_place(e, k, sim->step, near, nnear, sim->walls, sim->sc.n_walls, (int)PetscMin(due, INT32_MAX),
                           out, vel);
    orient = emitter_orientation_stream(e, k, sim->step);
    for (int j = 0; j < placed; j++) PetscCall(AppendIfMine(sim, e, sim->next_id++, &out[j], vel[j], &orient));
    sim->emitted[k] += placed;
    PetscCall(PetscFree2(out, vel));
    PetscCall(PetscFree(near));
  }
  *emitted = (PetscBool)(sim->next_id != next_id);
  PetscFunctionReturn(PETSC_SUCCESS);
}
