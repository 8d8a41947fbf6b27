/* The initial bodies of a scenario and the checks that they make a sane start.
 *
 * Order and ids: explicit bodies in file order, then each fill in file order; a lattice fill in
 * x-fastest, then y, then z order, a random fill in placement order. Nothing depends on the rank
 * count, so every rank may build the same population and keep the bodies it owns.
 *
 * Lattice fill: centres region.min + radius + k spacing per axis while centre + radius <=
 * region.max, with a relative slack of 1e-9 spacing so a lattice that fits exactly on paper is not
 * lost to rounding of the decimal inputs.
 *
 * Random fill: centres uniform in [region.min + r, region.max - r] from a splitmix64 stream seeded
 * by the fill's seed (the same file gives the same spheres on every machine), rejected when the
 * sphere would overlap the bounding sphere of any body placed before it (explicit bodies, earlier
 * fills, its own earlier spheres) or penetrate a wall, so the result is a valid start by
 * construction. At most RANDOM_FILL_TRIES_PER_SPHERE x count draws, then bad input. A cell grid
 * over the fill region makes each draw O(1); earlier bodies too large for its cells (radius + r >
 * cell) are tested one by one, which is slow only if many such bodies reach into the region.
 *
 * Checks, in body order and then pair order, reporting the first problem:
 *   - the centre lies in the domain (bodies whose centre leaves it are removed during a run);
 *   - no wall penetration deeper than START_OVERLAP_FRACTION of the body's bounding radius;
 *   - no body-body overlap deeper than START_OVERLAP_FRACTION of the smaller bounding radius
 *     (larger overlaps would be pushed apart at up to max_recovery_speed: an explosion, not a
 *     start);
 *   - for the packed CCP solvers (unless -ccp_packed false; the penalty model keeps the inertia
 *     in double), no explicit body whose principal moments they would round into an inaccurate
 *     inverse inertia (ccp/packed_inertia.h).
 * Before those, each body's state must be one the step can compute with (check_state): sizes of
 * at least SCENARIO_MIN_SIZE and at most the domain's diagonal; mass, moments, momenta, energies
 * and gravity's impulse within SCENARIO_VALUE_MAX (and mass and moments above its inverse); for
 * the packed CCP solvers inverse mass and moments within PACKED_INVERSE_MAX. The emitters' bodies
 * are checked at both ends of their radius range, and the memory the bodies need against what
 * this process may allocate (check_memory). */
#include "step/population.h"
#include "base/random.h"
#include "collision/broadphase.h"
#include "collision/narrowphase.h"
#include "collision/box_box.h"
#include "collision/clump_contact.h"
#include "collision/cylinder_contact.h"
#include "collision/ellipsoid_contact.h"
#include "collision/ellipsoid_walls.h"
#include "collision/triangle_contact.h"
#include "step/wall_meshes.h"
#include "ccp/packed_inertia.h"
#include "ccp/solver.h"
#include "base/vec3.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define START_OVERLAP_FRACTION 0.01 /* tolerated initial overlap, fraction of the (smaller) radius */
/* The packed CCP solvers round a body's inverse mass and world inverse inertia to single precision
 * (ccp/pack.h): each within [1 / PACKED_INVERSE_MAX, PACKED_INVERSE_MAX], a factor 10^6 inside
 * float's normal range, so that their products in the sweeps stay finite and normal. */
#define PACKED_INVERSE_MAX 1e32
/* Memory per body (check_memory): while the population is built and checked, every rank holds all
 * of it (a store row, and the random fill's grid and the overlap check's broadphase, about 128
 * bytes); while stepping, a rank holds its share at up to about 1.5 KB per body with its contacts
 * (docs/performance.md; docs/design.md "Memory per body"), counted as 2 KB. */
#define BUILD_BYTES_PER_BODY ((double)sizeof(BodyRecord) + 128)
#define RUN_BYTES_PER_BODY   2048.0
/* Random sequential placement cannot fill more of a region than the densest packing of spheres,
 * pi / sqrt(18) (Kepler); a fill asking more is refused before any try. */
#define DENSEST_PACKING              0.74048
#define RANDOM_FILL_TRIES_PER_SPHERE 1000
#define LATTICE_SLACK                1e-9 /* in units of the spacing */

/* ---- messages ------------------------------------------------------------------------------ */

static void report(char *err, size_t errlen, const Scenario *sc, int line, const char *key, const char *fmt, ...)
{
  va_list ap;
  int     k = snprintf(err, errlen, "%s:%d: key '%s': ", sc->path, line, key);
  va_start(ap, fmt);
  if (k >= 0 && (size_t)k < errlen) vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
  va_end(ap);
}

/* Where body `id` came from: an explicit body (*fill = -1, *k = index) or sphere *k of fill *fill. */
typedef struct {
  const Scenario *sc;
  const PetscInt *fill_first; /* id of the first sphere of each fill; [n_fills] = total */
} Origins;

static void origin_of(const Origins *o, PetscInt id, int *fill, PetscInt *k)
{
  *fill = -1;
  *k    = id;
  if (id < o->sc->n_bodies) return;
  for (int f = 0; f < o->sc->n_fills; f++)
    if (id < o->fill_first[f + 1]) {
      *fill = f;
      *k    = id - o->fill_first[f];
      return;
    }
}

/* The key path and line of the spec that made body id. */
static void origin_key(const Origins *o, PetscInt id, char *key, size_t n, int *line)
{
  int      f;
  PetscInt k;
  origin_of(o, id, &f, &k);
  if (f < 0) {
    snprintf(key, n, "bodies[%" PetscInt_FMT "]", k);
    *line = o->sc->bodies[k].line;
  } else {
    snprintf(key, n, "fills[%d]", f);
    *line = o->sc->fills[f].line;
  }
}

/* "sphere 17 at (x, y, z) " (trailing space) for a fill sphere, "" for an explicit body: the
 * subject of a message whose key already names the spec. */
static void origin_subject(const Origins *o, PetscInt id, const double pos[3], char *buf, size_t n)
{
  int      f;
  PetscInt k;
  origin_of(o, id, &f, &k);
  if (f < 0) buf[0] = 0;
  else snprintf(buf, n, "sphere %" PetscInt_FMT " at (%g, %g, %g) ", k, pos[0], pos[1], pos[2]);
}

/* "bodies[3] (line 12)" or "sphere 16 of fills[0] at (x, y, z) (line 20)": the other party. */
static void origin_name(const Origins *o, PetscInt id, const double pos[3], char *buf, size_t n)
{
  int      f;
  PetscInt k;
  origin_of(o, id, &f, &k);
  if (f < 0) snprintf(buf, n, "bodies[%" PetscInt_FMT "] (line %d)", k, o->sc->bodies[k].line);
  else
    snprintf(buf, n, "sphere %" PetscInt_FMT " of fills[%d] at (%g, %g, %g) (line %d)", k, f, pos[0], pos[1], pos[2],
             o->sc->fills[f].line);
}

/* ---- records ------------------------------------------------------------------------------- */

void population_record_from_spec(const Scenario *sc, const BodySpec *spec, int64_t id, BodyRecord *rec)
{
  const Material *mat = &sc->materials[spec->material];
  const double   *q   = spec->orientation;

  memset(rec, 0, sizeof(*rec));
  rec->id[0] = id;
  v3_copy(rec->pos, spec->position);
  if (q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0) rec->quat[0] = 1; /* unset: identity */
  else {
    for (int k = 0; k < 4; k++) rec->quat[k] = q[k];
    quat_normalize(rec->quat);
  }
  rec->shape[0] = spec->shape;
  v3_copy(rec->size, spec->size);
  if (spec->shape == SHAPE_CLUMP) { /* the body frame is the template's principal frame at its centre of mass */
    const Clump *t = &sc->clumps[(int)spec->size[0]];
    double       c[3], q[4];
    quat_rotate(c, rec->quat, t->com);
    v3_add(rec->pos, rec->pos, c);
    quat_mul(q, rec->quat, t->quat);
    quat_normalize(q);
    for (int k = 0; k < 4; k++) rec->quat[k] = q[k];
    rec->radius[0] = t->bounding;
    rec->mass[0]   = spec->mass > 0 ? spec->mass : mat->density * t->volume;
    v3_scale(rec->inertia, rec->mass[0] / t->volume, t->moments);
    if (spec->inertia[0] > 0 && spec->inertia[1] > 0 && spec->inertia[2] > 0) v3_copy(rec->inertia, spec->inertia);
  } else {
    if (spec->shape == SHAPE_SPHERE) rec->size[1] = rec->size[2] = rec->size[0];
    rec->radius[0] = shape_bounding_radius(spec->shape, rec->size);
    rec->mass[0]   = spec->mass > 0 ? spec->mass : mat->density * shape_volume(spec->shape, rec->size);
    if (spec->inertia[0] > 0 && spec->inertia[1] > 0 && spec->inertia[2] > 0) v3_copy(rec->inertia, spec->inertia);
    else shape_inertia(spec->shape, rec->size, rec->mass[0], rec->inertia);
  }
  v3_copy(rec->vel, spec->velocity);
  quat_rotate_inv(rec->vel + 3, rec->quat, spec->angular_velocity); /* world -> body frame */
  rec->material[0] = spec->material;
}

/* A uniformly distributed unit quaternion (Shoemake's method) from three draws of the stream. */
static void random_orientation(uint64_t *state, double q[4])
{
  const double u = uniform01(state), a = 2 * M_PI * uniform01(state), b = 2 * M_PI * uniform01(state);
  q[0] = sqrt(1 - u) * sin(a);
  q[1] = sqrt(1 - u) * cos(a);
  q[2] = sqrt(u) * sin(b);
  q[3] = sqrt(u) * cos(b);
}

void population_clump_pose(const Scenario *sc, int clump, const double c[3], uint64_t *orient, BodySpec *b)
{
  const Clump *t = &sc->clumps[clump];
  double       com[3];
  b->shape   = SHAPE_CLUMP;
  b->size[0] = clump;
  b->size[1] = t->member_radius;
  b->size[2] = 0;
  random_orientation(orient, b->orientation);
  quat_rotate(com, b->orientation, t->com);
  v3_sub(b->position, c, com); /* the template's origin, so that its centre of mass is at c */
}

void population_ellipsoid_pose(const double semi[3], uint64_t *orient, BodySpec *b)
{
  b->shape = SHAPE_ELLIPSOID;
  for (int k = 0; k < 3; k++) b->size[k] = semi[k];
  random_orientation(orient, b->orientation);
}

/* The spec of one fill body at c: a sphere, or a clump (f->clump) with its centre of mass at c,
 * turned by the next orientation of the stream orient. */
static void fill_sphere_spec(const Scenario *sc, const FillSpec *f, const double c[3], uint64_t *orient, BodySpec *b)
{
  memset(b, 0, sizeof(*b));
  b->shape   = SHAPE_SPHERE;
  b->size[0] = b->size[1] = b->size[2] = f->radius;
  v3_copy(b->position, c);
  v3_copy(b->velocity, f->velocity);
  b->orientation[0] = 1;
  b->material       = f->material;
  b->line           = f->line;
  if (f->clump) population_clump_pose(sc, f->clump - 1, c, orient, b);
}

/* The stream of a clump fill's orientations: its own, so that a random fill places its bodies
 * where a sphere fill of the same seed would. */
static uint64_t orientation_stream(const FillSpec *f) { return (uint64_t)f->seed ^ 0x6A09E667F3BCC908ULL; }

static PetscErrorCode AppendFillSphere(const Scenario *sc, const FillSpec *f, const double c[3], uint64_t *orient,
                                       BodyStore *s)
{
  BodySpec   spec;
  BodyRecord rec;

  PetscFunctionBegin;
  fill_sphere_spec(sc, f, c, orient, &spec);
  population_record_from_spec(sc, &spec, (int64_t)s->n_owned, &rec);
  PetscCall(BodyStoreAppendOwned(s, &rec));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- lattice fill -------------------------------------------------------------------------- */

static double lattice_count_axis(const FillSpec *f, int a)
{
  const double free = f->region_max[a] - f->region_min[a] - 2 * f->radius;
  return fmax(0, floor(free / f->spacing + LATTICE_SLACK) + 1);
}

static double fill_count(const FillSpec *f)
{
  if (f->type == FILL_RANDOM) return (double)f->count;
  return lattice_count_axis(f, 0) * lattice_count_axis(f, 1) * lattice_count_axis(f, 2);
}

static PetscErrorCode FillLattice(const Scenario *sc, const FillSpec *f, BodyStore *s)
{
  const PetscInt n[3]   = {(PetscInt)lattice_count_axis(f, 0), (PetscInt)lattice_count_axis(f, 1),
                           (PetscInt)lattice_count_axis(f, 2)};
  uint64_t       orient = orientation_stream(f);

  PetscFunctionBegin;
  for (PetscInt k = 0; k < n[2]; k++)
    for (PetscInt j = 0; j < n[1]; j++)
      for (PetscInt i = 0; i < n[0]; i++) {
        const PetscInt idx[3] = {i, j, k};
        double         c[3];
        for (int a = 0; a < 3; a++) c[a] = f->region_min[a] + f->radius + (double)idx[a] * f->spacing;
        PetscCall(AppendFillSphere(sc, f, c, &orient, s));
      }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- random fill --------------------------------------------------------------------------- */

/* Spheres that a random candidate must not overlap: the small ones in a cell grid over the
 * candidate box (cell >= candidate radius + their radius, so the 27 cells around a candidate hold
 * every possible hit), the rest in a list. */
typedef struct {
  double    lo[3], cell;
  PetscInt  dims[3];
  PetscInt *head, *next; /* per cell: first item; per item: next item in its cell; -1 ends */
  double   *item;        /* x, y, z, r */
  PetscInt  n;
  PetscInt *big, nbig; /* items tested against every candidate */
} FillGrid;

static PetscInt grid_coord(const FillGrid *g, double x, int a)
{
  const double k = floor((x - g->lo[a]) / g->cell);
  return k < 0
         ? 0
         : (k >= (double)g->dims[a] ? g->dims[a] - 1 : (PetscInt)k); /* clamping keeps near-outside items adjacent */
}

static void grid_add(FillGrid *g, const double c[3], double r, PetscBool big)
{
  const PetscInt it = g->n++;
  v3_copy(g->item + 4 * it, c);
  g->item[4 * it + 3] = r;
  if (big) g->big[g->nbig++] = it;
  else {
    const PetscInt cell = grid_coord(g, c[0], 0) +
                          g->dims[0] * (grid_coord(g, c[1], 1) + g->dims[1] * grid_coord(g, c[2], 2));
    g->next[it]   = g->head[cell];
    g->head[cell] = it;
  }
}

static PetscBool item_overlaps(const FillGrid *g, PetscInt it, const double c[3], double r)
{
  const double *p = g->item + 4 * it, reach = r + p[3];
  double        d[3];
  v3_sub(d, c, p);
  return v3_dot(d, d) < reach * reach ? PETSC_TRUE : PETSC_FALSE;
}

static PetscBool grid_overlaps(const FillGrid *g, const double c[3], double r)
{
  const PetscInt ci[3] = {grid_coord(g, c[0], 0), grid_coord(g, c[1], 1), grid_coord(g, c[2], 2)};
  for (PetscInt z = PetscMax(ci[2] - 1, 0); z <= PetscMin(ci[2] + 1, g->dims[2] - 1); z++)
    for (PetscInt y = PetscMax(ci[1] - 1, 0); y <= PetscMin(ci[1] + 1, g->dims[1] - 1); y++)
      for (PetscInt x = PetscMax(ci[0] - 1, 0); x <= PetscMin(ci[0] + 1, g->dims[0] - 1); x++)
        for (PetscInt it = g->head[x + g->dims[0] * (y + g->dims[1] * z)]; it >= 0; it = g->next[it])
          if (item_overlaps(g, it, c, r)) return PETSC_TRUE;
  for (PetscInt b = 0; b < g->nbig; b++)
    if (item_overlaps(g, g->big[b], c, r)) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* Signed gap between a sphere and wall w (negative: penetration). A mesh's is its deepest
 * contact's, HUGE_VAL where the sphere does not touch it (a search over the whole mesh would cost
 * its triangles per body). */
static double sphere_wall_gap(const Wall *w, const double c[3], double r)
{
  ContactPoint cp = {.phi = NAN}; /* no point (a NaN centre): the gap is NaN too */
  if (w->type == WALL_PLANE) narrow_plane_sphere(w->point, w->normal, c, r, HUGE_VAL, &cp);
  else if (w->type == WALL_CYLINDER) narrow_cylinder_sphere(w, c, r, HUGE_VAL, &cp);
  else if (w->type == WALL_MESH) {
    ContactPoint pts[NARROW_MAX_POINTS];
    const int    np = narrow_mesh_sphere(w->mesh, w->center, w->quat, c, r, 0, pts);
    cp.phi          = isfinite(c[0] + c[1] + c[2]) ? HUGE_VAL : NAN;
    for (int k = 0; k < np; k++) cp.phi = PetscMin(cp.phi, pts[k].phi);
  } else narrow_box_sphere(w->center, w->quat, w->half_extents, c, r, HUGE_VAL, &cp);
  return cp.phi;
}

static PetscBool sphere_hits_wall(const Scenario *sc, const double c[3], double r)
{
  for (int k = 0; k < sc->n_walls; k++)
    if (sphere_wall_gap(&sc->walls[k], c, r) < 0) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* Grid over the candidate box [lo, hi] with room for `count` new spheres of radius r and the
 * bodies of s that can reach the box. */
static PetscErrorCode FillGridCreate(const BodyStore *s, const double lo[3], const double hi[3], double r,
                                     PetscInt count, FillGrid *g)
{
  const double max_cells = 4.0 * (double)count + 4096;
  PetscInt     ncells, nprev = 0, nitems;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(g, sizeof(*g)));
  g->cell = 2 * r;
  for (;;) {
    double cells = 1;
    for (int a = 0; a < 3; a++) cells *= floor((hi[a] - lo[a]) / g->cell) + 1;
    if (cells <= max_cells) break;
    g->cell *= PetscMax(1.01, cbrt(cells / max_cells));
  }
  for (int a = 0; a < 3; a++) {
    g->lo[a]   = lo[a];
    g->dims[a] = (PetscInt)floor((hi[a] - lo[a]) / g->cell) + 1;
  }
  ncells = g->dims[0] * g->dims[1] * g->dims[2];
  for (PetscInt i = 0; i < s->n_owned; i++) {
    double d2 = 0;
    for (int a = 0; a < 3; a++) {
      const double x = s->pos[3 * i + a], out = x < lo[a] ? lo[a] - x : (x > hi[a] ? x - hi[a] : 0);
      d2 += out * out;
    }
    if (d2 < (r + s->radius[i]) * (r + s->radius[i])) nprev++;
  }
  nitems = nprev + count;
  PetscCall(PetscMalloc4(ncells, &g->head, nitems, &g->next, 4 * (size_t)nitems, &g->item, nitems, &g->big));
  for (PetscInt c = 0; c < ncells; c++) g->head[c] = -1;
  for (PetscInt i = 0; i < s->n_owned; i++) {
    double d2 = 0;
    for (int a = 0; a < 3; a++) {
      const double x = s->pos[3 * i + a], out = x < lo[a] ? lo[a] - x : (x > hi[a] ? x - hi[a] : 0);
      d2 += out * out;
    }
    if (d2 < (r + s->radius[i]) * (r + s->radius[i]))
      grid_add(g, s->pos + 3 * i, s->radius[i], r + s->radius[i] > g->cell ? PETSC_TRUE : PETSC_FALSE);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FillGridDestroy(FillGrid *g)
{
  PetscFunctionBegin;
  PetscCall(PetscFree4(g->head, g->next, g->item, g->big));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FillRandom(const Scenario *sc, int fidx, BodyStore *s, char *err, size_t errlen)
{
  const FillSpec *f         = &sc->fills[fidx];
  const double    r         = f->radius;
  const long long max_tries = (long long)RANDOM_FILL_TRIES_PER_SPHERE * f->count;
  const double    region    = (f->region_max[0] - f->region_min[0]) * (f->region_max[1] - f->region_min[1]) *
                        (f->region_max[2] - f->region_min[2]);
  const double asked = (double)f->count * shape_volume(SHAPE_SPHERE, (double[3]){r, r, r}) / region;
  double       lo[3], hi[3], c[3];
  uint64_t     state = (uint64_t)f->seed, orient = orientation_stream(f);
  long long    tries  = 0;
  PetscInt     placed = 0;
  FillGrid     g;
  char         key[32];

  PetscFunctionBegin;
  snprintf(key, sizeof key, "fills[%d]", fidx);
  if (!(asked <= DENSEST_PACKING)) {
    report(err, errlen, sc, f->line, key,
           "%ld spheres of radius %g m would fill %.0f%% of the region, more than the densest packing of spheres "
           "(74%%; random placement jams near 30%%); enlarge the region or lower count or radius",
           f->count, r, 100 * asked);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (int a = 0; a < 3; a++) {
    lo[a] = f->region_min[a] + r;
    hi[a] = PetscMax(f->region_max[a] - r, lo[a]);
  }
  PetscCall(FillGridCreate(s, lo, hi, r, (PetscInt)f->count, &g));
  while (placed < f->count && tries < max_tries) {
    tries++;
    for (int a = 0; a < 3; a++) c[a] = lo[a] + uniform01(&state) * (hi[a] - lo[a]);
    if (grid_overlaps(&g, c, r) || sphere_hits_wall(sc, c, r)) continue;
    grid_add(&g, c, r, PETSC_FALSE);
    PetscCall(AppendFillSphere(sc, f, c, &orient, s));
    placed++;
  }
  PetscCall(FillGridDestroy(&g));
  if (placed < f->count)
    report(err, errlen, sc, f->line, key,
           "placed only %" PetscInt_FMT
           " of %ld spheres without overlap in %lld random tries (the spheres would fill %.0f%% of the region; random "
           "placement jams near 30%%); enlarge the region or lower count or radius",
           placed, f->count, tries, 100 * asked);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- checks -------------------------------------------------------------------------------- */

/* What the state checks compare with (check_state). */
typedef struct {
  double    size_min; /* smallest sphere radius or box half extent (m) */
  double    diagonal; /* the domain's diagonal: the largest bounding radius (m) */
  double    reach;    /* the domain's largest |coordinate| (m), for the potential energy */
  PetscBool packed;   /* the packed CCP solvers hold the inverse mass and moments in single precision */
} StateLimits;

static void state_limits(const Scenario *sc, PetscBool packed, StateLimits *lim)
{
  double d2 = 0, reach = 0;
  for (int a = 0; a < 3; a++) {
    const double w = sc->domain_max[a] - sc->domain_min[a];
    d2 += w * w;
    reach = PetscMax(reach, PetscMax(PetscAbsReal(sc->domain_min[a]), PetscAbsReal(sc->domain_max[a])));
  }
  lim->diagonal = sqrt(d2);
  lim->reach    = reach;
  lim->size_min = PetscMax(SCENARIO_MIN_SIZE, SCENARIO_MIN_SIZE * reach);
  lim->packed   = (PetscBool)(packed && sc->contact_model == CONTACT_MODEL_CCP);
}

/* The first quantity of body b (a record as population_record_from_spec makes it) that the step
 * cannot compute with, as "what is wrong; what to change" in why; "" if none. */
static void check_state(const Scenario *sc, const StateLimits *lim, const BodyRecord *b, char *why, size_t len)
{
  const double   *v = b->vel, *w = b->vel + 3, *I = b->inertia, m = b->mass[0], hi = SCENARIO_VALUE_MAX;
  const double    lo = 1 / SCENARIO_VALUE_MAX, g = v3_norm(sc->gravity), speed = v3_norm(v);
  const Material *mat      = &sc->materials[b->material[0]];
  const int       clump    = b->shape[0] == SHAPE_CLUMP;
  const int       nsizes   = b->shape[0] == SHAPE_BOX || b->shape[0] == SHAPE_ELLIPSOID ? 3 : 1;
  const char     *dims     = clump                          ? "smallest member radius"
                           : b->shape[0] == SHAPE_SPHERE    ? "radius"
                           : b->shape[0] == SHAPE_ELLIPSOID ? "semi-axis"
                                                            : "half extent";
  const double    sizes[3] = {clump ? sc->clumps[(int)b->size[0]].min_radius : b->size[0], b->size[1], b->size[2]};
  double          Iw[3], kinetic;
  char            source[160];

  why[0] = 0;
  for (int a = 0; a < nsizes; a++)
    if (!(sizes[a] >= lim->size_min)) {
      snprintf(why, len,
               "its %s %g m is below %g m (%g m, or %g of the domain's largest coordinate %g m, where positions are "
               "rounded to about 2^-52 of it); give a larger body, or a domain nearer the origin",
               dims, sizes[a], lim->size_min, SCENARIO_MIN_SIZE, SCENARIO_MIN_SIZE, lim->reach);
      return;
    }
  if (!(b->radius[0] <= lim->diagonal)) {
    snprintf(why, len, "its bounding radius %g m exceeds the domain's diagonal %g m; make it smaller than the domain",
             b->radius[0], lim->diagonal);
    return;
  }
  snprintf(source, sizeof source, "the density %g kg/m^3 of material '%s', the size, or a mass or inertia given",
           mat->density, mat->name);
  if (!(m >= lo && m <= hi)) {
    snprintf(why, len, "its mass %g kg is outside [%g, %g] kg; check %s", m, lo, hi, source);
    return;
  }
  for (int k = 0; k < 3; k++)
    if (!(I[k] >= lo && I[k] <= hi)) {
      snprintf(why, len, "its moment of inertia %g kg m^2 is outside [%g, %g] kg m^2; check %s", I[k], lo, hi, source);
      return;
    }
  for (int k = 0; k < 4 && lim->packed; k++) {
    const double inverse = 1 / (k ? I[k - 1] : m);
    if (!(inverse >= 1 / PACKED_INVERSE_MAX && inverse <= PACKED_INVERSE_MAX)) {
      snprintf(why, len,
               "its inverse %s %g is outside the [%g, %g] that the packed CCP solvers hold in single precision; check "
               "%s, or run with -ccp_packed false (slower)",
               k ? "moment of inertia (1/(kg m^2))" : "mass (1/kg)", inverse, 1 / PACKED_INVERSE_MAX,
               PACKED_INVERSE_MAX, source);
      return;
    }
  }
  for (int k = 0; k < 3; k++) Iw[k] = I[k] * w[k];
  kinetic = 0.5 * m * speed * speed + 0.5 * v3_dot(Iw, w);
  if (!(m * speed <= hi)) snprintf(why, len, "its momentum %g kg m/s exceeds %g; check its velocity", m * speed, hi);
  else if (!(v3_norm(Iw) <= hi))
    snprintf(why, len, "its angular momentum %g kg m^2/s exceeds %g; check its angular velocity", v3_norm(Iw), hi);
  else if (!(kinetic <= hi))
    snprintf(why, len, "its kinetic energy %g J exceeds %g; check its velocity and angular velocity", kinetic, hi);
  else if (!(m * g * lim->reach <= hi && m * g * sc->time_step <= hi))
    snprintf(why, len,
             "gravity %g m/s^2 gives it a potential energy up to %g J in the domain and an impulse of %g N s per step, "
             "beyond %g; check gravity",
             g, m * g * lim->reach, m * g * sc->time_step, hi);
}

static void check_domain(const Origins *o, const BodyStore *s, PetscInt i, char *err, size_t errlen)
{
  const Scenario *sc = o->sc;
  const double   *x  = s->pos + 3 * i;
  char            key[64], subject[160];
  int             line;
  for (int a = 0; a < 3; a++)
    if (!(x[a] >= sc->domain_min[a] && x[a] <= sc->domain_max[a])) {
      origin_key(o, i, key, sizeof key, &line);
      origin_subject(o, i, x, subject, sizeof subject);
      if (!subject[0]) snprintf(subject, sizeof subject, "centre (%g, %g, %g) ", x[0], x[1], x[2]);
      report(err, errlen, sc, line, key,
             "%sis outside the domain [%g, %g] x [%g, %g] x [%g, %g]; move it inside or enlarge the domain", subject,
             sc->domain_min[0], sc->domain_max[0], sc->domain_min[1], sc->domain_max[1], sc->domain_min[2],
             sc->domain_max[2]);
      return;
    }
}

static void check_walls(const Origins *o, const BodyStore *s, PetscInt i, char *err, size_t errlen)
{
  const Scenario *sc = o->sc;
  const double   *x  = s->pos + 3 * i;
  double          r  = s->radius[i];
  char            key[64], subject[160];
  int             line;

  for (int k = 0; k < sc->n_walls && !err[0]; k++) {
    const Wall *w   = &sc->walls[k];
    double      gap = HUGE_VAL;
    if (s->shape[i] == SHAPE_SPHERE) gap = sphere_wall_gap(w, x, r);
    else if (s->shape[i] == SHAPE_CLUMP) { /* its members; their smallest radius sets the tolerance */
      const Clump *t = &sc->clumps[(int)s->size[3 * i]];
      for (int m = 0; m < t->n; m++) {
        double c[3];
        clump_member_centre(t, x, s->quat + 4 * i, m, c);
        gap = PetscMin(gap, sphere_wall_gap(w, c, t->radius[m]));
      }
      r = t->min_radius;
    } else if (s->shape[i] == SHAPE_ELLIPSOID) { /* no box walls (scenario/body_sections.c) */
      ContactPoint cp[NARROW_MAX_POINTS];
      const double env = w->type == WALL_MESH ? 0 : HUGE_VAL; /* a mesh: the features within reach only (as a box's) */
      const int    np  = narrow_wall_ellipsoid(w, x, s->quat + 4 * i, s->size + 3 * i, env, cp);
      for (int p = 0; p < np; p++) gap = PetscMin(gap, cp[p].phi);
    } else {
      ContactPoint  cp[NARROW_MAX_POINTS];
      int32_t       sub[NARROW_MAX_POINTS];
      const double *q = s->quat + 4 * i, *he = s->size + 3 * i;
      int           np;
      if (w->type == WALL_CYLINDER) np = narrow_cylinder_box(w, x, q, he, HUGE_VAL, cp);
      else if (w->type == WALL_BOX)
        np = narrow_box_box(w->center, w->quat, w->half_extents, x, q, he, HUGE_VAL, cp, sub);
      else if (w->type == WALL_MESH) np = narrow_mesh_box(w->mesh, w->center, w->quat, x, q, he, 0, cp, sub);
      else np = narrow_plane_box(w->point, w->normal, x, q, he, HUGE_VAL, cp);
      for (int p = 0; p < np; p++) gap = PetscMin(gap, cp[p].phi);
    }
    if (gap < -START_OVERLAP_FRACTION * r) {
      origin_key(o, i, key, sizeof key, &line);
      origin_subject(o, i, x, subject, sizeof subject);
      report(err, errlen, sc, line, key,
             "%spenetrates walls[%d] (line %d) by %.3g m (more than 1%% of its radius %g m); move it out of the "
             "wall%s",
             subject, k, sc->wall_lines[k], -gap, r,
             w->type == WALL_PLANE ? " (bodies belong on the side the plane's normal points to)" : "");
    }
  }
}

/* ClumpPointFn: *ctx (a depth) <- the larger of it and the point's overlap. */
static void deepest_point(void *ctx, const ContactPoint *pt, int32_t sub)
{
  double *depth = (double *)ctx;
  (void)sub;
  *depth = PetscMax(*depth, -pt->phi);
}

/* Body i's smallest sphere radius: a clump's smallest member, else its bounding radius. */
static double clump_smallest(const Scenario *sc, const BodyStore *s, PetscInt i)
{
  return s->shape[i] == SHAPE_CLUMP ? sc->clumps[(int)s->size[3 * i]].min_radius : s->radius[i];
}

/* Ellipsoid body i's shortest semi-axis. */
static double ellipsoid_shortest(const BodyStore *s, PetscInt i)
{
  return PetscMin(s->size[3 * i], PetscMin(s->size[3 * i + 1], s->size[3 * i + 2]));
}

/* Overlap depth check of one candidate pair (i < j); reports on j, the later body. */
static void check_pair(const Origins *o, const BodyStore *s, PetscInt i, PetscInt j, char *err, size_t errlen)
{
  const double *xi = s->pos + 3 * i, *xj = s->pos + 3 * j, ri = s->radius[i], rj = s->radius[j];
  double        smaller = PetscMin(ri, rj);
  char          key[64], subject[160], other[192];
  int           line;
  ContactPoint  cp;
  double        depth = 0;

  if (s->shape[i] == SHAPE_BOX && s->shape[j] == SHAPE_BOX) {
    ContactPoint pts[NARROW_MAX_POINTS];
    int32_t      sub[NARROW_MAX_POINTS];
    const int    np = narrow_box_box(xi, s->quat + 4 * i, s->size + 3 * i, xj, s->quat + 4 * j, s->size + 3 * j, 0, pts,
                                     sub);
    for (int k = 0; k < np; k++) depth = PetscMax(depth, -pts[k].phi);
  } else if (s->shape[i] == SHAPE_CLUMP || s->shape[j] == SHAPE_CLUMP) { /* the deepest member pair */
    collision_clump_pair_points(o->sc->clumps, s, i, j, 0, deepest_point, &depth);
    smaller = PetscMin(clump_smallest(o->sc, s, i), clump_smallest(o->sc, s, j));
  } else if (s->shape[i] == SHAPE_SPHERE && s->shape[j] == SHAPE_SPHERE) {
    if (narrow_sphere_sphere(xi, ri, xj, rj, 0, &cp)) depth = -cp.phi;
  } else if (s->shape[i] == SHAPE_ELLIPSOID && s->shape[j] == SHAPE_ELLIPSOID) {
    if (narrow_ellipsoid_ellipsoid(xi, s->quat + 4 * i, s->size + 3 * i, xj, s->quat + 4 * j, s->size + 3 * j, 0, &cp))
      depth = -cp.phi;
    smaller = PetscMin(ellipsoid_shortest(s, i), ellipsoid_shortest(s, j));
  } else if (s->shape[i] == SHAPE_ELLIPSOID || s->shape[j] == SHAPE_ELLIPSOID) { /* with a sphere */
    const PetscInt e = s->shape[i] == SHAPE_ELLIPSOID ? i : j, p = e == i ? j : i;
    if (narrow_ellipsoid_sphere(s->pos + 3 * e, s->quat + 4 * e, s->size + 3 * e, s->pos + 3 * p, s->radius[p], 0, &cp))
      depth = -cp.phi;
    smaller = PetscMin(s->radius[p], ellipsoid_shortest(s, e));
  } else {
    const PetscInt b = s->shape[i] == SHAPE_BOX ? i : j, p = b == i ? j : i;
    if (narrow_box_sphere(s->pos + 3 * b, s->quat + 4 * b, s->size + 3 * b, s->pos + 3 * p, s->radius[p], 0, &cp))
      depth = -cp.phi;
  }
  if (!(depth > START_OVERLAP_FRACTION * smaller)) return;
  origin_key(o, j, key, sizeof key, &line);
  origin_subject(o, j, xj, subject, sizeof subject);
  origin_name(o, i, xi, other, sizeof other);
  report(err, errlen, o->sc, line, key,
         "%soverlaps %s by %.3g m (more than 1%% of the smaller radius %g m); move them apart", subject, other, depth,
         smaller);
}

static void check_body_state(const Origins *o, const StateLimits *lim, const BodyStore *s, PetscInt i, char *err,
                             size_t errlen)
{
  BodyRecord rec;
  char       why[512], key[64], subject[160];
  int        line;

  BodyStoreGet(s, i, &rec);
  check_state(o->sc, lim, &rec, why, sizeof why);
  if (!why[0]) return;
  origin_key(o, i, key, sizeof key, &line);
  origin_subject(o, i, rec.pos, subject, sizeof subject);
  if (subject[0]) subject[strlen(subject) - 1] = 0; /* "sphere 17 at (x, y, z)": its ... */
  report(err, errlen, o->sc, line, key, "%s%s%s", subject, subject[0] ? ": " : "", why);
}

/* The spheres emitter k makes, at both ends of its radius range and at its largest speed. */
static void check_emitter_states(const Scenario *sc, const StateLimits *lim, char *err, size_t errlen)
{
  for (int k = 0; k < sc->n_emitters && !err[0]; k++) {
    const EmitterSpec *e = &sc->emitters[k];
    for (int end = 0; end < 2 && !err[0]; end++) {
      BodySpec   spec = {.shape = SHAPE_SPHERE, .orientation = {1, 0, 0, 0}, .material = e->material};
      BodyRecord rec;
      char       why[512], key[64];
      for (int a = 0; a < 3; a++) {
        spec.size[a]     = end ? e->radius_max : e->radius_min;
        spec.velocity[a] = PetscAbsReal(e->velocity[a]) + e->velocity_spread[a];
      }
      population_record_from_spec(sc, &spec, 0, &rec);
      check_state(sc, lim, &rec, why, sizeof why);
      if (!why[0]) continue;
      snprintf(key, sizeof key, "emitters[%d]", k);
      report(err, errlen, sc, e->line, key, "a sphere of radius %g m: %s", spec.size[0], why);
    }
  }
}

static PetscErrorCode CheckPopulation(const Origins *o, const StateLimits *lim, const BodyStore *s, char *err,
                                      size_t errlen)
{
  Broadphase     bp;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < s->n_owned && !err[0]; i++) {
    check_body_state(o, lim, s, i, err, errlen);
    if (!err[0]) check_domain(o, s, i, err, errlen);
    if (!err[0]) check_walls(o, s, i, err, errlen);
  }
  if (err[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(BroadphaseCreate(&bp));
  /* The pairs of touching bounding spheres: a few per body in a valid start (a packing's
   * neighbours), but n^2 / 2 for bodies piled on one another (copies of one by a YAML alias), more
   * than memory holds: then the bodies overlap, a refusal rather than a failure. */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = BroadphaseFindPairs(&bp, s, s->n_owned, 0.0);
  PetscCall(PetscPopErrorHandler());
  if (ierr == PETSC_ERR_MEM) {
    char key[64];
    int  line;
    origin_key(o, 0, key, sizeof key, &line);
    report(err, errlen, o->sc, line, key,
           "the %" PetscInt_FMT
           " initial bodies overlap so much that their pairs do not fit in memory (bodies piled on "
           "one another); move them apart",
           s->n_owned);
  } else PetscCall(ierr);
  for (PetscInt p = 0; p < bp.npairs && !err[0]; p++) check_pair(o, s, bp.pairs[p].i, bp.pairs[p].j, err, errlen);
  PetscCall(BroadphaseDestroy(&bp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* For a CCP scenario run on the packed solvers: its explicit bodies (the first sc->n_bodies of s)
 * with principal moments at most PACKED_MAX_MOMENT_RATIO apart (ccp/packed_inertia.h; fills and
 * emitters make spheres). */
static void check_packed_inertia(const Scenario *sc, const BodyStore *s, char *err, size_t errlen)
{
  for (int b = 0; b < sc->n_bodies; b++) {
    const double *I     = s->inertia + 3 * (size_t)b;
    const double  ratio = packed_moment_ratio(I);
    char          key[64];
    if (!(ratio > PACKED_MAX_MOMENT_RATIO)) continue;
    const PetscBool given = (PetscBool)(sc->bodies[b].inertia[0] >
                                        0); /* population_record_from_spec: all three or none */
    snprintf(key, sizeof key, "bodies[%d].%s", b, given ? "inertia" : "half_extents");
    report(err, errlen, sc, sc->bodies[b].line, key,
           "principal moments of inertia %g, %g, %g kg m^2 are %.3g apart, more than the %.3g within which the packed "
           "CCP solvers' single-precision inverse inertia stays within %g%% in every orientation; %s, or run with "
           "-ccp_packed false (slower)",
           I[0], I[1], I[2], ratio, PACKED_MAX_MOMENT_RATIO, 100 * PACKED_INERTIA_ACCURACY,
           given ? "give moments closer together"
                 : "make the box less elongated (at most about 440 times longer than wide)");
    return;
  }
}

/* Bytes this process may still allocate: the physical memory, less what the address-space and
 * data limits (ulimit -v, -d) leave above its present size. */
static double allocatable_bytes(void)
{
  const double  pages = (double)sysconf(_SC_PHYS_PAGES), page = (double)sysconf(_SC_PAGESIZE);
  double        avail = pages > 0 && page > 0 ? pages * page : HUGE_VAL, size_now = 0;
  struct rlimit rl;
  FILE         *fp = fopen("/proc/self/statm", "r");
  unsigned long vm_pages;

  if (fp) {
    if (fscanf(fp, "%lu", &vm_pages) == 1 && page > 0) size_now = (double)vm_pages * page;
    (void)fclose(fp); /* read-only */
  }
  if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY)
    avail = PetscMin(avail, (double)rl.rlim_cur - size_now);
  if (!getrlimit(RLIMIT_DATA, &rl) && rl.rlim_cur != RLIM_INFINITY)
    avail = PetscMin(avail, (double)rl.rlim_cur - size_now);
  return PetscMax(avail, 0);
}

/* Bodies an emitter makes in all: its count, else its rate over [start, end]. */
static double emitter_total(const EmitterSpec *e)
{
  return e->count ? (double)e->count : e->rate * (e->end - e->start);
}

/* Bad input if the bodies cannot fit in this process's memory: the population that every rank
 * builds whole (n_build), and the share of size ranks of the bodies a run holds at most (n_build
 * and the emitters' bodies), reported at the spec that brings the need over what is left. */
static void check_memory(const Scenario *sc, const double fill_counts[], char *err, size_t errlen)
{
  const double avail   = allocatable_bytes();
  PetscMPIInt  size    = 1;
  double       n_build = sc->n_bodies, n_run, need = 0;
  char         key[64];
  int          line = 1;

  if (MPI_Comm_size(PETSC_COMM_WORLD, &size) != MPI_SUCCESS) size = 1; /* then as on one rank: the larger need */
  snprintf(key, sizeof key, "bodies");
  if (sc->n_bodies) line = sc->bodies[0].line;
  for (int f = 0; f <= sc->n_fills; f++) {
    if (f) {
      n_build += fill_counts[f - 1];
      snprintf(key, sizeof key, "fills[%d]", f - 1);
      line = sc->fills[f - 1].line;
    }
    need = n_build * BUILD_BYTES_PER_BODY + n_build / size * RUN_BYTES_PER_BODY;
    if (need > avail) break;
  }
  n_run = n_build;
  for (int k = 0; k < sc->n_emitters && !(need > avail); k++) {
    n_run += emitter_total(&sc->emitters[k]);
    snprintf(key, sizeof key, "emitters[%d]", k);
    line = sc->emitters[k].line;
    need = n_build * BUILD_BYTES_PER_BODY + n_run / size * RUN_BYTES_PER_BODY;
  }
  if (need > avail)
    report(err, errlen, sc, line, key,
           "brings the bodies to %.0f, which need about %.3g GB (%.0f bytes: %.0f per body to build them, %.0f per "
           "body a rank holds in a run, here on %d rank%s), more than the %.3g GB this process may allocate (its "
           "memory and ulimit); use fewer or larger bodies, or more ranks",
           PetscMax(n_build, n_run), need / 1e9, need, BUILD_BYTES_PER_BODY, RUN_BYTES_PER_BODY, size,
           size > 1 ? "s" : "", avail / 1e9);
}

static PetscErrorCode Build(const Scenario *sc, BodyStore *s, char *err, size_t errlen)
{
  PetscInt   *fill_first;
  double      total = sc->n_bodies, *counts;
  Origins     o;
  StateLimits lim;
  PetscBool   packed = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCheck(errlen > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "PopulationBuild: give an error buffer");
  err[0] = 0;
  PetscCheck(s->n_owned == 0 && s->n_ghost == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "PopulationBuild: the body store must be empty");
  if (sc->contact_model == CONTACT_MODEL_CCP) PetscCall(CCPSolverPackedOption(&packed));
  state_limits(sc, packed, &lim);
  PetscCall(PetscMalloc2((size_t)sc->n_fills + 1, &fill_first, (size_t)sc->n_fills + 1, &counts));
  for (int f = 0; f < sc->n_fills && !err[0]; f++) {
    fill_first[f] = (PetscInt)total;
    counts[f]     = fill_count(&sc->fills[f]);
    total += counts[f];
    if (total > (double)INT32_MAX) {
      char key[32];
      snprintf(key, sizeof key, "fills[%d]", f);
      report(err, errlen, sc, sc->fills[f].line, key,
             "brings the body count to %.0f, more than the %d that ccpdem can index; use fewer or larger spheres",
             total, INT32_MAX);
    }
  }
  if (!err[0]) check_memory(sc, counts, err, errlen);
  if (!err[0]) check_emitter_states(sc, &lim, err, errlen);
  if (err[0]) {
    PetscCall(PetscFree2(fill_first, counts));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  fill_first[sc->n_fills] = (PetscInt)total;
  PetscCall(BodyStoreReserve(s, (PetscInt)total));

  for (int b = 0; b < sc->n_bodies; b++) {
    BodyRecord rec;
    population_record_from_spec(sc, &sc->bodies[b], (int64_t)b, &rec);
    PetscCall(BodyStoreAppendOwned(s, &rec));
  }
  for (int f = 0; f < sc->n_fills && !err[0]; f++) {
    if (sc->fills[f].type == FILL_LATTICE) PetscCall(FillLattice(sc, &sc->fills[f], s));
    else PetscCall(FillRandom(sc, f, s, err, errlen));
  }
  o.sc         = sc;
  o.fill_first = fill_first;
  if (!err[0]) PetscCall(CheckPopulation(&o, &lim, s, err, errlen));
  if (!err[0] && packed) check_packed_inertia(sc, s, err, errlen);
  PetscCall(PetscFree2(fill_first, counts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PopulationBuild(const Scenario *sc, BodyStore *s, char *err, size_t errlen)
{
  Scenario   loaded   = *sc; /* the same scenario, with walls of its own where meshes are loaded here */
  WallMeshes meshes   = {0};
  PetscBool  unloaded = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCheck(errlen > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "PopulationBuild: give an error buffer");
  for (int k = 0; k < sc->n_walls; k++) /* the placement checks query the whole mesh */
    PetscCheck(sc->walls[k].type != WALL_MESH || !sc->walls[k].mesh || sc->walls[k].mesh->rec, PETSC_COMM_SELF,
               PETSC_ERR_ARG_WRONGSTATE,
               "PopulationBuild: wall %d's mesh was stripped to its triangles (step/wall_meshes.h: a distributed "
               "simulation cut its parts); build the population before the first step",
               k);
  for (int k = 0; k < sc->n_walls; k++)
    unloaded = (PetscBool)(unloaded || (sc->walls[k].type == WALL_MESH && !sc->walls[k].mesh));
  if (!unloaded) {
    PetscCall(Build(sc, s, err, errlen));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc1(sc->n_walls, &loaded.walls));
  PetscCall(PetscArraycpy(loaded.walls, sc->walls, sc->n_walls));
  PetscCall(WallMeshesLoad(PETSC_COMM_SELF, &loaded, &meshes, err, errlen));
  if (!err[0]) PetscCall(Build(&loaded, s, err, errlen));
  PetscCall(WallMeshesDestroy(&meshes));
  PetscCall(PetscFree(loaded.walls));
  PetscFunctionReturn(PETSC_SUCCESS);
}
