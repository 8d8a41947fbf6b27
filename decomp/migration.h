/* Migration: every owned body goes to the rank that owns its centre (the domain's ownership rule,
 * decomp/domain.h), directly however far it moved, with all its fields (decomp/body_pack.h); bodies
 * whose centre left the domain box are dropped and counted. What must follow the bodies (contact
 * memory: decomp/impulse_routing.h) travels on the same decision.
 *
 * Messages: one reduction tells every rank whether all bodies that change rank go next door (then
 * each neighbour pair exchanges one message, probed for its length), else the receivers learn who
 * sends them how many bodies (PetscCommBuildTwoSided); decomp/messages.h.
 *
 * Determinism: after a migration the owned bodies are sorted by id (or, with keep_order, as they were
 * where none left or arrived), whichever message arrives first, so a run on the same rank count is
 * bitwise reproducible. The ghosts are built after it (decomp/ghosts.h), since a migration moves
 * owned bodies and so invalidates any ghost maps built on the store.
 *
 * Functions are collective on the domain's communicator unless marked "Not collective". */
#ifndef CCPDEM_DECOMP_MIGRATION_H
#define CCPDEM_DECOMP_MIGRATION_H
#include "bodies/body_store.h"
#include "decomp/domain.h"

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
  PetscBool nearby;     /* every destination on every rank is a nearby subdomain */
  PetscInt  removed;    /* bodies leaving the domain, on all ranks */
  PetscInt  moving;     /* bodies changing rank, on all ranks; 0 (a settled pile's usual step): nothing
                           is sent, and ExchangeSendMoved skips its round */
  PetscBool keep_order; /* set by the caller before ExchangeMigrateMoves (ExchangeDecideMoves clears it):
                           a rank none of whose bodies leaves or arrives keeps them in their order
                           instead of sorting them by id, for a caller that orders them itself (the
                           time step's spatial sort, then a pass instead of two permutations) */
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
 * over all ranks, not collective. */
enum {
  EXCHANGE_MOVE_COUNTS = 4
};
PetscErrorCode ExchangeMovesLocal(Domain d, const BodyStore *s, const double x0[], double limit,
                                  PetscInt local[EXCHANGE_MOVE_COUNTS]);
void           ExchangeMovesFromSums(const PetscInt global[EXCHANGE_MOVE_COUNTS], ExchangeMoves *mv);
/* Records of rec bytes, record i bound for rank dest[i] (the new owner of a body that moves; < 0:
 * dropped), sent as mv decided on tag (a domain tag: decomp/messages.h); received as
 * ExchangeSendToRanks into *recvbuf (PetscFree it; NULL when no body moves), *nrecv records.
 * *bytes_sent (may be NULL) grows by the bytes sent. */
PetscErrorCode ExchangeSendMoved(Domain d, const ExchangeMoves *mv, PetscMPIInt tag, size_t rec, PetscInt n,
                                 const PetscMPIInt dest[], const char *records, PetscInt *nrecv, char **recvbuf,
                                 PetscInt64 *bytes_sent);
PetscErrorCode ExchangeMigrateMoves(Domain d, BodyStore *s, const ExchangeMoves *mv, PetscInt64 *bytes_sent);
#endif
