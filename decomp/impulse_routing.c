/* See impulse_routing.h. */
#include "decomp/impulse_routing.h"
#include "decomp/messages.h"
#include <stdlib.h>
#include <string.h>

/* A route record: the key, then the memory's record (m->width doubles: impulses or penalty history). */
static size_t RouteRecord(const ImpulseMemory *m) { return sizeof(ContactKey) + (size_t)m->width * sizeof(double); }

/* The memory's entries with dest[i] >= 0 as route records (key, then the record), compacted in
 * index order with their destinations in *to; *n of them. */
static PetscErrorCode PackEntries(const ImpulseMemory *m, const PetscMPIInt dest[], char **records, PetscMPIInt **to,
                                  PetscInt *n)
{
  const size_t rec = RouteRecord(m), w = (size_t)m->width;

  PetscFunctionBegin;
  *n = 0;
  for (PetscInt i = 0; i < m->n; i++) *n += dest[i] >= 0;
  PetscCall(PetscMalloc1(rec * (size_t)*n + 1, records));
  PetscCall(PetscMalloc1(*n + 1, to));
  for (PetscInt i = 0, k = 0; i < m->n; i++) {
    if (dest[i] < 0) continue;
    memcpy(*records + rec * (size_t)k, &m->key[i], sizeof(ContactKey));
    memcpy(*records + rec * (size_t)k + sizeof(ContactKey), m->gamma + w * i, w * sizeof(double));
    (*to)[k++] = dest[i];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* m <- the kept entries (keep[i]) and n received route records, sorted by key. */
static PetscErrorCode MergeEntries(ImpulseMemory *m, const PetscBool *keep, PetscInt n, const char *records)
{
  const size_t rec = RouteRecord(m), w = (size_t)m->width;
  PetscInt     nkeep = 0;
  ContactKey  *key;
  double      *gamma;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(m->n + n + 1, &key, (size_t)(m->n + n + 1) * w, &gamma));
  for (PetscInt i = 0; keep && i < m->n; i++) {
    if (!keep[i]) continue;
    key[nkeep] = m->key[i];
    memcpy(gamma + w * nkeep++, m->gamma + w * i, w * sizeof(double));
  }
  for (PetscInt e = 0; e < n; e++) {
    memcpy(&key[nkeep], records + rec * (size_t)e, sizeof(ContactKey));
    memcpy(gamma + w * nkeep++, records + rec * (size_t)e + sizeof(ContactKey), w * sizeof(double));
  }
  PetscCall(ImpulseMemorySet(m, nkeep, key, gamma));
  PetscCall(PetscFree2(key, gamma));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ImpulseMemoryRoute(Domain d, const BodyStore *s, const ContactSet *cs, const ExchangeMoves *mv,
                                  ImpulseMemory *m, PetscInt64 *bytes_sent)
{
  MPI_Comm    comm;
  PetscMPIInt rank, tag, *dest, *to;
  PetscInt    nrecv = 0, nsend;
  PetscBool  *keep;
  char       *records, *recvbuf = NULL;

  PetscFunctionBegin;
  PetscCall(DomainGetComm(d, &comm));
  PetscCall(DomainGetTag(d, EXCHANGE_TAG_ROUTE, &tag));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCheck(m->n == cs->n, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "ImpulseMemoryRoute: the memory (%" PetscInt_FMT
             " entries) must be stored from these contacts (%" PetscInt_FMT ")",
             m->n, cs->n);
  if (!mv->moving && !mv->removed) PetscFunctionReturn(PETSC_SUCCESS); /* every body stays: so does every entry */
  PetscCall(PetscMalloc2(m->n + 1, &dest, m->n + 1, &keep));
  for (PetscInt i = 0; i < m->n; i++) {
    const PetscInt body = m->key[i].ida >= 0 ? cs->c[i].a : cs->c[i].b; /* the owning body */
    PetscCheck(body >= 0 && body < s->n_owned, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "ImpulseMemoryRoute: contact %" PetscInt_FMT " is not owned here (its body %" PetscInt_FMT " is not)", i,
               body);
    const PetscMPIInt owner = DomainOwnerOfPoint(d, s->pos + 3 * (size_t)body); /* -1: leaves the domain */
    keep[i]                 = (PetscBool)(owner == rank);
    dest[i]                 = owner == rank ? -1 : owner;
  }
  PetscCall(PackEntries(m, dest, &records, &to, &nsend));
  PetscCall(ExchangeSendMoved(d, mv, tag, RouteRecord(m), nsend, to, records, &nrecv, &recvbuf,
                              bytes_sent)); /* entries go where their bodies will: mv covers them */
  if (nsend || nrecv) PetscCall(MergeEntries(m, keep, nrecv, recvbuf)); /* else every entry stays: m is unchanged */
  PetscCall(PetscFree(recvbuf));
  PetscCall(PetscFree(records));
  PetscCall(PetscFree(to));
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
  MPI_Comm    comm;
  PetscMPIInt rank, size, tag, *dest, *to;
  PetscInt    nowners = 0, nentries = 0, nmine = 0, nsend;
  IdOwner    *mine, *owners     = NULL;
  char       *records, *entries = NULL, *arrived = NULL;

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
  PetscCall(ExchangeSendToRanks(comm, tag, sizeof(IdOwner), s->n_owned, dest, (const char *)mine, &nowners,
                                (char **)&owners, bytes_sent));
  qsort(owners, (size_t)nowners, sizeof(IdOwner), CompareIdOwner);
  /* 2. entries go to the directory of their owning body */
  for (PetscInt i = 0; i < m->n; i++) dest[i] = DirectoryOf(m->key[i].ida >= 0 ? m->key[i].ida : m->key[i].idb, size);
  PetscCall(PackEntries(m, dest, &records, &to, &nsend));
  PetscCall(ExchangeSendToRanks(comm, tag, RouteRecord(m), nsend, to, records, &nentries, &entries, bytes_sent));
  PetscCall(PetscFree(records));
  PetscCall(PetscFree(to));
  /* 3. the directory forwards each entry to its body's owner (entries of vanished bodies dropped) */
  PetscCall(PetscFree2(mine, dest));
  PetscCall(PetscMalloc1(nentries + 1, &dest));
  for (PetscInt e = 0; e < nentries; e++) {
    ContactKey key;
    IdOwner    probe, *hit;
    memcpy(&key, entries + RouteRecord(m) * (size_t)e, sizeof(key));
    probe.id = key.ida >= 0 ? key.ida : key.idb;
    hit      = (IdOwner *)bsearch(&probe, owners, (size_t)nowners, sizeof(IdOwner), CompareIdOwner);
    dest[e]  = hit ? (PetscMPIInt)hit->rank : -1;
  }
  PetscCall(ExchangeSendToRanks(comm, tag, RouteRecord(m), nentries, dest, entries, &nmine, &arrived, bytes_sent));
  PetscCall(MergeEntries(m, NULL, nmine, arrived));
  PetscCall(PetscFree(dest));
  PetscCall(PetscFree(arrived));
  PetscCall(PetscFree(entries));
  PetscCall(PetscFree(owners));
  PetscFunctionReturn(PETSC_SUCCESS);
}
