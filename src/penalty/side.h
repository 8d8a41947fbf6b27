/* A body's or a wall's side (struct PenaltySide, penalty/kernel.h): what the penalty contacts read
 * of it. One definition for its two writers: the fill at the top of PenaltyContactLoads, and the
 * integrator, which writes each owned body's side for the next step right after moving it, while
 * the body is at hand (step/step.c, PenaltyAdvance). Both give the same bits. */
#ifndef CCPDEM_PENALTY_SIDE_H
#define CCPDEM_PENALTY_SIDE_H
#include "penalty/kernel.h"
#include "base/vec3.h"
#include <string.h>

/* The parts of body s's side that change as it moves. Its rotation over the last step is the one
 * the integrator applied, exp(h omega_world), with omega_world as now (a body turns about
 * omega_world, which that turn leaves in place). */
static inline void penalty_side_motion(const BodyStore *bs, PetscInt s, double h, PenaltySide *o)
{
  double R[9], turn[3];
  v3_copy(o->pose.x, bs->pos + 3 * s);
  quat_to_matrix(bs->quat + 4 * s, R);
  v3_copy(o->vel, bs->vel + 6 * s);
  mat_vec(o->omega, R, bs->vel + 6 * s + 3);
  v3_scale(turn, h, o->omega);
  rotation_of_vector(turn, o->pose.R);
}

/* Body s's whole side: its motion and what stays with the body. */
static inline void penalty_side_of_body(const BodyStore *bs, PetscInt s, double h, PenaltySide *o)
{
  const double *J = bs->inertia + 3 * s;
  penalty_side_motion(bs, s, h, o);
  o->mass     = bs->mass[s];
  o->inv_mass = 1.0 / bs->mass[s];
  o->inertia  = (J[0] + J[1] + J[2]) / 3;
  o->material = bs->material[s];
  o->shape    = bs->shape[s];
  o->kappa    = o->shape == SHAPE_SPHERE ? 1.0 / bs->size[3 * s]
              : o->shape == SHAPE_CLUMP  ? 1.0 / bs->size[3 * s + 1] /* the members' one radius (bodies/clump.h) */
                                         : 0;
  o->wall     = 0;
}

/* Whether a and b hold the same side, bit for bit (field by field: the padding is never written). */
static inline int penalty_side_same(const PenaltySide *a, const PenaltySide *b)
{
  return !memcmp(&a->pose, &b->pose, sizeof(a->pose)) && !memcmp(a->vel, b->vel, sizeof(a->vel)) &&
         !memcmp(a->omega, b->omega, sizeof(a->omega)) && !memcmp(&a->mass, &b->mass, sizeof(double)) &&
         !memcmp(&a->inv_mass, &b->inv_mass, sizeof(double)) && !memcmp(&a->inertia, &b->inertia, sizeof(double)) &&
         !memcmp(&a->kappa, &b->kappa, sizeof(double)) && a->material == b->material && a->shape == b->shape &&
         a->wall == b->wall;
}

/* Wall w's side: its reference point, its rotation over the last step and its velocity over this
 * one (bodies/walls.h: all zero for a fixed wall, the identity rotation). */
static inline void penalty_side_of_wall(const Wall *w, PenaltySide *o)
{
  v3_copy(o->pose.x, w->center);
  rotation_of_vector(w->turn, o->pose.R);
  v3_copy(o->vel, w->velocity);
  v3_copy(o->omega, w->omega);
  o->mass = o->inertia = INFINITY;
  o->inv_mass          = 0;
  o->material          = w->material;
  o->shape             = w->type == WALL_BOX      ? -2
                       : w->type == WALL_CYLINDER ? -3
                                                  : -1; /* a mesh is flat where a sphere touches it */
  o->kappa             = 0;
  o->wall              = 1;
}
#endif
