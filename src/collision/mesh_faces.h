/* The flat faces of a triangle mesh and the shortcut they give sphere queries (collision/triangle_contact.c).
 *
 * A sphere resting on a flat region made of many triangles (a floor, a hopper's or chute's wall, a CAD box) reaches
 * several of them, and the closest-feature query pays each one's height, barycentric coordinates and region tests,
 * to find the one contact a plane would give with one dot product. A face is such a region found once at load:
 * triangles joined across edges that carry exactly two triangles, coplanar (every corner within TRIMESH_FACE_FLAT of
 * the region's plane, through its lowest triangle's first corner with its triangles' mean normal; two triangles
 * joined across an edge not folded onto each other), whose union is convex
 * (every boundary corner on the inner side of every boundary line) and bounded by at most TRIMESH_FACE_MAX_LINES
 * lines (collinear boundary edges are one line). A flat region that is not convex (an L, a ring) gets no face: its
 * queries take the triangles one by one, as before; so does every triangle of a curved mesh (a drum's facets).
 *
 * The grid's cells record where a face is alone (TriFlatCell): a sphere whose centre lies in a cell whose clean rings
 * reach further than the sphere's reach meets no triangle but the face's, and if its foot on the face's plane lies
 * at least the reach inside every boundary line, the face's interior is the only feature within reach: one contact,
 * the plane's, with the face's normal. The query takes it without reading a triangle; anywhere else it falls back
 * to the triangles. The contact is the one the triangles give up to rounding where the face is exactly flat (the same
 * plane, another corner of it as the reference point), and within about TRIMESH_FACE_FLAT of the mesh's scale where
 * its corners stray from the plane by up to that (tests/unit/test_mesh_faces.c bounds both).
 *
 * A subset (a rank's part, TriMeshCreateSubset) takes its faces and cells from the whole mesh (the same planes, lines
 * and decisions, so a query within the part gives the whole's bits: a run's contacts do not depend on the rank
 * count through the shortcut). */
#ifndef CCPDEM_COLLISION_MESH_FACES_H
#define CCPDEM_COLLISION_MESH_FACES_H
#include "collision/trimesh.h"

/* Coplanar: a corner within this fraction of the mesh's scale (its largest coordinate or its bounding box's diagonal,
 * the larger) from the face's plane: far above the rounding of exactly coplanar coordinates (1e-16), far below what
 * a gap notices (1 nm on a 1 m mesh). A tilted flat wall stored in single precision (binary STL: corners off its plane
 * by a few 1e-8 of their magnitude, and its rim's edges off their line by as much) stays triangles: a face for it
 * would need its rim's lines fitted over many edges, not taken edge by edge. */
#define TRIMESH_FACE_FLAT 1e-9
/* A face with more boundary lines than this is not made (each query on it would test them all). */
#define TRIMESH_FACE_MAX_LINES 64
/* Rings of cells the shortcut looks at around a centre's cell (the cost of building the cells grows as its cube). */
#define TRIMESH_FACE_RINGS 3

/* m's faces from its own triangles, then its cells (m->nf, face, face_line, tri_face, cell_flat). m is whole and
 * built up to its grid (records in cell order). Not collective. */
PetscErrorCode TriMeshFacesBuild(TriMesh *m);
/* sub's faces: those of whole (which may be stripped) that sub's triangles belong to (sub->tri_gid), the same
 * planes and lines, and whole's cells over sub's box (so a query the part serves is decided as whole decides it, on
 * any rank count). Not collective. */
PetscErrorCode TriMeshFacesInherit(TriMesh *sub, const TriMesh *whole);
/* Frees m's faces and cells. */
PetscErrorCode TriMeshFacesFree(TriMesh *m);
/* Bytes m's faces and cells hold. */
size_t TriMeshFacesBytes(const TriMesh *m);
#endif
