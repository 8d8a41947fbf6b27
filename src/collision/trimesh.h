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

/* A triangle as a query reads it, in one record: a query touches its bounds, corners, normal and owner
 * bits, and no other array until a contact with an edge or vertex passes its gap test. Records lie in
 * the grid's cell order (by the cell of their bounds' low corner), so a query's neighbouring cells
 * read neighbouring records. Every field is double: the corners and normal make the contact's bits,
 * which must not move, and the bounds decide which triangles a box body's vertices are tested
 * against (a bound rounded to single precision would add triangles a rounding away from the reach),
 * so the 24 bytes that float bounds would save are not worth a result. The neighbours across the
 * edges let an edge's or a vertex's region test read records instead of the edge's and vertex's lists.
 * 168 bytes. */
typedef struct TriRecord {
  double  lo[3], hi[3]; /* bounding box */
  double  v[3][3];      /* corners: the welded vertices' coordinates, in the triangle's order */
  double  n[3];         /* unit normal, right-handed about the corners' order */
  int32_t t;            /* the triangle's number in the file's order: contacts rank and own by it */
  int32_t nbr[3];       /* per edge k: the record of the one other triangle on it; TRIMESH_NBR_NONE, TRIMESH_NBR_MANY */
  uint8_t owns;         /* bit k: it owns its edge k; bit 3 + k: it owns its vertex k */
  uint8_t flip;         /* bit k: edge k's lower-numbered vertex (its s = 0 end) is corner k + 1 (mod 3) */
  uint8_t nbr_edge;     /* bits 2 k and 2 k + 1: which edge of record nbr[k] edge k is */
  uint8_t fan; /* bit k: it owns its vertex k and the triangles at it form one closed fan (each edge at the vertex
                  on two of them), so crossing edges from it around the vertex meets every edge there */
} TriRecord;

/* A flat face of a mesh (collision/mesh_faces.h): edge-connected triangles in one plane whose union is convex,
 * given by its plane and the lines of its boundary. */
typedef struct {
  double  n[3], p[3]; /* the plane: its triangles' mean normal, its lowest triangle's first corner */
  int32_t line0;      /* its boundary lines are TriMesh.face_line[4 line0 .. 4 (line0 + nline)) */
  int32_t nline;
  int32_t t; /* its lowest triangle (this mesh's number) */
} TriFace;

/* A grid cell's flat-face shortcut: within `rings` cells of it (Chebyshev distance, the cell itself ring 0) every
 * triangle listed belongs to face `face` (-1: none such), so no other triangle lies within rings x cell of a point in
 * it (collision/mesh_faces.h). */
typedef struct {
  int32_t face, rings;
} TriFlatCell;

typedef struct TriMesh {
  PetscInt   nv, nt, ne;      /* vertices, triangles, edges */
  double    *v;               /* 3 per vertex (m, the mesh's frame) */
  int32_t   *tri;             /* 3 vertices per triangle, in the file's order */
  int32_t   *tri_edge;        /* 3 per triangle: edge k joins its vertices k and k + 1 (mod 3) */
  int32_t   *tri_rec;         /* per triangle: its record */
  int32_t   *edge_v;          /* 2 per edge: the lower vertex index first */
  int32_t   *edge_tri_start;  /* ne + 1: the triangles on edge e are edge_tri[edge_tri_start[e] ..] */
  int32_t   *edge_tri;        /* ascending: the first is the edge's owner */
  int32_t   *vert_edge_start; /* nv + 1: the edges at vertex v are vert_edge[vert_edge_start[v] ..] */
  int32_t   *vert_edge;
  int32_t   *vert_owner;   /* the lowest triangle at each vertex */
  TriRecord *rec;          /* nt records, in the grid's cell order */
  double     lo[3], hi[3]; /* bounding box */
  double     centre[3];    /* bounding sphere: the box's centre and half diagonal */
  double     radius;
  double     cell;       /* grid: cubic cells of this edge (m) from lo */
  PetscInt   dims[3];    /* cells per axis */
  int32_t   *cell_start; /* dims[0] dims[1] dims[2] + 1: cell c lists cell_tri[cell_start[c] ..] */
  uint32_t  *cell_tri;   /* per cell entry: a record (TRIMESH_ENTRY_TRI bits), ascending within a cell, and
                            TRIMESH_ENTRY_FIRST << k where the cell is the triangle's first along axis k */
  PetscInt nf;           /* flat faces (collision/mesh_faces.h); a stripped mesh keeps them, for its subsets */
  TriFace *face;
  double  *face_line;     /* 4 per boundary line: the in-plane unit normal u pointing into the face, offset o
                             (u . x >= o inside) */
  int32_t     *tri_face;  /* per triangle: its face, or -1 */
  TriFlatCell *cell_flat; /* the whole mesh's cells (NULL: no faces), those of the box flat_at .. + flat_n (cell
                             indices in the whole's grid: lo flat_lo, edge flat_cell, flat_dims cells per axis); a
                             subset keeps the whole's cells over its own box, so it decides as the whole does */
  double   flat_lo[3], flat_cell;
  PetscInt flat_dims[3], flat_at[3], flat_n[3];
  int32_t *tri_gid;  /* a subset (TriMeshCreateSubset): per triangle, its number in the whole mesh; NULL: whole */
  int32_t *vert_gid; /* a subset: per vertex, its index in the whole mesh; NULL: whole */
  size_t   bytes;    /* memory the mesh holds */
} TriMesh;

/* A grid entry's record and its first-cell flags (a query takes a triangle in the first of its
 * cells that it looks at, without reading the triangle: collision/triangle_contact.c). */
#define TRIMESH_ENTRY_TRI   0x1fffffffu
#define TRIMESH_ENTRY_FIRST (1u << 29)

/* TriRecord.nbr where an edge has no other triangle (the mesh's boundary) or several (a non-manifold edge). */
#define TRIMESH_NBR_NONE (-1)
#define TRIMESH_NBR_MANY (-2)

/* The most cells the grid has per triangle: larger meshes get coarser cells. */
#define TRIMESH_CELLS_PER_TRIANGLE 4

/* The mesh of nt triangles given by their corners xyz (9 per triangle, the mesh's frame) in *mesh
 * (TriMeshDestroy frees it). A triangle of zero area (below 1e-14 of its longest edge squared:
 * coincident or collinear corners, after welding) makes no mesh: *mesh NULL and *degenerate its
 * index; otherwise *degenerate = -1. Its flat faces (collision/mesh_faces.h) are found too. Not collective. */
PetscErrorCode TriMeshCreate(PetscInt nt, const double *xyz, TriMesh **mesh, PetscInt *degenerate);
/* The part of mesh whole made of its n triangles keep[] (ascending numbers in whole, 0 <= n <= whole->nt) in *sub
 * (TriMeshDestroy frees it), with each triangle's and vertex's number in whole (tri_gid, vert_gid); whole may be
 * stripped (TriMeshStrip); n = 0 gives a mesh of no triangles, which every query passes by. The subset's
 * triangles, vertices and edges keep whole's relative order (welding sorts vertices by coordinates, edges by their
 * vertices), its corners and normals have whole's bits, and an edge's or vertex's owner is whole's where every
 * triangle on it is kept: a query (collision/triangle_contact.h) whose reach only meets triangles in keep finds in
 * *sub the contacts, order, subs and bits it finds in whole (its flat faces are whole's, TriMeshFacesInherit). Not
 * collective. */
PetscErrorCode TriMeshCreateSubset(const TriMesh *whole, PetscInt n, const int32_t *keep, TriMesh **sub);
/* Whether mesh m's triangle bounds reach the box [lo, hi] (each in m's frame); into keep[] (m->nt entries) the
 * numbers of those that do, ascending, and their count into *n. For the triangles a query centred in the box with
 * a reach up to the box's growth sees. m may be stripped. Not collective. */
void TriMeshSelectBox(const TriMesh *m, const double lo[3], const double hi[3], int32_t *keep, PetscInt *n);
/* Frees what queries read of whole mesh m (records, edges, grid), keeping its vertices, triangles, faces and their
 * cells (nv, nt, v, tri, lo, hi, centre, radius, face, tri_face, cell_flat): enough to draw it (io/wall_output.h),
 * select from it and cut subsets from it; 24 bytes a vertex, 16 a triangle and 8 a grid cell, about 40 a triangle
 * where vertices are half as many, against about 280 whole. No query may read it after (its rec is NULL). Not
 * collective. */
PetscErrorCode TriMeshStrip(TriMesh *m);
PetscErrorCode TriMeshDestroy(TriMesh **mesh);
/* The whole mesh's number of triangle t of m (a subset's or a whole mesh's). */
static inline int32_t trimesh_tri_gid(const TriMesh *m, int32_t t) { return m->tri_gid ? m->tri_gid[t] : t; }
/* The whole mesh's index of vertex v of m. */
static inline int32_t trimesh_vert_gid(const TriMesh *m, int32_t v) { return m->vert_gid ? m->vert_gid[v] : v; }

/* The cell index of coordinate x on one axis of a grid (its low end lo, cells of edge `cell`, dims of them), clamped
 * to the grid; NaN gives 0. Every query of a mesh's grids (its own, and a part's view of the whole's flat-face cells)
 * goes through it, so a part and the whole pick the same cell for the same point. */
static inline PetscInt trimesh_grid_coord(double lo, double cell, PetscInt dims, double x)
{
  const double f = (x - lo) / cell;
  return !(f > 0) ? 0 : f >= (double)dims ? dims - 1 : (PetscInt)f; /* NaN: 0; 0 < f < dims truncates below dims */
}

/* The cell index of coordinate x along axis k of m's own grid, clamped to the grid. */
static inline PetscInt trimesh_cell_coord(const TriMesh *m, double x, int k)
{
  return trimesh_grid_coord(m->lo[k], m->cell, m->dims[k], x);
}

/* The corner of record r at the vertex of coordinates x (welded: equal coordinates are one vertex), or -1. */
static inline int trimesh_corner_at(const TriRecord *r, const double x[3])
{
  for (int c = 0; c < 3; c++)
    if (r->v[c][0] == x[0] && r->v[c][1] == x[1] && r->v[c][2] == x[2]) return c;
  return -1;
}
#endif
