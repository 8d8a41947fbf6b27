/* Migration: bodies to the owners of their centres. See migration.h.
 *
 * Messages go straight to the new owner (any rank): one reduction tells every rank whether all
 * bodies go next door (then each neighbour pair exchanges one message, probed for its length), else
 * the receivers learn who sends how many bodies from PetscCommBuildTwoSided, then the records travel
 * point to point. */
#include "decomp/migration.h"
#include "decomp/body_pack.h"
#include "decomp/messages.h"

static int CompareInt64(const void *pa, const void *pb, void *ctx)
{
  const int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

  (void)ctx;
  return (a > b) - (a < b);
}

/* Sort the owned bodies by id. Two with one id are an internal error (ids are unique by
 * construction): checked where it shows, without a reduction. */
static PetscErrorCode SortOwnedById(BodyStore *s)
{
  const PetscInt n = s->n_owned;
  int64_t       *id;
  PetscInt      *order;
  PetscBool      sorted = PETSC_TRUE, dup = PETSC_FALSE;

  PetscFunctionBegin;
  for (PetscInt i = 1; i < n && sorted; i++) sorted = (PetscBool)(s->id[i - 1] < s->id[i]);
  if (sorted) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc2(n, &id, n, &order));
  for (PetscInt i = 0; i < n; i++) {
    id[i]    = s->id[i];
    order[i] = i;
  }
  PetscCall(PetscTimSortWithArray(n, id, sizeof(*id), order, sizeof(*order), CompareInt64, NULL));
  for (PetscInt i = 1; i < n; i++) dup = (PetscBool)(dup || id[i] == id[i - 1]);
  PetscCall(BodyStorePermute(s, n, order));
  PetscCall(PetscFree2(id, order));
  PetscCheck(!dup, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "ExchangeMigrate: a body id is owned twice on this rank; ids must be unique");
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

/* See migration.h. */
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

/* See migration.h. */
PetscErrorCode ExchangeMovesLocal(Domain d, const BodyStore *s, const double x0[], double limit,
                                  PetscInt local[EXCHANGE_MOVE_COUNTS])
{
  MPI_Comm    comm;
  PetscMPIInt rank, *ranks;
  PetscInt    nn;

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
      local[3] = !(dx * dx + dy * dy + dz * dz <= limit * limit);
    }
  }
  PetscCall(PetscFree(ranks));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* See migration.h. */
void ExchangeMovesFromSums(const PetscInt global[EXCHANGE_MOVE_COUNTS], ExchangeMoves *mv)
{
  mv->removed    = global[0];
  mv->nearby     = (PetscBool)(global[1] == 0);
  mv->moving     = global[2];
  mv->drifted    = (PetscBool)(global[3] > 0);
  mv->keep_order = PETSC_FALSE;
}

/* See migration.h. */
PetscErrorCode ExchangeSendMoved(Domain d, const ExchangeMoves *mv, PetscMPIInt tag, size_t rec, PetscInt n,
                                 const PetscMPIInt dest[], const char *records, PetscInt *nrecv, char **recvbuf,
                                 PetscInt64 *bytes)
{
  MPI_Comm     comm;
  PetscInt     nn;
  PetscMPIInt *ranks;

  PetscFunctionBegin;
  PetscCall(DomainGetComm(d, &comm));
  if (!mv->moving) { /* every rank knows that no rank sends */
    PetscCheck(n == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "ExchangeSendMoved: %" PetscInt_FMT " records to send although no body changes rank", n);
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
  const size_t rec = ExchangeFieldsBytes(EXCHANGE_FIELDS_ALL);
  MPI_Comm     comm;
  PetscMPIInt  rank, tag, *owner, *dest;
  PetscInt     n = s->n_owned, nout = 0, nsend = 0, nrecv = 0;
  char        *sendbuf, *recvbuf = NULL, *p;

  PetscFunctionBegin;
  PetscCall(DomainGetComm(d, &comm));
  PetscCall(DomainGetTag(d, EXCHANGE_TAG_MIGRATE, &tag));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCheck(s->n_ghost == 0, comm, PETSC_ERR_ARG_WRONGSTATE,
             "ExchangeMigrate: drop the ghosts first (s->n_ghost = 0); they are stale copies once bodies have moved");
  if (!mv->moving && !mv->removed) { /* every body stays where it is */
    if (!mv->keep_order) PetscCall(SortOwnedById(s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  /* who leaves (owner[i] != rank), and where to (-1: out of the domain, dropped); the leavers are
   * packed in index order, which the send keeps per destination (a stable sort, messages.h) */
  PetscCall(PetscMalloc1(n + 1, &owner));
  for (PetscInt i = 0; i < n; i++) {
    owner[i] = DomainOwnerOfPoint(d, s->pos + 3 * i);
    nout += owner[i] != rank;
    nsend += owner[i] != rank && owner[i] >= 0;
  }
  PetscCall(PetscMalloc2(nsend + 1, &dest, (size_t)nsend * rec + 1, &sendbuf));
  p = sendbuf;
  for (PetscInt i = 0, e = 0; i < n; i++) {
    if (owner[i] == rank || owner[i] < 0) continue;
    dest[e++] = owner[i];
    p         = ExchangePackBody(s, i, EXCHANGE_FIELDS_ALL, p);
  }
  PetscCall(ExchangeSendMoved(d, mv, tag, rec, nsend, dest, sendbuf, &nrecv, &recvbuf, bytes_sent));

  /* drop the leavers (from the back, so the body swapped in has been looked at), add the arrivals */
  for (PetscInt i = n - 1; i >= 0; i--)
    if (owner[i] != rank) BodyStoreRemoveOwned(s, i);
  PetscCall(BodyStoreReserve(s, s->n_owned + nrecv));
  p = recvbuf;
  for (PetscInt e = 0; e < nrecv; e++) p = (char *)ExchangeUnpackBody(s, s->n_owned++, EXCHANGE_FIELDS_ALL, p);
  if (!(mv->keep_order && nout == 0 && nrecv == 0)) PetscCall(SortOwnedById(s));
  PetscCall(PetscFree(recvbuf));
  PetscCall(PetscFree2(dest, sendbuf));
  PetscCall(PetscFree(owner));
  PetscFunctionReturn(PETSC_SUCCESS);
}
