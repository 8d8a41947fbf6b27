/* Ghosts that the halo does not give: pairs of bodies that must be present together on one rank
 * however far apart they are (a joint's two bodies: the owner of one computes the joint's rows and
 * needs the other's state, and its impulse reaches the other's owner through the ghost, like a
 * contact's).
 *
 * A bond (guest, host), body ids: the rank that owns `host` must hold `guest`, owned or as a ghost.
 * Bonds are few (one per joint), so each ghost build finds the owners of all bonded bodies with one
 * small Allreduce (MAX over one int per distinct bonded id) instead of a rendezvous: every rank
 * then knows every bond's two owners, so the extra copies and the extra neighbour pairs they need
 * follow from replicated data, and the neighbour relation stays symmetric (both ends of a bond
 * whose bodies live on different ranks add each other), as the ghost messages require. */
#ifndef CCPDEM_DECOMP_GHOST_BONDS_H
#define CCPDEM_DECOMP_GHOST_BONDS_H
#include "bodies/body_store.h"

typedef struct {
  int64_t guest, host; /* body ids: host's owner holds guest */
} GhostBond;

typedef struct {
  PetscInt     n; /* bonds */
  GhostBond   *bond;
  PetscInt     nid; /* distinct bonded ids, sorted */
  int64_t     *id;
  PetscMPIInt *owner; /* per id: its owner rank at the last GhostBondsFindOwners (-1: none) */
  PetscInt    *local; /* per id: its owned storage index on this rank (-1: not owned here) */
} GhostBonds;

/* Copy the bonds (n = 0: none; replaces earlier ones). Not collective; give every rank the same. */
PetscErrorCode GhostBondsSet(GhostBonds *gb, PetscInt n, const GhostBond bonds[]);
PetscErrorCode GhostBondsDestroy(GhostBonds *gb);

/* Collective on comm: owner rank and local index of every bonded id from the owned bodies of s
 * (one Allreduce of nid ints). No-op without bonds. */
PetscErrorCode GhostBondsFindOwners(GhostBonds *gb, MPI_Comm comm, PetscMPIInt rank, const BodyStore *s);

/* Not collective (after GhostBondsFindOwners). The extra copies this rank sends: for each bond
 * whose guest it owns and whose host another rank owns, (owned index of the guest, host's rank),
 * sorted by index then rank, duplicates removed. *copies allocated here (PetscFree3). Also the
 * ranks this rank exchanges bonded ghosts with in either direction (sorted, unique), to add to the
 * ghost neighbours. */
PetscErrorCode GhostBondsCopies(const GhostBonds *gb, PetscMPIInt rank, PetscInt *ncopies, PetscInt **index,
                                PetscMPIInt **to, PetscInt *npeers, PetscMPIInt **peers);
#endif
