/* Triangle meshes for collision detection (contracts in collision/trimesh.h). */
#include "collision/trimesh.h"
#include "collision/mesh_faces.h"
#include "base/vec3.h"
#include <math.h>
#include <stdlib.h>

/* A triangle corner, sorted by coordinates to weld equal corners into one vertex. */
typedef struct {
  const double *x;
  PetscInt      corner; /* 3 t + k */
} Corner;

static int corner_compare(const void *pa, const void *pb)
{
  const Corner *a = (const Corner *)pa, *b = (const Corner *)pb;
  for (int k = 0; k < 3; k++)
    if (a->x[k] != b->x[k]) return a->x[k] < b->x[k] ? -1 : 1;
  return (a->corner > b->corner) - (a->corner < b->corner);
}

/* An edge of a triangle, sorted by its vertices (then triangle) to find the triangles it joins. */
typedef struct {
  int32_t v0, v1, t, k;
} EdgeSide;

static int edge_compare(const void *pa, const void *pb)
{
  const EdgeSide *a = (const EdgeSide *)pa, *b = (const EdgeSide *)pb;
  if (a->v0 != b->v0) return a->v0 < b->v0 ? -1 : 1;
  if (a->v1 != b->v1) return a->v1 < b->v1 ? -1 : 1;
  return (a->t > b->t) - (a->t < b->t);
}

/* Welded vertices: m->v, m->tri, m->nv. */
static PetscErrorCode weld(TriMesh *m, const double *xyz)
{
  const PetscInt nc = 3 * m->nt;
  Corner        *c;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nc, &c));
  for (PetscInt i = 0; i < nc; i++) c[i] = (Corner){xyz + 3 * (size_t)i, i};
  qsort(c, (size_t)nc, sizeof(*c), corner_compare);
  m->nv = 0;
  for (PetscInt i = 0; i < nc; i++) {
    if (i == 0 || corner_compare(&(Corner){c[i].x, 0}, &(Corner){c[i - 1].x, 0})) m->nv++;
    m->tri[c[i].corner] = (int32_t)(m->nv - 1);
  }
  PetscCall(PetscMalloc1(3 * (size_t)m->nv, &m->v));
  for (PetscInt i = 0; i < nc; i++) v3_copy(m->v + 3 * (size_t)m->tri[c[i].corner], c[i].x);
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Each triangle's corners, normal and number into rec[t] (the file's order); the first triangle of
 * zero area into *degenerate (-1: none). */
static void normals(const TriMesh *m, TriRecord *rec, PetscInt *degenerate)
{
  *degenerate = -1;
  for (PetscInt t = 0; t < m->nt; t++) {
    const double *a = m->v + 3 * (size_t)m->tri[3 * t], *b = m->v + 3 * (size_t)m->tri[3 * t + 1],
                 *c = m->v + 3 * (size_t)m->tri[3 * t + 2];
    double ab[3], ac[3], bc[3], n[3], area2, longest2;
    v3_sub(ab, b, a);
    v3_sub(ac, c, a);
    v3_sub(bc, c, b);
    v3_cross(n, ab, ac);
    area2    = v3_norm(n);
    longest2 = PetscMax(v3_dot(ab, ab), PetscMax(v3_dot(ac, ac), v3_dot(bc, bc)));
    if (!(area2 > 1e-14 * longest2)) {
      *degenerate = t;
      return;
    }
    v3_scale(rec[t].n, 1.0 / area2, n);
    for (int k = 0; k < 3; k++) v3_copy(rec[t].v[k], m->v + 3 * (size_t)m->tri[3 * t + k]);
    rec[t].t = (int32_t)t;
  }
}

/* Edges, the triangles on each (owner first), and each vertex's edges and owner; each triangle's
 * owner and flip bits into rec[t] (the file's order). */
static PetscErrorCode adjacency(TriMesh *m, TriRecord *rec)
{
  const PetscInt ns = 3 * m->nt;
  EdgeSide      *side;
  PetscInt      *fill;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(ns, &side));
  for (PetscInt t = 0; t < m->nt; t++)
    for (int k = 0; k < 3; k++) {
      const int32_t a = m->tri[3 * t + k], b = m->tri[3 * t + (k + 1) % 3];
      side[3 * t + k] = (EdgeSide){PetscMin(a, b), PetscMax(a, b), (int32_t)t, k};
    }
  qsort(side, (size_t)ns, sizeof(*side), edge_compare);
  m->ne = 0;
  for (PetscInt i = 0; i < ns; i++)
    if (i == 0 || side[i].v0 != side[i - 1].v0 || side[i].v1 != side[i - 1].v1) m->ne++;
  PetscCall(
    PetscMalloc3(2 * (size_t)m->ne, &m->edge_v, (size_t)m->ne + 1, &m->edge_tri_start, (size_t)ns, &m->edge_tri));
  m->ne = 0;
  for (PetscInt i = 0; i < ns; i++) {
    if (i == 0 || side[i].v0 != side[i - 1].v0 || side[i].v1 != side[i - 1].v1) {
      m->edge_v[2 * m->ne]     = side[i].v0;
      m->edge_v[2 * m->ne + 1] = side[i].v1;
      m->edge_tri_start[m->ne] = (int32_t)i;
      m->ne++;
    }
    m->edge_tri[i]                         = side[i].t;
    m->tri_edge[3 * side[i].t + side[i].k] = (int32_t)(m->ne - 1);
  }
  m->edge_tri_start[m->ne] = (int32_t)ns;
  PetscCall(PetscFree(side));

  PetscCall(PetscCalloc1((size_t)m->nv + 1, &m->vert_edge_start));
  PetscCall(PetscMalloc2(2 * (size_t)m->ne, &m->vert_edge, (size_t)m->nv, &m->vert_owner));
  PetscCall(PetscCalloc1((size_t)m->nv, &fill));
  for (PetscInt e = 0; e < m->ne; e++)
    for (int j = 0; j < 2; j++) m->vert_edge_start[m->edge_v[2 * e + j] + 1]++;
  for (PetscInt v = 0; v < m->nv; v++) m->vert_edge_start[v + 1] += m->vert_edge_start[v];
  for (PetscInt e = 0; e < m->ne; e++)
    for (int j = 0; j < 2; j++) {
      const int32_t v                                 = m->edge_v[2 * e + j];
      m->vert_edge[m->vert_edge_start[v] + fill[v]++] = (int32_t)e;
    }
  PetscCall(PetscFree(fill));
  for (PetscInt v = 0; v < m->nv; v++) m->vert_owner[v] = INT32_MAX;
  for (PetscInt t = m->nt - 1; t >= 0; t--)
    for (int k = 0; k < 3; k++) m->vert_owner[m->tri[3 * t + k]] = (int32_t)t;
  for (PetscInt t = 0; t < m->nt; t++) {
    rec[t].owns = rec[t].flip = rec[t].nbr_edge = 0;
    for (int k = 0; k < 3; k++) {
      const int32_t e = m->tri_edge[3 * t + k], i = m->edge_tri_start[e], on = m->edge_tri_start[e + 1] - i;
      rec[t].nbr[k] = on == 1             ? TRIMESH_NBR_NONE
                    : on > 2              ? TRIMESH_NBR_MANY
                    : m->edge_tri[i] == t ? m->edge_tri[i + 1]
                                          : m->edge_tri[i];
      if (on == 2) { /* a triangle (the file's number until the grid sorts the records) and its edge there */
        int j = 0;
        while (m->tri_edge[3 * (size_t)rec[t].nbr[k] + j] != e) j++;
        rec[t].nbr_edge |= (uint8_t)(j << (2 * k));
      }
      if (m->edge_tri[m->edge_tri_start[e]] == t) rec[t].owns |= (uint8_t)(1u << k);
      if (m->vert_owner[m->tri[3 * t + k]] == t) rec[t].owns |= (uint8_t)(1u << (3 + k));
      if (m->edge_v[2 * e] != m->tri[3 * t + k]) rec[t].flip |= (uint8_t)(1u << k);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void tri_box(const TriMesh *m, PetscInt t, double lo[3], double hi[3])
{
  for (int k = 0; k < 3; k++) {
    lo[k] = hi[k] = m->v[3 * (size_t)m->tri[3 * t] + k];
    for (int j = 1; j < 3; j++) {
      const double x = m->v[3 * (size_t)m->tri[3 * t + j] + k];
      lo[k]          = PetscMin(lo[k], x);
      hi[k]          = PetscMax(hi[k], x);
    }
  }
}

/* TriRecord.fan of every record: for each vertex it owns, whether the walk across edges around the
 * vertex (collision/triangle_contact.c walks it so) comes back to it through edges on two triangles
 * each, having crossed as many edges as the vertex has. */
static void fans(TriMesh *m)
{
  for (PetscInt i = 0; i < m->nt; i++) {
    TriRecord *r = &m->rec[i];
    r->fan       = 0;
    for (int k = 0; k < 3; k++) {
      const TriRecord *cur = r;
      PetscInt         edges, crossed = 0;
      int              e = k;
      if (!(r->owns & (1u << (3 + k)))) continue;
      edges = m->vert_edge_start[m->tri[3 * (size_t)r->t + k] + 1] - m->vert_edge_start[m->tri[3 * (size_t)r->t + k]];
      while (crossed <= edges && cur->nbr[e] >= 0) {
        const int j = (cur->nbr_edge >> (2 * e)) & 3;
        int       c;
        cur = &m->rec[cur->nbr[e]];
        crossed++;
        if (cur == r || (c = trimesh_corner_at(cur, r->v[k])) < 0) break;
        e = j == c ? (c + 2) % 3 : c; /* its other edge at the vertex */
      }
      if (cur == r && crossed == edges) r->fan |= (uint8_t)(1u << k);
    }
  }
}

/* The cell range a[3] .. b[3] that a box lo .. hi reaches. */
static void cell_range(const TriMesh *m, const double lo[3], const double hi[3], PetscInt a[3], PetscInt b[3])
{
  for (int k = 0; k < 3; k++) {
    a[k] = trimesh_cell_coord(m, lo[k], k);
    b[k] = trimesh_cell_coord(m, hi[k], k);
  }
}

/* The bounding box and sphere, and the grid: cells about the mean triangle's size, coarser where
 * that would give more than TRIMESH_CELLS_PER_TRIANGLE cells per triangle; the records of rec (the
 * file's order, bounds set here) into m->rec by the cell of their low corner (then by triangle). */
static PetscErrorCode grid(TriMesh *m, TriRecord *rec)
{
  double   mean = 0, ext[3], diag2 = 0;
  PetscInt ncells;
  int32_t *fill;

  PetscFunctionBegin;
  for (int k = 0; k < 3; k++) m->lo[k] = m->hi[k] = m->v[k];
  for (PetscInt v = 0; v < m->nv; v++)
    for (int k = 0; k < 3; k++) {
      m->lo[k] = PetscMin(m->lo[k], m->v[3 * (size_t)v + k]);
      m->hi[k] = PetscMax(m->hi[k], m->v[3 * (size_t)v + k]);
    }
  for (int k = 0; k < 3; k++) {
    ext[k]       = m->hi[k] - m->lo[k];
    m->centre[k] = 0.5 * (m->lo[k] + m->hi[k]);
    diag2 += ext[k] * ext[k];
  }
  m->radius = 0.5 * sqrt(diag2);
  for (PetscInt t = 0; t < m->nt; t++) {
    tri_box(m, t, rec[t].lo, rec[t].hi);
    mean += PetscMax(rec[t].hi[0] - rec[t].lo[0], PetscMax(rec[t].hi[1] - rec[t].lo[1], rec[t].hi[2] - rec[t].lo[2])) /
            (double)m->nt;
  }
  m->cell = mean > 0 ? mean : 1;
  for (;;) {
    double cells = 1;
    for (int k = 0; k < 3; k++) cells *= PetscMax(1.0, ceil(ext[k] / m->cell));
    if (cells <= (double)TRIMESH_CELLS_PER_TRIANGLE * (double)m->nt + 64) break;
    m->cell *= 1.5;
  }
  ncells = 1;
  for (int k = 0; k < 3; k++) {
    m->dims[k] = (PetscInt)PetscMax(1.0, ceil(ext[k] / m->cell));
    ncells *= m->dims[k];
  }
  PetscCall(PetscCalloc1((size_t)ncells + 1, &m->cell_start));
  PetscCall(PetscCalloc1((size_t)ncells + 1, &fill));
  /* the records by their first cell: a counting sort, stable in the triangles' order */
  for (PetscInt t = 0; t < m->nt; t++) {
    PetscInt a[3], b[3];
    cell_range(m, rec[t].lo, rec[t].hi, a, b);
    fill[a[0] + m->dims[0] * (a[1] + m->dims[1] * a[2]) + 1]++;
  }
  for (PetscInt c = 0; c < ncells; c++) fill[c + 1] += fill[c];
  for (PetscInt t = 0; t < m->nt; t++) {
    PetscInt a[3], b[3], at;
    cell_range(m, rec[t].lo, rec[t].hi, a, b);
    at            = fill[a[0] + m->dims[0] * (a[1] + m->dims[1] * a[2])]++;
    m->rec[at]    = rec[t];
    m->tri_rec[t] = (int32_t)at;
  }
  for (PetscInt i = 0; i < m->nt; i++)
    for (int k = 0; k < 3; k++)
      if (m->rec[i].nbr[k] >= 0) m->rec[i].nbr[k] = m->tri_rec[m->rec[i].nbr[k]];
  fans(m);
  for (int pass = 0; pass < 2; pass++) {
    if (pass) {
      for (PetscInt c = 0; c < ncells; c++) m->cell_start[c + 1] += m->cell_start[c];
      PetscCheck(m->cell_start[ncells] >= 0 && m->cell_start[ncells] < INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP,
                 "mesh grid: more than 2^31 cell entries; coarsen the mesh");
      PetscCall(PetscMalloc1((size_t)m->cell_start[ncells] + 1, &m->cell_tri));
      PetscCall(PetscArrayzero(fill, ncells + 1));
    }
    for (PetscInt i = 0; i < m->nt; i++) {
      PetscInt a[3], b[3];
      cell_range(m, m->rec[i].lo, m->rec[i].hi, a, b);
      for (PetscInt z = a[2]; z <= b[2]; z++)
        for (PetscInt y = a[1]; y <= b[1]; y++)
          for (PetscInt x = a[0]; x <= b[0]; x++) {
            const PetscInt c     = x + m->dims[0] * (y + m->dims[1] * z);
            const uint32_t first = (x == a[0] ? TRIMESH_ENTRY_FIRST : 0) | (y == a[1] ? TRIMESH_ENTRY_FIRST << 1 : 0) |
                                   (z == a[2] ? TRIMESH_ENTRY_FIRST << 2 : 0);
            if (pass) m->cell_tri[m->cell_start[c] + fill[c]++] = (uint32_t)i | first;
            else m->cell_start[c + 1]++;
          }
    }
  }
  PetscCall(PetscFree(fill));
  /* the records; doubles: v; 4-byte words: tri, tri_edge, edge_tri (3 per triangle each), tri_rec, edge_v,
     vert_edge (2 per edge each), edge_tri_start, vert_edge_start, vert_owner, cell_start, cell_tri */
  m->bytes = sizeof(*m) + sizeof(TriRecord) * (size_t)m->nt + sizeof(double) * 3 * (size_t)m->nv +
             sizeof(int32_t) * (10 * (size_t)m->nt + 4 * (size_t)m->ne + ((size_t)m->ne + 1) + ((size_t)m->nv + 1) +
                                (size_t)m->nv + ((size_t)ncells + 1) + (size_t)m->cell_start[ncells]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* TriMeshCreate; faces: its flat faces built from its own triangles (a subset takes the whole's instead). */
static PetscErrorCode create(PetscInt nt, const double *xyz, PetscBool faces, TriMesh **mesh, PetscInt *degenerate)
{
  TriMesh   *m;
  TriRecord *rec; /* the records in the file's order, until the grid sorts them into m->rec */

  PetscFunctionBegin;
  *mesh = NULL;
  PetscCheck(nt > 0 && nt <= (PetscInt)TRIMESH_ENTRY_TRI / 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "TriMeshCreate: %" PetscInt_FMT " triangles; give 1 to 2^29 / 3", nt);
  PetscCall(PetscNew(&m));
  m->nt = nt;
  PetscCall(PetscMalloc1(3 * (size_t)nt, &m->tri)); /* on its own: TriMeshStrip keeps it */
  PetscCall(PetscMalloc2(3 * (size_t)nt, &m->tri_edge, (size_t)nt, &m->tri_rec));
  PetscCall(PetscMalloc1((size_t)nt, &m->rec));
  PetscCall(PetscMalloc1((size_t)nt, &rec));
  PetscCall(weld(m, xyz));
  normals(m, rec, degenerate);
  if (*degenerate >= 0) {
    PetscCall(PetscFree(rec));
    PetscCall(TriMeshDestroy(&m));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(adjacency(m, rec));
  PetscCall(grid(m, rec));
  PetscCall(PetscFree(rec));
  if (faces) {
    PetscCall(TriMeshFacesBuild(m));
    m->bytes += TriMeshFacesBytes(m);
  }
  *mesh = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TriMeshCreate(PetscInt nt, const double *xyz, TriMesh **mesh, PetscInt *degenerate)
{
  PetscFunctionBegin;
  PetscCall(create(nt, xyz, PETSC_TRUE, mesh, degenerate));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A mesh of no triangles: a one-cell grid with an empty cell, which every query passes by. */
static PetscErrorCode empty_mesh(TriMesh **mesh)
{
  TriMesh *m;

  PetscFunctionBegin;
  PetscCall(PetscNew(&m));
  m->cell = 1;
  for (int k = 0; k < 3; k++) m->dims[k] = 1;
  PetscCall(PetscCalloc1(2, &m->cell_start));
  m->bytes = sizeof(*m) + 2 * sizeof(int32_t);
  *mesh    = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TriMeshCreateSubset(const TriMesh *whole, PetscInt n, const int32_t *keep, TriMesh **sub)
{
  double  *xyz;
  TriMesh *m = NULL;
  PetscInt degenerate;

  PetscFunctionBegin;
  *sub = NULL;
  PetscCheck(n >= 0 && n <= whole->nt, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "TriMeshCreateSubset: %" PetscInt_FMT " triangles of %" PetscInt_FMT "; give 0 to all", n, whole->nt);
  if (!n) {
    PetscCall(empty_mesh(sub));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc1(9 * (size_t)n, &xyz));
  for (PetscInt i = 0; i < n; i++)
    for (int k = 0; k < 3; k++)
      v3_copy(xyz + 9 * (size_t)i + 3 * k, whole->v + 3 * (size_t)whole->tri[3 * (size_t)keep[i] + k]);
  PetscCall(create(n, xyz, PETSC_FALSE, &m, &degenerate));
  PetscCall(PetscFree(xyz));
  PetscCheck(m && degenerate < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "TriMeshCreateSubset: triangle %" PetscInt_FMT " of a whole mesh has zero area", degenerate);
  PetscCall(PetscMalloc2((size_t)n, &m->tri_gid, (size_t)m->nv, &m->vert_gid));
  for (PetscInt i = 0; i < n; i++) {
    m->tri_gid[i] = keep[i];
    for (int k = 0; k < 3; k++) m->vert_gid[m->tri[3 * (size_t)i + k]] = whole->tri[3 * (size_t)keep[i] + k];
  }
  PetscCall(TriMeshFacesInherit(m, whole));
  m->bytes += ((size_t)n + (size_t)m->nv) * sizeof(int32_t) + TriMeshFacesBytes(m);
  *sub = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

void TriMeshSelectBox(const TriMesh *m, const double lo[3], const double hi[3], int32_t *keep, PetscInt *n)
{
  *n = 0;
  for (PetscInt t = 0; t < m->nt; t++) {
    double tlo[3], thi[3];
    int    meet = 1;
    tri_box(m, t, tlo, thi); /* the bounds its record holds, from the vertices a stripped mesh keeps */
    for (int k = 0; k < 3; k++) meet &= thi[k] >= lo[k] && tlo[k] <= hi[k];
    if (meet) keep[(*n)++] = (int32_t)t;
  }
}

/* Frees what queries read (records, edges, vertices' edges and owners, grid); the vertices and triangles stay. */
static PetscErrorCode free_query_tables(TriMesh *m)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(m->tri_edge, m->tri_rec));
  PetscCall(PetscFree(m->rec));
  PetscCall(PetscFree3(m->edge_v, m->edge_tri_start, m->edge_tri));
  PetscCall(PetscFree(m->vert_edge_start));
  PetscCall(PetscFree2(m->vert_edge, m->vert_owner));
  PetscCall(PetscFree(m->cell_start));
  PetscCall(PetscFree(m->cell_tri));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TriMeshStrip(TriMesh *m)
{
  PetscFunctionBegin;
  PetscCheck(!m->tri_gid, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "TriMeshStrip: give a whole mesh, not a subset");
  PetscCall(free_query_tables(m));
  m->ne = 0;
  for (int k = 0; k < 3; k++) m->dims[k] = 0;
  m->bytes = sizeof(*m) + sizeof(double) * 3 * (size_t)m->nv + sizeof(int32_t) * 3 * (size_t)m->nt +
             TriMeshFacesBytes(m); /* the faces and their cells stay: subsets take them */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TriMeshDestroy(TriMesh **mesh)
{
  TriMesh *m = *mesh;

  PetscFunctionBegin;
  if (!m) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(m->v));
  PetscCall(PetscFree(m->tri));
  PetscCall(free_query_tables(m));
  PetscCall(TriMeshFacesFree(m));
  PetscCall(PetscFree2(m->tri_gid, m->vert_gid));
  PetscCall(PetscFree(*mesh));
  PetscFunctionReturn(PETSC_SUCCESS);
}
