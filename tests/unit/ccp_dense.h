/* Test helper: the CCP of a CCPProblem as dense matrices, assembled independently of the
 * matrix-free kernels from the convention in contact/contact_set.h / ccp/problem.h:
 *   column (i, k<3) of D: +e_k on B's linear rows, +(rb x e_k) on B's angular rows,
 *                         -e_k on A's linear rows, -(ra x e_k) on A's angular rows;
 *   column (i, k>=3), 6-dof only: +e_{k-3} on B's angular rows, -e_{k-3} on A's;
 *   e = (n, u, w); M^-1 = diag(inv_mass I3, inv_inertia) per solver body (zero for walls);
 *   N = D^T M^-1 D + C, r = D^T v_free + b.
 * Only the dof columns of each contact exist (a 3-dof contact has 3). Plus a symmetric
 * eigenvalue routine (cyclic Jacobi) for the error bounds the tests derive their tolerances from. */
#ifndef CCPDEM_TEST_CCP_DENSE_H
#define CCPDEM_TEST_CCP_DENSE_H
#include <petscsys.h>
#include "ccp/problem.h"
#include "base/vec3.h"

typedef struct {
  PetscInt  nr, nx; /* 6 per solver body; sum of the contacts' dof */
  PetscInt *col;    /* first column of contact i */
  double   *D;      /* nr x nx, row-major */
  double   *Minv;   /* nr x nr */
  double   *MinvD;  /* nr x nx */
  double   *N;      /* nx x nx */
  double   *r;      /* nx */
} DenseCCP;

static inline PetscErrorCode DenseCCPCreate(const CCPProblem *P, DenseCCP *d)
{
  PetscFunctionBeginUser;
  d->nr = 6 * P->nbodies;
  PetscCall(PetscMalloc1(P->ncontacts + 1, &d->col));
  d->nx = 0;
  for (PetscInt i = 0; i < P->ncontacts; i++) {
    d->col[i] = d->nx;
    d->nx += contact_dof(&P->contact[i]);
  }
  d->col[P->ncontacts] = d->nx;
  const PetscInt nr = d->nr, nx = d->nx;
  PetscCall(PetscCalloc5(nr * nx, &d->D, nr * nr, &d->Minv, nr * nx, &d->MinvD, nx * nx, &d->N, nx, &d->r));
  for (PetscInt i = 0; i < P->ncontacts; i++) {
    const Contact *c = &P->contact[i];
    double         u[3], w[3];
    contact_frame(c, u, w);
    const double *e[3]  = {c->n, u, w};
    const int     ab[2] = {c->a, c->b};
    const double *rr[2] = {c->ra, c->rb}, sgn[2] = {-1, 1};
    for (int s = 0; s < 2; s++) {
      const PetscInt row0 = 6 * ab[s];
      for (int k = 0; k < 3; k++) {
        double arm[3];
        v3_cross(arm, rr[s], e[k]);
        for (int q = 0; q < 3; q++) {
          d->D[(row0 + q) * nx + d->col[i] + k] += sgn[s] * e[k][q];
          d->D[(row0 + 3 + q) * nx + d->col[i] + k] += sgn[s] * arm[q];
          if (contact_dof(c) == 6) d->D[(row0 + 3 + q) * nx + d->col[i] + 3 + k] += sgn[s] * e[k][q];
        }
      }
    }
  }
  for (PetscInt j = 0; j < P->nbodies; j++) {
    const double *S       = P->inv_inertia + 6 * j;
    const double  full[9] = {S[0], S[3], S[4], S[3], S[1], S[5], S[4], S[5], S[2]};
    for (int q = 0; q < 3; q++) {
      d->Minv[(6 * j + q) * nr + 6 * j + q] = P->inv_mass[j];
      for (int p = 0; p < 3; p++) d->Minv[(6 * j + 3 + q) * nr + 6 * j + 3 + p] = full[3 * q + p];
    }
  }
  for (PetscInt s = 0; s < nr; s++)
    for (PetscInt j = 0; j < nx; j++) {
      double x = 0;
      for (PetscInt t = 0; t < nr; t++) x += d->Minv[s * nr + t] * d->D[t * nx + j];
      d->MinvD[s * nx + j] = x;
    }
  for (PetscInt i = 0; i < nx; i++)
    for (PetscInt j = 0; j < nx; j++) {
      double x = 0;
      for (PetscInt t = 0; t < nr; t++) x += d->D[t * nx + i] * d->MinvD[t * nx + j];
      d->N[i * nx + j] = x;
    }
  for (PetscInt i = 0; i < P->ncontacts; i++) {
    const Contact         *c = &P->contact[i];
    const CCPContactTerms *t = &P->terms[i];
    for (int k = 0; k < contact_dof(c); k++) {
      const PetscInt j = d->col[i] + k;
      d->N[j * nx + j] += k < 3 ? t->c_lin : ccp_terms_c_rot(c, t);
      double x = k == 0 ? t->bn : k >= 3 ? t->b_rot[k - 3] : 0;
      for (PetscInt t = 0; t < nr; t++) x += d->D[t * nx + j] * P->vel_free[t];
      d->r[j] = x;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode DenseCCPDestroy(DenseCCP *d)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(d->col));
  PetscCall(PetscFree5(d->D, d->Minv, d->MinvD, d->N, d->r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Eigenvalues of the symmetric n x n matrix A (destroyed) by cyclic Jacobi rotations. */
static inline void dense_sym_eigenvalues(PetscInt n, double *A, double *ev)
{
  for (int sweep = 0; sweep < 100; sweep++) {
    double off = 0, diag = 0;
    for (PetscInt p = 0; p < n; p++) {
      diag += A[p * n + p] * A[p * n + p];
      for (PetscInt q = p + 1; q < n; q++) off += A[p * n + q] * A[p * n + q];
    }
    if (off <= 1e-30 * diag) break;
    for (PetscInt p = 0; p < n; p++)
      for (PetscInt q = p + 1; q < n; q++) {
        const double apq = A[p * n + q];
        if (apq == 0) continue;
        const double theta = (A[q * n + q] - A[p * n + p]) / (2 * apq);
        const double t     = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
        const double c = 1 / sqrt(t * t + 1), s = t * c;
        for (PetscInt k = 0; k < n; k++) { /* columns p, q */
          const double akp = A[k * n + p], akq = A[k * n + q];
          A[k * n + p] = c * akp - s * akq;
          A[k * n + q] = s * akp + c * akq;
        }
        for (PetscInt k = 0; k < n; k++) { /* rows p, q */
          const double apk = A[p * n + k], aqk = A[q * n + k];
          A[p * n + k] = c * apk - s * aqk;
          A[q * n + k] = s * apk + c * aqk;
        }
      }
  }
  for (PetscInt p = 0; p < n; p++) ev[p] = A[p * n + p];
}

/* Extreme eigenvalues of the eta-scaled N' = B^1/2 N B^1/2, B = diag(eta_i) (per contact). */
static inline PetscErrorCode dense_scaled_spectrum(const CCPProblem *P, const DenseCCP *d, double *lmin, double *lmax)
{
  double  *A, *ev, *sq;
  PetscInt nx = d->nx;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(nx * nx, &A, nx, &ev, nx, &sq));
  for (PetscInt i = 0; i < P->ncontacts; i++)
    for (PetscInt j = d->col[i]; j < d->col[i + 1]; j++) sq[j] = sqrt(P->terms[i].eta);
  for (PetscInt i = 0; i < nx; i++)
    for (PetscInt j = 0; j < nx; j++) A[i * nx + j] = sq[i] * d->N[i * nx + j] * sq[j];
  dense_sym_eigenvalues(nx, A, ev);
  *lmin = PETSC_INFINITY;
  *lmax = -PETSC_INFINITY;
  for (PetscInt i = 0; i < nx; i++) {
    *lmin = PetscMin(*lmin, ev[i]);
    *lmax = PetscMax(*lmax, ev[i]);
  }
  PetscCall(PetscFree3(A, ev, sq));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
