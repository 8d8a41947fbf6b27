/* The penalty (DEM-P) contact model of Fang & Negrut, per contact: Hertz or Hooke normal force
 * (penalty/normal.h), contact-point tracking (penalty/tracking.h) and the slide, roll and spin
 * friction loads with their stick/slip history (penalty/friction.h). The time step around it is
 * the paper's half-implicit symplectic Euler (v1 = v0 + h a0, x1 = x0 + h v1), composed in
 * src/step/step.c: loads at the positions of the step's start, velocities, then positions.
 *
 * Determinism: every contact's loads and history depend only on its two bodies and its own
 * history; each body's loads are summed over its contacts in key order starting from zero
 * (PenaltyContactLoads on one rank; decomp/force_routing.h on several), so the sums do not depend on
 * storage order, and not on the rank count either. */
#ifndef CCPDEM_PENALTY_LOADS_H
#define CCPDEM_PENALTY_LOADS_H
#include "bodies/body_store.h"
#include "contact/contact_set.h"
#include "penalty/history.h"
#include "penalty/normal.h"
#include "base/simd4_isa.h"
#include "bodies/walls.h"

#define PENALTY_LOAD_WIDTH 12 /* per contact: force and torque on A, then on B (world) */

/* The shortest oscillation period of any contact this step, for the time-step check. */
typedef struct {
  double      period; /* s: 2 pi sqrt(inertia / stiffness), the smallest over contacts */
  double      stiffness, inertia;
  const char *what; /* "normal", "slide", "roll" or "spin" */
} PenaltyStepLimit;

/* A step of at most this fraction of the shortest contact period is resolved well enough (20 steps
 * per period); symplectic Euler on an undamped spring is unstable beyond period / pi. */
#define PENALTY_STEPS_PER_PERIOD 20

typedef struct PenaltySide PenaltySide; /* a body or wall as the contacts read it (penalty/loads.c) */

typedef struct {
  const PenaltySettings *set;
  const Material        *materials;
  PenaltyPair           *pairs; /* n_materials^2, by (material A, material B) */
  int                    n_materials;
  const Wall            *walls;
  int                    n_walls;
  const BodyStore       *bodies;
  PetscInt               nb; /* bodies (owned + ghosts): solver indices below are bodies, from nb on walls */
  double                 h;
  PenaltySide           *side;       /* this step: bodies [0, nb), then the walls */
  size_t                 side_cap;   /* entries side has room for */
  PetscInt               side_ahead; /* sides [0, side_ahead) already hold their bodies as they are: the
                                        integrator wrote them at the end of the last step, and nothing
                                        moved a body since (step/step.c); 0 otherwise */
  PetscBool per_contact;     /* every contact by the per-contact code, none by the block kernel (penalty/kernel.h): the
                                reference, for tests */
  PetscBool check_sides;     /* compare the sides the integrator wrote (side_ahead) with a fresh fill, an error if one
                                differs: for tests */
  Simd4Isa simd;             /* the block kernel's best instantiation this CPU runs up to this one (default: the best);
                                SIMD4_GENERIC: the portable one */
  PetscInt64 block_contacts; /* contacts the block kernel computed so far (statistics) */
} PenaltyContext;

/* *ctx set up from scratch (every field; no sides yet) with its pairs from the materials (PenaltyContextDestroy frees
 * them, and ctx->side). */
PetscErrorCode PenaltyContextSetUp(PenaltyContext *ctx, const PenaltySettings *set, const Material *materials,
                                   int n_materials);
PetscErrorCode PenaltyContextDestroy(PenaltyContext *ctx);
/* -penalty_simd, -penalty_per_contact, -penalty_check_sides (defaults: PenaltyContextSetUp's). Collective on comm. */
PetscErrorCode PenaltyContextSetFromOptions(PenaltyContext *ctx, MPI_Comm comm);

/* For every contact i of cs (sorted by key) with its last history prev->gamma[match[i]] (match[i]
 * < 0: none): its loads on A and B (world force, then torque about the centre of mass) and its new
 * history in rec[PENALTY_HISTORY_WIDTH i ..]. rec is another array than prev->gamma, or prev->gamma
 * itself when ImpulseMemoryWritableInPlace (match[i] < 0 or >= i for every i): a chunk of contacts
 * whose records moved (match[i] > i) reads them aside before it writes any. Give exactly one of load and acc:
 * load[PENALTY_LOAD_WIDTH i ..] keeps every contact's loads (several ranks: decomp/force_routing.h sums them); acc[6 k
 * ..] receives the sum over the contacts of body k < nb in key order from zero (one rank; walls receive nothing). A
 * contact whose gap is not negative (in the envelope, not touching) has no load and a record without history. *lim: the
 * shortest period among this rank's contacts (period infinite if none). Not collective. Fills ctx->side for the bodies
 * and walls first (each body's rotation is computed once, not per contact), but for the first ctx->side_ahead bodies,
 * whose sides the integrator already wrote. */
PetscErrorCode PenaltyContactLoads(PenaltyContext *ctx, const ContactSet *cs, const ImpulseMemory *prev,
                                   const PetscInt match[], double rec[], double load[], double acc[],
                                   PenaltyStepLimit *lim);
#endif
