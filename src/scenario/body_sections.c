/* Sections of solids given one by one: walls, bodies, joints (contracts in body_sections.h).
 *
 * Defaults: walls: box velocity 0, orientation [1, 0, 0, 0]; cylinder length unbounded; no motion, a
 *     motion's start 0, end never, rotation axis a cylinder's own, axis point the wall's centre (a mesh's position);
 *   bodies: velocity, angular_velocity 0, orientation [1, 0, 0, 0] (spheres may give one too),
 *     mass and inertia from the material density and the shape; no id;
 *   clumps: templates only (bodies of shape clump name one); mass properties as bodies/clump.h.
 * Box bodies are errors with the penalty model's Hertz law (corners have no radius). */
#include "scenario/body_sections.h"
#include "scenario/shared_values.h"
#include "bodies/wall_motion.h"
#include "base/vec3.h"
#include <math.h>
#include <string.h>

/* walls[i] of type plane: point and normal. */
static int read_plane_wall(YamlReader *r, const yaml_node_t *m, const char *ip, Wall *w)
{
  static const char *const keys[] = {"type", "point", "normal", "material", "motion", NULL};
  char                     np[KEY_PATH_MAX];
  TRY(reader_check_keys(r, m, ip, keys));
  TRY(
    reader_get_vector(r, m, ip, "point", REQUIRED, 3, ANY_NUMBER, "give a point on the plane [x, y, z] (m)", w->point));
  TRY(reader_get_vector(r, m, ip, "normal", REQUIRED, 3, ANY_NUMBER,
                        "give the outward normal [x, y, z] (bodies live on its side)", w->normal));
  if (v3_norm(w->normal) == 0)
    return reader_fail(r, reader_field(r, m, ip, "normal", np), np,
                       "must not be the zero vector; give the outward normal, e.g. [0, 0, 1]");
  v3_scale(w->normal, 1.0 / v3_norm(w->normal), w->normal);
  v3_copy(w->center, w->point);
  return 0;
}

/* walls[i] of type box: centre, half extents, orientation, the older constant velocity. */
static int read_box_wall(YamlReader *r, const yaml_node_t *m, const char *ip, Wall *w)
{
  static const char *const keys[] = {"type",     "center",      "half_extents", "material",
                                     "velocity", "orientation", "motion",       NULL};
  TRY(reader_check_keys(r, m, ip, keys));
  TRY(reader_get_vector(r, m, ip, "center", REQUIRED, 3, ANY_NUMBER, "give the box centre [x, y, z] (m)", w->center));
  TRY(reader_get_vector(r, m, ip, "half_extents", REQUIRED, 3, POSITIVE,
                        "give the box half extents [a, b, c] in m, each > 0", w->half_extents));
  TRY(reader_get_vector(r, m, ip, "velocity", OPTIONAL, 3, ANY_NUMBER, "give the prescribed velocity [x, y, z] in m/s",
                        w->velocity));
  TRY(scenario_get_quaternion(r, m, ip, "orientation", w->quat));
  v3_copy(w->point, w->center);
  return 0;
}

/* walls[i] of type mesh: the STL file (a relative path from the scenario's folder), its scale,
 * position and orientation (mesh frame to world) at t = 0. */
static int read_mesh_wall(YamlReader *r, Scenario *sc, const yaml_node_t *m, const char *ip, Wall *w)
{
  static const char *const keys[] = {"type", "file", "scale", "position", "orientation", "material", "motion", NULL};
  char                     file[SCENARIO_PATH_MAX], kp[KEY_PATH_MAX];
  const char              *slash = strrchr(sc->path, '/');
  const int                keep  = slash ? (int)(slash - sc->path) + 1 : 0; /* the scenario's folder, with its '/' */
  size_t                   n;

  TRY(reader_check_keys(r, m, ip, keys));
  TRY(reader_get_string(r, m, ip, "file", REQUIRED, "give the STL file of the mesh (relative to the scenario's folder)",
                        file, sizeof file));
  if (!file[0])
    return reader_fail(r, reader_field(r, m, ip, "file", kp), kp, "is empty; give the STL file of the mesh");
  n = (file[0] == '/' ? 0 : (size_t)keep) + strlen(file) + 1;
  if (n > SCENARIO_PATH_MAX)
    return reader_fail(r, reader_field(r, m, ip, "file", kp), kp,
                       "the path is longer than %d characters; use a shorter one", SCENARIO_PATH_MAX - 1);
  if (!(w->file = reader_calloc(r, m, ip, n, 1))) return -1;
  snprintf(w->file, n, "%.*s%s", file[0] == '/' ? 0 : keep, sc->path, file);
  w->scale = 1;
  TRY(reader_get_number(r, m, ip, "scale", OPTIONAL, POSITIVE, "give the factor from the file's units to m, > 0",
                        &w->scale));
  TRY(reader_get_vector(r, m, ip, "position", OPTIONAL, 3, ANY_NUMBER,
                        "give where the mesh's origin goes [x, y, z] (m)", w->center));
  TRY(scenario_get_quaternion(r, m, ip, "orientation", w->quat));
  v3_copy(w->point, w->center);
  return 0;
}

/* walls[i] of type cylinder: axis point and direction, radius, optional length, inside. */
static int read_cylinder_wall(YamlReader *r, const yaml_node_t *m, const char *ip, Wall *w)
{
  static const char *const keys[] = {"type", "point", "axis", "radius", "length", "inside", "material", "motion", NULL};
  static const char *const sides[] = {"false", "true", NULL};
  char                     np[KEY_PATH_MAX];
  double                   length = INFINITY;
  TRY(reader_check_keys(r, m, ip, keys));
  TRY(reader_get_vector(r, m, ip, "point", REQUIRED, 3, ANY_NUMBER, "give a point on the cylinder's axis [x, y, z] (m)",
                        w->center));
  TRY(reader_get_vector(r, m, ip, "axis", REQUIRED, 3, ANY_NUMBER, "give the axis direction [x, y, z], e.g. [1, 0, 0]",
                        w->axis));
  if (v3_norm(w->axis) == 0)
    return reader_fail(r, reader_field(r, m, ip, "axis", np), np,
                       "must not be the zero vector; give the axis direction, e.g. [1, 0, 0]");
  v3_scale(w->axis, 1.0 / v3_norm(w->axis), w->axis);
  TRY(reader_get_number(r, m, ip, "radius", REQUIRED, POSITIVE, "give the cylinder's radius in m, > 0", &w->radius));
  TRY(reader_get_number(r, m, ip, "length", OPTIONAL, POSITIVE,
                        "give the length in m, > 0, centred on the axis point, or leave it out for an unbounded tube",
                        &length));
  w->half_length = 0.5 * length;
  TRY(reader_get_choice(r, m, ip, "inside", REQUIRED, sides,
                        "write inside: true (bodies inside, a drum) or inside: false (bodies outside, a pillar)",
                        &w->inside));
  v3_copy(w->point, w->center);
  return 0;
}

/* walls[i].motion (optional): the prescribed motion (bodies/walls.h, WallMotion), checked to keep
 * the wall's reference point (plane: its point; box, cylinder: its centre) inside the domain over
 * [0, time.end]; a mesh's, the middle of its bounding box, is checked where the mesh is loaded
 * (step/wall_meshes.h). */
static int read_wall_motion(YamlReader *r, const yaml_node_t *wm, const char *ip, const Scenario *sc, Wall *w)
{
  static const char *const keys[] = {"velocity", "axis_point", "axis", "angular_velocity", "amplitude", "frequency",
                                     "start",    "end",        NULL};
  const char *hint = "write motion: {velocity: [x, y, z], axis_point: [x, y, z], axis: [x, y, z], angular_velocity: W, "
                     "amplitude: [x, y, z], frequency: F, start: T0, end: T1} (each optional)";
  WallMotion *mo   = &w->motion;
  yaml_node_t *m;
  char         mp[KEY_PATH_MAX], np[KEY_PATH_MAX];
  double       lo[3], hi[3], t, x[3];

  TRY(reader_get_mapping(r, wm, ip, "motion", OPTIONAL, keys, hint, &m, mp));
  if (!m) return 0;
  if (w->type == WALL_BOX && v3_norm(w->velocity) != 0)
    return reader_fail(r, reader_field(r, wm, ip, "velocity", np), np,
                       "a box with a motion takes its velocity from the motion; move it to motion.velocity");
  mo->moving = 1;
  mo->end    = INFINITY;
  v3_copy(mo->axis_point, w->center);
  if (w->type == WALL_CYLINDER) v3_copy(mo->axis, w->axis);
  TRY(reader_get_vector(r, m, mp, "velocity", OPTIONAL, 3, ANY_NUMBER, "give the linear velocity [x, y, z] in m/s",
                        mo->velocity));
  TRY(reader_get_number(r, m, mp, "angular_velocity", OPTIONAL, ANY_NUMBER,
                        "give the angular speed about the axis in rad/s (right-handed)", &mo->omega));
  TRY(reader_get_vector(r, m, mp, "axis_point", OPTIONAL, 3, ANY_NUMBER,
                        "give a point on the rotation axis [x, y, z] (m; default: the wall's centre or point)",
                        mo->axis_point));
  TRY(reader_get_vector(r, m, mp, "axis", mo->omega != 0 && w->type != WALL_CYLINDER ? REQUIRED : OPTIONAL, 3,
                        ANY_NUMBER, "give the rotation axis direction [x, y, z] (a cylinder's default: its own axis)",
                        mo->axis));
  if (v3_norm(mo->axis) == 0 && (mo->omega != 0 || reader_field(r, m, mp, "axis", np)))
    return reader_fail(r, reader_field(r, m, mp, "axis", np), np,
                       "must not be the zero vector; give the rotation axis direction, e.g. [1, 0, 0]");
  if (v3_norm(mo->axis) > 0) v3_scale(mo->axis, 1.0 / v3_norm(mo->axis), mo->axis);
  TRY(reader_get_vector(r, m, mp, "amplitude", OPTIONAL, 3, ANY_NUMBER,
                        "give the oscillation's displacement amplitude [x, y, z] in m", mo->amplitude));
  TRY(reader_get_number(r, m, mp, "frequency", v3_norm(mo->amplitude) > 0 ? REQUIRED : OPTIONAL, NON_NEGATIVE,
                        "give the oscillation's frequency in Hz, >= 0, with its amplitude", &mo->frequency));
  TRY(reader_get_number(r, m, mp, "start", OPTIONAL, NON_NEGATIVE, "give the time the motion starts in s, >= 0",
                        &mo->start));
  TRY(reader_get_number(r, m, mp, "end", OPTIONAL, NON_NEGATIVE,
                        "give the time the motion stops in s, after start (leave it out: it never stops)", &mo->end));
  if (!(mo->end > mo->start))
    return reader_fail(r, reader_field(r, m, mp, "end", np), np,
                       "the motion ends at %g s, not after it starts (%g s); give an end later than start, or leave it "
                       "out",
                       mo->end, mo->start);
  /* the reference point over [0, time.end], sampled finely enough to see each oscillation's peaks */
  for (int a = 0; a < 3; a++) {
    lo[a] = sc->domain_min[a];
    hi[a] = sc->domain_max[a];
  }
  mo->reach = 0;
  for (int c = 0; c < 8; c++) {
    const double corner[3] = {c & 1 ? hi[0] : lo[0], c & 2 ? hi[1] : lo[1], c & 4 ? hi[2] : lo[2]};
    double d[3];
    v3_sub(d, corner, mo->axis_point);
    mo->reach = fmax(mo->reach, v3_norm(d));
  }
  if (w->type != WALL_MESH && !wall_motion_stays_inside(mo, w->center, sc->time_end, lo, hi, &t, x))
    return reader_fail(r, m, mp,
                       "carries the wall's %s out of the domain: at t = %g s it is at [%g, %g, %g]; change the motion "
                       "(velocity, end, amplitude) or widen the domain",
                       w->type == WALL_PLANE ? "point" : "centre", t, x[0], x[1], x[2]);
  return 0;
}

int scenario_read_walls(YamlReader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const types[] = {"plane", "box", "cylinder", "mesh", NULL}; /* in WallType's order */
  const char              *hint = "write walls: [{type: plane, point: [x, y, z], normal: [x, y, z], material: NAME}]";
  char                     kp[KEY_PATH_MAX], ip[KEY_PATH_MAX];
  yaml_node_t             *list, *m;
  int                      n;
  TRY(reader_get_list(r, root, "", "walls", OPTIONAL, hint, &list, kp));
  if (!list) return 0;
  n = reader_count(list);
  if (!(sc->walls = reader_calloc(r, list, kp, (size_t)n + 1, sizeof(Wall)))) return -1;
  if (!(sc->wall_lines = reader_calloc(r, list, kp, (size_t)n + 1, sizeof(int)))) return -1;
  for (int i = 0; i < n; i++) {
    Wall *w    = &sc->walls[i];
    int   type = -1;
    TRY(reader_get_entry(r, list, kp, i,
                         "write {type: plane, ...}, {type: box, ...}, {type: cylinder, ...} or {type: mesh, ...}", &m,
                         ip));
    sc->n_walls = i + 1; /* counted from here on, so that scenario_free frees what it holds */
    TRY(reader_get_choice(r, m, ip, "type", REQUIRED, types, "give the wall type plane, box, cylinder or mesh", &type));
    w->type    = (WallType)type;
    w->quat[0] = 1;
    switch (w->type) {
    case WALL_PLANE:
      TRY(read_plane_wall(r, m, ip, w));
      break;
    case WALL_BOX:
      TRY(read_box_wall(r, m, ip, w));
      break;
    case WALL_CYLINDER:
      TRY(read_cylinder_wall(r, m, ip, w));
      break;
    case WALL_MESH:
      TRY(read_mesh_wall(r, sc, m, ip, w));
      break;
    }
    TRY(scenario_get_material(r, sc, m, ip, &w->material));
    TRY(read_wall_motion(r, m, ip, sc, w));
    sc->wall_lines[i] = reader_line(m);
  }
  return 0;
}

/* bodies[i].id: a name for joints, unique, not "ground" (the name of the fixed world). */
static int read_body_label(YamlReader *r, Scenario *sc, const yaml_node_t *m, const char *ip, int i)
{
  char      kpath[KEY_PATH_MAX];
  BodySpec *b = &sc->bodies[i];
  TRY(reader_get_string(r, m, ip, "id", OPTIONAL, "give the body a name that joints refer to, e.g. id: arm", b->label,
                        sizeof b->label));
  if (!b->label[0]) return 0;
  if (!strcmp(b->label, "ground"))
    return reader_fail(r, reader_field(r, m, ip, "id", kpath), kpath,
                       "'ground' names the fixed world; give the body another id");
  for (int j = 0; j < i; j++)
    if (!strcmp(sc->bodies[j].label, b->label))
      return reader_fail(r, reader_field(r, m, ip, "id", kpath), kpath,
                         "duplicate id '%s' (bodies[%d] has it too); give each body its own id", b->label, j);
  return 0;
}

/* clumps[i].members: at least one, at most CLUMP_MAX_MEMBERS, each {offset, radius > 0}, their union connected. */
static int read_clump_members(YamlReader *r, const yaml_node_t *m, const char *ip, Clump *t)
{
  static const char *const keys[] = {"offset", "radius", NULL};
  const char  *hint = "write members: [{offset: [x, y, z], radius: R}, ...] (offsets from the clump's origin, m)";
  char         lp[KEY_PATH_MAX], mp[KEY_PATH_MAX];
  yaml_node_t *list, *e;
  int          n, far;

  TRY(reader_get_list(r, m, ip, "members", REQUIRED, hint, &list, lp));
  n = reader_count(list);
  if (n < 1) return reader_fail(r, list, lp, "is empty; a clump needs at least one member: %s", hint);
  if (n > CLUMP_MAX_MEMBERS)
    return reader_fail(r, list, lp, "has %d members; a clump may have at most %d: use fewer, larger members", n,
                       CLUMP_MAX_MEMBERS);
  if (!(t->offset = reader_calloc(r, list, lp, 3 * (size_t)n, sizeof(double)))) return -1;
  if (!(t->radius = reader_calloc(r, list, lp, (size_t)n, sizeof(double)))) return -1;
  for (int j = 0; j < n; j++) {
    TRY(reader_get_entry(r, list, lp, j, hint, &e, mp));
    TRY(reader_check_keys(r, e, mp, keys));
    TRY(reader_get_vector(r, e, mp, "offset", REQUIRED, 3, ANY_NUMBER,
                          "give the member's centre [x, y, z] relative to the clump's origin (m)", t->offset + 3 * j));
    TRY(reader_get_number(r, e, mp, "radius", REQUIRED, POSITIVE, "give the member sphere's radius in m, > 0",
                          &t->radius[j]));
    t->n = j + 1;
  }
  far = clump_disconnected_member(n, t->offset, t->radius);
  if (far >= 0) {
    TRY(reader_get_entry(r, list, lp, far, hint, &e, mp));
    return reader_fail(r, e, mp,
                       "the member at [%g, %g, %g] with radius %g does not overlap or touch the members joined to "
                       "members[0], so the clump falls apart; move it to overlap another member",
                       t->offset[3 * far], t->offset[3 * far + 1], t->offset[3 * far + 2], t->radius[far]);
  }
  return 0;
}

int scenario_read_clumps(YamlReader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const keys[] = {"name", "members", NULL};
  const char              *hint   = "write clumps: [{name: NAME, members: [{offset: [x, y, z], radius: R}, ...]}]";
  char                     kp[KEY_PATH_MAX], ip[KEY_PATH_MAX], np[KEY_PATH_MAX];
  yaml_node_t             *list, *m;
  int                      n;

  TRY(reader_get_list(r, root, "", "clumps", OPTIONAL, hint, &list, kp));
  if (!list) return 0;
  n = reader_count(list);
  if (!(sc->clumps = reader_calloc(r, list, kp, (size_t)n + 1, sizeof(Clump)))) return -1;
  for (int i = 0; i < n; i++) {
    Clump *t = &sc->clumps[i];
    TRY(reader_get_entry(r, list, kp, i, hint, &m, ip));
    TRY(reader_check_keys(r, m, ip, keys));
    sc->n_clumps = i + 1; /* from here on scenario_free frees its members */
    TRY(reader_get_string(r, m, ip, "name", REQUIRED, "give the clump a name that bodies refer to", t->name,
                          sizeof t->name));
    if (!t->name[0]) return reader_fail(r, reader_field(r, m, ip, "name", np), np, "is empty; give the clump a name");
    for (int j = 0; j < i; j++)
      if (!strcmp(sc->clumps[j].name, t->name))
        return reader_fail(r, reader_field(r, m, ip, "name", np), np,
                           "duplicate clump name '%s' (clumps[%d] has it too); give each clump its own name", t->name,
                           j);
    TRY(read_clump_members(r, m, ip, t));
    t->line = reader_line(m);
    clump_template_setup(t);
  }
  return 0;
}

/* bodies[i] of shape clump: its template by name, the index in size[0], the common member radius
 * in size[1] (bodies/clump.h). The penalty model takes one curvature per body, so there the
 * members must share one radius. */
static int read_clump_body(YamlReader *r, Scenario *sc, const yaml_node_t *m, const char *ip, BodySpec *b)
{
  char name[64] = "", kp[KEY_PATH_MAX];
  int  k;
  TRY(reader_get_string(r, m, ip, "clump", REQUIRED, "name the body's template from the clumps section", name,
                        sizeof name));
  for (k = 0; k < sc->n_clumps && strcmp(sc->clumps[k].name, name); k++) continue;
  if (k == sc->n_clumps)
    return reader_fail(r, reader_field(r, m, ip, "clump", kp), kp,
                       "no clump is named '%s'; add clumps: [{name: %s, members: [...]}] or fix the name", name, name);
  if (sc->contact_model == CONTACT_MODEL_PENALTY && sc->clumps[k].member_radius == 0)
    return reader_fail(r, reader_field(r, m, ip, "clump", kp), kp,
                       "the penalty model takes one curvature per body, and clump '%s' (line %d) has members of "
                       "different radii; give its members one radius, or use contact.model: ccp",
                       name, sc->clumps[k].line);
  b->size[0] = k;
  b->size[1] = sc->clumps[k].member_radius;
  return 0;
}

/* bodies[i] of shape ellipsoid: its semi-axes, and no box walls (collision/ellipsoid_walls.h). */
static int read_ellipsoid_body(YamlReader *r, const Scenario *sc, const yaml_node_t *m, const char *ip, BodySpec *b)
{
  TRY(reader_get_vector(r, m, ip, "semi_axes", REQUIRED, 3, POSITIVE,
                        "give the semi-axes [a, b, c] along the body axes in m, each > 0", b->size));
  return scenario_check_ellipsoid_walls(r, sc, m, ip, "an ellipsoid touches");
}

/* The partners an ellipsoid's contacts are built for: spheres, clumps and ellipsoids (bodies, fills and
 * emitters), not boxes. list: the bodies (at path kp), all read. */
static int check_ellipsoid_partners(YamlReader *r, const Scenario *sc, yaml_node_t *list, const char *kp)
{
  char         ip[KEY_PATH_MAX];
  yaml_node_t *m;
  int          e = -1;
  for (int i = 0; i < sc->n_bodies && e < 0; i++)
    if (sc->bodies[i].shape == SHAPE_ELLIPSOID) e = i;
  if (e < 0) return 0;
  for (int j = 0; j < sc->n_bodies; j++)
    if (sc->bodies[j].shape == SHAPE_BOX) {
      TRY(reader_get_entry(r, list, kp, j, "write {shape: ..., ...}", &m, ip));
      return reader_fail(r, m, ip,
                         "is a box, and an ellipsoid (bodies[%d], line %d) does not touch boxes; make it a sphere, "
                         "clump or ellipsoid, or remove the ellipsoid",
                         e, sc->bodies[e].line);
    }
  return 0;
}

int scenario_read_bodies(YamlReader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const shapes[]      = {"sphere", "box", "clump", "ellipsoid", NULL}; /* in ShapeKind's order */
  static const char *const sphere_keys[] = {"shape",       "radius",   "position", "velocity", "angular_velocity",
                                            "orientation", "material", "mass",     "inertia",  "id",
                                            NULL};
  static const char *const box_keys[]    = {"shape",       "half_extents", "position", "velocity", "angular_velocity",
                                            "orientation", "material",     "mass",     "inertia",  "id",
                                            NULL};
  static const char *const clump_keys[]  = {"shape",       "clump",    "position", "velocity", "angular_velocity",
                                            "orientation", "material", "mass",     "inertia",  "id",
                                            NULL};
  static const char *const ellipsoid_keys[] = {"shape",       "semi_axes", "position", "velocity", "angular_velocity",
                                               "orientation", "material",  "mass",     "inertia",  "id",
                                               NULL};
  const char              *hint = "write bodies: [{shape: sphere, radius: R, position: [x, y, z], material: NAME}]";
  char                     kp[KEY_PATH_MAX], ip[KEY_PATH_MAX];
  yaml_node_t             *list, *m;
  int                      n;
  TRY(reader_get_list(r, root, "", "bodies", OPTIONAL, hint, &list, kp));
  if (!list) return 0;
  n = reader_count(list);
  if (!(sc->bodies = reader_calloc(r, list, kp, (size_t)n + 1, sizeof(BodySpec)))) return -1;
  for (int i = 0; i < n; i++) {
    BodySpec *b     = &sc->bodies[i];
    int       shape = -1;
    TRY(
      reader_get_entry(r, list, kp, i,
                       "write {shape: sphere, ...}, {shape: box, ...}, {shape: clump, ...} or {shape: ellipsoid, ...}",
                       &m, ip));
    TRY(reader_get_choice(r, m, ip, "shape", REQUIRED, shapes, "give the body shape sphere, box, clump or ellipsoid",
                          &shape));
    b->shape          = (ShapeKind)shape;
    b->orientation[0] = 1;
    if (b->shape == SHAPE_SPHERE) {
      TRY(reader_check_keys(r, m, ip, sphere_keys));
      TRY(reader_get_number(r, m, ip, "radius", REQUIRED, POSITIVE, "give the sphere radius in m", &b->size[0]));
      b->size[1] = b->size[2] = b->size[0];
    } else if (b->shape == SHAPE_CLUMP) {
      TRY(reader_check_keys(r, m, ip, clump_keys));
      TRY(read_clump_body(r, sc, m, ip, b));
    } else if (b->shape == SHAPE_ELLIPSOID) {
      TRY(reader_check_keys(r, m, ip, ellipsoid_keys));
      TRY(read_ellipsoid_body(r, sc, m, ip, b));
    } else {
      TRY(reader_check_keys(r, m, ip, box_keys));
      TRY(reader_get_vector(r, m, ip, "half_extents", REQUIRED, 3, POSITIVE,
                            "give the box half extents [a, b, c] in m, each > 0", b->size));
      if (sc->contact_model == CONTACT_MODEL_PENALTY && sc->penalty.normal == PENALTY_NORMAL_HERTZ)
        return reader_fail(r, m, ip,
                           "a box touches with its corners, which have no Hertz radius; "
                           "set contact.normal: hooke with normal_stiffness for boxes");
    }
    TRY(reader_get_vector(r, m, ip, "position", REQUIRED, 3, ANY_NUMBER,
                          b->shape == SHAPE_CLUMP ? "give where the clump's origin goes [x, y, z] in m"
                                                  : "give the centre position [x, y, z] in m",
                          b->position));
    TRY(reader_get_vector(r, m, ip, "velocity", OPTIONAL, 3, ANY_NUMBER, "give the velocity [x, y, z] in m/s",
                          b->velocity));
    TRY(reader_get_vector(r, m, ip, "angular_velocity", OPTIONAL, 3, ANY_NUMBER,
                          "give the angular velocity [x, y, z] in rad/s, world frame", b->angular_velocity));
    TRY(scenario_get_quaternion(r, m, ip, "orientation", b->orientation));
    TRY(scenario_get_material(r, sc, m, ip, &b->material));
    TRY(reader_get_number(r, m, ip, "mass", OPTIONAL, POSITIVE,
                          "give the mass in kg, or leave it out to use the material density", &b->mass));
    TRY(reader_get_vector(r, m, ip, "inertia", OPTIONAL, 3, POSITIVE,
                          "give the principal moments [Ixx, Iyy, Izz] in kg m^2, or leave them out", b->inertia));
    TRY(read_body_label(r, sc, m, ip, i));
    b->line      = reader_line(m);
    sc->n_bodies = i + 1;
  }
  return check_ellipsoid_partners(r, sc, list, kp);
}

/* The body a joint names under key (by its `id`); "ground" (or an absent optional key) is JOINT_GROUND. */
static int get_joint_body(YamlReader *r, const Scenario *sc, const yaml_node_t *m, const char *ip, const char *key,
                          Need need, int ground_ok, int *out)
{
  char kpath[KEY_PATH_MAX], name[64] = "";
  *out = JOINT_GROUND;
  TRY(reader_get_string(r, m, ip, key, need,
                        ground_ok ? "name a body by its id (bodies: [{id: NAME, ...}]) or ground"
                                  : "name a body by its id (bodies: [{id: NAME, ...}])",
                        name, sizeof name));
  if (!name[0] || (ground_ok && !strcmp(name, "ground"))) return 0;
  for (int i = 0; i < sc->n_bodies; i++)
    if (!strcmp(sc->bodies[i].label, name)) {
      *out = i;
      return 0;
    }
  return reader_fail(r, reader_field(r, m, ip, key, kpath), kpath,
                     "no body has id '%s'; give a body 'id: %s' under 'bodies'%s", name, name,
                     ground_ok ? ", or use ground" : "");
}

/* A unit vector under key (required, not zero). */
static int get_axis(YamlReader *r, const yaml_node_t *m, const char *ip, const char *key, double a[3])
{
  char kpath[KEY_PATH_MAX];
  TRY(reader_get_vector(r, m, ip, key, REQUIRED, 3, ANY_NUMBER, "give the axis direction [x, y, z] (world, at time 0)",
                        a));
  if (v3_norm(a) == 0)
    return reader_fail(r, reader_field(r, m, ip, key, kpath), kpath,
                       "must not be the zero vector; give a direction, e.g. [0, 1, 0]");
  v3_scale(a, 1.0 / v3_norm(a), a);
  return 0;
}

/* joints: (after bodies, which they name by id; see src/scenario/joint_spec.h and docs/design.md "Joints") */
int scenario_read_joints(YamlReader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const types[]   = {"fixed", "spherical", "revolute", "prismatic", "distance", "motion", NULL};
  static const char *const keys[][8] = {{"type", "body_a", "body_b", "point", NULL},
                                        {"type", "body_a", "body_b", "point", NULL},
                                        {"type", "body_a", "body_b", "point", "axis", NULL},
                                        {"type", "body_a", "body_b", "point", "axis", "friction", NULL},
                                        {"type", "body_a", "body_b", "point_a", "point_b", NULL},
                                        {"type", "body", "velocity", "amplitude", "frequency", "angular_velocity",
                                         "until", NULL}};
  const char  *hint = "write joints: [{type: revolute, body_a: ground, body_b: ID, point: [x, y, z], axis: [x, y, z]}]";
  const char  *ph   = "give the anchor point [x, y, z] (world, at time 0)";
  char         kp[KEY_PATH_MAX], ip[KEY_PATH_MAX], np[KEY_PATH_MAX];
  yaml_node_t *list = reader_field(r, root, "", "joints", kp), *m;
  if (!list) return 0;
  if (sc->contact_model == CONTACT_MODEL_PENALTY)
    return reader_fail(r, list, kp,
                       "joints are rows of the CCP and do not run with contact.model penalty; "
                       "use contact.model ccp, or remove the joints");
  TRY(reader_expect_list(r, list, kp, hint));
  if (!(sc->joints = reader_calloc(r, list, kp, (size_t)reader_count(list) + 1, sizeof(JointSpec)))) return -1;
  for (int i = 0; i < reader_count(list); i++) {
    JointSpec *j    = &sc->joints[i];
    int        type = -1;
    TRY(reader_get_entry(r, list, kp, i, hint, &m, ip));
    TRY(reader_get_choice(r, m, ip, "type", REQUIRED, types, "give the joint type", &type));
    TRY(reader_check_keys(r, m, ip, keys[type]));
    j->type = (JointType)type;
    if (j->type == JOINT_MOTION) {
      j->body_a = JOINT_GROUND;
      TRY(get_joint_body(r, sc, m, ip, "body", REQUIRED, 0, &j->body_b));
      TRY(reader_get_vector(r, m, ip, "velocity", OPTIONAL, 3, ANY_NUMBER, "give the mean velocity [x, y, z] in m/s",
                            j->velocity));
      TRY(reader_get_vector(r, m, ip, "amplitude", OPTIONAL, 3, ANY_NUMBER,
                            "give the velocity amplitude [x, y, z] in m/s "
                            "of v(t) = velocity + amplitude sin(2 pi frequency t)",
                            j->amplitude));
      TRY(reader_get_number(r, m, ip, "frequency", OPTIONAL, NON_NEGATIVE,
                            "give the frequency in Hz (0: constant velocity)", &j->frequency));
      if (j->frequency == 0 && v3_norm(j->amplitude) > 0)
        return reader_fail(r, reader_field(r, m, ip, "amplitude", np), np,
                           "needs a frequency > 0; give frequency: F (Hz) or drop the amplitude");
      TRY(reader_get_number(r, m, ip, "until", OPTIONAL, POSITIVE,
                            "give the time in s at which the prescribed motion ends and the body is released "
                            "(leave it out: never)",
                            &j->until));
      j->angular = reader_field(r, m, ip, "angular_velocity", np) != NULL;
      TRY(reader_get_vector(r, m, ip, "angular_velocity", OPTIONAL, 3, ANY_NUMBER,
                            "give the prescribed angular velocity [x, y, z] in rad/s (world), "
                            "or leave it out to let the body rotate freely",
                            j->angular_velocity));
    } else {
      TRY(get_joint_body(r, sc, m, ip, "body_a", OPTIONAL, 1, &j->body_a));
      TRY(get_joint_body(r, sc, m, ip, "body_b", REQUIRED, 0, &j->body_b));
      if (j->body_a == j->body_b)
        return reader_fail(r, reader_field(r, m, ip, "body_b", np), np,
                           "joins body '%s' to itself; name two different bodies", sc->bodies[j->body_b].label);
      if (j->type == JOINT_DISTANCE) {
        TRY(reader_get_vector(r, m, ip, "point_a", REQUIRED, 3, ANY_NUMBER, ph, j->point));
        TRY(reader_get_vector(r, m, ip, "point_b", REQUIRED, 3, ANY_NUMBER, ph, j->point_b));
        double d[3];
        v3_sub(d, j->point_b, j->point);
        if (!(v3_norm(d) > 0))
          return reader_fail(r, reader_field(r, m, ip, "point_b", np), np,
                             "coincides with point_a; a distance joint needs two distinct anchors "
                             "(use spherical for a zero distance)");
      } else if (j->type == JOINT_FIXED) {
        v3_copy(j->point, sc->bodies[j->body_b].position);
        TRY(reader_get_vector(r, m, ip, "point", OPTIONAL, 3, ANY_NUMBER, ph, j->point));
      } else TRY(reader_get_vector(r, m, ip, "point", REQUIRED, 3, ANY_NUMBER, ph, j->point));
      if (j->type == JOINT_REVOLUTE || j->type == JOINT_PRISMATIC) TRY(get_axis(r, m, ip, "axis", j->axis));
      if (j->type == JOINT_PRISMATIC)
        TRY(reader_get_number(r, m, ip, "friction", OPTIONAL, NON_NEGATIVE,
                              "give the friction force S in N on the sliding direction (0 = none)", &j->friction));
    }
    j->line      = reader_line(m);
    sc->n_joints = i + 1;
  }
  return 0;
}
