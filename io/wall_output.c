/* The wall kinds' output table (io/wall_output.h). */
#include "io/wall_output.h"
#include "collision/trimesh.h"
#include "base/vec3.h"
#include <math.h>

/* A plane as the smallest rectangle in its own frame (v3_tangents: axis-aligned for an axis
 * normal, so a floor fills exactly the domain's cross-section) that holds its section with the
 * domain box: the points where the box's 12 edges cross it. A plane that misses the box has none. */
static PetscInt PlaneCells(const Wall *w, const double lo[3], const double hi[3], double *xyz)
{
  double   u[3], v[3], range[2][2] = {{PETSC_MAX_REAL, -PETSC_MAX_REAL}, {PETSC_MAX_REAL, -PETSC_MAX_REAL}};
  PetscInt found = 0;

  v3_tangents(w->normal, u, v);
  for (int axis = 0; axis < 3; axis++) /* the 4 edges along axis */
    for (int corner = 0; corner < 4; corner++) {
      double c0[3], c1[3], d0, d1, t, p[3], r[3];
      for (int k = 0, bit = 0; k < 3; k++) {
        if (k == axis) {
          c0[k] = lo[k];
          c1[k] = hi[k];
        } else c0[k] = c1[k] = (corner >> bit++) & 1 ? hi[k] : lo[k];
      }
      v3_sub(r, c0, w->point);
      d0 = v3_dot(r, w->normal);
      v3_sub(r, c1, w->point);
      d1 = v3_dot(r, w->normal);
      if (d0 * d1 > 0 || d0 == d1) continue; /* no crossing, or an edge in the plane (its ends lie on crossing edges) */
      t = d0 / (d0 - d1);
      for (int k = 0; k < 3; k++) p[k] = c0[k] + t * (c1[k] - c0[k]);
      v3_sub(r, p, w->point);
      range[0][0] = PetscMin(range[0][0], v3_dot(r, u));
      range[0][1] = PetscMax(range[0][1], v3_dot(r, u));
      range[1][0] = PetscMin(range[1][0], v3_dot(r, v));
      range[1][1] = PetscMax(range[1][1], v3_dot(r, v));
      found++;
    }
  if (found < 3) return 0;
  if (xyz) {
    static const int corners[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}}; /* counter-clockwise seen from +normal */
    for (int k = 0; k < 4; k++)
      for (int c = 0; c < 3; c++)
        xyz[3 * k + c] = w->point[c] + range[0][corners[k][0]] * u[c] + range[1][corners[k][1]] * v[c];
  }
  return 1;
}

/* A box as one hexahedron at its pose: the bottom face (-z in its frame) then the top, each
 * counter-clockwise seen from +z (the VTK/XDMF order). */
static PetscInt BoxCells(const Wall *w, const double lo[3], const double hi[3], double *xyz)
{
  static const double sign[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                    {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
  (void)lo;
  (void)hi;
  if (xyz)
    for (int k = 0; k < 8; k++) {
      double local[3], world[3];
      for (int c = 0; c < 3; c++) local[c] = sign[k][c] * w->half_extents[c];
      quat_rotate(world, w->quat, local);
      v3_add(xyz + 3 * k, w->center, world);
    }
  return 1;
}

/* Facets a cylinder is drawn with around its axis: 64 keeps a drum round at any zoom a user
 * inspects its bed at (the chord's sag is 0.12% of the radius). */
#define CYLINDER_FACETS 64

/* A cylinder as CYLINDER_FACETS quads around its axis at its pose: its length, or where unbounded
 * the stretch of its axis between the domain box's corners projected onto it. */
static PetscInt CylinderCells(const Wall *w, const double lo[3], const double hi[3], double *xyz)
{
  double u[3], v[3], t0 = -w->half_length, t1 = w->half_length;

  if (!isfinite(w->half_length)) {
    t0 = PETSC_MAX_REAL;
    t1 = -PETSC_MAX_REAL;
    for (int corner = 0; corner < 8; corner++) {
      double c[3], r[3];
      for (int k = 0; k < 3; k++) c[k] = (corner >> k) & 1 ? hi[k] : lo[k];
      v3_sub(r, c, w->center);
      t0 = PetscMin(t0, v3_dot(r, w->axis));
      t1 = PetscMax(t1, v3_dot(r, w->axis));
    }
  }
  if (xyz) {
    v3_tangents(w->axis, u, v);
    for (int f = 0; f < CYLINDER_FACETS; f++)
      for (int k = 0; k < 4; k++) { /* (angle f, t0), (f + 1, t0), (f + 1, t1), (f, t1) */
        const double a = 2 * M_PI * (f + (k == 1 || k == 2)) / CYLINDER_FACETS, t = k < 2 ? t0 : t1;
        for (int c = 0; c < 3; c++)
          xyz[12 * f + 3 * k + c] = w->center[c] + t * w->axis[c] + w->radius * (cos(a) * u[c] + sin(a) * v[c]);
      }
  }
  return CYLINDER_FACETS;
}

/* A mesh as its triangles at the wall's pose (world = R(quat) vertex + center). */
static PetscInt MeshCells(const Wall *w, const double lo[3], const double hi[3], double *xyz)
{
  const TriMesh *m = w->mesh;
  (void)lo;
  (void)hi;
  if (!m) return 0;
  if (xyz)
    for (PetscInt t = 0; t < m->nt; t++)
      for (int k = 0; k < 3; k++) {
        double world[3];
        quat_rotate(world, w->quat, m->v + 3 * (size_t)m->tri[3 * t + k]);
        v3_add(xyz + 9 * (size_t)t + 3 * k, w->center, world);
      }
  return m->nt;
}

static void PlaneTorquePoint(const Wall *w, double p[3]) { v3_copy(p, w->point); }
/* A box's or cylinder's: its reference point (a cylinder's lies on its axis, so the torque's
 * axial component is the drive torque of a drum turning about it). */
static void CenterTorquePoint(const Wall *w, double p[3]) { v3_copy(p, w->center); }

/* A mesh's: its position, or while it turns its rotation axis point (the torque's component along the
 * axis is then its drive torque, wherever the mesh's origin lies). */
static void MeshTorquePoint(const Wall *w, double p[3])
{
  v3_copy(p, w->motion.moving && w->motion.omega != 0 ? w->pivot : w->center);
}

static const WallOutputKind kinds[] = {
  {WALL_PLANE, "plane", "Quadrilateral", 4, PlaneCells, PlaneTorquePoint},
  {WALL_BOX, "box", "Hexahedron", 8, BoxCells, CenterTorquePoint},
  {WALL_CYLINDER, "cylinder", "Quadrilateral", 4, CylinderCells, CenterTorquePoint},
  {WALL_MESH, "mesh", "Triangle", 3, MeshCells, MeshTorquePoint},
};

const WallOutputKind *WallOutputKindOf(WallType t)
{
  for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
    if (kinds[k].type == t) return &kinds[k];
  return NULL;
}

const WallOutputKind *WallOutputKinds(int *n)
{
  *n = (int)(sizeof(kinds) / sizeof(kinds[0]));
  return kinds;
}
