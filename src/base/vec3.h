/* Small inline 3-vector, quaternion and symmetric-3x3 helpers.
 * Quaternions are (w, x, y, z), unit length, rotating body frame -> world frame.
 * Symmetric 3x3 matrices are stored as 6 doubles: xx, yy, zz, xy, xz, yz. */
#ifndef CCPDEM_BASE_VEC3_H
#define CCPDEM_BASE_VEC3_H
#include <math.h>

static inline void v3_set(double r[3], double x, double y, double z)
{
  r[0] = x;
  r[1] = y;
  r[2] = z;
}
static inline void v3_copy(double r[3], const double a[3])
{
  r[0] = a[0];
  r[1] = a[1];
  r[2] = a[2];
}
static inline void v3_add(double r[3], const double a[3], const double b[3])
{
  r[0] = a[0] + b[0];
  r[1] = a[1] + b[1];
  r[2] = a[2] + b[2];
}
static inline void v3_sub(double r[3], const double a[3], const double b[3])
{
  r[0] = a[0] - b[0];
  r[1] = a[1] - b[1];
  r[2] = a[2] - b[2];
}
static inline void v3_scale(double r[3], double s, const double a[3])
{
  r[0] = s * a[0];
  r[1] = s * a[1];
  r[2] = s * a[2];
}
/* r += s a */
static inline void v3_axpy(double r[3], double s, const double a[3])
{
  r[0] += s * a[0];
  r[1] += s * a[1];
  r[2] += s * a[2];
}
static inline double v3_dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline double v3_norm(const double a[3]) { return sqrt(v3_dot(a, a)); }
static inline void   v3_cross(double r[3], const double a[3], const double b[3])
{
  const double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
  r[0] = x;
  r[1] = y;
  r[2] = z;
}
/* The axis e_k that v3_tangents crosses with the unit vector n: the first along which n's component
 * is below 1/sqrt(3) in magnitude (one is). */
static inline int v3_tangent_axis(const double n[3]) { return fabs(n[0]) < 0.57735 ? 0 : fabs(n[1]) < 0.57735 ? 1 : 2; }
/* v3_tangents, and the factor *s that normalized u = e_k x n (k = v3_tangent_axis(n)): what the
 * solvers' packed layout stores to rebuild the frame from n (ccp/pack.h). */
static inline void v3_tangents_scaled(const double n[3], double u[3], double w[3], double *s)
{
  double t[3]           = {0, 0, 0};
  t[v3_tangent_axis(n)] = 1;
  v3_cross(u, t, n); /* u = t x n, then w = n x u keeps (n,u,w) right-handed */
  *s = 1.0 / v3_norm(u);
  v3_scale(u, *s, u);
  v3_cross(w, n, u);
}
/* Two unit tangents u, w with (n, u, w) right-handed; deterministic for a given n. */
static inline void v3_tangents(const double n[3], double u[3], double w[3])
{
  double s;
  v3_tangents_scaled(n, u, w, &s);
}

/* r = q * p (Hamilton product) */
static inline void quat_mul(double r[4], const double q[4], const double p[4])
{
  const double w = q[0] * p[0] - q[1] * p[1] - q[2] * p[2] - q[3] * p[3];
  const double x = q[0] * p[1] + q[1] * p[0] + q[2] * p[3] - q[3] * p[2];
  const double y = q[0] * p[2] - q[1] * p[3] + q[2] * p[0] + q[3] * p[1];
  const double z = q[0] * p[3] + q[1] * p[2] - q[2] * p[1] + q[3] * p[0];
  r[0]           = w;
  r[1]           = x;
  r[2]           = y;
  r[3]           = z;
}
static inline void quat_normalize(double q[4])
{
  const double s = 1.0 / sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  q[0] *= s;
  q[1] *= s;
  q[2] *= s;
  q[3] *= s;
}
/* Rotation matrix (row-major) of unit quaternion q: world = R body. */
/* Whether q is exactly the identity (1, 0, 0, 0): a rotation by it may be skipped (for finite vectors R a = a
 * exactly, up to the sign of a zero). */
static inline int quat_is_identity(const double q[4]) { return q[0] == 1 && q[1] == 0 && q[2] == 0 && q[3] == 0; }
static inline void quat_to_matrix(const double q[4], double R[9])
{
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2 * (y * y + z * z);
  R[1] = 2 * (x * y - w * z);
  R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z);
  R[4] = 1 - 2 * (x * x + z * z);
  R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y);
  R[7] = 2 * (y * z + w * x);
  R[8] = 1 - 2 * (x * x + y * y);
}
static inline void mat_vec(double r[3], const double R[9], const double a[3])
{
  const double x = R[0] * a[0] + R[1] * a[1] + R[2] * a[2];
  const double y = R[3] * a[0] + R[4] * a[1] + R[5] * a[2];
  const double z = R[6] * a[0] + R[7] * a[1] + R[8] * a[2];
  r[0]           = x;
  r[1]           = y;
  r[2]           = z;
}
static inline void mat_tvec(double r[3], const double R[9], const double a[3])
{
  const double x = R[0] * a[0] + R[3] * a[1] + R[6] * a[2];
  const double y = R[1] * a[0] + R[4] * a[1] + R[7] * a[2];
  const double z = R[2] * a[0] + R[5] * a[1] + R[8] * a[2];
  r[0]           = x;
  r[1]           = y;
  r[2]           = z;
}
/* world vector from body vector and back */
static inline void quat_rotate(double r[3], const double q[4], const double a[3])
{
  double R[9];
  quat_to_matrix(q, R);
  mat_vec(r, R, a);
}
static inline void quat_rotate_inv(double r[3], const double q[4], const double a[3])
{
  double R[9];
  quat_to_matrix(q, R);
  mat_tvec(r, R, a);
}
/* For a small angle t, from t2 = t^2 < 1e-4: sin(t) / t and (1 - cos t) / t^2 by their series, exact
 * to double precision there (the first terms left out are below 3e-22). The coefficients multiply
 * (a division costs a multiplication's ten-fold; the rounded 1/6 moves the result by < 1e-21). */
static inline double sinc_series(double t2)
{
  return 1 - t2 * (1.0 / 6) * (1 - t2 * (1.0 / 20) * (1 - t2 * (1.0 / 42)));
}
static inline double cosc_series(double t2)
{
  return 0.5 * (1 - t2 * (1.0 / 12) * (1 - t2 * (1.0 / 30) * (1 - t2 * (1.0 / 56))));
}
/* R (row-major) = the rotation by the vector t (angle |t| about t / |t|): Rodrigues' formula
 * I + s [t]x + c [t]x^2, s = sin|t| / |t|, c = (1 - cos|t|) / |t|^2; for |t| < 0.01 their series.
 * The rotation that quat_integrate_world applies for t = h w_world. */
static inline void rotation_of_vector(const double t[3], double R[9])
{
  const double t2 = t[0] * t[0] + t[1] * t[1] + t[2] * t[2];
  double       s, c;
  if (t2 < 1e-4) {
    s = sinc_series(t2);
    c = cosc_series(t2);
  } else {
    const double a = sqrt(t2);
    s              = sin(a) / a;
    c              = (1 - cos(a)) / t2;
  }
  R[0] = 1 + c * (t[0] * t[0] - t2);
  R[1] = c * t[0] * t[1] - s * t[2];
  R[2] = c * t[0] * t[2] + s * t[1];
  R[3] = c * t[0] * t[1] + s * t[2];
  R[4] = 1 + c * (t[1] * t[1] - t2);
  R[5] = c * t[1] * t[2] - s * t[0];
  R[6] = c * t[0] * t[2] - s * t[1];
  R[7] = c * t[1] * t[2] + s * t[0];
  R[8] = 1 + c * (t[2] * t[2] - t2);
}
/* q <- dq q, normalized: a turn dq (unit quaternion, world frame) applied to orientation q. */
static inline void quat_turn(double q[4], const double dq[4])
{
  double r[4];
  quat_mul(r, dq, q);
  q[0] = r[0];
  q[1] = r[1];
  q[2] = r[2];
  q[3] = r[3];
  quat_normalize(q);
}
/* q <- exp(h w_world / 2) q: the exponential-map update for a world-frame angular velocity. */
static inline void quat_integrate_world(double q[4], const double w_world[3], double h)
{
  const double a     = v3_norm(w_world) * h;
  double       dq[4] = {1, 0, 0, 0};
  if (a > 0) {
    const double s = sin(0.5 * a) / (a / h);
    dq[0]          = cos(0.5 * a);
    dq[1]          = s * w_world[0];
    dq[2]          = s * w_world[1];
    dq[3]          = s * w_world[2];
  }
  quat_turn(q, dq);
}
/* The same update, dq = (cos x, sin(x) / x * h / 2 w_world) with x = |w_world| h / 2, where a turn
 * below 0.01 rad (x^2 < 2.5e-5: a body's usual step) takes the series, within an ulp of
 * quat_integrate_world (tests/unit/test_vec3.c), with neither sincos nor a square root nor a
 * division. Other bits than quat_integrate_world's: the penalty model's integrator uses it. */
static inline void quat_integrate_world_series(double q[4], const double w_world[3], double h)
{
  const double x2 = 0.25 * (h * h) * v3_dot(w_world, w_world);
  if (x2 < 2.5e-5) {
    const double s     = sinc_series(x2) * (0.5 * h);
    const double dq[4] = {1 - x2 * cosc_series(x2), s * w_world[0], s * w_world[1], s * w_world[2]};
    quat_turn(q, dq);
  } else quat_integrate_world(q, w_world, h);
}
/* r = S a for symmetric S (xx, yy, zz, xy, xz, yz) */
static inline void sym_vec(double r[3], const double S[6], const double a[3])
{
  const double x = S[0] * a[0] + S[3] * a[1] + S[4] * a[2];
  const double y = S[3] * a[0] + S[1] * a[1] + S[5] * a[2];
  const double z = S[4] * a[0] + S[5] * a[1] + S[2] * a[2];
  r[0]           = x;
  r[1]           = y;
  r[2]           = z;
}
/* S = R diag(d) R^T */
static inline void sym_rotate_diag(double S[6], const double R[9], const double d[3])
{
  S[0] = R[0] * R[0] * d[0] + R[1] * R[1] * d[1] + R[2] * R[2] * d[2];
  S[1] = R[3] * R[3] * d[0] + R[4] * R[4] * d[1] + R[5] * R[5] * d[2];
  S[2] = R[6] * R[6] * d[0] + R[7] * R[7] * d[1] + R[8] * R[8] * d[2];
  S[3] = R[0] * R[3] * d[0] + R[1] * R[4] * d[1] + R[2] * R[5] * d[2];
  S[4] = R[0] * R[6] * d[0] + R[1] * R[7] * d[1] + R[2] * R[8] * d[2];
  S[5] = R[3] * R[6] * d[0] + R[4] * R[7] * d[1] + R[5] * R[8] * d[2];
}
#endif
