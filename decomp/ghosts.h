/* Ghosts: copies of the bodies owned elsewhere that lie within the halo of this rank's subdomain (and
 * the partners of bonded bodies, decomp/ghost_bonds.h), one small function per purpose (as MESA-PD's
 * SyncGhostOwners / ReduceProperty): build the ghosts and their maps, copy owner -> ghost, and sum
 * ghost -> owner. Ghosts carry whole BodyStore fields (decomp/body_pack.h) and travel between
 * neighbours only (decomp/messages.h).
 *
 * Determinism: after ExchangeBuildGhosts the ghosts are sorted by id, whichever message arrives
 * first, so a run on the same rank count is bitwise reproducible. Sums in ExchangeReduceArray are
 * taken in a fixed order (neighbours by increasing rank, then message order).
 *
 * One step of a distributed run (the maps are only valid while the store is not reordered, so
 * every reordering comes before the ghost build):
 *   s->n_ghost = 0;                      ghosts of the last step are stale
 *   ExchangeMigrate(d, s, &removed, NULL) owned bodies to their new owners, leavers counted
 *                                        (decomp/migration.h)
 *   [BodyStoreSortSpatially]             optional, owned bodies only
 *   ExchangeHaloWidth(d, s, env, &w)     one Allreduce; can be kept while no body is added
 *   ExchangeBuildGhosts(d, w, s, &ex)    ghosts appended, maps for the outer iteration
 *   detect contacts on owned + ghosts, solve (per outer iteration: ExchangeReduceArray of the
 *   impulse contributions, ExchangeUpdateArray of the velocities, or a PetscSF built from the
 *   maps), integrate the owned bodies.
 *
 * Functions are collective on the domain's communicator unless marked "Not collective". */
#ifndef CCPDEM_DECOMP_GHOSTS_H
#define CCPDEM_DECOMP_GHOSTS_H
#include "bodies/body_store.h"
#include "decomp/body_pack.h"
#include "decomp/domain.h"
#include "decomp/ghost_bonds.h"
#include "decomp/messages.h"

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
  MPI_Comm     comm; /* the domain's communicator (borrowed) */
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
  GhostBonds   bonds;           /* pairs ghosted however far apart (ExchangeSetBonds) */
  PetscBool    skip_copy_lists; /* set by the owner: ExchangeBuildGhosts leaves shared_* NULL and saves
                                   the round of ghost-index replies they need (the penalty model
                                   routes loads by ghost_owner_*; the CCP coupling reads them) */
  PetscBool counts_kept;        /* set by the caller before a build, alike on every rank: since the
                                   last build with this halo no rank's owned bodies were added,
                                   removed or exchanged (ExchangeMoves moving = removed = 0), so they
                                   lie in their subdomains and owned_offset holds: the build skips
                                   the collective that checks and counts them (one round) */
  double lag;                   /* set by the caller with counts_kept, alike on every rank (0: none): the
                                   owned bodies may lie up to lag outside their subdomains (a migration
                                   deferred while the ghosts were kept); the build then sends each body to
                                   the ranks within halo of its centre among those within halo + lag of
                                   this subdomain */
  /* statistics of the last ExchangeBuildGhosts on this rank (bytes include headers and the
   * ghost-index replies) */
  PetscInt64     build_bytes_sent, build_messages_sent;
  MessageBuffers buffers; /* reused by every build, update and reduce */
} Exchange;

/* Not collective. ExchangeCreate: an empty Exchange (no plan). ExchangeDestroy: frees everything ex
 * holds (the communicator is borrowed, not freed) and leaves it empty. */
PetscErrorCode ExchangeCreate(Exchange *ex);
PetscErrorCode ExchangeDestroy(Exchange *ex);

/* The halo width w = 2 r_max + envelope, r_max the largest bounding radius of any owned body on
 * any rank (MPI_Allreduce): every pair that can be in contact (centre distance < r_i + r_j +
 * envelope) is then within w. Enough for ghosts rebuilt from current positions every step; a caller
 * that keeps ghosts while bodies move adds its motion allowance (src/step/step.c: the skin). */
PetscErrorCode ExchangeHaloWidth(Domain d, const BodyStore *s, double envelope, double *w);

/* Replace the ghosts of s by copies (all fields) of every body owned by another rank whose centre
 * is at distance < halo from this rank's subdomain box (faces, edges and corners), sorted by id,
 * and fill ex's maps and plan.
 * Pre: every owned body of s lies in this rank's subdomain (after ExchangeMigrate; checked), or
 *      within ex->lag of it (counts_kept: not checked; a body sent to a rank beyond the neighbours
 *      is an error);
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
