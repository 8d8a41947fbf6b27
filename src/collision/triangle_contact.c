/* Sphere - triangle-mesh contacts (contracts in collision/triangle_contact.h). */
#include "collision/triangle_contact.h"
#include "base/vec3.h"

void tricontact_barycentric(const TriMesh *m, PetscInt t, const double p[3], double b[3])
{
  const double *a = m->v + 3 * (size_t)m->tri[3 * t], *v1 = m->v + 3 * (size_t)m->tri[3 * t + 1],
               *v2 = m->v + 3 * (size_t)m->tri[3 * t + 2];
  double e0[3], e1[3], d[3];
  v3_sub(e0, v1, a);
  v3_sub(e1, v2, a);
  v3_sub(d, p, a);
  const double d00 = v3_dot(e0, e0), d01 = v3_dot(e0, e1), d11 = v3_dot(e1, e1), d20 = v3_dot(d, e0),
               d21 = v3_dot(d, e1), den = d00 * d11 - d01 * d01; /* > 0: the mesh has no degenerate triangle */
  b[1] = (d11 * d20 - d01 * d21) / den;
  b[2] = (d00 * d21 - d01 * d20) / den;
  b[0] = 1.0 - b[1] - b[2];
}

double tricontact_edge_parameter(const TriMesh *m, PetscInt e, const double p[3])
{
  const double *a = m->v + 3 * (size_t)m->edge_v[2 * e], *b = m->v + 3 * (size_t)m->edge_v[2 * e + 1];
  double        ab[3], ap[3];
  v3_sub(ab, b, a);
  v3_sub(ap, p, a);
  return v3_dot(ap, ab) / v3_dot(ab, ab);
}

/* The vertex of triangle t across its edge k (which joins its vertices k and k + 1). */
static inline int across(int k) { return (k + 2) % 3; }

/* Whether p lies outside every triangle on edge e, across e (the edge's region, with the faces'). */
static int outside_faces_of_edge(const TriMesh *m, PetscInt e, const double p[3])
{
  for (int32_t i = m->edge_tri_start[e]; i < m->edge_tri_start[e + 1]; i++) {
    const int32_t t = m->edge_tri[i];
    double        b[3];
    int           k = 0;
    while (m->tri_edge[3 * t + k] != e) k++;
    tricontact_barycentric(m, t, p, b);
    if (b[across(k)] > TRICONTACT_EPS) return 0;
  }
  return 1;
}

/* Whether p lies beyond vertex v along every edge at it. */
static int beyond_vertex(const TriMesh *m, PetscInt v, const double p[3])
{
  for (int32_t i = m->vert_edge_start[v]; i < m->vert_edge_start[v + 1]; i++) {
    const int32_t e = m->vert_edge[i];
    const double  s = tricontact_edge_parameter(m, e, p);
    if (m->edge_v[2 * e] == v ? s > TRICONTACT_EPS : s < 1.0 - TRICONTACT_EPS) return 0;
  }
  return 1;
}

/* A contact with the point q of the mesh (normal from q to c; fallback when c is on q). */
static int point_contact(const double q[3], const double fallback[3], const double c[3], double r, double envelope,
                         ContactPoint *pt)
{
  double d[3], dist;
  v3_sub(d, c, q);
  dist = v3_norm(d);
  if (!(dist - r < envelope)) return 0;
  if (dist > 0) v3_scale(pt->n, 1.0 / dist, d);
  else v3_copy(pt->n, fallback);
  v3_copy(pt->p1, q);
  v3_copy(pt->p2, c);
  v3_axpy(pt->p2, -r, pt->n);
  pt->phi = dist - r;
  return 1;
}

/* The order of contacts: the deeper first, then the lower feature. */
static int64_t feature_rank(const TriMesh *m, const TriFeatureContact *f)
{
  return f->kind == TRI_FEATURE_FACE ? (int64_t)f->index
       : f->kind == TRI_FEATURE_EDGE ? (int64_t)m->nt + f->index
                                     : (int64_t)m->nt + m->ne + f->index;
}

static int deeper(const TriMesh *m, const TriFeatureContact *a, const TriFeatureContact *b)
{
  if (a->pt.phi != b->pt.phi) return a->pt.phi < b->pt.phi;
  return feature_rank(m, a) < feature_rank(m, b);
}

/* Keep f among the max deepest in out[0 .. *n) (sorted deepest first). */
static void keep(const TriMesh *m, const TriFeatureContact *f, int max, TriFeatureContact *out, int *n)
{
  int at = *n < max ? *n : max - 1;
  if (*n == max && !deeper(m, f, &out[max - 1])) return;
  while (at > 0 && deeper(m, f, &out[at - 1])) {
    out[at] = out[at - 1];
    at--;
  }
  out[at] = *f;
  if (*n < max) (*n)++;
}

/* The contacts of triangle t's face, owned edges and owned vertices with the sphere. */
static void triangle_features(const TriMesh *m, PetscInt t, const double c[3], double r, double envelope, int max,
                              TriFeatureContact *out, int *n)
{
  const double     *nrm = m->normal + 3 * (size_t)t;
  double            b[3], h;
  TriFeatureContact f;

  {
    const double *a = m->v + 3 * (size_t)m->tri[3 * t], reach = r + envelope;
    double        d[3], rho;
    v3_sub(d, c, a);
    h = v3_dot(d, nrm);                    /* signed height of c above the face's plane */
    if (!(fabs(h) - r < envelope)) return; /* every point of t is at least |h| from c */
    /* the points of the plane within reach of c lie within rho of c's projection: t's box must meet that disk's */
    rho = sqrt(PetscMax(reach * reach - h * h, 0.0));
    for (int k = 0; k < 3; k++) {
      const double q = c[k] - h * nrm[k];
      if (q + rho < m->tri_box[6 * t + k] || q - rho > m->tri_box[6 * t + 3 + k]) return;
    }
  }
  tricontact_barycentric(m, t, c, b);
  if (b[0] > TRICONTACT_EPS && b[1] > TRICONTACT_EPS && b[2] > TRICONTACT_EPS) {
    f.kind  = TRI_FEATURE_FACE;
    f.index = (int32_t)t;
    if (h >= 0) v3_copy(f.pt.n, nrm);
    else v3_scale(f.pt.n, -1.0, nrm);
    v3_copy(f.pt.p1, c);
    v3_axpy(f.pt.p1, -h, nrm);
    v3_copy(f.pt.p2, c);
    v3_axpy(f.pt.p2, -r, f.pt.n);
    f.pt.phi = fabs(h) - r;
    keep(m, &f, max, out, n);
    return; /* inside the face: no edge or vertex of t is closest */
  }
  if (!m->tri_owns[t]) return;
  for (int k = 0; k < 3; k++) {
    if (!(m->tri_owns[t] & (1u << k))) continue; /* another triangle owns the edge */
    const int32_t e = m->tri_edge[3 * t + k];
    const double  s = tricontact_edge_parameter(m, e, c);
    if (!(s > TRICONTACT_EPS && s < 1.0 - TRICONTACT_EPS)) continue;
    const double *a = m->v + 3 * (size_t)m->edge_v[2 * e], *bv = m->v + 3 * (size_t)m->edge_v[2 * e + 1];
    double        q[3], ab[3];
    v3_sub(ab, bv, a);
    v3_copy(q, a);
    v3_axpy(q, s, ab);
    /* the gap first: it rules out most edges near a sphere for less than the region's test */
    if (!point_contact(q, nrm, c, r, envelope, &f.pt) || !outside_faces_of_edge(m, e, c)) continue;
    f.kind  = TRI_FEATURE_EDGE;
    f.index = e;
    keep(m, &f, max, out, n);
  }
  for (int k = 0; k < 3; k++) {
    const int32_t v = m->tri[3 * t + k];
    if (!(m->tri_owns[t] & (1u << (3 + k))) || !point_contact(m->v + 3 * (size_t)v, nrm, c, r, envelope, &f.pt) ||
        !beyond_vertex(m, v, c))
      continue;
    f.kind  = TRI_FEATURE_VERTEX;
    f.index = v;
    keep(m, &f, max, out, n);
  }
}

int tricontact_sphere(const TriMesh *m, const double c[3], double r, double envelope, int max, TriFeatureContact *out)
{
  const double reach = r + PetscMax(envelope, 0);
  PetscInt     a[3], b[3];
  int          n = 0;

  if (max <= 0) return 0;
  for (int k = 0; k < 3; k++) {
    if (!(c[k] + reach >= m->lo[k] && c[k] - reach <= m->hi[k])) return 0; /* also a NaN centre */
    a[k] = trimesh_cell_coord(m, c[k] - reach, k);
    b[k] = trimesh_cell_coord(m, c[k] + reach, k);
  }
  for (PetscInt z = a[2]; z <= b[2]; z++)
    for (PetscInt y = a[1]; y <= b[1]; y++)
      for (PetscInt x = a[0]; x <= b[0]; x++) {
        const PetscInt cell = x + m->dims[0] * (y + m->dims[1] * z), at[3] = {x, y, z};
        for (int32_t i = m->cell_start[cell]; i < m->cell_start[cell + 1]; i++) {
          const uint32_t entry = m->cell_tri[i];
          const int32_t  t     = (int32_t)(entry & TRIMESH_ENTRY_TRI);
          int            own   = 1;
          /* a triangle in several of the query's cells is taken in the first, the lowest of both ranges per
             axis: the query's first cell, or a later one where the triangle starts */
          for (int k = 0; k < 3; k++) own &= at[k] == a[k] || (entry & (TRIMESH_ENTRY_FIRST << k));
          if (!own) continue;
          for (int k = 0; k < 3; k++)
            own &= c[k] + reach >= m->tri_box[6 * t + k] && c[k] - reach <= m->tri_box[6 * t + 3 + k];
          if (own) triangle_features(m, t, c, r, envelope, max, out, &n);
        }
      }
  /* feature order (the contacts' point indices follow it) */
  for (int i = 1; i < n; i++) {
    TriFeatureContact f = out[i];
    int               j = i;
    while (j > 0 && feature_rank(m, &out[j - 1]) > feature_rank(m, &f)) {
      out[j] = out[j - 1];
      j--;
    }
    out[j] = f;
  }
  return n;
}

int narrow_mesh_sphere(const TriMesh *m, const double x[3], const double q[4], const double c[3], double r,
                       double envelope, ContactPoint *out)
{
  TriFeatureContact f[NARROW_MAX_POINTS];
  double            R[9], d[3], local[3];
  int               n;

  quat_to_matrix(q, R);
  v3_sub(d, c, x);
  mat_tvec(local, R, d);
  n = tricontact_sphere(m, local, r, envelope, NARROW_MAX_POINTS, f);
  for (int k = 0; k < n; k++) {
    mat_vec(out[k].n, R, f[k].pt.n);
    mat_vec(out[k].p1, R, f[k].pt.p1);
    v3_add(out[k].p1, out[k].p1, x);
    v3_copy(out[k].p2, c);
    v3_axpy(out[k].p2, -r, out[k].n);
    out[k].phi = f[k].pt.phi;
  }
  return n;
}
