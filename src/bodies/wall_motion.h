/* A wall's pose, surface velocity and travel as pure functions of time (bodies/walls.h,
 * WallMotion): every rank evaluates them alone, so moving walls need no communication and a
 * restart at any rank count continues them from the scenario and the time. Not collective. */
#ifndef CCPDEM_BODIES_WALL_MOTION_H
#define CCPDEM_BODIES_WALL_MOTION_H
#include "bodies/walls.h"

/* *w = wall w0 (its scenario pose, at t = 0) at time t, for the step [t, t + h]: its pose at t
 * (centre, point, normal, axis, quat) and pivot, the axis point at t; velocity and omega, the velocity
 * of its reference point (centre) and its angular velocity at t + h / 2 (zero outside [start, end));
 * turn, its rotation over [t - h, t]; travel at t. A wall without motion is copied unchanged. w0 and
 * w must not overlap. */
void wall_pose_at(const Wall *w0, double t, double h, Wall *w);

/* The motion's time in motion: min(max(t, start), end) - start (s). */
double wall_motion_tau(const WallMotion *m, double t);

/* The displacement of point x0 (at t = 0) of a wall with motion m at time t: x = its position. */
void wall_motion_point(const WallMotion *m, double t, const double x0[3], double x[3]);

/* Whether point x0 (at t = 0) of a wall with motion m stays inside the box [lo, hi] over [0, t_end],
 * sampled finely enough to see each oscillation's peaks (40 samples a period, 1000 to 10^6 in all):
 * 1, or 0 with the first sample outside at time *t and position x. */
int wall_motion_stays_inside(const WallMotion *m, const double x0[3], double t_end, const double lo[3],
                             const double hi[3], double *t, double x[3]);
#endif
