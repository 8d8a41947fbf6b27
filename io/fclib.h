/* FCLIB problem files (the Frictional Contact Library's HDF5 format, Acary et al.), read and written
 * with ccpdem's own parallel HDF5 (io/h5.h), not with libfclib: libfclib links the serial HDF5,
 * which can share a process with PETSc's parallel one only by a fragile link order
 * (../shared/notes/build.md), and its readers exit the process on a bad file instead of reporting it.
 *
 * The format (the groups and datasets libfclib writes; every dataset 1-D, ints 32-bit):
 *   /fclib_global/spacedim                        int (1): 3 here (2-D problems are refused)
 *   /fclib_global/M, /H, optional /G              sparse matrices (below): M n x n, H n x m, G n x p
 *   /fclib_global/vectors/f (n), w (m), mu (m/3), optional b (p)
 *   /fclib_global/info/title, description         optional strings
 *   /fclib_local/spacedim, /W (m x m), optional /V (m x p) and /R (p x p), /vectors/q (m), mu (m/3), s (p)
 *   /solution/v (n, global only), u (m), r (m), optional l (p)
 *   /guesses/number_of_guesses int (1), /guesses/1/v, u, r (as /solution): initial guesses
 * A sparse matrix group holds nzmax, m, n, nz (int (1) each) and p, i (int), x (double): nz >= 0 is
 * the triplet form (row p[k], column i[k], value x[k], k < nz), nz = -1 compressed columns (p: n + 1
 * pointers, i: row of each of nzmax entries), nz = -2 compressed rows (p: m + 1 pointers, i: column).
 * In memory (FclibMatrix) every matrix is in compressed columns, rows ascending in each column,
 * duplicates summed, whatever form the file used; the writer writes compressed columns.
 *
 * The problems: global, M v = H r + G l + f, G^T v + b = 0, u = H^T v + w; local, u = W r + V l + q,
 * V^T r + R l + s = 0; per contact (3 rows: normal, two tangents) r in the friction cone
 * ||r_t|| <= mu r_n and FCLIB's Coulomb law u + mu ||u_t|| e_n in its dual cone, orthogonal to r.
 * ccpdem solves the relaxed problem (Anitescu's CCP: u itself in the dual cone). */
#ifndef CCPDEM_IO_FCLIB_H
#define CCPDEM_IO_FCLIB_H
#include <petscsys.h>

/* A sparse m x n matrix in compressed columns (nnz entries: column j holds entries colptr[j] to
 * colptr[j + 1] - 1, rows ascending). Empty (n = 0, all NULL) where a problem has none (G, V, R). */
typedef struct {
  int     m, n, nnz;
  int    *colptr; /* n + 1 */
  int    *row;    /* nnz */
  double *x;      /* nnz */
} FclibMatrix;

/* A global problem (spacedim 3): sizes n = M.m (degrees of freedom), m = H.n (3 per contact),
 * p = G.n (bilateral constraints, 0: none, then b is NULL). */
typedef struct {
  FclibMatrix M, H, G;
  double     *f;                             /* n */
  double     *w;                             /* m */
  double     *mu;                            /* m / 3 */
  double     *b;                             /* p */
  char        title[256], description[1024]; /* the optional info strings ("" if absent) */
} FclibGlobal;

/* A local problem (spacedim 3): m = W.m, p = R.m (0: no V, R, s). */
typedef struct {
  FclibMatrix W, V, R;
  double     *q, *mu, *s;
} FclibLocal;

/* A solution or a guess: v (nv: the global problem's n, 0 for a local one), u and r (nr: m), l (nl:
 * p, 0 and NULL when the problem has no bilateral constraints). */
typedef struct {
  int     nv, nr, nl;
  double *v, *u, *r, *l;
} FclibSolution;

typedef enum {
  FCLIB_NONE,   /* neither group (or a bad file): not an FCLIB problem file */
  FCLIB_GLOBAL, /* /fclib_global */
  FCLIB_LOCAL   /* /fclib_local */
} FclibKind;

/* Collective on comm. Writes path (created or truncated; the parent directory must exist) with the
 * global problem gp, its solution sol (may be NULL) and one guess (may be NULL), sizes as in the
 * structs above (sol's and guess's nv = gp's n, nr = m, nl = p). The data are rank 0's: the other
 * ranks pass structs with every size 0. Written as every output file is (io/h5.h IoH5Output: a
 * unique temporary beside path, flushed and renamed), so a failure never leaves a partial file
 * under path; a failure to write (a full disk) is err = "writing PATH: reason" on every rank, else "". */
PetscErrorCode FclibWriteGlobal(MPI_Comm comm, const char *path, const FclibGlobal *gp, const FclibSolution *sol,
                                const FclibSolution *guess, char *err, size_t errlen);
/* Not collective (one process reads the whole file). The problem of path (3-D only): *kind
 * FCLIB_GLOBAL and gp filled, or FCLIB_LOCAL and lp filled. Every size is checked against the
 * others and against what the file holds before anything is allocated, and every value is checked
 * finite (mu also >= 0): a file that fails (missing, not HDF5, neither problem group, a missing
 * group or dataset, wrong sizes or types, spacedim other than 3, an index out of range, a
 * non-finite value) returns PETSC_SUCCESS with *kind FCLIB_NONE, err set to one line naming the
 * file and the dataset, and gp and lp empty. On success err is "" and the caller frees gp and lp
 * (FclibGlobalDestroy, FclibLocalDestroy; the one not read is empty). */
PetscErrorCode FclibRead(const char *path, FclibKind *kind, FclibGlobal *gp, FclibLocal *lp, char *err, size_t errlen);
/* Not collective. group "/solution" or "/guesses/1" of path, sized for a problem of nv, nr, nl (the
 * caller's problem, read first): found false (and sol empty) when the group is absent; a present
 * group whose datasets do not fit is bad input (err set, as above). Free with FclibSolutionDestroy. */
PetscErrorCode FclibReadSolution(const char *path, const char *group, int nv, int nr, int nl, FclibSolution *sol,
                                 PetscBool *found, char *err, size_t errlen);

/* y += A x (A m x n, x n values, y m values), and y += A^T x (x m values, y n values). */
void FclibMatMult(const FclibMatrix *A, const double *x, double *y);
void FclibMatMultTranspose(const FclibMatrix *A, const double *x, double *y);
/* Allocates A's arrays for an m x n matrix of nnz entries (colptr zeroed); free with FclibMatrixDestroy. */
PetscErrorCode FclibMatrixCreate(int m, int n, int nnz, FclibMatrix *A);
PetscErrorCode FclibMatrixDestroy(FclibMatrix *A);
/* Allocate the vectors of a solution of sizes nv, nr, nl (zeroed). */
PetscErrorCode FclibSolutionCreate(int nv, int nr, int nl, FclibSolution *sol);
/* Free what the struct holds and zero it (accept a zeroed struct). */
PetscErrorCode FclibGlobalDestroy(FclibGlobal *gp);
PetscErrorCode FclibLocalDestroy(FclibLocal *lp);
PetscErrorCode FclibSolutionDestroy(FclibSolution *sol);
#endif
