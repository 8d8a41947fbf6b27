/* See impulse_routing.h. */
#include "impulse_routing.h"
#include "exchange.h"
#include <stdlib.h>
#include <string.h>

#define ROUTE_RECORD (sizeof(ContactKey) + CONTACT_DOF_MAX * sizeof(double))

typedef struct {
  PetscMPIInt rank;  /* destination */
  PetscInt    entry; /* memory entry */
} Outgoing;

static int CompareOutgoing(const void *pa, const void *pb)
{
  const Outgoing *a = pa, *b = pb;
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  return (a->entry > b->entry) - (a->entry < b->entry);
}

PetscErrorCode ImpulseMemoryRoute(Domain d, const BodyStore *s, const ContactSet *cs, ImpulseMemory *m, PetscInt64 *bytes_sent)
{
  MPI_Comm     comm;
  PetscMPIInt  rank, tag, nto = 0, *toranks, *tocounts;
  PetscInt     nout = 0, nkeep = 0, nrecv = 0;
  Outgoing    *out;
  char        *sendbuf, *recvbuf = NULL, *p;
  ContactKey  *key;
  double      *gamma;

  PetscFunctionBegin;
  PetscCall(DomainGetComm(d, &comm));
  PetscCall(DomainGetTag(d, EXCHANGE_TAG_ROUTE, &tag));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCheck(m->n == cs->n, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "ImpulseMemoryRoute: the memory (%" PetscInt_FMT " entries) must be stored from these contacts (%" PetscInt_FMT ")", m->n, cs->n);
  PetscCall(PetscMalloc1(m->n + 1, &out));
  for (PetscInt i = 0; i < m->n; i++) {
    const PetscInt body = m->key[i].ida >= 0 ? cs->c[i].a : cs->c[i].b; /* the owning body */
    PetscCheck(body >= 0 && body < s->n_owned, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ImpulseMemoryRoute: contact %" PetscInt_FMT " is not owned here (its body %" PetscInt_FMT " is not)", i, body);
    const PetscMPIInt owner = DomainOwnerOfPoint(d, s->pos + 3 * (size_t)body);
    if (owner == rank) continue;
    out[nout].rank    = owner; /* -1: the body leaves the domain, its contacts are forgotten */
    out[nout++].entry = i;
  }
  qsort(out, (size_t)nout, sizeof(*out), CompareOutgoing);
  PetscCall(PetscMalloc3(nout + 1, &toranks, nout + 1, &tocounts, (size_t)nout * ROUTE_RECORD + 1, &sendbuf));
  p = sendbuf;
  for (PetscInt e = 0; e < nout; e++) {
    if (out[e].rank < 0) continue;
    if (nto == 0 || toranks[nto - 1] != out[e].rank) {
      toranks[nto]    = out[e].rank;
      tocounts[nto++] = 0;
    }
    tocounts[nto - 1]++;
    memcpy(p, &m->key[out[e].entry], sizeof(ContactKey));
    memcpy(p + sizeof(ContactKey), m->gamma + (size_t)CONTACT_DOF_MAX * out[e].entry, CONTACT_DOF_MAX * sizeof(double));
    p += ROUTE_RECORD;
  }
  PetscCall(ExchangeSendRecords(comm, tag, ROUTE_RECORD, nto, toranks, tocounts, sendbuf, &nrecv, &recvbuf, bytes_sent));

  /* the entries that stay (out is sorted by rank, then entry: mark the leavers) and the arrivals */
  PetscCall(PetscMalloc2(m->n - nout + nrecv + 1, &key, (size_t)(m->n - nout + nrecv + 1) * CONTACT_DOF_MAX, &gamma));
  {
    PetscBool *leaves;
    PetscCall(PetscCalloc1(m->n + 1, &leaves));
    for (PetscInt e = 0; e < nout; e++) leaves[out[e].entry] = PETSC_TRUE;
    for (PetscInt i = 0; i < m->n; i++) {
      if (leaves[i]) continue;
      key[nkeep] = m->key[i];
      memcpy(gamma + (size_t)CONTACT_DOF_MAX * nkeep++, m->gamma + (size_t)CONTACT_DOF_MAX * i, CONTACT_DOF_MAX * sizeof(double));
    }
    PetscCall(PetscFree(leaves));
  }
  p = recvbuf;
  for (PetscInt e = 0; e < nrecv; e++, p += ROUTE_RECORD) {
    memcpy(&key[nkeep], p, sizeof(ContactKey));
    memcpy(gamma + (size_t)CONTACT_DOF_MAX * nkeep++, p + sizeof(ContactKey), CONTACT_DOF_MAX * sizeof(double));
  }
  PetscCall(ImpulseMemorySet(m, nkeep, key, gamma));
  PetscCall(PetscFree2(key, gamma));
  PetscCall(PetscFree(recvbuf));
  PetscCall(PetscFree3(toranks, tocounts, sendbuf));
  PetscCall(PetscFree(out));
  PetscFunctionReturn(PETSC_SUCCESS);
}
