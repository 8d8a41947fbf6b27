/* The process grid: a tensor product of px x py x pz subdomains (boxes) over the scenario's domain
 * box [lo, hi], one per MPI rank, and the queries the exchange and the time step ask of it (owner of
 * a point, ranks near a point, neighbours of a subdomain), in the manner of MESA-PD's IDomain.
 *
 * Geometry: per axis k a strictly increasing array of cuts cuts[k][0 .. p_k] with cuts[k][0] = lo[k]
 * and cuts[k][p_k] = hi[k]. Uniform at creation; the load balancer moves them (DomainSetCuts), so
 * nothing here assumes equal widths. Subdomain (i, j, l) is the box
 * [cuts[0][i], cuts[0][i+1]) x [cuts[1][j], cuts[1][j+1]) x [cuts[2][l], cuts[2][l+1]): half-open,
 * except that the last slab of each axis is closed at hi, so every point of [lo, hi] has exactly one
 * owner and points outside [lo, hi] (or NaN) have none.
 *
 * Ranks: the rank numbers are those of the input communicator; the rank of cell (i, j, l) is the
 * row-major one, (i * py + j) * pz + l (MPI_Cart_create's with reorder = 0). Ranks may own nothing.
 * The grid may change after creation (DomainSetGrid: the load balancer chooses it from the bodies,
 * decomp/balance.h), so the communicator carries no Cartesian topology.
 *
 * Halo: ghosts are bodies within distance w of a subdomain box. Every subdomain must be at least w
 * wide along each axis that is cut (p_k > 1), so that ghosts only ever come from the 26 adjacent
 * subdomains; DomainSetHalo and DomainSetCuts reject a grid that violates this, with the same error
 * on every rank (the check runs on replicated data, no communication needed to agree).
 *
 * Every function is collective on the domain's communicator unless marked "Not collective". */
#ifndef CCPDEM_DECOMP_DOMAIN_H
#define CCPDEM_DECOMP_DOMAIN_H
#include <petscsys.h>

typedef struct _p_Domain *Domain;

/* Create the grid over [lo, hi] on comm. The subdomain counts per axis come from grid (NULL, or 0
 * entries: free), then the option -decomp_grid px,py,pz overrides them (0 entries free as well); free
 * counts are chosen by MPI_Dims_create. The product must equal the number of ranks, else an error naming
 * both. Cuts start uniform; no halo is set (DomainSetHalo). Destroy with DomainDestroy. */
PetscErrorCode DomainCreate(MPI_Comm comm, const double lo[3], const double hi[3], const PetscInt grid[3], Domain *d);
PetscErrorCode DomainDestroy(Domain *d);
/* Not collective (reads the options): whether DomainCreate would accept the grid and -decomp_grid on
 * comm's rank count; if not, *ok = PETSC_FALSE and msg says what to change (for a bad-input report). */
PetscErrorCode DomainCheckGrid(MPI_Comm comm, const PetscInt grid[3], PetscBool *ok, char msg[], size_t msglen);

/* Replace the grid by dims (the same on every rank, checked; product = ranks; the entries fixed at
 * creation, DomainGetGridWanted, kept) with uniform cuts. If a halo is set, every slab of the uniform
 * grid must be at least that wide. On error the old grid and cuts stay. The caller moves the bodies
 * to their new owners (decomp/migration.h). */
PetscErrorCode DomainSetGrid(Domain d, const PetscInt dims[3]);
/* Not collective: the counts per axis fixed at creation (grid, then -decomp_grid); 0 = free. */
PetscErrorCode DomainGetGridWanted(Domain d, PetscInt want[3]);

/* Replace the cuts of one axis by cuts[0 .. p_axis] (identical on every rank, checked): the ends must
 * equal lo[axis] and hi[axis] exactly and the cuts must increase strictly; if a halo is set, every
 * slab must be at least that wide. On error the old cuts stay. */
PetscErrorCode DomainSetCuts(Domain d, PetscInt axis, const double cuts[]);

/* Not collective. Whether every subdomain is at least w wide along every axis that is cut. On
 * failure *ok = PETSC_FALSE and msg (if not NULL) says which subdomain, how wide, and what to change;
 * the result is identical on every rank (it depends only on replicated data). */
PetscErrorCode DomainCheckHalo(Domain d, double w, PetscBool *ok, char msg[], size_t msglen);
/* Check w with DomainCheckHalo and raise its message as PETSC_ERR_ARG_OUTOFRANGE on every rank if it
 * fails; otherwise remember w, so later DomainSetCuts calls keep every slab at least w wide. */
PetscErrorCode DomainSetHalo(Domain d, double w);

/* Not collective: the accessors. The communicator is the domain's (a PETSc duplicate of the
 * Cartesian one: same ranks; do not free it). The cut array is the domain's (valid until the next
 * DomainSetCuts). */
PetscErrorCode DomainGetComm(Domain d, MPI_Comm *comm);
PetscErrorCode DomainGetGrid(Domain d, PetscInt dims[3]);
PetscErrorCode DomainGetBounds(Domain d, double lo[3], double hi[3]);
PetscErrorCode DomainGetCuts(Domain d, PetscInt axis, const double **cuts);
PetscErrorCode DomainGetHalo(Domain d, double *w);

/* Not collective. Message tags reserved for decomp/'s point-to-point messages on the domain's
 * communicator (obtained from PETSc at creation, so they never collide with PETSc's own). */
#define DOMAIN_NUM_TAGS 6
PetscErrorCode DomainGetTag(Domain d, PetscInt which, PetscMPIInt *tag);

/* Not collective. The owner rank of point x, or -1 if x is outside [lo, hi] or not a number.
 * O(log p) per axis (binary search over the cuts). */
PetscMPIInt DomainOwnerOfPoint(Domain d, const double x[3]);

/* Not collective. The box of rank's subdomain (closed bounds; see the ownership rule above). */
PetscErrorCode DomainSubdomainBox(Domain d, PetscMPIInt rank, double lo[3], double hi[3]);

/* Not collective. The ranks whose subdomain box is at distance < r from x (box distance: faces,
 * edges and corners; 0 inside), the owner of x included, in increasing order: the ranks a sphere of
 * radius r at x touches. Fills at most maxn entries of ranks; more is an error. */
PetscErrorCode DomainRanksNearPoint(Domain d, const double x[3], double r, PetscInt maxn, PetscMPIInt ranks[],
                                    PetscInt *n);

/* Not collective. The other ranks whose subdomain box is at distance < r from this rank's box, in
 * increasing order (with r > 0 that includes all adjacent subdomains, edges and corners too). The
 * relation is symmetric. *ranks is allocated here; free it with PetscFree. */
PetscErrorCode DomainGetNeighbors(Domain d, double r, PetscInt *n, PetscMPIInt **ranks);
#endif
