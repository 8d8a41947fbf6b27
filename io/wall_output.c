/* The wall kinds' output table (io/wall_output.h). */
#include "io/wall_output.h"
#include "base/vec3.h"

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

static void PlaneTorquePoint(const Wall *w, double p[3]) { v3_copy(p, w->point); }
static void BoxTorquePoint(const Wall *w, double p[3]) { v3_copy(p, w->center); }

static const WallOutputKind kinds[] = {
  {WALL_PLANE, "plane", "Quadrilateral", 4, PlaneCells, PlaneTorquePoint},
  {WALL_BOX, "box", "Hexahedron", 8, BoxCells, BoxTorquePoint},
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
