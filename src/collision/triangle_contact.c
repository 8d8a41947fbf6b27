/* Sphere - triangle-mesh contacts (contracts in collision/triangle_contact.h). */
#include "collision/triangle_contact.h"
#include "base/vec3.h"

/* tricontact_barycentric of record r's triangle. */
static inline void record_barycentric(const TriRecord *r, const double p[3], double b[3])
{
  const double *a = r->v[0];
  double        e0[3], e1[3], d[3];
  v3_sub(e0, r->v[1], a);
  v3_sub(e1, r->v[2], a);
  v3_sub(d, p, a);
  const double d00 = v3_dot(e0, e0), d01 = v3_dot(e0, e1), d11 = v3_dot(e1, e1), d20 = v3_dot(d, e0),
               d21 = v3_dot(d, e1), den = d00 * d11 - d01 * d01; /* > 0: the mesh has no degenerate triangle */
  b[1] = (d11 * d20 - d01 * d21) / den;
  b[2] = (d00 * d21 - d01 * d20) / den;
  b[0] = 1.0 - b[1] - b[2];
}

void tricontact_barycentric(const TriMesh *m, PetscInt t, const double p[3], double b[3])
{
  record_barycentric(&m->rec[m->tri_rec[t]], p, b);
}

double tricontact_edge_parameter(const TriMesh *m, PetscInt e, const double p[3])
{
  const double *a = m->v + 3 * (size_t)m->edge_v[2 * e], *b = m->v + 3 * (size_t)m->edge_v[2 * e + 1];
  double        ab[3], ap[3];
  v3_sub(ab, b, a);
  v3_sub(ap, p, a);
  return v3_dot(ap, ab) / v3_dot(ab, ab);
}

/* tricontact_edge_parameter of record r's edge k (the same bits: the same ends, in the edge's order),
 * and the edge's s = 0 end a and direction ab. */
static inline double record_edge_parameter(const TriRecord *r, int k, const double p[3], const double **a, double ab[3])
{
  const int flip = (r->flip >> k) & 1;
  double    ap[3];
  *a = r->v[flip ? (k + 1) % 3 : k];
  v3_sub(ab, r->v[flip ? k : (k + 1) % 3], *a);
  v3_sub(ap, p, *a);
  return v3_dot(ap, ab) / v3_dot(ab, ab);
}

/* The vertex of triangle t across its edge k (which joins its vertices k and k + 1). */
static inline int across(int k) { return (k + 2) % 3; }

int tricontact_across_edge(const TriMesh *m, PetscInt e, const double p[3], double margin)
{
  for (int32_t i = m->edge_tri_start[e]; i < m->edge_tri_start[e + 1]; i++) {
    const int32_t t = m->edge_tri[i];
    double        b[3];
    int           k = 0;
    while (m->tri_edge[3 * t + k] != e) k++;
    tricontact_barycentric(m, t, p, b);
    if (b[across(k)] > margin) return 0;
  }
  return 1;
}

/* Whether p lies outside every triangle on edge e, across e (the edge's region, with the faces'). */
static int outside_faces_of_edge(const TriMesh *m, PetscInt e, const double p[3])
{
  return tricontact_across_edge(m, e, p, TRICONTACT_EPS);
}

/* outside_faces_of_edge of record r's edge k where p lies across it from r: the neighbour's term, the same bits. */
static inline int outside_neighbour(const TriMesh *m, const TriRecord *r, int k, const double p[3])
{
  double b[3];
  if (r->nbr[k] == TRIMESH_NBR_NONE) return 1;
  if (r->nbr[k] == TRIMESH_NBR_MANY) return outside_faces_of_edge(m, m->tri_edge[3 * (size_t)r->t + k], p);
  record_barycentric(&m->rec[r->nbr[k]], p, b);
  return !(b[across((r->nbr_edge >> (2 * k)) & 3)] > TRICONTACT_EPS);
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

/* Whether p lies beyond corner k of record r along r's two edges at it: two of beyond_vertex's terms,
 * with the same bits. */
static inline int beyond_own_edges(const TriRecord *r, int k, const double p[3])
{
  const int edge[2] = {k, (k + 2) % 3}; /* the edges from corner k and into it */
  for (int i = 0; i < 2; i++) {
    const double *a;
    double        ab[3];
    const double  s = record_edge_parameter(r, edge[i], p, &a, ab);
    if (a == r->v[k] ? s > TRICONTACT_EPS : s < 1.0 - TRICONTACT_EPS) return 0; /* a: the edge's s = 0 end */
  }
  return 1;
}

/* beyond_vertex of record r's vertex k, where p lies beyond it along r's own edges there: where the
 * triangles at the vertex close a fan (TriRecord.fan), the other edges' terms from the records met
 * crossing edges around it (the same bits: each edge's parameter from its ends in its order), else
 * from the vertex's lists. */
static int beyond_fan(const TriMesh *m, const TriRecord *r, int k, const double p[3])
{
  const TriRecord *cur = r;
  int              e   = k;

  if (!((r->fan >> k) & 1)) return beyond_vertex(m, m->tri[3 * (size_t)r->t + k], p);
  for (;;) {
    const int     j = (cur->nbr_edge >> (2 * e)) & 3;
    const double *a;
    double        ab[3], s;
    int           c;
    cur = &m->rec[cur->nbr[e]];
    if (cur == r) return 1; /* back across r's other edge at the vertex, whose term the previous record gave */
    c = trimesh_corner_at(cur, r->v[k]); /* >= 0: the fan's records all hold the vertex */
    e = j == c ? (c + 2) % 3 : c;        /* its other edge at the vertex */
    s = record_edge_parameter(cur, e, p, &a, ab);
    if (a == cur->v[c] ? s > TRICONTACT_EPS : s < 1.0 - TRICONTACT_EPS) return 0; /* a: the edge's s = 0 end */
  }
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

/* The contacts of record r's face, owned edges and owned vertices with the sphere. */
static void triangle_features(const TriMesh *m, const TriRecord *r, const double c[3], double rad, double envelope,
                              int max, TriFeatureContact *out, int *n)
{
  const double     *nrm = r->n;
  double            b[3], h;
  TriFeatureContact f;

  {
    const double *a = r->v[0], reach = rad + envelope;
    double        d[3], rho;
    v3_sub(d, c, a);
    h = v3_dot(d, nrm);                      /* signed height of c above the face's plane */
    if (!(fabs(h) - rad < envelope)) return; /* every point of the triangle is at least |h| from c */
    /* the points of the plane within reach of c lie within rho of c's projection: the box must meet that disk's */
    rho = sqrt(PetscMax(reach * reach - h * h, 0.0));
    for (int k = 0; k < 3; k++) {
      const double q = c[k] - h * nrm[k];
      if (q + rho < r->lo[k] || q - rho > r->hi[k]) return;
    }
  }
  record_barycentric(r, c, b);
  if (b[0] > TRICONTACT_EPS && b[1] > TRICONTACT_EPS && b[2] > TRICONTACT_EPS) {
    f.kind  = TRI_FEATURE_FACE;
    f.index = r->t;
    if (h >= 0) v3_copy(f.pt.n, nrm);
    else v3_scale(f.pt.n, -1.0, nrm);
    v3_copy(f.pt.p1, c);
    v3_axpy(f.pt.p1, -h, nrm);
    v3_copy(f.pt.p2, c);
    v3_axpy(f.pt.p2, -rad, f.pt.n);
    f.pt.phi = fabs(h) - rad;
    keep(m, &f, max, out, n);
    return; /* inside the face: no edge or vertex of the triangle is closest */
  }
  if (!r->owns) return;
  /* an owned edge's region test starts with this triangle's own term (p across the edge from it: b of the vertex
     across), and an owned vertex's with its two edges here (beyond_own_edges): the same bits as the full tests,
     and they rule out most features near a sphere before a gap's square root or a read of another triangle */
  for (int k = 0; k < 3; k++) {
    if (!(r->owns & (1u << k)) || b[across(k)] > TRICONTACT_EPS) continue; /* not this triangle's to report */
    const double *a;
    double        q[3], ab[3];
    const double  s = record_edge_parameter(r, k, c, &a, ab);
    if (!(s > TRICONTACT_EPS && s < 1.0 - TRICONTACT_EPS)) continue;
    v3_copy(q, a);
    v3_axpy(q, s, ab);
    /* the gap first: it rules out most edges near a sphere for less than the region's test */
    if (!point_contact(q, nrm, c, rad, envelope, &f.pt) || !outside_neighbour(m, r, k, c)) continue;
    f.index = m->tri_edge[3 * (size_t)r->t + k];
    f.kind  = TRI_FEATURE_EDGE;
    keep(m, &f, max, out, n);
  }
  for (int k = 0; k < 3; k++) {
    if (!(r->owns & (1u << (3 + k))) || !beyond_own_edges(r, k, c) ||
        !point_contact(r->v[k], nrm, c, rad, envelope, &f.pt) || !beyond_fan(m, r, k, c))
      continue;
    f.index = m->tri[3 * (size_t)r->t + k];
    f.kind  = TRI_FEATURE_VERTEX;
    keep(m, &f, max, out, n);
  }
}

/* Call visit(m, r, ctx) once for each record r of m whose bounding box comes within `reach` of c
 * (the mesh's frame), in grid order; nothing for a NaN c. Not collective; reads m only. */
static inline void triangles_near(const TriMesh *m, const double c[3], double reach,
                                  void (*visit)(const TriMesh *, const TriRecord *, void *), void *ctx)
{
  PetscInt a[3], b[3];

  for (int k = 0; k < 3; k++) {
    if (!(c[k] + reach >= m->lo[k] && c[k] - reach <= m->hi[k])) return; /* also a NaN centre */
    a[k] = trimesh_cell_coord(m, c[k] - reach, k);
    b[k] = trimesh_cell_coord(m, c[k] + reach, k);
  }
  for (PetscInt z = a[2]; z <= b[2]; z++)
    for (PetscInt y = a[1]; y <= b[1]; y++)
      for (PetscInt x = a[0]; x <= b[0]; x++) {
        const PetscInt cell = x + m->dims[0] * (y + m->dims[1] * z), at[3] = {x, y, z};
        for (int32_t i = m->cell_start[cell]; i < m->cell_start[cell + 1]; i++) {
          const uint32_t   entry = m->cell_tri[i];
          const TriRecord *r     = &m->rec[entry & TRIMESH_ENTRY_TRI];
          int              own   = 1;
          /* a triangle in several of the query's cells is taken in the first, the lowest of both ranges per
             axis: the query's first cell, or a later one where the triangle starts */
          for (int k = 0; k < 3; k++) own &= at[k] == a[k] || (entry & (TRIMESH_ENTRY_FIRST << k));
          if (!own) continue;
          for (int k = 0; k < 3; k++) own &= c[k] + reach >= r->lo[k] && c[k] - reach <= r->hi[k];
          if (own) visit(m, r, ctx);
        }
      }
}

typedef struct {
  const double      *c;
  double             r, envelope;
  int                max, n;
  TriFeatureContact *out;
} SphereQuery;

static void sphere_triangle(const TriMesh *m, const TriRecord *r, void *ctx)
{
  SphereQuery *q = (SphereQuery *)ctx;
  triangle_features(m, r, q->c, q->r, q->envelope, q->max, q->out, &q->n);
}

void tricontact_feature_order(const TriMesh *m, int n, TriFeatureContact *out)
{
  for (int i = 1; i < n; i++) {
    TriFeatureContact f = out[i];
    int               j = i;
    while (j > 0 && feature_rank(m, &out[j - 1]) > feature_rank(m, &f)) {
      out[j] = out[j - 1];
      j--;
    }
    out[j] = f;
  }
}

int tricontact_flat_face(const TriMesh *m, const double c[3], double r, double envelope, TriFeatureContact *out)
{
  const double reach = r + PetscMax(envelope, 0);
  TriFlatCell  fc;
  double       d[3], foot[3], h;

  PetscInt at[3];

  if (!m->cell_flat) return -1;
  for (int k = 0; k < 3; k++) { /* the whole's cell of c, in the box kept */
    at[k] = trimesh_grid_coord(m->flat_lo[k], m->flat_cell, m->flat_dims[k], c[k]) - m->flat_at[k];
    if (at[k] < 0 || at[k] >= m->flat_n[k]) return -1; /* beyond a part's box: not a query the part serves */
  }
  fc = m->cell_flat[at[0] + m->flat_n[0] * (at[1] + m->flat_n[1] * at[2])];
  if (fc.face < 0 || !((double)fc.rings * m->cell >= reach)) return -1; /* another triangle may lie within reach */
  const TriFace *f = &m->face[fc.face];
  v3_sub(d, c, f->p);
  h = v3_dot(d, f->n);
  if (!(fabs(h) - r < envelope)) return 0; /* every point of the face's plane is at least |h| from c (NaN: none) */
  v3_copy(foot, c);
  v3_axpy(foot, -h, f->n);
  for (int32_t l = f->line0; l < f->line0 + f->nline; l++) {
    const double *u = m->face_line + 4 * (size_t)l;
    if (!(v3_dot(u, foot) - u[3] >= reach)) return -1; /* the face's boundary may lie within reach */
  }
  out->kind  = TRI_FEATURE_FACE;
  out->index = f->t;
  if (h >= 0) v3_copy(out->pt.n, f->n);
  else v3_scale(out->pt.n, -1.0, f->n);
  v3_copy(out->pt.p1, foot);
  v3_copy(out->pt.p2, c);
  v3_axpy(out->pt.p2, -r, out->pt.n);
  out->pt.phi = fabs(h) - r;
  return 1;
}

int tricontact_sphere_triangles(const TriMesh *m, const double c[3], double r, double envelope, int max,
                                TriFeatureContact *out)
{
  SphereQuery q = {c, r, envelope, max, 0, out};

  if (max <= 0) return 0;
  triangles_near(m, c, r + PetscMax(envelope, 0), sphere_triangle, &q);
  tricontact_feature_order(m, q.n, out); /* the contacts' point indices follow it */
  return q.n;
}

int tricontact_sphere(const TriMesh *m, const double c[3], double r, double envelope, int max, TriFeatureContact *out)
{
  int n;

  if (max <= 0) return 0;
  if ((n = tricontact_flat_face(m, c, r, envelope, out)) >= 0) return n;
  return tricontact_sphere_triangles(m, c, r, envelope, max, out);
}

void tricontact_visit_near(const TriMesh *m, const double c[3], double reach,
                           void (*visit)(const TriMesh *, const TriRecord *, void *), void *ctx)
{
  triangles_near(m, c, reach, visit, ctx);
}

void tricontact_keep(const TriMesh *m, const TriFeatureContact *f, int max, TriFeatureContact *out, int *n)
{
  keep(m, f, max, out, n);
}

int narrow_mesh_sphere(const TriMesh *m, const double x[3], const double q[4], const double c[3], double r,
                       double envelope, ContactPoint *out)
{
  TriFeatureContact f[NARROW_VERTEX_POINTS];
  double            R[9], d[3], local[3];
  int               n;

  v3_sub(d, c, x);
  if (quat_is_identity(q)) { /* a mesh placed without a turn (most fixed ones): its frame is the world's axes */
    n = tricontact_sphere(m, d, r, envelope, NARROW_VERTEX_POINTS, f);
    for (int k = 0; k < n; k++) {
      v3_copy(out[k].n, f[k].pt.n);
      v3_add(out[k].p1, f[k].pt.p1, x);
      v3_copy(out[k].p2, c);
      v3_axpy(out[k].p2, -r, out[k].n);
      out[k].phi = f[k].pt.phi;
    }
    return n;
  }
  quat_to_matrix(q, R);
  mat_tvec(local, R, d);
  n = tricontact_sphere(m, local, r, envelope, NARROW_VERTEX_POINTS, f);
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

int tricontact_in_share(const TriRecord *r, const double b[3])
{
  int low = 0, first = -1;
  for (int k = 0; k < 3; k++) {
    if (b[k] < -TRICONTACT_EPS) return 0;
    if (b[k] <= TRICONTACT_EPS) {
      low++;
      if (first < 0) first = k;
    }
  }
  if (!low) return 1;
  if (low == 1) return (r->owns >> ((first + 1) % 3)) & 1; /* on the edge across vertex `first` */
  for (int k = 0; k < 3; k++)
    if (b[k] > TRICONTACT_EPS) return (r->owns >> (3 + k)) & 1; /* at vertex k */
  return 0;
}

/* The box of a box - mesh query, in the mesh's frame, and the points found so far (the deepest
 * NARROW_MAX_POINTS, deepest first; ties: the lower sub). */
typedef struct {
  const double *c, *he; /* centre, half extents */
  double        q[4];   /* orientation: box to mesh frame */
  double        R[9];
  double        vert[8][3]; /* vertex v: + on axis k where bit k of v is set */
  double        envelope, tol;
  int           n;
  ContactPoint  pt[NARROW_MAX_POINTS];
  int64_t       feature[NARROW_MAX_POINTS]; /* box vertex v on triangle t: 8 t + v; mesh vertex v: 8 nt + v */
} BoxQuery;

static void box_keep(BoxQuery *q, const ContactPoint *pt, int64_t feature)
{
  int at = q->n < NARROW_MAX_POINTS ? q->n : NARROW_MAX_POINTS - 1;
  if (q->n == NARROW_MAX_POINTS && !(pt->phi < q->pt[at].phi || (pt->phi == q->pt[at].phi && feature < q->feature[at])))
    return;
  while (at > 0 && (pt->phi < q->pt[at - 1].phi || (pt->phi == q->pt[at - 1].phi && feature < q->feature[at - 1]))) {
    q->pt[at]      = q->pt[at - 1];
    q->feature[at] = q->feature[at - 1];
    at--;
  }
  q->pt[at]      = *pt;
  q->feature[at] = feature;
  if (q->n < NARROW_MAX_POINTS) q->n++;
}

/* Whether mesh vertex v pokes out of the mesh towards direction -nf: no edge at it runs towards
 * -nf, and one runs away from it (a vertex on a flat part of the mesh does not poke out). */
static int pokes(const TriMesh *m, PetscInt v, const double nf[3])
{
  int away = 0;
  for (int32_t i = m->vert_edge_start[v]; i < m->vert_edge_start[v + 1]; i++) {
    const int32_t e = m->vert_edge[i], o = m->edge_v[2 * e] == v ? m->edge_v[2 * e + 1] : m->edge_v[2 * e];
    double        d[3], s;
    v3_sub(d, m->v + 3 * (size_t)o, m->v + 3 * (size_t)v);
    s = v3_dot(d, nf);
    if (s < -TRICONTACT_EPS * v3_norm(d)) return 0;
    away |= s > TRICONTACT_EPS * v3_norm(d);
  }
  return away;
}

/* Record r's triangle against the box (the rule in triangle_contact.h). */
static void box_triangle(const TriMesh *m, const TriRecord *r, void *ctx)
{
  BoxQuery     *q = (BoxQuery *)ctx;
  const double *a = r->v[0], *nt = r->n;
  double        d[3], n[3];
  ContactPoint  pt;

  v3_sub(d, q->c, a);
  v3_scale(n, v3_dot(d, nt) >= 0 ? 1.0 : -1.0, nt); /* the face's side the box's centre is on */
  for (int v = 0; v < 8; v++) {                     /* the box's vertices on t's share of the face */
    double b[3], h;
    v3_sub(d, q->vert[v], a);
    h = v3_dot(d, n);
    if (!(h < q->envelope)) continue;
    record_barycentric(r, q->vert[v], b);
    if (!tricontact_in_share(r, b)) continue;
    v3_copy(pt.n, n);
    v3_copy(pt.p2, q->vert[v]);
    v3_copy(pt.p1, q->vert[v]);
    v3_axpy(pt.p1, -h, n);
    pt.phi = h;
    box_keep(q, &pt, 8 * (int64_t)r->t + v);
  }
  for (int k = 0; k < 3; k++) { /* t's own vertices in the box's face regions */
    const double *p = r->v[k];
    double        local[3], nf[3];
    int           rim = 0;
    int32_t       v;
    if (!(r->owns & (1u << (3 + k)))) continue;
    v3_sub(d, p, q->c);
    mat_tvec(local, q->R, d);
    for (int j = 0; j < 3; j++) rim += fabs(local[j]) > q->he[j] - q->tol;
    if (rim > 1 || !narrow_box_sphere(q->c, q->q, q->he, p, 0, q->envelope, &pt)) continue;
    v = m->tri[3 * (size_t)r->t + k];
    if (!pokes(m, v, pt.n)) continue;
    v3_scale(pt.n, -1.0, pt.n); /* from the mesh to the box */
    v3_copy(nf, pt.p1);         /* the box's point */
    v3_copy(pt.p1, p);
    v3_copy(pt.p2, nf);
    box_keep(q, &pt, 8 * (int64_t)m->nt + trimesh_vert_gid(m, v));
  }
}

int narrow_mesh_box(const TriMesh *m, const double x[3], const double q[4], const double bc[3], const double bq[4],
                    const double he[3], double envelope, ContactPoint out[NARROW_MAX_POINTS],
                    int32_t sub[NARROW_MAX_POINTS])
{
  BoxQuery     bx = {.he = he, .envelope = envelope, .n = 0};
  double       Rm[9], d[3], c[3], qc[4] = {q[0], -q[1], -q[2], -q[3]};
  const double reach = sqrt(he[0] * he[0] + he[1] * he[1] + he[2] * he[2]) + PetscMax(envelope, 0);

  quat_to_matrix(q, Rm);
  v3_sub(d, bc, x);
  mat_tvec(c, Rm, d);
  bx.c = c;
  quat_mul(bx.q, qc, bq);
  quat_to_matrix(bx.q, bx.R);
  bx.tol = TRICONTACT_EPS * PetscMin(he[0], PetscMin(he[1], he[2]));
  for (int v = 0; v < 8; v++) {
    const double l[3] = {(v & 1) ? he[0] : -he[0], (v & 2) ? he[1] : -he[1], (v & 4) ? he[2] : -he[2]};
    mat_vec(bx.vert[v], bx.R, l);
    v3_add(bx.vert[v], bx.vert[v], c);
  }
  triangles_near(m, c, reach, box_triangle, &bx);
  for (int i = 0; i < bx.n; i++) { /* the subs; then in sub order, in the world frame */
    int32_t s;
    if (bx.feature[i] < 8 * (int64_t)m->nt) { /* box vertex v: v + 8 (its contacts on lower triangles) */
      s = (int32_t)(bx.feature[i] % 8);
      for (int j = 0; j < bx.n; j++) s += 8 * (bx.feature[j] < bx.feature[i] && bx.feature[j] % 8 == bx.feature[i] % 8);
    } else s = (int32_t)(8 * NARROW_MAX_POINTS + (bx.feature[i] - 8 * (int64_t)m->nt));
    int at = i;
    while (at > 0 && sub[at - 1] > s) {
      out[at] = out[at - 1];
      sub[at] = sub[at - 1];
      at--;
    }
    sub[at] = s;
    mat_vec(out[at].n, Rm, bx.pt[i].n);
    mat_vec(out[at].p1, Rm, bx.pt[i].p1);
    v3_add(out[at].p1, out[at].p1, x);
    mat_vec(out[at].p2, Rm, bx.pt[i].p2);
    v3_add(out[at].p2, out[at].p2, x);
    out[at].phi = bx.pt[i].phi;
  }
  return bx.n;
}
