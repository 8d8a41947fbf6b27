/* A triangle mesh as collision detection reads it: its vertices welded (corners with equal
 * coordinates are one vertex), its edges with the triangles on each, each vertex's edges, and a
 * uniform grid over its triangles (each cell lists the triangles whose bounding box reaches it),
 * all in the mesh's own frame and built once: a wall places the mesh by a rigid pose (position,
 * orientation) applied to these reference triangles, so a moving mesh changes its pose only.
 *
 * Each edge and each vertex has an owner, the lowest-numbered triangle on it: the one triangle that
 * reports a contact with it (collision/triangle_contact.h), so a sphere on an edge shared by two
 * triangles or on a vertex shared by several gets exactly one contact. */
#ifndef CCPDEM_COLLISION_TRIMESH_H
#define CCPDEM_COLLISION_TRIMESH_H
#include <petscsys.h>
#include <stdint.h>

typedef struct TriMesh {
  PetscInt  nv, nt, ne;      /* vertices, triangles, edges */
  double   *v;               /* 3 per vertex (m, the mesh's frame) */
  int32_t  *tri;             /* 3 vertices per triangle, in the file's order */
  double   *normal;          /* 3 per triangle: unit, right-handed about its vertex order */
  int32_t  *tri_edge;        /* 3 per triangle: edge k joins its vertices k and k + 1 (mod 3) */
  int32_t  *edge_v;          /* 2 per edge: the lower vertex index first */
  int32_t  *edge_tri_start;  /* ne + 1: the triangles on edge e are edge_tri[edge_tri_start[e] ..] */
  int32_t  *edge_tri;        /* ascending: the first is the edge's owner */
  int32_t  *vert_edge_start; /* nv + 1: the edges at vertex v are vert_edge[vert_edge_start[v] ..] */
  int32_t  *vert_edge;
  int32_t  *vert_owner;   /* the lowest triangle at each vertex */
  uint8_t  *tri_owns;     /* per triangle: bit k set where it owns its edge k, bit 3 + k where it owns its vertex k */
  double    lo[3], hi[3]; /* bounding box */
  double    centre[3];    /* bounding sphere: the box's centre and half diagonal */
  double    radius;
  double    cell;       /* grid: cubic cells of this edge (m) from lo */
  PetscInt  dims[3];    /* cells per axis */
  int32_t  *cell_start; /* dims[0] dims[1] dims[2] + 1: cell c lists cell_tri[cell_start[c] ..] */
  uint32_t *cell_tri;   /* per cell entry: a triangle (TRIMESH_ENTRY_TRI bits), ascending within a cell, and
                            TRIMESH_ENTRY_FIRST << k where the cell is the triangle's first along axis k */
  double *tri_box;      /* 6 per triangle: its bounding box, lo[3] then hi[3] */
  size_t  bytes;        /* memory the mesh holds */
} TriMesh;

/* A grid entry's triangle and its first-cell flags (a query takes a triangle in the first of its
 * cells that it looks at, without reading the triangle: collision/triangle_contact.c). */
#define TRIMESH_ENTRY_TRI   0x1fffffffu
#define TRIMESH_ENTRY_FIRST (1u << 29)

/* The most cells the grid has per triangle: larger meshes get coarser cells. */
#define TRIMESH_CELLS_PER_TRIANGLE 4

/* The mesh of nt triangles given by their corners xyz (9 per triangle, the mesh's frame) in *mesh
 * (TriMeshDestroy frees it). A triangle of zero area (below 1e-14 of its longest edge squared:
 * coincident or collinear corners, after welding) makes no mesh: *mesh NULL and *degenerate its
 * index; otherwise *degenerate = -1. Not collective. */
PetscErrorCode TriMeshCreate(PetscInt nt, const double *xyz, TriMesh **mesh, PetscInt *degenerate);
PetscErrorCode TriMeshDestroy(TriMesh **mesh);

/* The grid cell index of coordinate x along axis k, clamped to the grid. */
static inline PetscInt trimesh_cell_coord(const TriMesh *m, double x, int k)
{
  const double   f = (x - m->lo[k]) / m->cell;
  const PetscInt c = !(f > 0) ? 0 : f >= (double)m->dims[k] ? m->dims[k] - 1 : (PetscInt)f; /* NaN: 0 */
  return c < m->dims[k] ? c : m->dims[k] - 1;
}
#endif
