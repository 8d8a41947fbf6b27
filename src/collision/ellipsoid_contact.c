/* See collision/ellipsoid_contact.h. */
#include "collision/ellipsoid_contact.h"
#include "bodies/ellipsoid.h"
#include <float.h>

int narrow_plane_ellipsoid(const double p[3], const double nrm[3], const double c[3], const double q[4],
                           const double semi[3], double envelope, ContactPoint *out)
{
  double d[3], down[3], down_b[3], tip_b[3], tip[3], height, s, phi;

  v3_sub(d, c, p);
  height = v3_dot(d, nrm); /* the centre's signed height above the plane */
  v3_scale(down, -1.0, nrm);
  quat_rotate_inv(down_b, q, down);                   /* the outward normal at the deepest point, body frame */
  s   = ellipsoid_support_point(semi, down_b, tip_b); /* that point: s below the centre along nrm */
  phi = height - s;
  if (!(phi < envelope)) return 0;
  quat_rotate(tip, q, tip_b);
  v3_copy(out->n, nrm);
  v3_add(out->p2, c, tip);
  v3_copy(out->p1, out->p2);
  v3_axpy(out->p1, -phi, nrm);
  out->phi = phi;
  return 1;
}

double ellipsoid_closest_point(const double semi[3], const double x[3], double p[3])
{
  const double amin = fmin(semi[0], fmin(semi[1], semi[2])), a2min = amin * amin;
  double       t = 0, lo, hi, f, df, inside = 0;
  int          k;

  for (k = 0; k < 3; k++) inside += x[k] * x[k] / (semi[k] * semi[k]);
  if (inside == 0) { /* the centre: every direction is as near; the shortest axis' tip is nearest */
    k = semi[0] == amin ? 0 : semi[1] == amin ? 1 : 2;
    v3_set(p, 0, 0, 0);
    p[k] = amin;
    return -amin;
  }
  /* a bracket of the root: f(lo) >= 0 >= f(hi) */
  if (inside >= 1) {
    lo = 0;
    hi = sqrt(x[0] * x[0] * semi[0] * semi[0] + x[1] * x[1] * semi[1] * semi[1] + x[2] * x[2] * semi[2] * semi[2]);
  } else {
    double fm = -1;
    lo        = -a2min;
    hi        = 0;
    for (k = 0; k < 3; k++) {
      const double d = semi[k] * semi[k] - a2min;
      if (x[k] != 0) fm = d > 0 ? fm + (semi[k] * x[k] / d) * (semi[k] * x[k] / d) : INFINITY;
    }
    if (fm <= 0) { /* f stays below 0 up to the pole t = -min a^2: the nearest points leave the shortest axes' plane */
      double rest = 1;
      for (k = 0; k < 3; k++) {
        const double d = semi[k] * semi[k] - a2min;
        p[k]           = d > 0 ? semi[k] * semi[k] * x[k] / d : 0;
        rest -= p[k] * p[k] / (semi[k] * semi[k]);
      }
      k    = semi[0] == amin ? 0 : semi[1] == amin ? 1 : 2;
      p[k] = amin * sqrt(fmax(rest, 0)); /* one of the two mirror points */
      {
        double d[3];
        v3_sub(d, x, p);
        return -v3_norm(d);
      }
    }
  }
  for (int it = 0; it < 200; it++) {
    double step, tn;
    f  = -1;
    df = 0;
    for (k = 0; k < 3; k++) {
      const double a2 = semi[k] * semi[k], d = a2 + t, g = semi[k] * x[k] / d;
      f += g * g;
      df -= 2 * g * g / d;
    }
    if (f > 0) lo = t;
    else hi = t;
    step = df < 0 ? -f / df : 0;
    tn   = t + step;
    if (!(tn > lo && tn < hi)) tn = 0.5 * (lo + hi); /* Newton left the bracket (or f' = 0): bisect */
    if (fabs(tn - t) <= 1e-15 * (fabs(t) + a2min)) {
      t = tn;
      break;
    }
    t = tn;
  }
  for (k = 0; k < 3; k++) p[k] = semi[k] * semi[k] * x[k] / (semi[k] * semi[k] + t);
  {
    double d[3];
    v3_sub(d, x, p);
    return inside >= 1 ? v3_norm(d) : -v3_norm(d);
  }
}

int narrow_ellipsoid_sphere(const double c[3], const double q[4], const double semi[3], const double cs[3], double r,
                            double envelope, ContactPoint *out)
{
  double d[3], xb[3], pb[3], nb[3], dist, phi, len;

  v3_sub(d, cs, c);
  if (v3_norm(d) - r - fmax(semi[0], fmax(semi[1], semi[2])) >= envelope) return 0; /* beyond the bounding sphere */
  quat_rotate_inv(xb, q, d);
  dist = ellipsoid_closest_point(semi, xb, pb);
  phi  = dist - r;
  if (!(phi < envelope)) return 0;
  for (int k = 0; k < 3; k++) nb[k] = pb[k] / (semi[k] * semi[k]); /* the outward normal there */
  len = v3_norm(nb);
  v3_scale(nb, 1 / len, nb);
  quat_rotate(out->n, q, nb);
  quat_rotate(out->p1, q, pb);
  v3_add(out->p1, out->p1, c);
  v3_copy(out->p2, cs);
  v3_axpy(out->p2, -r, out->n);
  out->phi = phi;
  return 1;
}

/* The ellipsoid-ellipsoid support gap of one direction (see the header): M_A = R_A diag(a^2) R_A^T
 * and M_B as symmetric 3x3 matrices in world coordinates. */
typedef struct {
  double MA[9], MB[9], d[3];
} EllipsoidPair;

/* g(n) for unit n; man <- M_A n, mbn <- M_B n, *ha <- h_A(n), *hb <- h_B(-n) = h_B(n). */
static double pair_gap(const EllipsoidPair *P, const double n[3], double man[3], double mbn[3], double *ha, double *hb)
{
  mat_vec(man, P->MA, n);
  mat_vec(mbn, P->MB, n);
  *ha = sqrt(fmax(v3_dot(n, man), 0));
  *hb = sqrt(fmax(v3_dot(n, mbn), 0));
  return v3_dot(n, P->d) - *ha - *hb;
}

/* M <- R diag(semi^2) R^T of orientation q. */
static void shape_matrix(const double q[4], const double semi[3], double M[9])
{
  double R[9];
  quat_to_matrix(q, R);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      M[3 * i + j] = 0;
      for (int k = 0; k < 3; k++) M[3 * i + j] += R[3 * i + k] * semi[k] * semi[k] * R[3 * j + k];
    }
}

/* Maximises g over the unit sphere from n (unit, changed to the maximiser); returns g there. scale
 * (m): the size of the problem, for the convergence test. */
static double pair_maximise(const EllipsoidPair *P, double n[3], double scale)
{
  double man[3], mbn[3], ha, hb, g = pair_gap(P, n, man, mbn, &ha, &hb);

  for (int it = 0; it < ELLIPSOID_PAIR_MAX_ITERATIONS; it++) {
    double t1[3], t2[3], grad[3], G[2], H[2][2], s[2], det, len;
    int    accepted = 0;
    /* the tangent basis t1, t2 of n: t1 across the axis n is least aligned with */
    const int k    = fabs(n[0]) <= fabs(n[1]) && fabs(n[0]) <= fabs(n[2]) ? 0 : fabs(n[1]) <= fabs(n[2]) ? 1 : 2;
    double    e[3] = {0, 0, 0};
    e[k]           = 1;
    v3_cross(t1, n, e);
    v3_scale(t1, 1 / v3_norm(t1), t1);
    v3_cross(t2, n, t1);
    /* the gradient d - M_A n / h_A - M_B n / h_B and its tangent part */
    for (int c = 0; c < 3; c++) grad[c] = P->d[c] - man[c] / ha - mbn[c] / hb;
    G[0] = v3_dot(t1, grad);
    G[1] = v3_dot(t2, grad);
    if (sqrt(G[0] * G[0] + G[1] * G[1]) <= ELLIPSOID_PAIR_TOLERANCE * scale) break;
    /* the Hessian on the sphere: t_i^T (-(M_A/h_A - M_A n n^T M_A / h_A^3) - (same for B)) t_j - g delta_ij */
    {
      const double *ts[2] = {t1, t2};
      double        at[2], bt[2], mt[3];
      for (int i = 0; i < 2; i++) {
        at[i] = v3_dot(ts[i], man);
        bt[i] = v3_dot(ts[i], mbn);
      }
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
          double qa, qb;
          mat_vec(mt, P->MA, ts[j]);
          qa = v3_dot(ts[i], mt);
          mat_vec(mt, P->MB, ts[j]);
          qb      = v3_dot(ts[i], mt);
          H[i][j] = -(qa / ha - at[i] * at[j] / (ha * ha * ha)) - (qb / hb - bt[i] * bt[j] / (hb * hb * hb)) -
                    (i == j ? g : 0);
        }
    }
    /* Newton where the Hessian is negative definite, else steepest ascent (an angle of |G| / scale) */
    det = H[0][0] * H[1][1] - H[0][1] * H[1][0];
    if (det > 0 && H[0][0] + H[1][1] < 0) {
      s[0] = -(H[1][1] * G[0] - H[0][1] * G[1]) / det;
      s[1] = -(-H[1][0] * G[0] + H[0][0] * G[1]) / det;
    } else {
      s[0] = G[0] / scale;
      s[1] = G[1] / scale;
    }
    len = sqrt(s[0] * s[0] + s[1] * s[1]);
    if (len > ELLIPSOID_PAIR_MAX_TURN) {
      s[0] *= ELLIPSOID_PAIR_MAX_TURN / len;
      s[1] *= ELLIPSOID_PAIR_MAX_TURN / len;
    }
    /* the guard: halve the step until g does not decrease by more than its rounding (near the maximum g
     * changes by G^2 / |H|, below the rounding, while the Newton step still halves the gradient); none
     * such: g is maximal to rounding */
    for (int half = 0; half < 40 && !accepted; half++) {
      double m[3], mman[3], mmbn[3], mha, mhb, gm;
      for (int c = 0; c < 3; c++) m[c] = n[c] + s[0] * t1[c] + s[1] * t2[c];
      v3_scale(m, 1 / v3_norm(m), m);
      gm = pair_gap(P, m, mman, mmbn, &mha, &mhb);
      if (gm >= g - 4 * DBL_EPSILON * scale) {
        v3_copy(n, m);
        v3_copy(man, mman);
        v3_copy(mbn, mmbn);
        ha       = mha;
        hb       = mhb;
        g        = gm;
        accepted = 1;
      } else {
        s[0] *= 0.5;
        s[1] *= 0.5;
      }
    }
    if (!accepted) break;
  }
  return g;
}

int narrow_ellipsoid_ellipsoid(const double ca[3], const double qa[4], const double sa[3], const double cb[3],
                               const double qb[4], const double sb[3], double envelope, ContactPoint *out)
{
  EllipsoidPair P;
  double        n[3], best[3], man[3], mbn[3], ha, hb, g, dist, scale;
  const double  ra = fmax(sa[0], fmax(sa[1], sa[2])), rb = fmax(sb[0], fmax(sb[1], sb[2]));

  v3_sub(P.d, cb, ca);
  dist = v3_norm(P.d);
  if (dist - ra - rb >= envelope) return 0; /* beyond the bounding spheres */
  shape_matrix(qa, sa, P.MA);
  shape_matrix(qb, sb, P.MB);
  scale = dist + ra + rb;
  if (dist > 0) v3_scale(n, 1 / dist, P.d);
  else v3_set(n, 1, 0, 0);
  g = pair_maximise(&P, n, scale);
  v3_copy(best, n);
  if (g < 0) { /* overlapping: the maximum need not be unique; try the body axes too, keep the largest */
    double Ra[9], Rb[9];
    quat_to_matrix(qa, Ra);
    quat_to_matrix(qb, Rb);
    for (int k = 0; k < 6; k++) {
      const double *R = k < 3 ? Ra : Rb;
      double        gk;
      for (int c = 0; c < 3; c++) n[c] = R[3 * c + k % 3];
      if (v3_dot(n, P.d) < 0) v3_scale(n, -1.0, n);
      gk = pair_maximise(&P, n, scale);
      if (gk > g) {
        g = gk;
        v3_copy(best, n);
      }
    }
  }
  if (!(g < envelope)) return 0;
  g = pair_gap(&P, best, man, mbn, &ha, &hb);
  v3_copy(out->n, best);
  v3_copy(out->p1, ca);
  v3_axpy(out->p1, 1 / ha, man); /* A's support point along n */
  v3_copy(out->p2, cb);
  v3_axpy(out->p2, -1 / hb, mbn); /* B's support point along -n */
  out->phi = g;
  return 1;
}
