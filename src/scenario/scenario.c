/* Scenario reader: YAML -> validated Scenario (GUIDE "Scenario files"). This file reads the top
 * level and the small sections (domain, gravity, time, analysis, output); the others are read by
 * contact_sections.c (contact, solver, materials), body_sections.c (walls, bodies, joints) and
 * bulk_sections.c (fills, emitters), all through yaml_reader.h.
 *
 * Every key is checked where it is read, and the first problem becomes one message
 *   FILE:LINE: key 'bodies[2].radius': must be > 0 (got -1); give the sphere radius in m
 * with the line of the offending key or value and the dotted path with list indices.
 * Unknown and duplicate keys are errors at every level.
 *
 * Keys read in a fixed order (domain, gravity, time, contact, solver, materials, walls, bodies,
 * joints, fills, emitters, analysis, output), so materials are known before anything refers to them by
 * name, and bodies before the joints that name them.
 *
 * Defaults (the documented choices; those of the other sections are listed in their files):
 *   gravity [0, 0, 0];
 *   contact.envelope: 10% of the smallest body size in the file (sphere radius, smallest box half
 *     extent, smallest clump member radius, fill radius, smallest emitter radius), the ratio of the GUIDE example
 * (0.001 m for 0.01 m spheres), so the active set scales with the grains; 0.001 m when the file has no bodies; output:
 * dir "out", snapshot_interval 0 (first and last only), checkpoint_interval 0 (none), contacts false (no contact
 * network in the snapshots). */
#include "scenario/scenario.h"
#include "scenario/body_sections.h"
#include "scenario/bulk_sections.h"
#include "scenario/contact_sections.h"
#include "scenario/shared_values.h"
#include "scenario/yaml_override.h"
#include "scenario/yaml_reader.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int read_domain(YamlReader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const keys[] = {"min", "max", NULL};
  char                     kp[KEY_PATH_MAX];
  yaml_node_t             *m;
  TRY(reader_get_mapping(r, root, "", "domain", REQUIRED, keys,
                         "add domain: {min: [x, y, z], max: [x, y, z]}, the box bodies live in (m)", &m, kp));
  return scenario_get_box(r, m, kp, "domain", sc->domain_min, sc->domain_max);
}

static int read_time(YamlReader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const keys[] = {"step", "end", NULL};
  char                     kp[KEY_PATH_MAX];
  yaml_node_t             *m;
  TRY(reader_get_mapping(r, root, "", "time", REQUIRED, keys, "add time: {step: H, end: T} in simulated seconds", &m,
                         kp));
  char why[256], ep[KEY_PATH_MAX];
  TRY(reader_get_number(r, m, kp, "step", REQUIRED, POSITIVE, "give the time step h in s, e.g. 0.001", &sc->time_step));
  TRY(reader_get_number(r, m, kp, "end", REQUIRED, POSITIVE, "give the simulated end time in s", &sc->time_end));
  if (!scenario_step_count(sc->time_end, sc->time_step, why, sizeof why))
    return reader_fail(r, reader_field(r, m, kp, "end", ep), ep, "%s", why);
  return 0;
}

int64_t scenario_step_count(double t_end, double h, char *why, size_t whylen)
{
  const double steps = t_end / h;

  if (!(steps < (double)SCENARIO_MAX_STEPS + 0.5))
    snprintf(why, whylen,
             "%g s in steps of %g s are %.3g steps, more than the 2^40 (%.3g) a run may take; check time.step and the "
             "end time",
             t_end, h, steps, (double)SCENARIO_MAX_STEPS);
  else if (!(h >= SCENARIO_MIN_STEP_FRACTION * t_end))
    snprintf(why, whylen, "the step %g s is below %g of the end time %g s; check time.step and the end time", h,
             SCENARIO_MIN_STEP_FRACTION, t_end);
  else if (!(steps >= 0.5))
    snprintf(why, whylen,
             "%g s is less than half of one step of %g s, so the run would take no step; give an end "
             "time of at least one step",
             t_end, h);
  else return (int64_t)llround(steps);
  return 0;
}

int64_t scenario_interval_steps(double interval, double h)
{
  const double steps = interval / h;
  if (!(interval > 0)) return 0;
  if (!(steps < (double)SCENARIO_MAX_STEPS)) return SCENARIO_MAX_STEPS + 1;
  return steps < 1.5 ? 1 : (int64_t)llround(steps);
}

/* analysis: {repose: [{name: N, x_range: [A, B]}, ...]}: piles whose angle of repose the summary prints. */
static int read_analysis(YamlReader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const keys[]      = {"repose", NULL};
  static const char *const pile_keys[] = {"name", "x_range", NULL};
  const char              *hint        = "write analysis: {repose: [{name: left, x_range: [-2, 0]}]}";
  char                     kp[KEY_PATH_MAX], lp[KEY_PATH_MAX], ip[KEY_PATH_MAX], xp[KEY_PATH_MAX];
  yaml_node_t             *m, *list;
  int                      n;
  TRY(reader_get_mapping(r, root, "", "analysis", OPTIONAL, keys, hint, &m, kp));
  if (!m) return 0;
  TRY(reader_get_list(r, m, kp, "repose", REQUIRED, hint, &list, lp));
  n = reader_count(list);
  if (!(sc->repose = reader_calloc(r, list, lp, (size_t)n + 1, sizeof(ReposeSpec)))) return -1;
  for (int i = 0; i < n; i++) {
    yaml_node_t *p;
    ReposeSpec  *spec     = &sc->repose[i];
    double       range[2] = {0, 0};
    TRY(reader_get_entry(r, list, lp, i, hint, &p, ip));
    TRY(reader_check_keys(r, p, ip, pile_keys));
    TRY(reader_get_string(r, p, ip, "name", REQUIRED, "give the pile a name for the summary", spec->name,
                          sizeof spec->name));
    TRY(reader_get_vector(r, p, ip, "x_range", REQUIRED, 2, ANY_NUMBER, "give [x_min, x_max] of the pile's bodies in m",
                          range));
    if (!(range[0] < range[1]))
      return reader_fail(r, reader_field(r, p, ip, "x_range", xp), xp, "[%g, %g] is empty; give x_min < x_max",
                         range[0], range[1]);
    spec->x_min  = range[0];
    spec->x_max  = range[1];
    sc->n_repose = i + 1;
  }
  return 0;
}

static int read_output(YamlReader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const keys[]     = {"dir", "snapshot_interval", "checkpoint_interval", "contacts", NULL};
  static const char *const booleans[] = {"false", "true", NULL};
  char                     kp[KEY_PATH_MAX];
  yaml_node_t             *m;
  int                      contacts = 0;
  TRY(reader_get_mapping(r, root, "", "output", OPTIONAL, keys,
                         "write output: {dir: out, snapshot_interval: S, checkpoint_interval: C, contacts: false}", &m,
                         kp));
  if (!m) return 0;
  TRY(reader_get_string(r, m, kp, "dir", OPTIONAL, "give the output directory", sc->output_dir, sizeof sc->output_dir));
  TRY(reader_get_number(r, m, kp, "snapshot_interval", OPTIONAL, NON_NEGATIVE,
                        "give the simulated time between snapshots in s (0 = first and last only)",
                        &sc->snapshot_interval));
  TRY(reader_get_choice(r, m, kp, "contacts", OPTIONAL, booleans,
                        "give true to write the contact network into every snapshot, else false", &contacts));
  sc->output_contacts = contacts == 1;
  return reader_get_number(r, m, kp, "checkpoint_interval", OPTIONAL, NON_NEGATIVE,
                           "give the simulated time between checkpoints in s (0 = none)", &sc->checkpoint_interval);
}

/* Default envelope: 10% of the smallest body size in the file (see the top of this file). */
static double default_envelope(const Scenario *sc)
{
  double smallest = INFINITY;
  for (int i = 0; i < sc->n_bodies; i++) {
    if (sc->bodies[i].shape == SHAPE_CLUMP) {
      smallest = fmin(smallest, sc->clumps[(int)sc->bodies[i].size[0]].min_radius);
      continue;
    }
    for (int a = 0; a < (sc->bodies[i].shape == SHAPE_SPHERE ? 1 : 3); a++)
      smallest = fmin(smallest, sc->bodies[i].size[a]);
  }
  for (int i = 0; i < sc->n_fills; i++)
    smallest = fmin(smallest, sc->fills[i].clump ? sc->clumps[sc->fills[i].clump - 1].min_radius : sc->fills[i].radius);
  for (int i = 0; i < sc->n_emitters; i++) smallest = fmin(smallest, sc->emitters[i].radius_min);
  return isfinite(smallest) ? 0.1 * smallest : 1e-3;
}

static int read_scenario(YamlReader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const keys[] = {"domain",    "gravity",  "time",   "contact", "solver",
                                     "materials", "walls",    "clumps", "bodies",  "fills",
                                     "emitters",  "analysis", "output", "joints",  NULL};
  char                     got[96], names[256];
  int                      envelope_given = 0;
  if (root->type != YAML_MAPPING_NODE) {
    reader_describe(root, got, sizeof got);
    reader_join_names(keys, names, sizeof names);
    return reader_fail(r, root, NULL,
                       "the scenario must be a mapping of the keys %s, got %s; see GUIDE 'Scenario files'", names, got);
  }
  TRY(reader_check_keys(r, root, "", keys));
  TRY(read_domain(r, root, sc));
  TRY(reader_get_vector(r, root, "", "gravity", OPTIONAL, 3, ANY_NUMBER,
                        "give the gravitational acceleration [x, y, z] in m/s^2", sc->gravity));
  TRY(read_time(r, root, sc));
  TRY(scenario_read_contact(r, root, sc, &envelope_given));
  TRY(scenario_read_solver(r, root, sc));
  TRY(scenario_read_materials(r, root, sc));
  TRY(scenario_read_walls(r, root, sc));
  TRY(scenario_read_clumps(r, root, sc));
  TRY(scenario_read_bodies(r, root, sc));
  TRY(scenario_read_joints(r, root, sc));
  TRY(scenario_read_fills(r, root, sc));
  TRY(scenario_read_emitters(r, root, sc));
  TRY(read_analysis(r, root, sc));
  TRY(read_output(r, root, sc));
  TRY(scenario_check_solver_scope(r, root, sc));
  if (!envelope_given) sc->envelope = default_envelope(sc);
  return 0;
}

static void set_defaults(Scenario *sc)
{
  scenario_set_contact_defaults(sc);
  strcpy(sc->output_dir, "out");
}

int scenario_load_string(const char *text, const char *name, Scenario *sc, char *err, size_t errlen)
{
  return scenario_load_string_set(text, name, NULL, sc, err, errlen);
}

int scenario_load_string_set(const char *text, const char *name, const char *overrides, Scenario *sc, char *err,
                             size_t errlen)
{
  YamlReader   r;
  yaml_node_t *root;
  int          status;

  memset(sc, 0, sizeof *sc);
  if (errlen) err[0] = 0;
  set_defaults(sc);
  if (strlen(name) >= sizeof sc->path) {
    snprintf(err, errlen, "%.200s...: the scenario path is longer than %d characters; use a shorter path", name,
             SCENARIO_PATH_MAX - 1);
    return 1;
  }
  strcpy(sc->path, name);
  if (strlen(text) > SCENARIO_TEXT_MAX) {
    snprintf(err, errlen, "%s: the scenario is longer than the %zu MB a scenario may have", name,
             SCENARIO_TEXT_MAX >> 20);
    scenario_free(sc);
    return 1;
  }
  sc->text      = strdup(text);
  sc->overrides = overrides && overrides[0] ? strdup(overrides) : NULL;
  if (!sc->text || (overrides && overrides[0] && !sc->overrides)) {
    snprintf(err, errlen, "%s: out of memory while reading the scenario", name);
    scenario_free(sc);
    return 1;
  }
  if (reader_open(&r, text, name, SCENARIO_DEPTH_MAX, err, errlen)) {
    scenario_free(sc);
    return 1;
  }
  root = reader_root(&r);
  if (!root) {
    snprintf(err, errlen, "%s:1: the scenario is empty; write one as in GUIDE 'Scenario files'", name);
    status = 1;
  } else
    status = reader_check_one_document(&r) != 0 || reader_apply_overrides(&r, overrides) != 0 ||
             read_scenario(&r, reader_root(&r), sc) != 0; /* the root node moves when an override adds nodes */
  reader_close(&r);
  if (status) {
    scenario_free(sc);
    return 1;
  }
  return 0;
}

int scenario_load_file(const char *path, Scenario *sc, char *err, size_t errlen)
{
  return scenario_load_file_set(path, NULL, sc, err, errlen);
}

int scenario_load_file_set(const char *path, const char *overrides, Scenario *sc, char *err, size_t errlen)
{
  char *text;
  int   status;

  memset(sc, 0, sizeof *sc);
  if (reader_read_file(path, SCENARIO_TEXT_MAX, &text, err, errlen)) return 1;
  status = scenario_load_string_set(text, path, overrides, sc, err, errlen);
  free(text);
  return status;
}

void scenario_free(Scenario *sc)
{
  free(sc->text);
  free(sc->overrides);
  free(sc->materials);
  for (int k = 0; sc->walls && k < sc->n_walls; k++) free(sc->walls[k].file);
  free(sc->walls);
  free(sc->wall_lines);
  for (int k = 0; sc->clumps && k < sc->n_clumps; k++) {
    free(sc->clumps[k].offset);
    free(sc->clumps[k].radius);
  }
  free(sc->clumps);
  free(sc->bodies);
  free(sc->fills);
  free(sc->emitters);
  free(sc->repose);
  free(sc->joints);
  memset(sc, 0, sizeof *sc);
}

int scenario_material_index(const Scenario *sc, const char *name)
{
  for (int i = 0; i < sc->n_materials; i++)
    if (!strcmp(sc->materials[i].name, name)) return i;
  return -1;
}
