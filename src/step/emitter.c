/* See step/emitter.h. */
#include "step/emitter.h"
#include "base/random.h"
#include "collision/cylinder_contact.h"
#include "base/vec3.h"
#include <math.h>

long emitter_due(const EmitterSpec *e, double t)
{
  const double until = e->end > 0 ? fmin(t, e->end) : t;
  long         due   = until > e->start ? (long)floor(e->rate * (until - e->start) + 1e-9)
                                        : 0; /* 1e-9: rate t exact in decimals */
  return e->count > 0 && due > e->count ? e->count : due;
}

static double draw_radius(const EmitterSpec *e, uint64_t *rng)
{
  switch (e->size) {
  case SIZE_UNIFORM:
    return e->radius_min + uniform01(rng) * (e->radius_max - e->radius_min);
  case SIZE_NORMAL:
    for (int k = 0; k < 1000; k++) { /* truncation by redrawing */
      const double r = e->radius_mean + e->radius_std * normal01(rng);
      if (r >= e->radius_min && r <= e->radius_max) return r;
    }
    return e->radius_mean; /* a range far in the tails: the mean is inside it (checked on load) */
  default:
    return e->radius;
  }
}

static int overlaps(const EmitterSphere *c, const EmitterSphere *others, long n)
{
  for (long i = 0; i < n; i++) {
    double d[3];
    v3_sub(d, c->x, others[i].x);
    const double reach = c->r + others[i].r;
    if (v3_dot(d, d) < reach * reach) return 1;
  }
  return 0;
}

/* Whether sphere c reaches into a plane or cylinder wall (box walls: emitters are not checked
 * against them). */
static int in_plane_wall(const EmitterSphere *c, const Wall *walls, int nwalls)
{
  for (int k = 0; k < nwalls; k++) {
    double       d[3];
    ContactPoint cp;
    if (walls[k].type == WALL_CYLINDER && narrow_cylinder_sphere(&walls[k], c->x, c->r, 0, &cp)) return 1;
    if (walls[k].type != WALL_PLANE) continue;
    v3_sub(d, c->x, walls[k].point);
    if (v3_dot(d, walls[k].normal) < c->r) return 1;
  }
  return 0;
}

int emitter_place(const EmitterSpec *e, int index, int64_t step, const EmitterSphere *near, long nnear,
                  const Wall *walls, int nwalls, int n, EmitterSphere *out, double (*vel)[3])
{
  uint64_t rng    = (uint64_t)e->seed * 0x9E3779B97F4A7C15ULL ^ ((uint64_t)index << 48) ^ (uint64_t)step;
  int      placed = 0;

  for (int k = 0; k < n; k++) {
    int ok = 0;
    for (int t = 0; t < EMITTER_TRIES && !ok; t++) {
      EmitterSphere c;
      c.r = draw_radius(e, &rng);
      for (int a = 0; a < 3; a++)
        c.x[a] = e->region_min[a] + c.r + uniform01(&rng) * (e->region_max[a] - e->region_min[a] - 2 * c.r);
      ok = !overlaps(&c, near, nnear) && !overlaps(&c, out, placed) && !in_plane_wall(&c, walls, nwalls);
      if (ok) out[placed] = c;
    }
    if (!ok) break; /* the region is full for now: the rest waits for the next step */
    for (int a = 0; a < 3; a++) vel[placed][a] = e->velocity[a] + e->velocity_spread[a] * (2 * uniform01(&rng) - 1);
    placed++;
  }
  return placed;
}

/* Seeded like the placement stream (emitter_place) but from seed ^ a constant, so that the orientations
 * are not the placement's draws over again. */
uint64_t emitter_orientation_stream(const EmitterSpec *e, int index, int64_t step)
{
  return ((uint64_t)e->seed ^ 0x6A09E667F3BCC908ULL) * 0x9E3779B97F4A7C15ULL ^ ((uint64_t)index << 48) ^ (uint64_t)step;
}

double emitter_max_radius(const Scenario *sc)
{
  double r = 0;
  for (int i = 0; i < sc->n_emitters; i++) r = fmax(r, sc->emitters[i].radius_max);
  return r;
}
