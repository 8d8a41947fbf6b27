/* Unit test of migration and ghosts (decomp/migration.c, decomp/ghosts.c) at any rank count. Every body is a
 * deterministic function of its id (MakeBody), so each rank can say what any body must look like,
 * and the reference sets come from brute force over all bodies (gathered with MPI_Allgatherv) with
 * the independent geometry of decomp_reference.h. Checks:
 *   - migration from an arbitrary start (each rank creates a scattered share of the ids): every
 *     rank then owns exactly the bodies whose centre is in its (non-uniform) subdomain, sorted by
 *     id, every field intact; bodies outside the domain are dropped and counted, the same count at
 *     every rank count; the total and the set of ids are conserved (sum owned = created - removed);
 *   - a step in which bodies move by more than a subdomain: one tracked body crosses two
 *     subdomains (three ranks or more) and reaches its owner directly; leavers are counted;
 *   - the halo width is 2 r_max + envelope; the ghosts of each rank are exactly the bodies owned
 *     elsewhere whose centre is at distance < w from its box (faces, edges, corners), sorted by id,
 *     all fields equal to the owner's;
 *   - the maps: ghost -> (owner rank, owner index, global index) and owned body -> (rank, ghost
 *     index) point at the right bodies on the other ranks; a rebuild with counts_kept (no
 *     collective) gives the same;
 *   - determinism: two different starting distributions (other creators, reversed creation order)
 *     give bitwise identical stores and maps;
 *   - ExchangeUpdateGhosts copies only the selected fields; ExchangeUpdateArray copies owner ->
 *     ghost; ExchangeReduceArray adds every copy's value to its owner (exact small integers);
 *   - errors on every rank without a hang: a halo wider than a subdomain, migration with ghosts
 *     present, a ghost build with a body outside its rank's subdomain;
 *   - and it prints the bytes sent per body by one ghost build of a 20000-sphere lattice block.
 * All comparisons are exact: the code moves bytes, and the reference evaluates the same
 * closed-form distance (random positions make a tie with w practically impossible). */
// ctest: labels=decomp timeout=60 ranks=2;3;4;8
#include "decomp/ghosts.h"
#include "decomp/migration.h"
#include "decomp_reference.h"
#include "base/vec3.h"
#include <stdlib.h>

#define N_BODIES 3000
#define R_MAX    0.02
#define ENVELOPE 0.004
static const double LO[3] = {0.0, 0.0, 0.0}, HI[3] = {1.0, 0.8, 0.6};

#define TRY(err, call) \
  do { \
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); \
    *(err) = (call); \
    PetscCall(PetscPopErrorHandler()); \
  } while (0)

/* ---- bodies as functions of their id ---- */

static double Hash01(int64_t id, int salt) /* [0, 1), splitmix64 of (id, salt) */
{
  uint64_t z = (uint64_t)id * 0x9E3779B97F4A7C15ull + (uint64_t)salt * 0xD1B54A32D192ED03ull + 0x632BE59BD9B4E019ull;
  z          = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z          = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (double)((z ^ (z >> 31)) >> 11) * 0x1p-53;
}

static int Outside(int64_t id) { return id % 97 == 5; }

/* Body id: every field distinct per body so that any mix-up shows. 1 in 97 starts outside the domain. */
static void MakeBody(int64_t id, BodyRecord *b)
{
  double qn = 0;
  memset(b, 0, sizeof(*b)); /* padding too: records are compared with memcmp */
  b->id[0] = id;
  for (int k = 0; k < 3; k++) b->pos[k] = LO[k] + (HI[k] - LO[k]) * Hash01(id, k);
  if (Outside(id)) {
    const int k = (int)(id % 3);
    b->pos[k]   = (id % 2) ? HI[k] + 0.01 + 0.1 * Hash01(id, 3) : LO[k] - 0.01 - 0.1 * Hash01(id, 3);
  }
  for (int c = 0; c < 4; c++) {
    b->quat[c] = Hash01(id, 10 + c) - 0.5;
    qn += b->quat[c] * b->quat[c];
  }
  for (int c = 0; c < 4; c++) b->quat[c] /= sqrt(qn);
  for (int c = 0; c < 6; c++) b->vel[c] = Hash01(id, 20 + c) - 0.5;
  b->shape[0]  = (id % 2) ? SHAPE_BOX : SHAPE_SPHERE;
  b->radius[0] = R_MAX * (0.5 + 0.5 * Hash01(id, 30));
  for (int c = 0; c < 3; c++) b->size[c] = b->shape[0] == SHAPE_SPHERE ? b->radius[0] : b->radius[0] * (0.3 + 0.2 * c);
  b->mass[0] = 1 + Hash01(id, 31);
  for (int c = 0; c < 3; c++) b->inertia[c] = 0.1 + Hash01(id, 32 + c);
  b->material[0] = (int32_t)(id % 3);
}

/* The body after ExchangeUpdateGhosts' test motion: new position, orientation and velocity. */
static void MovedBody(int64_t id, BodyRecord *b)
{
  MakeBody(id, b);
  for (int k = 0; k < 3; k++) b->pos[k] += 1e-3 * (k + 1) * Hash01(id, 40);
  b->quat[0] = -b->quat[0];
  for (int c = 0; c < 6; c++) b->vel[c] = (double)id + 0.25 * c;
}

/* Creators: start 0 gives body id to rank id % size in increasing id order; start 1 to rank
 * (7 id + 3) % size in decreasing id order. Neither matches the geometry. */
static PetscErrorCode Populate(PetscInt n, int start, PetscMPIInt rank, PetscMPIInt size, BodyStore *s)
{
  BodyRecord b;

  PetscFunctionBegin;
  for (PetscInt e = 0; e < n; e++) {
    const int64_t id      = start == 0 ? e : n - 1 - e;
    const int64_t creator = start == 0 ? id % size : (7 * id + 3) % size;
    if (creator != rank) continue;
    MakeBody(id, &b);
    PetscCall(BodyStoreAppendOwned(s, &b));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void GetRecord(const BodyStore *s, PetscInt i, BodyRecord *b)
{
  memset(b, 0, sizeof(*b));
  BodyStoreGet(s, i, b);
}

/* ---- gathering ---- */

typedef struct {
  PetscMPIInt size, *count, *displs; /* per rank */
  PetscInt    n;
  int64_t    *id;
  double     *pos;
} Gathered;

/* Gather ids (and positions if pos) of bodies [first, first + n) of s, rank by rank. */
static PetscErrorCode Gather(MPI_Comm comm, const int64_t *id, const double *pos, PetscInt n, Gathered *g)
{
  PetscMPIInt mine = (PetscMPIInt)n, *c3, *d3;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &g->size));
  PetscCall(PetscMalloc2(g->size, &g->count, g->size + 1, &g->displs));
  PetscCallMPI(MPI_Allgather(&mine, 1, MPI_INT, g->count, 1, MPI_INT, comm));
  g->displs[0] = 0;
  for (PetscMPIInt r = 0; r < g->size; r++) g->displs[r + 1] = g->displs[r] + g->count[r];
  g->n = g->displs[g->size];
  PetscCall(PetscMalloc2(g->n + 1, &g->id, 3 * g->n + 1, &g->pos));
  PetscCallMPI(MPI_Allgatherv(id, mine, MPI_INT64_T, g->id, g->count, g->displs, MPI_INT64_T, comm));
  if (pos) {
    PetscCall(PetscMalloc2(g->size, &c3, g->size, &d3));
    for (PetscMPIInt r = 0; r < g->size; r++) {
      c3[r] = 3 * g->count[r];
      d3[r] = 3 * g->displs[r];
    }
    PetscCallMPI(MPI_Allgatherv(pos, 3 * mine, MPI_DOUBLE, g->pos, c3, d3, MPI_DOUBLE, comm));
    PetscCall(PetscFree2(c3, d3));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GatheredFree(Gathered *g)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(g->count, g->displs));
  PetscCall(PetscFree2(g->id, g->pos));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CompareInt64(const void *a, const void *b)
{
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* ---- the grid as the test sets it ---- */

/* Slab widths proportional to 1, 2, 1, 2, ... along every cut axis. */
static PetscErrorCode SetUnevenCuts(Domain d, RefGrid *g)
{
  PetscFunctionBegin;
  PetscCall(DomainGetGrid(d, g->dims));
  PetscCall(RefSetComm(d, g));
  PetscCall(DomainGetBounds(d, g->lo, g->hi));
  for (int k = 0; k < 3; k++) {
    const PetscInt p     = g->dims[k];
    const double   total = 1.5 * p - 0.5 * (p % 2);
    double         acc   = 0;
    g->cuts[k][0]        = g->lo[k];
    for (PetscInt i = 1; i < p; i++) {
      acc += (i - 1) % 2 ? 2.0 : 1.0;
      g->cuts[k][i] = g->lo[k] + (g->hi[k] - g->lo[k]) * acc / total;
    }
    g->cuts[k][p] = g->hi[k];
    PetscCall(DomainSetCuts(d, k, g->cuts[k]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static double MinCutSlab(const RefGrid *g)
{
  double m = INFINITY;
  for (int k = 0; k < 3; k++)
    for (PetscInt i = 0; g->dims[k] > 1 && i < g->dims[k]; i++) m = PetscMin(m, g->cuts[k][i + 1] - g->cuts[k][i]);
  return m;
}

/* Reference: the ranks other than `owner` whose box is at distance < w from x, increasing. */
static PetscErrorCode RefCopyRanks(const RefGrid *g, PetscMPIInt size, PetscMPIInt owner, const double x[3], double w,
                                   PetscMPIInt ranks[], PetscInt *n)
{
  PetscFunctionBegin;
  *n = 0;
  for (PetscMPIInt r = 0; r < size; r++) {
    double lo[3], hi[3];
    PetscCall(RefBox(g, r, lo, hi));
    if (r != owner && RefPointBoxDist2(x, lo, hi) < w * w) ranks[(*n)++] = r;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the checks ---- */

/* After ExchangeMigrate of the N_BODIES bodies: ownership, order, fields, conservation. */
static PetscErrorCode CheckMigration(const RefGrid *g, const BodyStore *s, PetscInt removed, PetscInt n_created)
{
  PetscMPIInt rank;
  PetscInt    n_out = 0, bad_owner = 0, bad_field = 0, bad_order = 0, n_in = 0, mismatch = 0;
  Gathered    all;
  BodyRecord  want, got;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(g->comm, &rank));
  for (int64_t id = 0; id < n_created; id++) n_out += Outside(id);
  CHECK(removed == n_out, "migration removed %d bodies, %d were created outside the domain", (int)removed, (int)n_out);
  for (PetscInt i = 0; i < s->n_owned; i++) {
    PetscMPIInt owner;
    PetscCall(RefOwner(g, s->pos + 3 * i, &owner));
    if (owner != rank) bad_owner++;
    if (i && !(s->id[i - 1] < s->id[i])) bad_order++;
    MakeBody(s->id[i], &want);
    GetRecord(s, i, &got);
    if (memcmp(&want, &got, sizeof(want))) bad_field++;
  }
  CHECK(bad_owner == 0, "%d owned bodies are not in this rank's subdomain", (int)bad_owner);
  CHECK(bad_order == 0, "owned bodies not sorted by id (%d inversions)", (int)bad_order);
  CHECK(bad_field == 0, "%d owned bodies have a field that differs from the created body", (int)bad_field);
  PetscCall(Gather(g->comm, s->id, NULL, s->n_owned, &all));
  qsort(all.id, (size_t)all.n, sizeof(int64_t), CompareInt64);
  for (int64_t id = 0; id < n_created; id++) {
    if (Outside(id)) continue;
    if (n_in >= all.n || all.id[n_in] != id) mismatch++;
    n_in++;
  }
  CHECK(all.n == n_created - removed, "sum of owned bodies %d != created %d - removed %d", (int)all.n, (int)n_created,
        (int)removed);
  CHECK(mismatch == 0 && all.n == n_in,
        "the ids owned after migration are not the %d ids created inside the domain (%d differ)", (int)n_in,
        (int)mismatch);
  PetscCall(GatheredFree(&all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After ExchangeBuildGhosts: the ghost set, their fields, the maps. Returns the reference copy
 * ranks of every owned body in CSR (*copy_start, *copy_rank) for the reduce check. */
static PetscErrorCode CheckGhosts(const RefGrid *g, const BodyStore *s, const Exchange *ex, double w,
                                  PetscInt **copy_start, PetscMPIInt **copy_rank)
{
  PetscMPIInt rank, size, owner, near[64];
  PetscInt    nwant = 0, bad_set = 0, bad_field = 0, bad_map = 0, bad_shared = 0, bad_order = 0, nn, ncopy = 0;
  double      mylo[3], myhi[3];
  int64_t    *want;
  Gathered    owned, ghosts;
  BodyRecord  ref, got;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(g->comm, &rank));
  PetscCallMPI(MPI_Comm_size(g->comm, &size));
  PetscCall(RefBox(g, rank, mylo, myhi));
  PetscCall(Gather(g->comm, s->id, s->pos, s->n_owned, &owned));
  PetscCall(Gather(g->comm, s->id + s->n_owned, NULL, s->n_ghost, &ghosts));

  /* the set */
  PetscCall(PetscMalloc1(owned.n + 1, &want));
  for (PetscInt e = 0; e < owned.n; e++) {
    PetscCall(RefOwner(g, owned.pos + 3 * e, &owner));
    if (owner != rank && RefPointBoxDist2(owned.pos + 3 * e, mylo, myhi) < w * w) want[nwant++] = owned.id[e];
  }
  qsort(want, (size_t)nwant, sizeof(int64_t), CompareInt64);
  CHECK(s->n_ghost == nwant && ex->n_ghost == nwant && ex->n_owned == s->n_owned,
        "%d ghosts (exchange says %d), brute force %d", (int)s->n_ghost, (int)ex->n_ghost, (int)nwant);
  for (PetscInt gh = 0; gh < PetscMin(nwant, s->n_ghost); gh++)
    if (s->id[s->n_owned + gh] != want[gh]) bad_set++;
  CHECK(bad_set == 0, "%d ghost ids differ from brute force (ghosts must be sorted by id)", (int)bad_set);

  /* fields and maps */
  for (PetscInt gh = 0; gh < s->n_ghost; gh++) {
    const PetscInt i = s->n_owned + gh;
    if (gh && !(s->id[i - 1] < s->id[i])) bad_order++;
    MakeBody(s->id[i], &ref);
    GetRecord(s, i, &got);
    if (memcmp(&ref, &got, sizeof(ref))) bad_field++;
    PetscCall(RefOwner(g, s->pos + 3 * i, &owner));
    {
      const PetscMPIInt r   = ex->ghost_owner_rank[gh];
      const PetscInt    idx = ex->ghost_owner_index[gh];
      const int ok = r == owner && idx >= 0 && idx < owned.count[r] && owned.id[owned.displs[r] + idx] == s->id[i] &&
                     ex->ghost_global[gh] == owned.displs[r] + idx;
      if (!ok) bad_map++;
    }
  }
  CHECK(bad_order == 0, "ghosts not sorted by id");
  CHECK(bad_field == 0, "%d ghosts have a field that differs from the owner's body", (int)bad_field);
  CHECK(bad_map == 0, "%d ghosts have a wrong (owner rank, owner index, global index)", (int)bad_map);
  CHECK(ex->owned_offset == owned.displs[rank], "owned_offset %d, expected %d", (int)ex->owned_offset,
        owned.displs[rank]);
  CHECK(ex->n_neighbors <= 26, "%d neighbours; the halo rule allows 26 at most", (int)ex->n_neighbors);

  /* owned -> copies */
  PetscCall(PetscMalloc1(s->n_owned + 1, copy_start));
  PetscCall(PetscMalloc1(size * (s->n_owned + 1), copy_rank));
  (*copy_start)[0] = 0;
  for (PetscInt i = 0; i < s->n_owned; i++) {
    const PetscInt a = ex->shared_start[i], b = ex->shared_start[i + 1];
    PetscCall(RefCopyRanks(g, size, rank, s->pos + 3 * i, w, near, &nn));
    PetscBool same = (PetscBool)(b - a == nn);
    for (PetscInt e = 0; same && e < nn; e++) {
      const PetscMPIInt r = ex->shared_rank[a + e];
      const PetscInt    q = ex->shared_ghost[a + e];
      same = (PetscBool)(r == near[e] && q >= 0 && q < ghosts.count[r] && ghosts.id[ghosts.displs[r] + q] == s->id[i]);
    }
    if (!same) bad_shared++;
    for (PetscInt e = 0; e < nn; e++) (*copy_rank)[ncopy++] = near[e];
    (*copy_start)[i + 1] = ncopy;
  }
  CHECK(bad_shared == 0, "%d owned bodies have a wrong list of (rank, ghost index) copies", (int)bad_shared);
  PetscCall(PetscFree(want));
  PetscCall(GatheredFree(&owned));
  PetscCall(GatheredFree(&ghosts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Owner -> ghost copies of selected fields and of an array; ghost -> owner sums. */
static PetscErrorCode CheckUpdates(BodyStore *s, Exchange *ex, const PetscInt copy_start[],
                                   const PetscMPIInt copy_rank[])
{
  const PetscInt nb         = s->n_owned + s->n_ghost;
  PetscInt       bad_motion = 0, bad_kept = 0, bad_all = 0, bad_copy = 0, bad_sum = 0;
  BodyRecord     b, got;
  double        *a;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < s->n_owned; i++) {
    MovedBody(s->id[i], &b);
    BodyStoreSet(s, i, &b);
  }
  for (PetscInt i = s->n_owned; i < nb; i++) s->mass[i] = -1; /* not in the motion fields: must stay */
  PetscCall(ExchangeUpdateGhosts(ex, s, EXCHANGE_FIELDS_MOTION));
  for (PetscInt i = s->n_owned; i < nb; i++) {
    MovedBody(s->id[i], &b);
    if (memcmp(s->pos + 3 * i, b.pos, sizeof(b.pos)) || memcmp(s->quat + 4 * i, b.quat, sizeof(b.quat)) ||
        memcmp(s->vel + 6 * i, b.vel, sizeof(b.vel)))
      bad_motion++;
    if (s->mass[i] != -1) bad_kept++;
  }
  CHECK(bad_motion == 0, "ExchangeUpdateGhosts(motion): %d ghosts lack their owner's position, orientation or velocity",
        (int)bad_motion);
  CHECK(bad_kept == 0, "ExchangeUpdateGhosts(motion) changed the mass of %d ghosts", (int)bad_kept);
  PetscCall(ExchangeUpdateGhosts(ex, s, EXCHANGE_FIELDS_ALL));
  for (PetscInt i = s->n_owned; i < nb; i++) {
    MovedBody(s->id[i], &b);
    GetRecord(s, i, &got);
    if (memcmp(&b, &got, sizeof(b))) bad_all++;
  }
  CHECK(bad_all == 0, "ExchangeUpdateGhosts(all): %d ghosts differ from their owner", (int)bad_all);

  PetscCall(PetscMalloc1(3 * nb + 1, &a));
  for (PetscInt i = 0; i < nb; i++)
    for (int c = 0; c < 3; c++) a[3 * i + c] = i < s->n_owned ? 10.0 * (double)s->id[i] + c : NAN;
  PetscCall(ExchangeUpdateArray(ex, 3, a));
  for (PetscInt i = s->n_owned; i < nb; i++)
    for (int c = 0; c < 3; c++)
      if (a[3 * i + c] != 10.0 * (double)s->id[i] + c) bad_copy++;
  CHECK(bad_copy == 0, "ExchangeUpdateArray: %d ghost entries differ from the owner's", (int)bad_copy);

  /* reduce: owner 0.5, the copy on rank r holds (c + 1)(r + 1); small integers and halves add exactly */
  for (PetscInt i = 0; i < nb; i++)
    for (int c = 0; c < 2; c++) a[2 * i + c] = i < s->n_owned ? 0.5 : (c + 1.0) * (test_rank + 1.0);
  PetscCall(ExchangeReduceArray(ex, 2, a));
  for (PetscInt i = 0; i < s->n_owned; i++)
    for (int c = 0; c < 2; c++) {
      double want = 0.5;
      for (PetscInt e = copy_start[i]; e < copy_start[i + 1]; e++) want += (c + 1.0) * (copy_rank[e] + 1.0);
      if (a[2 * i + c] != want) bad_sum++;
    }
  CHECK(bad_sum == 0, "ExchangeReduceArray: %d owner entries are not the sum over their copies", (int)bad_sum);
  PetscCall(PetscFree(a));
  SAY("updates: motion fields only, all fields, an array owner -> ghost, and sums ghost -> owner are exact\n");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether two stores and their exchanges are bitwise identical. */
static PetscBool SameSystem(const BodyStore *a, const Exchange *xa, const BodyStore *b, const Exchange *xb)
{
  const PetscInt n = a->n_owned + a->n_ghost, ns = xa->shared_start ? xa->shared_start[a->n_owned] : 0;
  if (a->n_owned != b->n_owned || a->n_ghost != b->n_ghost || xa->n_neighbors != xb->n_neighbors) return PETSC_FALSE;
#define SAME_FIELD(type, name, width) \
  if (n && memcmp(a->name, b->name, sizeof(type) * (width) * (size_t)n)) return PETSC_FALSE;
  BODY_FIELDS(SAME_FIELD)
#undef SAME_FIELD
  if (a->n_ghost && (memcmp(xa->ghost_owner_rank, xb->ghost_owner_rank, sizeof(PetscMPIInt) * a->n_ghost) ||
                     memcmp(xa->ghost_owner_index, xb->ghost_owner_index, sizeof(PetscInt) * a->n_ghost)))
    return PETSC_FALSE;
  if (memcmp(xa->shared_start, xb->shared_start, sizeof(PetscInt) * (a->n_owned + 1))) return PETSC_FALSE;
  if (ns && (memcmp(xa->shared_rank, xb->shared_rank, sizeof(PetscMPIInt) * ns) ||
             memcmp(xa->shared_ghost, xb->shared_ghost, sizeof(PetscInt) * ns)))
    return PETSC_FALSE;
  return PETSC_TRUE;
}

/* Create, migrate, build ghosts. */
static PetscErrorCode BuildSystem(Domain d, int start, BodyStore *s, Exchange *ex, PetscInt *removed, double *w)
{
  PetscMPIInt rank, size;
  MPI_Comm    comm;

  PetscFunctionBegin;
  PetscCall(DomainGetComm(d, &comm));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(BodyStoreCreate(s));
  PetscCall(ExchangeCreate(ex));
  PetscCall(Populate(N_BODIES, start, rank, size, s));
  PetscCall(ExchangeMigrate(d, s, removed, NULL));
  PetscCall(ExchangeHaloWidth(d, s, ENVELOPE, w));
  PetscCall(ExchangeBuildGhosts(d, *w, s, ex));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Errors raised on every rank: halo wider than a subdomain, ghosts present at migration, a body
 * outside its rank's subdomain at the ghost build. Consumes s (leaves it without ghosts). */
static PetscErrorCode CheckErrors(Domain d, const RefGrid *g, BodyStore *s, Exchange *ex)
{
  PetscErrorCode err;
  PetscMPIInt    size;
  const double   thin = MinCutSlab(g);

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(g->comm, &size));
  { /* only meaningful where every rank has ghosts (else the ranks without would go on alone) */
    PetscInt has = s->n_ghost > 0, all;
    PetscCallMPI(MPI_Allreduce(&has, &all, 1, MPIU_INT, MPI_MIN, g->comm));
    CHECK(size == 1 || all, "every rank should have ghosts here");
    if (all) {
      TRY(&err, ExchangeMigrate(d, s, NULL, NULL));
      CHECK(err == PETSC_ERR_ARG_WRONGSTATE, "ExchangeMigrate with ghosts present: error %d, expected %d", (int)err,
            PETSC_ERR_ARG_WRONGSTATE);
    }
  }
  if (size > 1) {
    TRY(&err, ExchangeBuildGhosts(d, 1.5 * thin, s, ex));
    CHECK(err == PETSC_ERR_ARG_OUTOFRANGE, "a halo of %g m over a %g m subdomain: error %d, expected %d", 1.5 * thin,
          thin, (int)err, PETSC_ERR_ARG_OUTOFRANGE);
    CHECK(SameOnAllRanks(err), "the halo error is not raised on every rank");
  } else { /* nothing is cut: any halo works, and there is nobody to take ghosts from */
    PetscCall(ExchangeBuildGhosts(d, 2.0, s, ex));
    CHECK(s->n_ghost == 0, "one rank has no ghosts, got %d", (int)s->n_ghost);
  }
  s->n_ghost = 0;
  if (test_rank == size - 1 && s->n_owned) s->pos[0] = HI[0] + 1; /* one rank only */
  TRY(&err, ExchangeBuildGhosts(d, 0.01, s, ex));
  CHECK(err == PETSC_ERR_ARG_WRONGSTATE, "a ghost build with a body outside its subdomain: error %d, expected %d",
        (int)err, PETSC_ERR_ARG_WRONGSTATE);
  CHECK(SameOnAllRanks(err), "the misplaced-body error is not raised on every rank");
  if (size > 1)
    SAY("errors on every rank: halo wider than a %g m subdomain, migration with ghosts, a misplaced body\n", thin);
  else SAY("errors: a misplaced body (one rank: no halo is too wide, no ghosts)\n");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One step in which every body moves +0.55 m along x over slabs along x (many cross two or more
 * slabs, many leave), and one tracked body jumps from the first slab to the third. */
static PetscErrorCode CheckFarMoves(void)
{
  const double dx = 0.55;
  PetscMPIInt  rank, size, owner;
  PetscInt     grid[3], removed, moved_out = 0, crossed2 = 0, bad_owner = 0, n_in, total;
  int64_t      tracked = -1;
  double       target[3];
  Domain       d;
  RefGrid      g;
  BodyStore    s;
  BodyRecord   b, got;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  grid[0] = size, grid[1] = grid[2] = 1;
  PetscCall(DomainCreate(PETSC_COMM_WORLD, LO, HI, grid, &d));
  PetscCall(SetUnevenCuts(d, &g));
  PetscCall(BodyStoreCreate(&s));
  PetscCall(Populate(N_BODIES, 1, rank, size, &s));
  PetscCall(ExchangeMigrate(d, &s, &removed, NULL));
  n_in = N_BODIES - removed;

  /* the reference: the tracked body is the lowest id in slab 0; it goes to the middle of slab 2 */
  for (int64_t id = 0; id < N_BODIES && tracked < 0; id++) {
    MakeBody(id, &b);
    if (!Outside(id) && RefSlab(&g, 0, b.pos[0]) == 0) tracked = id;
  }
  MakeBody(tracked, &b);
  v3_copy(target, b.pos);
  {
    const PetscInt to = PetscMin(2, size - 1);
    target[0]         = 0.5 * (g.cuts[0][to] + g.cuts[0][to + 1]);
  }
  for (int64_t id = 0; id < N_BODIES; id++) {
    double x;
    if (Outside(id) || id == tracked) continue;
    MakeBody(id, &b);
    x = b.pos[0] + dx;
    if (x > HI[0]) moved_out++;
    else if (RefSlab(&g, 0, x) - RefSlab(&g, 0, b.pos[0]) >= 2) crossed2++;
  }
  for (PetscInt i = 0; i < s.n_owned; i++) {
    if (s.id[i] == tracked) v3_copy(s.pos + 3 * i, target);
    else s.pos[3 * i] += dx;
  }
  PetscCall(ExchangeMigrate(d, &s, &removed, NULL));
  CHECK(removed == moved_out, "moving +%g m along x: %d removed, %d left the domain", dx, (int)removed, (int)moved_out);
  for (PetscInt i = 0; i < s.n_owned; i++) {
    PetscCall(RefOwner(&g, s.pos + 3 * i, &owner));
    if (owner != rank) bad_owner++;
    if (s.id[i] == tracked) {
      MakeBody(tracked, &b);
      v3_copy(b.pos, target);
      GetRecord(&s, i, &got);
      CHECK(!memcmp(&b, &got, sizeof(b)), "the tracked body arrived with a changed field");
    }
  }
  CHECK(bad_owner == 0, "%d bodies not in their subdomain after the far moves", (int)bad_owner);
  PetscCall(RefOwner(&g, target, &owner));
  {
    PetscInt here = 0, everywhere;
    for (PetscInt i = 0; i < s.n_owned; i++) here += s.id[i] == tracked;
    CHECK(here == (rank == owner), "the tracked body %lld is %sowned by rank %d, its owner is %d", (long long)tracked,
          here ? "" : "not ", rank, owner);
    PetscCallMPI(MPI_Allreduce(&here, &everywhere, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    CHECK(everywhere == 1, "the tracked body is owned %d times", (int)everywhere);
  }
  PetscCallMPI(MPI_Allreduce(&s.n_owned, &total, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  CHECK(total == n_in - moved_out, "%d bodies after the far moves, expected %d - %d", (int)total, (int)n_in,
        (int)moved_out);
  CHECK(size < 3 || crossed2 > 0, "the scenario should move some bodies across two subdomains");
  SAY("far moves over %d x-slabs: body %lld jumped from slab 0 to slab %d (rank %d), %d more crossed >= 2 slabs, %d "
      "left and were counted\n",
      size, (long long)tracked, (int)PetscMin(2, size - 1), owner, (int)crossed2, (int)moved_out);
  PetscCall(BodyStoreDestroy(&s));
  PetscCall(DomainDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A 40 x 25 x 20 lattice of spheres of radius 5 mm: ghost count against brute force, and the bytes
 * one ghost build sends. */
static PetscErrorCode MeasureBlock(void)
{
  const PetscInt nx = 40, ny = 25, nz = 20, n = nx * ny * nz;
  const double   r = 0.005, spacing = 0.0101, margin = 0.01, envelope = 0.001;
  double         lo[3] = {0, 0, 0}, hi[3], w, mylo[3], myhi[3];
  PetscMPIInt    rank, size, owner;
  PetscInt       removed, nwant = 0, dims[3];
  PetscInt64     mine[3], tot[3];
  Domain         d;
  RefGrid        g;
  BodyStore      s;
  Exchange       ex;
  BodyRecord     b;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  hi[0] = 2 * margin + nx * spacing, hi[1] = 2 * margin + ny * spacing, hi[2] = 2 * margin + nz * spacing;
  PetscCall(DomainCreate(PETSC_COMM_WORLD, lo, hi, NULL, &d));
  PetscCall(DomainGetGrid(d, g.dims));
  PetscCall(RefSetComm(d, &g));
  PetscCall(DomainGetBounds(d, g.lo, g.hi));
  for (int k = 0; k < 3; k++) {
    const double *c;
    PetscCall(DomainGetCuts(d, k, &c)); /* uniform: only the ghost set is checked here, against these */
    PetscCall(PetscArraycpy(g.cuts[k], c, g.dims[k] + 1));
  }
  PetscCall(BodyStoreCreate(&s));
  PetscCall(ExchangeCreate(&ex));
  memset(&b, 0, sizeof(b));
  b.quat[0] = 1, b.shape[0] = SHAPE_SPHERE, b.radius[0] = b.size[0] = b.size[1] = b.size[2] = r, b.mass[0] = 1;
  for (PetscInt id = rank; id < n; id += size) {
    b.id[0]  = id;
    b.pos[0] = margin + (id % nx + 0.5) * spacing;
    b.pos[1] = margin + (id / nx % ny + 0.5) * spacing;
    b.pos[2] = margin + (id / (nx * ny) + 0.5) * spacing;
    PetscCall(BodyStoreAppendOwned(&s, &b));
  }
  PetscCall(ExchangeMigrate(d, &s, &removed, NULL));
  PetscCall(ExchangeHaloWidth(d, &s, envelope, &w));
  PetscCall(ExchangeBuildGhosts(d, w, &s, &ex));
  PetscCall(RefBox(&g, rank, mylo, myhi));
  for (PetscInt id = 0; id < n; id++) {
    const double x[3] = {margin + (id % nx + 0.5) * spacing, margin + (id / nx % ny + 0.5) * spacing,
                         margin + (id / (nx * ny) + 0.5) * spacing};
    PetscCall(RefOwner(&g, x, &owner));
    if (owner != rank && RefPointBoxDist2(x, mylo, myhi) < w * w) nwant++;
  }
  CHECK(removed == 0 && s.n_ghost == nwant, "block: %d ghosts, brute force %d (removed %d)", (int)s.n_ghost, (int)nwant,
        (int)removed);
  mine[0] = s.n_ghost, mine[1] = ex.build_bytes_sent, mine[2] = ex.build_messages_sent;
  PetscCallMPI(MPI_Allreduce(mine, tot, 3, MPIU_INT64, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(DomainGetGrid(d, dims));
  SAY("block of %d spheres, grid %dx%dx%d, halo %.4g m: %lld ghosts, ghost build sent %lld bytes in %lld messages = "
      "%.1f bytes per body, %.1f per ghost\n",
      (int)n, (int)dims[0], (int)dims[1], (int)dims[2], w, (long long)tot[0], (long long)tot[1], (long long)tot[2],
      (double)tot[1] / n, tot[0] ? (double)tot[1] / (double)tot[0] : 0.0);
  PetscCall(ExchangeDestroy(&ex));
  PetscCall(BodyStoreDestroy(&s));
  PetscCall(DomainDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Domain      d;
  RefGrid     g;
  BodyStore   s1, s2;
  Exchange    x1, x2;
  PetscInt    removed1, removed2, *copy_start;
  PetscMPIInt size, *copy_rank;
  double      w1, w2, rmax = 0;
  PetscInt64  ghosts, gsum;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &test_rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  SAY("test_decomp_exchange on %d rank(s)\n", size);
  PetscCall(DomainCreate(PETSC_COMM_WORLD, LO, HI, NULL, &d));
  PetscCall(SetUnevenCuts(d, &g));

  PetscCall(BuildSystem(d, 0, &s1, &x1, &removed1, &w1));
  PetscCall(BuildSystem(d, 1, &s2, &x2, &removed2, &w2));
  for (int64_t id = 0; id < N_BODIES; id++) {
    BodyRecord b;
    MakeBody(id, &b);
    if (!Outside(id)) rmax = PetscMax(rmax, b.radius[0]);
  }
  CHECK(w1 == 2 * rmax + ENVELOPE, "halo width %.17g, expected 2 r_max + envelope = %.17g", w1, 2 * rmax + ENVELOPE);
  CHECK(removed1 == removed2, "the two starts removed %d and %d bodies", (int)removed1, (int)removed2);
  CHECK(SameSystem(&s1, &x1, &s2, &x2),
        "two different starts give different stores or maps after migration and ghost build");
  PetscCall(CheckMigration(&g, &s1, removed1, N_BODIES));
  SAY("migration: %d bodies created on scattered ranks, %d outside the domain removed and counted; ownership, id "
      "order, fields, conservation exact\n",
      N_BODIES, (int)removed1);
  PetscCall(CheckGhosts(&g, &s1, &x1, w1, &copy_start, &copy_rank));
  ghosts = s1.n_ghost;
  PetscCallMPI(MPI_Allreduce(&ghosts, &gsum, 1, MPIU_INT64, MPI_SUM, PETSC_COMM_WORLD));
  SAY("ghosts: halo %.4g m, %lld ghosts in total equal brute force (ids, fields, owner maps, copy lists); two starts "
      "bitwise identical\n",
      w1, (long long)gsum);
  /* a rebuild that keeps the counts (no body added, removed or exchanged since): the same ghosts,
   * maps and owned offset, without the collective */
  PetscCall(PetscFree(copy_start));
  PetscCall(PetscFree(copy_rank));
  s1.n_ghost     = 0;
  x1.counts_kept = PETSC_TRUE;
  PetscCall(ExchangeBuildGhosts(d, w1, &s1, &x1));
  x1.counts_kept = PETSC_FALSE;
  PetscCall(CheckGhosts(&g, &s1, &x1, w1, &copy_start, &copy_rank));
  CHECK(SameSystem(&s1, &x1, &s2, &x2), "a rebuild keeping the counts gives other stores or maps than a full build");
  SAY("ghost rebuild keeping the counts (counts_kept): the same ghosts, maps and owned offset\n");
  PetscCall(CheckUpdates(&s1, &x1, copy_start, copy_rank));
  PetscCall(PetscFree(copy_start));
  PetscCall(PetscFree(copy_rank));
  PetscCall(CheckErrors(d, &g, &s2, &x2));
  PetscCall(ExchangeDestroy(&x1));
  PetscCall(ExchangeDestroy(&x2));
  PetscCall(BodyStoreDestroy(&s1));
  PetscCall(BodyStoreDestroy(&s2));
  PetscCall(DomainDestroy(&d));

  PetscCall(CheckFarMoves());
  PetscCall(MeasureBlock());
  {
    const int code = RefFinish("test_decomp_exchange");
    PetscCall(PetscFinalize());
    return code;
  }
}
