/* The scenario's sections of the contact model: `contact`, `solver` and `materials` (GUIDE "Scenario
 * files"). Each reads its key of the root mapping into sc and returns 0, or -1 with the reader's
 * message set (yaml_reader.h); sc keeps what it allocated, for scenario_free. Read in this order,
 * after scenario_set_contact_defaults: the contact model decides which keys the other two accept. */
#ifndef CCPDEM_SCENARIO_CONTACT_SECTIONS_H
#define CCPDEM_SCENARIO_CONTACT_SECTIONS_H
#include "scenario/scenario.h"
#include "scenario/yaml_reader.h"

/* Sets the defaults of these sections' keys in sc (contact model ccp, solver apgd, ...: contact_sections.c). */
void scenario_set_contact_defaults(Scenario *sc);
/* contact (optional): the model, envelope, and that model's settings. *envelope_given = whether the
 * file gives contact.envelope (left alone without a contact section); if not, the caller sets the default. */
int scenario_read_contact(YamlReader *r, const yaml_node_t *root, Scenario *sc, int *envelope_given);
/* solver (optional; contact.model ccp only). */
int scenario_read_solver(YamlReader *r, const yaml_node_t *root, Scenario *sc);
/* materials (required, at least one, names unique). */
int scenario_read_materials(YamlReader *r, const yaml_node_t *root, Scenario *sc);
/* After the whole scenario is read: solver.type ipm with what the interior-point method has no rows for (joints,
 * a material's cohesion or yield force: every such material is refused, even one whose pairs would all have none)
 * fails at solver.type. The same limits for -ccp_type ipm are checked where the model is created (step/model_ccp.c). */
int scenario_check_solver_scope(YamlReader *r, const yaml_node_t *root, const Scenario *sc);
#endif
