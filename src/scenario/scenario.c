/* Scenario reader: YAML (libyaml document API) -> validated Scenario (GUIDE "Scenario files").
 *
 * Every key is checked where it is read, and the first problem becomes one message
 *   FILE:LINE: key 'bodies[2].radius': must be > 0 (got -1); give the sphere radius in m
 * with the line of the offending key or value and the dotted path with list indices.
 * Unknown and duplicate keys are errors at every level. Numbers must be plain (unquoted) decimal
 * numbers, so "abc", true, null and "5" are rejected rather than read as 0 or 5.
 *
 * Keys read in a fixed order (domain, gravity, time, contact, solver, materials, walls, bodies,
 * fills, emitters, analysis, output), so materials are known before anything refers to them by name.
 *
 * Defaults (the documented choices):
 *   gravity [0, 0, 0]; contact.model ccp; contact.max_recovery_speed 0.5 m/s; contact.overlap_tolerance 0;
 *   solver.warm_start_decay 0.99;
 *   contact.model penalty: normal hertz, rolling tracking, slide/roll/spin_damping 1 (critical, the
 *     paper's heuristics); materials: kinetic_friction = friction, rolling_resistance and
 *     spinning_resistance 0, tangential_stiffness from Hertz-Mindlin. Keys of the other model are
 *     errors (ccp: max_recovery_speed, overlap_tolerance, solver, rolling_friction, spinning_friction, compliance,
 *     cohesion; penalty: the rest), as are box bodies with the Hertz law (corners have no radius);
 *   contact.envelope: 10% of the smallest body size in the file (sphere radius, smallest box half
 *     extent, fill radius, smallest emitter radius), the ratio of the GUIDE example (0.001 m for 0.01 m spheres), so the
 *     active set scales with the grains; 0.001 m when the file has no bodies;
 *   solver apgd, 500 iterations, tolerance 1e-6 m/s;
 *   materials: rolling_friction, spinning_friction, compliance, cohesion, damping 0, yield_force none;
 *   walls: box velocity 0, orientation [1, 0, 0, 0];
 *   bodies: velocity, angular_velocity 0, orientation [1, 0, 0, 0] (spheres may give one too),
 *     mass and inertia from the material density and the shape;
 *   fills: velocity 0; random seed 0;
 *   emitters: start 0, count 0 and end 0 (no limit of that kind; one of them is required),
 *     velocity and velocity_spread 0, seed 0; radius: a number is a fixed size;
 *   output: dir "out", snapshot_interval 0 (first and last only), checkpoint_interval 0 (none). */
#include "scenario/scenario.h"
#include "base/vec3.h"
#include <yaml.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_PATH_MAX 256
#define TRY(call) do { if ((call) != 0) return -1; } while (0)

typedef enum { OPTIONAL = 0, REQUIRED = 1 } Need;
typedef enum { ANY_NUMBER, POSITIVE, NON_NEGATIVE } Bound;

typedef struct {
  const char      *file;   /* name used in messages */
  yaml_document_t *doc;
  char            *err;
  size_t           errlen;
  int              failed; /* only the first problem is reported */
} Reader;

static int line_of(const yaml_node_t *n) { return (int)n->start_mark.line + 1; }
static const char *text_of(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }
static yaml_node_t *node_at(Reader *r, int index) { return yaml_document_get_node(r->doc, index); }

static void vmessage(char *err, size_t errlen, const char *file, int line, const char *path, const char *fmt, va_list ap)
{
  int k;
  if (!errlen) return;
  if (path) k = snprintf(err, errlen, "%s:%d: key '%s': ", file, line, path);
  else k = snprintf(err, errlen, "%s:%d: ", file, line);
  if (k >= 0 && (size_t)k < errlen) vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
}

/* Record the first problem (at node `at`, key `path`, NULL for none); returns -1 for TRY. */
static int fail(Reader *r, const yaml_node_t *at, const char *path, const char *fmt, ...)
{
  if (!r->failed) {
    va_list ap;
    va_start(ap, fmt);
    vmessage(r->err, r->errlen, r->file, at ? line_of(at) : 1, path, fmt, ap);
    va_end(ap);
    r->failed = 1;
  }
  return -1;
}

/* Key paths are only for messages: an overlong one (a huge key in the file) ends in "...". */
static void mark_truncated(char out[KEY_PATH_MAX], int k)
{
  if (k >= KEY_PATH_MAX) strcpy(out + KEY_PATH_MAX - 4, "...");
}
static void join_path(char out[KEY_PATH_MAX], const char *path, const char *key)
{
  mark_truncated(out, path[0] ? snprintf(out, KEY_PATH_MAX, "%s.%s", path, key) : snprintf(out, KEY_PATH_MAX, "%s", key));
}
static void index_path(char out[KEY_PATH_MAX], const char *path, int i) { mark_truncated(out, snprintf(out, KEY_PATH_MAX, "%s[%d]", path, i)); }

static void join_names(const char *const *names, char *buf, size_t n)
{
  size_t k = 0;
  buf[0] = 0;
  for (int i = 0; names[i] && k < n; i++) k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? ", " : "", names[i]);
}

/* What a node is, for "expected X, got Y" messages. */
static void describe(const yaml_node_t *n, char *buf, size_t len)
{
  switch (n->type) {
  case YAML_SCALAR_NODE: snprintf(buf, len, text_of(n)[0] ? "'%.40s'" : "nothing%s", text_of(n)); break;
  case YAML_SEQUENCE_NODE: snprintf(buf, len, "a list of %d entries", (int)(n->data.sequence.items.top - n->data.sequence.items.start)); break;
  case YAML_MAPPING_NODE: snprintf(buf, len, "a mapping"); break;
  default: snprintf(buf, len, "nothing"); break;
  }
}

static int seq_count(const yaml_node_t *n) { return (int)(n->data.sequence.items.top - n->data.sequence.items.start); }
static yaml_node_t *seq_item(Reader *r, const yaml_node_t *n, int i) { return node_at(r, n->data.sequence.items.start[i]); }

/* ---- structure ---------------------------------------------------------------------------- */

static int expect_mapping(Reader *r, const yaml_node_t *n, const char *path, const char *hint)
{
  char got[96];
  if (n->type == YAML_MAPPING_NODE) return 0;
  describe(n, got, sizeof got);
  return fail(r, n, path, "expected a mapping {key: value, ...}, got %s; %s", got, hint);
}

static int expect_list(Reader *r, const yaml_node_t *n, const char *path, const char *hint)
{
  char got[96];
  if (n->type == YAML_SEQUENCE_NODE) return 0;
  describe(n, got, sizeof got);
  return fail(r, n, path, "expected a list (entries starting with '- ' or [a, b]), got %s; %s", got, hint);
}

/* Every key of mapping m is a plain name from `allowed` (NULL-terminated) and appears once. */
static int check_keys(Reader *r, const yaml_node_t *m, const char *path, const char *const *allowed)
{
  char kpath[KEY_PATH_MAX], names[512];
  for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
    const yaml_node_t *key = node_at(r, p->key);
    int known = 0;
    if (key->type != YAML_SCALAR_NODE)
      return fail(r, key, NULL, "a key%s%s must be a plain name, not a list or mapping; write name: value", path[0] ? " in " : "", path);
    join_path(kpath, path, text_of(key));
    for (int i = 0; allowed[i]; i++) known |= !strcmp(allowed[i], text_of(key));
    if (!known) {
      join_names(allowed, names, sizeof names);
      return fail(r, key, kpath, "unknown key; the allowed keys %s%s%s are: %s", path[0] ? "of '" : "at the top level", path, path[0] ? "'" : "", names);
    }
    for (yaml_node_pair_t *q = m->data.mapping.pairs.start; q < p; q++) {
      const yaml_node_t *prev = node_at(r, q->key);
      if (prev->type == YAML_SCALAR_NODE && !strcmp(text_of(prev), text_of(key)))
        return fail(r, key, kpath, "duplicate key (first given at line %d); keep only one", line_of(prev));
    }
  }
  return 0;
}

/* The value of key in mapping m, or NULL; kpath receives the key's path. */
static yaml_node_t *field(Reader *r, const yaml_node_t *m, const char *path, const char *key, char kpath[KEY_PATH_MAX])
{
  join_path(kpath, path, key);
  for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
    const yaml_node_t *k = node_at(r, p->key);
    if (k->type == YAML_SCALAR_NODE && !strcmp(text_of(k), key)) return node_at(r, p->value);
  }
  return NULL;
}

static int missing(Reader *r, const yaml_node_t *m, const char *kpath, const char *hint) { return fail(r, m, kpath, "missing; %s", hint); }

/* Mapping under key (checked: a mapping, known keys only). *out = NULL if absent and optional. */
static int get_mapping(Reader *r, const yaml_node_t *m, const char *path, const char *key, Need need, const char *const *allowed,
                       const char *hint, yaml_node_t **out, char kpath[KEY_PATH_MAX])
{
  *out = field(r, m, path, key, kpath);
  if (!*out) return need == REQUIRED ? missing(r, m, kpath, hint) : 0;
  TRY(expect_mapping(r, *out, kpath, hint));
  return check_keys(r, *out, kpath, allowed);
}

/* ---- values ------------------------------------------------------------------------------- */

/* A YAML number as people write them: [+-]digits[.digits][e[+-]digits], or .5, 5. */
static int is_decimal_number(const char *s)
{
  int digits = 0;
  if (*s == '+' || *s == '-') s++;
  while (isdigit((unsigned char)*s)) { s++; digits++; }
  if (*s == '.') {
    s++;
    while (isdigit((unsigned char)*s)) { s++; digits++; }
  }
  if (!digits) return 0;
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '+' || *s == '-') s++;
    if (!isdigit((unsigned char)*s)) return 0;
    while (isdigit((unsigned char)*s)) s++;
  }
  return *s == '\0';
}

static int is_integer_text(const char *s)
{
  if (*s == '+' || *s == '-') s++;
  if (!isdigit((unsigned char)*s)) return 0;
  while (isdigit((unsigned char)*s)) s++;
  return *s == '\0';
}

static int plain_scalar(Reader *r, const yaml_node_t *v, const char *kpath, const char *expected, const char *hint)
{
  char got[96];
  if (v->type != YAML_SCALAR_NODE) {
    describe(v, got, sizeof got);
    return fail(r, v, kpath, "expected %s, got %s; %s", expected, got, hint);
  }
  if (v->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE || v->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE)
    return fail(r, v, kpath, "expected %s, got the quoted string '%.40s'; remove the quotes (%s)", expected, text_of(v), hint);
  return 0;
}

static int number_value(Reader *r, const yaml_node_t *v, const char *kpath, const char *hint, double *x)
{
  TRY(plain_scalar(r, v, kpath, "a number", hint));
  if (!text_of(v)[0]) return fail(r, v, kpath, "expected a number, got nothing; %s", hint);
  if (!is_decimal_number(text_of(v))) return fail(r, v, kpath, "expected a number (got '%.40s'); %s", text_of(v), hint);
  *x = strtod(text_of(v), NULL);
  if (!isfinite(*x)) return fail(r, v, kpath, "number out of range (got '%.40s'); %s", text_of(v), hint);
  return 0;
}

static int check_bound(Reader *r, const yaml_node_t *v, const char *kpath, Bound b, double x, const char *hint)
{
  if (b == POSITIVE && !(x > 0)) return fail(r, v, kpath, "must be > 0 (got %s); %s", text_of(v), hint);
  if (b == NON_NEGATIVE && !(x >= 0)) return fail(r, v, kpath, "must be >= 0 (got %s); %s", text_of(v), hint);
  return 0;
}

/* Number under key; *out is left alone (the default) if absent and optional. */
static int get_number(Reader *r, const yaml_node_t *m, const char *path, const char *key, Need need, Bound b, const char *hint, double *out)
{
  char kpath[KEY_PATH_MAX];
  const yaml_node_t *v = field(r, m, path, key, kpath);
  double x;
  if (!v) return need == REQUIRED ? missing(r, m, kpath, hint) : 0;
  TRY(number_value(r, v, kpath, hint, &x));
  TRY(check_bound(r, v, kpath, b, x, hint));
  *out = x;
  return 0;
}

/* List of exactly n numbers under key, each within bound. */
static int get_vector(Reader *r, const yaml_node_t *m, const char *path, const char *key, Need need, int n, Bound b, const char *hint, double *out)
{
  char kpath[KEY_PATH_MAX], epath[KEY_PATH_MAX], got[96];
  const yaml_node_t *v = field(r, m, path, key, kpath);
  double x[4];
  if (!v) return need == REQUIRED ? missing(r, m, kpath, hint) : 0;
  if (v->type != YAML_SEQUENCE_NODE || seq_count(v) != n) {
    describe(v, got, sizeof got);
    return fail(r, v, kpath, "expected a list of %d numbers %s, got %s; %s", n, n == 4 ? "[w, x, y, z]" : "[x, y, z]", got, hint);
  }
  for (int i = 0; i < n; i++) {
    const yaml_node_t *e = seq_item(r, v, i);
    index_path(epath, kpath, i);
    TRY(number_value(r, e, epath, hint, &x[i]));
    TRY(check_bound(r, e, epath, b, x[i], hint));
  }
  for (int i = 0; i < n; i++) out[i] = x[i];
  return 0;
}

/* Unit quaternion under key: 4 numbers, not all zero, normalized. */
static int get_quaternion(Reader *r, const yaml_node_t *m, const char *path, const char *key, double q[4])
{
  char kpath[KEY_PATH_MAX];
  const char *hint = "give the orientation as a unit quaternion [w, x, y, z] (body to world), e.g. [1, 0, 0, 0]";
  double v[4] = {q[0], q[1], q[2], q[3]};
  TRY(get_vector(r, m, path, key, OPTIONAL, 4, ANY_NUMBER, hint, v));
  if (v[0] == 0 && v[1] == 0 && v[2] == 0 && v[3] == 0)
    return fail(r, field(r, m, path, key, kpath), kpath, "must not be all zero; %s", hint);
  quat_normalize(v);
  for (int i = 0; i < 4; i++) q[i] = v[i];
  return 0;
}

/* Integer >= min under key. */
static int get_integer(Reader *r, const yaml_node_t *m, const char *path, const char *key, Need need, long long min, const char *hint, long long *out)
{
  char kpath[KEY_PATH_MAX];
  const yaml_node_t *v = field(r, m, path, key, kpath);
  long long x;
  if (!v) return need == REQUIRED ? missing(r, m, kpath, hint) : 0;
  TRY(plain_scalar(r, v, kpath, "an integer", hint));
  if (!is_integer_text(text_of(v))) return fail(r, v, kpath, "expected an integer (got '%.40s'); %s", text_of(v), hint);
  errno = 0;
  x = strtoll(text_of(v), NULL, 10);
  if (errno == ERANGE) return fail(r, v, kpath, "integer out of range (got %.40s); %s", text_of(v), hint);
  if (x < min) {
    if (min == 1) return fail(r, v, kpath, "must be > 0 (got %s); %s", text_of(v), hint);
    return fail(r, v, kpath, "must be >= %lld (got %s); %s", min, text_of(v), hint);
  }
  *out = x;
  return 0;
}

/* Non-empty string under key, shorter than cap. */
static int get_string(Reader *r, const yaml_node_t *m, const char *path, const char *key, Need need, const char *hint, char *out, size_t cap)
{
  char kpath[KEY_PATH_MAX], got[96];
  const yaml_node_t *v = field(r, m, path, key, kpath);
  if (!v) return need == REQUIRED ? missing(r, m, kpath, hint) : 0;
  if (v->type != YAML_SCALAR_NODE) {
    describe(v, got, sizeof got);
    return fail(r, v, kpath, "expected a name, got %s; %s", got, hint);
  }
  if (!text_of(v)[0]) return fail(r, v, kpath, "must not be empty; %s", hint);
  if (strlen(text_of(v)) >= cap) return fail(r, v, kpath, "too long (at most %zu characters); %s", cap - 1, hint);
  strcpy(out, text_of(v));
  return 0;
}

/* One of `choices` (NULL-terminated) under key; *out = its index. */
static int get_choice(Reader *r, const yaml_node_t *m, const char *path, const char *key, Need need, const char *const *choices, const char *hint, int *out)
{
  char kpath[KEY_PATH_MAX], names[256], word[128];
  const yaml_node_t *v;
  word[0] = 0;
  TRY(get_string(r, m, path, key, need, hint, word, sizeof word));
  if (!word[0]) return 0;
  for (int i = 0; choices[i]; i++)
    if (!strcmp(choices[i], word)) { *out = i; return 0; }
  v = field(r, m, path, key, kpath);
  join_names(choices, names, sizeof names);
  return fail(r, v, kpath, "unknown value '%s'; use one of: %s", word, names);
}

static int get_material(Reader *r, const Scenario *sc, const yaml_node_t *m, const char *path, int *out)
{
  char kpath[KEY_PATH_MAX], name[MATERIAL_NAME_MAX + 64], names[1024];
  size_t k = 0;
  TRY(get_string(r, m, path, "material", REQUIRED, "name one of the materials defined under 'materials'", name, sizeof name));
  *out = scenario_material_index(sc, name);
  if (*out >= 0) return 0;
  names[0] = 0;
  for (int i = 0; i < sc->n_materials && k < sizeof names; i++) k += (size_t)snprintf(names + k, sizeof names - k, "%s%s", i ? ", " : "", sc->materials[i].name);
  return fail(r, field(r, m, path, "material", kpath), kpath, "unknown material '%s'; the scenario defines: %s", name, names);
}

/* {min, max} with max > min on every axis. */
static int get_box(Reader *r, const yaml_node_t *m, const char *path, const char *what, double lo[3], double hi[3])
{
  char kpath[KEY_PATH_MAX], hint[160];
  snprintf(hint, sizeof hint, "give the %s corner [x, y, z] (m)", what);
  TRY(get_vector(r, m, path, "min", REQUIRED, 3, ANY_NUMBER, hint, lo));
  TRY(get_vector(r, m, path, "max", REQUIRED, 3, ANY_NUMBER, hint, hi));
  for (int a = 0; a < 3; a++)
    if (!(hi[a] > lo[a])) {
      const yaml_node_t *v = field(r, m, path, "max", kpath);
      return fail(r, v, kpath, "max[%d] = %g must be > min[%d] = %g; give max > min on every axis", a, hi[a], a, lo[a]);
    }
  return 0;
}

/* ---- sections ----------------------------------------------------------------------------- */

static int read_domain(Reader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const keys[] = {"min", "max", NULL};
  char kp[KEY_PATH_MAX];
  yaml_node_t *m;
  TRY(get_mapping(r, root, "", "domain", REQUIRED, keys, "add domain: {min: [x, y, z], max: [x, y, z]}, the box bodies live in (m)", &m, kp));
  return get_box(r, m, kp, "domain", sc->domain_min, sc->domain_max);
}

static int read_time(Reader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const keys[] = {"step", "end", NULL};
  char kp[KEY_PATH_MAX];
  yaml_node_t *m;
  TRY(get_mapping(r, root, "", "time", REQUIRED, keys, "add time: {step: H, end: T} in simulated seconds", &m, kp));
  TRY(get_number(r, m, kp, "step", REQUIRED, POSITIVE, "give the time step h in s, e.g. 0.001", &sc->time_step));
  return get_number(r, m, kp, "end", REQUIRED, POSITIVE, "give the simulated end time in s", &sc->time_end);
}

/* Keys of one contact model given under the other: named, so the user knows which model uses them. */
static int reject_model_keys(Reader *r, const yaml_node_t *m, const char *path, const char *const *keys, const char *model)
{
  char kp[KEY_PATH_MAX];
  for (int i = 0; keys[i]; i++) {
    const yaml_node_t *v = field(r, m, path, keys[i], kp);
    if (v) return fail(r, v, kp, "applies only to contact.model %s; remove it or set that model", model);
  }
  return 0;
}

static int read_penalty_contact(Reader *r, const yaml_node_t *m, const char *kp, PenaltySettings *p)
{
  static const char *const normals[]  = {"hertz", "hooke", NULL};
  static const char *const rollings[] = {"tracking", "legacy", NULL};
  char np[KEY_PATH_MAX];
  int  normal = p->normal, rolling = p->rolling;
  TRY(get_choice(r, m, kp, "normal", OPTIONAL, normals, "choose the normal force law hertz (F = 4/3 E R^1/2 d^3/2) or hooke (F = k d)", &normal));
  p->normal = (PenaltyNormal)normal;
  TRY(get_number(r, m, kp, "normal_stiffness", OPTIONAL, POSITIVE, "give the Hooke spring constant k in N/m", &p->normal_stiffness));
  if (p->normal == PENALTY_NORMAL_HOOKE && p->normal_stiffness == 0) {
    join_path(np, kp, "normal_stiffness");
    return missing(r, m, np, "normal: hooke needs the spring constant k in N/m, e.g. normal_stiffness: 1.0e6");
  }
  if (p->normal == PENALTY_NORMAL_HERTZ && field(r, m, kp, "normal_stiffness", np))
    return fail(r, field(r, m, kp, "normal_stiffness", np), np, "applies only to normal: hooke (Hertz takes its stiffness from young_modulus and poisson_ratio); remove it or set normal: hooke");
  TRY(get_choice(r, m, kp, "rolling", OPTIONAL, rollings, "choose the rolling resistance model tracking (the paper's) or legacy (constant torque, paper App. A.2)", &rolling));
  p->rolling = (PenaltyRolling)rolling;
  TRY(get_number(r, m, kp, "slide_damping", OPTIONAL, NON_NEGATIVE, "give the slide damping as a fraction of critical (1 = paper eq. 1c)", &p->slide_damping));
  TRY(get_number(r, m, kp, "roll_damping", OPTIONAL, NON_NEGATIVE, "give the roll damping as a fraction of critical (1 = paper D_R = 2 sqrt(I K_R))", &p->roll_damping));
  return get_number(r, m, kp, "spin_damping", OPTIONAL, NON_NEGATIVE, "give the spin damping as a fraction of critical (1 = paper eq. 3d)", &p->spin_damping);
}

static int read_contact(Reader *r, const yaml_node_t *root, Scenario *sc, int *envelope_given)
{
  static const char *const keys[] = {"model", "envelope", "max_recovery_speed", "overlap_tolerance", "normal", "normal_stiffness", "rolling", "slide_damping", "roll_damping", "spin_damping", NULL};
  static const char *const ccp_keys[] = {"max_recovery_speed", "overlap_tolerance", NULL};
  static const char *const penalty_keys[] = {"normal", "normal_stiffness", "rolling", "slide_damping", "roll_damping", "spin_damping", NULL};
  static const char *const models[] = {"ccp", "penalty", NULL};
  char kp[KEY_PATH_MAX], ep[KEY_PATH_MAX];
  yaml_node_t *m;
  int model = CONTACT_MODEL_CCP;
  TRY(get_mapping(r, root, "", "contact", OPTIONAL, keys, "write contact: {model: ccp, envelope: D, max_recovery_speed: V}", &m, kp));
  if (!m) return 0;
  TRY(get_choice(r, m, kp, "model", OPTIONAL, models, "choose the contact model ccp or penalty", &model));
  sc->contact_model = (ContactModel)model;
  *envelope_given = field(r, m, kp, "envelope", ep) != NULL;
  TRY(get_number(r, m, kp, "envelope", OPTIONAL, POSITIVE, "give the contact envelope in m (pairs closer than this enter the active set)", &sc->envelope));
  if (sc->contact_model == CONTACT_MODEL_PENALTY) {
    TRY(reject_model_keys(r, m, kp, ccp_keys, "ccp"));
    return read_penalty_contact(r, m, kp, &sc->penalty);
  }
  TRY(reject_model_keys(r, m, kp, penalty_keys, "penalty"));
  TRY(get_number(r, m, kp, "max_recovery_speed", OPTIONAL, POSITIVE, "give the largest speed in m/s at which overlaps are pushed apart", &sc->max_recovery_speed));
  return get_number(r, m, kp, "overlap_tolerance", OPTIONAL, NON_NEGATIVE, "give the overlap depth in m that rigid contacts hold without pushing apart (e.g. 0.005 of the radius; 0 = push every overlap apart)", &sc->overlap_tolerance);
}

static int read_solver(Reader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const keys[] = {"type", "max_iterations", "tolerance", "warm_start_decay", NULL};
  static const char *const types[] = {"jacobi", "gauss-seidel", "apgd", NULL};
  char kp[KEY_PATH_MAX], ip[KEY_PATH_MAX];
  yaml_node_t *m;
  int type = sc->solver_type;
  long long it = sc->max_iterations;
  TRY(get_mapping(r, root, "", "solver", OPTIONAL, keys, "write solver: {type: apgd, max_iterations: N, tolerance: TOL}", &m, kp));
  if (!m) return 0;
  if (sc->contact_model == CONTACT_MODEL_PENALTY) return fail(r, m, kp, "applies only to contact.model ccp (the penalty model has no solver); remove it");
  TRY(get_choice(r, m, kp, "type", OPTIONAL, types, "choose the solver", &type));
  sc->solver_type = (SolverType)type;
  TRY(get_integer(r, m, kp, "max_iterations", OPTIONAL, 1, "give the iteration limit per step, e.g. 500", &it));
  if (it > INT_MAX) return fail(r, field(r, m, kp, "max_iterations", ip), ip, "must be <= %d (got %lld); give a smaller iteration limit", INT_MAX, it);
  sc->max_iterations = (int)it;
  TRY(get_number(r, m, kp, "tolerance", OPTIONAL, POSITIVE, "give the residual tolerance in m/s, e.g. 1e-6", &sc->tolerance));
  TRY(get_number(r, m, kp, "warm_start_decay", OPTIONAL, NON_NEGATIVE, "give the factor in [0, 1] on the warm start after a step that did not converge and changed its warm start, e.g. 0.99", &sc->warm_start_decay));
  if (sc->warm_start_decay > 1) return fail(r, field(r, m, kp, "warm_start_decay", ip), ip, "must be <= 1 (got %g); give a factor in [0, 1]", sc->warm_start_decay);
  return 0;
}

/* The penalty model's material keys (contact.model penalty): elastic constants, restitution, static
 * and kinetic friction, rolling and spinning resistance, optional tangential stiffness. */
static int read_penalty_material(Reader *r, const yaml_node_t *m, const char *ip, Material *mat)
{
  char kp[KEY_PATH_MAX];
  TRY(get_number(r, m, ip, "young_modulus", REQUIRED, POSITIVE, "give Young's modulus E in Pa, e.g. 1.0e8", &mat->young_modulus));
  TRY(get_number(r, m, ip, "poisson_ratio", REQUIRED, ANY_NUMBER, "give Poisson's ratio nu in (-1, 0.5), e.g. 0.3", &mat->poisson_ratio));
  if (!(mat->poisson_ratio > -1 && mat->poisson_ratio < 0.5))
    return fail(r, field(r, m, ip, "poisson_ratio", kp), kp, "must lie in (-1, 0.5) (got %g); give Poisson's ratio of the material, e.g. 0.3", mat->poisson_ratio);
  TRY(get_number(r, m, ip, "restitution", REQUIRED, POSITIVE, "give the coefficient of restitution e in (0, 1], e.g. 0.5", &mat->restitution));
  if (mat->restitution > 1)
    return fail(r, field(r, m, ip, "restitution", kp), kp, "must be <= 1 (got %g); give the coefficient of restitution e in (0, 1]", mat->restitution);
  mat->kinetic_friction = mat->friction;
  TRY(get_number(r, m, ip, "kinetic_friction", OPTIONAL, NON_NEGATIVE, "give the kinetic friction coefficient mu_k (default: friction, the static mu_s)", &mat->kinetic_friction));
  if (mat->kinetic_friction > mat->friction)
    return fail(r, field(r, m, ip, "kinetic_friction", kp), kp, "%g exceeds the static friction %g; give mu_k <= mu_s (friction)", mat->kinetic_friction, mat->friction);
  TRY(get_number(r, m, ip, "rolling_resistance", OPTIONAL, NON_NEGATIVE, "give the rolling resistance eta_r (dimensionless, paper eq. 2b; 0 = none)", &mat->rolling_resistance));
  TRY(get_number(r, m, ip, "spinning_resistance", OPTIONAL, NON_NEGATIVE, "give the spinning resistance eta_psi (dimensionless, paper eq. 3c; 0 = none)", &mat->spinning_resistance));
  return get_number(r, m, ip, "tangential_stiffness", OPTIONAL, POSITIVE, "give the slide stiffness K_E in N/m, or leave it out for Hertz-Mindlin", &mat->tangential_stiffness);
}

static int read_materials(Reader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const keys[] = {"name", "density", "friction", "rolling_friction", "spinning_friction", "compliance", "cohesion", "damping", "yield_force",
                                     "young_modulus", "poisson_ratio", "restitution", "kinetic_friction", "rolling_resistance", "spinning_resistance", "tangential_stiffness", NULL};
  static const char *const ccp_keys[] = {"rolling_friction", "spinning_friction", "compliance", "cohesion", "damping", "yield_force", NULL};
  static const char *const penalty_keys[] = {"young_modulus", "poisson_ratio", "restitution", "kinetic_friction", "rolling_resistance", "spinning_resistance", "tangential_stiffness", NULL};
  const char *hint = "add materials: [{name: steel, density: 7800, friction: 0.5}]";
  char kp[KEY_PATH_MAX], ip[KEY_PATH_MAX], np[KEY_PATH_MAX];
  yaml_node_t *list = field(r, root, "", "materials", kp);
  if (!list) return missing(r, root, kp, hint);
  TRY(expect_list(r, list, kp, hint));
  if (!seq_count(list)) return fail(r, list, kp, "defines no material; %s", hint);
  sc->materials = calloc((size_t)seq_count(list), sizeof(Material));
  if (!sc->materials) return fail(r, list, kp, "out of memory");
  for (int i = 0; i < seq_count(list); i++) {
    yaml_node_t *m = seq_item(r, list, i);
    Material *mat = &sc->materials[i];
    index_path(ip, kp, i);
    TRY(expect_mapping(r, m, ip, "write {name: N, density: RHO, friction: MU}"));
    TRY(check_keys(r, m, ip, keys));
    TRY(reject_model_keys(r, m, ip, sc->contact_model == CONTACT_MODEL_PENALTY ? ccp_keys : penalty_keys, sc->contact_model == CONTACT_MODEL_PENALTY ? "ccp" : "penalty"));
    TRY(get_string(r, m, ip, "name", REQUIRED, "give the material a name that bodies and walls refer to", mat->name, sizeof mat->name));
    for (int j = 0; j < i; j++)
      if (!strcmp(sc->materials[j].name, mat->name))
        return fail(r, field(r, m, ip, "name", np), np, "duplicate material name '%s' (materials[%d] has it too); give each material its own name", mat->name, j);
    TRY(get_number(r, m, ip, "density", REQUIRED, POSITIVE, "give the density in kg/m^3", &mat->density));
    TRY(get_number(r, m, ip, "friction", REQUIRED, NON_NEGATIVE, "give the sliding friction coefficient mu (dimensionless), e.g. 0.5", &mat->friction));
    if (sc->contact_model == CONTACT_MODEL_PENALTY) TRY(read_penalty_material(r, m, ip, mat));
    TRY(get_number(r, m, ip, "rolling_friction", OPTIONAL, NON_NEGATIVE, "give the rolling friction rho in m (0 = none)", &mat->rolling_friction));
    TRY(get_number(r, m, ip, "spinning_friction", OPTIONAL, NON_NEGATIVE, "give the spinning friction sigma in m (0 = none)", &mat->spinning_friction));
    TRY(get_number(r, m, ip, "compliance", OPTIONAL, NON_NEGATIVE, "give the contact compliance in m/N (0 = rigid)", &mat->compliance));
    TRY(get_number(r, m, ip, "cohesion", OPTIONAL, NON_NEGATIVE, "give the cohesion force in N (0 = none)", &mat->cohesion));
    TRY(get_number(r, m, ip, "damping", OPTIONAL, NON_NEGATIVE, "give the damping time alpha in s of a compliant contact (dashpot R = alpha / compliance; 0 = none)", &mat->damping));
    TRY(get_number(r, m, ip, "yield_force", OPTIONAL, POSITIVE, "give the yield force F_y in N of an elasto-plastic contact (leave it out for none)", &mat->yield_force));
    sc->n_materials = i + 1;
  }
  return 0;
}

static int read_walls(Reader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const types[] = {"plane", "box", NULL};
  static const char *const plane_keys[] = {"type", "point", "normal", "material", NULL};
  static const char *const box_keys[] = {"type", "center", "half_extents", "material", "velocity", "orientation", NULL};
  const char *hint = "write walls: [{type: plane, point: [x, y, z], normal: [x, y, z], material: NAME}]";
  char kp[KEY_PATH_MAX], ip[KEY_PATH_MAX], np[KEY_PATH_MAX];
  yaml_node_t *list = field(r, root, "", "walls", kp);
  int n;
  if (!list) return 0;
  TRY(expect_list(r, list, kp, hint));
  n = seq_count(list);
  sc->walls = calloc((size_t)n + 1, sizeof(Wall));
  sc->wall_lines = calloc((size_t)n + 1, sizeof(int));
  if (!sc->walls || !sc->wall_lines) return fail(r, list, kp, "out of memory");
  for (int i = 0; i < n; i++) {
    yaml_node_t *m = seq_item(r, list, i);
    Wall *w = &sc->walls[i];
    int type = -1;
    index_path(ip, kp, i);
    TRY(expect_mapping(r, m, ip, "write {type: plane, ...} or {type: box, ...}"));
    TRY(get_choice(r, m, ip, "type", REQUIRED, types, "give the wall type plane or box", &type));
    w->type = (WallType)type;
    w->quat[0] = 1;
    if (w->type == WALL_PLANE) {
      TRY(check_keys(r, m, ip, plane_keys));
      TRY(get_vector(r, m, ip, "point", REQUIRED, 3, ANY_NUMBER, "give a point on the plane [x, y, z] (m)", w->point));
      TRY(get_vector(r, m, ip, "normal", REQUIRED, 3, ANY_NUMBER, "give the outward normal [x, y, z] (bodies live on its side)", w->normal));
      if (v3_norm(w->normal) == 0)
        return fail(r, field(r, m, ip, "normal", np), np, "must not be the zero vector; give the outward normal, e.g. [0, 0, 1]");
      v3_scale(w->normal, 1.0 / v3_norm(w->normal), w->normal);
      v3_copy(w->center, w->point);
    } else {
      TRY(check_keys(r, m, ip, box_keys));
      TRY(get_vector(r, m, ip, "center", REQUIRED, 3, ANY_NUMBER, "give the box centre [x, y, z] (m)", w->center));
      TRY(get_vector(r, m, ip, "half_extents", REQUIRED, 3, POSITIVE, "give the box half extents [a, b, c] in m, each > 0", w->half_extents));
      TRY(get_vector(r, m, ip, "velocity", OPTIONAL, 3, ANY_NUMBER, "give the prescribed velocity [x, y, z] in m/s", w->velocity));
      TRY(get_quaternion(r, m, ip, "orientation", w->quat));
      v3_copy(w->point, w->center);
    }
    TRY(get_material(r, sc, m, ip, &w->material));
    sc->wall_lines[i] = line_of(m);
    sc->n_walls = i + 1;
  }
  return 0;
}

/* bodies[i].id: a name for joints, unique, not "ground" (the name of the fixed world). */
static int read_body_label(Reader *r, Scenario *sc, const yaml_node_t *m, const char *ip, int i)
{
  char kpath[KEY_PATH_MAX];
  BodySpec *b = &sc->bodies[i];
  TRY(get_string(r, m, ip, "id", OPTIONAL, "give the body a name that joints refer to, e.g. id: arm", b->label, sizeof b->label));
  if (!b->label[0]) return 0;
  if (!strcmp(b->label, "ground")) return fail(r, field(r, m, ip, "id", kpath), kpath, "'ground' names the fixed world; give the body another id");
  for (int j = 0; j < i; j++)
    if (!strcmp(sc->bodies[j].label, b->label))
      return fail(r, field(r, m, ip, "id", kpath), kpath, "duplicate id '%s' (bodies[%d] has it too); give each body its own id", b->label, j);
  return 0;
}

static int read_bodies(Reader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const shapes[] = {"sphere", "box", NULL};
  static const char *const sphere_keys[] = {"shape", "radius", "position", "velocity", "angular_velocity", "orientation", "material", "mass", "inertia", "id", NULL};
  static const char *const box_keys[] = {"shape", "half_extents", "position", "velocity", "angular_velocity", "orientation", "material", "mass", "inertia", "id", NULL};
  const char *hint = "write bodies: [{shape: sphere, radius: R, position: [x, y, z], material: NAME}]";
  char kp[KEY_PATH_MAX], ip[KEY_PATH_MAX];
  yaml_node_t *list = field(r, root, "", "bodies", kp);
  int n;
  if (!list) return 0;
  TRY(expect_list(r, list, kp, hint));
  n = seq_count(list);
  sc->bodies = calloc((size_t)n + 1, sizeof(BodySpec));
  if (!sc->bodies) return fail(r, list, kp, "out of memory");
  for (int i = 0; i < n; i++) {
    yaml_node_t *m = seq_item(r, list, i);
    BodySpec *b = &sc->bodies[i];
    int shape = -1;
    index_path(ip, kp, i);
    TRY(expect_mapping(r, m, ip, "write {shape: sphere, ...} or {shape: box, ...}"));
    TRY(get_choice(r, m, ip, "shape", REQUIRED, shapes, "give the body shape sphere or box", &shape));
    b->shape = (ShapeKind)shape;
    b->orientation[0] = 1;
    if (b->shape == SHAPE_SPHERE) {
      TRY(check_keys(r, m, ip, sphere_keys));
      TRY(get_number(r, m, ip, "radius", REQUIRED, POSITIVE, "give the sphere radius in m", &b->size[0]));
      b->size[1] = b->size[2] = b->size[0];
    } else {
      TRY(check_keys(r, m, ip, box_keys));
      TRY(get_vector(r, m, ip, "half_extents", REQUIRED, 3, POSITIVE, "give the box half extents [a, b, c] in m, each > 0", b->size));
      if (sc->contact_model == CONTACT_MODEL_PENALTY && sc->penalty.normal == PENALTY_NORMAL_HERTZ)
        return fail(r, m, ip, "a box touches with its corners, which have no Hertz radius; set contact.normal: hooke with normal_stiffness for boxes");
    }
    TRY(get_vector(r, m, ip, "position", REQUIRED, 3, ANY_NUMBER, "give the centre position [x, y, z] in m", b->position));
    TRY(get_vector(r, m, ip, "velocity", OPTIONAL, 3, ANY_NUMBER, "give the velocity [x, y, z] in m/s", b->velocity));
    TRY(get_vector(r, m, ip, "angular_velocity", OPTIONAL, 3, ANY_NUMBER, "give the angular velocity [x, y, z] in rad/s, world frame", b->angular_velocity));
    TRY(get_quaternion(r, m, ip, "orientation", b->orientation));
    TRY(get_material(r, sc, m, ip, &b->material));
    TRY(get_number(r, m, ip, "mass", OPTIONAL, POSITIVE, "give the mass in kg, or leave it out to use the material density", &b->mass));
    TRY(get_vector(r, m, ip, "inertia", OPTIONAL, 3, POSITIVE, "give the principal moments [Ixx, Iyy, Izz] in kg m^2, or leave them out", b->inertia));
    TRY(read_body_label(r, sc, m, ip, i));
    b->line = line_of(m);
    sc->n_bodies = i + 1;
  }
  return 0;
}

/* The body a joint names under key (by its `id`); "ground" (or an absent optional key) is JOINT_GROUND. */
static int get_joint_body(Reader *r, const Scenario *sc, const yaml_node_t *m, const char *ip, const char *key, Need need, int ground_ok, int *out)
{
  char kpath[KEY_PATH_MAX], name[64] = "";
  *out = JOINT_GROUND;
  TRY(get_string(r, m, ip, key, need, ground_ok ? "name a body by its id (bodies: [{id: NAME, ...}]) or ground" : "name a body by its id (bodies: [{id: NAME, ...}])", name, sizeof name));
  if (!name[0] || (ground_ok && !strcmp(name, "ground"))) return 0;
  for (int i = 0; i < sc->n_bodies; i++)
    if (!strcmp(sc->bodies[i].label, name)) {
      *out = i;
      return 0;
    }
  return fail(r, field(r, m, ip, key, kpath), kpath, "no body has id '%s'; give a body 'id: %s' under 'bodies'%s", name, name, ground_ok ? ", or use ground" : "");
}

/* A unit vector under key (required, not zero). */
static int get_axis(Reader *r, const yaml_node_t *m, const char *ip, const char *key, double a[3])
{
  char kpath[KEY_PATH_MAX];
  TRY(get_vector(r, m, ip, key, REQUIRED, 3, ANY_NUMBER, "give the axis direction [x, y, z] (world, at time 0)", a));
  if (v3_norm(a) == 0) return fail(r, field(r, m, ip, key, kpath), kpath, "must not be the zero vector; give a direction, e.g. [0, 1, 0]");
  v3_scale(a, 1.0 / v3_norm(a), a);
  return 0;
}

/* joints: (after bodies, which they name by id; see src/scenario/joint_spec.h and README "Joints") */
static int read_joints(Reader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const types[] = {"fixed", "spherical", "revolute", "prismatic", "distance", "motion", NULL};
  static const char *const keys[][8] = {{"type", "body_a", "body_b", "point", NULL},
                                        {"type", "body_a", "body_b", "point", NULL},
                                        {"type", "body_a", "body_b", "point", "axis", NULL},
                                        {"type", "body_a", "body_b", "point", "axis", "friction", NULL},
                                        {"type", "body_a", "body_b", "point_a", "point_b", NULL},
                                        {"type", "body", "velocity", "amplitude", "frequency", "angular_velocity", "until", NULL}};
  const char *hint = "write joints: [{type: revolute, body_a: ground, body_b: ID, point: [x, y, z], axis: [x, y, z]}]";
  const char *ph = "give the anchor point [x, y, z] (world, at time 0)";
  char kp[KEY_PATH_MAX], ip[KEY_PATH_MAX], np[KEY_PATH_MAX];
  yaml_node_t *list = field(r, root, "", "joints", kp);
  if (!list) return 0;
  if (sc->contact_model == CONTACT_MODEL_PENALTY)
    return fail(r, list, kp, "joints are rows of the CCP and do not run with contact.model penalty; use contact.model ccp, or remove the joints");
  TRY(expect_list(r, list, kp, hint));
  sc->joints = calloc((size_t)seq_count(list) + 1, sizeof(JointSpec));
  if (!sc->joints) return fail(r, list, kp, "out of memory");
  for (int i = 0; i < seq_count(list); i++) {
    yaml_node_t *m = seq_item(r, list, i);
    JointSpec *j = &sc->joints[i];
    int type = -1;
    index_path(ip, kp, i);
    TRY(expect_mapping(r, m, ip, hint));
    TRY(get_choice(r, m, ip, "type", REQUIRED, types, "give the joint type", &type));
    TRY(check_keys(r, m, ip, keys[type]));
    j->type = (JointType)type;
    if (j->type == JOINT_MOTION) {
      j->body_a = JOINT_GROUND;
      TRY(get_joint_body(r, sc, m, ip, "body", REQUIRED, 0, &j->body_b));
      TRY(get_vector(r, m, ip, "velocity", OPTIONAL, 3, ANY_NUMBER, "give the mean velocity [x, y, z] in m/s", j->velocity));
      TRY(get_vector(r, m, ip, "amplitude", OPTIONAL, 3, ANY_NUMBER, "give the velocity amplitude [x, y, z] in m/s of v(t) = velocity + amplitude sin(2 pi frequency t)", j->amplitude));
      TRY(get_number(r, m, ip, "frequency", OPTIONAL, NON_NEGATIVE, "give the frequency in Hz (0: constant velocity)", &j->frequency));
      if (j->frequency == 0 && v3_norm(j->amplitude) > 0)
        return fail(r, field(r, m, ip, "amplitude", np), np, "needs a frequency > 0; give frequency: F (Hz) or drop the amplitude");
      TRY(get_number(r, m, ip, "until", OPTIONAL, POSITIVE, "give the time in s at which the prescribed motion ends and the body is released (leave it out: never)", &j->until));
      j->angular = field(r, m, ip, "angular_velocity", np) != NULL;
      TRY(get_vector(r, m, ip, "angular_velocity", OPTIONAL, 3, ANY_NUMBER, "give the prescribed angular velocity [x, y, z] in rad/s (world), or leave it out to let the body rotate freely", j->angular_velocity));
    } else {
      TRY(get_joint_body(r, sc, m, ip, "body_a", OPTIONAL, 1, &j->body_a));
      TRY(get_joint_body(r, sc, m, ip, "body_b", REQUIRED, 0, &j->body_b));
      if (j->body_a == j->body_b) return fail(r, field(r, m, ip, "body_b", np), np, "joins body '%s' to itself; name two different bodies", sc->bodies[j->body_b].label);
      if (j->type == JOINT_DISTANCE) {
        TRY(get_vector(r, m, ip, "point_a", REQUIRED, 3, ANY_NUMBER, ph, j->point));
        TRY(get_vector(r, m, ip, "point_b", REQUIRED, 3, ANY_NUMBER, ph, j->point_b));
        double d[3];
        v3_sub(d, j->point_b, j->point);
        if (!(v3_norm(d) > 0)) return fail(r, field(r, m, ip, "point_b", np), np, "coincides with point_a; a distance joint needs two distinct anchors (use spherical for a zero distance)");
      } else if (j->type == JOINT_FIXED) {
        v3_copy(j->point, sc->bodies[j->body_b].position);
        TRY(get_vector(r, m, ip, "point", OPTIONAL, 3, ANY_NUMBER, ph, j->point));
      } else TRY(get_vector(r, m, ip, "point", REQUIRED, 3, ANY_NUMBER, ph, j->point));
      if (j->type == JOINT_REVOLUTE || j->type == JOINT_PRISMATIC) TRY(get_axis(r, m, ip, "axis", j->axis));
      if (j->type == JOINT_PRISMATIC) TRY(get_number(r, m, ip, "friction", OPTIONAL, NON_NEGATIVE, "give the friction force S in N on the sliding direction (0 = none)", &j->friction));
    }
    j->line = line_of(m);
    sc->n_joints = i + 1;
  }
  return 0;
}

static int read_fills(Reader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const types[] = {"lattice", "random", NULL};
  static const char *const lattice_keys[] = {"type", "region", "radius", "spacing", "material", "velocity", NULL};
  static const char *const random_keys[] = {"type", "region", "radius", "count", "seed", "material", "velocity", NULL};
  static const char *const region_keys[] = {"min", "max", NULL};
  static const char *const axes = "xyz";
  const char *hint = "write fills: [{type: lattice, region: {min: [..], max: [..]}, radius: R, spacing: S, material: NAME}]";
  char kp[KEY_PATH_MAX], ip[KEY_PATH_MAX], rp[KEY_PATH_MAX], sp[KEY_PATH_MAX];
  yaml_node_t *list = field(r, root, "", "fills", kp);
  int n;
  if (!list) return 0;
  TRY(expect_list(r, list, kp, hint));
  n = seq_count(list);
  sc->fills = calloc((size_t)n + 1, sizeof(FillSpec));
  if (!sc->fills) return fail(r, list, kp, "out of memory");
  for (int i = 0; i < n; i++) {
    yaml_node_t *m = seq_item(r, list, i), *region;
    FillSpec *f = &sc->fills[i];
    int type = -1;
    index_path(ip, kp, i);
    TRY(expect_mapping(r, m, ip, "write {type: lattice, ...} or {type: random, ...}"));
    TRY(get_choice(r, m, ip, "type", REQUIRED, types, "give the fill type lattice or random", &type));
    f->type = (FillType)type;
    TRY(check_keys(r, m, ip, f->type == FILL_LATTICE ? lattice_keys : random_keys));
    TRY(get_mapping(r, m, ip, "region", REQUIRED, region_keys, "give region: {min: [x, y, z], max: [x, y, z]} (m)", &region, rp));
    TRY(get_box(r, region, rp, "region", f->region_min, f->region_max));
    TRY(get_number(r, m, ip, "radius", REQUIRED, POSITIVE, "give the sphere radius in m", &f->radius));
    for (int a = 0; a < 3; a++)
      if (f->region_max[a] - f->region_min[a] < 2 * f->radius * (1 - 1e-9)) /* slack: a region one diameter wide, written in decimals */
        return fail(r, region, rp, "is %g m wide along %c, less than one sphere diameter %g m; enlarge the region or reduce the radius",
                    f->region_max[a] - f->region_min[a], axes[a], 2 * f->radius);
    if (f->type == FILL_LATTICE) {
      TRY(get_number(r, m, ip, "spacing", REQUIRED, POSITIVE, "give the distance between neighbouring centres in m (>= 2 radius)", &f->spacing));
      if (f->spacing < 2 * f->radius)
        return fail(r, field(r, m, ip, "spacing", sp), sp, "spacing %g is less than the sphere diameter %g, so the spheres would overlap; set spacing >= %g",
                    f->spacing, 2 * f->radius, 2 * f->radius);
    } else {
      long long count = 0, seed = 0;
      TRY(get_integer(r, m, ip, "count", REQUIRED, 1, "give the number of spheres to place", &count));
      TRY(get_integer(r, m, ip, "seed", OPTIONAL, 0, "give the random seed, an integer >= 0", &seed));
      if (count > INT32_MAX)
        return fail(r, field(r, m, ip, "count", sp), sp, "must be <= %d (got %lld); place fewer spheres", INT32_MAX, count);
      f->count = (long)count;
      f->seed = (unsigned long)seed;
    }
    TRY(get_vector(r, m, ip, "velocity", OPTIONAL, 3, ANY_NUMBER, "give the initial velocity [x, y, z] of every sphere in m/s", f->velocity));
    TRY(get_material(r, sc, m, ip, &f->material));
    f->line = line_of(m);
    sc->n_fills = i + 1;
  }
  return 0;
}

/* radius: R (fixed), or {distribution: uniform, min, max}, or {distribution: normal, mean, std, min, max} */
static int read_emitter_radius(Reader *r, const yaml_node_t *m, const char *ip, EmitterSpec *e)
{
  static const char *const dists[] = {"fixed", "uniform", "normal", NULL};
  static const char *const keys[][6] = {{"distribution", "value", NULL}, {"distribution", "min", "max", NULL}, {"distribution", "mean", "std", "min", "max", NULL}};
  const char *hint = "give radius: R, or {distribution: uniform, min: A, max: B}, or {distribution: normal, mean: M, std: S, min: A, max: B} (m)";
  char kp[KEY_PATH_MAX], dp[KEY_PATH_MAX];
  yaml_node_t *v = field(r, m, ip, "radius", kp);
  int dist = SIZE_FIXED;
  if (!v) return missing(r, m, kp, hint);
  if (v->type == YAML_SCALAR_NODE) {
    e->size = SIZE_FIXED;
    TRY(get_number(r, m, ip, "radius", REQUIRED, POSITIVE, hint, &e->radius));
    e->radius_min = e->radius_max = e->radius;
    return 0;
  }
  TRY(expect_mapping(r, v, kp, hint));
  TRY(get_choice(r, v, kp, "distribution", REQUIRED, dists, "give the size distribution fixed, uniform or normal", &dist));
  e->size = (SizeDistribution)dist;
  TRY(check_keys(r, v, kp, keys[dist]));
  if (dist == SIZE_FIXED) {
    TRY(get_number(r, v, kp, "value", REQUIRED, POSITIVE, "give the radius in m", &e->radius));
    e->radius_min = e->radius_max = e->radius;
    return 0;
  }
  TRY(get_number(r, v, kp, "min", REQUIRED, POSITIVE, "give the smallest radius in m", &e->radius_min));
  TRY(get_number(r, v, kp, "max", REQUIRED, POSITIVE, "give the largest radius in m", &e->radius_max));
  if (e->radius_max < e->radius_min) return fail(r, field(r, v, kp, "max", dp), dp, "%g is less than min %g; give min <= max", e->radius_max, e->radius_min);
  if (dist == SIZE_NORMAL) {
    TRY(get_number(r, v, kp, "mean", REQUIRED, POSITIVE, "give the mean radius in m", &e->radius_mean));
    TRY(get_number(r, v, kp, "std", REQUIRED, NON_NEGATIVE, "give the standard deviation of the radius in m", &e->radius_std));
    if (e->radius_mean < e->radius_min || e->radius_mean > e->radius_max)
      return fail(r, field(r, v, kp, "mean", dp), dp, "%g lies outside [min, max] = [%g, %g]; the normal is truncated to that range", e->radius_mean, e->radius_min, e->radius_max);
  }
  e->radius = dist == SIZE_NORMAL ? e->radius_mean : 0.5 * (e->radius_min + e->radius_max);
  return 0;
}

/* Bad emitters are caught here (GUIDE: at check): a region outside the domain or narrower than the
 * largest sphere, and a rate whose bodies of one step could not fit in the region without
 * overlap (more than 30% of its volume, about the densest a random placement reaches easily). */
static int check_emitter(Reader *r, const yaml_node_t *m, const char *ip, const yaml_node_t *region, const char *rp, const Scenario *sc, const EmitterSpec *e)
{
  static const char *const axes = "xyz";
  char kp[KEY_PATH_MAX];
  double volume = 1, per_step, batch;
  for (int a = 0; a < 3; a++) {
    if (e->region_min[a] < sc->domain_min[a] || e->region_max[a] > sc->domain_max[a])
      return fail(r, region, rp, "[%g, %g] along %c is not inside the domain [%g, %g]; move the emitter region into the domain", e->region_min[a], e->region_max[a], axes[a], sc->domain_min[a],
                  sc->domain_max[a]);
    if (e->region_max[a] - e->region_min[a] < 2 * e->radius_max)
      return fail(r, region, rp, "is %g m wide along %c, less than the largest sphere diameter %g m; enlarge the region", e->region_max[a] - e->region_min[a], axes[a], 2 * e->radius_max);
    volume *= e->region_max[a] - e->region_min[a];
  }
  per_step = ceil(e->rate * sc->time_step);
  batch    = per_step * 4.0 / 3.0 * M_PI * pow(e->radius_max, 3);
  if (batch > 0.3 * volume)
    return fail(r, field(r, m, ip, "rate", kp), kp, "%g bodies per second are %g per step of %g s, %.3g m^3 of spheres, more than 30%% of the region's %.3g m^3, so they cannot be placed without overlap; lower the rate, enlarge the region or shorten the time step",
                e->rate, per_step, sc->time_step, batch, volume);
  return 0;
}

static int read_emitters(Reader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const keys[] = {"region", "rate", "count", "start", "end", "radius", "velocity", "velocity_spread", "seed", "material", NULL};
  static const char *const region_keys[] = {"min", "max", NULL};
  const char *hint = "write emitters: [{region: {min: [..], max: [..]}, rate: N, count: C, radius: R, material: NAME}]";
  char kp[KEY_PATH_MAX], ip[KEY_PATH_MAX], rp[KEY_PATH_MAX], sp[KEY_PATH_MAX];
  yaml_node_t *list = field(r, root, "", "emitters", kp);
  int n;
  if (!list) return 0;
  TRY(expect_list(r, list, kp, hint));
  n = seq_count(list);
  sc->emitters = calloc((size_t)n + 1, sizeof(EmitterSpec));
  if (!sc->emitters) return fail(r, list, kp, "out of memory");
  for (int i = 0; i < n; i++) {
    yaml_node_t *m = seq_item(r, list, i), *region;
    EmitterSpec *e = &sc->emitters[i];
    long long count = 0, seed = 0;
    index_path(ip, kp, i);
    TRY(expect_mapping(r, m, ip, hint));
    TRY(check_keys(r, m, ip, keys));
    TRY(get_mapping(r, m, ip, "region", REQUIRED, region_keys, "give region: {min: [x, y, z], max: [x, y, z]} (m)", &region, rp));
    TRY(get_box(r, region, rp, "region", e->region_min, e->region_max));
    TRY(get_number(r, m, ip, "rate", REQUIRED, POSITIVE, "give the bodies per second", &e->rate));
    TRY(get_integer(r, m, ip, "count", OPTIONAL, 0, "give the total number of bodies to emit (0: no limit)", &count));
    TRY(get_number(r, m, ip, "start", OPTIONAL, NON_NEGATIVE, "give the time to start emitting in s", &e->start));
    TRY(get_number(r, m, ip, "end", OPTIONAL, NON_NEGATIVE, "give the time to stop emitting in s (0: no limit)", &e->end));
    if (!count && !e->end) return fail(r, m, ip, "has neither count nor end, so it would never stop; give count: N or end: T");
    if (e->end && e->end <= e->start) return fail(r, field(r, m, ip, "end", sp), sp, "%g is not after start %g; give end > start", e->end, e->start);
    e->count = (long)count;
    TRY(read_emitter_radius(r, m, ip, e));
    TRY(get_vector(r, m, ip, "velocity", OPTIONAL, 3, ANY_NUMBER, "give the mean velocity [x, y, z] of the new bodies in m/s", e->velocity));
    TRY(get_vector(r, m, ip, "velocity_spread", OPTIONAL, 3, NON_NEGATIVE, "give the half-width [x, y, z] of the uniform random velocity added, in m/s", e->velocity_spread));
    TRY(get_integer(r, m, ip, "seed", OPTIONAL, 0, "give the random seed, an integer >= 0", &seed));
    e->seed = (unsigned long)seed;
    TRY(get_material(r, sc, m, ip, &e->material));
    TRY(check_emitter(r, m, ip, region, rp, sc, e));
    e->line = line_of(m);
    sc->n_emitters = i + 1;
  }
  return 0;
}

/* analysis: {repose: [{name: N, x_range: [A, B]}, ...]}: piles whose angle of repose the summary prints. */
static int read_analysis(Reader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const keys[] = {"repose", NULL};
  static const char *const pile_keys[] = {"name", "x_range", NULL};
  const char *hint = "write analysis: {repose: [{name: left, x_range: [-2, 0]}]}";
  char kp[KEY_PATH_MAX], lp[KEY_PATH_MAX], ip[KEY_PATH_MAX], xp[KEY_PATH_MAX];
  yaml_node_t *m, *list;
  int n;
  TRY(get_mapping(r, root, "", "analysis", OPTIONAL, keys, hint, &m, kp));
  if (!m) return 0;
  list = field(r, m, kp, "repose", lp);
  if (!list) return missing(r, m, lp, hint);
  TRY(expect_list(r, list, lp, hint));
  n = seq_count(list);
  sc->repose = calloc((size_t)n + 1, sizeof(ReposeSpec));
  if (!sc->repose) return fail(r, list, lp, "out of memory");
  for (int i = 0; i < n; i++) {
    yaml_node_t *p = seq_item(r, list, i);
    ReposeSpec  *spec = &sc->repose[i];
    double       range[2] = {0, 0};
    index_path(ip, lp, i);
    TRY(expect_mapping(r, p, ip, hint));
    TRY(check_keys(r, p, ip, pile_keys));
    TRY(get_string(r, p, ip, "name", REQUIRED, "give the pile a name for the summary", spec->name, sizeof spec->name));
    TRY(get_vector(r, p, ip, "x_range", REQUIRED, 2, ANY_NUMBER, "give [x_min, x_max] of the pile's bodies in m", range));
    if (!(range[0] < range[1])) return fail(r, field(r, p, ip, "x_range", xp), xp, "[%g, %g] is empty; give x_min < x_max", range[0], range[1]);
    spec->x_min = range[0];
    spec->x_max = range[1];
    sc->n_repose = i + 1;
  }
  return 0;
}

static int read_output(Reader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const keys[] = {"dir", "snapshot_interval", "checkpoint_interval", NULL};
  char kp[KEY_PATH_MAX];
  yaml_node_t *m;
  TRY(get_mapping(r, root, "", "output", OPTIONAL, keys, "write output: {dir: out, snapshot_interval: S, checkpoint_interval: C}", &m, kp));
  if (!m) return 0;
  TRY(get_string(r, m, kp, "dir", OPTIONAL, "give the output directory", sc->output_dir, sizeof sc->output_dir));
  TRY(get_number(r, m, kp, "snapshot_interval", OPTIONAL, NON_NEGATIVE, "give the simulated time between snapshots in s (0 = first and last only)", &sc->snapshot_interval));
  return get_number(r, m, kp, "checkpoint_interval", OPTIONAL, NON_NEGATIVE, "give the simulated time between checkpoints in s (0 = none)", &sc->checkpoint_interval);
}

/* Default envelope: 10% of the smallest body size in the file (see the top of this file). */
static double default_envelope(const Scenario *sc)
{
  double smallest = INFINITY;
  for (int i = 0; i < sc->n_bodies; i++)
    for (int a = 0; a < (sc->bodies[i].shape == SHAPE_SPHERE ? 1 : 3); a++) smallest = fmin(smallest, sc->bodies[i].size[a]);
  for (int i = 0; i < sc->n_fills; i++) smallest = fmin(smallest, sc->fills[i].radius);
  for (int i = 0; i < sc->n_emitters; i++) smallest = fmin(smallest, sc->emitters[i].radius_min);
  return isfinite(smallest) ? 0.1 * smallest : 1e-3;
}

static int read_scenario(Reader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const keys[] = {"domain", "gravity", "time", "contact", "solver", "materials", "walls", "bodies", "fills", "emitters", "analysis", "output", "joints", NULL};
  char got[96], names[256];
  int envelope_given = 0;
  if (root->type != YAML_MAPPING_NODE) {
    describe(root, got, sizeof got);
    join_names(keys, names, sizeof names);
    return fail(r, root, NULL, "the scenario must be a mapping of the keys %s, got %s; see GUIDE 'Scenario files'", names, got);
  }
  TRY(check_keys(r, root, "", keys));
  TRY(read_domain(r, root, sc));
  TRY(get_vector(r, root, "", "gravity", OPTIONAL, 3, ANY_NUMBER, "give the gravitational acceleration [x, y, z] in m/s^2", sc->gravity));
  TRY(read_time(r, root, sc));
  TRY(read_contact(r, root, sc, &envelope_given));
  TRY(read_solver(r, root, sc));
  TRY(read_materials(r, root, sc));
  TRY(read_walls(r, root, sc));
  TRY(read_bodies(r, root, sc));
  TRY(read_joints(r, root, sc));
  TRY(read_fills(r, root, sc));
  TRY(read_emitters(r, root, sc));
  TRY(read_analysis(r, root, sc));
  TRY(read_output(r, root, sc));
  if (!envelope_given) sc->envelope = default_envelope(sc);
  return 0;
}

static void set_defaults(Scenario *sc)
{
  sc->contact_model      = CONTACT_MODEL_CCP;
  sc->penalty.slide_damping = sc->penalty.roll_damping = sc->penalty.spin_damping = 1.0;
  sc->max_recovery_speed = 0.5;
  sc->warm_start_decay   = 0.99;
  sc->solver_type        = SOLVER_APGD;
  sc->max_iterations     = 500;
  sc->tolerance          = 1e-6;
  strcpy(sc->output_dir, "out");
}

/* One-line message for a libyaml failure. Reader errors (bad UTF-8) carry only a byte offset. */
static void yaml_problem(const yaml_parser_t *p, const char *text, const char *name, char *err, size_t errlen)
{
  size_t line = p->problem_mark.line + 1;
  char context[160] = "";
  if (p->error == YAML_READER_ERROR) {
    line = 1;
    for (size_t i = 0; i < p->problem_offset && text[i]; i++) line += text[i] == '\n';
  }
  if (p->context) snprintf(context, sizeof context, " (%s, which starts at line %zu)", p->context, p->context_mark.line + 1);
  if (p->error == YAML_MEMORY_ERROR) snprintf(err, errlen, "%s: out of memory while reading the scenario", name);
  else snprintf(err, errlen, "%s:%zu: malformed YAML: %s%s; fix the syntax", name, line, p->problem ? p->problem : "unknown problem", context);
}

int scenario_load_string(const char *text, const char *name, Scenario *sc, char *err, size_t errlen)
{
  yaml_parser_t   parser;
  yaml_document_t doc, extra;
  Reader          r = {name, &doc, err, errlen, 0};
  yaml_node_t    *root, *second;
  int             status = 0;

  memset(sc, 0, sizeof *sc);
  if (errlen) err[0] = 0;
  set_defaults(sc);
  if (strlen(name) >= sizeof sc->path) {
    snprintf(err, errlen, "%.200s...: the scenario path is longer than %d characters; use a shorter path", name, SCENARIO_PATH_MAX - 1);
    return 1;
  }
  strcpy(sc->path, name);
  sc->text = strdup(text);
  if (!sc->text || !yaml_parser_initialize(&parser)) {
    snprintf(err, errlen, "%s: out of memory while reading the scenario", name);
    scenario_free(sc);
    return 1;
  }
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
  if (!yaml_parser_load(&parser, &doc)) {
    yaml_problem(&parser, text, name, err, errlen);
    yaml_parser_delete(&parser);
    scenario_free(sc);
    return 1;
  }
  root = yaml_document_get_root_node(&doc);
  if (!root) {
    snprintf(err, errlen, "%s:1: the scenario is empty; write one as in GUIDE 'Scenario files'", name);
    status = 1;
  } else if (!yaml_parser_load(&parser, &extra)) {
    yaml_problem(&parser, text, name, err, errlen);
    status = 1;
  } else {
    second = yaml_document_get_root_node(&extra);
    if (second)
      status = fail(&r, second, NULL, "a second YAML document starts here; a scenario is one document, so remove the '---' and what follows");
    yaml_document_delete(&extra);
    if (!status) status = read_scenario(&r, root, sc);
  }
  yaml_document_delete(&doc);
  yaml_parser_delete(&parser);
  if (status) {
    scenario_free(sc);
    return 1;
  }
  return 0;
}

int scenario_load_file(const char *path, Scenario *sc, char *err, size_t errlen)
{
  FILE  *fp = fopen(path, "rb");
  char  *text = NULL;
  size_t len = 0, cap = 0, got;
  int    status;

  memset(sc, 0, sizeof *sc);
  if (!fp) {
    snprintf(err, errlen, "%s: cannot open the scenario (%s); check the path", path, strerror(errno));
    return 1;
  }
  do {
    if (len + 4096 + 1 > cap) {
      char *bigger = realloc(text, cap = 2 * cap + 4096 + 1);
      if (!bigger) {
        free(text);
        fclose(fp);
        snprintf(err, errlen, "%s: out of memory while reading the scenario", path);
        return 1;
      }
      text = bigger;
    }
    got = fread(text + len, 1, cap - len - 1, fp);
    len += got;
  } while (got > 0);
  if (ferror(fp)) {
    snprintf(err, errlen, "%s: cannot read the scenario (%s); check the file", path, strerror(errno));
    free(text);
    fclose(fp);
    return 1;
  }
  fclose(fp);
  text[len] = 0;
  if (strlen(text) != len) {
    snprintf(err, errlen, "%s: the scenario contains a NUL byte, so it is not a text file; check the path", path);
    free(text);
    return 1;
  }
  status = scenario_load_string(text, path, sc, err, errlen);
  free(text);
  return status;
}

void scenario_free(Scenario *sc)
{
  free(sc->text);
  free(sc->materials);
  free(sc->walls);
  free(sc->wall_lines);
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
