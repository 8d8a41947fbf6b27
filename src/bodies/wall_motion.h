/* A wall's pose, surface velocity and travel as pure functions of time (bodies/walls.h,
 * WallMotion): every rank evaluates them alone, so moving walls need no communication and a
 * restart at any rank count continues them from the scenario and the time. Not collective. */
#ifndef CCPDEM_BODIES_WALL_MOTION_H
#define CCPDEM_BODIES_WALL_MOTION_H
#include "bodies/walls.h"

/* *w = wall w0 (its scenario pose, at t = 0) at time t, for the step [t, t + h]: its pose at t;
 * velocity and omega, the velocity of its reference point (centre) and its angular velocity at
 * t + h / 2 (zero outside [start, end)); turn, its rotation over [t - h, t]; travel at t. A wall
 * without motion is copied unchanged. w0 and w must not overlap. */
void wall_pose_at(const Wall *w0, double t, double h, Wall *w);

/* The motion's time in motion: min(max(t, start), end) - start (s). */
double wall_motion_tau(const WallMotion *m, double t);

/* The displacement of point x0 (at t = 0) of a wall with motion m at time t: x = its position. */
void wall_motion_point(const WallMotion *m, double t, const double x0[3], double x[3]);
#endif
