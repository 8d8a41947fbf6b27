/* Warm-start impulses (CCP) and friction history (penalty model) follow their contacts when
 * ownership changes: both are ImpulseMemory records (src/contact/contact_set.h), routed the same way whatever
 * their width.
 *
 * A contact is owned by the rank that owns its lower-id body (collision/detect.h; a wall is not a body, so
 * a wall contact goes with its body). When that body migrates, so must the impulse remembered for
 * the contact, or the new owner starts it cold and the run on several ranks drifts from the 1-rank
 * run (within the solver tolerance, but needlessly: a cold start costs iterations).
 *
 * Call at the end of a step, after the owned bodies moved and before ExchangeMigrateMoves: the memory m
 * was just stored from the step's contacts cs (entry i is contact i), so the owning body of entry i
 * is a local index; its next owner is the rank that owns its new centre, the same decision
 * the migration will take. Entries bound for another rank are sent there (entries of bodies
 * leaving the domain dropped), received ones merged, and m sorted by key again: the result does not
 * depend on message arrival order. Collective on the domain's communicator. */
#ifndef CCPDEM_DECOMP_IMPULSE_ROUTING_H
#define CCPDEM_DECOMP_IMPULSE_ROUTING_H
#include "bodies/body_store.h"
#include "contact/contact_set.h"
#include "decomp/domain.h"
#include "decomp/migration.h"

/* mv: the decision of the migration that follows (ExchangeDecideMoves), which covers the entries:
 * they go where their bodies go. */
PetscErrorCode ImpulseMemoryRoute(Domain d, const BodyStore *s, const ContactSet *cs, const ExchangeMoves *mv,
                                  ImpulseMemory *m, PetscInt64 *bytes_sent);

/* After a restart: the memory's entries may be on any rank (rows as read), the bodies on their
 * owners (after ExchangeMigrate). Each entry goes to the owner of its owning body, found through a
 * rendezvous (directory rank = id mod ranks: owners announce their ids there, entries meet them
 * and are forwarded), three rounds of point-to-point messages. Entries whose body no rank owns are
 * dropped. m ends sorted by key. Collective. */
PetscErrorCode ImpulseMemoryRouteById(Domain d, const BodyStore *s, ImpulseMemory *m, PetscInt64 *bytes_sent);
#endif
