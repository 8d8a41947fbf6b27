/* Ghosts: the build of the ghost layer and its maps, owner -> ghost updates and ghost -> owner
 * sums. See ghosts.h.
 *
 * Messages: ghosts only travel between neighbours (subdomains at box distance < halo, at most 26
 * when every subdomain is at least halo wide); every neighbour pair exchanges one message per build
 * even when empty, so a receiver can probe each neighbour in turn. Updates and reduces reuse the
 * plan of the build. */
#include "decomp/ghosts.h"
#include <stdlib.h>
#include <string.h>

/* One round along the plan, item bytes per copy: segment k of the CSR start array out (send_start
 * owner -> ghost, recv_start ghost -> owner) from sendbuf to neighbor[k], segment k of in from it
 * into recvbuf. *bytes and *messages (may be NULL) grow by what this rank sent. */
static PetscErrorCode PlanRound(Exchange *ex, PetscMPIInt tag, const PetscInt out[], const PetscInt in[], size_t item,
                                const char *sendbuf, char *recvbuf, PetscInt64 *bytes, PetscInt64 *messages)
{
  const PetscInt nn = ex->n_neighbors;
  size_t        *soff, *roff;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(nn + 1, &soff, nn + 1, &roff));
  for (PetscInt k = 0; k <= nn; k++) {
    soff[k] = (size_t)out[k] * item;
    roff[k] = (size_t)in[k] * item;
  }
  PetscCall(MessageExchangeSegments(ex->comm, tag, nn, ex->neighbor, &ex->buffers, sendbuf, soff, recvbuf, roff, bytes,
                                    messages));
  PetscCall(PetscFree2(soff, roff));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ex's buffers grown for a PlanRound of item bytes per copy along out and in. */
static PetscErrorCode PlanBuffers(Exchange *ex, const PetscInt out[], const PetscInt in[], size_t item)
{
  PetscFunctionBegin;
  PetscCall(MessageBufferGrow(&ex->buffers.sendbuf, &ex->buffers.sendcap, (size_t)out[ex->n_neighbors] * item));
  PetscCall(MessageBufferGrow(&ex->buffers.recvbuf, &ex->buffers.recvcap, (size_t)in[ex->n_neighbors] * item));
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
  *ex = (Exchange){.comm = MPI_COMM_NULL};
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ExchangeDestroy(Exchange *ex)
{
  PetscFunctionBegin;
  PetscCall(FreePlan(ex));
  PetscCall(GhostBondsDestroy(&ex->bonds));
  PetscCall(MessageBuffersDestroy(&ex->buffers));
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
    const PetscBool   from_a = (PetscBool)(b >= npeers || (a < ex->n_neighbors && ex->neighbor[a] <= peers[b]));
    const PetscMPIInt r      = from_a ? ex->neighbor[a] : peers[b];
    all[n++]                 = r;
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
static PetscErrorCode BuildSendPlan(Domain d, double halo, const BodyStore *s, PetscMPIInt rank, const BondedCopies *bc,
                                    Exchange *ex)
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
      for (PetscInt c = first; c < ncopy; c++) /* the halo sends it already */
        dup = (PetscBool)(dup || copies[c].k == k);
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
static inline size_t GhostItemSize(void) { return ExchangeFieldsBytes(EXCHANGE_FIELDS_ALL) + sizeof(PetscInt); }

/* Post one ghost message to every neighbour (even an empty one, so receivers can probe each).
 * The requests are ex->buffers.req[0 .. n_neighbors). */
static PetscErrorCode PostGhostSends(Exchange *ex, const BodyStore *s)
{
  const size_t item = GhostItemSize();
  const size_t need = sizeof(PetscInt) * (size_t)ex->n_neighbors + item * (size_t)ex->send_start[ex->n_neighbors];
  size_t       at   = 0;

  PetscFunctionBegin;
  PetscCall(MessageBufferGrow(&ex->buffers.sendbuf, &ex->buffers.sendcap, need));
  PetscCall(MessageBuffersReserveRequests(&ex->buffers, 2 * ex->n_neighbors));
  for (PetscInt k = 0; k < ex->n_neighbors; k++) {
    char       *p   = ex->buffers.sendbuf + at;
    PetscMPIInt len = 0;
    memcpy(p, &ex->owned_offset, sizeof(PetscInt));
    p += sizeof(PetscInt);
    for (PetscInt e = ex->send_start[k]; e < ex->send_start[k + 1]; e++) {
      p = ExchangePackBody(s, ex->send_body[e], EXCHANGE_FIELDS_ALL, p);
      memcpy(p, &ex->send_body[e], sizeof(PetscInt));
      p += sizeof(PetscInt);
    }
    PetscCall(MessageLength((size_t)(p - (ex->buffers.sendbuf + at)), &len));
    PetscCallMPI(MPI_Isend(ex->buffers.sendbuf + at, len, MPI_BYTE, ex->neighbor[k], ex->tag_ghost, ex->comm,
                           &ex->buffers.req[k]));
    at += (size_t)len;
    ex->build_bytes_sent += len;
    ex->build_messages_sent++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Receive every neighbour's ghost message, in rank order, into ex->buffers.recvbuf (the sends are posted,
 * so blocking receives cannot deadlock). Sets ex->recv_start and msg_at[k], the offset of
 * neighbour k's message. */
static PetscErrorCode ReceiveGhosts(Exchange *ex, size_t msg_at[])
{
  const size_t item = GhostItemSize();

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(ex->n_neighbors + 1, &ex->recv_start));
  PetscCall(MessageRecvFromNeighbors(ex->comm, ex->tag_ghost, ex->n_neighbors, ex->neighbor, &ex->buffers.recvbuf,
                                     &ex->buffers.recvcap, msg_at));
  ex->recv_start[0] = 0;
  for (PetscInt k = 0; k < ex->n_neighbors; k++) {
    const size_t len = msg_at[k + 1] - msg_at[k];
    PetscCheck(len >= sizeof(PetscInt) && (len - sizeof(PetscInt)) % item == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "ghost message of %zu bytes from rank %d is not a whole number of bodies", len, ex->neighbor[k]);
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
  const size_t   rec = ExchangeFieldsBytes(EXCHANGE_FIELDS_ALL), item = GhostItemSize();
  const size_t   id_at = ExchangeFieldOffset(EXCHANGE_FIELD_BIT_id);
  const PetscInt ng    = ex->recv_start[ex->n_neighbors];
  Arrival       *arr;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(ng + 1, &arr));
  for (PetscInt k = 0; k < ex->n_neighbors; k++)
    for (PetscInt q = ex->recv_start[k]; q < ex->recv_start[k + 1]; q++) {
      Arrival *a = &arr[q];
      a->k       = k;
      a->q       = q;
      a->at      = ex->buffers.recvbuf + msg_at[k] + sizeof(PetscInt) + (size_t)(q - ex->recv_start[k]) * item;
      memcpy(&a->id, a->at + id_at, sizeof(int64_t));
    }
  qsort(arr, (size_t)ng, sizeof(*arr), CompareArrival);
  for (PetscInt g = 1; g < ng; g++)
    PetscCheck(arr[g].id != arr[g - 1].id, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "ExchangeBuildGhosts: body id %lld arrived twice as a ghost; "
               "ids must be unique and each body owned once",
               (long long)arr[g].id);
  PetscCall(BodyStoreReserve(s, s->n_owned + ng));
  PetscCall(PetscMalloc3(ng + 1, &ex->ghost_owner_rank, ng + 1, &ex->ghost_owner_index, ng + 1, &ex->ghost_global));
  PetscCall(PetscMalloc1(ng + 1, &ex->recv_ghost));
  for (PetscInt g = 0; g < ng; g++) {
    const Arrival *a = &arr[g];
    PetscInt       owner_offset;
    memcpy(&owner_offset, ex->buffers.recvbuf + msg_at[a->k], sizeof(PetscInt));
    ExchangeUnpackBody(s, s->n_owned + g, EXCHANGE_FIELDS_ALL, a->at);
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

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nsent + 1, &reply));
  PetscCall(PlanRound(ex, ex->tag_index, ex->recv_start, ex->send_start, sizeof(PetscInt), (const char *)ex->recv_ghost,
                      (char *)reply, &ex->build_bytes_sent, &ex->build_messages_sent)); /* the plan, reversed */
  PetscCall(
    PetscMalloc3(ex->n_owned + 1, &ex->shared_start, nsent + 1, &ex->shared_rank, nsent + 1, &ex->shared_ghost));
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
  PetscCheck(misplaced == 0, comm, PETSC_ERR_ARG_WRONGSTATE,
             "ExchangeBuildGhosts: some owned bodies lie outside their rank's subdomain; call ExchangeMigrate first");
  PetscCheck(hmin == hmax, comm, PETSC_ERR_ARG_INCOMP,
             "ExchangeBuildGhosts: the ranks passed different halo widths (%g to %g); "
             "compute it with ExchangeHaloWidth",
             hmin, hmax);
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
               "ExchangeBuildGhosts: counts_kept, but %" PetscInt_FMT " owned bodies and halo %g now, %" PetscInt_FMT
               " and %g at the last build",
               nown, halo, ex->n_owned, last_halo);
    offset = ex->owned_offset;
  } else PetscCall(CheckPlacedAndCount(d, comm, halo, s, &offset));
  PetscCall(DomainSetHalo(d, halo));

  PetscCall(FreePlan(ex));
  ex->comm = comm;
  PetscCall(DomainGetTag(d, EXCHANGE_TAG_GHOST, &ex->tag_ghost));
  PetscCall(DomainGetTag(d, EXCHANGE_TAG_INDEX, &ex->tag_index));
  PetscCall(DomainGetTag(d, EXCHANGE_TAG_UPDATE, &ex->tag_update));
  PetscCall(DomainGetTag(d, EXCHANGE_TAG_REDUCE, &ex->tag_reduce));
  ex->build_bytes_sent = ex->build_messages_sent = 0;
  ex->owned_offset                               = offset;
  PetscCheck(ex->lag == 0 || ex->counts_kept, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "ExchangeBuildGhosts: a lag (owners lagging behind their bodies) needs counts_kept");
  PetscCall(DomainGetNeighbors(d, halo + ex->lag, &ex->n_neighbors, &ex->neighbor));
  {
    BondedCopies bc     = {0, NULL, NULL};
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
  PetscCallMPI(MPI_Waitall((PetscMPIInt)ex->n_neighbors, ex->buffers.req, MPI_STATUSES_IGNORE));
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
  PetscCheck(ex->comm != MPI_COMM_NULL, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "Exchange: call ExchangeBuildGhosts first");
  PetscCheck(n_owned == ex->n_owned && n_ghost == ex->n_ghost, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "Exchange: the store has %" PetscInt_FMT " owned and %" PetscInt_FMT " ghost bodies "
             "but the ghosts were built for %" PetscInt_FMT " and %" PetscInt_FMT "; "
             "rebuild them (ExchangeBuildGhosts)",
             n_owned, n_ghost, ex->n_owned, ex->n_ghost);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ExchangeUpdateGhosts(Exchange *ex, BodyStore *s, ExchangeFields fields)
{
  const size_t   item  = ExchangeFieldsBytes(fields);
  const PetscInt nsend = ex->send_start[ex->n_neighbors], nrecv = ex->recv_start[ex->n_neighbors];
  char          *p;

  PetscFunctionBegin;
  PetscCall(CheckPlan(ex, s->n_owned, s->n_ghost));
  PetscCheck((fields & ~EXCHANGE_FIELDS_ALL) == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "ExchangeUpdateGhosts: fields 0x%x has bits that are no BodyStore field", fields);
  PetscCall(PlanBuffers(ex, ex->send_start, ex->recv_start, item));
  p = ex->buffers.sendbuf;
  for (PetscInt e = 0; e < nsend; e++) p = ExchangePackBody(s, ex->send_body[e], fields, p);
  PetscCall(PlanRound(ex, ex->tag_update, ex->send_start, ex->recv_start, item, ex->buffers.sendbuf,
                      ex->buffers.recvbuf, NULL, NULL));
  p = ex->buffers.recvbuf;
  for (PetscInt q = 0; q < nrecv; q++) p = (char *)ExchangeUnpackBody(s, s->n_owned + ex->recv_ghost[q], fields, p);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One end of the plan: the copies' storage indices base + index[j], in CSR segments start[] over the
 * neighbours; the owned bodies sent (send_*) or the ghosts received (recv_*). */
typedef struct {
  const PetscInt *start, *index;
  PetscInt        base;
} PlanEnd;

/* Rows of width doubles per body along the plan: forward (owner -> ghost) each ghost's row becomes its
 * owner's; reversed (ghost -> owner) each ghost's row is added to its owner's, in plan order (neighbours
 * by increasing rank, then message order: a fixed summation order). */
static PetscErrorCode ArrayRound(Exchange *ex, PetscBool reverse, PetscInt width, double a[])
{
  const size_t   item  = sizeof(double) * (size_t)width;
  const PetscInt nn    = ex->n_neighbors;
  const PlanEnd  owned = {ex->send_start, ex->send_body, 0}, ghosts = {ex->recv_start, ex->recv_ghost, ex->n_owned};
  const PlanEnd *out = reverse ? &ghosts : &owned, *in = reverse ? &owned : &ghosts;
  double        *v;

  PetscFunctionBegin;
  PetscCall(CheckPlan(ex, ex->n_owned, ex->n_ghost));
  PetscCall(PlanBuffers(ex, out->start, in->start, item));
  v = (double *)ex->buffers.sendbuf;
  for (PetscInt j = 0; j < out->start[nn]; j++, v += width)
    PetscCall(PetscArraycpy(v, a + (size_t)(out->base + out->index[j]) * width, width));
  PetscCall(PlanRound(ex, reverse ? ex->tag_reduce : ex->tag_update, out->start, in->start, item, ex->buffers.sendbuf,
                      ex->buffers.recvbuf, NULL, NULL));
  v = (double *)ex->buffers.recvbuf;
  for (PetscInt j = 0; j < in->start[nn]; j++, v += width) {
    double *row = a + (size_t)(in->base + in->index[j]) * width;
    if (!reverse) PetscCall(PetscArraycpy(row, v, width));
    else
      for (PetscInt c = 0; c < width; c++) row[c] += v[c];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ExchangeUpdateArray(Exchange *ex, PetscInt width, double a[])
{
  PetscFunctionBegin;
  PetscCall(ArrayRound(ex, PETSC_FALSE, width, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ExchangeReduceArray(Exchange *ex, PetscInt width, double a[])
{
  PetscFunctionBegin;
  PetscCall(ArrayRound(ex, PETSC_TRUE, width, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}
