/* See force_routing.h. */
#include "decomp/force_routing.h"
#include "decomp/messages.h"
#include "penalty/loads.h"
#include <string.h>

/* One load on one body: its storage index on the owner, the contact key, force and torque. */
typedef struct {
  int64_t    body;
  ContactKey key;
  double     load[6];
} Contribution;

static inline int KeyLess(const ContactKey *a, const ContactKey *b)
{
  if (a->ida != b->ida) return a->ida < b->ida;
  if (a->idb != b->idb) return a->idb < b->idb;
  return a->sub < b->sub;
}

/* acc of each owned body with contributions here = their sum from zero in key order (other bodies
 * untouched): a counting sort by body (CSR), then each body's handful of contributions in key order
 * by insertion (local ones arrive in key order already), instead of one O(n log n) sort of all. */
static PetscErrorCode SumByBodyInKeyOrder(const Contribution *all, PetscInt n, PetscInt nown, double acc[])
{
  PetscInt *start, *order;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(nown + 1, &start));
  PetscCall(PetscMalloc1(n + 1, &order));
  for (PetscInt e = 0; e < n; e++) {
    PetscCheck(all[e].body >= 0 && all[e].body < nown, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "ForceRoutingSum: a load for body %" PetscInt64_FMT " of %" PetscInt_FMT " owned",
               (PetscInt64)all[e].body, nown);
    start[all[e].body + 1]++;
  }
  for (PetscInt b = 0; b < nown; b++) start[b + 1] += start[b];
  for (PetscInt e = 0; e < n; e++) order[start[all[e].body]++] = e;
  /* start[b] is now the end of body b's run */
  for (PetscInt b = 0, lo = 0; b < nown; lo = start[b++]) {
    const PetscInt hi = start[b];
    if (hi > lo) memset(acc + 6 * b, 0, sizeof(double) * 6);
    for (PetscInt k = lo + 1; k < hi; k++) {
      const PetscInt t = order[k];
      PetscInt       m = k;
      for (; m > lo && KeyLess(&all[t].key, &all[order[m - 1]].key); m--) order[m] = order[m - 1];
      order[m] = t;
    }
    for (PetscInt k = lo; k < hi; k++) {
      PetscCheck(k == lo || KeyLess(&all[order[k - 1]].key, &all[order[k]].key), PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "ForceRoutingSum: body %" PetscInt_FMT " receives two loads of one contact", b);
      for (int c = 0; c < 6; c++) acc[6 * b + c] += all[order[k]].load[c];
    }
  }
  PetscCall(PetscFree(order));
  PetscCall(PetscFree(start));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ForceRoutingSum(Domain d, const Exchange *ex, const ContactSet *cs, const double load[], double acc[],
                               PetscInt64 *bytes_sent)
{
  const PetscInt nown = ex->n_owned, nbody = ex->n_owned + ex->n_ghost;
  PetscMPIInt    tag, *dest;
  PetscInt       nremote = 0, nlocal = 0, nrecv = 0, *side;
  Contribution  *remote, *all;
  char          *recvbuf = NULL, *mixed;

  PetscFunctionBegin;
  PetscCall(DomainGetTag(d, EXCHANGE_TAG_ROUTE, &tag));
  /* (A, B) of every contact, copied out of the 264-byte records on the one pass that reads them */
  PetscCall(PetscMalloc3(cs->n + 1, &remote, cs->n + 1, &dest, 2 * (size_t)cs->n + 1, &side));
  for (PetscInt i = 0; i < cs->n; i++) {
    const PetscInt b = side[2 * i + 1] = cs->c[i].b;
    side[2 * i]                        = cs->c[i].a;
    PetscCheck(side[2 * i] >= nbody || side[2 * i] < nown, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "ForceRoutingSum: contact %" PetscInt_FMT " has a ghost as body A", i);
    if (b < nown || b >= nbody) continue;
    remote[nremote].body = ex->ghost_owner_index[b - nown];
    remote[nremote].key  = cs->key[i];
    memcpy(remote[nremote].load, load + (size_t)PENALTY_LOAD_WIDTH * i + 6, sizeof(double) * 6);
    dest[nremote++] = ex->ghost_owner_rank[b - nown];
  }
  PetscCall(ExchangeSendToNeighbors(ex->comm, tag, ex->n_neighbors, ex->neighbor, sizeof(Contribution), nremote, dest,
                                    (const char *)remote, &nrecv, &recvbuf,
                                    bytes_sent)); /* ghost owners are neighbours */

  /* Every load on an owned body summed from zero in key order. A body with arrivals (near a cut)
   * gets its local loads and the arrivals sorted together; every other body's loads are all local
   * and come in key order with the contacts: added in place, no record copied. */
  PetscCall(PetscCalloc1(nown + 1, &mixed));
  for (PetscInt e = 0; e < nrecv; e++) {
    Contribution in;
    memcpy(&in, recvbuf + sizeof(Contribution) * (size_t)e, sizeof(in));
    PetscCheck(in.body >= 0 && in.body < nown, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "ForceRoutingSum: a load for body %" PetscInt64_FMT " of %" PetscInt_FMT " owned", (PetscInt64)in.body,
               nown);
    mixed[in.body] = 1;
  }
  memset(acc, 0, sizeof(double) * 6 * (size_t)nown);
  PetscCall(PetscMalloc1(2 * cs->n + nrecv + 1, &all)); /* room for all; only the mixed bodies' part is touched */
  for (PetscInt i = 0; i < cs->n; i++) {
    for (int k = 0; k < 2; k++) {
      const PetscInt body = side[2 * i + k];
      const double  *l    = load + (size_t)PENALTY_LOAD_WIDTH * i + 6 * k;
      if (body >= nown) continue;
      if (!mixed[body]) {
        for (int c = 0; c < 6; c++) acc[6 * body + c] += l[c];
        continue;
      }
      all[nlocal].body = body;
      all[nlocal].key  = cs->key[i];
      memcpy(all[nlocal++].load, l, sizeof(double) * 6);
    }
  }
  if (nrecv) memcpy(all + nlocal, recvbuf, sizeof(Contribution) * (size_t)nrecv);
  if (nlocal + nrecv)
    PetscCall(
      SumByBodyInKeyOrder(all, nlocal + nrecv, nown, acc)); /* none on most ranks most steps: no pass over the bodies */
  PetscCall(PetscFree(all));
  PetscCall(PetscFree(mixed));
  PetscCall(PetscFree(recvbuf));
  PetscCall(PetscFree3(remote, dest, side));
  PetscFunctionReturn(PETSC_SUCCESS);
}
