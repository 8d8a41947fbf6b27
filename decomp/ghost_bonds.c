/* Bonded ghosts: owners of bonded bodies and the extra copies. See ghost_bonds.h. */
#include "decomp/ghost_bonds.h"
#include <stdlib.h>

static int CompareId(const void *pa, const void *pb)
{
  const int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return (a > b) - (a < b);
}

PetscErrorCode GhostBondsDestroy(GhostBonds *gb)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(gb->bond));
  PetscCall(PetscFree3(gb->id, gb->owner, gb->local));
  PetscCall(PetscMemzero(gb, sizeof(*gb)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GhostBondsSet(GhostBonds *gb, PetscInt n, const GhostBond bonds[])
{
  PetscInt m = 0;

  PetscFunctionBegin;
  PetscCall(GhostBondsDestroy(gb));
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  gb->n = n;
  PetscCall(PetscMalloc1(n, &gb->bond));
  PetscCall(PetscArraycpy(gb->bond, bonds, n));
  PetscCall(PetscMalloc3(2 * n, &gb->id, 2 * n, &gb->owner, 2 * n, &gb->local));
  for (PetscInt b = 0; b < n; b++) {
    gb->id[2 * b]     = bonds[b].guest;
    gb->id[2 * b + 1] = bonds[b].host;
  }
  qsort(gb->id, (size_t)(2 * n), sizeof(int64_t), CompareId);
  for (PetscInt k = 0; k < 2 * n; k++)
    if (!m || gb->id[k] != gb->id[m - 1]) gb->id[m++] = gb->id[k];
  gb->nid = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscInt FindId(const GhostBonds *gb, int64_t id)
{
  const int64_t *hit = bsearch(&id, gb->id, (size_t)gb->nid, sizeof(int64_t), CompareId);
  return hit ? (PetscInt)(hit - gb->id) : -1;
}

PetscErrorCode GhostBondsFindOwners(GhostBonds *gb, MPI_Comm comm, PetscMPIInt rank, const BodyStore *s)
{
  PetscFunctionBegin;
  if (!gb->n) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt k = 0; k < gb->nid; k++) {
    gb->owner[k] = -1;
    gb->local[k] = -1;
  }
  for (PetscInt i = 0; i < s->n_owned; i++) { /* O(n log nid): bonds are few, bodies many */
    const PetscInt k = FindId(gb, s->id[i]);
    if (k < 0) continue;
    gb->owner[k] = rank;
    gb->local[k] = i;
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, gb->owner, (PetscMPIInt)gb->nid, MPI_INT, MPI_MAX, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscInt    index;
  PetscMPIInt to;
} BondCopy;

static int CompareCopy(const void *pa, const void *pb)
{
  const BondCopy *a = pa, *b = pb;
  if (a->index != b->index) return a->index < b->index ? -1 : 1;
  return (a->to > b->to) - (a->to < b->to);
}

static int CompareRank(const void *pa, const void *pb)
{
  const PetscMPIInt a = *(const PetscMPIInt *)pa, b = *(const PetscMPIInt *)pb;
  return (a > b) - (a < b);
}

PetscErrorCode GhostBondsCopies(const GhostBonds *gb, PetscMPIInt rank, PetscInt *ncopies, PetscInt **index,
                                PetscMPIInt **to, PetscInt *npeers, PetscMPIInt **peers)
{
  BondCopy *c;
  PetscInt  nc = 0, np = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(gb->n + 1, index, gb->n + 1, to, 2 * gb->n + 1, peers));
  PetscCall(PetscMalloc1(gb->n + 1, &c));
  for (PetscInt b = 0; b < gb->n; b++) {
    const PetscInt    kg = FindId(gb, gb->bond[b].guest), kh = FindId(gb, gb->bond[b].host);
    const PetscMPIInt rg = gb->owner[kg], rh = gb->owner[kh];
    if (rg < 0 || rh < 0 || rg == rh) continue; /* a body gone, or both on one rank */
    if (rg == rank) {
      c[nc].index    = gb->local[kg];
      c[nc++].to     = rh;
      (*peers)[np++] = rh;
    }
    if (rh == rank) (*peers)[np++] = rg;
  }
  qsort(c, (size_t)nc, sizeof(*c), CompareCopy);
  *ncopies = 0;
  for (PetscInt e = 0; e < nc; e++)
    if (!*ncopies || CompareCopy(&c[e], &c[e - 1])) {
      (*index)[*ncopies]  = c[e].index;
      (*to)[(*ncopies)++] = c[e].to;
    }
  qsort(*peers, (size_t)np, sizeof(PetscMPIInt), CompareRank);
  *npeers = 0;
  for (PetscInt e = 0; e < np; e++)
    if (!*npeers || (*peers)[e] != (*peers)[*npeers - 1]) (*peers)[(*npeers)++] = (*peers)[e];
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}
