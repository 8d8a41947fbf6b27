/* How anisotropic an inertia the packed CCP solvers hold accurately (ccp/pack.h's CCPBodyMass).
 *
 * They round a body's world inverse inertia J to single precision entry by entry: an error E with
 * |E|_2 <= |E|_F <= 2^-24 |J|_F <= sqrt(3) 2^-24 j_max, j_max being J's largest eigenvalue (the
 * inverse of the smallest principal moment). Against J's smallest eigenvalue j_min (the inverse
 * of the largest moment: the body's tumbling, for a rod) that is at most sqrt(3) 2^-24 I_max /
 * I_min relative, in whatever orientation the body turns to. So principal moments at most
 * PACKED_MAX_MOMENT_RATIO apart keep every direction's inverse moment within
 * PACKED_INERTIA_ACCURACY (a box about 440 times longer than wide: moments (a^2 + c^2) / (2 a^2)
 * apart for half extents a, a, c). Further apart the rounded inertia may be that far off in some
 * orientation, and indefinite (the packing refuses it) from about 10^7; such bodies are refused
 * before a run starts (step/population.c), where the reference loops (-ccp_packed false) take them. */
#ifndef CCPDEM_CCP_PACKED_INERTIA_H
#define CCPDEM_CCP_PACKED_INERTIA_H

#define PACKED_INERTIA_ACCURACY 0.01
#define PACKED_MAX_MOMENT_RATIO (PACKED_INERTIA_ACCURACY * 16777216.0 / 1.7320508075688772)

/* The ratio of the largest to the smallest of three positive principal moments. */
static inline double packed_moment_ratio(const double moments[3])
{
  double lo = moments[0], hi = moments[0];
  for (int k = 1; k < 3; k++) {
    if (moments[k] < lo) lo = moments[k];
    if (moments[k] > hi) hi = moments[k];
  }
  return hi / lo;
}
#endif
