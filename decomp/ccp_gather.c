/* A step's CCP gathered onto rank 0 and the answer scattered back (decomp/ccp_gather.h). */
#include "decomp/ccp_gather.h"
#include "bodies/walls.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>

PetscErrorCode CCPGatherLocal(const CCPProblem *P, PetscInt n_owned, PetscInt n_local, const int64_t *id,
                              const ContactKey *key, CCPGatherBody *bodies, CCPGatherContact *contacts)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n_owned; i++) {
    CCPGatherBody *r = &bodies[i];
    PetscCall(PetscMemzero(r, sizeof(*r)));
    r->id = id[i];
    ccp_problem_body(P, i, &r->im, r->Iinv, r->vf);
    if (P->vel) PetscCall(PetscArraycpy(r->v, P->vel + 6 * (size_t)i, 6));
  }
  for (PetscInt i = 0; i < P->ncontacts; i++) {
    const Contact    *c = &P->contact[i];
    CCPGatherContact *r = &contacts[i];
    PetscCall(PetscMemzero(r, sizeof(*r)));
    r->key = key[i];
    r->c   = *c;
    ccp_problem_terms(P, i, &r->t);
    PetscCall(PetscArraycpy(r->gamma, P->gamma + (size_t)CONTACT_DOF_MAX * i, CONTACT_DOF_MAX));
    r->wall = c->a >= n_local ? c->a - n_local : -1;
    /* Marked, not refused here: the error must be agreed in the gather (CCPGatherToRoot), or the other ranks
     * would wait in it. */
    if (!(c->b < n_local && (r->wall < 0 || r->key.ida == wall_global_id((int)r->wall))))
      r->wall = CCP_GATHER_UNSUPPORTED;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0: all ranks' n records of size bytes gathered in rank order into *all (freed by the caller), *total
 * of them, per_rank[r] from rank r (per_rank: size entries on rank 0, stride apart; may be NULL); other
 * ranks: *all NULL, *total 0. Records beyond one MPI message are an error on every rank. Collective. */
static PetscErrorCode GatherRecords(MPI_Comm comm, const void *mine, PetscInt n, size_t size, void **all,
                                    PetscInt *total, PetscInt *per_rank, PetscInt stride)
{
  PetscMPIInt  rank, nranks;
  PetscMPIInt *counts = NULL, *displs = NULL;
  int64_t      mine64 = n, *n64 = NULL, bytes = 0;

  PetscFunctionBegin;
  *all   = NULL;
  *total = 0;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &nranks));
  if (!rank) PetscCall(PetscMalloc3(nranks, &counts, nranks, &displs, nranks, &n64));
  PetscCallMPI(MPI_Gather(&mine64, 1, MPI_INT64_T, n64, 1, MPI_INT64_T, 0, comm));
  if (!rank)
    for (PetscMPIInt r = 0; r < nranks; r++) bytes += n64[r] * (int64_t)size;
  PetscCallMPI(MPI_Bcast(&bytes, 1, MPI_INT64_T, 0, comm));
  PetscCheck(bytes < INT_MAX, comm, PETSC_ERR_SUP,
             "the step's CCP gathered onto rank 0 (%lld bytes of %zu-byte records) exceeds one MPI message: run a "
             "smaller problem",
             (long long)bytes, size);
  if (!rank) {
    int64_t sum = 0;
    for (PetscMPIInt r = 0; r < nranks; r++) {
      counts[r] = (PetscMPIInt)(n64[r] * (int64_t)size);
      displs[r] = (PetscMPIInt)sum;
      sum += counts[r];
      if (per_rank) per_rank[stride * r] = (PetscInt)n64[r];
    }
    PetscCall(PetscMalloc((size_t)bytes + 1, all));
    *total = (PetscInt)(bytes / (int64_t)size);
  }
  PetscCallMPI(MPI_Gatherv(mine, (PetscMPIInt)(n * (PetscInt)size), MPI_BYTE, *all, counts, displs, MPI_BYTE, 0, comm));
  if (!rank) PetscCall(PetscFree3(counts, displs, n64));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CompareBodies(const void *a, const void *b)
{
  const int64_t x = ((const CCPGatherBody *)a)->id, y = ((const CCPGatherBody *)b)->id;
  return (x > y) - (x < y);
}

static int CompareContacts(const void *a, const void *b)
{
  return contact_key_compare(&((const CCPGatherContact *)a)->key, &((const CCPGatherContact *)b)->key);
}

/* The index among the nb sorted bodies of the body with this id, or -1. */
static PetscInt BodyIndex(const CCPGatherBody *b, PetscInt nb, int64_t id)
{
  const CCPGatherBody  key = {.id = id};
  const CCPGatherBody *hit = bsearch(&key, b, (size_t)nb, sizeof(CCPGatherBody), CompareBodies);
  return hit ? (PetscInt)(hit - b) : -1;
}

PetscErrorCode CCPGatherToRoot(MPI_Comm comm, const CCPGatherBody *bodies, PetscInt n_owned, const int64_t *ghost_id,
                               PetscInt n_ghost, const CCPGatherContact *contacts, PetscInt nc, CCPGathered *g)
{
  PetscMPIInt rank;
  int64_t    *ghosts = NULL, missing = -1; /* the id of a body no rank owns */
  PetscInt    ng = 0, dofs = 0, unsupported = 0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(g, sizeof(*g)));
  g->mine[0] = n_owned;
  g->mine[1] = n_ghost;
  g->mine[2] = nc;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &g->size));
  if (!rank) PetscCall(PetscMalloc1(3 * (size_t)g->size, &g->counts));
  PetscCall(GatherRecords(comm, bodies, n_owned, sizeof(CCPGatherBody), (void **)&g->body, &g->nb, g->counts, 3));
  PetscCall(GatherRecords(comm, ghost_id, n_ghost, sizeof(int64_t), (void **)&ghosts, &ng,
                          g->counts ? g->counts + 1 : NULL, 3));
  PetscCall(GatherRecords(comm, contacts, nc, sizeof(CCPGatherContact), (void **)&g->contact, &g->nc,
                          g->counts ? g->counts + 2 : NULL, 3));
  if (!rank) {
    for (PetscInt k = 0; k < g->nb; k++) g->body[k].slot = k;
    for (PetscInt k = 0; k < g->nc; k++) g->contact[k].slot = k;
    qsort(g->body, (size_t)g->nb, sizeof(CCPGatherBody), CompareBodies);
    qsort(g->contact, (size_t)g->nc, sizeof(CCPGatherContact), CompareContacts);
    for (PetscInt k = 0; k < g->nc && missing < 0; k++) {
      CCPGatherContact *r = &g->contact[k];
      if (r->wall == CCP_GATHER_UNSUPPORTED) {
        unsupported++;
        continue;
      }
      const PetscInt a = r->wall >= 0 ? g->nb + r->wall : BodyIndex(g->body, g->nb, r->key.ida);
      const PetscInt b = BodyIndex(g->body, g->nb, r->key.idb);
      if (a < 0 || b < 0) missing = a < 0 ? r->key.ida : r->key.idb;
      r->c.a = (int32_t)a;
      r->c.b = (int32_t)b;
    }
    PetscCall(PetscMalloc1((size_t)ng + 1, &g->ghost_body));
    for (PetscInt q = 0; q < ng && missing < 0; q++)
      if ((g->ghost_body[q] = BodyIndex(g->body, g->nb, ghosts[q])) < 0) missing = ghosts[q];
    for (PetscMPIInt r = 0; r < g->size; r++) {
      const int64_t d = 6 * ((int64_t)g->counts[3 * r] + g->counts[3 * r + 1] + g->counts[3 * r + 2]);
      if (d >= INT_MAX) dofs = -1; /* the scatter back would exceed one MPI message */
    }
  }
  PetscCall(PetscFree(ghosts));
  PetscCallMPI(MPI_Bcast(&missing, 1, MPI_INT64_T, 0, comm));
  PetscCallMPI(MPI_Bcast(&dofs, 1, MPIU_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(&unsupported, 1, MPIU_INT, 0, comm));
  PetscCheck(!unsupported, comm, PETSC_ERR_SUP,
             "CCPGatherToRoot: %" PetscInt_FMT " contacts join no body and wall (a joint's ground?): not gathered",
             unsupported);
  PetscCheck(missing < 0, comm, PETSC_ERR_PLIB, "CCPGatherToRoot: body %lld of a contact or ghost is owned by no rank",
             (long long)missing);
  PetscCheck(dofs == 0, comm, PETSC_ERR_SUP,
             "the CCP's answer scattered from rank 0 exceeds one MPI message on some rank: use more ranks");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPGatherScatter(MPI_Comm comm, const CCPGathered *g, const double *vel, const double *gamma,
                                double *vel_local, double *gamma_local)
{
  PetscMPIInt  rank;
  PetscMPIInt *counts = NULL, *displs = NULL, mine;
  double      *buf = NULL, *recv;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    PetscInt *body_at, *ghost_at, *contact_at; /* per received record: its place in buf */
    PetscInt  off = 0, bs = 0, gs = 0, cs = 0;
    PetscCall(PetscMalloc2(g->size, &counts, g->size, &displs));
    for (PetscMPIInt r = 0; r < g->size; r++) gs += g->counts[3 * r + 1];
    PetscCall(PetscMalloc3(g->nb + 1, &body_at, gs + 1, &ghost_at, g->nc + 1, &contact_at));
    gs = 0;
    for (PetscMPIInt r = 0; r < g->size; r++) {
      const PetscInt o = g->counts[3 * r], h = g->counts[3 * r + 1], c = g->counts[3 * r + 2];
      displs[r] = (PetscMPIInt)off;
      counts[r] = (PetscMPIInt)(6 * (o + h) + CONTACT_DOF_MAX * c);
      for (PetscInt i = 0; i < o; i++) body_at[bs++] = off + 6 * i;
      for (PetscInt i = 0; i < h; i++) ghost_at[gs++] = off + 6 * (o + i);
      for (PetscInt i = 0; i < c; i++) contact_at[cs++] = off + 6 * (o + h) + CONTACT_DOF_MAX * i;
      off += counts[r];
    }
    PetscCall(PetscMalloc1((size_t)off + 1, &buf));
    for (PetscInt k = 0; k < g->nb; k++) PetscCall(PetscArraycpy(buf + body_at[g->body[k].slot], vel + 6 * k, 6));
    for (PetscInt q = 0; q < gs; q++) PetscCall(PetscArraycpy(buf + ghost_at[q], vel + 6 * g->ghost_body[q], 6));
    for (PetscInt k = 0; k < g->nc; k++)
      PetscCall(
        PetscArraycpy(buf + contact_at[g->contact[k].slot], gamma + (size_t)CONTACT_DOF_MAX * k, CONTACT_DOF_MAX));
    PetscCall(PetscFree3(body_at, ghost_at, contact_at));
  }
  mine = (PetscMPIInt)(6 * (g->mine[0] + g->mine[1]) + CONTACT_DOF_MAX * g->mine[2]);
  PetscCall(PetscMalloc1((size_t)mine + 1, &recv));
  PetscCallMPI(MPI_Scatterv(buf, counts, displs, MPI_DOUBLE, recv, mine, MPI_DOUBLE, 0, comm));
  PetscCall(PetscArraycpy(vel_local, recv, 6 * (g->mine[0] + g->mine[1])));
  PetscCall(PetscArraycpy(gamma_local, recv + 6 * (g->mine[0] + g->mine[1]), CONTACT_DOF_MAX * g->mine[2]));
  PetscCall(PetscFree(recv));
  if (!rank) PetscCall(PetscFree2(counts, displs));
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPGatheredDestroy(CCPGathered *g)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(g->body));
  PetscCall(PetscFree(g->contact));
  PetscCall(PetscFree(g->ghost_body));
  PetscCall(PetscFree(g->counts));
  g->nb = g->nc = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
