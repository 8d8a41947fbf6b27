/* What the outputs show of a step's contacts (step/simulation_impl.h StepLoads): the loads on the
 * walls and the contact network, taken from the contact model's response (ContactModelOps
 * contact_load) while the bodies are still at the step's start. Every contact belongs to exactly
 * one rank (collision/detect.h), so each rank records its own and the wall loads are summed over
 * ranks when a snapshot is written. */
#include "step/simulation_impl.h"
#include "base/growth.h"
#include "io/wall_output.h"

void SimulationRecordLoads(Simulation sim, PetscBool on) { sim->loads.wanted = on; }

/* The point wall k's torque is taken about, now. */
static PetscErrorCode WallTorquePoint(const Wall *wall, double p[3])
{
  const WallOutputKind *kind = WallOutputKindOf(wall->type);

  PetscFunctionBegin;
  PetscCheck(kind, PETSC_COMM_SELF, PETSC_ERR_PLIB, "wall type %d has no entry in io/wall_output.c", (int)wall->type);
  kind->torque_point(wall, p);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StepLoadsRecord(Simulation sim, const StepWork *w)
{
  StepLoads        *L  = &sim->loads;
  const ContactSet *cs = &sim->contacts;
  const PetscInt    nb = w->nb, nw = sim->sc.n_walls;
  const PetscBool   network = (PetscBool)(sim->sc.output_contacts != 0);

  PetscFunctionBegin;
  if (!L->wanted || (!nw && !network)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(sim->model->contact_load, sim->comm, PETSC_ERR_SUP, "the %s contact model gives no contact loads",
             sim->model->name);
  if (!L->wall) PetscCall(PetscMalloc1(18 * nw + 1, &L->wall));
  for (PetscInt k = 0; k < nw; k++) {
    for (int v = 0; v < 6; v++) L->wall[9 * k + v] = 0;
    PetscCall(WallTorquePoint(&sim->walls[k], L->wall + 9 * k + 6));
  }
  if (network && (size_t)cs->n > (size_t)L->cap) {
    PetscCall(PetscFree(L->contact));
    L->cap = (PetscInt)GrowthCapacity((size_t)L->cap, (size_t)cs->n);
    PetscCall(PetscMalloc1(L->cap, &L->contact));
  }
  L->n = 0;
  for (PetscInt i = 0; i < cs->n; i++) {
    const Contact *c = &cs->c[i];
    const double  *xb;
    double         F[3], T[3], P[3];

    if (!cs->no_impulses && c->box)
      continue; /* a joint block, not a contact (a penalty set has neither, nor
                   writes the field: ContactSet.no_impulses) */
    if (!network && c->a < nb) continue;
    sim->model->contact_load(sim, i, F, T);
    xb = sim->bodies.pos + 3 * c->b;
    v3_add(P, xb, c->rb);
    if (c->a >= nb && c->a < nb + nw) { /* on the wall: -F, and -T - (P - q) x F about its point q */
      double *load = L->wall + 9 * (c->a - nb), r[3], m[3];
      v3_sub(r, P, load + 6);
      v3_cross(m, r, F);
      v3_add(m, m, T);
      v3_sub(load, load, F);
      v3_sub(load + 3, load + 3, m);
    }
    if (network) {
      SnapshotContact *o  = &L->contact[L->n++];
      const double     fn = v3_dot(F, c->n);
      o->id_a             = cs->key[i].ida;
      o->id_b             = cs->key[i].idb;
      v3_copy(o->point, P);
      v3_copy(o->normal, c->n);
      o->normal_force = fn;
      v3_copy(o->tangential_force, F);
      v3_axpy(o->tangential_force, -fn, c->n);
      if (c->a < nb) v3_copy(o->ends, sim->bodies.pos + 3 * c->a);
      else v3_copy(o->ends, P); /* a wall: its end at the contact point */
      v3_copy(o->ends + 3, xb);
    }
  }
  L->step = sim->step + 1; /* the step being taken */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StepLoadsExtras(Simulation sim, SnapshotExtras *x)
{
  StepLoads      *L        = &sim->loads;
  const PetscInt  nw       = sim->sc.n_walls;
  const PetscBool recorded = (PetscBool)(L->step == sim->step);

  PetscFunctionBegin;
  PetscCall(PetscMemzero(x, sizeof(*x)));
  if (!nw && !sim->sc.output_contacts) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(recorded || sim->step == 0, sim->comm, PETSC_ERR_ARG_WRONGSTATE,
             "SimulationWriteSnapshot at step %" PetscInt64_FMT
             ": that step did not record its contacts' loads; call SimulationRecordLoads(sim, PETSC_TRUE) before it",
             sim->step);
  if (!L->wall) PetscCall(PetscMalloc1(18 * nw + 1, &L->wall));
  for (PetscInt k = 0; k < nw; k++) {
    if (!recorded) { /* step 0: no loads yet */
      for (int v = 0; v < 6; v++) L->wall[9 * k + v] = 0;
      PetscCall(WallTorquePoint(&sim->walls[k], L->wall + 9 * k + 6));
    }
    for (int v = 0; v < 9; v++) L->wall[9 * nw + 9 * k + v] = L->wall[9 * k + v];
  }
  if (nw) /* the forces and torques summed over ranks (the points are the same on every rank) */
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, L->wall + 9 * nw, (PetscMPIInt)(9 * nw), MPI_DOUBLE, MPI_SUM, sim->comm));
  for (PetscInt k = 0; k < nw; k++)
    for (int v = 6; v < 9; v++) L->wall[9 * nw + 9 * k + v] = L->wall[9 * k + v];
  if (!L->drawn) PetscCall(PetscMalloc1(nw + 1, &L->drawn));
  for (PetscInt k = 0; k < nw; k++) { /* a mesh drawn whole, not as the part this rank's detection reads */
    L->drawn[k] = sim->walls[k];
    if (sim->walls[k].type == WALL_MESH) L->drawn[k].mesh = sim->sc.walls[k].mesh;
  }
  x->walls      = L->drawn;
  x->n_walls    = sim->sc.n_walls;
  x->wall_loads = L->wall + 9 * nw;
  for (int c = 0; c < 3; c++) {
    x->domain_min[c] = sim->sc.domain_min[c];
    x->domain_max[c] = sim->sc.domain_max[c];
  }
  x->contacts   = (PetscBool)(sim->sc.output_contacts != 0);
  x->n_contacts = recorded ? L->n : 0;
  x->contact    = L->contact;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StepLoadsFree(Simulation sim)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(sim->loads.wall));
  PetscCall(PetscFree(sim->loads.drawn));
  PetscCall(PetscFree(sim->loads.contact));
  sim->loads.cap = sim->loads.n = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
