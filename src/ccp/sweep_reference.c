/* The checkpointed sweeps of the reference loops (-ccp_packed false) over the problem's contacts
 * in their order: projected Jacobi (ccp/jacobi.c) and projected Gauss-Seidel (ccp/gauss_seidel.c) differ
 * only in where a contact's change goes (Jacobi: a per-body increment added after the sweep, with
 * the relaxation lambda; Gauss-Seidel: the velocity at once) and in their step options. The
 * packed layout's counterpart is CCPPackedSweepSolve (ccp/pack.c). */
#include "ccp/kernels.h"

PetscErrorCode CCPReferenceSweepSolve(CCPSolver s, CCPProblem *P, PetscBool gauss_seidel, CCPSolveStats *stats)
{
  const PetscInt nc = P->ncontacts;
  const size_t   nv = 6 * (size_t)P->nbodies;
  const double   omega = gauss_seidel ? s->gs_omega : s->jacobi_omega, lambda = gauss_seidel ? 1.0 : s->jacobi_lambda, tol = s->tol;
  double        *gamma = P->gamma, *best, *v = P->vel, *dv;
  CCPMetric     *metric; /* per-contact steps, computed once */
  double         best_res = PETSC_INFINITY, res_start = PETSC_INFINITY; /* res_start: the warm start's */
  PetscBool      check = PETSC_TRUE;
  CCPCheckpoint  state = CCP_CONTINUE;
  PetscInt       it;

  PetscFunctionBegin;
  PetscCall(CCPSolverEnsureWork(s, P));
  metric = (CCPMetric *)s->work_g[1];
  best   = s->work_g[0];
  dv     = gauss_seidel ? v : s->work_v[0]; /* where the changes go */
  ccp_kernel_metrics(P, metric);
  ccp_velocity_from_impulses(P, gamma, v);
  if (!gauss_seidel) PetscCall(PetscArrayzero(dv, nv));
  for (it = 0;; it++) {
    if (check || it == s->max_it) {
      state = ccp_checkpoint(P, gamma, v, tol, (PetscBool)(it == s->max_it), best, &best_res);
      if (it == 0) res_start = best_res;
      if (state != CCP_CONTINUE) break;
    }
    double change2 = 0;
    for (PetscInt i = 0; i < nc; i++) {
      const double r2 = ccp_kernel_relax(P, &metric[i], i, v, omega, lambda, dv);
      if (!(r2 <= change2)) change2 = r2; /* NaN propagates */
    }
    for (size_t k = 0; !gauss_seidel && k < nv; k++) {
      v[k] += dv[k];
      dv[k] = 0;
    }
    const double change = sqrt(change2) / (omega * lambda); /* lambda 1: the same bits as / omega */
    check = ccp_need_check(s, change, best_res, it, s->check_interval);
  }
  stats->improved = (PetscBool)(best_res < res_start);
  ccp_finish(P, state == CCP_STOP && best_res < PETSC_INFINITY ? best : gamma, it, tol, stats);
  PetscFunctionReturn(PETSC_SUCCESS);
}
