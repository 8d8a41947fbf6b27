/* Migration, ghost build, owner -> ghost update and ghost -> owner reduce. See exchange.h.
 *
 * Messages: migration goes straight to the new owner (any rank): one reduction tells every rank
 * whether all bodies go next door (then each neighbour pair exchanges one message, probed for its
 * length), else the receivers learn who sends how many bodies from PetscCommBuildTwoSided, then
 * the records travel point to point. Ghosts only
 * travel between neighbours (subdomains at box distance < halo, at most 26 when every subdomain is
 * at least halo wide); every neighbour pair exchanges one message per build even when empty, so a
 * receiver can probe each neighbour in turn. Updates and reduces reuse the plan of the build. */
#include "decomp/exchange.h"
#include <stdlib.h>
#include <string.h>

enum { TAG_MIGRATE, TAG_GHOST, TAG_INDEX, TAG_UPDATE, TAG_REDUCE }; /* EXCHANGE_TAG_ROUTE follows: exchange.h */

/* ---- packing: one record = the selected fields, in X-macro order, without padding ---- */

static size_t PackedSize(ExchangeFields f)
{
  size_t n = 0;
#define FIELD_SIZE(type, name, width) \
  if (f & EXCHANGE_FIELD(name)) n += sizeof(type) * (width);
  BODY_FIELDS(FIELD_SIZE)
#undef FIELD_SIZE
  return n;
}

/* Byte offset of field `bit` in a record packed with all fields. */
static size_t PackedOffset(int bit)
{
  const ExchangeFields before = ((ExchangeFields)1u << bit) - 1u;
  return PackedSize(before);
}

static char *PackBody(const BodyStore *s, PetscInt i, ExchangeFields f, char *p)
{
#define FIELD_PACK(type, name, width) \
  if (f & EXCHANGE_FIELD(name)) { \
    memcpy(p, s->name + (size_t)i * (width), sizeof(type) * (width)); \
    p += sizeof(type) * (width); \
  }
  BODY_FIELDS(FIELD_PACK)
#undef FIELD_PACK
  return p;
}

static const char *UnpackBody(BodyStore *s, PetscInt i, ExchangeFields f, const char *p)
{
#define FIELD_UNPACK(type, name, width) \
  if (f & EXCHANGE_FIELD(name)) { \
    memcpy(s->name + (size_t)i * (width), p, sizeof(type) * (width)); \
    p += sizeof(type) * (width); \
  }
  BODY_FIELDS(FIELD_UNPACK)
#undef FIELD_UNPACK
  return p;
}

/* ---- small helpers ---- */

/* Grow *buf to at least need bytes, keeping its contents. */
static PetscErrorCode GrowBuffer(char **buf, size_t *cap, size_t need)
{
  PetscFunctionBegin;
  if (need <= *cap) PetscFunctionReturn(PETSC_SUCCESS);
  *cap = PetscMax(need, 2 * *cap + 4096);
  PetscCall(PetscRealloc(*cap, buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One message from each neighbour (tag), received in neighbour order (so the layout does not depend
 * on arrival order; every neighbour sends one, so blocking receives cannot deadlock) into *buf
 * (grown as needed, *cap its size): message k at at[k], at[nn] the total. */
static PetscErrorCode RecvFromNeighbors(MPI_Comm comm, PetscMPIInt tag, PetscInt nn, const PetscMPIInt neighbor[], char **buf, size_t *cap, size_t at[])
{
  PetscFunctionBegin;
  at[0] = 0;
  for (PetscInt k = 0; k < nn; k++) {
    MPI_Status  st;
    PetscMPIInt len = 0;
    PetscCallMPI(MPI_Probe(neighbor[k], tag, comm, &st));
    PetscCallMPI(MPI_Get_count(&st, MPI_BYTE, &len));
    PetscCall(GrowBuffer(buf, cap, at[k] + (size_t)len + 1));
    PetscCallMPI(MPI_Recv(*buf + at[k], len, MPI_BYTE, neighbor[k], tag, comm, MPI_STATUS_IGNORE));
    at[k + 1] = at[k] + (size_t)len;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EnsureRequests(Exchange *ex, PetscInt n)
{
  PetscFunctionBegin;
  if (n <= ex->reqcap) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(ex->req));
  ex->reqcap = PetscMax(n, 2 * ex->reqcap);
  PetscCall(PetscMalloc1(ex->reqcap, &ex->req));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An MPI count for a message of `bytes` bytes. */
static PetscErrorCode MessageLength(size_t bytes, PetscMPIInt *len)
{
  PetscFunctionBegin;
  PetscCheck(bytes <= (size_t)PETSC_MPI_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "a message of %zu bytes exceeds MPI's int count; use more ranks", bytes);
  *len = (PetscMPIInt)bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  int64_t  id;
  PetscInt index;
} IdKey;

static int CompareIdKey(const void *pa, const void *pb)
{
  const IdKey *a = pa, *b = pb;
  return (a->id > b->id) - (a->id < b->id);
}

/* Sort keys by id; *dup = 1 if two keys share an id. */
static void SortIds(IdKey *keys, PetscInt n, int *dup)
{
  qsort(keys, (size_t)n, sizeof(*keys), CompareIdKey);
  *dup = 0;
  for (PetscInt i = 1; i < n; i++)
    if (keys[i].id == keys[i - 1].id) *dup = 1;
}

/* Exchange with every neighbour k: send sendbuf[soff[k] .. soff[k+1]) to neighbor[k] and receive
 * recvbuf[roff[k] .. roff[k+1]) from it. Empty segments are skipped on both sides (the plan makes
 * the sizes mirror each other). Adds the bytes sent to *bytes when not NULL. */
static PetscErrorCode NeighborExchange(Exchange *ex, PetscMPIInt tag, const char *sendbuf, const size_t soff[], char *recvbuf, const size_t roff[], PetscInt64 *bytes, PetscInt64 *messages)
{
  PetscMPIInt nreq = 0, len = 0;

  PetscFunctionBegin;
  PetscCall(EnsureRequests(ex, 2 * ex->n_neighbors));
  for (PetscInt k = 0; k < ex->n_neighbors; k++) {
    if (roff[k + 1] == roff[k]) continue;
    PetscCall(MessageLength(roff[k + 1] - roff[k], &len));
    PetscCallMPI(MPI_Irecv(recvbuf + roff[k], len, MPI_BYTE, ex->neighbor[k], tag, ex->comm, &ex->req[nreq++]));
  }
  for (PetscInt k = 0; k < ex->n_neighbors; k++) {
    if (soff[k + 1] == soff[k]) continue;
    PetscCall(MessageLength(soff[k + 1] - soff[k], &len));
    PetscCallMPI(MPI_Isend(sendbuf + soff[k], len, MPI_BYTE, ex->neighbor[k], tag, ex->comm, &ex->req[nreq++]));
    if (bytes) *bytes += len;
    if (messages) (*messages)++;
  }
  PetscCallMPI(MPI_Waitall(nreq, ex->req, MPI_STATUSES_IGNORE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Segment offsets (n_neighbors + 1 entries) for `item` bytes per entry of a CSR start array. */
static PetscErrorCode SegmentOffsets(const Exchange *ex, const PetscInt start[], size_t item, size_t **off)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(ex->n_neighbors + 1, off));
  for (PetscInt k = 0; k <= ex->n_neighbors; k++) (*off)[k] = (size_t)start[k] * item;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FreePlan(Exchange *ex)
{
  PetscFunctionBegin;
  PetscCall(PetscFree3(ex->ghost_owner_rank, ex->ghost_owner_index, ex->ghost_global));
  PetscCall(PetscFree3(ex->shared_start, ex->shared_rank, ex->shared_ghost));
  PetscCall(PetscFree(ex->neighbor));
  PetscCall(PetscFree(ex->send_start));
  PetscCall(PetscFree(ex->send_body));
  PetscCall(PetscFree(ex->recv_start));
  PetscCall(PetscFree(ex->recv_ghost));
  ex->n_owned = ex->n_ghost = ex->n_neighbors = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- public ---- */

PetscErrorCode ExchangeCreate(Exchange *ex)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(ex, sizeof(*ex)));
  ex->comm = MPI_COMM_NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ExchangeDestroy(Exchange *ex)
{
  PetscFunctionBegin;
  PetscCall(FreePlan(ex));
  PetscCall(GhostBondsDestroy(&ex->bonds));
  PetscCall(PetscFree(ex->sendbuf));
  PetscCall(PetscFree(ex->recvbuf));
  PetscCall(PetscFree(ex->req));
  PetscCall(ExchangeCreate(ex));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ExchangeHaloWidth(Domain d, const BodyStore *s, double envelope, double *w)
{
  MPI_Comm comm;
  double   rmax = 0, grmax;

  PetscFunctionBegin;
  PetscCall(DomainGetComm(d, &comm));
  for (PetscInt i = 0; i < s->n_owned; i++) rmax = PetscMax(rmax, s->radius[i]);
  PetscCallMPI(MPI_Allreduce(&rmax, &grmax, 1, MPI_DOUBLE, MPI_MAX, comm));
  *w = 2 * grmax + envelope;
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscMPIInt rank; /* destination, -1 = leaves the domain */
  PetscInt    index;
} Departure;

static int CompareDeparture(const void *pa, const void *pb)
{
  const Departure *a = pa, *b = pb;
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

/* Sort the owned bodies by id. Two with one id are an internal error (ids are unique by
 * construction): checked where it shows, without a reduction. */
static PetscErrorCode SortOwnedById(BodyStore *s)
{
  const PetscInt n = s->n_owned;
  IdKey         *keys;
  PetscInt      *order;
  PetscBool      sorted = PETSC_TRUE;
  int            dup;

  PetscFunctionBegin;
  for (PetscInt i = 1; i < n && sorted; i++) sorted = (PetscBool)(s->id[i - 1] < s->id[i]);
  if (sorted) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc2(n, &keys, n, &order));
  for (PetscInt i = 0; i < n; i++) {
    keys[i].id    = s->id[i];
    keys[i].index = i;
  }
  SortIds(keys, n, &dup);
  for (PetscInt i = 0; i < n; i++) order[i] = keys[i].index;
  PetscCall(BodyStorePermute(s, n, order));
  PetscCall(PetscFree2(keys, order));
  PetscCheck(!dup, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ExchangeMigrate: a body id is owned twice on this rank; ids must be unique");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ExchangeSendRecords(MPI_Comm comm, PetscMPIInt tag, size_t rec, PetscMPIInt nto, const PetscMPIInt toranks[], const PetscMPIInt tocounts[], const char *sendbuf, PetscInt *nrecv, char **recvbuf, PetscInt64 *bytes_sent)
{
  PetscMPIInt  nfrom, *fromranks, *fromcounts, nreq = 0;
  MPI_Datatype rtype;
  MPI_Request *req;
  const char  *q = sendbuf;
  char        *p;

  PetscFunctionBegin;
  PetscCall(PetscCommBuildTwoSided(comm, 1, MPI_INT, nto, toranks, tocounts, &nfrom, &fromranks, &fromcounts));
  PetscCall(PetscSortMPIIntWithArray(nfrom, fromranks, fromcounts));
  *nrecv = 0;
  for (PetscMPIInt k = 0; k < nfrom; k++) *nrecv += fromcounts[k];
  PetscCall(PetscMalloc1((size_t)*nrecv * rec + 1, recvbuf));
  PetscCall(PetscMalloc1(nto + nfrom, &req));
  PetscCallMPI(MPI_Type_contiguous((int)rec, MPI_BYTE, &rtype));
  PetscCallMPI(MPI_Type_commit(&rtype));
  p = *recvbuf;
  for (PetscMPIInt k = 0; k < nfrom; k++) {
    PetscCallMPI(MPI_Irecv(p, fromcounts[k], rtype, fromranks[k], tag, comm, &req[nreq++]));
    p += (size_t)fromcounts[k] * rec;
  }
  for (PetscMPIInt k = 0; k < nto; k++) {
    PetscCallMPI(MPI_Isend(q, tocounts[k], rtype, toranks[k], tag, comm, &req[nreq++]));
    q += (size_t)tocounts[k] * rec;
    if (bytes_sent) *bytes_sent += (PetscInt64)tocounts[k] * (PetscInt64)rec;
  }
  PetscCallMPI(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
  PetscCallMPI(MPI_Type_free(&rtype));
  PetscCall(PetscFree(req));
  PetscCall(PetscFree(fromranks));
  PetscCall(PetscFree(fromcounts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Records in slot order: record i (rec bytes at records + i rec) goes to slot[i] in [0, nslot)
 * (< 0: dropped), in index order per slot (a stable counting sort). *start (nslot + 1 entries,
 * PetscFree it) delimits each slot's records in *sendbuf (PetscFree it). */
static PetscErrorCode PackBySlot(size_t rec, PetscInt n, const PetscMPIInt slot[], const char *records, PetscInt nslot, PetscInt **start, char **sendbuf)
{
  PetscInt *at, nsend = 0;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(nslot + 1, start));
  for (PetscInt i = 0; i < n; i++)
    if (slot[i] >= 0) {
      (*start)[slot[i] + 1]++;
      nsend++;
    }
  for (PetscInt k = 0; k < nslot; k++) (*start)[k + 1] += (*start)[k];
  PetscCall(PetscMalloc1(rec * (size_t)nsend + 1, sendbuf));
  PetscCall(PetscMalloc1(nslot + 1, &at));
  PetscCall(PetscArraycpy(at, *start, nslot + 1));
  for (PetscInt i = 0; i < n; i++)
    if (slot[i] >= 0) memcpy(*sendbuf + rec * (size_t)at[slot[i]]++, records + rec * (size_t)i, rec);
  PetscCall(PetscFree(at));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* See exchange.h. */
PetscErrorCode ExchangeSendToRanks(MPI_Comm comm, PetscMPIInt tag, size_t rec, PetscInt n, const PetscMPIInt dest[], const char *records, PetscInt *nrecv, char **recvbuf, PetscInt64 *bytes)
{
  PetscMPIInt size, nto = 0, *toranks, *tocounts;
  PetscInt   *start;
  char       *sendbuf;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PackBySlot(rec, n, dest, records, size, &start, &sendbuf));
  PetscCall(PetscMalloc2(size, &toranks, size, &tocounts));
  for (PetscMPIInt r = 0; r < size; r++)
    if (start[r + 1] > start[r]) {
      toranks[nto]    = r;
      tocounts[nto++] = (PetscMPIInt)(start[r + 1] - start[r]);
    }
  PetscCall(ExchangeSendRecords(comm, tag, rec, nto, toranks, tocounts, sendbuf, nrecv, recvbuf, bytes));
  PetscCall(PetscFree2(toranks, tocounts));
  PetscCall(PetscFree(sendbuf));
  PetscCall(PetscFree(start));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* See exchange.h. */
PetscErrorCode ExchangeSendToNeighbors(MPI_Comm comm, PetscMPIInt tag, PetscInt nn, const PetscMPIInt neighbor[], size_t rec, PetscInt n, const PetscMPIInt dest[], const char *records, PetscInt *nrecv, char **recvbuf, PetscInt64 *bytes)
{
  PetscMPIInt   *slot, len;
  PetscInt      *start;
  char          *sendbuf;
  MPI_Request   *req;
  size_t        *at, cap = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n + 1, &slot));
  for (PetscInt i = 0; i < n; i++) {
    PetscInt k = -1;
    if (dest[i] >= 0) PetscCall(PetscFindMPIInt(dest[i], nn, neighbor, &k));
    PetscCheck(dest[i] < 0 || k >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "ExchangeSendToNeighbors: record %" PetscInt_FMT " goes to rank %d, not a neighbour; use ExchangeSendToRanks", i, dest[i]);
    slot[i] = (PetscMPIInt)k;
  }
  PetscCall(PackBySlot(rec, n, slot, records, nn, &start, &sendbuf));
  PetscCall(PetscMalloc2(nn + 1, &req, nn + 1, &at));
  for (PetscInt k = 0; k < nn; k++) { /* one message to every neighbour, empty or not: each probes all */
    PetscCall(MessageLength(rec * (size_t)(start[k + 1] - start[k]), &len));
    PetscCallMPI(MPI_Isend(sendbuf + rec * (size_t)start[k], len, MPI_BYTE, neighbor[k], tag, comm, &req[k]));
    if (bytes) *bytes += len;
  }
  *recvbuf = NULL;
  PetscCall(RecvFromNeighbors(comm, tag, nn, neighbor, recvbuf, &cap, at));
  for (PetscInt k = 0; k < nn; k++)
    PetscCheck((at[k + 1] - at[k]) % rec == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ExchangeSendToNeighbors: a message of %zu bytes from rank %d is not a whole number of %zu-byte records", at[k + 1] - at[k], neighbor[k], rec);
  if (!*recvbuf) PetscCall(PetscMalloc1(1, recvbuf)); /* no neighbours: still a buffer to free */
  *nrecv = (PetscInt)(at[nn] / rec);
  PetscCallMPI(MPI_Waitall((PetscMPIInt)nn, req, MPI_STATUSES_IGNORE));
  PetscCall(PetscFree2(req, at));
  PetscCall(PetscFree(sendbuf));
  PetscCall(PetscFree(start));
  PetscCall(PetscFree(slot));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The ranks records may be sent to with ExchangeSendToNeighbors when every destination is among
 * them: the subdomains within the halo (ExchangeBuildGhosts' neighbours), or the adjacent ones
 * before a halo is set. The same r on every rank, so the relation is symmetric. */
static PetscErrorCode NearbyRanks(Domain d, PetscInt *nn, PetscMPIInt **ranks)
{
  double halo;

  PetscFunctionBegin;
  PetscCall(DomainGetHalo(d, &halo));
  PetscCall(DomainGetNeighbors(d, halo > 0 ? halo : PETSC_MACHINE_EPSILON, nn, ranks));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* See exchange.h. */
PetscErrorCode ExchangeDecideMoves(Domain d, const BodyStore *s, ExchangeMoves *mv)
{
  MPI_Comm comm;
  PetscInt local[EXCHANGE_MOVE_COUNTS], global[EXCHANGE_MOVE_COUNTS];

  PetscFunctionBegin;
  PetscCall(DomainGetComm(d, &comm));
  PetscCall(ExchangeMovesLocal(d, s, NULL, 0, local));
  PetscCallMPI(MPI_Allreduce(local, global, EXCHANGE_MOVE_COUNTS, MPIU_INT, MPI_SUM, comm));
  ExchangeMovesFromSums(global, mv);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* See exchange.h. */
PetscErrorCode ExchangeMovesLocal(Domain d, const BodyStore *s, const double x0[], double limit, PetscInt local[EXCHANGE_MOVE_COUNTS])
{
  MPI_Comm     comm;
  PetscMPIInt  rank, *ranks;
  PetscInt     nn;

  PetscFunctionBegin;
  PetscCall(DomainGetComm(d, &comm));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(NearbyRanks(d, &nn, &ranks));
  for (int k = 0; k < EXCHANGE_MOVE_COUNTS; k++) local[k] = 0;
  for (PetscInt i = 0; i < s->n_owned; i++) {
    const double     *x     = s->pos + 3 * i;
    const PetscMPIInt owner = DomainOwnerOfPoint(d, x);
    PetscInt          k     = 0;
    if (owner < 0) local[0]++; /* leaves the domain */
    else if (owner != rank) {
      local[2]++;
      if (!local[1]) { /* one rank outside the neighbourhood is enough to know */
        PetscCall(PetscFindMPIInt(owner, nn, ranks, &k));
        local[1] = k < 0;
      }
    }
    if (x0 && !local[3]) { /* the squared move against the limit's square (no root); a NaN position counts as drifted */
      const double *y  = x0 + 3 * i;
      const double  dx = x[0] - y[0], dy = x[1] - y[1], dz = x[2] - y[2];
      local[3]         = !(dx * dx + dy * dy + dz * dz <= limit * limit);
    }
  }
  PetscCall(PetscFree(ranks));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* See exchange.h. */
void ExchangeMovesFromSums(const PetscInt global[EXCHANGE_MOVE_COUNTS], ExchangeMoves *mv)
{
  mv->removed    = global[0];
  mv->nearby     = (PetscBool)(global[1] == 0);
  mv->moving     = global[2];
  mv->drifted    = (PetscBool)(global[3] > 0);
  mv->keep_order = PETSC_FALSE;
}

/* See exchange.h. */
PetscErrorCode ExchangeSendMoved(Domain d, const ExchangeMoves *mv, PetscMPIInt tag, size_t rec, PetscInt n, const PetscMPIInt dest[], const char *records, PetscInt *nrecv, char **recvbuf, PetscInt64 *bytes)
{
  MPI_Comm     comm;
  PetscInt     nn;
  PetscMPIInt *ranks;

  PetscFunctionBegin;
  PetscCall(DomainGetComm(d, &comm));
  if (!mv->moving) { /* every rank knows that no rank sends */
    PetscCheck(n == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ExchangeSendMoved: %" PetscInt_FMT " records to send although no body changes rank", n);
    *nrecv   = 0;
    *recvbuf = NULL;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!mv->nearby) {
    PetscCall(ExchangeSendToRanks(comm, tag, rec, n, dest, records, nrecv, recvbuf, bytes));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(NearbyRanks(d, &nn, &ranks));
  PetscCall(ExchangeSendToNeighbors(comm, tag, nn, ranks, rec, n, dest, records, nrecv, recvbuf, bytes));
  PetscCall(PetscFree(ranks));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ExchangeMigrate(Domain d, BodyStore *s, PetscInt *removed_global, PetscInt64 *bytes_sent)
{
  ExchangeMoves mv;

  PetscFunctionBegin;
  PetscCall(ExchangeDecideMoves(d, s, &mv));
  PetscCall(ExchangeMigrateMoves(d, s, &mv, bytes_sent));
  if (removed_global) *removed_global = mv.removed;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ExchangeMigrateMoves(Domain d, BodyStore *s, const ExchangeMoves *mv, PetscInt64 *bytes_sent)
{
  const size_t rec = PackedSize(EXCHANGE_FIELDS_ALL);
  MPI_Comm     comm;
  PetscMPIInt  rank, tag, *dest;
  PetscInt     n = s->n_owned, nout = 0, first_sent, nrecv = 0;
  Departure   *out;
  char        *sendbuf, *recvbuf = NULL, *p;
  PetscBool   *leaves;

  PetscFunctionBegin;
  PetscCall(DomainGetComm(d, &comm));
  PetscCall(DomainGetTag(d, TAG_MIGRATE, &tag));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCheck(s->n_ghost == 0, comm, PETSC_ERR_ARG_WRONGSTATE, "ExchangeMigrate: drop the ghosts first (s->n_ghost = 0); they are stale copies once bodies have moved");
  if (!mv->moving && !mv->removed) { /* every body stays where it is */
    if (!mv->keep_order) PetscCall(SortOwnedById(s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  /* who leaves, and where to: sorted by destination (-1 = out of the domain first), then index */
  PetscCall(PetscMalloc2(n, &out, n, &leaves));
  for (PetscInt i = 0; i < n; i++) {
    const PetscMPIInt owner = DomainOwnerOfPoint(d, s->pos + 3 * i);
    leaves[i]               = (PetscBool)(owner != rank);
    if (leaves[i]) {
      out[nout].rank    = owner;
      out[nout++].index = i;
    }
  }
  qsort(out, (size_t)nout, sizeof(*out), CompareDeparture);
  for (first_sent = 0; first_sent < nout && out[first_sent].rank < 0; first_sent++) { }

  PetscCall(PetscMalloc2(nout - first_sent + 1, &dest, (size_t)(nout - first_sent) * rec + 1, &sendbuf));
  p = sendbuf;
  for (PetscInt e = first_sent; e < nout; e++) {
    dest[e - first_sent] = out[e].rank;
    p                    = PackBody(s, out[e].index, EXCHANGE_FIELDS_ALL, p);
  }
  PetscCall(ExchangeSendMoved(d, mv, tag, rec, nout - first_sent, dest, sendbuf, &nrecv, &recvbuf, bytes_sent));

  /* drop the leavers (from the back, so the body swapped in has been looked at), add the arrivals */
  for (PetscInt i = n - 1; i >= 0; i--)
    if (leaves[i]) BodyStoreRemoveOwned(s, i);
  PetscCall(BodyStoreReserve(s, s->n_owned + nrecv));
  p = recvbuf;
  for (PetscInt e = 0; e < nrecv; e++) p = (char *)UnpackBody(s, s->n_owned++, EXCHANGE_FIELDS_ALL, p);
  if (!(mv->keep_order && nout == 0 && nrecv == 0)) PetscCall(SortOwnedById(s));
  PetscCall(PetscFree(recvbuf));
  PetscCall(PetscFree2(dest, sendbuf));
  PetscCall(PetscFree2(out, leaves));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscInt k, body; /* neighbour index, owned storage index */
} Copy;

/* The extra copies of bonded bodies (ExchangeSetBonds): (owned index, rank), sorted by index. */
typedef struct {
  PetscInt     n;
  PetscInt    *index;
  PetscMPIInt *to;
} BondedCopies;

/* Add the bonded ranks to the neighbour list (sorted, unique; the relation stays symmetric since
 * both ends of a bond add each other). */
static PetscErrorCode MergeNeighbors(Exchange *ex, PetscInt npeers, const PetscMPIInt peers[])
{
  PetscMPIInt *all;
  PetscInt     n = 0, a = 0, b = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(ex->n_neighbors + npeers + 1, &all));
  while (a < ex->n_neighbors || b < npeers) {
    const PetscMPIInt r = b >= npeers || (a < ex->n_neighbors && ex->neighbor[a] <= peers[b]) ? ex->neighbor[a] : peers[b];
    all[n++] = r;
    while (a < ex->n_neighbors && ex->neighbor[a] == r) a++;
    while (b < npeers && peers[b] == r) b++;
  }
  PetscCall(PetscFree(ex->neighbor));
  ex->neighbor    = all;
  ex->n_neighbors = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The send plan: for each owned body, the neighbours whose box is within halo of its centre, and
 * the ranks its bonds ask for (once each). */
static PetscErrorCode BuildSendPlan(Domain d, double halo, const BodyStore *s, PetscMPIInt rank, const BondedCopies *bc, Exchange *ex)
{
  PetscInt    ncopy = 0, cap = s->n_owned + bc->n + 16, nn, *fill, next = 0;
  Copy       *copies;
  PetscMPIInt near[27];

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(cap, &copies));
  for (PetscInt i = 0; i < s->n_owned; i++) {
    const PetscInt first = ncopy;
    PetscCall(DomainRanksNearPoint(d, s->pos + 3 * i, halo, 27, near, &nn));
    for (PetscInt e = 0; e < nn + bc->n - next; e++) {
      PetscInt          k;
      const PetscBool   bonded = (PetscBool)(e >= nn);
      const PetscMPIInt to     = bonded ? bc->to[next + e - nn] : near[e];
      PetscBool         dup    = PETSC_FALSE;
      if (bonded && bc->index[next + e - nn] != i) break; /* the bonds of later bodies */
      if (to == rank) continue;
      PetscCall(PetscFindMPIInt(to, ex->n_neighbors, ex->neighbor, &k));
      PetscCheck(k >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "rank %d near a body is not a neighbour", to);
      for (PetscInt c = first; c < ncopy; c++) dup = (PetscBool)(dup || copies[c].k == k); /* the halo sends it already */
      if (dup) continue;
      if (ncopy == cap) {
        cap *= 2;
        PetscCall(PetscRealloc(sizeof(Copy) * (size_t)cap, &copies));
      }
      copies[ncopy].k      = k;
      copies[ncopy++].body = i;
    }
    while (next < bc->n && bc->index[next] == i) next++;
  }
  /* counting sort by neighbour, stable: bodies stay in storage order within a neighbour */
  PetscCall(PetscCalloc1(ex->n_neighbors + 1, &ex->send_start));
  PetscCall(PetscMalloc1(ncopy + 1, &ex->send_body));
  for (PetscInt e = 0; e < ncopy; e++) ex->send_start[copies[e].k + 1]++;
  for (PetscInt k = 0; k < ex->n_neighbors; k++) ex->send_start[k + 1] += ex->send_start[k];
  PetscCall(PetscMalloc1(ex->n_neighbors + 1, &fill));
  PetscCall(PetscArraycpy(fill, ex->send_start, ex->n_neighbors + 1));
  for (PetscInt e = 0; e < ncopy; e++) ex->send_body[fill[copies[e].k]++] = copies[e].body;
  PetscCall(PetscFree(fill));
  PetscCall(PetscFree(copies));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Layout of a ghost message: [owner's owned_offset] then per copied body [record, owner index]. */
static inline size_t GhostItemSize(void) { return PackedSize(EXCHANGE_FIELDS_ALL) + sizeof(PetscInt); }

/* Post one ghost message to every neighbour (even an empty one, so receivers can probe each).
 * The requests are ex->req[0 .. n_neighbors). */
static PetscErrorCode PostGhostSends(Exchange *ex, const BodyStore *s)
{
  const size_t item = GhostItemSize();
  size_t       at   = 0;

  PetscFunctionBegin;
  PetscCall(GrowBuffer(&ex->sendbuf, &ex->sendcap, sizeof(PetscInt) * (size_t)ex->n_neighbors + item * (size_t)ex->send_start[ex->n_neighbors]));
  PetscCall(EnsureRequests(ex, 2 * ex->n_neighbors));
  for (PetscInt k = 0; k < ex->n_neighbors; k++) {
    char       *p = ex->sendbuf + at;
    PetscMPIInt len = 0;
    memcpy(p, &ex->owned_offset, sizeof(PetscInt));
    p += sizeof(PetscInt);
    for (PetscInt e = ex->send_start[k]; e < ex->send_start[k + 1]; e++) {
      p = PackBody(s, ex->send_body[e], EXCHANGE_FIELDS_ALL, p);
      memcpy(p, &ex->send_body[e], sizeof(PetscInt));
      p += sizeof(PetscInt);
    }
    PetscCall(MessageLength((size_t)(p - (ex->sendbuf + at)), &len));
    PetscCallMPI(MPI_Isend(ex->sendbuf + at, len, MPI_BYTE, ex->neighbor[k], ex->tag_ghost, ex->comm, &ex->req[k]));
    at += (size_t)len;
    ex->build_bytes_sent += len;
    ex->build_messages_sent++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Receive every neighbour's ghost message, in rank order, into ex->recvbuf (the sends are posted,
 * so blocking receives cannot deadlock). Sets ex->recv_start and msg_at[k], the offset of
 * neighbour k's message. */
static PetscErrorCode ReceiveGhosts(Exchange *ex, size_t msg_at[])
{
  const size_t item = GhostItemSize();

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(ex->n_neighbors + 1, &ex->recv_start));
  PetscCall(RecvFromNeighbors(ex->comm, ex->tag_ghost, ex->n_neighbors, ex->neighbor, &ex->recvbuf, &ex->recvcap, msg_at));
  ex->recv_start[0] = 0;
  for (PetscInt k = 0; k < ex->n_neighbors; k++) {
    const size_t len = msg_at[k + 1] - msg_at[k];
    PetscCheck(len >= sizeof(PetscInt) && (len - sizeof(PetscInt)) % item == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ghost message of %zu bytes from rank %d is not a whole number of bodies", len, ex->neighbor[k]);
    ex->recv_start[k + 1] = ex->recv_start[k] + (PetscInt)((len - sizeof(PetscInt)) / item);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  int64_t     id;
  PetscInt    k;  /* neighbour it came from */
  PetscInt    q;  /* item number over all messages (recv_start[k] + position in message) */
  const char *at; /* its packed record */
} Arrival;

static int CompareArrival(const void *pa, const void *pb)
{
  const Arrival *a = pa, *b = pb;
  return (a->id > b->id) - (a->id < b->id);
}

/* Append the received bodies to s as ghosts in id order, and fill the ghost -> owner maps and
 * recv_ghost (item q of the messages -> ghost index). */
static PetscErrorCode PlaceGhosts(Exchange *ex, BodyStore *s, const size_t msg_at[])
{
  const size_t   rec = PackedSize(EXCHANGE_FIELDS_ALL), item = GhostItemSize(), id_at = PackedOffset(EXCHANGE_FIELD_BIT_id);
  const PetscInt ng  = ex->recv_start[ex->n_neighbors];
  Arrival       *arr;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(ng + 1, &arr));
  for (PetscInt k = 0; k < ex->n_neighbors; k++)
    for (PetscInt q = ex->recv_start[k]; q < ex->recv_start[k + 1]; q++) {
      Arrival *a = &arr[q];
      a->k       = k;
      a->q       = q;
      a->at      = ex->recvbuf + msg_at[k] + sizeof(PetscInt) + (size_t)(q - ex->recv_start[k]) * item;
      memcpy(&a->id, a->at + id_at, sizeof(int64_t));
    }
  qsort(arr, (size_t)ng, sizeof(*arr), CompareArrival);
  for (PetscInt g = 1; g < ng; g++)
    PetscCheck(arr[g].id != arr[g - 1].id, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ExchangeBuildGhosts: body id %lld arrived twice as a ghost; ids must be unique and each body owned once", (long long)arr[g].id);
  PetscCall(BodyStoreReserve(s, s->n_owned + ng));
  PetscCall(PetscMalloc3(ng + 1, &ex->ghost_owner_rank, ng + 1, &ex->ghost_owner_index, ng + 1, &ex->ghost_global));
  PetscCall(PetscMalloc1(ng + 1, &ex->recv_ghost));
  for (PetscInt g = 0; g < ng; g++) {
    const Arrival *a = &arr[g];
    PetscInt       owner_offset;
    memcpy(&owner_offset, ex->recvbuf + msg_at[a->k], sizeof(PetscInt));
    UnpackBody(s, s->n_owned + g, EXCHANGE_FIELDS_ALL, a->at);
    memcpy(&ex->ghost_owner_index[g], a->at + rec, sizeof(PetscInt));
    ex->ghost_owner_rank[g] = ex->neighbor[a->k];
    ex->ghost_global[g]     = owner_offset + ex->ghost_owner_index[g];
    ex->recv_ghost[a->q]    = g;
  }
  s->n_ghost  = ng;
  ex->n_owned = s->n_owned;
  ex->n_ghost = ng;
  PetscCall(PetscFree(arr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Tell the owners where their copies landed (the reply mirrors the plan: recv -> send), and build
 * the owned -> copies CSR; neighbours in rank order give increasing ranks per body. */
static PetscErrorCode BuildCopyLists(Exchange *ex)
{
  const PetscInt nsent = ex->send_start[ex->n_neighbors];
  PetscInt      *reply, *fill;
  size_t        *soff, *roff;

  PetscFunctionBegin;
  PetscCall(SegmentOffsets(ex, ex->recv_start, sizeof(PetscInt), &soff));
  PetscCall(SegmentOffsets(ex, ex->send_start, sizeof(PetscInt), &roff));
  PetscCall(PetscMalloc1(nsent + 1, &reply));
  PetscCall(NeighborExchange(ex, ex->tag_index, (const char *)ex->recv_ghost, soff, (char *)reply, roff, &ex->build_bytes_sent, &ex->build_messages_sent));
  PetscCall(PetscMalloc3(ex->n_owned + 1, &ex->shared_start, nsent + 1, &ex->shared_rank, nsent + 1, &ex->shared_ghost));
  PetscCall(PetscArrayzero(ex->shared_start, ex->n_owned + 1));
  for (PetscInt e = 0; e < nsent; e++) ex->shared_start[ex->send_body[e] + 1]++;
  for (PetscInt i = 0; i < ex->n_owned; i++) ex->shared_start[i + 1] += ex->shared_start[i];
  PetscCall(PetscMalloc1(ex->n_owned + 1, &fill));
  PetscCall(PetscArraycpy(fill, ex->shared_start, ex->n_owned + 1));
  for (PetscInt k = 0; k < ex->n_neighbors; k++)
    for (PetscInt e = ex->send_start[k]; e < ex->send_start[k + 1]; e++) {
      const PetscInt at    = fill[ex->send_body[e]]++;
      ex->shared_rank[at]  = ex->neighbor[k];
      ex->shared_ghost[at] = reply[e];
    }
  PetscCall(PetscFree(fill));
  PetscCall(PetscFree(reply));
  PetscCall(PetscFree(soff));
  PetscCall(PetscFree(roff));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The preconditions of a build, agreed on by all ranks (bodies in place, one halo; wide enough
 * subdomains: DomainSetHalo), and the owned offset, from one collective: each rank's (misplaced
 * bodies?, halo, owned count), gathered instead of a reduction and a scan (one round, not two; 24
 * bytes a rank). Counts travel as doubles: exact below 2^53. */
static PetscErrorCode CheckPlacedAndCount(Domain d, MPI_Comm comm, double halo, const BodyStore *s, PetscInt *offset)
{
  PetscMPIInt rank, size;
  double      mine[3], *all, misplaced = 0, hmin = halo, hmax = halo;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  mine[0] = 0;
  for (PetscInt i = 0; i < s->n_owned; i++)
    if (DomainOwnerOfPoint(d, s->pos + 3 * i) != rank) mine[0] = 1;
  mine[1] = halo;
  mine[2] = (double)s->n_owned;
  PetscCall(PetscMalloc1(3 * (size_t)size, &all));
  PetscCallMPI(MPI_Allgather(mine, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, comm));
  *offset = 0;
  for (PetscMPIInt r = 0; r < size; r++) {
    misplaced = PetscMax(misplaced, all[3 * r]);
    hmin      = PetscMin(hmin, all[3 * r + 1]);
    hmax      = PetscMax(hmax, all[3 * r + 1]);
    if (r < rank) *offset += (PetscInt)all[3 * r + 2];
  }
  PetscCall(PetscFree(all));
  PetscCheck(misplaced == 0, comm, PETSC_ERR_ARG_WRONGSTATE, "ExchangeBuildGhosts: some owned bodies lie outside their rank's subdomain; call ExchangeMigrate first");
  PetscCheck(hmin == hmax, comm, PETSC_ERR_ARG_INCOMP, "ExchangeBuildGhosts: the ranks passed different halo widths (%g to %g); compute it with ExchangeHaloWidth", hmin, hmax);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ExchangeBuildGhosts(Domain d, double halo, BodyStore *s, Exchange *ex)
{
  MPI_Comm    comm;
  PetscMPIInt rank;
  PetscInt    nown = s->n_owned, offset = 0;
  size_t     *msg_at;

  PetscFunctionBegin;
  PetscCall(DomainGetComm(d, &comm));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  s->n_ghost = 0;
  if (ex->counts_kept) { /* what the caller vouches for, checked where it shows */
    double last_halo;
    PetscCall(DomainGetHalo(d, &last_halo));
    PetscCheck(ex->comm == comm && ex->n_owned == nown && last_halo == halo, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
               "ExchangeBuildGhosts: counts_kept, but %" PetscInt_FMT " owned bodies and halo %g now, %" PetscInt_FMT " and %g at the last build", nown, halo, ex->n_owned, last_halo);
    offset = ex->owned_offset;
  } else PetscCall(CheckPlacedAndCount(d, comm, halo, s, &offset));
  PetscCall(DomainSetHalo(d, halo));

  PetscCall(FreePlan(ex));
  ex->comm = comm;
  PetscCall(DomainGetTag(d, TAG_GHOST, &ex->tag_ghost));
  PetscCall(DomainGetTag(d, TAG_INDEX, &ex->tag_index));
  PetscCall(DomainGetTag(d, TAG_UPDATE, &ex->tag_update));
  PetscCall(DomainGetTag(d, TAG_REDUCE, &ex->tag_reduce));
  ex->build_bytes_sent = ex->build_messages_sent = 0;
  ex->owned_offset                               = offset;
  PetscCall(DomainGetNeighbors(d, halo, &ex->n_neighbors, &ex->neighbor));
  {
    BondedCopies bc = {0, NULL, NULL};
    PetscInt     npeers = 0;
    PetscMPIInt *peers  = NULL;
    if (ex->bonds.n) {
      PetscCall(GhostBondsFindOwners(&ex->bonds, comm, rank, s));
      PetscCall(GhostBondsCopies(&ex->bonds, rank, &bc.n, &bc.index, &bc.to, &npeers, &peers));
      PetscCall(MergeNeighbors(ex, npeers, peers));
    }
    PetscCall(BuildSendPlan(d, halo, s, rank, &bc, ex));
    if (ex->bonds.n) PetscCall(PetscFree3(bc.index, bc.to, peers));
  }

  PetscCall(PetscMalloc1(ex->n_neighbors + 1, &msg_at));
  PetscCall(PostGhostSends(ex, s));
  PetscCall(ReceiveGhosts(ex, msg_at));
  PetscCallMPI(MPI_Waitall((PetscMPIInt)ex->n_neighbors, ex->req, MPI_STATUSES_IGNORE));
  PetscCall(PlaceGhosts(ex, s, msg_at));
  PetscCall(PetscFree(msg_at));
  if (!ex->skip_copy_lists) PetscCall(BuildCopyLists(ex)); /* the replies cost a round: only for those who read them */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ExchangeSetBonds(Exchange *ex, PetscInt n, const GhostBond bonds[])
{
  PetscFunctionBegin;
  PetscCall(GhostBondsSet(&ex->bonds, n, bonds));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckPlan(const Exchange *ex, PetscInt n_owned, PetscInt n_ghost)
{
  PetscFunctionBegin;
  PetscCheck(ex->comm != MPI_COMM_NULL, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Exchange: call ExchangeBuildGhosts first");
  PetscCheck(n_owned == ex->n_owned && n_ghost == ex->n_ghost, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Exchange: the store has %" PetscInt_FMT " owned and %" PetscInt_FMT " ghost bodies but the ghosts were built for %" PetscInt_FMT " and %" PetscInt_FMT "; rebuild them (ExchangeBuildGhosts)", n_owned, n_ghost, ex->n_owned, ex->n_ghost);
  PetscFunctionReturn(PETSC_SUCCESS);
}

size_t ExchangeFieldsBytes(ExchangeFields fields) { return PackedSize(fields); }

PetscErrorCode ExchangeUpdateGhosts(Exchange *ex, BodyStore *s, ExchangeFields fields)
{
  const size_t item = PackedSize(fields);
  size_t      *soff, *roff;
  char        *p;

  PetscFunctionBegin;
  PetscCall(CheckPlan(ex, s->n_owned, s->n_ghost));
  PetscCheck((fields & ~EXCHANGE_FIELDS_ALL) == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "ExchangeUpdateGhosts: fields 0x%x has bits that are no BodyStore field", fields);
  PetscCall(SegmentOffsets(ex, ex->send_start, item, &soff));
  PetscCall(SegmentOffsets(ex, ex->recv_start, item, &roff));
  PetscCall(GrowBuffer(&ex->sendbuf, &ex->sendcap, soff[ex->n_neighbors]));
  PetscCall(GrowBuffer(&ex->recvbuf, &ex->recvcap, roff[ex->n_neighbors]));
  p = ex->sendbuf;
  for (PetscInt e = 0; e < ex->send_start[ex->n_neighbors]; e++) p = PackBody(s, ex->send_body[e], fields, p);
  PetscCall(NeighborExchange(ex, ex->tag_update, ex->sendbuf, soff, ex->recvbuf, roff, NULL, NULL));
  p = ex->recvbuf;
  for (PetscInt q = 0; q < ex->recv_start[ex->n_neighbors]; q++) p = (char *)UnpackBody(s, s->n_owned + ex->recv_ghost[q], fields, p);
  PetscCall(PetscFree(soff));
  PetscCall(PetscFree(roff));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ExchangeUpdateArray(Exchange *ex, PetscInt width, double a[])
{
  const size_t item = sizeof(double) * (size_t)width;
  size_t      *soff, *roff;
  double      *v;

  PetscFunctionBegin;
  PetscCall(CheckPlan(ex, ex->n_owned, ex->n_ghost));
  PetscCall(SegmentOffsets(ex, ex->send_start, item, &soff));
  PetscCall(SegmentOffsets(ex, ex->recv_start, item, &roff));
  PetscCall(GrowBuffer(&ex->sendbuf, &ex->sendcap, soff[ex->n_neighbors]));
  PetscCall(GrowBuffer(&ex->recvbuf, &ex->recvcap, roff[ex->n_neighbors]));
  v = (double *)ex->sendbuf;
  for (PetscInt e = 0; e < ex->send_start[ex->n_neighbors]; e++, v += width) PetscCall(PetscArraycpy(v, a + (size_t)ex->send_body[e] * width, width));
  PetscCall(NeighborExchange(ex, ex->tag_update, ex->sendbuf, soff, ex->recvbuf, roff, NULL, NULL));
  v = (double *)ex->recvbuf;
  for (PetscInt q = 0; q < ex->recv_start[ex->n_neighbors]; q++, v += width) PetscCall(PetscArraycpy(a + (size_t)(ex->n_owned + ex->recv_ghost[q]) * width, v, width));
  PetscCall(PetscFree(soff));
  PetscCall(PetscFree(roff));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ExchangeReduceArray(Exchange *ex, PetscInt width, double a[])
{
  const size_t item = sizeof(double) * (size_t)width;
  size_t      *soff, *roff;
  double      *v;

  PetscFunctionBegin;
  PetscCall(CheckPlan(ex, ex->n_owned, ex->n_ghost));
  PetscCall(SegmentOffsets(ex, ex->recv_start, item, &soff)); /* the plan, reversed */
  PetscCall(SegmentOffsets(ex, ex->send_start, item, &roff));
  PetscCall(GrowBuffer(&ex->sendbuf, &ex->sendcap, soff[ex->n_neighbors]));
  PetscCall(GrowBuffer(&ex->recvbuf, &ex->recvcap, roff[ex->n_neighbors]));
  v = (double *)ex->sendbuf;
  for (PetscInt q = 0; q < ex->recv_start[ex->n_neighbors]; q++, v += width) PetscCall(PetscArraycpy(v, a + (size_t)(ex->n_owned + ex->recv_ghost[q]) * width, width));
  PetscCall(NeighborExchange(ex, ex->tag_reduce, ex->sendbuf, soff, ex->recvbuf, roff, NULL, NULL));
  v = (double *)ex->recvbuf; /* neighbours by rank, then message order: a fixed summation order */
  for (PetscInt e = 0; e < ex->send_start[ex->n_neighbors]; e++, v += width)
    for (PetscInt c = 0; c < width; c++) a[(size_t)ex->send_body[e] * width + c] += v[c];
  PetscCall(PetscFree(soff));
  PetscCall(PetscFree(roff));
  PetscFunctionReturn(PETSC_SUCCESS);
}
