/* The three friction loads of the penalty model (paper sec. 3), one file each:
 *   penalty/slide.c  slide force from the micro-deflection S (eqs. 1a-1c),
 *   penalty/roll.c   roll torques from Theta_A, Theta_B (eqs. 2-2c), or the legacy constant torque
 *                    (App. A.2, eq. 8),
 *   penalty/spin.c   spin torque from Psi (eqs. 3-3d).
 * Each updates its part of the history (stick/slip capping by penalty/deflection.h) and returns
 * its load (elastic plus damping, within the static limit: penalty_deflection_load); the caller
 * (penalty/loads.c) applies them at the contact. */
#ifndef CCPDEM_PENALTY_FRICTION_H
#define CCPDEM_PENALTY_FRICTION_H
#include "penalty/history.h"
#include "penalty/normal.h"

/* What the friction loads of one contact depend on this step. */
typedef struct {
  const PenaltySettings *set;
  const PenaltyPair     *pair;
  double                 N;          /* normal force (N) */
  double                 h;          /* time step (s) */
  double                 K_E;        /* slide stiffness (N/m) */
  double                 m_ij, I_ij; /* the paper's fictitious mass and inertia for the critical damping */
  double kappa_a, kappa_b;           /* surface curvatures at the contact (1/m): sphere 1/R, plane or box face 0 */
  int    pointed;                    /* a box corner touches: no curvature to roll or spin on (K_R = K_psi = 0) */
  double K_R, K_psi;                 /* penalty_roll_stiffness and penalty_spin_stiffness of this state: set once
                                        by the caller after K_E, read by the roll and spin loads */
  /* Set once per contact by penalty_friction_prepare, so the three loads share them instead of
   * each dividing and taking roots again: */
  double R_eff;      /* 1 / (kappa_a + kappa_b) (m; infinite on flat or pointed pairs) */
  double a_spin;     /* contact.spinning hertz: the Hertz contact radius (3 N R_eff / (4 E_eff))^(1/3) (m), else 0 */
  double N_over_K_E; /* N / K_E (m): the slide thresholds over mu, and the roll and spin ones' factor */
  double root_IK;    /* sqrt(I_ij K_E): D_R and D_psi are multiples of it */
  double inv_h;      /* 1 / h */
} PenaltyFrictionState;

/* The shared quantities above, K_R and K_psi, from set, pair, N, h, K_E, m_ij, I_ij, the curvatures
 * and pointed. */
void penalty_friction_prepare(PenaltyFrictionState *c);

/* Slide: S += p_A - p_B, capped at mu_s N / K_E (stick) or mu_k N / K_E (slip). Returns the force
 * on B on (u, w): -(K_E S + K_D dS / h), K_D = slide_damping * 2 sqrt(m_ij K_E) (eq. 1c), dS the
 * change of the capped S; A receives the opposite force. */
void penalty_slide(const PenaltyFrictionState *c, PenaltyHistory *hist, const double pa[2], const double pb[2],
                   double force_b[2]);

/* Roll stiffness K_R = 4 eta_r K_E / (kappa_a + kappa_b)^2 (eq. 2b); 0 when it cannot roll. */
double penalty_roll_stiffness(const PenaltyFrictionState *c);
/* Tracking roll: Theta_X += kappa_X p_X, capped at mu N (kappa_a + kappa_b) / (2 K_E) (eq. 2c) with
 * mu_s (stick) or mu_k (slip). Returns the resisting "moment vectors" m_X = K_R Theta_X + D_R
 * dTheta_X / h on (u, w), D_R = roll_damping * 2 sqrt(I_ij K_R); the torque on body X is
 * n_X x m_X with n_X X's outward normal (n for A, -n for B). */
void penalty_roll(const PenaltyFrictionState *c, PenaltyHistory *hist, const double pa[2], const double pb[2],
                  double moment_a[2], double moment_b[2]);
/* Legacy roll (App. A.2): torque on A -mu_r R_eff N w_t / |w_t| with w_t the rolling part (in the
 * tangent plane) of w_A - w_B (world) and mu_r = eta_r, R_eff = 1 / (kappa_a + kappa_b); B gets
 * the opposite. Zero when w_t is exactly 0 (the 0/0 of eq. 8). */
void penalty_roll_legacy(const PenaltyFrictionState *c, const double n[3], const double omega_rel[3],
                         double torque_a[3]);

/* Spin stiffness K_psi = eta_psi K_E / K^2 (eq. 3c), K = kappa_a + kappa_b, or K = 1 / a_spin under
 * contact.spinning hertz (App. C); 0 when it cannot spin. */
double penalty_spin_stiffness(const PenaltyFrictionState *c);
/* Spin: Psi += psi, capped at K mu N / K_E with mu_s (stick) or mu_k (slip). Returns the torque on A
 * about n: -(K_psi Psi + D_psi dPsi / h), D_psi = spin_damping * 2 sqrt(I_ij K_psi) (eq. 3d); B
 * receives the opposite. */
double penalty_spin(const PenaltyFrictionState *c, PenaltyHistory *hist, double psi);
#endif
