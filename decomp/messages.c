/* Point-to-point messages: records to any ranks, records to neighbours, a plan's segments. See
 * messages.h. */
#include "decomp/messages.h"
#include "base/growth.h"
#include "decomp/domain.h"
#include <string.h>

_Static_assert(EXCHANGE_NUM_TAGS <= DOMAIN_NUM_TAGS, "every kind of message needs a tag of its own (domain.h)");

/* ---- buffers ---- */

PetscErrorCode MessageBuffersDestroy(MessageBuffers *mb)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(mb->sendbuf));
  PetscCall(PetscFree(mb->recvbuf));
  PetscCall(PetscFree(mb->req));
  PetscCall(PetscMemzero(mb, sizeof(*mb)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MessageBufferGrow(char **buf, size_t *cap, size_t need)
{
  PetscFunctionBegin;
  if (need <= *cap) PetscFunctionReturn(PETSC_SUCCESS);
  *cap = GrowthCapacity(*cap, need);
  PetscCall(PetscRealloc(*cap, buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MessageBuffersReserveRequests(MessageBuffers *mb, PetscInt n)
{
  PetscFunctionBegin;
  if (n <= mb->reqcap) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(mb->req));
  mb->reqcap = (PetscInt)GrowthCapacity((size_t)mb->reqcap, (size_t)n);
  PetscCall(PetscMalloc1(mb->reqcap, &mb->req));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MessageLength(size_t bytes, PetscMPIInt *len)
{
  PetscFunctionBegin;
  PetscCheck(bytes <= (size_t)PETSC_MPI_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "a message of %zu bytes exceeds MPI's int count; use more ranks", bytes);
  *len = (PetscMPIInt)bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- neighbour messages ---- */

PetscErrorCode MessageRecvFromNeighbors(MPI_Comm comm, PetscMPIInt tag, PetscInt nn, const PetscMPIInt neighbor[],
                                        char **buf, size_t *cap, size_t at[])
{
  PetscFunctionBegin;
  at[0] = 0;
  for (PetscInt k = 0; k < nn; k++) {
    MPI_Status  st;
    PetscMPIInt len = 0;
    PetscCallMPI(MPI_Probe(neighbor[k], tag, comm, &st));
    PetscCallMPI(MPI_Get_count(&st, MPI_BYTE, &len));
    PetscCall(MessageBufferGrow(buf, cap, at[k] + (size_t)len + 1));
    PetscCallMPI(MPI_Recv(*buf + at[k], len, MPI_BYTE, neighbor[k], tag, comm, MPI_STATUS_IGNORE));
    at[k + 1] = at[k] + (size_t)len;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MessageExchangeSegments(MPI_Comm comm, PetscMPIInt tag, PetscInt nn, const PetscMPIInt neighbor[],
                                       MessageBuffers *mb, const char *sendbuf, const size_t soff[], char *recvbuf,
                                       const size_t roff[], PetscInt64 *bytes, PetscInt64 *messages)
{
  PetscMPIInt nreq = 0, len = 0;

  PetscFunctionBegin;
  PetscCall(MessageBuffersReserveRequests(mb, 2 * nn));
  for (PetscInt k = 0; k < nn; k++) {
    if (roff[k + 1] == roff[k]) continue;
    PetscCall(MessageLength(roff[k + 1] - roff[k], &len));
    PetscCallMPI(MPI_Irecv(recvbuf + roff[k], len, MPI_BYTE, neighbor[k], tag, comm, &mb->req[nreq++]));
  }
  for (PetscInt k = 0; k < nn; k++) {
    if (soff[k + 1] == soff[k]) continue;
    PetscCall(MessageLength(soff[k + 1] - soff[k], &len));
    PetscCallMPI(MPI_Isend(sendbuf + soff[k], len, MPI_BYTE, neighbor[k], tag, comm, &mb->req[nreq++]));
    if (bytes) *bytes += len;
    if (messages) (*messages)++;
  }
  PetscCallMPI(MPI_Waitall(nreq, mb->req, MPI_STATUSES_IGNORE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- records ---- */

PetscErrorCode ExchangeSendRecords(MPI_Comm comm, PetscMPIInt tag, size_t rec, PetscMPIInt nto,
                                   const PetscMPIInt toranks[], const PetscMPIInt tocounts[], const char *sendbuf,
                                   PetscInt *nrecv, char **recvbuf, PetscInt64 *bytes_sent)
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
static PetscErrorCode PackBySlot(size_t rec, PetscInt n, const PetscMPIInt slot[], const char *records, PetscInt nslot,
                                 PetscInt **start, char **sendbuf)
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

/* See messages.h. */
PetscErrorCode ExchangeSendToRanks(MPI_Comm comm, PetscMPIInt tag, size_t rec, PetscInt n, const PetscMPIInt dest[],
                                   const char *records, PetscInt *nrecv, char **recvbuf, PetscInt64 *bytes)
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

/* See messages.h. */
PetscErrorCode ExchangeSendToNeighbors(MPI_Comm comm, PetscMPIInt tag, PetscInt nn, const PetscMPIInt neighbor[],
                                       size_t rec, PetscInt n, const PetscMPIInt dest[], const char *records,
                                       PetscInt *nrecv, char **recvbuf, PetscInt64 *bytes)
{
  PetscMPIInt *slot, len;
  PetscInt    *start;
  char        *sendbuf;
  MPI_Request *req;
  size_t      *at, cap = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n + 1, &slot));
  for (PetscInt i = 0; i < n; i++) {
    PetscInt k = -1;
    if (dest[i] >= 0) PetscCall(PetscFindMPIInt(dest[i], nn, neighbor, &k));
    PetscCheck(dest[i] < 0 || k >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "ExchangeSendToNeighbors: record %" PetscInt_FMT " goes to rank %d, not a neighbour; "
               "use ExchangeSendToRanks",
               i, dest[i]);
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
  PetscCall(MessageRecvFromNeighbors(comm, tag, nn, neighbor, recvbuf, &cap, at));
  for (PetscInt k = 0; k < nn; k++)
    PetscCheck((at[k + 1] - at[k]) % rec == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "ExchangeSendToNeighbors: a message of %zu bytes from rank %d is not a whole number of %zu-byte records",
               at[k + 1] - at[k], neighbor[k], rec);
  if (!*recvbuf) PetscCall(PetscMalloc1(1, recvbuf)); /* no neighbours: still a buffer to free */
  *nrecv = (PetscInt)(at[nn] / rec);
  PetscCallMPI(MPI_Waitall((PetscMPIInt)nn, req, MPI_STATUSES_IGNORE));
  PetscCall(PetscFree2(req, at));
  PetscCall(PetscFree(sendbuf));
  PetscCall(PetscFree(start));
  PetscCall(PetscFree(slot));
  PetscFunctionReturn(PETSC_SUCCESS);
}
