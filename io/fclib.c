/* FCLIB problem files (io/fclib.h): a writer on the parallel HDF5 (rank 0's data, every rank in the
 * collective calls) and readers on one process that check a file before they trust it. */
#include "io/fclib.h"
#include "io/h5.h"
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------
 * Matrices and vectors in memory */

PetscErrorCode FclibMatrixCreate(int m, int n, int nnz, FclibMatrix *A)
{
  PetscFunctionBegin;
  A->m   = m;
  A->n   = n;
  A->nnz = nnz;
  PetscCall(PetscCalloc3((size_t)n + 1, &A->colptr, (size_t)nnz + 1, &A->row, (size_t)nnz + 1, &A->x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FclibMatrixDestroy(FclibMatrix *A)
{
  PetscFunctionBegin;
  PetscCall(PetscFree3(A->colptr, A->row, A->x));
  PetscCall(PetscMemzero(A, sizeof(*A)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void FclibMatMult(const FclibMatrix *A, const double *x, double *y)
{
  for (int j = 0; j < A->n; j++)
    for (int k = A->colptr[j]; k < A->colptr[j + 1]; k++) y[A->row[k]] += A->x[k] * x[j];
}

void FclibMatMultTranspose(const FclibMatrix *A, const double *x, double *y)
{
  for (int j = 0; j < A->n; j++)
    for (int k = A->colptr[j]; k < A->colptr[j + 1]; k++) y[j] += A->x[k] * x[A->row[k]];
}

PetscErrorCode FclibSolutionCreate(int nv, int nr, int nl, FclibSolution *sol)
{
  PetscFunctionBegin;
  sol->nv = nv;
  sol->nr = nr;
  sol->nl = nl;
  PetscCall(
    PetscCalloc4((size_t)nv + 1, &sol->v, (size_t)nr + 1, &sol->u, (size_t)nr + 1, &sol->r, (size_t)nl + 1, &sol->l));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FclibSolutionDestroy(FclibSolution *sol)
{
  PetscFunctionBegin;
  PetscCall(PetscFree4(sol->v, sol->u, sol->r, sol->l));
  PetscCall(PetscMemzero(sol, sizeof(*sol)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Frees a problem's three matrices and its nv vectors. */
static PetscErrorCode FreeParts(FclibMatrix *const mats[3], double **const vecs[], int nv)
{
  PetscFunctionBegin;
  for (int k = 0; k < 3; k++) PetscCall(FclibMatrixDestroy(mats[k]));
  for (int k = 0; k < nv; k++) PetscCall(PetscFree(*vecs[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FclibGlobalDestroy(FclibGlobal *gp)
{
  FclibMatrix *const mats[3] = {&gp->M, &gp->H, &gp->G};
  double **const     vecs[4] = {&gp->f, &gp->w, &gp->mu, &gp->b};

  PetscFunctionBegin;
  PetscCall(FreeParts(mats, vecs, 4));
  PetscCall(PetscMemzero(gp, sizeof(*gp)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FclibLocalDestroy(FclibLocal *lp)
{
  FclibMatrix *const mats[3] = {&lp->W, &lp->V, &lp->R};
  double **const     vecs[3] = {&lp->q, &lp->mu, &lp->s};

  PetscFunctionBegin;
  PetscCall(FreeParts(mats, vecs, 3));
  PetscCall(PetscMemzero(lp, sizeof(*lp)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
 * Writing: every rank takes part in every call; rank 0 writes the rows (FclibWriteGlobal). */

typedef struct {
  MPI_Comm    comm;
  PetscMPIInt rank;
  IoH5Output *out;
} Writer;

/* Dataset name (a path in the file) of n values of memtype (1-D, as libfclib writes them even for
 * one value). */
static PetscErrorCode WriteValues(const Writer *wr, const char *name, hid_t memtype, int n, const void *x)
{
  IoH5Rows rows;

  PetscFunctionBegin;
  PetscCall(IoH5RowsCreate(wr->comm, wr->rank == 0 ? n : 0, &rows));
  PetscCall(IoH5WriteRows(wr->out, name, memtype, 1, &rows, x));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WriteInt(const Writer *wr, const char *name, int value)
{
  PetscFunctionBegin;
  PetscCall(WriteValues(wr, name, H5T_NATIVE_INT, 1, &value));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Group prefix/name with A in compressed columns (nz = -1). */
static PetscErrorCode WriteMatrix(const Writer *wr, const char *prefix, const char *name, const FclibMatrix *A)
{
  char g[64], d[80];

  PetscFunctionBegin;
  PetscCall(IoPathPrintf(g, sizeof(g), "%s/%s", prefix, name));
  PetscCall(IoH5CreateGroup(wr->out, g));
  PetscCall(IoPathPrintf(d, sizeof(d), "%s/nzmax", g));
  PetscCall(WriteInt(wr, d, A->nnz));
  PetscCall(IoPathPrintf(d, sizeof(d), "%s/m", g));
  PetscCall(WriteInt(wr, d, A->m));
  PetscCall(IoPathPrintf(d, sizeof(d), "%s/n", g));
  PetscCall(WriteInt(wr, d, A->n));
  PetscCall(IoPathPrintf(d, sizeof(d), "%s/nz", g));
  PetscCall(WriteInt(wr, d, -1));
  PetscCall(IoPathPrintf(d, sizeof(d), "%s/p", g));
  PetscCall(WriteValues(wr, d, H5T_NATIVE_INT, A->n + 1, A->colptr));
  PetscCall(IoPathPrintf(d, sizeof(d), "%s/i", g));
  PetscCall(WriteValues(wr, d, H5T_NATIVE_INT, A->nnz, A->row));
  PetscCall(IoPathPrintf(d, sizeof(d), "%s/x", g));
  PetscCall(WriteValues(wr, d, H5T_NATIVE_DOUBLE, A->nnz, A->x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Group name with v, u, r (and l when with_l) of sol. */
static PetscErrorCode WriteSolution(const Writer *wr, const char *name, const FclibSolution *sol, PetscBool with_l)
{
  char d[64];

  PetscFunctionBegin;
  PetscCall(IoH5CreateGroup(wr->out, name));
  PetscCall(IoPathPrintf(d, sizeof(d), "%s/v", name));
  PetscCall(WriteValues(wr, d, H5T_NATIVE_DOUBLE, sol->nv, sol->v));
  PetscCall(IoPathPrintf(d, sizeof(d), "%s/u", name));
  PetscCall(WriteValues(wr, d, H5T_NATIVE_DOUBLE, sol->nr, sol->u));
  PetscCall(IoPathPrintf(d, sizeof(d), "%s/r", name));
  PetscCall(WriteValues(wr, d, H5T_NATIVE_DOUBLE, sol->nr, sol->r));
  if (with_l) {
    PetscCall(IoPathPrintf(d, sizeof(d), "%s/l", name));
    PetscCall(WriteValues(wr, d, H5T_NATIVE_DOUBLE, sol->nl, sol->l));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every group and dataset of the file (one pass of io/h5.h IoH5Output). */
static PetscErrorCode WriteGlobalGroups(const Writer *wr, const FclibGlobal *gp, const int has[3],
                                        const FclibSolution *sol, const FclibSolution *guess)
{
  PetscFunctionBegin;
  PetscCall(IoH5CreateGroup(wr->out, "fclib_global"));
  PetscCall(WriteInt(wr, "fclib_global/spacedim", 3));
  PetscCall(WriteMatrix(wr, "fclib_global", "M", &gp->M));
  PetscCall(WriteMatrix(wr, "fclib_global", "H", &gp->H));
  if (has[2]) PetscCall(WriteMatrix(wr, "fclib_global", "G", &gp->G));
  PetscCall(IoH5CreateGroup(wr->out, "fclib_global/vectors"));
  PetscCall(WriteValues(wr, "fclib_global/vectors/f", H5T_NATIVE_DOUBLE, gp->M.m, gp->f));
  PetscCall(WriteValues(wr, "fclib_global/vectors/w", H5T_NATIVE_DOUBLE, gp->H.n, gp->w));
  PetscCall(WriteValues(wr, "fclib_global/vectors/mu", H5T_NATIVE_DOUBLE, gp->H.n / 3, gp->mu));
  if (has[2]) PetscCall(WriteValues(wr, "fclib_global/vectors/b", H5T_NATIVE_DOUBLE, gp->G.n, gp->b));
  PetscCall(IoH5CreateGroup(wr->out, "fclib_global/info"));
  PetscCall(IoH5WriteString(wr->out, "fclib_global/info/title", gp->title));
  PetscCall(IoH5WriteString(wr->out, "fclib_global/info/description", gp->description));
  if (has[0]) PetscCall(WriteSolution(wr, "solution", sol, (PetscBool)has[2]));
  if (has[1]) {
    PetscCall(IoH5CreateGroup(wr->out, "guesses"));
    PetscCall(WriteInt(wr, "guesses/number_of_guesses", 1));
    PetscCall(WriteSolution(wr, "guesses/1", guess, (PetscBool)has[2]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FclibWriteGlobal(MPI_Comm comm, const char *path, const FclibGlobal *gp, const FclibSolution *sol,
                                const FclibSolution *guess, char *err, size_t errlen)
{
  IoH5Output out;
  Writer     wr = {.comm = comm, .out = &out};
  int        has[3]; /* rank 0's: a solution, a guess, bilateral constraints (which groups every rank creates) */

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &wr.rank));
  has[0] = sol != NULL;
  has[1] = guess != NULL;
  has[2] = gp->G.n > 0;
  PetscCallMPI(MPI_Bcast(has, 3, MPI_INT, 0, comm));
  PetscCall(IoH5OutputBegin(comm, path, &out));
  PetscCall(WriteGlobalGroups(&wr, gp, has, sol, guess)); /* measures */
  PetscCall(IoH5OutputCreate(&out));
  PetscCall(WriteGlobalGroups(&wr, gp, has, sol, guess));
  PetscCall(IoH5OutputFinish(&out, err, errlen));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
 * Reading: one process; every failure of the file is one line in err (the path added last). */

typedef struct {
  hid_t   file;
  hsize_t bytes; /* the file's size: no uncompressed dataset can hold more */
  char   *err;
  size_t  errlen;
} Reader;

/* The length of 1-D dataset name of type class cls and element size elem, checked to fit the
 * file; *len 0 and err set if it is missing or does not fit. */
static PetscErrorCode Length(Reader *rd, const char *name, H5T_class_t cls, size_t elem, hsize_t *len)
{
  hid_t   dset, type, space, dcpl;
  hsize_t dims[H5S_MAX_RANK];
  int     ndims, nfilters;

  PetscFunctionBegin;
  *len = 0;
  if (rd->err[0]) PetscFunctionReturn(PETSC_SUCCESS);
  if (H5Lexists(rd->file, name, H5P_DEFAULT) <= 0 || H5Oexists_by_name(rd->file, name, H5P_DEFAULT) <= 0 ||
      (dset = H5Dopen2(rd->file, name, H5P_DEFAULT)) < 0) {
    snprintf(rd->err, rd->errlen, "dataset %s is missing", name);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  CCPDEM_H5_ID(type, H5Dget_type(dset));
  CCPDEM_H5_ID(space, H5Dget_space(dset));
  CCPDEM_H5_ID(dcpl, H5Dget_create_plist(dset));
  ndims    = H5Sget_simple_extent_dims(space, dims, NULL);
  nfilters = H5Pget_nfilters(dcpl);
  if (H5Tget_class(type) != cls || H5Tget_size(type) != elem)
    snprintf(rd->err, rd->errlen, "dataset %s holds %s values (%zu bytes each) instead of %s of %zu bytes", name,
             H5Tget_class(type) == H5T_INTEGER ? "integer" : (H5Tget_class(type) == H5T_FLOAT ? "float" : "other"),
             H5Tget_size(type), cls == H5T_INTEGER ? "integers" : "floats", elem);
  else if (ndims != 1) snprintf(rd->err, rd->errlen, "dataset %s has %d dimensions instead of 1", name, ndims);
  else if (nfilters == 0 && dims[0] > rd->bytes / elem)
    snprintf(rd->err, rd->errlen, "dataset %s claims %llu values, more than the %llu-byte file holds", name,
             (unsigned long long)dims[0], (unsigned long long)rd->bytes);
  else *len = dims[0];
  CCPDEM_H5(H5Pclose(dcpl));
  CCPDEM_H5(H5Sclose(space));
  CCPDEM_H5(H5Tclose(type));
  CCPDEM_H5(H5Dclose(dset));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Expect dataset name to hold exactly n values (what, for the message: where n comes from). */
static PetscErrorCode Expect(Reader *rd, const char *name, H5T_class_t cls, size_t elem, hsize_t n, const char *what)
{
  hsize_t len;

  PetscFunctionBegin;
  PetscCall(Length(rd, name, cls, elem, &len));
  if (!rd->err[0] && len != n)
    snprintf(rd->err, rd->errlen, "dataset %s has %llu values, expected %llu (%s)", name, (unsigned long long)len,
             (unsigned long long)n, what);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads the n values of dataset name (its length checked before) into buf. */
static PetscErrorCode ReadValues(Reader *rd, const char *name, hid_t memtype, hsize_t n, void *buf)
{
  IoH5Rows rows;

  PetscFunctionBegin;
  if (rd->err[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(IoH5RowsCreateSplit(PETSC_COMM_SELF, n, &rows));
  PetscCall(IoH5ReadRows(rd->file, name, memtype, 1, &rows, buf, rd->err, rd->errlen));
  PetscCall(IoH5RowsDestroy(&rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReadInt(Reader *rd, const char *name, int *value)
{
  PetscFunctionBegin;
  *value = 0;
  PetscCall(Expect(rd, name, H5T_INTEGER, sizeof(int), 1, "a scalar"));
  PetscCall(ReadValues(rd, name, H5T_NATIVE_INT, 1, value));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n doubles of dataset name into a new array *x (NULL on error), every one finite (and >= 0 when nonneg). */
static PetscErrorCode ReadDoubles(Reader *rd, const char *name, hsize_t n, PetscBool nonneg, double **x)
{
  PetscFunctionBegin;
  *x = NULL;
  if (rd->err[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1((size_t)n + 1, x));
  PetscCall(ReadValues(rd, name, H5T_NATIVE_DOUBLE, n, *x));
  for (hsize_t k = 0; k < n && !rd->err[0]; k++)
    if (!isfinite((*x)[k]) || (nonneg && (*x)[k] < 0))
      snprintf(rd->err, rd->errlen, "dataset %s has value %g at index %llu (%s needed)", name, (*x)[k],
               (unsigned long long)k, nonneg ? "a finite value >= 0" : "a finite value");
  if (rd->err[0]) PetscCall(PetscFree(*x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether name is a group (opening it as one works); HDF5's printing is off while reading. */
static PetscBool GroupExists(Reader *rd, const char *name)
{
  hid_t g;
  if (H5Lexists(rd->file, name, H5P_DEFAULT) <= 0 || (g = H5Gopen2(rd->file, name, H5P_DEFAULT)) < 0)
    return PETSC_FALSE;
  H5Gclose(g);
  return PETSC_TRUE;
}

/* A matrix group's header: its sizes and form, every dataset's length checked against them and the file. */
typedef struct {
  char name[96];
  int  m, n, nz, nzmax;
  int  entries; /* the (row, column, value) entries the file lists: nz for triplets, else nzmax */
  int  xlen;    /* the length of x: entries, or for triplets written by old libfclib nzmax */
} MatrixHeader;

static PetscErrorCode ReadMatrixHeader(Reader *rd, const char *group, MatrixHeader *h)
{
  char    p[128], i[128], x[128];
  hsize_t plen = 0, xlen = 0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(h, sizeof(*h)));
  snprintf(h->name, sizeof(h->name), "%s", group);
  if (rd->err[0]) PetscFunctionReturn(PETSC_SUCCESS);
  if (!GroupExists(rd, group)) {
    snprintf(rd->err, rd->errlen, "group %s (a sparse matrix) is missing", group);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  snprintf(p, sizeof(p), "%s/nzmax", group);
  PetscCall(ReadInt(rd, p, &h->nzmax));
  snprintf(p, sizeof(p), "%s/m", group);
  PetscCall(ReadInt(rd, p, &h->m));
  snprintf(p, sizeof(p), "%s/n", group);
  PetscCall(ReadInt(rd, p, &h->n));
  snprintf(p, sizeof(p), "%s/nz", group);
  PetscCall(ReadInt(rd, p, &h->nz));
  if (rd->err[0]) PetscFunctionReturn(PETSC_SUCCESS);
  if (h->m < 0 || h->n < 0 || h->nzmax < 0 || h->nz < -2 || h->m == INT_MAX || h->n == INT_MAX) {
    snprintf(rd->err, rd->errlen, "matrix %s has m %d, n %d, nzmax %d, nz %d (sizes >= 0 and nz >= -2 needed)", group,
             h->m, h->n, h->nzmax, h->nz);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  snprintf(p, sizeof(p), "%s/p", group);
  snprintf(i, sizeof(i), "%s/i", group);
  snprintf(x, sizeof(x), "%s/x", group);
  h->entries = h->nz >= 0 ? h->nz : h->nzmax;
  if (h->nz >= 0) PetscCall(Expect(rd, p, H5T_INTEGER, sizeof(int), (hsize_t)h->nz, "nz: triplet rows"));
  else {
    const int npointers = h->nz == -1 ? h->n + 1 : h->m + 1;
    PetscCall(Length(rd, p, H5T_INTEGER, sizeof(int), &plen));
    if (!rd->err[0] && plen != (hsize_t)npointers)
      snprintf(rd->err, rd->errlen, "dataset %s has %llu values, expected %d (%s + 1 pointers of compressed %s)", p,
               (unsigned long long)plen, npointers, h->nz == -1 ? "n" : "m", h->nz == -1 ? "columns" : "rows");
  }
  PetscCall(Expect(rd, i, H5T_INTEGER, sizeof(int), (hsize_t)h->entries, h->nz >= 0 ? "nz" : "nzmax"));
  PetscCall(Length(rd, x, H5T_FLOAT, sizeof(double), &xlen));
  if (!rd->err[0] && xlen != (hsize_t)h->entries && !(h->nz >= 0 && xlen == (hsize_t)h->nzmax && h->nzmax >= h->nz))
    snprintf(rd->err, rd->errlen, "dataset %s has %llu values, expected %d (%s)", x, (unsigned long long)xlen,
             h->entries, h->nz >= 0 ? "nz" : "nzmax");
  h->xlen = (int)xlen;
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  int    row;
  double x;
} RowValue;

static int CompareRows(const void *a, const void *b)
{
  const int ra = ((const RowValue *)a)->row, rb = ((const RowValue *)b)->row;
  return (ra > rb) - (ra < rb);
}

/* A from the triplets (row[k], col[k], x[k]), k < ne: compressed columns, rows ascending, duplicates summed. */
static PetscErrorCode MatrixFromTriplets(int m, int n, int ne, const int *row, const int *col, const double *x,
                                         FclibMatrix *A)
{
  RowValue *e;
  int      *next, nnz = 0;

  PetscFunctionBegin;
  PetscCall(FclibMatrixCreate(m, n, ne, A));
  PetscCall(PetscMalloc2((size_t)ne + 1, &e, (size_t)n + 1, &next));
  for (int k = 0; k < ne; k++) A->colptr[col[k] + 1]++;
  for (int j = 0; j < n; j++) A->colptr[j + 1] += A->colptr[j];
  for (int j = 0; j < n; j++) next[j] = A->colptr[j];
  for (int k = 0; k < ne; k++) e[next[col[k]]++] = (RowValue){row[k], x[k]};
  for (int j = 0; j < n; j++) {
    const int begin = A->colptr[j], end = A->colptr[j + 1];
    qsort(e + begin, (size_t)(end - begin), sizeof(RowValue), CompareRows);
    A->colptr[j] = nnz;
    for (int k = begin; k < end; k++) {
      if (k > begin && e[k].row == e[k - 1].row) A->x[nnz - 1] += e[k].x;
      else {
        A->row[nnz] = e[k].row;
        A->x[nnz++] = e[k].x;
      }
    }
  }
  A->colptr[n] = nnz;
  A->nnz       = nnz;
  PetscCall(PetscFree2(e, next));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The matrix of header h (checked before), its pointers and indices checked, in compressed columns. */
static PetscErrorCode ReadMatrix(Reader *rd, const MatrixHeader *h, FclibMatrix *A)
{
  char    name[128];
  int    *p = NULL, *idx = NULL, *row = NULL, *col = NULL;
  double *x  = NULL;
  int     ne = h->entries, np = h->nz == -1 ? h->n + 1 : (h->nz == -2 ? h->m + 1 : h->nz);

  PetscFunctionBegin;
  PetscCall(PetscMemzero(A, sizeof(*A)));
  if (rd->err[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc4((size_t)np + 1, &p, (size_t)ne + 1, &idx, (size_t)ne + 1, &row, (size_t)ne + 1, &col));
  snprintf(name, sizeof(name), "%s/p", h->name);
  PetscCall(ReadValues(rd, name, H5T_NATIVE_INT, (hsize_t)np, p));
  snprintf(name, sizeof(name), "%s/i", h->name);
  PetscCall(ReadValues(rd, name, H5T_NATIVE_INT, (hsize_t)ne, idx));
  snprintf(name, sizeof(name), "%s/x", h->name);
  PetscCall(ReadDoubles(rd, name, (hsize_t)h->xlen, PETSC_FALSE, &x));
  if (!rd->err[0] && h->nz < 0) { /* compressed: pointers from 0, nondecreasing, to at most nzmax */
    if (p[0] != 0) snprintf(rd->err, rd->errlen, "matrix %s: its first pointer p[0] is %d, not 0", h->name, p[0]);
    for (int k = 0; k + 1 < np && !rd->err[0]; k++)
      if (p[k + 1] < p[k] || p[k + 1] > h->nzmax)
        snprintf(rd->err, rd->errlen, "matrix %s: pointer p[%d] = %d is out of order (p[k] <= p[k+1] <= nzmax %d)",
                 h->name, k + 1, p[k + 1], h->nzmax);
    if (!rd->err[0]) {
      ne = p[np - 1];
      for (int k = 0; k + 1 < np; k++)
        for (int e = p[k]; e < p[k + 1]; e++) {
          row[e] = h->nz == -1 ? idx[e] : k;
          col[e] = h->nz == -1 ? k : idx[e];
        }
    }
  } else if (!rd->err[0])
    for (int e = 0; e < ne; e++) {
      row[e] = p[e];
      col[e] = idx[e];
    }
  for (int e = 0; e < ne && !rd->err[0]; e++)
    if (row[e] < 0 || row[e] >= h->m || col[e] < 0 || col[e] >= h->n)
      snprintf(rd->err, rd->errlen, "matrix %s: entry %d at (%d, %d) lies outside its %d x %d", h->name, e, row[e],
               col[e], h->m, h->n);
  if (!rd->err[0]) PetscCall(MatrixFromTriplets(h->m, h->n, ne, row, col, x, A));
  PetscCall(PetscFree4(p, idx, row, col));
  PetscCall(PetscFree(x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* name (a fixed-length string dataset) into s, truncated to len; "" if absent or not such a string. */
static void ReadString(Reader *rd, const char *name, char *s, size_t len)
{
  hid_t dset, type, mem;

  s[0] = 0;
  if (H5Lexists(rd->file, name, H5P_DEFAULT) <= 0 || (dset = H5Dopen2(rd->file, name, H5P_DEFAULT)) < 0) return;
  type = H5Dget_type(dset);
  if (type >= 0 && H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) == 0 && H5Tget_size(type) < (1 << 16)) {
    const size_t size = H5Tget_size(type);
    char        *buf  = calloc(size + 1, 1);
    mem               = H5Tcopy(H5T_C_S1);
    if (buf && mem >= 0 && H5Tset_size(mem, size + 1) >= 0 &&
        H5Dread(dset, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0)
      snprintf(s, len, "%s", buf);
    if (mem >= 0) H5Tclose(mem);
    free(buf);
  }
  if (type >= 0) H5Tclose(type);
  H5Dclose(dset);
}

/* Opens path read-only on this process (rd->file, rd->bytes); err set (and no file) if it cannot. */
static PetscErrorCode Open(const char *path, Reader *rd)
{
  struct stat st;
  hid_t       fapl;

  PetscFunctionBegin;
  rd->file = -1;
  if (access(path, R_OK) || stat(path, &st) || !S_ISREG(st.st_mode)) {
    snprintf(rd->err, rd->errlen, "cannot be read; give the path of an FCLIB problem file (.hdf5)");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  rd->bytes = (hsize_t)st.st_size;
  CCPDEM_H5_ID(fapl, H5Pcreate(H5P_FILE_ACCESS));
  CCPDEM_H5(H5Pset_fapl_mpio(fapl, PETSC_COMM_SELF, MPI_INFO_NULL)); /* the row reader's transfers are MPI-IO ones */
  rd->file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  CCPDEM_H5(H5Pclose(fapl));
  if (rd->file < 0) snprintf(rd->err, rd->errlen, "is not an HDF5 file; give an FCLIB problem file (.hdf5)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The problem's spacedim must be 3. */
static PetscErrorCode CheckSpacedim(Reader *rd, const char *top)
{
  char name[64];
  int  d;

  PetscFunctionBegin;
  snprintf(name, sizeof(name), "%s/spacedim", top);
  PetscCall(ReadInt(rd, name, &d));
  if (!rd->err[0] && d != 3)
    snprintf(rd->err, rd->errlen, "%s is %d: ccpdem solves 3-D contact problems (spacedim 3) only", name, d);
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef PetscErrorCode (*ReadFn)(Reader *rd, void *out);

/* Runs read on path with HDF5's own error printing off (a bad file gets one line, not HDF5's
 * stack) and the path put before the message. */
static PetscErrorCode ReadQuietly(const char *path, ReadFn read, void *out, char *err, size_t errlen)
{
  Reader         rd = {.err = err, .errlen = errlen};
  H5E_auto2_t    old_func;
  void          *old_data;
  PetscErrorCode ierr;
  char           msg[512];

  PetscFunctionBegin;
  err[0] = 0;
  CCPDEM_H5(H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data));
  CCPDEM_H5(H5Eset_auto2(H5E_DEFAULT, NULL, NULL));
  ierr = Open(path, &rd);
  if (!ierr && !err[0]) ierr = read(&rd, out);
  if (rd.file >= 0) (void)H5Fclose(rd.file);
  CCPDEM_H5(H5Eset_auto2(H5E_DEFAULT, old_func, old_data));
  PetscCall(ierr);
  if (err[0]) {
    PetscCall(PetscStrncpy(msg, err, sizeof(msg)));
    snprintf(err, errlen, "%s: %s", path, msg);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReadGlobal(Reader *rd, void *out)
{
  FclibGlobal *gp = (FclibGlobal *)out;
  MatrixHeader M, H, G;
  hsize_t      nf = 0, nw = 0, nmu = 0, nb = 0;
  const char  *top = "/fclib_global";

  PetscFunctionBegin;
  PetscCall(CheckSpacedim(rd, top));
  PetscCall(ReadMatrixHeader(rd, "/fclib_global/M", &M));
  PetscCall(ReadMatrixHeader(rd, "/fclib_global/H", &H));
  if (!rd->err[0] && GroupExists(rd, "/fclib_global/G")) PetscCall(ReadMatrixHeader(rd, "/fclib_global/G", &G));
  else PetscCall(PetscMemzero(&G, sizeof(G)));
  if (!rd->err[0] && !GroupExists(rd, "/fclib_global/vectors"))
    snprintf(rd->err, rd->errlen, "group /fclib_global/vectors is missing");
  PetscCall(Length(rd, "/fclib_global/vectors/f", H5T_FLOAT, sizeof(double), &nf));
  PetscCall(Length(rd, "/fclib_global/vectors/w", H5T_FLOAT, sizeof(double), &nw));
  PetscCall(Length(rd, "/fclib_global/vectors/mu", H5T_FLOAT, sizeof(double), &nmu));
  if (G.n > 0) PetscCall(Length(rd, "/fclib_global/vectors/b", H5T_FLOAT, sizeof(double), &nb));
  if (rd->err[0]) PetscFunctionReturn(PETSC_SUCCESS);
  /* the sizes agree with each other before anything of their size is allocated */
  if (M.m != M.n || (hsize_t)M.m != nf)
    snprintf(rd->err, rd->errlen, "M is %d x %d and f has %llu values: M must be n x n with n the length of f", M.m,
             M.n, (unsigned long long)nf);
  else if (H.m != M.m || H.n % 3 || (hsize_t)H.n != nw || (hsize_t)(H.n / 3) != nmu)
    snprintf(rd->err, rd->errlen,
             "H is %d x %d, w has %llu values and mu %llu: H must be n x m (n = %d, the size of M) with m = 3 per "
             "contact, the length of w, and mu one value per contact",
             H.m, H.n, (unsigned long long)nw, (unsigned long long)nmu, M.m);
  else if (G.n > 0 && (G.m != M.m || (hsize_t)G.n != nb))
    snprintf(rd->err, rd->errlen, "G is %d x %d and b has %llu values: G must be n x p (n = %d) with p the length of b",
             G.m, G.n, (unsigned long long)nb, M.m);
  PetscCall(ReadMatrix(rd, &M, &gp->M));
  PetscCall(ReadMatrix(rd, &H, &gp->H));
  if (G.n > 0) PetscCall(ReadMatrix(rd, &G, &gp->G));
  PetscCall(ReadDoubles(rd, "/fclib_global/vectors/f", nf, PETSC_FALSE, &gp->f));
  PetscCall(ReadDoubles(rd, "/fclib_global/vectors/w", nw, PETSC_FALSE, &gp->w));
  PetscCall(ReadDoubles(rd, "/fclib_global/vectors/mu", nmu, PETSC_TRUE, &gp->mu));
  if (G.n > 0) PetscCall(ReadDoubles(rd, "/fclib_global/vectors/b", nb, PETSC_FALSE, &gp->b));
  ReadString(rd, "/fclib_global/info/title", gp->title, sizeof(gp->title));
  ReadString(rd, "/fclib_global/info/description", gp->description, sizeof(gp->description));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReadLocal(Reader *rd, void *out)
{
  FclibLocal  *lp = (FclibLocal *)out;
  MatrixHeader W, V, R;
  hsize_t      nq = 0, nmu = 0, ns = 0;
  const char  *top = "/fclib_local";

  PetscFunctionBegin;
  PetscCall(CheckSpacedim(rd, top));
  PetscCall(ReadMatrixHeader(rd, "/fclib_local/W", &W));
  PetscCall(PetscMemzero(&V, sizeof(V)));
  PetscCall(PetscMemzero(&R, sizeof(R)));
  if (!rd->err[0] && (GroupExists(rd, "/fclib_local/V") || GroupExists(rd, "/fclib_local/R"))) {
    PetscCall(ReadMatrixHeader(rd, "/fclib_local/V", &V));
    PetscCall(ReadMatrixHeader(rd, "/fclib_local/R", &R));
  }
  if (!rd->err[0] && !GroupExists(rd, "/fclib_local/vectors"))
    snprintf(rd->err, rd->errlen, "group /fclib_local/vectors is missing");
  PetscCall(Length(rd, "/fclib_local/vectors/q", H5T_FLOAT, sizeof(double), &nq));
  PetscCall(Length(rd, "/fclib_local/vectors/mu", H5T_FLOAT, sizeof(double), &nmu));
  if (R.m > 0) PetscCall(Length(rd, "/fclib_local/vectors/s", H5T_FLOAT, sizeof(double), &ns));
  if (rd->err[0]) PetscFunctionReturn(PETSC_SUCCESS);
  if (W.m != W.n || (hsize_t)W.m != nq || W.m % 3 || (hsize_t)(W.m / 3) != nmu)
    snprintf(rd->err, rd->errlen,
             "W is %d x %d, q has %llu values and mu %llu: W must be m x m with m = 3 per contact, the length of q, "
             "and "
             "mu one value per contact",
             W.m, W.n, (unsigned long long)nq, (unsigned long long)nmu);
  else if (R.m > 0 && (V.m != W.m || V.n != R.m || R.n != R.m || (hsize_t)R.m != ns))
    snprintf(rd->err, rd->errlen,
             "V is %d x %d, R %d x %d and s has %llu values: V must be m x p (m = %d), R p x p, s p", V.m, V.n, R.m,
             R.n, (unsigned long long)ns, W.m);
  PetscCall(ReadMatrix(rd, &W, &lp->W));
  if (R.m > 0) {
    PetscCall(ReadMatrix(rd, &V, &lp->V));
    PetscCall(ReadMatrix(rd, &R, &lp->R));
  }
  PetscCall(ReadDoubles(rd, "/fclib_local/vectors/q", nq, PETSC_FALSE, &lp->q));
  PetscCall(ReadDoubles(rd, "/fclib_local/vectors/mu", nmu, PETSC_TRUE, &lp->mu));
  if (R.m > 0) PetscCall(ReadDoubles(rd, "/fclib_local/vectors/s", ns, PETSC_FALSE, &lp->s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What FclibRead fills. */
typedef struct {
  FclibKind   *kind;
  FclibGlobal *gp;
  FclibLocal  *lp;
} ProblemRequest;

static PetscErrorCode ReadProblem(Reader *rd, void *out)
{
  ProblemRequest *rq = (ProblemRequest *)out;

  PetscFunctionBegin;
  *rq->kind = GroupExists(rd, "/fclib_global") ? FCLIB_GLOBAL
                                               : (GroupExists(rd, "/fclib_local") ? FCLIB_LOCAL : FCLIB_NONE);
  if (*rq->kind == FCLIB_GLOBAL) PetscCall(ReadGlobal(rd, rq->gp));
  else if (*rq->kind == FCLIB_LOCAL) PetscCall(ReadLocal(rd, rq->lp));
  else
    snprintf(rd->err, rd->errlen, "%s",
             GroupExists(rd, "/fclib_global_rolling")
               ? "holds a rolling-friction problem (/fclib_global_rolling), which ccpdem does not read"
               : "has neither /fclib_global nor /fclib_local: not an FCLIB problem file");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FclibRead(const char *path, FclibKind *kind, FclibGlobal *gp, FclibLocal *lp, char *err, size_t errlen)
{
  ProblemRequest rq = {.kind = kind, .gp = gp, .lp = lp};

  PetscFunctionBegin;
  *kind = FCLIB_NONE;
  PetscCall(PetscMemzero(gp, sizeof(*gp)));
  PetscCall(PetscMemzero(lp, sizeof(*lp)));
  PetscCall(ReadQuietly(path, ReadProblem, &rq, err, errlen));
  if (err[0]) {
    PetscCall(FclibGlobalDestroy(gp));
    PetscCall(FclibLocalDestroy(lp));
    *kind = FCLIB_NONE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  const char    *group;
  FclibSolution *sol;
  PetscBool     *found;
} SolutionRequest;

static PetscErrorCode ReadSolutionGroup(Reader *rd, void *out)
{
  SolutionRequest *rq   = (SolutionRequest *)out;
  FclibSolution   *sol  = rq->sol;
  const int        n[4] = {sol->nv, sol->nr, sol->nr, sol->nl};
  double          *dst[4];
  const char      *names[4] = {"v", "u", "r", "l"},
             *what[4]       = {"n, the size of M", "m, 3 per contact", "m, 3 per contact", "p, the columns of G"};
  char name[128];

  PetscFunctionBegin;
  *rq->found = GroupExists(rd, rq->group);
  if (!*rq->found) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FclibSolutionCreate(sol->nv, sol->nr, sol->nl, sol));
  dst[0] = sol->v;
  dst[1] = sol->u;
  dst[2] = sol->r;
  dst[3] = sol->l;
  for (int k = 0; k < 4 && !rd->err[0]; k++) {
    double *x;
    if (!n[k]) continue;
    snprintf(name, sizeof(name), "%s/%s", rq->group, names[k]);
    PetscCall(Expect(rd, name, H5T_FLOAT, sizeof(double), (hsize_t)n[k], what[k]));
    PetscCall(ReadDoubles(rd, name, (hsize_t)n[k], PETSC_FALSE, &x));
    if (x) PetscCall(PetscArraycpy(dst[k], x, n[k]));
    PetscCall(PetscFree(x));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FclibReadSolution(const char *path, const char *group, int nv, int nr, int nl, FclibSolution *sol,
                                 PetscBool *found, char *err, size_t errlen)
{
  SolutionRequest rq = {.group = group, .sol = sol, .found = found};

  PetscFunctionBegin;
  PetscCall(PetscMemzero(sol, sizeof(*sol)));
  sol->nv = nv;
  sol->nr = nr;
  sol->nl = nl;
  *found  = PETSC_FALSE;
  PetscCall(ReadQuietly(path, ReadSolutionGroup, &rq, err, errlen));
  if (err[0] || !*found) {
    PetscCall(FclibSolutionDestroy(sol));
    *found = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
