/* -set KEY=VALUE: scenario keys set from the command line, grafted into the parsed YAML document before any
 * key is read, so that an overridden value is checked exactly as one written in the file. It knows no key of
 * ccpdem: a path that names no key of the scenario, or a value of the wrong kind, is refused by the scenario's
 * own checks, which name the -set argument instead of a file line (scenario/yaml_reader.h).
 *
 * KEY is a path of mapping keys and list indices, "time.end", "materials[0].rolling_friction", "walls[1]";
 * VALUE is YAML, "2", "[0, 0, -9.81]", "{type: plane, ...}", "penalty". The last key of a path may be absent from
 * its mapping (it is added, e.g. an optional key the file leaves at its default), and so may mappings on the way
 * ("solver.tolerance" where the file has no solver section); list entries must exist. Not collective. */
#ifndef CCPDEM_SCENARIO_YAML_OVERRIDE_H
#define CCPDEM_SCENARIO_YAML_OVERRIDE_H
#include "scenario/yaml_reader.h"

#define OVERRIDE_VALUE_DEPTH 16 /* lists and mappings nested deeper in one VALUE are refused */

/* Applies the overrides (lines "KEY=VALUE" separated by '\n', in order: a later one for the same key wins; NULL
 * or "" for none) to r's document, whose root must be a mapping, and records them in r for messages. Returns 0,
 * or -1 with one message "command line: -set KEY=VALUE: what is wrong; what to do" (malformed KEY or VALUE, an
 * index past a list's end, a path through a value that is no mapping or list). */
int reader_apply_overrides(YamlReader *r, const char *overrides);
#endif
