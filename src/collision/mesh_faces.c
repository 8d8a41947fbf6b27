/* Flat faces of a triangle mesh and the grid cells where one is alone (contracts in collision/mesh_faces.h). */
#include "collision/mesh_faces.h"
#include "base/vec3.h"
#include <float.h>
#include <math.h>

/* What a cell lists before the rings are counted: one face's triangles only (the face), nothing, or anything else. */
#define CELL_EMPTY (-2)
#define CELL_MIXED (-1)

/* A boundary edge's line of the face with the most boundary edges a face may have: the convexity test compares every
 * boundary corner with every line. */
#define FACE_MAX_EDGES 4096

static PetscInt uf_find(PetscInt *parent, PetscInt i)
{
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

/* The corner of triangle t not on its edge k. */
static const double *far_corner(const TriMesh *m, PetscInt t, int k)
{
  return m->v + 3 * (size_t)m->tri[3 * t + (k + 2) % 3];
}

/* Whether triangles t (its edge k) and s, sharing that edge, lie in one plane without folding onto each other: s's
 * far corner within tol of t's plane and on the other side of the edge from t's. */
static PetscBool coplanar_across(const TriMesh *m, PetscInt t, int k, PetscInt s, int j, double tol)
{
  const TriRecord *r = &m->rec[m->tri_rec[t]];
  const double    *a = m->v + 3 * (size_t)m->tri[3 * t + k], *b = m->v + 3 * (size_t)m->tri[3 * t + (k + 1) % 3];
  double           ab[3], w[3], dt[3], ds[3];

  v3_sub(ds, far_corner(m, s, j), r->v[0]);
  if (!(fabs(v3_dot(ds, r->n)) <= tol)) return PETSC_FALSE;
  v3_sub(ab, b, a);
  v3_cross(w, r->n, ab); /* in the plane, across the edge */
  v3_sub(dt, far_corner(m, t, k), a);
  v3_sub(ds, far_corner(m, s, j), a);
  return (PetscBool)(v3_dot(w, dt) * v3_dot(w, ds) < 0);
}

/* The boundary line of edge k of triangle t in a face of normal n: the in-plane normal u towards t's far corner, and
 * o = u . a (4 doubles into line). */
static void boundary_line(const TriMesh *m, PetscInt t, int k, const double n[3], double line[4])
{
  const double *a = m->v + 3 * (size_t)m->tri[3 * t + k], *b = m->v + 3 * (size_t)m->tri[3 * t + (k + 1) % 3];
  double        ab[3], u[3], dx[3];

  v3_sub(ab, b, a);
  v3_cross(u, n, ab);
  v3_scale(u, 1.0 / v3_norm(u), u);
  v3_sub(dx, far_corner(m, t, k), a);
  if (v3_dot(u, dx) < 0) v3_scale(u, -1.0, u);
  v3_copy(line, u);
  line[3] = v3_dot(u, a);
}

/* Whether edge k of triangle t carries exactly one other triangle: into *s, with the number j of that edge in s. */
static PetscBool edge_partner(const TriMesh *m, PetscInt t, int k, PetscInt *s, int *j)
{
  const int32_t e = m->tri_edge[3 * t + k], i = m->edge_tri_start[e];
  if (m->edge_tri_start[e + 1] - i != 2) return PETSC_FALSE;
  *s = m->edge_tri[i] == t ? m->edge_tri[i + 1] : m->edge_tri[i];
  *j = 0;
  while (m->tri_edge[3 * *s + *j] != e) (*j)++;
  return PETSC_TRUE;
}

/* Whether edge k of triangle t is on the boundary of its region (root[]): not shared with a triangle of the region. */
static PetscBool on_boundary(const TriMesh *m, const PetscInt *root, PetscInt t, int k)
{
  PetscInt s;
  int      j;
  return (PetscBool)(!edge_partner(m, t, k, &s, &j) || root[s] != root[t]);
}

/* The face of the region of triangles tris[0 .. n) (ascending) if it is one: flat within tol, convex, at most
 * TRIMESH_FACE_MAX_LINES lines; its lines appended to *lines (grown as needed). *made: whether it is. */
static PetscErrorCode region_face(const TriMesh *m, const PetscInt *root, const PetscInt *tris, PetscInt n, double tol,
                                  TriFace *f, double **lines, PetscInt *nlines, PetscInt *cap, PetscBool *made)
{
  const TriRecord *r0 = &m->rec[m->tri_rec[tris[0]]];
  double          *edge_line, *corner;
  PetscInt         ne = 0, nl = 0;

  double nrm[3] = {0, 0, 0}, len;

  PetscFunctionBegin;
  *made = PETSC_FALSE;
  /* the plane's normal: the triangles' area vectors summed (each turned to the lowest triangle's side: a region's
     winding may flip), which a small lowest triangle alone would tilt by its corners' rounding over the region */
  for (PetscInt i = 0; i < n; i++) {
    const TriRecord *r = &m->rec[m->tri_rec[tris[i]]];
    double           ab[3], ac[3], x[3];
    v3_sub(ab, r->v[1], r->v[0]);
    v3_sub(ac, r->v[2], r->v[0]);
    v3_cross(x, ab, ac);
    v3_axpy(nrm, v3_dot(x, r0->n) < 0 ? -1.0 : 1.0, x);
  }
  len = v3_norm(nrm);
  if (!(len > 0)) PetscFunctionReturn(PETSC_SUCCESS);
  v3_scale(nrm, 1.0 / len, nrm);
  for (PetscInt i = 0; i < n; i++) /* flat: every corner near that plane through the lowest triangle's first corner */
    for (int k = 0; k < 3; k++) {
      double d[3];
      v3_sub(d, m->v + 3 * (size_t)m->tri[3 * tris[i] + k], r0->v[0]);
      if (!(fabs(v3_dot(d, nrm)) <= tol)) PetscFunctionReturn(PETSC_SUCCESS);
    }
  for (PetscInt i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) ne += on_boundary(m, root, tris[i], k);
  if (ne > FACE_MAX_EDGES) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc2(4 * (size_t)ne, &edge_line, 6 * (size_t)ne, &corner)); /* per edge: its line, its ends */
  ne = 0;
  for (PetscInt i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      if (!on_boundary(m, root, tris[i], k)) continue;
      boundary_line(m, tris[i], k, nrm, edge_line + 4 * ne);
      v3_copy(corner + 6 * ne, m->v + 3 * (size_t)m->tri[3 * tris[i] + k]);
      v3_copy(corner + 6 * ne + 3, m->v + 3 * (size_t)m->tri[3 * tris[i] + (k + 1) % 3]);
      ne++;
    }
  /* convex: every boundary corner (each the first end of a boundary edge) on the inner side of every boundary edge's
     line (a hole's edges fail it too) */
  for (PetscInt e = 0; e < ne; e++)
    for (PetscInt c = 0; c < ne; c++)
      if (!(v3_dot(edge_line + 4 * e, corner + 6 * c) - edge_line[4 * e + 3] >= -tol)) {
        PetscCall(PetscFree2(edge_line, corner));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
  /* collinear edges are one line: an edge joins a line whose direction it shares and whose offset its two ends meet
     within tol; the line's offset is then its edges' innermost end, so every edge of the line lies on or outside it
     and a point at least a reach inside the line is at least a reach from each of its edges */
  if (*nlines + ne > *cap) {
    double *grown;
    *cap = PetscMax(2 * *cap, *nlines + ne);
    PetscCall(PetscMalloc1(4 * (size_t)*cap, &grown));
    PetscCall(PetscArraycpy(grown, *lines, 4 * *nlines));
    PetscCall(PetscFree(*lines));
    *lines = grown;
  }
  for (PetscInt e = 0; e < ne && nl <= TRIMESH_FACE_MAX_LINES; e++) {
    const double *u = edge_line + 4 * e, *a = corner + 6 * e, *b = a + 3;
    PetscInt      l = 0;
    for (; l < nl; l++) {
      double      *w  = *lines + 4 * (*nlines + l);
      const double sa = v3_dot(w, a), sb = v3_dot(w, b);
      if (v3_dot(w, u) > 0.5 && fabs(sa - w[3]) <= tol && fabs(sb - w[3]) <= tol) {
        w[3] = PetscMax(w[3], PetscMax(sa, sb));
        break;
      }
    }
    if (l == nl) PetscCall(PetscArraycpy(*lines + 4 * (*nlines + nl++), u, 4));
  }
  PetscCall(PetscFree2(edge_line, corner));
  if (nl > TRIMESH_FACE_MAX_LINES) PetscFunctionReturn(PETSC_SUCCESS);
  v3_copy(f->n, nrm);
  v3_copy(f->p, r0->v[0]);
  f->line0 = (int32_t)*nlines;
  f->nline = (int32_t)nl;
  f->t     = (int32_t)tris[0];
  *nlines += nl;
  *made = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What cell c lists: CELL_EMPTY, one face's triangles only (that face), or CELL_MIXED. */
static int32_t cell_status(const TriMesh *m, PetscInt c)
{
  int32_t face = CELL_EMPTY;
  for (int32_t i = m->cell_start[c]; i < m->cell_start[c + 1]; i++) {
    const int32_t f = m->tri_face[m->rec[m->cell_tri[i] & TRIMESH_ENTRY_TRI].t];
    if (f < 0 || (face >= 0 && f != face)) return CELL_MIXED;
    face = f;
  }
  return face;
}

/* m->cell_flat from m->tri_face and m's grid. */
static PetscErrorCode build_cells(TriMesh *m)
{
  const PetscInt nc = m->dims[0] * m->dims[1] * m->dims[2];
  int32_t       *status;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nc, &status));
  PetscCall(PetscMalloc1(nc, &m->cell_flat));
  for (PetscInt c = 0; c < nc; c++) status[c] = cell_status(m, c);
  for (PetscInt z0 = 0; z0 < m->dims[2]; z0++)
    for (PetscInt y0 = 0; y0 < m->dims[1]; y0++)
      for (PetscInt x0 = 0; x0 < m->dims[0]; x0++) {
        const PetscInt c     = x0 + m->dims[0] * (y0 + m->dims[1] * z0);
        int32_t        face  = status[c];
        int32_t        rings = 0;
        PetscBool      clean = (PetscBool)(face != CELL_MIXED);
        for (int32_t K = 1; clean && K <= TRIMESH_FACE_RINGS; K++) { /* the shell at Chebyshev distance K */
          for (PetscInt z = PetscMax(z0 - K, 0); clean && z <= PetscMin(z0 + K, m->dims[2] - 1); z++)
            for (PetscInt y = PetscMax(y0 - K, 0); clean && y <= PetscMin(y0 + K, m->dims[1] - 1); y++)
              for (PetscInt x = PetscMax(x0 - K, 0); clean && x <= PetscMin(x0 + K, m->dims[0] - 1); x++) {
                const int32_t s = status[x + m->dims[0] * (y + m->dims[1] * z)];
                if (PetscMax(PetscAbsInt(x - x0), PetscMax(PetscAbsInt(y - y0), PetscAbsInt(z - z0))) != K) continue;
                if (s == CELL_MIXED || (s >= 0 && face >= 0 && s != face)) clean = PETSC_FALSE;
                else if (s >= 0) face = s;
              }
          if (clean) rings = K;
        }
        m->cell_flat[c] = (TriFlatCell){face >= 0 && status[c] != CELL_MIXED ? face : -1, rings};
      }
  PetscCall(PetscFree(status));
  for (int k = 0; k < 3; k++) {
    m->flat_lo[k]   = m->lo[k];
    m->flat_dims[k] = m->flat_n[k] = m->dims[k];
    m->flat_at[k]                  = 0;
  }
  m->flat_cell = m->cell;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TriMeshFacesBuild(TriMesh *m)
{
  double scale = 2 * m->radius;
  for (int k = 0; k < 3; k++) scale = PetscMax(scale, PetscMax(fabs(m->lo[k]), fabs(m->hi[k])));
  const double tol = TRIMESH_FACE_FLAT * scale;
  PetscInt    *root, *start, *member, cap = 64, nlines = 0, nroot = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(m->nt, &m->tri_face));
  PetscCall(PetscMalloc3(m->nt, &root, m->nt + 1, &start, m->nt, &member));
  for (PetscInt t = 0; t < m->nt; t++) root[t] = t;
  for (PetscInt t = 0; t < m->nt; t++)
    for (int k = 0; k < 3; k++) {
      PetscInt s;
      int      j;
      if (edge_partner(m, t, k, &s, &j) && s > t && coplanar_across(m, t, k, s, j, tol)) {
        const PetscInt a = uf_find(root, t), b = uf_find(root, s);
        root[PetscMax(a, b)] = PetscMin(a, b);
      }
    }
  for (PetscInt t = 0; t < m->nt; t++) root[t] = uf_find(root, t); /* each region's root: its lowest triangle */
  /* the regions' triangles, ascending, by a counting sort on the root */
  PetscCall(PetscArrayzero(start, m->nt + 1));
  for (PetscInt t = 0; t < m->nt; t++) start[root[t] + 1]++;
  for (PetscInt t = 0; t < m->nt; t++) start[t + 1] += start[t];
  for (PetscInt t = 0; t < m->nt; t++) member[start[root[t]]++] = t;
  for (PetscInt t = m->nt; t > 0; t--) start[t] = start[t - 1];
  start[0] = 0;
  for (PetscInt t = 0; t < m->nt; t++) {
    m->tri_face[t] = -1;
    if (root[t] == t && start[t + 1] - start[t] >= 2) nroot++;
  }
  PetscCall(PetscMalloc1(PetscMax(nroot, 1), &m->face));
  PetscCall(PetscMalloc1(4 * (size_t)cap, &m->face_line));
  m->nf = 0;
  for (PetscInt t = 0; t < m->nt; t++) {
    PetscBool made;
    if (root[t] != t || start[t + 1] - start[t] < 2) continue;
    PetscCall(region_face(m, root, member + start[t], start[t + 1] - start[t], tol, &m->face[m->nf], &m->face_line,
                          &nlines, &cap, &made));
    if (!made) continue;
    for (PetscInt i = start[t]; i < start[t + 1]; i++) m->tri_face[member[i]] = (int32_t)m->nf;
    m->nf++;
  }
  PetscCall(PetscFree3(root, start, member));
  PetscCall(build_cells(m));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TriMeshFacesInherit(TriMesh *sub, const TriMesh *whole)
{
  int32_t *map;
  PetscInt nlines = 0;

  PetscFunctionBegin;
  if (!whole->tri_face || !sub->nt) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(PetscMax(whole->nf, 1), &map));
  for (PetscInt f = 0; f < whole->nf; f++) map[f] = -1;
  PetscCall(PetscMalloc1(sub->nt, &sub->tri_face));
  sub->nf = 0;
  for (PetscInt i = 0; i < sub->nt; i++) { /* ascending in whole's numbers too: a face's first is its lowest here */
    const int32_t f = whole->tri_face[sub->tri_gid[i]];
    if (f >= 0 && map[f] < 0) {
      map[f] = (int32_t)sub->nf++;
      nlines += whole->face[f].nline;
    }
    sub->tri_face[i] = f >= 0 ? map[f] : -1;
  }
  PetscCall(PetscMalloc1(PetscMax(sub->nf, 1), &sub->face));
  PetscCall(PetscMalloc1(4 * (size_t)PetscMax(nlines, 1), &sub->face_line));
  nlines = 0;
  for (PetscInt i = 0; i < sub->nt; i++) {
    const int32_t f = whole->tri_face[sub->tri_gid[i]];
    TriFace      *g;
    if (f < 0 || map[f] < 0) continue;
    g        = &sub->face[map[f]];
    *g       = whole->face[f];
    g->line0 = (int32_t)nlines;
    g->t     = (int32_t)i;
    PetscCall(PetscArraycpy(sub->face_line + 4 * nlines, whole->face_line + 4 * (size_t)whole->face[f].line0,
                            4 * (size_t)g->nline));
    nlines += g->nline;
    map[f] = -2 - map[f]; /* copied: -2 - its number in sub */
  }
  /* the whole's cells over sub's box grown by the rings the whole looked at, faces renumbered (-1 where sub lacks
     the face: no query the part serves lies there) */
  if (whole->cell_flat) {
    PetscInt n = 1;
    for (int k = 0; k < 3; k++) {
      const PetscInt ia = trimesh_grid_coord(whole->flat_lo[k], whole->flat_cell, whole->flat_dims[k], sub->lo[k]),
                     ib = trimesh_grid_coord(whole->flat_lo[k], whole->flat_cell, whole->flat_dims[k], sub->hi[k]);
      sub->flat_lo[k]   = whole->flat_lo[k];
      sub->flat_dims[k] = whole->flat_dims[k];
      sub->flat_at[k]   = PetscMax(whole->flat_at[k], ia - TRIMESH_FACE_RINGS - 1);
      sub->flat_n[k]    = PetscMin(whole->flat_at[k] + whole->flat_n[k], ib + TRIMESH_FACE_RINGS + 2) - sub->flat_at[k];
      n *= PetscMax(sub->flat_n[k], 0);
    }
    sub->flat_cell = whole->flat_cell;
    PetscCall(PetscMalloc1(PetscMax(n, 1), &sub->cell_flat));
    for (PetscInt z = 0; z < sub->flat_n[2]; z++)
      for (PetscInt y = 0; y < sub->flat_n[1]; y++)
        for (PetscInt x = 0; x < sub->flat_n[0]; x++) {
          const PetscInt wx = x + sub->flat_at[0] - whole->flat_at[0], wy = y + sub->flat_at[1] - whole->flat_at[1],
                         wz = z + sub->flat_at[2] - whole->flat_at[2];
          TriFlatCell c     = whole->cell_flat[wx + whole->flat_n[0] * (wy + whole->flat_n[1] * wz)];
          c.face            = c.face >= 0 && map[c.face] <= -2 ? -2 - map[c.face] : -1;
          sub->cell_flat[x + sub->flat_n[0] * (y + sub->flat_n[1] * z)] = c;
        }
  }
  PetscCall(PetscFree(map));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TriMeshFacesFree(TriMesh *m)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(m->cell_flat));
  PetscCall(PetscFree(m->face));
  PetscCall(PetscFree(m->face_line));
  PetscCall(PetscFree(m->tri_face));
  m->nf = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

size_t TriMeshFacesBytes(const TriMesh *m)
{
  size_t lines = 0;
  if (!m->tri_face) return 0;
  for (PetscInt f = 0; f < m->nf; f++) lines += (size_t)m->face[f].nline;
  return sizeof(TriFace) * (size_t)m->nf + 4 * sizeof(double) * lines + sizeof(int32_t) * (size_t)m->nt +
         (m->cell_flat ? sizeof(TriFlatCell) * (size_t)(m->flat_n[0] * m->flat_n[1] * m->flat_n[2]) : 0);
}
