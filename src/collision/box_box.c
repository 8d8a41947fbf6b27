/* Box-box contact: separating axes and the contact manifold (contracts in collision/box_box.h). */
#include "collision/box_box.h"
#include "base/vec3.h"
#include <petscsys.h>

_Static_assert(BOX_BOX_MAX_POINTS <= NARROW_MAX_POINTS, "a box pair's points must fit the narrowphase's arrays");

/* Feature numbers: per (reference box, reference face, incident face) FACE_FEATURES of them (incident
 * vertex e: e; incident edge e cut by side plane s: 4 + 4 e + s; reference corner c: 20 + c), then
 * the edge-edge points from EDGE_FEATURE_BASE on. */
#define FACE_FEATURES     24
#define EDGE_FEATURE_BASE (2 * 6 * 6 * FACE_FEATURES)
#define PARALLEL_EDGES    1e-6 /* |a x b| below it: the edges are parallel, their axis is skipped */

static inline void column(const double R[9], int k, double a[3]) { v3_set(a, R[k], R[3 + k], R[6 + k]); }

static inline double min_half_extent(const double he[3]) { return PetscMin(he[0], PetscMin(he[1], he[2])); }

/* Keep (kind, i, j, n, sep) in *best when it separates more than *best (ties: the earlier). */
static inline void consider(BoxAxis *best, BoxAxisKind kind, int i, int j, const double L[3], double dist, double sep)
{
  if (best->kind != (BoxAxisKind)-1 && !(sep > best->sep)) return;
  best->kind = kind;
  best->i    = i;
  best->j    = j;
  v3_scale(best->n, dist < 0 ? -1.0 : 1.0, L);
  best->sep = sep;
}

/* The best axis of each kind into best[0] (A's faces), best[1] (B's faces), best[2] (edge pairs; kind
 * -1 when every edge pair is parallel). Returns 0 as soon as an axis separates the boxes by at least
 * the envelope (that axis in best[0]), else 1. */
static int best_axes(const BoxFrame *a, const BoxFrame *b, double envelope, BoxAxis best[3])
{
  double A[3][3], B[3][3], absC[3][3], d[3];

  for (int k = 0; k < 3; k++) {
    column(a->R, k, A[k]);
    column(b->R, k, B[k]);
    best[k].kind = (BoxAxisKind)-1;
  }
  v3_sub(d, b->c, a->c);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) absC[i][j] = fabs(v3_dot(A[i], B[j]));
  for (int f = 0; f < 2; f++) /* A's faces, then B's */
    for (int i = 0; i < 3; i++) {
      const double *L = f ? B[i] : A[i], dist = v3_dot(d, L);
      double        r = f ? b->he[i] : a->he[i];
      for (int j = 0; j < 3; j++) r += f ? a->he[j] * absC[j][i] : b->he[j] * absC[i][j];
      consider(&best[f], f ? BOX_AXIS_FACE_B : BOX_AXIS_FACE_A, f ? -1 : i, f ? i : -1, L, dist, fabs(dist) - r);
      if (!(best[f].sep < envelope)) {
        best[0] = best[f];
        return 0;
      }
    }
  for (int i = 0; i < 3; i++) /* the edges' cross products */
    for (int j = 0; j < 3; j++) {
      double  L[3], len, dist, r = 0;
      BoxAxis one = {.kind = (BoxAxisKind)-1};
      v3_cross(L, A[i], B[j]);
      len = v3_norm(L);
      if (!(len >= PARALLEL_EDGES)) continue;
      v3_scale(L, 1.0 / len, L);
      dist = v3_dot(d, L);
      for (int k = 0; k < 3; k++) r += a->he[k] * fabs(v3_dot(A[k], L)) + b->he[k] * fabs(v3_dot(B[k], L));
      consider(&one, BOX_AXIS_EDGE, i, j, L, dist, fabs(dist) - r);
      if (!(one.sep < envelope)) {
        best[0] = one;
        return 0;
      }
      consider(&best[2], BOX_AXIS_EDGE, i, j, one.n, 1.0, one.sep);
    }
  return 1;
}

int box_box_sat(const BoxFrame *a, const BoxFrame *b, double envelope, BoxAxis *axis)
{
  const double tol = BOX_BOX_AXIS_TOL * PetscMin(min_half_extent(a->he), min_half_extent(b->he));
  BoxAxis      best[3];

  if (!best_axes(a, b, envelope, best)) {
    *axis = best[0];
    return 0;
  }
  *axis = best[0];
  if (best[1].sep > best[0].sep + tol) *axis = best[1];
  if (best[2].kind == BOX_AXIS_EDGE && best[2].sep > axis->sep + tol + 0.05 * fabs(axis->sep)) *axis = best[2];
  return 1;
}

/* A vertex of the clipped incident face: its feature, and the tag of the polygon edge that arrives at
 * it from the previous vertex (incident edge 0-3, or side plane s as 4 + s). */
typedef struct {
  double x[3];
  int    feature, edge_in;
} PolyVertex;

/* The feature of the point where the polygon edge tagged t crosses side plane s: an incident edge's
 * cut, or the reference face's corner between two side planes (s < 2: the u planes +, -; else v). */
static int cut_feature(int t, int s)
{
  if (t < 4) return 4 + 4 * t + s;
  {
    const int p = t - 4, up = p < 2 ? p : s, vp = p < 2 ? s : p;
    return 20 + (up == 1) + 2 * (vp == 3);
  }
}

/* in[0 .. n) clipped to side plane s, f(x) = sgn (x - c) . ax - limit: a vertex with f <= tol is kept
 * (one within tol of the plane is on it); an edge is cut where f = 0 only between a vertex deeper
 * than tol and one beyond tol, so no cut lands within tol of a kept vertex. Returns the number of
 * vertices written to out (at most n + 1). */
static int clip(const PolyVertex *in, int n, const double c[3], const double ax[3], double sgn, double limit,
                double tol, int s, PolyVertex *out)
{
  int m = 0;
  for (int i = 0; i < n; i++) {
    const PolyVertex *cur = &in[i], *prev = &in[(i + n - 1) % n];
    double            dc[3], dp[3];
    v3_sub(dc, cur->x, c);
    v3_sub(dp, prev->x, c);
    const double fc = sgn * v3_dot(dc, ax) - limit, fp = sgn * v3_dot(dp, ax) - limit;
    const int    cin = fc <= tol, pin = fp <= tol, cut = cin != pin && (cin ? fc < -tol : fp < -tol);
    if (cut) {
      PolyVertex  *X = &out[m++];
      const double t = fp / (fp - fc);
      double       e[3];
      v3_sub(e, cur->x, prev->x);
      v3_copy(X->x, prev->x);
      v3_axpy(X->x, t, e);
      X->feature = cut_feature(cur->edge_in, s);
      X->edge_in = cin ? 4 + s : cur->edge_in; /* entering: it follows the plane; leaving: the edge */
    }
    if (cin) {
      out[m] = *cur;
      if (!pin && !cut) out[m].edge_in = 4 + s; /* entering on the plane: the edge before it follows the plane */
      m++;
    }
  }
  return m;
}

/* The manifold of a face axis (box_box.h); returns the number of points. */
static int face_face(const BoxFrame *a, const BoxFrame *b, const BoxAxis *axis, double envelope, ContactPoint *out,
                     int32_t *feature)
{
  const int       ref_a = axis->kind == BOX_AXIS_FACE_A, k = ref_a ? axis->i : axis->j;
  const BoxFrame *R = ref_a ? a : b, *I = ref_a ? b : a;
  const int       u = (k + 1) % 3, v = (k + 2) % 3;
  const double    sp[4] = {1, -1, -1, 1}, sq[4] = {1, 1, -1, -1};
  double          nR[3], Rk[3], Ru[3], Rv[3], fc[3], Im[3], Ip[3], Iq[3], ic[3], best = -1, ctol;
  int             rsign, m = 0, sI, p, q, n = 4, np = 0;
  PolyVertex      poly[2][BOX_BOX_MAX_POINTS];

  v3_scale(nR, ref_a ? 1.0 : -1.0, axis->n); /* the reference face's outward normal */
  column(R->R, k, Rk);
  column(R->R, u, Ru);
  column(R->R, v, Rv);
  rsign = v3_dot(nR, Rk) >= 0 ? 1 : -1;
  v3_copy(fc, R->c);
  v3_axpy(fc, rsign * R->he[k], Rk);
  for (int j = 0; j < 3; j++) { /* the incident face: the most opposed to nR */
    double Ij[3], c;
    column(I->R, j, Ij);
    c = fabs(v3_dot(nR, Ij));
    if (c > best) {
      best = c;
      m    = j;
    }
  }
  p = (m + 1) % 3;
  q = (m + 2) % 3;
  column(I->R, m, Im);
  column(I->R, p, Ip);
  column(I->R, q, Iq);
  sI = v3_dot(nR, Im) > 0 ? -1 : 1;
  v3_copy(ic, I->c);
  v3_axpy(ic, sI * I->he[m], Im);
  for (int e = 0; e < 4; e++) {
    v3_copy(poly[0][e].x, ic);
    v3_axpy(poly[0][e].x, sp[e] * I->he[p], Ip);
    v3_axpy(poly[0][e].x, sq[e] * I->he[q], Iq);
    poly[0][e].feature = e;
    poly[0][e].edge_in = (e + 3) % 4;
  }
  ctol = BOX_BOX_CLIP_TOL * PetscMin(R->he[u], R->he[v]);
  for (int s = 0; s < 4 && n; s++) {
    const int ax = s < 2 ? u : v;
    n = clip(poly[s % 2], n, R->c, ax == u ? Ru : Rv, s % 2 ? -1.0 : 1.0, R->he[ax], ctol, s, poly[(s + 1) % 2]);
  }
  {
    const int32_t base = (int32_t)((((ref_a ? 0 : 1) * 6 + 2 * k + (rsign < 0)) * 6 + 2 * m + (sI < 0)) *
                                   FACE_FEATURES);
    for (int i = 0; i < n; i++) {
      const PolyVertex *x = &poly[0][i];
      double            dx[3], depth;
      int               at = np, dup = 0;
      v3_sub(dx, x->x, fc);
      depth = v3_dot(dx, nR);
      if (!(depth < envelope)) continue;
      for (int j = 0; j < np; j++) dup |= feature[j] == base + x->feature;
      if (dup) continue;                                      /* a degenerate cut named twice: keep the first */
      while (at > 0 && feature[at - 1] > base + x->feature) { /* in feature order */
        out[at]     = out[at - 1];
        feature[at] = feature[at - 1];
        at--;
      }
      feature[at] = base + x->feature;
      v3_scale(out[at].n, ref_a ? 1.0 : -1.0, nR);
      if (ref_a) {
        v3_copy(out[at].p2, x->x);
        v3_copy(out[at].p1, x->x);
        v3_axpy(out[at].p1, -depth, nR);
      } else {
        v3_copy(out[at].p1, x->x);
        v3_copy(out[at].p2, x->x);
        v3_axpy(out[at].p2, -depth, nR);
      }
      out[at].phi = depth;
      np++;
    }
  }
  return np;
}

/* The point of an edge-edge axis: the closest points of A's and B's supporting edges. */
static int edge_edge(const BoxFrame *a, const BoxFrame *b, const BoxAxis *axis, double envelope, ContactPoint *out,
                     int32_t *feature)
{
  double pa[3], pb[3], ua[3], ub[3], r[3], s, t, bb, c, f, den, p2[3], gap;
  int    sa = 0, sb = 0, bit_a = 0, bit_b = 0;

  v3_copy(pa, a->c);
  v3_copy(pb, b->c);
  for (int k = 0; k < 3; k++) { /* A's edge furthest along n, B's furthest against it */
    double ak[3], bk[3];
    column(a->R, k, ak);
    column(b->R, k, bk);
    if (k != axis->i) {
      const int plus = v3_dot(axis->n, ak) >= 0;
      v3_axpy(pa, plus ? a->he[k] : -a->he[k], ak);
      sa |= plus << bit_a++;
    }
    if (k != axis->j) {
      const int plus = v3_dot(axis->n, bk) < 0;
      v3_axpy(pb, plus ? b->he[k] : -b->he[k], bk);
      sb |= plus << bit_b++;
    }
  }
  column(a->R, axis->i, ua);
  column(b->R, axis->j, ub);
  v3_sub(r, pb, pa);
  bb  = v3_dot(ua, ub);
  c   = v3_dot(ua, r);
  f   = v3_dot(ub, r);
  den = 1 - bb * bb; /* > 0: the axis was skipped for parallel edges */
  s   = (c - bb * f) / den;
  s   = PetscMax(-a->he[axis->i], PetscMin(a->he[axis->i], s));
  t   = s * bb - f;
  t   = PetscMax(-b->he[axis->j], PetscMin(b->he[axis->j], t));
  v3_copy(out->p1, pa);
  v3_axpy(out->p1, s, ua);
  v3_copy(p2, pb);
  v3_axpy(p2, t, ub);
  v3_sub(r, p2, out->p1);
  gap = v3_dot(r, axis->n);
  if (!(gap < envelope)) return 0;
  v3_copy(out->n, axis->n);
  v3_copy(out->p2, out->p1);
  v3_axpy(out->p2, gap, axis->n); /* B's point straight along n from A's: p2 - p1 = phi n */
  out->phi   = gap;
  feature[0] = EDGE_FEATURE_BASE + ((axis->i * 3 + axis->j) * 4 + sa) * 4 + sb;
  return 1;
}

int narrow_box_box(const double ca[3], const double qa[4], const double ha[3], const double cb[3], const double qb[4],
                   const double hb[3], double envelope, ContactPoint out[BOX_BOX_MAX_POINTS],
                   int32_t feature[BOX_BOX_MAX_POINTS])
{
  BoxFrame a = {.c = ca, .he = ha}, b = {.c = cb, .he = hb};
  BoxAxis  axis, best[3];
  int      np;

  quat_to_matrix(qa, a.R);
  quat_to_matrix(qb, b.R);
  if (!box_box_sat(&a, &b, envelope, &axis)) return 0;
  if (axis.kind == BOX_AXIS_EDGE) return edge_edge(&a, &b, &axis, envelope, out, feature);
  np = face_face(&a, &b, &axis, envelope, out, feature);
  if (np) return np;
  /* nothing of the incident face within the reference face: the best edge pair, if any */
  best_axes(&a, &b, envelope, best);
  return best[2].kind == BOX_AXIS_EDGE ? edge_edge(&a, &b, &best[2], envelope, out, feature) : 0;
}
