/* A step's CCP gathered onto rank 0 in an order that does not depend on the decomposition, and what
 * rank 0 computes from it scattered back: the -fclib_dump files (step/fclib_dump.h) and -ccp_type ipm on
 * several ranks (step/model_ccp.c) share it.
 *
 * Each rank passes its owned bodies (the first n_owned of its solver bodies, with their global ids) and
 * its contacts (each owned by exactly one rank, collision/detect.h, named by their keys); rank 0 receives
 * them all, sorts the bodies by id and the contacts by key, and renames each contact's bodies as its
 * places in that order (walls: after the bodies, by wall index). So rank 0 holds the same problem, in the
 * same order, bit for bit, on every rank count. Communication: one gather of O(bodies + contacts) records
 * (a few hundred bytes each) to rank 0, and with CCPGatherScatter one scatter back; the whole problem
 * sits in rank 0's memory. Contacts joining a joint's ground are not supported (both users refuse joints). */
#ifndef CCPDEM_DECOMP_CCP_GATHER_H
#define CCPDEM_DECOMP_CCP_GATHER_H
#include "ccp/problem.h"
#include "contact/contact_key.h"

/* An owned body as the solve has it (ccp/problem.h), and what the caller adds. */
typedef struct {
  int64_t  id;
  double   im, Iinv[6], vf[6]; /* inverse mass, world inverse inertia, free velocity */
  double   v[6];               /* P's vel when P has one at the gather, else 0 */
  double   mass, J[6];         /* the caller's: the mass and world inertia (xx, yy, zz, xy, xz, yz) FCLIB writes */
  PetscInt slot;               /* rank 0: the record's place in the received (rank) order */
} CCPGatherBody;

/* A contact: its key, the contact (a, b: see CCPGatherToRoot), its terms, impulses and the caller's extra. */
typedef struct {
  ContactKey      key;
  Contact         c;
  CCPContactTerms t;
  double          gamma[CONTACT_DOF_MAX]; /* P's gamma at the gather */
  double          aux[6];                 /* the caller's (FCLIB: the warm start and w) */
  PetscInt        wall;                   /* A's wall index, -1 when A is a body, CCP_GATHER_UNSUPPORTED (below) */
  PetscInt        slot;                   /* rank 0: as CCPGatherBody's */
} CCPGatherContact;

/* The gathered problem. On rank 0: nb bodies sorted by id, nc contacts sorted by key whose c.a and c.b are
 * indices into body (a wall: nb + its wall index); the per-rank counts for the scatter back. Elsewhere
 * nb = nc = 0 and the arrays NULL. */
typedef struct {
  PetscInt          nb, nc;
  CCPGatherBody    *body;
  CCPGatherContact *contact;
  PetscInt         *ghost_body; /* rank 0: per ghost in received order, its index in body (CCPGatherScatter) */
  PetscMPIInt       size;       /* ranks */
  PetscInt         *counts;     /* rank 0: per rank its owned bodies, ghosts and contacts (3 per rank) */
  PetscInt          mine[3];    /* this rank's owned bodies, ghosts and contacts */
} CCPGathered;

/* A contact record whose A is neither a body nor a wall (a joint's ground): CCPGatherToRoot refuses the gather. */
#define CCP_GATHER_UNSUPPORTED (-2)
/* Not collective. This rank's records of P: bodies[0 .. n_owned) (ids id[i]; mass and J left 0) and
 * contacts[0 .. P->ncontacts) (keys key[i]); P's solver bodies from n_local on are walls (a contact joining
 * anything else, a joint's ground, is marked CCP_GATHER_UNSUPPORTED, and the gather then fails on every rank with
 * PETSC_ERR_SUP). aux left 0. */
PetscErrorCode CCPGatherLocal(const CCPProblem *P, PetscInt n_owned, PetscInt n_local, const int64_t *id,
                              const ContactKey *key, CCPGatherBody *bodies, CCPGatherContact *contacts);
/* Collective over comm. Gathers every rank's n_owned bodies, n_ghost ghost ids (NULL with 0: no scatter back
 * of ghost velocities) and nc contacts into *g on rank 0, sorted and renamed (above). A contact whose body
 * no rank owns, or records beyond one MPI message, is an error on every rank. Free with CCPGatheredDestroy. */
PetscErrorCode CCPGatherToRoot(MPI_Comm comm, const CCPGatherBody *bodies, PetscInt n_owned, const int64_t *ghost_id,
                               PetscInt n_ghost, const CCPGatherContact *contacts, PetscInt nc, CCPGathered *g);
/* Collective over comm. Rank 0's vel (6 per gathered body, in g's order) and gamma (CONTACT_DOF_MAX per
 * gathered contact, in g's order) sent back: each rank receives in vel_local its owned bodies' and then its
 * ghosts' velocities (6 each, as passed to CCPGatherToRoot) and in gamma_local its contacts' impulses. One
 * MPI_Scatterv. vel and gamma are read on rank 0 only. */
PetscErrorCode CCPGatherScatter(MPI_Comm comm, const CCPGathered *g, const double *vel, const double *gamma,
                                double *vel_local, double *gamma_local);
PetscErrorCode CCPGatheredDestroy(CCPGathered *g);
#endif
