/* Packing a CCP problem into the solvers' layout (ccp/pack.h) and back. */
#include "ccp/pack.h"
#include "base/growth.h"
#include <math.h>
#include <string.h>
#include "ccp/kernels.h"
#include "base/memory_policy.h"

/* Grow *p to hold n elements of size sz (contents not kept), the n on huge pages where the system
 * gives them: the sweeps reach bodies through indices, and with 4 KB pages a pack of 10^5+ bodies
 * misses the TLB on most of them. Only the n in use are advised (on every call), not the
 * headroom: a huge page is resident as a whole once touched, so one straddling the end of the
 * blocks in use held up to 2 MB of headroom (200 bytes per body at 10^4 spheres). */
static PetscErrorCode grow(void **p, size_t *cap, size_t n, size_t sz)
{
  PetscFunctionBegin;
  if (n > *cap) {
    const size_t c = GrowthCapacity(*cap, n);
    PetscCall(PetscFree(*p));
    PetscCall(PetscMalloc(c * sz, p));
    *cap = c;
  }
  MemoryAdviseHugePages(*p, n * sz);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* grow for the body records, on a cache line (release with MemoryFreeAligned): records of whole
 * lines then start on lines (ccp/pack.h), so a Jacobi record is 2 lines and APGD's slots 3. */
static PetscErrorCode grow_aligned(void **p, size_t *cap, size_t n, size_t sz)
{
  PetscFunctionBegin;
  if (n > *cap) {
    const size_t c = GrowthCapacity(*cap, n);
    MemoryFreeAligned(p);
    PetscCall(MemoryAllocAligned(c * sz, SCRATCH_ALIGN, "the packed body records", p));
    *cap = c;
  }
  MemoryAdviseHugePages(*p, n * sz);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Grow *p to hold n elements of size sz, keeping the first `keep`. */
static PetscErrorCode grow_keep(void **p, size_t *cap, size_t keep, size_t n, size_t sz)
{
  PetscFunctionBegin;
  if (n > *cap) {
    const size_t c = GrowthCapacity(*cap, n);
    void        *q;
    PetscCall(PetscMalloc(c * sz, &q));
    if (keep) PetscCall(PetscMemcpy(q, *p, keep * sz));
    PetscCall(PetscFree(*p));
    *p   = q;
    *cap = c;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sorted: contacts by lower solver-body index (a stable counting sort: ties keep problem order) */
static PetscErrorCode SortContacts(CCPPacked *pk, const CCPProblem *P, PetscInt *sorted)
{
  const PetscInt nb = P->nbodies;

  PetscFunctionBegin;
  PetscCall(grow((void **)&pk->count, &pk->count_cap, (size_t)nb + 1, sizeof(PetscInt)));
  PetscCall(PetscArrayzero(pk->count, nb + 1));
  for (PetscInt i = 0; i < P->ncontacts; i++) pk->count[PetscMin(P->contact[i].a, P->contact[i].b) + 1]++;
  for (PetscInt k = 0; k < nb; k++) pk->count[k + 1] += pk->count[k];
  for (PetscInt i = 0; i < P->ncontacts; i++) sorted[pk->count[PetscMin(P->contact[i].a, P->contact[i].b)]++] = i;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int immovable(const CCPPacked *pk, int32_t j)
{
  const CCPBodyMass *B = ccp_body_mass(pk, j);
  return B->im == 0 && B->I[0] == 0 && B->I[1] == 0 && B->I[2] == 0 && B->I[3] == 0 && B->I[4] == 0 && B->I[5] == 0;
}

/* Whether contact c shares a movable body with the filled lanes of block slots perm[0..L). */
static int conflicts(const CCPPacked *pk, const CCPProblem *P, const PetscInt *perm, const Contact *c)
{
  for (int l = 0; l < CCP_LANES && perm[l] >= 0; l++) {
    const Contact *o = &P->contact[perm[l]];
    if ((c->a == o->a || c->a == o->b) && !immovable(pk, c->a)) return 1;
    if ((c->b == o->a || c->b == o->b) && !immovable(pk, c->b)) return 1;
  }
  return 0;
}

#define OPEN_BLOCKS 8 /* conflict-free packing: how many recent blocks a contact may join */

/* Append to perm the blocks of the contacts sorted[0..count): plainly (padding at the end), or
 * conflict-free (no two lanes of a block share a movable body, so the lanes of a block may be
 * updated at once by Gauss-Seidel): each contact joins the oldest of the last OPEN_BLOCKS blocks
 * of this call it does not conflict with, else opens a new one. Deterministic. */
static PetscErrorCode Layout(CCPPacked *pk, const CCPProblem *P, const PetscInt *sorted, PetscInt count,
                             PetscBool conflict_free)
{
  const PetscInt first = pk->nblk;

  PetscFunctionBegin;
  PetscCall(grow_keep((void **)&pk->perm, &pk->perm_cap, (size_t)first * CCP_LANES, (size_t)(first + count) * CCP_LANES,
                      sizeof(PetscInt))); /* worst case: a block per contact */
  if (!conflict_free) {
    const PetscInt nblk = (count + CCP_LANES - 1) / CCP_LANES;
    for (PetscInt slot = 0; slot < nblk * CCP_LANES; slot++)
      pk->perm[first * CCP_LANES + slot] = slot < count ? sorted[slot] : -1;
    pk->nblk += nblk;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt k = 0; k < count; k++) {
    const Contact *c    = &P->contact[sorted[k]];
    PetscInt       q    = PetscMax(pk->nblk - OPEN_BLOCKS, first);
    int            lane = -1;
    for (; q < pk->nblk; q++) {
      const PetscInt *perm = pk->perm + q * CCP_LANES;
      if (perm[CCP_LANES - 1] >= 0 || conflicts(pk, P, perm, c)) continue;
      for (lane = 0; perm[lane] >= 0; lane++) {}
      break;
    }
    if (lane < 0) { /* open a block */
      q = pk->nblk++;
      for (int l = 0; l < CCP_LANES; l++) pk->perm[q * CCP_LANES + l] = -1;
      lane = 0;
    }
    pk->perm[q * CCP_LANES + lane] = sorted[k];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Contacts first, joint blocks after (each part in sorted order), then their blocks. */
static PetscErrorCode LayoutAll(CCPPacked *pk, const CCPProblem *P, PetscBool conflict_free)
{
  const PetscInt nc    = P->ncontacts;
  PetscInt       ncone = 0, nrow = 0, *part;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < nc; k++) nrow += P->contact[k].box != NULL;
  pk->nblk = 0;
  if (!nrow) { /* contact-only: the order as sorted */
    PetscCall(Layout(pk, P, pk->sorted, nc, conflict_free));
    pk->row0 = pk->nblk;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc1(nc, &part));
  for (PetscInt k = 0; k < nc; k++)
    if (!P->contact[pk->sorted[k]].box) part[ncone++] = pk->sorted[k];
  for (PetscInt k = 0, j = ncone; k < nc; k++)
    if (P->contact[pk->sorted[k]].box) part[j++] = pk->sorted[k];
  PetscCall(Layout(pk, P, part, ncone, conflict_free));
  pk->row0 = pk->nblk;
  PetscCall(Layout(pk, P, part + ncone, nrow, conflict_free));
  PetscCall(PetscFree(part));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The lanes' rows of joint block q (>= row0): the RowBox of each lane's joint; padding lanes get
 * the box 0..0, so they stay at zero like the contact padding. */
static void PackRows(CCPPacked *pk, const CCPProblem *P, PetscInt q)
{
  CCPRowBlock *R = &pk->rows[q - pk->row0];
  for (int l = 0; l < CCP_LANES; l++) {
    const PetscInt i   = pk->perm[q * CCP_LANES + l];
    const RowBox  *box = i >= 0 ? P->contact[i].box : NULL;
    for (int k = 0; k < 6; k++) {
      R->b[k][l]  = box ? box->b[k] : 0;
      R->lo[k][l] = box ? box->lo[k] : 0;
      R->hi[k][l] = box ? box->hi[k] : 0;
    }
    for (int k = 0; k < 3; k++) {
      R->u[k][l] = box ? box->u[k] : 0;
      R->w[k][l] = box ? box->w[k] : 0;
    }
  }
}

/* Whether the symmetric matrix (xx, yy, zz, xy, xz, yz) is positive semidefinite: all its
 * principal minors >= 0 (in double: the minors of single-precision entries round only a little). */
static PetscBool sym_semidefinite(const double S[6])
{
  const double xx = S[0], yy = S[1], zz = S[2], xy = S[3], xz = S[4], yz = S[5];
  const double det = xx * (yy * zz - yz * yz) - xy * (xy * zz - yz * xz) + xz * (xy * yz - yy * xz);
  return (PetscBool)(xx >= 0 && yy >= 0 && zz >= 0 && xx * yy - xy * xy >= 0 && xx * zz - xz * xz >= 0 &&
                     yy * zz - yz * yz >= 0 && det >= 0);
}

/* Body i's inverse mass and world inverse inertia into its record, in single precision
 * (ccp/pack.h), unless rounding would make the inertia indefinite: then the packed solvers cannot
 * take the body, and the error says what can. (The rounded matrix is tested first: in the common
 * case it passes, and the unrounded one is not tested at all.) */
static PetscErrorCode StoreInverseMass(const CCPProblem *P, PetscInt i, double im, const double I[6], CCPBodyMass *B)
{
  double rounded[6];

  PetscFunctionBegin;
  B->im = (float)im;
  for (int k = 0; k < 6; k++) B->I[k] = (float)I[k];
  /* read back through volatile: without it GCC 12.2 at -O3 (SLP vectorizer) forwards I[4] and I[5]
   * unrounded into rounded[], and the check passes matrices the record holds indefinite
   * (unit/test_ccp_packed's rounding cases fail) */
  for (int k = 0; k < 6; k++) rounded[k] = ((volatile float *)B->I)[k];
  PetscCheck(sym_semidefinite(rounded) || !sym_semidefinite(I), PETSC_COMM_SELF, PETSC_ERR_SUP,
             "solver body %" PetscInt_FMT " of %" PetscInt_FMT
             ": its world inverse inertia (%g %g %g; %g %g %g) is too ill-conditioned for the packed solvers' "
             "single-precision body records (its principal moments are about 10^7 or more apart). Make the body less "
             "elongated, or run with -ccp_packed false",
             i, P->nbodies, I[0], I[1], I[2], I[3], I[4], I[5]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The bodies' records of `slots` velocity slots from P's body source (before the layout: its
 * conflict test reads them). */
static PetscErrorCode PackBodies(CCPPacked *pk, const CCPProblem *P, int slots)
{
  const PetscInt nb = P->nbodies;

  PetscFunctionBegin;
  pk->body_bytes = CCP_BODY_BYTES(slots);
  pk->mass_at    = CCP_BODY_MASS_AT(slots);
  PetscCheck((size_t)nb + 1 <= UINT32_MAX / pk->body_bytes, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "%" PetscInt_FMT " bodies on one rank: the packed CCP layout holds at most %zu", nb,
             (size_t)(UINT32_MAX / pk->body_bytes) - 1);
  PetscCall(grow_aligned((void **)&pk->body, &pk->body_cap, ((size_t)nb + 1) * pk->body_bytes, 1));
  for (PetscInt i = 0; i <= nb; i++) {
    CCPBodyMass *B = ccp_body_mass(pk, i);
    PetscCall(PetscMemzero(ccp_body_record(pk, i), pk->body_bytes));
    if (i < nb) { /* nb: the padding lanes' dummy, immovable, at rest */
      double im, I[6];
      ccp_problem_body(P, i, &im, I, ccp_body_velocity(pk, i, CCP_SLOT_V));
      PetscCall(StoreInverseMass(P, i, im, I, B));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Packed slot `slot` of the multipliers x <- its contact's P->gamma (3-dof torque entries 0; padding
 * lanes 0): CCPPackedPackGamma, and the build lane by lane while it reads the contact anyway. */
static inline void pack_gamma_lane(const CCPPacked *pk, const CCPProblem *P, PetscInt slot, double *x)
{
  const PetscInt i   = pk->perm[slot];
  const double  *g   = i >= 0 ? ccp_cblock(P->gamma, i) : NULL;
  const int      six = i >= 0 && contact_dof(&P->contact[i]) == 6;
  for (int k = 0; k < ccp_packed_rows(pk); k++) x[ccp_packed_index(pk, slot, k)] = g && (six || k < 3) ? g[k] : 0;
}

/* The build reads the contacts in packed order, which jumps about the problem's key order: each
 * contact's lines (and its warm start) are requested PACK_AHEAD lanes ahead. */
#define PACK_AHEAD 16
static inline void prefetch_contact(const CCPProblem *P, PetscInt i)
{
  if (i < 0) return;
  for (size_t o = 0; o < sizeof(Contact); o += 64) __builtin_prefetch((const char *)&P->contact[i] + o, 0);
  __builtin_prefetch(ccp_cblock(P->gamma, i), 0);
}

PetscErrorCode CCPPackedVectors(CCPPacked *pk, int nvec)
{
  PetscFunctionBegin;
  PetscCheck(nvec >= 1 && nvec <= (int)PETSC_STATIC_ARRAY_LENGTH(pk->g), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "CCPPackedVectors: %d vectors asked, 1 to %d exist", nvec, (int)PETSC_STATIC_ARRAY_LENGTH(pk->g));
  for (int k = 0; k < nvec; k++)
    PetscCall(ScratchPoolGet(&pk->vectors, k, sizeof(double) * ccp_packed_len(pk), 0, (void **)&pk->g[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPPackedBuild(CCPPacked *pk, const CCPProblem *P, int nvec, PetscBool conflict_free, int slots)
{
  const PetscInt nb = P->nbodies, nc = P->ncontacts;

  PetscFunctionBegin;
  pk->nc      = nc;
  pk->nbodies = nb;
  PetscCall(PackBodies(pk, P, slots));
  PetscCall(grow((void **)&pk->sorted, &pk->sorted_cap, (size_t)nc, sizeof(PetscInt)));
  PetscCall(SortContacts(pk, P, pk->sorted));
  PetscCall(LayoutAll(pk, P, conflict_free));
  /* the sort's buffers are done with: not resident beside the blocks during the solve */
  PetscCall(PetscFree(pk->sorted));
  PetscCall(PetscFree(pk->count));
  pk->sorted_cap = pk->count_cap = 0;
  const PetscInt nblk            = pk->nblk;
  pk->all3 = pk->all6 = PETSC_TRUE; /* before the vectors: all3 sets their rows per contact */
  pk->springs         = (PetscBool)(P->terms_fn && P->torque_prev); /* some b_rot may be nonzero (ccp_problem_terms) */
  for (PetscInt i = 0; i < nc; i++) {
    if (contact_dof(&P->contact[i]) == 6) pk->all3 = PETSC_FALSE;
    else pk->all6 = PETSC_FALSE;
    if (!P->terms_fn && P->terms) {
      const double *b = P->terms[i].b_rot;
      if (b[0] != 0 || b[1] != 0 || b[2] != 0) pk->springs = PETSC_TRUE;
    }
  }
  if (pk->all3) pk->springs = PETSC_FALSE;
  if (nblk > pk->row0) {
    PetscCall(grow((void **)&pk->rows, &pk->rows_cap, (size_t)(nblk - pk->row0), sizeof(CCPRowBlock)));
    for (PetscInt q = pk->row0; q < nblk; q++) PackRows(pk, P, q);
  }
  pk->blk_bytes = pk->all3 ? CCP_BLOCK3_BYTES : pk->springs ? sizeof(CCPBlock) : CCP_BLOCK6_BYTES;
  PetscCall(ScratchPoolGet(&pk->vectors, SCRATCH_PACKED_BLOCKS, (size_t)nblk * pk->blk_bytes, 0, (void **)&pk->blk));
  pk->prefetch_blocks = (PetscBool)((size_t)nblk * pk->blk_bytes > CCP_PREFETCH_BLOCKS_ABOVE);
  PetscCall(CCPPackedVectors(pk, nvec));

  for (PetscInt q = 0; q < nblk; q++) {
    CCPBlock *K = ccp_block_at(pk, q);
    PetscCall(PetscMemzero(K, pk->blk_bytes));
    for (int l = 0; l < CCP_LANES; l++) {
      const PetscInt slot = q * CCP_LANES + l;
      if (slot + PACK_AHEAD < nblk * CCP_LANES) prefetch_contact(P, pk->perm[slot + PACK_AHEAD]);
      pack_gamma_lane(pk, P, slot, pk->g[0]);
      if (pk->perm[slot] <
          0) { /* padding: zero geometry on the dummy body, eta and f 1 (any positive: the sweeps divide by f) */
        K->a[l] = K->b[l] = (uint32_t)(nb * pk->body_bytes);
        K->eta[l]         = 1;
        if (!pk->all3) K->f[l] = K->ell[l] = 1;
        K->yield[l] = INFINITY;
        continue;
      }
      const PetscInt     i = pk->perm[slot];
      const Contact     *c = &P->contact[i];
      const size_t       a = (size_t)c->a, b = (size_t)c->b;
      const CCPBodyMass *A = ccp_body_mass(pk, (PetscInt)a), *B = ccp_body_mass(pk, (PetscInt)b);
      const int          dof = contact_dof(c), six = dof == 6;
      CCPContactTerms    t;
      double             tf, tt;

      ccp_problem_terms(P, i, &t);
      const double Ia[6] = {A->I[0], A->I[1], A->I[2], A->I[3], A->I[4], A->I[5]},
                   Ib[6] = {B->I[0], B->I[1], B->I[2], B->I[3], B->I[4], B->I[5]};
      ccp_kernel_traces(c, &t, A->im, Ia, B->im, Ib, &tf,
                        &tt); /* once for eta and the metric, from the rounded masses the sweeps use */
      t.eta = ccp_kernel_eta(dof, tf, tt);
      PetscCall(CCPCheckEta(i, t.eta));
      double n[3];
      for (int k = 0; k < 3; k++) {
        K->n[k][l]  = (float)c->n[k];
        K->ra[k][l] = (float)c->ra[k];
        K->rb[k][l] = (float)c->rb[k];
        n[k] = K->n[k][l]; /* read back: GCC 12.2's SLP vectorizer at -O3 can drop a (double)(float) round trip */
      }
      if (!c->box) { /* the frame's tangents as the sweeps rebuild them from the rounded n (a joint's are in its row
                        block) */
        double u[3], w[3], us;
        v3_tangents_scaled(n, u, w, &us);
        K->us[l] = us;
        K->wt[l] = w[v3_tangent_axis(n)];
      }
      K->a[l]     = (uint32_t)(a * pk->body_bytes);
      K->b[l]     = (uint32_t)(b * pk->body_bytes);
      K->bn[l]    = t.bn;
      K->clin[l]  = (float)t.c_lin;
      K->coh[l]   = (float)t.cohesion_impulse;
      K->yield[l] = (float)t.yield_impulse > 0 ? (float)t.yield_impulse : INFINITY; /* as ccp_problem's 0: none */
      K->mu[l]    = (float)c->mu;
      K->eta[l]   = t.eta;
      if (pk->all3) continue; /* the block ends here (CCP_BLOCK3_BYTES); f = eta */
      K->crot[l] = six ? ccp_terms_c_rot(c, &t) : 0;
      if (pk->springs)
        for (int k = 0; k < 3; k++) K->brot[k][l] = t.b_rot[k];
      K->rho[l]   = six ? (float)c->rho : 0;
      K->sigma[l] = six ? (float)c->sigma : 0;
      ccp_kernel_metric_seed(tf, tt, &K->f[l],
                             &K->ell[l]); /* (a 3-dof lane's is unused: block_metric gives it f = eta) */
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPPackedPackGamma(const CCPPacked *pk, const CCPProblem *P, double *x)
{
  PetscFunctionBegin;
  for (PetscInt slot = 0; slot < pk->nblk * CCP_LANES; slot++) pack_gamma_lane(pk, P, slot, x);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* How many of a packed vector's doubles P->gamma holds (the rest: pk->stash_tail). */
static size_t stash_head(const CCPPacked *pk) { return PetscMin(ccp_packed_len(pk), (size_t)6 * pk->nc); }

PetscErrorCode CCPPackedStash(CCPPacked *pk, const double *x, CCPProblem *P)
{
  const size_t head = stash_head(pk), tail = ccp_packed_len(pk) - head;

  PetscFunctionBegin;
  PetscCheck(tail <= CCP_STASH_TAIL, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "packed vector of %zu doubles for %" PetscInt_FMT " contacts: more padding than CCP_STASH_TAIL allows",
             ccp_packed_len(pk), pk->nc);
  PetscCall(PetscArraycpy(P->gamma, x, head));
  PetscCall(PetscArraycpy(pk->stash_tail, x + head, tail));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void CCPPackedUnstash(const CCPPacked *pk, const CCPProblem *P, double *x)
{
  const size_t head = stash_head(pk), len = ccp_packed_len(pk);
  /* without contacts P->gamma and x are NULL: memcpy with a NULL pointer is undefined even for 0 bytes */
  if (head) memcpy(x, P->gamma, sizeof(double) * head);
  if (len > head) memcpy(x + head, pk->stash_tail, sizeof(double) * (len - head));
}

void CCPPackedUnpackGamma(const CCPPacked *pk, const double *x, CCPProblem *P)
{
  for (PetscInt slot = 0; slot < pk->nblk * CCP_LANES; slot++) {
    if (pk->perm[slot] < 0) continue;
    double *g = ccp_block(P->gamma, pk->perm[slot]);
    for (int k = 0; k < 6; k++) g[k] = k < ccp_packed_rows(pk) ? x[ccp_packed_index(pk, slot, k)] : 0;
  }
}

/* The bodies' velocity slot `slot` as the coupling sees it: body i's 6 values at v + stride i. */
static double *slot_field(const CCPPacked *pk, int slot, size_t *stride)
{
  *stride = pk->body_bytes / sizeof(double);
  return ccp_body_velocity(pk, 0, slot);
}

PetscErrorCode CCPPackedMarkSlot(const CCPPacked *pk, const CCPCoupling *coupling, int slot)
{
  size_t        stride;
  const double *v = slot_field(pk, slot, &stride);
  return CCPCouplingMark(coupling, v, stride);
}

PetscErrorCode CCPPackedSumSlot(CCPPacked *pk, const CCPCoupling *coupling, int slot)
{
  size_t  stride;
  double *v = slot_field(pk, slot, &stride);
  return CCPCouplingSum(coupling, v, stride);
}

PetscErrorCode CCPPackedMark(const CCPPacked *pk, const CCPCoupling *coupling)
{
  return CCPPackedMarkSlot(pk, coupling, CCP_SLOT_V);
}

PetscErrorCode CCPPackedSum(CCPPacked *pk, const CCPCoupling *coupling)
{
  return CCPPackedSumSlot(pk, coupling, CCP_SLOT_V);
}

PetscErrorCode CCPPackedVelocity(CCPPacked *pk, const CCPCoupling *coupling, const CCPProblem *P, const double *x,
                                 PetscBool fresh)
{
  PetscFunctionBegin;
  if (!fresh) { /* (fresh: PackBodies wrote these very values; evaluating the bodies again costs a body source's work
                   per body) */
    for (PetscInt i = 0; i < pk->nbodies; i++) ccp_problem_body(P, i, NULL, NULL, ccp_body_velocity(pk, i, CCP_SLOT_V));
    for (int k = 0; k < 6; k++) ccp_body_velocity(pk, pk->nbodies, CCP_SLOT_V)[k] = 0;
  }
  PetscCall(CCPPackedMark(pk, coupling));
  ccp_sweep_velocity(pk, x);
  PetscCall(CCPPackedSum(pk, coupling));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPPackedResidual(const CCPPacked *pk, const CCPCoupling *coupling, const double *x, int slot,
                                 double *res_max, double *res_rms)
{
  double r[3]; /* sum of squares, contacts, max of squares */

  PetscFunctionBegin;
  ccp_sweep_residual(pk, x, slot, &r[2], &r[0]);
  r[1] = (double)pk->nc;
  PetscCall(CCPCouplingReduce(coupling, r, 3));
  *res_max = sqrt(r[2]);
  *res_rms = r[1] > 0 ? sqrt(r[0] / r[1]) : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPPackedFinish(CCPPacked *pk, const CCPCoupling *coupling, CCPProblem *P, const double *x,
                               double *res_max, double *res_rms)
{
  PetscFunctionBegin;
  CCPPackedUnpackGamma(pk, x, P);
  PetscCall(CCPPackedVelocity(pk, coupling, P, x, PETSC_FALSE));
  PetscCall(CCPPackedResidual(pk, coupling, x, CCP_SLOT_V, res_max, res_rms));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void CCPPackedVelocityOut(const CCPPacked *pk, CCPProblem *P)
{
  for (PetscInt i = 0; i < pk->nbodies; i++)
    for (int k = 0; k < 6; k++) P->vel[6 * i + k] = ccp_body_velocity(pk, i, CCP_SLOT_V)[k];
}

PetscErrorCode CCPPackedReleaseBodies(CCPPacked *pk)
{
  PetscFunctionBegin;
  MemoryFreeAligned((void **)&pk->body);
  pk->body_cap = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CCPPackedDestroy(CCPPacked *pk)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(pk->rows));
  MemoryFreeAligned((void **)&pk->body);
  PetscCall(PetscFree(pk->perm));
  PetscCall(PetscFree(pk->count));
  PetscCall(PetscFree(pk->sorted));
  PetscCall(ScratchPoolDestroy(&pk->vectors));
  PetscCall(PetscMemzero(pk, sizeof(*pk)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
