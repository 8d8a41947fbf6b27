/* Values that several sections of a scenario read alike (contracts in shared_values.h). */
#include "scenario/shared_values.h"
#include "base/vec3.h"
#include <stdio.h>

int scenario_get_box(YamlReader *r, const yaml_node_t *m, const char *path, const char *what, double lo[3],
                     double hi[3])
{
  char kpath[KEY_PATH_MAX], hint[160];
  snprintf(hint, sizeof hint, "give the %s corner [x, y, z] (m)", what);
  TRY(reader_get_vector(r, m, path, "min", REQUIRED, 3, ANY_NUMBER, hint, lo));
  TRY(reader_get_vector(r, m, path, "max", REQUIRED, 3, ANY_NUMBER, hint, hi));
  for (int a = 0; a < 3; a++)
    if (!(hi[a] > lo[a])) {
      const yaml_node_t *v = reader_field(r, m, path, "max", kpath);
      return reader_fail(r, v, kpath, "max[%d] = %g must be > min[%d] = %g; give max > min on every axis", a, hi[a], a,
                         lo[a]);
    }
  return 0;
}

int scenario_get_quaternion(YamlReader *r, const yaml_node_t *m, const char *path, const char *key, double q[4])
{
  char        kpath[KEY_PATH_MAX];
  const char *hint = "give the orientation as a unit quaternion [w, x, y, z] (body to world), e.g. [1, 0, 0, 0]";
  double      v[4] = {q[0], q[1], q[2], q[3]};
  TRY(reader_get_vector(r, m, path, key, OPTIONAL, 4, ANY_NUMBER, hint, v));
  if (v[0] == 0 && v[1] == 0 && v[2] == 0 && v[3] == 0)
    return reader_fail(r, reader_field(r, m, path, key, kpath), kpath, "must not be all zero; %s", hint);
  quat_normalize(v);
  for (int i = 0; i < 4; i++) q[i] = v[i];
  return 0;
}

int scenario_get_material(YamlReader *r, const Scenario *sc, const yaml_node_t *m, const char *path, int *out)
{
  char   kpath[KEY_PATH_MAX], name[MATERIAL_NAME_MAX + 64], names[1024];
  size_t k = 0;
  TRY(reader_get_string(r, m, path, "material", REQUIRED, "name one of the materials defined under 'materials'", name,
                        sizeof name));
  *out = scenario_material_index(sc, name);
  if (*out >= 0) return 0;
  names[0] = 0;
  for (int i = 0; i < sc->n_materials && k < sizeof names; i++)
    k += (size_t)snprintf(names + k, sizeof names - k, "%s%s", i ? ", " : "", sc->materials[i].name);
  return reader_fail(r, reader_field(r, m, path, "material", kpath), kpath,
                     "unknown material '%s'; the scenario defines: %s", name, names);
}

int scenario_check_ellipsoid_walls(YamlReader *r, const Scenario *sc, const yaml_node_t *m, const char *path,
                                   const char *subject)
{
  for (int k = 0; k < sc->n_walls; k++)
    if (sc->walls[k].type == WALL_BOX)
      return reader_fail(r, m, path,
                         "%s plane, cylinder and mesh walls only, and walls[%d] (line %d) is a box; make it a mesh "
                         "(or planes)",
                         subject, k, sc->wall_lines[k]);
  return 0;
}
