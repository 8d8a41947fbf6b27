/* See force_routing.h. */
#include "force_routing.h"
#include "penalty_step.h"
#include <string.h>

/* One load on one body: its storage index on the owner, the contact key, force and torque. */
typedef struct {
  int64_t    body;
  ContactKey key;
  double     load[6];
} Contribution;

static int CompareContribution(const void *pa, const void *pb)
{
  const Contribution *a = pa, *b = pb;
  if (a->body != b->body) return a->body < b->body ? -1 : 1;
  if (a->key.ida != b->key.ida) return a->key.ida < b->key.ida ? -1 : 1;
  if (a->key.idb != b->key.idb) return a->key.idb < b->key.idb ? -1 : 1;
  return (a->key.sub > b->key.sub) - (a->key.sub < b->key.sub);
}

PetscErrorCode ForceRoutingSum(Domain d, const Exchange *ex, const ContactSet *cs, const double load[], double acc[], PetscInt64 *bytes_sent)
{
  const PetscInt nown = ex->n_owned, nbody = ex->n_owned + ex->n_ghost;
  MPI_Comm       comm;
  PetscMPIInt    tag, *dest;
  PetscInt       nremote = 0, nlocal = 0, nrecv = 0;
  Contribution  *remote, *all;
  char          *recvbuf = NULL;

  PetscFunctionBegin;
  PetscCall(DomainGetComm(d, &comm));
  PetscCall(DomainGetTag(d, EXCHANGE_TAG_ROUTE, &tag));
  PetscCall(PetscMalloc2(cs->n + 1, &remote, cs->n + 1, &dest));
  for (PetscInt i = 0; i < cs->n; i++) {
    const PetscInt b = cs->c[i].b;
    PetscCheck(cs->c[i].a >= nbody || cs->c[i].a < nown, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ForceRoutingSum: contact %" PetscInt_FMT " has a ghost as body A", i);
    if (b < nown || b >= nbody) continue;
    remote[nremote].body = ex->ghost_owner_index[b - nown];
    remote[nremote].key  = cs->key[i];
    memcpy(remote[nremote].load, load + (size_t)PENALTY_LOAD_WIDTH * i + 6, sizeof(double) * 6);
    dest[nremote++] = ex->ghost_owner_rank[b - nown];
  }
  PetscCall(ExchangeSendToRanks(comm, tag, sizeof(Contribution), nremote, dest, (const char *)remote, &nrecv, &recvbuf, bytes_sent));

  /* every load on an owned body, local ones and arrivals, sorted by (body, key) and summed */
  PetscCall(PetscMalloc1(2 * cs->n + nrecv + 1, &all));
  for (PetscInt i = 0; i < cs->n; i++) {
    const PetscInt a = cs->c[i].a, b = cs->c[i].b;
    if (a < nown) {
      all[nlocal].body = a;
      all[nlocal].key  = cs->key[i];
      memcpy(all[nlocal++].load, load + (size_t)PENALTY_LOAD_WIDTH * i, sizeof(double) * 6);
    }
    if (b < nown) {
      all[nlocal].body = b;
      all[nlocal].key  = cs->key[i];
      memcpy(all[nlocal++].load, load + (size_t)PENALTY_LOAD_WIDTH * i + 6, sizeof(double) * 6);
    }
  }
  if (nrecv) memcpy(all + nlocal, recvbuf, sizeof(Contribution) * (size_t)nrecv);
  nlocal += nrecv;
  qsort(all, (size_t)nlocal, sizeof(Contribution), CompareContribution); /* keys are unique per body: a total order */
  memset(acc, 0, sizeof(double) * 6 * (size_t)nown);
  for (PetscInt e = 0; e < nlocal; e++) {
    PetscCheck(all[e].body >= 0 && all[e].body < nown, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ForceRoutingSum: a load for body %" PetscInt64_FMT " of %" PetscInt_FMT " owned", (PetscInt64)all[e].body, nown);
    for (int k = 0; k < 6; k++) acc[6 * all[e].body + k] += all[e].load[k];
  }
  PetscCall(PetscFree(all));
  PetscCall(PetscFree(recvbuf));
  PetscCall(PetscFree2(remote, dest));
  PetscFunctionReturn(PETSC_SUCCESS);
}
