/* Messages, bytes and collective calls of a ccpdem run, split by the phase of the time step that
 * made them: an MPI profiling (PMPI) library loaded beside ccpdem, which walks each call's stack to
 * the innermost ccpdem function of a fixed list (the ghost build and update, the migration, the
 * solve's coupling, the step's statistics, ...). It counts what this rank sends: point-to-point
 * messages (persistent ones, such as PetscSF's, at each start) with their bytes, and collective
 * calls with this rank's contribution in bytes. Each rank writes its table at MPI_Finalize to
 * $MPI_COUNTS_OUT.<rank> (a CSV: phase,sends,send_bytes,collectives,collective_bytes).
 *
 *   mpicc -O2 -shared -fPIC -o mpi_counts.so jobs/scaling/mpi_counts.c
 *   nm -n --defined-only build/ccpdem > ccpdem.nm
 *   MPI_COUNTS_NM=ccpdem.nm MPI_COUNTS_OUT=/tmp/counts mpiexec -n 2 -x LD_PRELOAD=$PWD/mpi_counts.so \
 *     -x MPI_COUNTS_NM -x MPI_COUNTS_OUT build/ccpdem run SCENARIO.yaml -o OUT
 *
 * A measuring tool, not part of ccpdem (docs/performance.md, "Scaling": the communication table). */
#define _GNU_SOURCE
#include <mpi.h>
#include <execinfo.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Phases by marker: the innermost frame whose function is listed names the phase. */
static const struct {
  const char *fn, *phase;
} markers[] = {
  {"Sum", "coupling: velocity sums (SF reduce + bcast)"},
  {"Reduce", "coupling: scalar Allreduce"},
  {"VelocityCouplingSetUp", "coupling: PetscSF setup"},
  {"ExchangeUpdateGhosts", "ghosts: update in place"},
  {"ExchangeBuildGhosts", "ghosts: build"},
  {"ExchangeHaloWidth", "ghosts: halo width"},
  {"ExchangeDecideMoves", "migration: decision"},
  {"ExchangeMigrateMoves", "migration: bodies"},
  {"ExchangeMigrate", "migration: bodies"},
  {"ImpulseMemoryRoute", "migration: contact memory"},
  {"ImpulseMemoryRouteById", "migration: contact memory"},
  {"Rebalance", "balancing"},
  {"StepStatsCompute", "step statistics"},
  {"CCPSolverSolve", "solve: other"},
  {"SimulationStep", "step: other"},
};
#define NMARK  (sizeof(markers) / sizeof(markers[0]))
#define NPHASE (NMARK + 1) /* the last: outside the steps */

typedef struct {
  long long sends, send_bytes, colls, coll_bytes;
} Count;

static Count     count[NPHASE];
static uintptr_t base;
static struct {
  uintptr_t at;
  int       mark; /* index into markers, -1: none */
} * sym;
static size_t nsym;
static int    loaded;

static int FirstObject(struct dl_phdr_info *info, size_t size, void *data)
{
  (void)size;
  *(uintptr_t *)data = (uintptr_t)info->dlpi_addr;
  return 1; /* the first object is the executable */
}

/* The executable's text symbols (nm -n output in $MPI_COUNTS_NM), each with its marker. */
static void Load(void)
{
  const char *path = getenv("MPI_COUNTS_NM");
  FILE       *f;
  char        line[4096];
  size_t      cap = 0;

  loaded = 1;
  dl_iterate_phdr(FirstObject, &base);
  if (!path || !(f = fopen(path, "r"))) return;
  while (fgets(line, sizeof line, f)) {
    unsigned long long at;
    char               kind, name[4000];
    if (sscanf(line, "%llx %c %3999s", &at, &kind, name) != 3 || (kind != 't' && kind != 'T')) continue;
    if (nsym == cap) {
      cap = cap ? 2 * cap : 4096;
      sym = realloc(sym, cap * sizeof(*sym));
    }
    sym[nsym].at   = (uintptr_t)at;
    sym[nsym].mark = -1;
    for (size_t m = 0; m < NMARK; m++)
      if (!strcmp(name, markers[m].fn)) sym[nsym].mark = (int)m;
    nsym++;
  }
  fclose(f);
}

/* The phase of the current call: markers by the innermost listed frame. */
static int Phase(void)
{
  void *frames[96];
  int   n;

  if (!loaded) Load();
  n = backtrace(frames, 96);
  for (int k = 1; k < n; k++) {
    const uintptr_t a  = (uintptr_t)frames[k] - base;
    size_t          lo = 0, hi = nsym;
    while (hi - lo > 1) { /* the last symbol at or below a */
      const size_t mid = (lo + hi) / 2;
      if (sym[mid].at <= a) lo = mid;
      else hi = mid;
    }
    if (nsym && sym[lo].at <= a && sym[lo].mark >= 0) return sym[lo].mark;
  }
  return NMARK;
}

static long long Bytes(int n, MPI_Datatype t)
{
  int sz = 0;
  PMPI_Type_size(t, &sz);
  return (long long)n * sz;
}

static void Send(int n, MPI_Datatype t)
{
  Count *c = &count[Phase()];
  c->sends++;
  c->send_bytes += Bytes(n, t);
}

static void Coll(long long bytes)
{
  Count *c = &count[Phase()];
  c->colls++;
  c->coll_bytes += bytes;
}

/* persistent sends: request -> bytes */
static struct {
  MPI_Request r;
  long long   bytes;
} * pers;
static size_t npers, cappers;

int MPI_Send_init(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm comm, MPI_Request *r)
{
  int rc = PMPI_Send_init(b, n, t, d, tag, comm, r);
  if (npers == cappers) {
    cappers = cappers ? 2 * cappers : 256;
    pers    = realloc(pers, cappers * sizeof(*pers));
  }
  pers[npers].r       = *r;
  pers[npers++].bytes = Bytes(n, t);
  return rc;
}

static void Started(MPI_Request r)
{
  for (size_t k = 0; k < npers; k++)
    if (pers[k].r == r) {
      Count *c = &count[Phase()];
      c->sends++;
      c->send_bytes += pers[k].bytes;
      return;
    }
}

int MPI_Request_free(MPI_Request *r)
{
  for (size_t k = 0; k < npers; k++)
    if (pers[k].r == *r) {
      pers[k] = pers[--npers];
      break;
    }
  return PMPI_Request_free(r);
}

int MPI_Start(MPI_Request *r)
{
  Started(*r);
  return PMPI_Start(r);
}

int MPI_Startall(int n, MPI_Request r[])
{
  for (int k = 0; k < n; k++) Started(r[k]);
  return PMPI_Startall(n, r);
}

int MPI_Send(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm comm)
{
  Send(n, t);
  return PMPI_Send(b, n, t, d, tag, comm);
}

int MPI_Isend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm comm, MPI_Request *r)
{
  Send(n, t);
  return PMPI_Isend(b, n, t, d, tag, comm, r);
}

int MPI_Issend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm comm, MPI_Request *r)
{
  Send(n, t);
  return PMPI_Issend(b, n, t, d, tag, comm, r);
}

int MPI_Ssend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm comm)
{
  Send(n, t);
  return PMPI_Ssend(b, n, t, d, tag, comm);
}

int MPI_Sendrecv(const void *sb, int sn, MPI_Datatype st, int d, int stag, void *rb, int rn, MPI_Datatype rt, int s,
                 int rtag, MPI_Comm comm, MPI_Status *status)
{
  Send(sn, st);
  return PMPI_Sendrecv(sb, sn, st, d, stag, rb, rn, rt, s, rtag, comm, status);
}

int MPI_Allreduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
  Coll(Bytes(n, t));
  return PMPI_Allreduce(sb, rb, n, t, op, comm);
}

int MPI_Iallreduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm, MPI_Request *r)
{
  Coll(Bytes(n, t));
  return PMPI_Iallreduce(sb, rb, n, t, op, comm, r);
}

int MPI_Reduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm)
{
  Coll(Bytes(n, t));
  return PMPI_Reduce(sb, rb, n, t, op, root, comm);
}

int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm comm)
{
  Coll(Bytes(n, t));
  return PMPI_Bcast(b, n, t, root, comm);
}

int MPI_Allgather(const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm comm)
{
  Coll(Bytes(sn, st));
  return PMPI_Allgather(sb, sn, st, rb, rn, rt, comm);
}

int MPI_Allgatherv(const void *sb, int sn, MPI_Datatype st, void *rb, const int rn[], const int displs[],
                   MPI_Datatype rt, MPI_Comm comm)
{
  Coll(Bytes(sn, st));
  return PMPI_Allgatherv(sb, sn, st, rb, rn, displs, rt, comm);
}

int MPI_Gather(const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, int root, MPI_Comm comm)
{
  Coll(Bytes(sn, st));
  return PMPI_Gather(sb, sn, st, rb, rn, rt, root, comm);
}

int MPI_Gatherv(const void *sb, int sn, MPI_Datatype st, void *rb, const int rn[], const int displs[], MPI_Datatype rt,
                int root, MPI_Comm comm)
{
  Coll(Bytes(sn, st));
  return PMPI_Gatherv(sb, sn, st, rb, rn, displs, rt, root, comm);
}

int MPI_Alltoall(const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm comm)
{
  int size;
  PMPI_Comm_size(comm, &size);
  Coll(Bytes(sn, st) * size);
  return PMPI_Alltoall(sb, sn, st, rb, rn, rt, comm);
}

int MPI_Scan(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
  Coll(Bytes(n, t));
  return PMPI_Scan(sb, rb, n, t, op, comm);
}

int MPI_Exscan(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
  Coll(Bytes(n, t));
  return PMPI_Exscan(sb, rb, n, t, op, comm);
}

int MPI_Reduce_scatter_block(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
  int size;
  PMPI_Comm_size(comm, &size);
  Coll(Bytes(n, t) * size);
  return PMPI_Reduce_scatter_block(sb, rb, n, t, op, comm);
}

int MPI_Barrier(MPI_Comm comm)
{
  Coll(0);
  return PMPI_Barrier(comm);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *r)
{
  Coll(0);
  return PMPI_Ibarrier(comm, r);
}

int MPI_Finalize(void)
{
  const char *out = getenv("MPI_COUNTS_OUT");
  int         rank;

  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (out) {
    char  path[4096];
    FILE *f;
    snprintf(path, sizeof path, "%s.%d", out, rank);
    if ((f = fopen(path, "w"))) {
      fprintf(f, "phase,sends,send_bytes,collectives,collective_bytes\n");
      for (size_t p = 0; p < NPHASE; p++) { /* markers of one phase in one row */
        const char *name = p < NMARK ? markers[p].phase : "outside the steps";
        Count       sum  = {0, 0, 0, 0};
        int         seen = 0;
        for (size_t q = 0; q < p; q++) seen = seen || !strcmp(name, markers[q].phase);
        if (seen) continue;
        for (size_t q = p; q < NPHASE; q++) {
          if (q != p && (q == NMARK || strcmp(name, markers[q].phase))) continue;
          sum.sends += count[q].sends;
          sum.send_bytes += count[q].send_bytes;
          sum.colls += count[q].colls;
          sum.coll_bytes += count[q].coll_bytes;
        }
        if (sum.sends || sum.colls)
          fprintf(f, "%s,%lld,%lld,%lld,%lld\n", name, sum.sends, sum.send_bytes, sum.colls, sum.coll_bytes);
      }
      fclose(f);
    }
  }
  return PMPI_Finalize();
}
