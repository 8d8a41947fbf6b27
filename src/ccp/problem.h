/* One step's CCP in matrix-free form, and the small kernels every solver is built from.
 *
 *   minimize 1/2 g^T N g + r^T g  over  g in Y,   N = D^T M^-1 D + C,   r = D^T v_free + b
 *
 * Solver bodies are the rank's bodies (owned, then ghosts) followed by the walls. A wall has zero
 * inverse mass and inertia and its prescribed velocity, so it needs no special case. Velocities in
 * the solver are 6 per solver body: linear and angular, BOTH in the world frame (the time step
 * converts the body-frame angular velocity on the way in and out); inverse inertia is the world
 * tensor R J^-1 R^T as a symmetric 3x3 (xx, yy, zz, xy, xz, yz).
 *
 * With v = v_free + M^-1 D gamma, the CCP gradient of contact i is  g_i = D_i^T v + b_i + C_i gamma_i. */
#ifndef CCPDEM_CCP_PROBLEM_H
#define CCPDEM_CCP_PROBLEM_H
#include "contact/contact_set.h"

/* Solver body i: inverse mass (0 for walls), world inverse inertia (6; 0 for walls) and free
 * velocity M^-1 k (6). Outputs passed as NULL are not wanted. */
typedef void (*CCPBodyFn)(void *ctx, PetscInt i, double *inv_mass, double inv_inertia[6], double vel_free[6]);

/* A contact's per-step terms: what its law adds to its rows, g_n = D_n^T v + bn + c_lin gamma_n
 * (ccp/law.h), and the bounds of gn, -cohesion_impulse <= gn <= yield_impulse (the pair's
 * forces times h). Not stored in the 128-byte Contact: the time step computes them from the pair's
 * parameters when the solve packs the contact (CCPTermsFn), tests pass them as an array. A joint
 * block's are its own (ccp_problem_terms). eta, the GUIDE residual step dof / trace(N_ii), is the
 * solve's: ignored on input, set in the terms the reference loops work on. */
typedef struct {
  double bn;               /* normal stabilization (m/s) */
  double c_lin;            /* Tikhonov diagonal added to N on force rows; torque rows: ccp_terms_c_rot */
  double cohesion_impulse; /* gn may go down to -cohesion_impulse */
  double yield_impulse;    /* gn may go up to it (0: no yield force, no cap) */
  double eta;              /* the solve's (above) */
  /* The rolling and spinning springs (ccp/law.h; a 6-dof contact's torque rows only): their
   * diagonal c_roll, and their stabilization b_rot = -c_roll gamma_prev, so that the torque rows read
   * g_t = D_t^T v + ccp_terms_c_rot gamma_t + b_rot. The CCPTermsFn gives c_roll; b_rot comes from
   * the problem's torque_prev (ccp_problem_terms). */
  double c_roll;
  double b_rot[3];
} CCPContactTerms;
typedef void (*CCPTermsFn)(void *ctx, const Contact *c, CCPContactTerms *t);

/* The Tikhonov diagonal on contact c's torque rows: the force rows' c_lin over the squared lever arm
 * of B (always a body), plus the rolling springs' c_roll. */
static inline double ccp_terms_c_rot(const Contact *c, const CCPContactTerms *t)
{
  const double lever = PetscMax(v3_norm(c->rb), 1e-12);
  return t->c_lin / (lever * lever) + t->c_roll;
}

typedef struct {
  PetscInt      nbodies;     /* solver bodies: bodies then walls */
  const double *inv_mass;    /* 1 per solver body (0 for walls) */
  const double *inv_inertia; /* 6 per solver body, world frame (0 for walls) */
  const double *vel_free;    /* 6 per solver body: M^-1 k, velocity without contact impulses */
  double       *vel;         /* 6 per solver body: out, v = v_free + M^-1 D gamma; NULL: the solve
                                sets it to a buffer of its own, valid until the solver's scratch
                                pool has its next user (CCPSolverScratch: the next detection) */
  PetscInt ncontacts;
  Contact *contact;
  double  *gamma; /* CONTACT_DOF_MAX per contact; in: warm start, out: solution */
  /* Where the solver bodies come from: the three arrays above, or, with body set (the arrays then
   * unused), body(body_ctx, i, ...) on demand: the time step computes them from its body store, so
   * the packed solve, which reads each body a few times per solve, needs no per-body copy beside
   * its own records. */
  CCPBodyFn body;
  void     *body_ctx;
  /* The contacts' terms: terms[i] (the solve ignores their eta; the operators below that read eta
   * take it from there), or, with terms_fn set, terms_fn(terms_ctx, c, t)
   * on demand (the time step, from the pairs' parameters); neither: all zero. */
  const CCPContactTerms *terms;
  CCPTermsFn             terms_fn;
  void                  *terms_ctx;
  /* With terms_fn: the torque impulses of contact i's last step, 3 per contact (spin, roll u, roll w
   * in its frame), which set its springs' b_rot; NULL: none (b_rot 0). With terms: unused (each
   * term carries its b_rot). */
  const double *torque_prev;
} CCPProblem;

/* Solver body i of P, from whichever source P has (any output may be NULL). */
void ccp_problem_body(const CCPProblem *P, PetscInt i, double *inv_mass, double inv_inertia[6], double vel_free[6]);
/* Contact i's terms from whichever source P has; a joint block's: bn its b[0], the rest 0. */
void ccp_problem_terms(const CCPProblem *P, PetscInt i, CCPContactTerms *t);
/* The operators below that take P and read M^-1 need P's arrays (the solve fills them from the
 * body source for the reference loops); those that read eta need P's terms array with eta set. */

/* u = D_i^T v + b_i  (relative contact velocity plus stabilization; 6 entries, the last 3 zero for 3-dof) */
void ccp_contact_velocity(const CCPProblem *P, PetscInt i, const double *v, double u[6]);
/* u = D_i^T v alone (ccp_contact_velocity without b_i: for a caller that has contact i's terms) */
void ccp_contact_relative_velocity(const CCPProblem *P, PetscInt i, const double *v, double u[6]);
/* v += M^-1 D_i dg  (dg has CONTACT_DOF_MAX entries, trailing ones ignored for 3-dof) */
void ccp_apply_impulse(const CCPProblem *P, PetscInt i, const double dg[6], double *v);
/* Diagonal block trace of D_i^T M^-1 D_i + C_i. */
double ccp_contact_trace(const CCPProblem *P, PetscInt i);
/* The GUIDE residual step eta_i = dof / trace of contact c (terms t: its c_lin) between bodies of
 * inverse mass and world inverse inertia (ima, Ia) and (imb, Ib): the eta every solve uses. */
double ccp_contact_eta(const Contact *c, const CCPContactTerms *t, double ima, const double Ia[6], double imb,
                       const double Ib[6]);
/* Project gamma_i onto contact c's reaction set (cohesion shifts the cone down by t's cohesion_impulse). */
void ccp_project(const Contact *c, const CCPContactTerms *t, double g[6]);
/* v = v_free + M^-1 D gamma for all contacts (in contact order: deterministic). */
void ccp_velocity_from_impulses(const CCPProblem *P, const double *gamma, double *v);
/* GUIDE residual of contact i given its gradient gi. */
double ccp_contact_residual(const Contact *c, const CCPContactTerms *t, const double gamma_i[6], const double gi[6]);
/* Gradient gi = D_i^T v + b_i + C_i gamma_i. */
void ccp_contact_gradient(const CCPProblem *P, PetscInt i, const double *v, const double gamma_i[6], double gi[6]);
/* Max and RMS of the GUIDE residual over all contacts at (gamma, v = v_free + M^-1 D gamma). */
void ccp_residual(const CCPProblem *P, const double *gamma, const double *v, double *res_max, double *res_rms);
#endif
