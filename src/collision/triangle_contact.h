/* Sphere - triangle-mesh contacts by the closest-feature rule.
 *
 * A point p (the sphere's centre) is in the region of exactly one feature of a flat or convex
 * part of a mesh: a face (p projects inside the triangle), an edge (p projects onto the edge's
 * interior and outside every triangle on the edge, across it) or a vertex (p lies beyond the
 * vertex along every edge at it). A contact is made with each feature whose region holds p and
 * whose gap is below the envelope, once: an edge or vertex by its owner triangle only
 * (collision/trimesh.h). In a concave part (a valley, a box's inside corner) p may lie in several
 * faces' regions: each is a contact. The tests compare numbers that two triangles compute alike
 * (the barycentric coordinate of p across a shared edge, the edge's parameter of p at a shared
 * vertex) with a margin TRICONTACT_EPS, so a point on a shared edge is never in two regions or none.
 *
 * Face contacts take the triangle's normal (towards p: meshes are two-sided), edge and vertex
 * contacts the direction from the closest point to p: on a flat mesh every contact is the plane's. */
#ifndef CCPDEM_COLLISION_TRIANGLE_CONTACT_H
#define CCPDEM_COLLISION_TRIANGLE_CONTACT_H
#include "collision/trimesh.h"
#include "collision/narrowphase.h"

/* The margin of the region tests (dimensionless: a barycentric coordinate, an edge parameter):
 * far above their rounding (1e-16 times the ratio of the distance to the triangle's size) and far
 * below any distance that matters (1e-12 of a triangle's size). */
#define TRICONTACT_EPS 1e-12

typedef enum {
  TRI_FEATURE_FACE   = 0,
  TRI_FEATURE_EDGE   = 1,
  TRI_FEATURE_VERTEX = 2
} TriFeatureKind;

typedef struct {
  TriFeatureKind kind;
  int32_t        index; /* the triangle, edge or vertex */
  ContactPoint   pt;    /* the mesh's point p1, the sphere's p2, normal from the mesh to the sphere, gap */
} TriFeatureContact;

/* Barycentric coordinates b[3] (summing to 1) of the projection of p onto the plane of triangle t
 * (b[k] belongs to its vertex k). Deterministic: the same bits wherever it is asked. */
void tricontact_barycentric(const TriMesh *m, PetscInt t, const double p[3], double b[3]);
/* Parameter s of the point of edge e's line closest to p: 0 at its lower vertex, 1 at the other. */
double tricontact_edge_parameter(const TriMesh *m, PetscInt e, const double p[3]);

/* The contacts of the sphere (centre c, radius r, in the mesh's frame) with mesh m whose gap is
 * below the envelope, by the closest-feature rule (above): into out[0 .. max), the deepest when
 * there are more (ties: the lower feature), then ordered by feature (faces, edges, vertices, each
 * by index). Returns how many. Not collective; reads m only. */
int tricontact_sphere(const TriMesh *m, const double c[3], double r, double envelope, int max, TriFeatureContact *out);
/* The two ways tricontact_sphere answers (it takes the first that decides):
 *  - tricontact_flat_face: where the sphere's reach meets only one flat face's interior (collision/mesh_faces.h), its
 *    one contact into out[0] (1), or none when it is out of reach (0); -1 where it cannot decide (another triangle
 *    or the face's boundary may lie within reach, or the mesh has no faces). Reads no triangle;
 *  - tricontact_sphere_triangles: the closest-feature rule over the triangles within reach (the reference the
 *    shortcut agrees with: tests/unit/test_mesh_faces.c). */
int tricontact_flat_face(const TriMesh *m, const double c[3], double r, double envelope, TriFeatureContact *out);
int tricontact_sphere_triangles(const TriMesh *m, const double c[3], double r, double envelope, int max,
                                TriFeatureContact *out);

/* The pieces of tricontact_sphere that other shapes' mesh contacts (collision/ellipsoid_walls.h) share,
 * so their region tests give the same bits and their features the same order. Not collective; read m only.
 *  - tricontact_visit_near: visit(m, r, ctx) once for each record r whose bounding box comes within
 *    reach of c (the mesh's frame), in grid order; nothing for a NaN c;
 *  - tricontact_across_edge: whether p lies across edge e from every triangle on it, each one's
 *    barycentric coordinate of its vertex across e at most margin (TRICONTACT_EPS: the edge's
 *    region of the sphere's rule; -TRICONTACT_EPS: strictly across);
 *  - tricontact_in_share: whether a point whose projection has barycentric coordinates b in record
 *    r's triangle lies in its share of a flat mesh: inside by TRICONTACT_EPS, or on an edge or at a
 *    vertex that it owns (trimesh.h), so each point of a flat mesh is in one triangle's share;
 *  - tricontact_keep: f into out[0 .. *n) if it is among the max deepest (ties: the lower feature),
 *    out kept deepest first;
 *  - tricontact_feature_order: out[0 .. n) into feature order (faces, edges, vertices, each by index). */
void tricontact_visit_near(const TriMesh *m, const double c[3], double reach,
                           void (*visit)(const TriMesh *, const TriRecord *, void *), void *ctx);
int  tricontact_across_edge(const TriMesh *m, PetscInt e, const double p[3], double margin);
int  tricontact_in_share(const TriRecord *r, const double b[3]);
void tricontact_keep(const TriMesh *m, const TriFeatureContact *f, int max, TriFeatureContact *out, int *n);
void tricontact_feature_order(const TriMesh *m, int n, TriFeatureContact *out);

/* As tricontact_sphere, for mesh m placed at position x with orientation q (w, x, y, z; mesh frame
 * to world) and a sphere in world coordinates: world points and normals, at most
 * NARROW_VERTEX_POINTS, the deepest. Returns how many. */
int narrow_mesh_sphere(const TriMesh *m, const double x[3], const double q[4], const double c[3], double r,
                       double envelope, ContactPoint *out);

/* Mesh m placed at x with orientation q (as narrow_mesh_sphere) against a box (centre bc,
 * orientation bq, half extents he; world): the points below the envelope, normal from the mesh to
 * the box, at most NARROW_MAX_POINTS (the deepest; ties: the lower feature), in sub order, with
 * sub[] (ascending) each point's key sub. Two kinds of point, each feature once:
 *  - a box vertex v against the face of the triangle whose share of the mesh its projection lies
 *    in (inside by TRICONTACT_EPS, or on an edge or at a vertex the triangle owns: on a flat mesh
 *    each point has one), normal the face's towards the box's centre, gap the vertex's height above
 *    the face (negative below it); sub v + 8 k, k its contacts on lower-numbered triangles (0 on a
 *    flat mesh: the key stays as the vertex slides from triangle to triangle);
 *  - a mesh vertex that pokes out towards the box (no edge at it runs towards the box's face, one
 *    runs away: a vertex of a flat part does not) and lies in the region of one box face (not
 *    beyond an edge or corner, where the box's vertices take the contact), taken by the triangle
 *    that owns it: the box's closest point, as narrow_box_sphere; sub 8 NARROW_MAX_POINTS + its
 *    index in the whole mesh (trimesh_vert_gid: a rank's subset keys a vertex as the whole mesh does).
 * A box edge across a mesh edge, neither's vertex touching, is not detected. Not collective. */
int narrow_mesh_box(const TriMesh *m, const double x[3], const double q[4], const double bc[3], const double bq[4],
                    const double he[3], double envelope, ContactPoint out[NARROW_MAX_POINTS],
                    int32_t sub[NARROW_MAX_POINTS]);
#endif
