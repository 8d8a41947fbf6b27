/* Sections of spheres given in bulk: fills, emitters (contracts in bulk_sections.h).
 *
 * Defaults: fills: velocity 0; random seed 0; spheres (clump: NAME fills with that template's clumps,
 *     oriented at random from the seed);
 *   emitters: start 0, count 0 and end 0 (no limit of that kind; one of them is required),
 *     velocity and velocity_spread 0, seed 0; radius: a number is a fixed size; spheres (clump: NAME
 *     emits that template's clumps, semi_axes: [a, b, c] ellipsoids, oriented at random from the seed). */
#include "scenario/bulk_sections.h"
#include "scenario/shared_values.h"
#include <math.h>
#include <stdint.h>
#include <string.h>

/* clump (optional, in a fill or an emitter `what`): a template's name; then it places clumps
 * (*clump = index + 1) of the template's bounding radius (*radius), and radius may not be given. */
static int read_clump_name(YamlReader *r, const Scenario *sc, const yaml_node_t *m, const char *ip, const char *what,
                           int *clump, double *radius)
{
  char name[64] = "", kp[KEY_PATH_MAX];
  TRY(reader_get_string(r, m, ip, "clump", OPTIONAL, "name a template of the clumps section to place clumps", name,
                        sizeof name));
  if (!name[0]) return 0;
  for (int k = 0; k < sc->n_clumps; k++)
    if (!strcmp(sc->clumps[k].name, name)) {
      if (reader_field(r, m, ip, "radius", kp))
        return reader_fail(r, reader_field(r, m, ip, "radius", kp), kp,
                           "%s of clumps takes their size from clump '%s'; remove radius", what, name);
      *clump  = k + 1;
      *radius = sc->clumps[k].bounding;
      return 0;
    }
  return reader_fail(r, reader_field(r, m, ip, "clump", kp), kp,
                     "no clump is named '%s'; add clumps: [{name: %s, members: [...]}] or fix the name", name, name);
}

/* fills[i].seed (optional, default 0): the random fill's stream, and a clump fill's orientations. */
static int read_fill_seed(YamlReader *r, const yaml_node_t *m, const char *ip, FillSpec *f)
{
  long long seed = 0;
  TRY(reader_get_integer(r, m, ip, "seed", OPTIONAL, 0, "give the random seed, an integer >= 0", &seed));
  f->seed = (unsigned long)seed;
  return 0;
}

int scenario_read_fills(YamlReader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const types[]        = {"lattice", "random", NULL};
  static const char *const lattice_keys[] = {"type",     "region", "radius", "spacing", "material",
                                             "velocity", "clump",  "seed",   NULL};
  static const char *const random_keys[]  = {"type",     "region",   "radius", "count", "seed",
                                             "material", "velocity", "clump",  NULL};
  static const char *const region_keys[]  = {"min", "max", NULL};
  static const char *const axes           = "xyz";
  const char  *hint = "write fills: [{type: lattice, region: {min: [..], max: [..]}, radius: R, spacing: S, "
                      "material: NAME}]";
  char         kp[KEY_PATH_MAX], ip[KEY_PATH_MAX], rp[KEY_PATH_MAX], sp[KEY_PATH_MAX];
  yaml_node_t *list, *m, *region;
  int          n;
  TRY(reader_get_list(r, root, "", "fills", OPTIONAL, hint, &list, kp));
  if (!list) return 0;
  n = reader_count(list);
  if (!(sc->fills = reader_calloc(r, list, kp, (size_t)n + 1, sizeof(FillSpec)))) return -1;
  for (int i = 0; i < n; i++) {
    FillSpec *f    = &sc->fills[i];
    int       type = -1;
    TRY(reader_get_entry(r, list, kp, i, "write {type: lattice, ...} or {type: random, ...}", &m, ip));
    TRY(reader_get_choice(r, m, ip, "type", REQUIRED, types, "give the fill type lattice or random", &type));
    f->type = (FillType)type;
    TRY(reader_check_keys(r, m, ip, f->type == FILL_LATTICE ? lattice_keys : random_keys));
    TRY(reader_get_mapping(r, m, ip, "region", REQUIRED, region_keys,
                           "give region: {min: [x, y, z], max: [x, y, z]} (m)", &region, rp));
    TRY(scenario_get_box(r, region, rp, "region", f->region_min, f->region_max));
    TRY(read_clump_name(r, sc, m, ip, "a fill", &f->clump, &f->radius));
    if (!f->clump)
      TRY(reader_get_number(r, m, ip, "radius", REQUIRED, POSITIVE, "give the sphere radius in m", &f->radius));
    for (int a = 0; a < 3; a++) /* slack: a region one diameter wide, written in decimals */
      if (f->region_max[a] - f->region_min[a] < 2 * f->radius * (1 - 1e-9))
        return reader_fail(r, region, rp,
                           "is %g m wide along %c, less than one sphere diameter %g m; "
                           "enlarge the region or reduce the radius",
                           f->region_max[a] - f->region_min[a], axes[a], 2 * f->radius);
    if (f->type == FILL_LATTICE) {
      TRY(reader_get_number(r, m, ip, "spacing", REQUIRED, POSITIVE,
                            "give the distance between neighbouring centres in m (>= 2 radius)", &f->spacing));
      if (f->spacing < 2 * f->radius)
        return reader_fail(r, reader_field(r, m, ip, "spacing", sp), sp,
                           "spacing %g is less than the sphere diameter %g, so the spheres would overlap; "
                           "set spacing >= %g",
                           f->spacing, 2 * f->radius, 2 * f->radius);
      if (!f->clump && reader_field(r, m, ip, "seed", sp))
        return reader_fail(r, reader_field(r, m, ip, "seed", sp), sp,
                           "a lattice of spheres draws nothing; remove seed (it seeds a clump lattice's orientations)");
      TRY(read_fill_seed(r, m, ip, f));
    } else {
      long long count = 0;
      TRY(reader_get_integer(r, m, ip, "count", REQUIRED, 1, "give the number of spheres to place", &count));
      TRY(read_fill_seed(r, m, ip, f));
      if (count > INT32_MAX)
        return reader_fail(r, reader_field(r, m, ip, "count", sp), sp, "must be <= %d (got %lld); place fewer spheres",
                           INT32_MAX, count);
      f->count = (long)count;
    }
    TRY(reader_get_vector(r, m, ip, "velocity", OPTIONAL, 3, ANY_NUMBER,
                          "give the initial velocity [x, y, z] of every sphere in m/s", f->velocity));
    TRY(scenario_get_material(r, sc, m, ip, &f->material));
    f->line     = reader_line(m);
    sc->n_fills = i + 1;
  }
  return 0;
}

/* radius: R (fixed), or {distribution: uniform, min, max}, or {distribution: normal, mean, std, min, max} */
static int read_emitter_radius(YamlReader *r, const yaml_node_t *m, const char *ip, EmitterSpec *e)
{
  static const char *const dists[]   = {"fixed", "uniform", "normal", NULL};
  static const char *const keys[][6] = {{"distribution", "value", NULL},
                                        {"distribution", "min", "max", NULL},
                                        {"distribution", "mean", "std", "min", "max", NULL}};
  const char              *hint      = "give radius: R, or {distribution: uniform, min: A, max: B}, "
                                       "or {distribution: normal, mean: M, std: S, min: A, max: B} (m)";
  char                     kp[KEY_PATH_MAX], dp[KEY_PATH_MAX];
  yaml_node_t             *v    = reader_field(r, m, ip, "radius", kp);
  int                      dist = SIZE_FIXED;
  if (!v) return reader_missing(r, m, kp, hint);
  if (v->type == YAML_SCALAR_NODE) {
    e->size = SIZE_FIXED;
    TRY(reader_get_number(r, m, ip, "radius", REQUIRED, POSITIVE, hint, &e->radius));
    e->radius_min = e->radius_max = e->radius;
    return 0;
  }
  TRY(reader_expect_mapping(r, v, kp, hint));
  TRY(reader_get_choice(r, v, kp, "distribution", REQUIRED, dists,
                        "give the size distribution fixed, uniform or normal", &dist));
  e->size = (SizeDistribution)dist;
  TRY(reader_check_keys(r, v, kp, keys[dist]));
  if (dist == SIZE_FIXED) {
    TRY(reader_get_number(r, v, kp, "value", REQUIRED, POSITIVE, "give the radius in m", &e->radius));
    e->radius_min = e->radius_max = e->radius;
    return 0;
  }
  TRY(reader_get_number(r, v, kp, "min", REQUIRED, POSITIVE, "give the smallest radius in m", &e->radius_min));
  TRY(reader_get_number(r, v, kp, "max", REQUIRED, POSITIVE, "give the largest radius in m", &e->radius_max));
  if (e->radius_max < e->radius_min)
    return reader_fail(r, reader_field(r, v, kp, "max", dp), dp, "%g is less than min %g; give min <= max",
                       e->radius_max, e->radius_min);
  if (dist == SIZE_NORMAL) {
    TRY(reader_get_number(r, v, kp, "mean", REQUIRED, POSITIVE, "give the mean radius in m", &e->radius_mean));
    TRY(reader_get_number(r, v, kp, "std", REQUIRED, NON_NEGATIVE, "give the standard deviation of the radius in m",
                          &e->radius_std));
    if (e->radius_mean < e->radius_min || e->radius_mean > e->radius_max)
      return reader_fail(r, reader_field(r, v, kp, "mean", dp), dp,
                         "%g lies outside [min, max] = [%g, %g]; the normal is truncated to that range", e->radius_mean,
                         e->radius_min, e->radius_max);
  }
  e->radius = dist == SIZE_NORMAL ? e->radius_mean : 0.5 * (e->radius_min + e->radius_max);
  return 0;
}

/* Bad emitters are caught here (GUIDE: at check): a region outside the domain or narrower than the
 * largest sphere, and a rate whose bodies of one step could not fit in the region without
 * overlap (more than 30% of its volume, about the densest a random placement reaches easily). */
static int check_emitter(YamlReader *r, const yaml_node_t *m, const char *ip, const yaml_node_t *region, const char *rp,
                         const Scenario *sc, const EmitterSpec *e)
{
  static const char *const axes = "xyz";
  char                     kp[KEY_PATH_MAX];
  double                   volume = 1, per_step, batch;
  for (int a = 0; a < 3; a++) {
    if (e->region_min[a] < sc->domain_min[a] || e->region_max[a] > sc->domain_max[a])
      return reader_fail(r, region, rp,
                         "[%g, %g] along %c is not inside the domain [%g, %g]; move the emitter region into the domain",
                         e->region_min[a], e->region_max[a], axes[a], sc->domain_min[a], sc->domain_max[a]);
    if (e->region_max[a] - e->region_min[a] < 2 * e->radius_max)
      return reader_fail(r, region, rp,
                         "is %g m wide along %c, less than the largest sphere diameter %g m; enlarge the region",
                         e->region_max[a] - e->region_min[a], axes[a], 2 * e->radius_max);
    volume *= e->region_max[a] - e->region_min[a];
  }
  per_step = ceil(e->rate * sc->time_step);
  batch    = per_step * 4.0 / 3.0 * M_PI * pow(e->radius_max, 3);
  if (batch > 0.3 * volume)
    return reader_fail(r, reader_field(r, m, ip, "rate", kp), kp,
                       "%g bodies per second are %g per step of %g s, %.3g m^3 of spheres, "
                       "more than 30%% of the region's %.3g m^3, so they cannot be placed without overlap; "
                       "lower the rate, enlarge the region or shorten the time step",
                       e->rate, per_step, sc->time_step, batch, volume);
  return 0;
}

/* semi_axes (optional, in an emitter): it pours ellipsoids of these semi-axes (each > 0), whose fixed
 * radius is the largest; not with clump or radius, nor beside walls other than planes or box bodies,
 * which ellipsoids do not touch (collision/ellipsoid_contact.h). */
static int read_ellipsoid_emitter(YamlReader *r, const yaml_node_t *m, const char *ip, const Scenario *sc,
                                  EmitterSpec *e)
{
  char kp[KEY_PATH_MAX];
  if (!reader_field(r, m, ip, "semi_axes", kp)) return 0;
  if (e->clump || reader_field(r, m, ip, "radius", kp))
    return reader_fail(r, m, ip, "gives semi_axes and %s; an emitter pours one kind of body, so remove one",
                       e->clump ? "clump" : "radius");
  TRY(reader_get_vector(r, m, ip, "semi_axes", REQUIRED, 3, POSITIVE,
                        "give the ellipsoids' semi-axes [a, b, c] along their body axes in m, each > 0", e->semi_axes));
  e->radius = fmax(e->semi_axes[0], fmax(e->semi_axes[1], e->semi_axes[2]));
  TRY(scenario_check_ellipsoid_walls(r, sc, m, ip, "pours ellipsoids, which touch"));
  for (int k = 0; k < sc->n_bodies; k++)
    if (sc->bodies[k].shape == SHAPE_BOX)
      return reader_fail(r, m, ip,
                         "pours ellipsoids, which do not touch boxes, and bodies[%d] (line %d) is a box; remove the "
                         "box or pour spheres",
                         k, sc->bodies[k].line);
  return 0;
}

int scenario_read_emitters(YamlReader *r, const yaml_node_t *root, Scenario *sc)
{
  static const char *const keys[] = {"region",          "rate", "count",    "start", "end",       "radius", "velocity",
                                     "velocity_spread", "seed", "material", "clump", "semi_axes", NULL};
  static const char *const region_keys[] = {"min", "max", NULL};
  const char *hint = "write emitters: [{region: {min: [..], max: [..]}, rate: N, count: C, radius: R, material: NAME}]";
  char        kp[KEY_PATH_MAX], ip[KEY_PATH_MAX], rp[KEY_PATH_MAX], sp[KEY_PATH_MAX];
  yaml_node_t *list, *m, *region;
  int          n;
  TRY(reader_get_list(r, root, "", "emitters", OPTIONAL, hint, &list, kp));
  if (!list) return 0;
  n = reader_count(list);
  if (!(sc->emitters = reader_calloc(r, list, kp, (size_t)n + 1, sizeof(EmitterSpec)))) return -1;
  for (int i = 0; i < n; i++) {
    EmitterSpec *e     = &sc->emitters[i];
    long long    count = 0, seed = 0;
    TRY(reader_get_entry(r, list, kp, i, hint, &m, ip));
    TRY(reader_check_keys(r, m, ip, keys));
    TRY(reader_get_mapping(r, m, ip, "region", REQUIRED, region_keys,
                           "give region: {min: [x, y, z], max: [x, y, z]} (m)", &region, rp));
    TRY(scenario_get_box(r, region, rp, "region", e->region_min, e->region_max));
    TRY(reader_get_number(r, m, ip, "rate", REQUIRED, POSITIVE, "give the bodies per second", &e->rate));
    TRY(reader_get_integer(r, m, ip, "count", OPTIONAL, 0, "give the total number of bodies to emit (0: no limit)",
                           &count));
    TRY(
      reader_get_number(r, m, ip, "start", OPTIONAL, NON_NEGATIVE, "give the time to start emitting in s", &e->start));
    TRY(reader_get_number(r, m, ip, "end", OPTIONAL, NON_NEGATIVE, "give the time to stop emitting in s (0: no limit)",
                          &e->end));
    if (!count && !e->end)
      return reader_fail(r, m, ip, "has neither count nor end, so it would never stop; give count: N or end: T");
    if (e->end && e->end <= e->start)
      return reader_fail(r, reader_field(r, m, ip, "end", sp), sp, "%g is not after start %g; give end > start", e->end,
                         e->start);
    e->count = (long)count;
    TRY(read_clump_name(r, sc, m, ip, "an emitter", &e->clump, &e->radius));
    TRY(read_ellipsoid_emitter(r, m, ip, sc, e));
    if (e->clump || e->semi_axes[0] > 0) e->radius_min = e->radius_max = e->radius; /* size SIZE_FIXED (zeroed) */
    else TRY(read_emitter_radius(r, m, ip, e));
    TRY(reader_get_vector(r, m, ip, "velocity", OPTIONAL, 3, ANY_NUMBER,
                          "give the mean velocity [x, y, z] of the new bodies in m/s", e->velocity));
    TRY(reader_get_vector(r, m, ip, "velocity_spread", OPTIONAL, 3, NON_NEGATIVE,
                          "give the half-width [x, y, z] of the uniform random velocity added, in m/s",
                          e->velocity_spread));
    TRY(reader_get_integer(r, m, ip, "seed", OPTIONAL, 0, "give the random seed, an integer >= 0", &seed));
    e->seed = (unsigned long)seed;
    TRY(scenario_get_material(r, sc, m, ip, &e->material));
    TRY(check_emitter(r, m, ip, region, rp, sc, e));
    e->line        = reader_line(m);
    sc->n_emitters = i + 1;
  }
  return 0;
}
