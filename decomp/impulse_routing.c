/* See impulse_routing.h. */
#include "impulse_routing.h"
#include "exchange.h"
#include <stdlib.h>
#include <string.h>

#define ROUTE_RECORD (sizeof(ContactKey) + (CONTACT_DOF_MAX + 1) * sizeof(double)) /* key, impulses, plastic */

/* Send record i (rec bytes at records + i rec) to rank dest[i] (dest < 0: dropped), in index order
 * per destination; receive into *recvbuf (PetscFree it), *nrecv records ordered by source rank. */
static PetscErrorCode SendToRanks(MPI_Comm comm, PetscMPIInt tag, size_t rec, PetscInt n, const PetscMPIInt dest[], const char *records, PetscInt *nrecv, char **recvbuf, PetscInt64 *bytes)
{
  PetscMPIInt size, nto = 0, *toranks, *tocounts;
  PetscInt   *start, nsend = 0;
  char       *sendbuf;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscCalloc1(size + 1, &start));
  for (PetscInt i = 0; i < n; i++)
    if (dest[i] >= 0) {
      start[dest[i] + 1]++;
      nsend++;
    }
  PetscCall(PetscMalloc3(size, &toranks, size, &tocounts, rec * (size_t)nsend + 1, &sendbuf));
  for (PetscMPIInt r = 0; r < size; r++) {
    if (start[r + 1]) {
      toranks[nto]    = r;
      tocounts[nto++] = (PetscMPIInt)start[r + 1];
    }
    start[r + 1] += start[r];
  }
  for (PetscInt i = 0; i < n; i++) /* a stable counting sort by destination */
    if (dest[i] >= 0) memcpy(sendbuf + rec * (size_t)start[dest[i]]++, records + rec * (size_t)i, rec);
  PetscCall(ExchangeSendRecords(comm, tag, rec, nto, toranks, tocounts, sendbuf, nrecv, recvbuf, bytes));
  PetscCall(PetscFree3(toranks, tocounts, sendbuf));
  PetscCall(PetscFree(start));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The memory's entries as route records (key, impulses, plastic displacement). */
static PetscErrorCode PackEntries(const ImpulseMemory *m, char **records)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(ROUTE_RECORD * (size_t)m->n + 1, records));
  for (PetscInt i = 0; i < m->n; i++) {
    memcpy(*records + ROUTE_RECORD * (size_t)i, &m->key[i], sizeof(ContactKey));
    memcpy(*records + ROUTE_RECORD * (size_t)i + sizeof(ContactKey), m->gamma + (size_t)CONTACT_DOF_MAX * i, CONTACT_DOF_MAX * sizeof(double));
    memcpy(*records + ROUTE_RECORD * (size_t)(i + 1) - sizeof(double), &m->plastic[i], sizeof(double));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* m <- the kept entries (keep[i]) and n received route records, sorted by key. */
static PetscErrorCode MergeEntries(ImpulseMemory *m, const PetscBool *keep, PetscInt n, const char *records)
{
  PetscInt    nkeep = 0;
  ContactKey *key;
  double     *gamma, *plastic;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(m->n + n + 1, &key, (size_t)(m->n + n + 1) * CONTACT_DOF_MAX, &gamma, m->n + n + 1, &plastic));
  for (PetscInt i = 0; keep && i < m->n; i++) {
    if (!keep[i]) continue;
    key[nkeep]     = m->key[i];
    plastic[nkeep] = m->plastic[i];
    memcpy(gamma + (size_t)CONTACT_DOF_MAX * nkeep++, m->gamma + (size_t)CONTACT_DOF_MAX * i, CONTACT_DOF_MAX * sizeof(double));
  }
  for (PetscInt e = 0; e < n; e++) {
    memcpy(&key[nkeep], records + ROUTE_RECORD * (size_t)e, sizeof(ContactKey));
    memcpy(&plastic[nkeep], records + ROUTE_RECORD * (size_t)(e + 1) - sizeof(double), sizeof(double));
    memcpy(gamma + (size_t)CONTACT_DOF_MAX * nkeep++, records + ROUTE_RECORD * (size_t)e + sizeof(ContactKey), CONTACT_DOF_MAX * sizeof(double));
  }
  PetscCall(ImpulseMemorySet(m, nkeep, key, gamma, plastic));
  PetscCall(PetscFree3(key, gamma, plastic));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ImpulseMemoryRoute(Domain d, const BodyStore *s, const ContactSet *cs, ImpulseMemory *m, PetscInt64 *bytes_sent)
{
  MPI_Comm     comm;
  PetscMPIInt  rank, tag, *dest;
  PetscInt     nrecv = 0;
  PetscBool   *keep;
  char        *records, *recvbuf = NULL;

  PetscFunctionBegin;
  PetscCall(DomainGetComm(d, &comm));
  PetscCall(DomainGetTag(d, EXCHANGE_TAG_ROUTE, &tag));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCheck(m->n == cs->n, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "ImpulseMemoryRoute: the memory (%" PetscInt_FMT " entries) must be stored from these contacts (%" PetscInt_FMT ")", m->n, cs->n);
  PetscCall(PetscMalloc2(m->n + 1, &dest, m->n + 1, &keep));
  for (PetscInt i = 0; i < m->n; i++) {
    const PetscInt body = m->key[i].ida >= 0 ? cs->c[i].a : cs->c[i].b; /* the owning body */
    PetscCheck(body >= 0 && body < s->n_owned, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ImpulseMemoryRoute: contact %" PetscInt_FMT " is not owned here (its body %" PetscInt_FMT " is not)", i, body);
    const PetscMPIInt owner = DomainOwnerOfPoint(d, s->pos + 3 * (size_t)body); /* -1: leaves the domain */
    keep[i] = (PetscBool)(owner == rank);
    dest[i] = owner == rank ? -1 : owner;
  }
  PetscCall(PackEntries(m, &records));
  PetscCall(SendToRanks(comm, tag, ROUTE_RECORD, m->n, dest, records, &nrecv, &recvbuf, bytes_sent));
  PetscCall(MergeEntries(m, keep, nrecv, recvbuf));
  PetscCall(PetscFree(recvbuf));
  PetscCall(PetscFree(records));
  PetscCall(PetscFree2(dest, keep));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* id -> directory rank of the rendezvous */
static PetscMPIInt DirectoryOf(int64_t id, PetscMPIInt size) { return (PetscMPIInt)(id % size); }

typedef struct {
  int64_t id, rank;
} IdOwner;

static int CompareIdOwner(const void *pa, const void *pb)
{
  const IdOwner *a = pa, *b = pb;
  return (a->id > b->id) - (a->id < b->id);
}

PetscErrorCode ImpulseMemoryRouteById(Domain d, const BodyStore *s, ImpulseMemory *m, PetscInt64 *bytes_sent)
{
  MPI_Comm     comm;
  PetscMPIInt  rank, size, tag, *dest;
  PetscInt     nowners = 0, nentries = 0, nmine = 0;
  IdOwner     *mine, *owners = NULL;
  char        *records, *entries = NULL, *arrived = NULL;

  PetscFunctionBegin;
  PetscCall(DomainGetComm(d, &comm));
  PetscCall(DomainGetTag(d, EXCHANGE_TAG_ROUTE, &tag));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  /* 1. owners announce their bodies to the directory ranks */
  PetscCall(PetscMalloc2(s->n_owned + 1, &mine, PetscMax(s->n_owned, m->n) + 1, &dest));
  for (PetscInt i = 0; i < s->n_owned; i++) {
    mine[i].id   = s->id[i];
    mine[i].rank = rank;
    dest[i]      = DirectoryOf(s->id[i], size);
  }
  PetscCall(SendToRanks(comm, tag, sizeof(IdOwner), s->n_owned, dest, (const char *)mine, &nowners, (char **)&owners, bytes_sent));
  qsort(owners, (size_t)nowners, sizeof(IdOwner), CompareIdOwner);
  /* 2. entries go to the directory of their owning body */
  for (PetscInt i = 0; i < m->n; i++) dest[i] = DirectoryOf(m->key[i].ida >= 0 ? m->key[i].ida : m->key[i].idb, size);
  PetscCall(PackEntries(m, &records));
  PetscCall(SendToRanks(comm, tag, ROUTE_RECORD, m->n, dest, records, &nentries, &entries, bytes_sent));
  PetscCall(PetscFree(records));
  /* 3. the directory forwards each entry to its body's owner (entries of vanished bodies dropped) */
  PetscCall(PetscFree2(mine, dest));
  PetscCall(PetscMalloc1(nentries + 1, &dest));
  for (PetscInt e = 0; e < nentries; e++) {
    ContactKey key;
    IdOwner    probe, *hit;
    memcpy(&key, entries + ROUTE_RECORD * (size_t)e, sizeof(key));
    probe.id = key.ida >= 0 ? key.ida : key.idb;
    hit      = (IdOwner *)bsearch(&probe, owners, (size_t)nowners, sizeof(IdOwner), CompareIdOwner);
    dest[e]  = hit ? (PetscMPIInt)hit->rank : -1;
  }
  PetscCall(SendToRanks(comm, tag, ROUTE_RECORD, nentries, dest, entries, &nmine, &arrived, bytes_sent));
  PetscCall(MergeEntries(m, NULL, nmine, arrived));
  PetscCall(PetscFree(dest));
  PetscCall(PetscFree(arrived));
  PetscCall(PetscFree(entries));
  PetscCall(PetscFree(owners));
  PetscFunctionReturn(PETSC_SUCCESS);
}
