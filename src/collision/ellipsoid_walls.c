/* See collision/ellipsoid_walls.h. */
#include "collision/ellipsoid_walls.h"
#include "collision/ellipsoid_contact.h"
#include "bodies/ellipsoid.h"
#include <math.h>

/* The ellipsoid's projection across the cylinder's axis: centre d, support matrix M = {m00, m01, m11}
 * in the frame (e1, e2), and sign +1 (inside: the farthest point) or -1 (outside: the nearest). */
typedef struct {
  double d[2], m00, m01, m11, sign;
} RadialProblem;

/* f(t) = u . d + sign s(u), u = (cos t, sin t), with f'(t) in *f1 and f''(t) in *f2. */
static double radial_value(const RadialProblem *rp, double t, double *f1, double *f2)
{
  const double u[2] = {cos(t), sin(t)}, up[2] = {-u[1], u[0]};
  const double Mu[2] = {rp->m00 * u[0] + rp->m01 * u[1], rp->m01 * u[0] + rp->m11 * u[1]};
  const double uMu = u[0] * Mu[0] + u[1] * Mu[1], upMu = up[0] * Mu[0] + up[1] * Mu[1];
  const double upMup = rp->m00 * up[0] * up[0] + 2 * rp->m01 * up[0] * up[1] + rp->m11 * up[1] * up[1];
  const double s = sqrt(uMu), ud = u[0] * rp->d[0] + u[1] * rp->d[1];

  *f1 = up[0] * rp->d[0] + up[1] * rp->d[1] + rp->sign * upMu / s;
  *f2 = -ud + rp->sign * ((upMup - uMu) / s - upMu * upMu / (s * s * s));
  return ud + rp->sign * s;
}

/* The angle t maximising radial_value (the search in collision/ellipsoid_walls.h); *best its value. */
static double radial_maximise(const RadialProblem *rp, double *best)
{
  const double spacing = 2 * M_PI / ELLWALL_SAMPLES;
  double       t = 0, f1, f2, f = -INFINITY;

  for (int k = 0; k < ELLWALL_SAMPLES; k++) {
    const double tk = k * spacing, fk = radial_value(rp, tk, &f1, &f2);
    if (fk > f) {
      f = fk;
      t = tk;
    }
  }
  for (int it = 0; it < 100; it++) {
    double step;
    f = radial_value(rp, t, &f1, &f2);
    if (f1 == 0) break; /* stationary: a maximum, as the best sample's neighbourhood is searched uphill */
    step = f2 < 0 ? -f1 / f2 : 0;
    if (!(f2 < 0 && fabs(step) < spacing)) { /* not concave here, or a long step: go uphill, never losing */
      double g1, g2;
      step = f1 > 0 ? spacing : -spacing;
      while (fabs(step) > 1e-16 && radial_value(rp, t + step, &g1, &g2) < f) step *= 0.5;
    }
    t += step;
    if (fabs(step) <= 1e-12) break;
  }
  *best = radial_value(rp, t, &f1, &f2);
  return t;
}

/* Signed distance from the rim point at angle t (the circle of centre o, radius R in the plane (e1,
 * e2)) to the ellipsoid (centre c, rotation Rq, semi-axes semi): the rim point in pw, its nearest
 * point of the ellipsoid in pb (body frame), and in *slope the distance's derivative in t, the
 * ellipsoid's outward unit normal there (the distance's gradient) along the circle's tangent. */
static double rim_distance(const double o[3], double R, const double e1[3], const double e2[3], const double c[3],
                           const double Rq[9], const double semi[3], double t, double pw[3], double pb[3],
                           double *slope)
{
  double d[3], xb[3], nb[3], tan[3], dist;
  v3_copy(pw, o);
  v3_axpy(pw, R * cos(t), e1);
  v3_axpy(pw, R * sin(t), e2);
  v3_sub(d, pw, c);
  mat_tvec(xb, Rq, d);
  dist = ellipsoid_closest_point(semi, xb, pb);
  for (int k = 0; k < 3; k++) nb[k] = pb[k] / (semi[k] * semi[k]);
  v3_scale(tan, -R * sin(t), e1);
  v3_axpy(tan, R * cos(t), e2);
  mat_tvec(d, Rq, tan);
  *slope = v3_dot(nb, d) / v3_norm(nb);
  return dist;
}

/* The rim circle at the end `end` (+1, -1) of the finite tube w against the ellipsoid. */
static int rim_contact(const Wall *w, int end, const double e1[3], const double e2[3], const double c[3],
                       const double Rq[9], const double semi[3], double envelope, ContactPoint *out)
{
  const double spacing = 2 * M_PI / ELLWALL_SAMPLES, g = 0.5 * (sqrt(5.0) - 1);
  double       o[3], pw[3], pb[3], nb[3], t = 0, best = INFINITY, lo, hi, a, b, fa, fb, phi, slope, slo, shi;

  v3_copy(o, w->center);
  v3_axpy(o, end * w->half_length, w->axis);
#define RIM(t_, s_) rim_distance(o, w->radius, e1, e2, c, Rq, semi, (t_), pw, pb, (s_))
  for (int k = 0; k < ELLWALL_SAMPLES; k++) {
    const double fk = RIM(k * spacing, &slope);
    if (fk < best) {
      best = fk;
      t    = k * spacing;
    }
  }
  /* golden section about the best sample down to 1e-6 rad, where the distance is too flat for its
     values to tell the sides apart; then bisection on the sign of its slope, which stays accurate */
  lo = t - spacing;
  hi = t + spacing;
  a  = hi - g * (hi - lo);
  b  = lo + g * (hi - lo);
  fa = RIM(a, &slope);
  fb = RIM(b, &slope);
  while (hi - lo > 1e-6) {
    if (fa < fb) {
      hi = b;
      b  = a;
      fb = fa;
      a  = hi - g * (hi - lo);
      fa = RIM(a, &slope);
    } else {
      lo = a;
      a  = b;
      fa = fb;
      b  = lo + g * (hi - lo);
      fb = RIM(b, &slope);
    }
  }
  RIM(lo, &slo);
  RIM(hi, &shi);
  if (slo < 0 && shi > 0)
    while (hi - lo > 1e-14) {
      const double mid = 0.5 * (lo + hi);
      RIM(mid, &slope);
      if (slope < 0) lo = mid;
      else hi = mid;
    }
  phi = RIM(0.5 * (lo + hi), &slope);
#undef RIM
  if (!(phi < envelope)) return 0;
  for (int k = 0; k < 3; k++) nb[k] = -pb[k] / (semi[k] * semi[k]); /* into the body: minus the outward normal */
  mat_vec(out->n, Rq, nb);
  v3_scale(out->n, 1 / v3_norm(out->n), out->n);
  v3_copy(out->p1, pw);
  mat_vec(out->p2, Rq, pb);
  v3_add(out->p2, out->p2, c);
  out->phi = phi;
  return 1;
}

int narrow_cylinder_ellipsoid(const Wall *w, const double c[3], const double q[4], const double semi[3],
                              double envelope, ContactPoint *out)
{
  RadialProblem rp;
  double        Rq[9], e1[3], e2[3], g1[3], g2[3], d[3], u[3], ub[3], pb[3], p[3], t, f, sa, phi;

  quat_to_matrix(q, Rq);
  v3_tangents(w->axis, e1, e2);
  mat_tvec(g1, Rq, e1);
  mat_tvec(g2, Rq, e2);
  rp.m00 = rp.m01 = rp.m11 = 0;
  for (int k = 0; k < 3; k++) {
    const double a2 = semi[k] * semi[k];
    rp.m00 += a2 * g1[k] * g1[k];
    rp.m01 += a2 * g1[k] * g2[k];
    rp.m11 += a2 * g2[k] * g2[k];
  }
  v3_sub(d, c, w->center);
  rp.d[0] = v3_dot(d, e1);
  rp.d[1] = v3_dot(d, e2);
  rp.sign = w->inside ? 1.0 : -1.0;
  t       = radial_maximise(&rp, &f);
  v3_scale(u, cos(t), e1);
  v3_axpy(u, sin(t), e2);
  v3_scale(ub, rp.sign, u); /* the support direction: u inside, -u outside */
  mat_tvec(pb, Rq, ub);
  v3_copy(ub, pb);
  ellipsoid_support_point(semi, ub, pb);
  mat_vec(p, Rq, pb);
  v3_add(p, p, c);
  v3_sub(d, p, w->center);
  sa = v3_dot(d, w->axis);
  if (fabs(sa) > w->half_length) return rim_contact(w, sa > 0 ? 1 : -1, e1, e2, c, Rq, semi, envelope, out);
  phi = w->inside ? w->radius - f : f - w->radius;
  if (!(phi < envelope)) return 0;
  v3_scale(out->n, -rp.sign, u);
  v3_copy(out->p1, w->center);
  v3_axpy(out->p1, sa, w->axis);
  v3_axpy(out->p1, w->radius, u);
  v3_copy(out->p2, p);
  out->phi = phi;
  return 1;
}

/* An ellipsoid in a mesh's frame (centre c, rotation R from its body frame, semi-axes semi), the
 * query's envelope, the distance ell of the region tests' test points (its smallest semi-axis) and
 * the contacts found so far (tricontact_keep's order). */
typedef struct {
  double            c[3], R[9];
  const double     *semi;
  double            envelope, ell;
  int               n;
  TriFeatureContact out[NARROW_VERTEX_POINTS];
} MeshQuery;

/* Signed distance from x (the mesh's frame) to the ellipsoid; its nearest point in p and the outward
 * unit normal there in N (the mesh's frame). */
static double mesh_point_distance(const MeshQuery *e, const double x[3], double p[3], double N[3])
{
  double d[3], xb[3], pb[3], nb[3], dist;
  v3_sub(d, x, e->c);
  mat_tvec(xb, e->R, d);
  dist = ellipsoid_closest_point(e->semi, xb, pb);
  for (int k = 0; k < 3; k++) nb[k] = pb[k] / (e->semi[k] * e->semi[k]);
  mat_vec(N, e->R, nb);
  v3_scale(N, 1 / v3_norm(N), N);
  mat_vec(p, e->R, pb);
  v3_add(p, p, e->c);
  return dist;
}

/* Whether test point z lies strictly beyond vertex v along every edge at it (by TRICONTACT_EPS). */
static int beyond_every_edge(const TriMesh *m, int32_t v, const double z[3])
{
  for (int32_t i = m->vert_edge_start[v]; i < m->vert_edge_start[v + 1]; i++) {
    const int32_t e = m->vert_edge[i];
    const double  s = tricontact_edge_parameter(m, e, z);
    if (m->edge_v[2 * e] == v ? !(s < -TRICONTACT_EPS) : !(s > 1.0 + TRICONTACT_EPS)) return 0;
  }
  return 1;
}

/* The contact of mesh point x (an edge's or a vertex's, at signed distance dist, nearest point p,
 * outward normal N there) if its test point x - ell N lies in the feature's region. */
static void mesh_point_contact(const TriMesh *m, MeshQuery *e, TriFeatureKind kind, int32_t index, const double x[3],
                               double dist, const double p[3], const double N[3])
{
  TriFeatureContact f;
  double            z[3];
  v3_copy(z, x);
  v3_axpy(z, -e->ell, N);
  if (!(kind == TRI_FEATURE_EDGE ? tricontact_across_edge(m, index, z, -TRICONTACT_EPS)
                                 : beyond_every_edge(m, index, z)))
    return;
  f.kind  = kind;
  f.index = index;
  v3_scale(f.pt.n, -1.0, N);
  v3_copy(f.pt.p1, x);
  v3_copy(f.pt.p2, p);
  f.pt.phi = dist;
  tricontact_keep(m, &f, NARROW_VERTEX_POINTS, e->out, &e->n);
}

/* The parameter s in (0, 1) of edge a + s ab where the ellipsoid's signed distance is least, by
 * bisection on the sign of its slope N . ab (the signed distance to a convex body is convex: one
 * minimum) to 1e-15; -1 where the least lies at an end (a vertex's contact, not the edge's). */
static double edge_nearest(const MeshQuery *e, const double a[3], const double ab[3])
{
  double lo = 0, hi = 1, q[3], p[3], N[3];
  v3_copy(q, a);
  mesh_point_distance(e, q, p, N);
  if (v3_dot(N, ab) >= 0) return -1;
  v3_add(q, a, ab);
  mesh_point_distance(e, q, p, N);
  if (v3_dot(N, ab) <= 0) return -1;
  while (hi - lo > 1e-15) {
    const double mid = 0.5 * (lo + hi);
    v3_copy(q, a);
    v3_axpy(q, mid, ab);
    mesh_point_distance(e, q, p, N);
    if (v3_dot(N, ab) < 0) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

/* Record r's face, owned edges and owned vertices against the ellipsoid (collision/ellipsoid_walls.h). */
static void ellipsoid_triangle(const TriMesh *m, const TriRecord *r, void *ctx)
{
  MeshQuery        *e    = (MeshQuery *)ctx;
  const double      amax = fmax(e->semi[0], fmax(e->semi[1], e->semi[2]));
  double            d[3], h, nf[3], nb[3], pb[3], p[3], N[3], b[3], phi, dist;
  TriFeatureContact f;

  v3_sub(d, e->c, r->v[0]);
  h = v3_dot(d, r->n);
  v3_scale(nf, h >= 0 ? 1.0 : -1.0, r->n); /* the face's side the centre is on */
  mat_tvec(nb, e->R, nf);
  v3_scale(nb, -1.0, nb);
  phi = fabs(h) - ellipsoid_support_point(e->semi, nb, pb); /* the deepest point's height above the plane */
  if (!(phi < e->envelope)) return; /* every point of the triangle's plane is at least phi from the ellipsoid */
  mat_vec(p, e->R, pb);
  v3_add(p, p, e->c);
  tricontact_barycentric(m, r->t, p, b);
  if (tricontact_in_share(r, b)) {
    f.kind  = TRI_FEATURE_FACE;
    f.index = r->t;
    v3_copy(f.pt.n, nf);
    v3_copy(f.pt.p2, p);
    v3_copy(f.pt.p1, p);
    v3_axpy(f.pt.p1, -phi, nf);
    f.pt.phi = phi;
    tricontact_keep(m, &f, NARROW_VERTEX_POINTS, e->out, &e->n);
    return; /* in the face's share: no edge or vertex of the triangle is nearer */
  }
  for (int k = 0; k < 3; k++) {
    const int32_t edge = m->tri_edge[3 * (size_t)r->t + k];
    const double *a = m->v + 3 * (size_t)m->edge_v[2 * edge], *z = m->v + 3 * (size_t)m->edge_v[2 * edge + 1];
    double        ab[3], q[3], t[3], s;
    if (!(r->owns & (1u << k))) continue;
    v3_sub(ab, z, a);
    v3_sub(t, e->c, a); /* the centre's distance from the segment, less amax, bounds the edge's gap */
    s = fmin(fmax(v3_dot(t, ab) / v3_dot(ab, ab), 0.0), 1.0);
    v3_copy(q, a);
    v3_axpy(q, s, ab);
    v3_sub(t, e->c, q);
    if (!(v3_norm(t) - amax < e->envelope)) continue;
    s = edge_nearest(e, a, ab);
    if (!(s > TRICONTACT_EPS && s < 1.0 - TRICONTACT_EPS)) continue;
    v3_copy(q, a);
    v3_axpy(q, s, ab);
    dist = mesh_point_distance(e, q, p, N);
    if (dist < e->envelope) mesh_point_contact(m, e, TRI_FEATURE_EDGE, edge, q, dist, p, N);
  }
  for (int k = 0; k < 3; k++) {
    if (!(r->owns & (1u << (3 + k)))) continue;
    v3_sub(d, r->v[k], e->c);
    if (!(v3_norm(d) - amax < e->envelope)) continue;
    dist = mesh_point_distance(e, r->v[k], p, N);
    if (dist < e->envelope)
      mesh_point_contact(m, e, TRI_FEATURE_VERTEX, m->tri[3 * (size_t)r->t + k], r->v[k], dist, p, N);
  }
}

int narrow_mesh_ellipsoid(const TriMesh *m, const double x[3], const double q[4], const double c[3], const double qe[4],
                          const double semi[3], double envelope, ContactPoint out[NARROW_VERTEX_POINTS])
{
  MeshQuery    e = {.semi = semi, .envelope = envelope, .n = 0};
  double       Rm[9], d[3], qc[4] = {q[0], -q[1], -q[2], -q[3]}, qm[4];
  const double amax = fmax(semi[0], fmax(semi[1], semi[2]));

  quat_to_matrix(q, Rm);
  v3_sub(d, c, x);
  mat_tvec(e.c, Rm, d);
  quat_mul(qm, qc, qe); /* the ellipsoid's body frame to the mesh's */
  quat_to_matrix(qm, e.R);
  e.ell = fmin(semi[0], fmin(semi[1], semi[2]));
  tricontact_visit_near(m, e.c, amax + fmax(envelope, 0), ellipsoid_triangle, &e);
  tricontact_feature_order(m, e.n, e.out);
  for (int k = 0; k < e.n; k++) {
    mat_vec(out[k].n, Rm, e.out[k].pt.n);
    mat_vec(out[k].p1, Rm, e.out[k].pt.p1);
    v3_add(out[k].p1, out[k].p1, x);
    mat_vec(out[k].p2, Rm, e.out[k].pt.p2);
    v3_add(out[k].p2, out[k].p2, x);
    out[k].phi = e.out[k].pt.phi;
  }
  return e.n;
}

int narrow_wall_ellipsoid(const Wall *w, const double c[3], const double q[4], const double semi[3], double envelope,
                          ContactPoint out[NARROW_MAX_POINTS])
{
  if (w->type == WALL_PLANE) return narrow_plane_ellipsoid(w->point, w->normal, c, q, semi, envelope, out);
  if (w->type == WALL_CYLINDER) return narrow_cylinder_ellipsoid(w, c, q, semi, envelope, out);
  if (w->type == WALL_MESH) return narrow_mesh_ellipsoid(w->mesh, w->center, w->quat, c, q, semi, envelope, out);
  return 0;
}
