/* The penalty model's small kernels against hand-worked answers.
 * 1. Stick/slip update (penalty/deflection.h): loading below the static threshold sticks and
 *    reports the whole change; crossing it scales back onto it and slips (no change reported);
 *    slipping on caps at the kinetic threshold; reversing below it sticks again.
 * 2. Contact-point tracking (penalty/tracking.h), plane A (world frame) and sphere B of radius R
 *    resting on it: turning B by d about the normal gives the spin angle -d (B's frame ahead of A's
 *    by d) and no surface motion; sliding B by dx without turning moves the point over A only;
 *    rolling B by angle t (centre moved by R t) moves it over both by R t (chord 2R sin(t/2), the
 *    arc to first order: 1e-12 relative at t = 1e-6). Exact to rounding (1e-15) otherwise.
 *    Then A is a body that turns, with an arm: spheres A (R_A = 0.3) and B (R_B = 0.2) touching
 *    along n = z at A's top, so A's arm is R_A n (a wall's is zero and a wall never turns, which is
 *    all the cases above and every pair where a wall is A exercise; the block kernel shares the
 *    per-contact code's formulas, so test_penalty_block cannot tell a frame or arm carried by the
 *    wrong body either):
 *    (a) the pair turned rigidly by Q (0.3 rad about a skew axis through a point off both) and
 *        moved: nothing moved relative to anything, so p_A = p_B = 0, psi = 0 and the new frame is
 *        Q times the old one;
 *    (b) A spun about n by d = 1e-3, B still: the frame follows A's (u = R_z(d) u_0), psi = +d (A's
 *        frame ahead of B's by d), p_A = p_B = 0 (the arm lies on the axis);
 *    (c) A turned by t = 0.01 about the tangent y through its centre, B still, the contact point
 *        where it was: the old point carried by A is now at R_A n rotated, so p_A (as a world
 *        vector p_A,u u + p_A,w w) is (-R_A sin t, 0, 0) exactly, p_B = 0, the frame stays u_0 (a
 *        turn about a tangent leaves the continued frame where it was) and psi = 0.
 *    Rounding: the coordinates are ~1, so 1e-15 (a few ulps) absolute.
 * 3. Normal force (penalty/normal.h), Hooke: a 1-D impact of m = 1 kg on k = 1e4 N/m at 1 m/s,
 *    integrated with symplectic Euler at 1/2000 of the contact period, leaves at e times the impact
 *    speed within 0.5% for e = 0.2, 0.5, 0.9 (the model's damping ratio is chosen so that a linear
 *    spring-dashpot that may not pull rebounds at e; the discretization error is O(h / period)).
 * 4. The turn of a body over a step that the tracking applies (rotation_of_vector of h omega, base/vec3.h)
 *    equals the one the integrator gives it (R(q1) R(q0)^T after quat_integrate_world) within 1e-15,
 *    for angles from 1e-8 to 3 rad on both sides of the series' limit 0.01 rad (rounding: a few ulps). */
#include "test_check.h"
#include "penalty/deflection.h"
#include "penalty/history.h"
#include "penalty/normal.h"
#include "penalty/tracking.h"
#include "base/vec3.h"
#include <math.h>
#include <string.h>

static void pose_identity(PenaltyPose *p, double x, double y, double z)
{
  const double q[4] = {1, 0, 0, 0};
  v3_set(p->x, x, y, z);
  quat_to_matrix(q, p->R);
}

static void pose_rotated(PenaltyPose *p, const double x[3], const double axis[3], double angle)
{
  const double q[4] = {cos(angle / 2), sin(angle / 2) * axis[0], sin(angle / 2) * axis[1], sin(angle / 2) * axis[2]};
  v3_copy(p->x, x);
  quat_to_matrix(q, p->R);
}

int main(void)
{
  { /* 1 */
    double       x[2] = {0, 0}, mode = PENALTY_STICK, change[2];
    const double a[2] = {0.6, 0}, b[2] = {0.6, 0}, c[2] = {0.1, 0}, d[2] = {-0.3, 0};
    penalty_deflection_update(2, x, a, 1.0, 0.8, &mode, change);
    CHECK(mode == PENALTY_STICK && x[0] == 0.6 && change[0] == 0.6,
          "below the static threshold: stick, x %g, change %g", x[0], change[0]);
    penalty_deflection_update(2, x, b, 1.0, 0.8, &mode, change);
    CHECK(mode == PENALTY_SLIP && fabs(x[0] - 1.0) < 1e-15 && change[0] == 0,
          "past the static threshold: slip at 1, x %g, change %g", x[0], change[0]);
    penalty_deflection_update(2, x, c, 1.0, 0.8, &mode, change);
    CHECK(mode == PENALTY_SLIP && fabs(x[0] - 0.8) < 1e-15 && change[0] == 0,
          "slipping on: capped at the kinetic 0.8, x %g", x[0]);
    penalty_deflection_update(2, x, d, 1.0, 0.8, &mode, change);
    CHECK(mode == PENALTY_STICK && fabs(x[0] - 0.5) < 1e-15 && fabs(change[0] + 0.3) < 1e-15,
          "reversed below the kinetic threshold: stick, x %g", x[0]);
    double       out[2];
    const double xx[2] = {0.9, 0}, ch[2] = {0.5, 0};
    penalty_deflection_load(2, 2.0, 1.0, xx, ch, 1.0, out);
    CHECK(fabs(out[0] - 2.0) < 1e-15, "elastic 1.8 plus damping 0.5 bounded by the static load 2: %g", out[0]);
  }
  { /* 2 */
    const double    R = 0.2, n[3] = {0, 0, 1}, z[3] = {0, 0, 1}, y[3] = {0, 1, 0}, d = 1e-3, t = 1e-6;
    PenaltyPose     A, B0, B1;
    PenaltyTracking first, tr;
    PenaltyHistory  h;
    double          point[3] = {0, 0, 0}, c[3];
    pose_identity(&A, 0, 0, 0);
    pose_identity(&B0, 0, 0, R);
    memset(&h, 0, sizeof(h));
    penalty_track(&A, &B0, n, point, NULL, &first);
    penalty_track_store(&A, &B0, point, &first, &h);
    penalty_state_put(&h, PENALTY_TOUCHING, 1);
    pose_rotated(&B1, B0.x, z, d); /* spin */
    penalty_track(&A, &B1, n, point, &h, &tr);
    CHECK(fabs(tr.psi + d) < 1e-15 && v3_norm((double[3]){tr.pa[0], tr.pa[1], tr.pb[0]}) < 1e-15 &&
            fabs(tr.pb[1]) < 1e-15,
          "spin by %g: psi %g (want %g), p_A (%g, %g), p_B (%g, %g)", d, tr.psi, -d, tr.pa[0], tr.pa[1], tr.pb[0],
          tr.pb[1]);
    pose_identity(&B1, d, 0, R); /* slide along x */
    v3_set(c, d, 0, 0);
    penalty_track(&A, &B1, n, c, &h, &tr);
    CHECK(fabs(tr.pa[0] * tr.u[0] + tr.pa[1] * tr.w[0] - d) < 1e-15 && fabs(tr.pb[0]) + fabs(tr.pb[1]) < 1e-15 &&
            fabs(tr.psi) < 1e-15,
          "slide by %g: p_A along x %g, p_B (%g, %g)", d, tr.pa[0] * tr.u[0] + tr.pa[1] * tr.w[0], tr.pb[0], tr.pb[1]);
    {
      const double x1[3] = {R * t, 0, R};
      pose_rotated(&B1, x1, y, t); /* roll along +x: turn about +y */
      v3_set(c, R * t, 0, 0);
      penalty_track(&A, &B1, n, c, &h, &tr);
      const double pa = tr.pa[0] * tr.u[0] + tr.pa[1] * tr.w[0], pb = tr.pb[0] * tr.u[0] + tr.pb[1] * tr.w[0];
      CHECK(fabs(pa / (R * t) - 1) < 1e-9 && fabs(pb / (R * t) - 1) < 1e-9,
            "roll by %g rad: p_A %g, p_B %g, want R t = %g on both", t, pa, pb, R * t);
    }
  }
  { /* 2, A a turning body with an arm */
    const double    RA = 0.3, RB = 0.2, n[3] = {0, 0, 1}, xa[3] = {0.1, -0.2, 0.05}, y[3] = {0, 1, 0};
    const double    axis[3] = {0.48, -0.6, 0.64}, c[3] = {0.7, 0.4, -0.9}, Qa = 0.3, d = 1e-3, t = 0.01;
    PenaltyPose     A0, B0, A1, B1;
    PenaltyTracking first, tr;
    PenaltyHistory  h;
    double          point[3], xb[3], Q[9], p1[3], n1[3], e[3];
    v3_set(xb, xa[0], xa[1], xa[2] + RA + RB);
    v3_set(point, xa[0], xa[1], xa[2] + RA);
    pose_identity(&A0, xa[0], xa[1], xa[2]);
    pose_identity(&B0, xb[0], xb[1], xb[2]);
    memset(&h, 0, sizeof(h));
    penalty_track(&A0, &B0, n, point, NULL, &first);
    penalty_track_store(&A0, &B0, point, &first, &h);
    penalty_state_put(&h, PENALTY_TOUCHING, 1);
    CHECK(fabs(v3_norm(h.arm_a) - RA) < 1e-15, "A's arm %g, want R_A = %g", v3_norm(h.arm_a), RA);
    { /* (a) rigid turn Q about the axis through c */
      const double qq[4] = {cos(Qa / 2), sin(Qa / 2) * axis[0], sin(Qa / 2) * axis[1], sin(Qa / 2) * axis[2]};
      double       r[3], Qu[3], Qw[3];
      quat_to_matrix(qq, Q);
      for (int k = 0; k < 3; k++) {
        PenaltyPose  *to   = k == 0 ? &A1 : &B1;
        const double *from = k == 0 ? xa : k == 1 ? xb : point;
        v3_sub(r, from, c);
        mat_vec(e, Q, r);
        v3_add(k < 2 ? to->x : p1, e, c);
        if (k < 2) memcpy(to->R, Q, sizeof(Q));
      }
      mat_vec(n1, Q, n);
      penalty_track(&A1, &B1, n1, p1, &h, &tr);
      mat_vec(Qu, Q, first.u);
      mat_vec(Qw, Q, first.w);
      v3_sub(Qu, Qu, tr.u);
      v3_sub(Qw, Qw, tr.w);
      CHECK(fabs(tr.pa[0]) + fabs(tr.pa[1]) + fabs(tr.pb[0]) + fabs(tr.pb[1]) < 1e-15 && fabs(tr.psi) < 1e-15 &&
              v3_norm(Qu) + v3_norm(Qw) < 1e-15,
            "pair turned rigidly: p_A (%g, %g), p_B (%g, %g), psi %g, frame off Q (u, w) by %g", tr.pa[0], tr.pa[1],
            tr.pb[0], tr.pb[1], tr.psi, v3_norm(Qu) + v3_norm(Qw));
    }
    { /* (b) A spins about n by d */
      double Ru[3];
      pose_rotated(&A1, xa, n, d);
      pose_identity(&B1, xb[0], xb[1], xb[2]);
      penalty_track(&A1, &B1, n, point, &h, &tr);
      mat_vec(Ru, A1.R, first.u);
      v3_sub(Ru, Ru, tr.u);
      CHECK(fabs(tr.psi - d) < 1e-15 && v3_norm(Ru) < 1e-15 &&
              fabs(tr.pa[0]) + fabs(tr.pa[1]) + fabs(tr.pb[0]) + fabs(tr.pb[1]) < 1e-15,
            "A spun by %g: psi %g (want %g), frame off A's by %g, p_A (%g, %g), p_B (%g, %g)", d, tr.psi, d,
            v3_norm(Ru), tr.pa[0], tr.pa[1], tr.pb[0], tr.pb[1]);
    }
    { /* (c) A turns by t about y through its centre */
      double pw[3], du[3];
      pose_rotated(&A1, xa, y, t);
      pose_identity(&B1, xb[0], xb[1], xb[2]);
      penalty_track(&A1, &B1, n, point, &h, &tr);
      for (int k = 0; k < 3; k++) pw[k] = tr.pa[0] * tr.u[k] + tr.pa[1] * tr.w[k];
      pw[0] += RA * sin(t);
      v3_sub(du, tr.u, first.u);
      CHECK(v3_norm(pw) < 1e-15 && fabs(tr.pb[0]) + fabs(tr.pb[1]) < 1e-15 && v3_norm(du) < 1e-15 &&
              fabs(tr.psi) < 1e-15,
            "A turned by %g about a tangent: p_A off (-R_A sin t, 0, 0) by %g, p_B (%g, %g), frame moved by %g, psi %g",
            t, v3_norm(pw), tr.pb[0], tr.pb[1], v3_norm(du), tr.psi);
    }
  }
  { /* 3 */
    const PenaltySettings set   = {.normal = PENALTY_NORMAL_HOOKE, .normal_stiffness = 1e4};
    const double          es[3] = {0.2, 0.5, 0.9}, m = 1, period = 2 * M_PI * sqrt(m / 1e4), h = period / 2000;
    for (int i = 0; i < 3; i++) {
      Material    mat = {.young_modulus = 1e7, .poisson_ratio = 0.3, .restitution = es[i]};
      PenaltyPair pair;
      double      x = 0, v = -1, k, a;
      penalty_pair(&mat, &mat, &pair);
      do { /* x < 0: overlap delta = -x; vn = v (positive separating) */
        const double f = x < 0 ? penalty_normal_force(&set, &pair, -x, v, 0, m, &k, &a) : 0;
        v += h * f / m;
        x += h * v;
      } while (x < 0);
      CHECK(fabs(v / es[i] - 1) < 0.005, "Hooke impact at 1 m/s with e = %g leaves at %g m/s", es[i], v);
      printf("Hooke impact: rebound %.5f m/s for restitution %g\n", v, es[i]);
    }
  }
  { /* 4 */
    const double axis[3] = {0.48, -0.6, 0.64}, h = 1e-3, q0[4] = {0.5, 0.5, -0.5, 0.5};
    const double angles[] = {1e-8, 1e-4, 0.0099, 0.01, 0.0101, 0.3, 3.0};
    for (size_t i = 0; i < sizeof(angles) / sizeof(angles[0]); i++) {
      double w[3], t[3], q[4], R0[9], R1[9], D[9], worst = 0;
      v3_scale(w, angles[i] / h, axis);
      v3_scale(t, h, w);
      memcpy(q, q0, sizeof(q));
      quat_integrate_world(q, w, h);
      quat_to_matrix(q0, R0);
      quat_to_matrix(q, R1);
      rotation_of_vector(t, D);
      for (int r = 0; r < 3; r++) /* R1 = D R0 */
        for (int c = 0; c < 3; c++)
          worst = fmax(worst,
                       fabs(R1[3 * r + c] - (D[3 * r] * R0[c] + D[3 * r + 1] * R0[3 + c] + D[3 * r + 2] * R0[6 + c])));
      CHECK(worst < 1e-15, "rotation_of_vector of an angle %g rad: off the integrator's turn by %g", angles[i], worst);
    }
  }
  if (failures) printf("penalty kernels: %d check(s) FAILED\n", failures);
  else printf("penalty kernels: all checks passed\n");
  return failures ? 1 : 0;
}
