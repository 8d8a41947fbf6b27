/* Angle of repose of a settled, roughly conical pile on a horizontal floor.
 *
 * Method: the pile axis passes through the centroid (x, y) of the selected bodies; its extent is the
 * radius holding 95% of them (grains that rolled far away do not count). Bodies are binned
 * by horizontal distance r from the axis into rings one mean diameter wide; in each ring and in each
 * of 8 azimuthal sectors the free-surface height is the top (z + radius) of the highest body. The
 * flank is the range of r between the apex zone (surface above 90% of the pile height) and the toe
 * (surface below 10% of the pile height, i.e. the last grains rolling out); the angle is
 * atan(-slope) of a least-squares line h(r) through the flank's ring heights, computed per sector.
 * The reported angle is the mean over the sectors and its uncertainty the standard error of that
 * mean (sector spread / sqrt(sectors)), which captures both surface roughness and asymmetry.
 * A pile less than 3 grains high has no flank: its angle is atan(height / extent), +- one grain. */
#ifndef CCPDEM_ANALYSIS_REPOSE_H
#define CCPDEM_ANALYSIS_REPOSE_H
#include <stddef.h>

typedef struct {
  double angle_deg;       /* mean over the sectors */
  double uncertainty_deg; /* standard error of the mean */
  double height;          /* pile height above the floor (m) */
  double radius;          /* horizontal extent of the flank fit (toe radius, m) */
  int    sectors_used;    /* sectors with a usable flank (>= 3 rings) */
} ReposeResult;

/* Bodies i in [0, n) with keep == NULL or keep[i] != 0 form the pile. floor_z: height of the
 * floor. Returns 0 on success, -1 when there are too few bodies or no usable flank. */
int repose_angle(size_t n, const double *pos /* 3 per body */, const double *radius, const unsigned char *keep,
                 double floor_z, ReposeResult *res);
/* The pile of the bodies with x_min <= x <= x_max, the floor at their lowest bottom (z - radius),
 * or at *floor_z when floor_z is not NULL. *kept: bodies selected; *floor_used: the floor.
 * Returns 0, or -1 as repose_angle (also when no body is selected, or out of memory). */
int repose_angle_x_range(size_t n, const double *pos, const double *radius, double x_min, double x_max,
                         const double *floor_z, ReposeResult *res, size_t *kept, double *floor_used);
#endif
