/* Contact between two boxes (each a centre, a unit quaternion (w, x, y, z) and half extents): a
 * separating-axis test over the 15 axes (3 faces of each box, 9 edge-edge cross products) and a
 * contact manifold of up to BOX_BOX_MAX_POINTS points.
 *
 * Axis choice. The axis of largest separation (least overlap) decides, with a bias so that a
 * resting contact keeps its axis from step to step: B's face only if it separates better than A's
 * by BOX_BOX_AXIS_TOL of the smaller box's least half extent; an edge-edge axis only if it
 * separates better than the chosen face by that much and 5% of the face's overlap. Ties go to
 * the lower axis. Edge axes of nearly parallel edges (|a x b| < 1e-6) are skipped.
 *
 * Face-face (a face axis): the reference face is the chosen box's face towards the other box; the
 * incident face is the other box's face most opposed to it. The incident face is clipped against
 * the reference face's four side planes (Sutherland-Hodgman), where a vertex within BOX_BOX_CLIP_TOL
 * of the reference face's smaller half extent of a side plane counts as on it, inside (so boxes of
 * equal size stacked flush keep their four vertices, not vertices and cuts by turns as they
 * jiggle), and each clipped point whose depth along the reference normal is below the envelope is
 * a contact: on the incident face, and its projection on the reference face. Edge-edge: one point, the closest points
 * of the two supporting edges (clamped to the edges). If the clipping leaves no point, the best edge-edge axis is
 * tried.
 *
 * Keys. Each point carries a feature number, unique within the pair and the same from step to step
 * while the same features touch: the reference face, the incident face, and which of an incident
 * vertex (4), an incident edge cut by a side plane (16) or a reference face corner (4) made it;
 * edge-edge points the two edges' axes. Points come in increasing feature order. Detection uses the
 * feature as the contact key's sub, so the warm start and the penalty model's history follow the
 * point. Not collective; no allocation. */
#ifndef CCPDEM_COLLISION_BOX_BOX_H
#define CCPDEM_COLLISION_BOX_BOX_H
#include "collision/narrowphase.h"
#include <stdint.h>

#define BOX_BOX_MAX_POINTS 8
#define BOX_BOX_AXIS_TOL   1e-3 /* of the smaller least half extent: the reference-face and edge bias */
#define BOX_BOX_CLIP_TOL   1e-3 /* of the reference face's smaller half extent: side-plane tolerance */

typedef enum {
  BOX_AXIS_FACE_A = 0, /* face axis i of A */
  BOX_AXIS_FACE_B = 1, /* face axis j of B */
  BOX_AXIS_EDGE   = 2  /* A's axis i x B's axis j */
} BoxAxisKind;

typedef struct {
  BoxAxisKind kind;
  int         i, j; /* A's and B's axis (the one a face axis does not use is -1) */
  double      n[3]; /* unit axis, oriented from A to B */
  double      sep;  /* separation of the boxes along it (m): negative where they overlap */
} BoxAxis;

/* A box: centre, rotation matrix (body to world, quat_to_matrix) and half extents. */
typedef struct {
  const double *c, *he;
  double        R[9];
} BoxFrame;

/* The separating-axis test of boxes a and b, the axis chosen by the rule above into *axis. Returns
 * 0 when some axis separates them by at least `envelope` (then *axis is that axis; no contact), 1
 * otherwise. */
int box_box_sat(const BoxFrame *a, const BoxFrame *b, double envelope, BoxAxis *axis);

/* The contact points of box A (ca, qa, ha) and box B (cb, qb, hb) whose gap is below the envelope,
 * as the narrowphase's kernels give them (collision/narrowphase.h: normal from A to B, points on
 * A and B, gap), into out[0 .. return), with their feature numbers in feature[] (ascending). */
int narrow_box_box(const double ca[3], const double qa[4], const double ha[3], const double cb[3], const double qb[4],
                   const double hb[3], double envelope, ContactPoint out[BOX_BOX_MAX_POINTS],
                   int32_t feature[BOX_BOX_MAX_POINTS]);
#endif
