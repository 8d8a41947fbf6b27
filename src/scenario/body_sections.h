/* The scenario's sections of solids given one by one: `walls`, `bodies` and `joints` (GUIDE
 * "Scenario files", docs/design.md "Joints"). Each reads its key of the root mapping into sc and returns 0,
 * or -1 with the reader's message set (yaml_reader.h); sc keeps what it allocated, for
 * scenario_free. They need the contact model and materials read; joints need the bodies. */
#ifndef CCPDEM_SCENARIO_BODY_SECTIONS_H
#define CCPDEM_SCENARIO_BODY_SECTIONS_H
#include "scenario/scenario.h"
#include "scenario/yaml_reader.h"

/* walls (optional): planes and boxes. */
int scenario_read_walls(YamlReader *r, const yaml_node_t *root, Scenario *sc);
/* clumps (optional): clump templates (bodies/clump.h), checked (members, radii, a connected union) and set up. */
int scenario_read_clumps(YamlReader *r, const yaml_node_t *root, Scenario *sc);
/* bodies (optional): spheres, boxes and clumps (naming a template; clumps read first), with an optional unique id that
 * joints refer to. */
int scenario_read_bodies(YamlReader *r, const yaml_node_t *root, Scenario *sc);
/* joints (optional; contact.model ccp only): bodies named by id, geometry at time 0. */
int scenario_read_joints(YamlReader *r, const yaml_node_t *root, Scenario *sc);
#endif
