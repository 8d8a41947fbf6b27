/* Point-to-point messages between the ranks of the domain's communicator: the transport every other
 * part of decomp/ sends on (migration, ghosts, impulse and force routing). Three ways, from the most
 * general to the cheapest:
 *   records to any ranks (ExchangeSendRecords, ExchangeSendToRanks): the receivers first learn who
 *     sends them how many records (PetscCommBuildTwoSided), then the records travel;
 *   records to neighbours only (ExchangeSendToNeighbors): one message each way per neighbour pair,
 *     its length probed by the receiver: one synchronizing round;
 *   segments of a plan both sides know (MessageExchangeSegments: the ghost update and reduce).
 * Whatever the arrival order, what is received is laid out by source rank, so results do not depend
 * on it. Messages are bytes; a record is whatever the caller packs (decomp/body_pack.h for bodies). */
#ifndef CCPDEM_DECOMP_MESSAGES_H
#define CCPDEM_DECOMP_MESSAGES_H
#include <petscsys.h>

/* Which of the domain's tags (DomainGetTag; DOMAIN_NUM_TAGS of them) each kind of message is sent on,
 * so that two kinds in flight at once never match each other's receives. */
enum {
  EXCHANGE_TAG_MIGRATE, /* bodies to their new owners (decomp/migration.c) */
  EXCHANGE_TAG_GHOST,   /* ghost build: the copies (decomp/ghosts.c) */
  EXCHANGE_TAG_INDEX,   /* ghost build: where the copies landed */
  EXCHANGE_TAG_UPDATE,  /* owner -> ghost updates */
  EXCHANGE_TAG_REDUCE,  /* ghost -> owner sums */
  EXCHANGE_TAG_ROUTE,   /* decomp/impulse_routing.c and decomp/force_routing.c */
  EXCHANGE_NUM_TAGS
};

/* Send tocounts[k] records of rec bytes (packed back to back in sendbuf) to toranks[k] (any ranks,
 * increasing); receive whatever other ranks send here into *recvbuf (PetscFree it), *nrecv
 * records, ordered by source rank so the layout does not depend on arrival order. *bytes_sent (may
 * be NULL) grows by the bytes sent. Collective. tag: one of the domain's tags (DomainGetTag). */
PetscErrorCode ExchangeSendRecords(MPI_Comm comm, PetscMPIInt tag, size_t rec, PetscMPIInt nto,
                                   const PetscMPIInt toranks[], const PetscMPIInt tocounts[], const char *sendbuf,
                                   PetscInt *nrecv, char **recvbuf, PetscInt64 *bytes_sent);
/* The same for records in any order: record i (rec bytes at records + i rec) goes to rank dest[i]
 * (dest < 0: dropped), in index order per destination (a stable counting sort); receives as
 * ExchangeSendRecords. Collective. */
PetscErrorCode ExchangeSendToRanks(MPI_Comm comm, PetscMPIInt tag, size_t rec, PetscInt n, const PetscMPIInt dest[],
                                   const char *records, PetscInt *nrecv, char **recvbuf, PetscInt64 *bytes_sent);
/* The same for records that all go to the nn ranks neighbor[] (increasing; a symmetric relation,
 * e.g. the neighbours of the last ExchangeBuildGhosts, whose ghosts' owners are among them): one
 * message to and one from each of them, whose length the receiver probes, instead of
 * ExchangeSendToRanks' agreement on who sends to whom (PetscCommBuildTwoSided): one synchronizing
 * round instead of two or more. A dest that is not a neighbour is an error. *recvbuf (PetscFree
 * it) in neighbour rank order. Collective. */
PetscErrorCode ExchangeSendToNeighbors(MPI_Comm comm, PetscMPIInt tag, PetscInt nn, const PetscMPIInt neighbor[],
                                       size_t rec, PetscInt n, const PetscMPIInt dest[], const char *records,
                                       PetscInt *nrecv, char **recvbuf, PetscInt64 *bytes_sent);

/* Buffers and requests kept from one message round to the next (grown, never shrunk), so that the
 * rounds of a step allocate nothing once the sizes have settled. All zero is empty; the owner frees
 * them with MessageBuffersDestroy. Not collective. */
typedef struct {
  char        *sendbuf, *recvbuf;
  size_t       sendcap, recvcap; /* their sizes in bytes */
  MPI_Request *req;
  PetscInt     reqcap;
} MessageBuffers;

/* Not collective. Free the buffers and leave mb empty (all zero). */
PetscErrorCode MessageBuffersDestroy(MessageBuffers *mb);
/* Not collective. Grow *buf (*cap bytes, may be NULL and 0) to at least need bytes, keeping its contents. */
PetscErrorCode MessageBufferGrow(char **buf, size_t *cap, size_t need);
/* Not collective. Room for at least n requests in mb->req (its contents are not kept). */
PetscErrorCode MessageBuffersReserveRequests(MessageBuffers *mb, PetscInt n);
/* Not collective. *len = bytes as an MPI count; more than MPI's int is an error that says so. */
PetscErrorCode MessageLength(size_t bytes, PetscMPIInt *len);

/* One message from each of the nn ranks neighbor[] (tag), received in neighbour order (so the
 * layout does not depend on arrival order) into *buf, grown as needed (*cap its size): message k at
 * at[k] .. at[k + 1], at[nn] the total. Pre: each of them sends exactly one message on tag to this
 * rank, and this rank's own sends are posted, so the blocking receives cannot deadlock. */
PetscErrorCode MessageRecvFromNeighbors(MPI_Comm comm, PetscMPIInt tag, PetscInt nn, const PetscMPIInt neighbor[],
                                        char **buf, size_t *cap, size_t at[]);

/* Exchange with each of the nn ranks neighbor[]: send sendbuf[soff[k] .. soff[k+1]) to neighbor[k]
 * and receive recvbuf[roff[k] .. roff[k+1]) from it. Both sides know the sizes (a plan whose send
 * and receive segments mirror each other's), so empty segments are skipped on both sides. Uses mb's
 * requests only (sendbuf and recvbuf may be mb's buffers). *bytes and *messages (may be NULL) grow
 * by what this rank sent. Collective over the neighbours. */
PetscErrorCode MessageExchangeSegments(MPI_Comm comm, PetscMPIInt tag, PetscInt nn, const PetscMPIInt neighbor[],
                                       MessageBuffers *mb, const char *sendbuf, const size_t soff[], char *recvbuf,
                                       const size_t roff[], PetscInt64 *bytes, PetscInt64 *messages);
#endif
