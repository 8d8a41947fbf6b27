/* Values of the scenario's own kinds that several of its sections read alike: a box {min, max}, an
 * orientation quaternion, and a material named by the sections that come after `materials`.
 * Contracts as in yaml_reader.h: 0 if read, -1 with the reader's message set. */
#ifndef CCPDEM_SCENARIO_SHARED_VALUES_H
#define CCPDEM_SCENARIO_SHARED_VALUES_H
#include "scenario/scenario.h"
#include "scenario/yaml_reader.h"

/* Mapping m (at path) holds min and max, 3 numbers each, max > min on every axis; `what` names the
 * corners in the hint ("give the WHAT corner [x, y, z] (m)"). */
int scenario_get_box(YamlReader *r, const yaml_node_t *m, const char *path, const char *what, double lo[3],
                     double hi[3]);
/* Optional unit quaternion under key: 4 numbers, not all zero, normalized into q (left alone if absent). */
int scenario_get_quaternion(YamlReader *r, const yaml_node_t *m, const char *path, const char *key, double q[4]);
/* Required key `material` of m: the name of one of sc's materials; *out = its index. */
int scenario_get_material(YamlReader *r, const Scenario *sc, const yaml_node_t *m, const char *path, int *out);
/* Ellipsoids touch plane, cylinder and mesh walls only (collision/ellipsoid_walls.h): fails at m (path) with
 * "<subject> plane, cylinder and mesh walls only, and walls[k] ... is a box" if sc has a box wall, else 0. */
int scenario_check_ellipsoid_walls(YamlReader *r, const Scenario *sc, const yaml_node_t *m, const char *path,
                                   const char *subject);
#endif
