/* The scenario's sections of spheres given in bulk, a region and a size rather than one by one:
 * `fills` (placed at the start) and `emitters` (made during the run, src/step/emitter.h). Each reads
 * its key of the root mapping into sc and returns 0, or -1 with the reader's message set
 * (yaml_reader.h); sc keeps what it allocated, for scenario_free. They need the domain, the time
 * step and the materials read. */
#ifndef CCPDEM_SCENARIO_BULK_SECTIONS_H
#define CCPDEM_SCENARIO_BULK_SECTIONS_H
#include "scenario/scenario.h"
#include "scenario/yaml_reader.h"

/* fills (optional): lattice and random fills of a region. */
int scenario_read_fills(YamlReader *r, const yaml_node_t *root, Scenario *sc);
/* emitters (optional): sources of spheres, checked against the domain and the time step. */
int scenario_read_emitters(YamlReader *r, const yaml_node_t *root, Scenario *sc);
#endif
