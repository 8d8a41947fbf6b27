/* Moving bodies between ranks, one small function per purpose (as MESA-PD's SyncGhostOwners /
 * ReduceProperty): migrate owned bodies to the owner of their centre, build the ghosts (copies of
 * the bodies owned elsewhere that lie within the halo of this subdomain), copy owner -> ghost,
 * and sum ghost -> owner.
 *
 * Messages carry whole BodyStore fields, packed field by field through the BODY_FIELDS X-macro
 * (src/bodies/body_store.h), so a field added there migrates and is ghosted without touching this code.
 *
 * Determinism: after ExchangeMigrate the owned bodies are sorted by id (or, with keep_order, as
 * they were where none left or arrived); after ExchangeBuildGhosts
 * the ghosts are sorted by id. Neither order depends on which message arrives first, so a run on
 * the same rank count is bitwise reproducible. Sums in ExchangeReduceArray are taken in a fixed
 * order (neighbours by increasing rank, then message order).
 *
 * One step of a distributed run (the maps are only valid while the store is not reordered, so
 * every reordering comes before the ghost build):
 *   s->n_ghost = 0;                      ghosts of the last step are stale
 *   ExchangeMigrate(d, s, &removed, NULL) owned bodies to their new owners, leavers counted
 *   [BodyStoreSortSpatially]             optional, owned bodies only
 *   ExchangeHaloWidth(d, s, env, &w)     one Allreduce; can be kept while no body is added
 *   ExchangeBuildGhosts(d, w, s, &ex)    ghosts appended, maps for the outer iteration
 *   detect contacts on owned + ghosts, solve (per outer iteration: ExchangeReduceArray of the
 *   impulse contributions, ExchangeUpdateArray of the velocities, or a PetscSF built from the
 *   maps), integrate the owned bodies.
 *
 * All functions are collective on the domain's communicator. */
#ifndef CCPDEM_EXCHANGE_H
#define CCPDEM_EXCHANGE_H
#include "bodies/body_store.h"
#include "decomp/domain.h"
#include "decomp/ghost_bonds.h"

/* A set of BodyStore fields, one bit per field of the X-macro: EXCHANGE_FIELD(pos) | ... */
enum {
#define EXCHANGE_FIELD_BIT_DECL(type, name, width) EXCHANGE_FIELD_BIT_##name,
  BODY_FIELDS(EXCHANGE_FIELD_BIT_DECL)
#undef EXCHANGE_FIELD_BIT_DECL
  EXCHANGE_NUM_FIELDS
};
typedef unsigned ExchangeFields;
#define EXCHANGE_FIELD(name)   ((ExchangeFields)1u << EXCHANGE_FIELD_BIT_##name)
#define EXCHANGE_FIELDS_ALL    (((ExchangeFields)1u << EXCHANGE_NUM_FIELDS) - 1u)
#define EXCHANGE_FIELDS_MOTION (EXCHANGE_FIELD(pos) | EXCHANGE_FIELD(quat) | EXCHANGE_FIELD(vel))

/* The ghost maps and the communication plan of the last ExchangeBuildGhosts: a value type (like
 * BodyStore), ExchangeCreate before the first build, ExchangeDestroy at the end; each build
 * replaces the previous plan and reuses the buffers. Read-only for callers.
 *
 * Indices: on every rank, owned body i is storage index i in [0, n_owned); ghost g is storage index
 * n_owned + g, g in [0, n_ghost). The global index of owned body i is owned_offset + i (owned bodies
 * numbered rank by rank), the numbering a PETSc vector with n_owned local blocks uses.
 *
 * Ghost -> owner (one entry per ghost g):
 *   ghost_owner_rank[g]   the rank that owns it
 *   ghost_owner_index[g]  its storage (= owned) index on that rank
 *   ghost_global[g]       its global index: the owner's owned_offset + ghost_owner_index[g]
 *                         (the ghost list of VecCreateGhostBlock(comm, 6, 6 n_owned, ..., n_ghost,
 *                         ghost_global, &v); or the iremote of a PetscSF with roots = owned bodies,
 *                         leaves = ghosts: {ghost_owner_rank[g], ghost_owner_index[g]})
 * Owner -> ghost copies (CSR over owned bodies):
 *   copies of owned body i are entries e in [shared_start[i], shared_start[i + 1]):
 *   shared_rank[e]  a rank holding it as a ghost (increasing in e for each i)
 *   shared_ghost[e] its ghost index g on that rank (storage index n_owned there + g)
 * Plan (CSR over the neighbours k = 0 .. n_neighbors - 1, ranks increasing):
 *   send_body[send_start[k] .. send_start[k+1]) owned indices copied to neighbor[k], in message order
 *   recv_ghost[recv_start[k] .. recv_start[k+1]) ghost index of item j of neighbor[k]'s message
 * Valid until the store's owned or ghost bodies are reordered, added or removed. */
typedef struct {
  MPI_Comm     comm;             /* the domain's communicator (borrowed) */
  PetscMPIInt  tag_ghost, tag_index, tag_update, tag_reduce;
  PetscInt     n_owned, n_ghost; /* the store's counts at the build */
  PetscInt     owned_offset;
  PetscMPIInt *ghost_owner_rank;
  PetscInt    *ghost_owner_index, *ghost_global;
  PetscInt    *shared_start, *shared_ghost;
  PetscMPIInt *shared_rank;
  PetscInt     n_neighbors;
  PetscMPIInt *neighbor;
  PetscInt    *send_start, *send_body, *recv_start, *recv_ghost;
  GhostBonds   bonds;            /* pairs ghosted however far apart (ExchangeSetBonds) */
  PetscBool    skip_copy_lists;  /* set by the owner: ExchangeBuildGhosts leaves shared_* NULL and saves
                                    the round of ghost-index replies they need (the penalty model
                                    routes loads by ghost_owner_*; the CCP coupling reads them) */
  PetscBool    counts_kept;      /* set by the caller before a build, alike on every rank: since the
                                    last build with this halo no rank's owned bodies were added,
                                    removed or exchanged (ExchangeMoves moving = removed = 0), so they
                                    lie in their subdomains and owned_offset holds: the build skips
                                    the collective that checks and counts them (one round) */
  /* statistics of the last ExchangeBuildGhosts on this rank (bytes include headers and the
   * ghost-index replies) */
  PetscInt64   build_bytes_sent, build_messages_sent;
  /* reused message buffers */
  char        *sendbuf, *recvbuf;
  size_t       sendcap, recvcap;
  MPI_Request *req;
  PetscInt     reqcap;
} Exchange;

PetscErrorCode ExchangeCreate(Exchange *ex);
PetscErrorCode ExchangeDestroy(Exchange *ex);

/* The halo width w = 2 r_max + envelope, r_max the largest bounding radius of any owned body on
 * any rank (MPI_Allreduce): every pair that can be in contact (centre distance < r_i + r_j +
 * envelope) is then within w. Enough for ghosts rebuilt from current positions every step; a caller
 * that keeps ghosts while bodies move adds its motion allowance (src/step/step.c: the skin). */
PetscErrorCode ExchangeHaloWidth(Domain d, const BodyStore *s, double envelope, double *w);

/* Send every owned body whose centre lies in another rank's subdomain to that rank (directly,
 * however far it moved), and drop the bodies whose centre left the domain box (or is NaN).
 * Pre: s->n_ghost == 0 (drop stale ghosts first: s->n_ghost = 0).
 * Post: s holds exactly the bodies whose centre lies in this rank's subdomain, every field intact,
 * sorted by id; *removed_global (may be NULL) = bodies dropped on all ranks together, so the count
 * does not depend on the rank count; *bytes_sent (may be NULL) grows by this rank's message bytes.
 * Invalidates any Exchange built on s. */
PetscErrorCode ExchangeMigrate(Domain d, BodyStore *s, PetscInt *removed_global, PetscInt64 *bytes_sent);

/* ExchangeMigrate in two parts, so that what travels with the bodies (decomp/impulse_routing.h)
 * shares its one reduction: ExchangeDecideMoves (collective, one MPI_Allreduce) counts the owned
 * bodies leaving the domain on all ranks and decides for all ranks whether every body that changes
 * rank goes to a nearby subdomain (within the halo, or adjacent before a halo is set: the usual
 * case of bodies crossing a cut). Then, before the bodies move, ExchangeSendMoved sends records
 * bound for the new owners of some of them (as ExchangeSendToRanks): one message per neighbour
 * (ExchangeSendToNeighbors) when nearby, else the general way; ExchangeMigrateMoves moves the
 * bodies the same way (ExchangeMigrate's pre- and postconditions). Valid while the cuts and the
 * owned bodies' positions stay as they were at the decision. */
typedef struct {
  PetscBool nearby;  /* every destination on every rank is a nearby subdomain */
  PetscInt  removed; /* bodies leaving the domain, on all ranks */
  PetscInt  moving;  /* bodies changing rank, on all ranks; 0 (a settled pile's usual step): nothing
                        is sent, and ExchangeSendMoved skips its round */
  PetscBool keep_order; /* set by the caller before ExchangeMigrateMoves (ExchangeDecideMoves clears it):
                           a rank none of whose bodies leaves or arrives keeps them in their order
                           instead of sorting them by id, for a caller that orders them itself (the
                           stepper's spatial sort, then a pass instead of two permutations) */
  PetscBool drifted;    /* ExchangeMovesLocal with x0: some owned body on some rank moved more than
                           the limit from its reference position (ExchangeDecideMoves: PETSC_FALSE) */
} ExchangeMoves;
PetscErrorCode ExchangeDecideMoves(Domain d, const BodyStore *s, ExchangeMoves *mv);
/* ExchangeDecideMoves in two parts, for a caller that sums the counts along with its own values
 * (one reduction, not two) and may also ask whether some owned body is farther than limit from x0
 * (3 doubles per owned body, in storage order, e.g. the positions at the last ghost build; NULL: no
 * body drifted), to keep its ghosts and defer migration while none did (src/step/step.c, ghost
 * update): this rank's counts (bodies leaving the domain, whether one goes beyond the nearby ranks,
 * bodies changing rank, whether one drifted), not collective; then the decision from their sums
 * over all ranks. */
enum { EXCHANGE_MOVE_COUNTS = 4 };
PetscErrorCode ExchangeMovesLocal(Domain d, const BodyStore *s, const double x0[], double limit, PetscInt local[EXCHANGE_MOVE_COUNTS]);
void           ExchangeMovesFromSums(const PetscInt global[EXCHANGE_MOVE_COUNTS], ExchangeMoves *mv);
PetscErrorCode ExchangeSendMoved(Domain d, const ExchangeMoves *mv, PetscMPIInt tag, size_t rec, PetscInt n, const PetscMPIInt dest[], const char *records, PetscInt *nrecv, char **recvbuf, PetscInt64 *bytes_sent);
PetscErrorCode ExchangeMigrateMoves(Domain d, BodyStore *s, const ExchangeMoves *mv, PetscInt64 *bytes_sent);

/* Send tocounts[k] records of rec bytes (packed back to back in sendbuf) to toranks[k] (any ranks,
 * increasing); receive whatever other ranks send here into *recvbuf (PetscFree it), *nrecv
 * records, ordered by source rank so the layout does not depend on arrival order. *bytes_sent (may
 * be NULL) grows by the bytes sent. Collective. tag: one of the domain's tags (DomainGetTag). */
PetscErrorCode ExchangeSendRecords(MPI_Comm comm, PetscMPIInt tag, size_t rec, PetscMPIInt nto, const PetscMPIInt toranks[], const PetscMPIInt tocounts[], const char *sendbuf, PetscInt *nrecv, char **recvbuf, PetscInt64 *bytes_sent);
/* The same for records in any order: record i (rec bytes at records + i rec) goes to rank dest[i]
 * (dest < 0: dropped), in index order per destination (a stable counting sort); receives as
 * ExchangeSendRecords. Collective. */
PetscErrorCode ExchangeSendToRanks(MPI_Comm comm, PetscMPIInt tag, size_t rec, PetscInt n, const PetscMPIInt dest[], const char *records, PetscInt *nrecv, char **recvbuf, PetscInt64 *bytes_sent);
/* The same for records that all go to the nn ranks neighbor[] (increasing; a symmetric relation,
 * e.g. the neighbours of the last ExchangeBuildGhosts, whose ghosts' owners are among them): one
 * message to and one from each of them, whose length the receiver probes, instead of
 * ExchangeSendToRanks' agreement on who sends to whom (PetscCommBuildTwoSided): one synchronizing
 * round instead of two or more. A dest that is not a neighbour is an error. *recvbuf (PetscFree
 * it) in neighbour rank order. Collective. */
PetscErrorCode ExchangeSendToNeighbors(MPI_Comm comm, PetscMPIInt tag, PetscInt nn, const PetscMPIInt neighbor[], size_t rec, PetscInt n, const PetscMPIInt dest[], const char *records, PetscInt *nrecv, char **recvbuf, PetscInt64 *bytes_sent);
/* The domain tag decomp/impulse_routing.c and decomp/force_routing.c send on (the exchange uses tags 0 .. 4). */
#define EXCHANGE_TAG_ROUTE 5

/* Replace the ghosts of s by copies (all fields) of every body owned by another rank whose centre
 * is at distance < halo from this rank's subdomain box (faces, edges and corners), sorted by id,
 * and fill ex's maps and plan.
 * Pre: every owned body of s lies in this rank's subdomain (after ExchangeMigrate; checked);
 *      halo is the same on every rank (ExchangeHaloWidth); every cut axis' subdomains are at least
 *      halo wide (checked by DomainSetHalo, same error on every rank).
 * Post: s->n_ghost ghosts at [n_owned, n_owned + n_ghost), and the guests of the bonds whose host
 *       this rank owns (ExchangeSetBonds); the owned bodies are untouched. */
PetscErrorCode ExchangeBuildGhosts(Domain d, double halo, BodyStore *s, Exchange *ex);

/* Bodies that must be ghosted together however far apart (ghost_bonds.h): from the next
 * ExchangeBuildGhosts on, the owner of each bond's host also holds its guest (a ghost when another
 * rank owns it), through the same maps and plan as the halo's ghosts, so updates, reduces and the
 * solve's coupling treat it like any ghost. The bonds' owners cost one small Allreduce per build.
 * Not collective; every rank must pass the same bonds. */
PetscErrorCode ExchangeSetBonds(Exchange *ex, PetscInt n, const GhostBond bonds[]);

/* Bytes one body's selected fields take in a message. */
size_t ExchangeFieldsBytes(ExchangeFields fields);

/* Owner -> ghost: copy the selected fields (e.g. EXCHANGE_FIELDS_MOTION) of every shared owned body
 * to its ghosts. Pre: s's owned and ghost bodies are as ExchangeBuildGhosts left them (their
 * contents may have changed). Post: the ghosts' selected fields equal their owners'. */
PetscErrorCode ExchangeUpdateGhosts(Exchange *ex, BodyStore *s, ExchangeFields fields);

/* The same for a per-body array a[(n_owned + n_ghost) * width] indexed by storage index (e.g. the
 * solver's velocities, width 6): a[ghost] = a[owner], entry by entry. */
PetscErrorCode ExchangeUpdateArray(Exchange *ex, PetscInt width, double a[]);

/* Ghost -> owner: a[owner] += a[ghost] for every ghost copy (e.g. impulse contributions to shared
 * bodies), summed in a fixed order; the ghost entries are left as they are. */
PetscErrorCode ExchangeReduceArray(Exchange *ex, PetscInt width, double a[]);
#endif
