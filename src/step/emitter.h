/* Emitters (scenario key `emitters`): sources that pour spheres into the domain while it runs.
 *
 * Schedule: emitter e owes floor(rate (t - start)) bodies at time t (capped by count, frozen after
 * end); at the start of each step the time step asks for the difference to what it has made.
 * Placement: each new sphere gets a radius from the size distribution (fixed, uniform, or normal
 * truncated to [min, max] by redrawing), a centre uniform in the region shrunk by that radius, and
 * the velocity plus a uniform part in [-spread, spread] per axis; a centre that would overlap a
 * body already near the region, a sphere placed earlier in the step, or a plane or cylinder wall is redrawn
 * (up to EMITTER_TRIES times; a sphere that does not fit is left for the next step, so a full
 * region delays bodies but never overlaps them).
 * A clump emitter (`clump: NAME`) places its template's bounding spheres as above, with their centres
 * of mass at the centres drawn, and turns each by a uniformly random orientation from a second stream
 * of (seed, emitter index, step), so its centres are those a sphere emitter of the same seed and
 * bounding radius would draw. An ellipsoid emitter (`semi_axes`) likewise, its bounding radius the
 * largest semi-axis.
 * Determinism: the draws come from a splitmix64 stream seeded by (seed, emitter index, step), and
 * the bodies near the region are given in id order, so every rank computes the same spheres in
 * the same order, whatever the rank count; the time step numbers them with the next global ids and
 * each rank keeps those whose centre it owns. */
#ifndef CCPDEM_STEP_EMITTER_H
#define CCPDEM_STEP_EMITTER_H
#include "scenario/scenario.h"

#define EMITTER_TRIES 50

typedef struct {
  double x[3], r;
} EmitterSphere;

/* Bodies e should have made by time t. */
long emitter_due(const EmitterSpec *e, double t);
/* The radius, centre and velocity of up to n new spheres of emitter `index` in step `step`, not
 * overlapping near[0 .. nnear) (in id order) nor the plane and cylinder walls. Returns how many it placed
 * (at most n) in out[] and vel[]. */
int emitter_place(const EmitterSpec *e, int index, int64_t step, const EmitterSphere *near, long nnear,
                  const Wall *walls, int nwalls, int n, EmitterSphere *out, double (*vel)[3]);
/* The stream of the orientations of the clumps or ellipsoids emitter `index` places in step `step`:
 * one population_clump_pose or population_ellipsoid_pose per body, in the order emitter_place returned
 * them. */
uint64_t emitter_orientation_stream(const EmitterSpec *e, int index, int64_t step);
/* The largest radius any emitter of sc can make (0 if none). */
double emitter_max_radius(const Scenario *sc);
#endif
