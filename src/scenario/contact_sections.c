/* Sections of the contact model: contact, solver, materials (contracts in contact_sections.h).
 *
 * Defaults: contact.model ccp; contact.max_recovery_speed 0.5 m/s; contact.overlap_tolerance 0;
 *   contact.overlap_correction velocity;
 *   solver apgd, 500 iterations, tolerance 1e-6 m/s, warm_start_decay 0.99;
 *   contact.model penalty: normal hertz, rolling tracking, spinning curvature, slide/roll/spin_damping 1 (critical, the
 *     paper's heuristics); materials: kinetic_friction = friction, rolling_resistance and
 *     spinning_resistance 0, tangential_stiffness from Hertz-Mindlin;
 *   materials: rolling_friction, spinning_friction, compliance, cohesion, damping, rolling_compliance 0, yield_force
 *   none.
 * Keys of the other model are errors (ccp: max_recovery_speed, overlap_tolerance, overlap_correction, solver,
 * rolling_friction, spinning_friction, compliance, cohesion, damping, yield_force, rolling_compliance; penalty: the
 * rest). */
#include "scenario/contact_sections.h"
#include <limits.h>
#include <string.h>

void scenario_set_contact_defaults(Scenario *sc)
{
  sc->contact_model         = CONTACT_MODEL_CCP;
  sc->penalty.slide_damping = sc->penalty.roll_damping = sc->penalty.spin_damping = 1.0;
  sc->max_recovery_speed                                                          = 0.5;
  sc->overlap_correction                                                          = OVERLAP_CORRECTION_VELOCITY;
  sc->warm_start_decay                                                            = 0.99;
  sc->solver_type                                                                 = SOLVER_APGD;
  sc->max_iterations                                                              = 500;
  sc->tolerance                                                                   = 1e-6;
}

/* Keys of one contact model given under the other: named, so the user knows which model uses them. */
static int reject_model_keys(YamlReader *r, const yaml_node_t *m, const char *path, const char *const *keys,
                             const char *model)
{
  char kp[KEY_PATH_MAX];
  for (int i = 0; keys[i]; i++) {
    const yaml_node_t *v = reader_field(r, m, path, keys[i], kp);
    if (v) return reader_fail(r, v, kp, "applies only to contact.model %s; remove it or set that model", model);
  }
  return 0;
}

static int read_penalty_contact(YamlReader *r, const yaml_node_t *m, const char *kp, PenaltySettings *p)
{
  static const char *const normals[]   = {"hertz", "hooke", NULL};
  static const char *const rollings[]  = {"tracking", "legacy", NULL};
  static const char *const spinnings[] = {"curvature", "hertz", NULL}; /* in PenaltySpinning's order */
  char                     np[KEY_PATH_MAX];
  int                      normal = p->normal, rolling = p->rolling, spinning = p->spinning;
  TRY(reader_get_choice(r, m, kp, "normal", OPTIONAL, normals,
                        "choose the normal force law hertz (F = 4/3 E R^1/2 d^3/2) or hooke (F = k d)", &normal));
  p->normal = (PenaltyNormal)normal;
  TRY(reader_get_number(r, m, kp, "normal_stiffness", OPTIONAL, POSITIVE, "give the Hooke spring constant k in N/m",
                        &p->normal_stiffness));
  if (p->normal == PENALTY_NORMAL_HOOKE && p->normal_stiffness == 0) {
    reader_join_path(np, kp, "normal_stiffness");
    return reader_missing(r, m, np, "normal: hooke needs the spring constant k in N/m, e.g. normal_stiffness: 1.0e6");
  }
  if (p->normal == PENALTY_NORMAL_HERTZ && reader_field(r, m, kp, "normal_stiffness", np))
    return reader_fail(r, reader_field(r, m, kp, "normal_stiffness", np), np,
                       "applies only to normal: hooke (Hertz takes its stiffness from young_modulus and "
                       "poisson_ratio); remove it or set normal: hooke");
  TRY(reader_get_choice(r, m, kp, "rolling", OPTIONAL, rollings,
                        "choose the rolling resistance model tracking (the paper's) "
                        "or legacy (constant torque, paper App. A.2)",
                        &rolling));
  p->rolling = (PenaltyRolling)rolling;
  TRY(reader_get_choice(r, m, kp, "spinning", OPTIONAL, spinnings,
                        "choose the spin law's curvature: curvature (the surfaces', eq. 3c) or hertz (1 / the Hertz "
                        "contact radius, App. C)",
                        &spinning));
  p->spinning = (PenaltySpinning)spinning;
  TRY(reader_get_number(r, m, kp, "slide_damping", OPTIONAL, NON_NEGATIVE,
                        "give the slide damping as a fraction of critical (1 = paper eq. 1c)", &p->slide_damping));
  TRY(reader_get_number(r, m, kp, "roll_damping", OPTIONAL, NON_NEGATIVE,
                        "give the roll damping as a fraction of critical (1 = paper D_R = 2 sqrt(I K_R))",
                        &p->roll_damping));
  return reader_get_number(r, m, kp, "spin_damping", OPTIONAL, NON_NEGATIVE,
                           "give the spin damping as a fraction of critical (1 = paper eq. 3d)", &p->spin_damping);
}

int scenario_read_contact(YamlReader *r, const yaml_node_t *root, Scenario *sc, int *envelope_given)
{
  static const char *const keys[]         = {"model",
                                             "envelope",
                                             "max_recovery_speed",
                                             "overlap_tolerance",
                                             "overlap_correction",
                                             "normal",
                                             "normal_stiffness",
                                             "rolling",
                                             "spinning",
                                             "slide_damping",
                                             "roll_damping",
                                             "spin_damping",
                                             NULL};
  static const char *const ccp_keys[]     = {"max_recovery_speed", "overlap_tolerance", "overlap_correction", NULL};
  static const char *const corrections[]  = {"velocity", "position", NULL};
  static const char *const penalty_keys[] = {"normal",        "normal_stiffness", "rolling",      "spinning",
                                             "slide_damping", "roll_damping",     "spin_damping", NULL};
  static const char *const models[]       = {"ccp", "penalty", NULL};
  char                     kp[KEY_PATH_MAX], ep[KEY_PATH_MAX];
  yaml_node_t             *m;
  int                      model = CONTACT_MODEL_CCP, correction = sc->overlap_correction;
  TRY(reader_get_mapping(r, root, "", "contact", OPTIONAL, keys,
                         "write contact: {model: ccp, envelope: D, max_recovery_speed: V}", &m, kp));
  if (!m) return 0;
  TRY(reader_get_choice(r, m, kp, "model", OPTIONAL, models, "choose the contact model ccp or penalty", &model));
  sc->contact_model = (ContactModel)model;
  *envelope_given   = reader_field(r, m, kp, "envelope", ep) != NULL;
  TRY(reader_get_number(r, m, kp, "envelope", OPTIONAL, POSITIVE,
                        "give the contact envelope in m (pairs closer than this enter the active set)", &sc->envelope));
  if (sc->contact_model == CONTACT_MODEL_PENALTY) {
    TRY(reject_model_keys(r, m, kp, ccp_keys, "ccp"));
    return read_penalty_contact(r, m, kp, &sc->penalty);
  }
  TRY(reject_model_keys(r, m, kp, penalty_keys, "penalty"));
  TRY(reader_get_number(r, m, kp, "max_recovery_speed", OPTIONAL, POSITIVE,
                        "give the largest speed in m/s at which overlaps are pushed apart", &sc->max_recovery_speed));
  TRY(reader_get_number(r, m, kp, "overlap_tolerance", OPTIONAL, NON_NEGATIVE,
                        "give the overlap depth in m that rigid contacts hold without pushing apart "
                        "(e.g. 0.005 of the radius; 0 = push every overlap apart)",
                        &sc->overlap_tolerance));
  TRY(reader_get_choice(r, m, kp, "overlap_correction", OPTIONAL, corrections,
                        "choose how overlaps are removed: velocity (pushed apart by the velocity problem) or "
                        "position (a separate pass that moves positions only)",
                        &correction));
  sc->overlap_correction = (OverlapCorrectionMode)correction;
  return 0;
}

int scenario_read_solver(YamlReader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const keys[]  = {"type", "max_iterations", "tolerance", "warm_start_decay", NULL};
  static const char *const types[] = {"jacobi", "gauss-seidel", "apgd", "ipm", NULL};
  char                     kp[KEY_PATH_MAX], ip[KEY_PATH_MAX];
  yaml_node_t             *m;
  int                      type = sc->solver_type;
  long long                it   = sc->max_iterations;
  TRY(reader_get_mapping(r, root, "", "solver", OPTIONAL, keys,
                         "write solver: {type: apgd, max_iterations: N, tolerance: TOL}", &m, kp));
  if (!m) return 0;
  if (sc->contact_model == CONTACT_MODEL_PENALTY)
    return reader_fail(r, m, kp, "applies only to contact.model ccp (the penalty model has no solver); remove it");
  TRY(reader_get_choice(r, m, kp, "type", OPTIONAL, types, "choose the solver", &type));
  sc->solver_type = (SolverType)type;
  TRY(reader_get_integer(r, m, kp, "max_iterations", OPTIONAL, 1, "give the iteration limit per step, e.g. 500", &it));
  if (it > INT_MAX)
    return reader_fail(r, reader_field(r, m, kp, "max_iterations", ip), ip,
                       "must be <= %d (got %lld); give a smaller iteration limit", INT_MAX, it);
  sc->max_iterations = (int)it;
  TRY(reader_get_number(r, m, kp, "tolerance", OPTIONAL, POSITIVE, "give the residual tolerance in m/s, e.g. 1e-6",
                        &sc->tolerance));
  TRY(reader_get_number(r, m, kp, "warm_start_decay", OPTIONAL, NON_NEGATIVE,
                        "give the factor in [0, 1] on the warm start after a step that did not converge "
                        "and changed its warm start, e.g. 0.99",
                        &sc->warm_start_decay));
  if (sc->warm_start_decay > 1)
    return reader_fail(r, reader_field(r, m, kp, "warm_start_decay", ip), ip,
                       "must be <= 1 (got %g); give a factor in [0, 1]", sc->warm_start_decay);
  return 0;
}

/* The penalty model's material keys (contact.model penalty): elastic constants, restitution, static
 * and kinetic friction, rolling and spinning resistance, optional tangential stiffness. */
static int read_penalty_material(YamlReader *r, const yaml_node_t *m, const char *ip, Material *mat)
{
  char kp[KEY_PATH_MAX];
  TRY(reader_get_number(r, m, ip, "young_modulus", REQUIRED, POSITIVE, "give Young's modulus E in Pa, e.g. 1.0e8",
                        &mat->young_modulus));
  TRY(reader_get_number(r, m, ip, "poisson_ratio", REQUIRED, ANY_NUMBER,
                        "give Poisson's ratio nu in (-1, 0.5), e.g. 0.3", &mat->poisson_ratio));
  if (!(mat->poisson_ratio > -1 && mat->poisson_ratio < 0.5))
    return reader_fail(r, reader_field(r, m, ip, "poisson_ratio", kp), kp,
                       "must lie in (-1, 0.5) (got %g); give Poisson's ratio of the material, e.g. 0.3",
                       mat->poisson_ratio);
  TRY(reader_get_number(r, m, ip, "restitution", REQUIRED, POSITIVE,
                        "give the coefficient of restitution e in (0, 1], e.g. 0.5", &mat->restitution));
  if (mat->restitution > 1)
    return reader_fail(r, reader_field(r, m, ip, "restitution", kp), kp,
                       "must be <= 1 (got %g); give the coefficient of restitution e in (0, 1]", mat->restitution);
  mat->kinetic_friction = mat->friction;
  TRY(reader_get_number(r, m, ip, "kinetic_friction", OPTIONAL, NON_NEGATIVE,
                        "give the kinetic friction coefficient mu_k (default: friction, the static mu_s)",
                        &mat->kinetic_friction));
  if (mat->kinetic_friction > mat->friction)
    return reader_fail(r, reader_field(r, m, ip, "kinetic_friction", kp), kp,
                       "%g exceeds the static friction %g; give mu_k <= mu_s (friction)", mat->kinetic_friction,
                       mat->friction);
  TRY(reader_get_number(r, m, ip, "rolling_resistance", OPTIONAL, NON_NEGATIVE,
                        "give the rolling resistance eta_r (dimensionless, paper eq. 2b; 0 = none)",
                        &mat->rolling_resistance));
  TRY(reader_get_number(r, m, ip, "spinning_resistance", OPTIONAL, NON_NEGATIVE,
                        "give the spinning resistance eta_psi (dimensionless, paper eq. 3c; 0 = none)",
                        &mat->spinning_resistance));
  return reader_get_number(r, m, ip, "tangential_stiffness", OPTIONAL, POSITIVE,
                           "give the slide stiffness K_E in N/m, or leave it out for Hertz-Mindlin",
                           &mat->tangential_stiffness);
}

int scenario_read_materials(YamlReader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const keys[]         = {"name",
                                             "density",
                                             "friction",
                                             "rolling_friction",
                                             "spinning_friction",
                                             "compliance",
                                             "cohesion",
                                             "damping",
                                             "yield_force",
                                             "rolling_compliance",
                                             "young_modulus",
                                             "poisson_ratio",
                                             "restitution",
                                             "kinetic_friction",
                                             "rolling_resistance",
                                             "spinning_resistance",
                                             "tangential_stiffness",
                                             NULL};
  static const char *const ccp_keys[]     = {"rolling_friction", "spinning_friction", "compliance",         "cohesion",
                                             "damping",          "yield_force",       "rolling_compliance", NULL};
  static const char *const penalty_keys[] = {"young_modulus",        "poisson_ratio",
                                             "restitution",          "kinetic_friction",
                                             "rolling_resistance",   "spinning_resistance",
                                             "tangential_stiffness", NULL};
  const char              *hint           = "add materials: [{name: steel, density: 7800, friction: 0.5}]";
  char                     kp[KEY_PATH_MAX], ip[KEY_PATH_MAX], np[KEY_PATH_MAX];
  yaml_node_t             *list, *m;
  TRY(reader_get_list(r, root, "", "materials", REQUIRED, hint, &list, kp));
  if (!reader_count(list)) return reader_fail(r, list, kp, "defines no material; %s", hint);
  if (reader_count(list) > SCENARIO_MATERIALS_MAX)
    return reader_fail(r, list, kp,
                       "defines %d materials, more than the %d a scenario may have (contacts look their parameters up "
                       "in a table of every pair of materials); give bodies of equal properties one material",
                       reader_count(list), SCENARIO_MATERIALS_MAX);
  if (!(sc->materials = reader_calloc(r, list, kp, (size_t)reader_count(list), sizeof(Material)))) return -1;
  for (int i = 0; i < reader_count(list); i++) {
    Material *mat = &sc->materials[i];
    TRY(reader_get_entry(r, list, kp, i, "write {name: N, density: RHO, friction: MU}", &m, ip));
    TRY(reader_check_keys(r, m, ip, keys));
    TRY(reject_model_keys(r, m, ip, sc->contact_model == CONTACT_MODEL_PENALTY ? ccp_keys : penalty_keys,
                          sc->contact_model == CONTACT_MODEL_PENALTY ? "ccp" : "penalty"));
    TRY(reader_get_string(r, m, ip, "name", REQUIRED, "give the material a name that bodies and walls refer to",
                          mat->name, sizeof mat->name));
    for (int j = 0; j < i; j++)
      if (!strcmp(sc->materials[j].name, mat->name))
        return reader_fail(r, reader_field(r, m, ip, "name", np), np,
                           "duplicate material name '%s' (materials[%d] has it too); give each material its own name",
                           mat->name, j);
    TRY(reader_get_number(r, m, ip, "density", REQUIRED, POSITIVE, "give the density in kg/m^3", &mat->density));
    TRY(reader_get_number(r, m, ip, "friction", REQUIRED, NON_NEGATIVE,
                          "give the sliding friction coefficient mu (dimensionless), e.g. 0.5", &mat->friction));
    if (sc->contact_model == CONTACT_MODEL_PENALTY) TRY(read_penalty_material(r, m, ip, mat));
    TRY(reader_get_number(r, m, ip, "rolling_friction", OPTIONAL, NON_NEGATIVE,
                          "give the rolling friction rho in m (0 = none)", &mat->rolling_friction));
    TRY(reader_get_number(r, m, ip, "spinning_friction", OPTIONAL, NON_NEGATIVE,
                          "give the spinning friction sigma in m (0 = none)", &mat->spinning_friction));
    TRY(reader_get_number(r, m, ip, "compliance", OPTIONAL, NON_NEGATIVE,
                          "give the contact compliance in m/N (0 = rigid)", &mat->compliance));
    TRY(reader_get_number(r, m, ip, "cohesion", OPTIONAL, NON_NEGATIVE, "give the cohesion force in N (0 = none)",
                          &mat->cohesion));
    TRY(reader_get_number(r, m, ip, "damping", OPTIONAL, NON_NEGATIVE,
                          "give the damping time alpha in s of a compliant contact "
                          "(dashpot R = alpha / compliance; 0 = none)",
                          &mat->damping));
    TRY(reader_get_number(r, m, ip, "yield_force", OPTIONAL, POSITIVE,
                          "give the yield force F_y in N of an elasto-plastic contact (leave it out for none)",
                          &mat->yield_force));
    TRY(reader_get_number(r, m, ip, "rolling_compliance", OPTIONAL, NON_NEGATIVE,
                          "give the compliance C_r in rad/(N m) of the rolling and spinning springs (0 = rigid)",
                          &mat->rolling_compliance));
    if (mat->rolling_compliance > 0 && mat->rolling_friction == 0 && mat->spinning_friction == 0)
      return reader_fail(r, reader_field(r, m, ip, "rolling_compliance", np), np,
                         "is a spring on the rolling and spinning torques, and materials[%d] ('%s') has neither; add "
                         "rolling_friction or spinning_friction (m), or remove rolling_compliance",
                         i, mat->name);
    sc->n_materials = i + 1;
  }
  return 0;
}

int scenario_check_solver_scope(YamlReader *r, const yaml_node_t *root, const Scenario *sc)
{
  char         sp[KEY_PATH_MAX], tp[KEY_PATH_MAX];
  yaml_node_t *solver, *type;
  if (sc->solver_type != SOLVER_IPM) return 0;
  solver = reader_field(r, root, "", "solver", sp);
  type   = solver ? reader_field(r, solver, sp, "type", tp) : NULL;
  if (sc->n_joints > 0)
    return reader_fail(r, type, type ? tp : NULL,
                       "ipm (the interior-point method) has no joint rows, and the scenario has %d joints; choose "
                       "apgd",
                       sc->n_joints);
  for (int i = 0; i < sc->n_materials; i++) {
    const Material *mat = &sc->materials[i];
    if (mat->cohesion == 0 && mat->yield_force == 0) continue;
    return reader_fail(r, type, type ? tp : NULL,
                       "ipm (the interior-point method) has no cohesion or yield force, and materials[%d] ('%s') "
                       "has %s; choose apgd, or remove materials[%d].%s",
                       i, mat->name, mat->cohesion != 0 ? "a cohesion" : "a yield force", i,
                       mat->cohesion != 0 ? "cohesion" : "yield_force");
  }
  return 0;
}
