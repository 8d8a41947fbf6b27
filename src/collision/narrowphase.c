#include "collision/narrowphase.h"
#include "base/vec3.h"

int narrow_box_sphere(const double bc[3], const double bq[4], const double he[3], const double c[3], double r,
                      double envelope, ContactPoint *out)
{
  double R[9], d[3], local[3], q[3], nl[3] = {0, 0, 0}, dist;
  int    outside = 0;

  quat_to_matrix(bq, R);
  v3_sub(d, c, bc);
  mat_tvec(local, R, d); /* sphere centre in the box frame */
  for (int k = 0; k < 3; k++) {
    q[k] = local[k] < -he[k] ? -he[k] : (local[k] > he[k] ? he[k] : local[k]);
    if (q[k] != local[k]) outside = 1;
  }
  if (outside) {
    /* Closest box point q is on a face, edge or vertex; the normal runs from it to the centre. */
    v3_sub(nl, local, q);
    dist = v3_norm(nl); /* > 0: some component was clamped */
    v3_scale(nl, 1.0 / dist, nl);
  } else {
    /* Centre inside (or on) the box: push out through the face of least penetration (lowest axis
     * on ties, and the + face when the centre is on the mid-plane, so the choice is deterministic). */
    int    axis  = 0;
    double depth = he[0] - fabs(local[0]);
    for (int k = 1; k < 3; k++)
      if (he[k] - fabs(local[k]) < depth) {
        depth = he[k] - fabs(local[k]);
        axis  = k;
      }
    nl[axis] = local[axis] < 0 ? -1.0 : 1.0;
    q[axis]  = nl[axis] * he[axis];
    dist     = -depth;
  }
  if (!(dist - r < envelope)) return 0;
  mat_vec(out->n, R, nl);
  mat_vec(out->p1, R, q);
  v3_add(out->p1, out->p1, bc);
  v3_copy(out->p2, c);
  v3_axpy(out->p2, -r, out->n);
  out->phi = dist - r;
  return 1;
}

int narrow_plane_box(const double p[3], const double nrm[3], const double bc[3], const double bq[4], const double he[3],
                     double envelope, ContactPoint *out)
{
  double R[9], vert[8][3], height[8];
  int    cand[8], ncand = 0, keep[8];

  quat_to_matrix(bq, R);
  for (int m = 0; m < 8; m++) {
    /* vertex m has sign + on axis k when bit k of m is set */
    const double local[3] = {(m & 1) ? he[0] : -he[0], (m & 2) ? he[1] : -he[1], (m & 4) ? he[2] : -he[2]};
    double d[3];
    mat_vec(vert[m], R, local);
    v3_add(vert[m], vert[m], bc);
    v3_sub(d, vert[m], p);
    height[m] = v3_dot(d, nrm);
    if (height[m] < envelope) cand[ncand++] = m;
  }
  /* More than NARROW_VERTEX_POINTS below the envelope (a thin box, or a wide envelope): keep the
   * deepest ones; a vertex is dropped if at least NARROW_VERTEX_POINTS others are deeper, or as
   * deep with a lower index. */
  for (int a = 0; a < ncand; a++) {
    int deeper = 0;
    for (int b = 0; b < ncand; b++) {
      const int ma = cand[a], mb = cand[b];
      if (height[mb] < height[ma] || (height[mb] == height[ma] && mb < ma)) deeper++;
    }
    keep[a] = deeper < NARROW_VERTEX_POINTS;
  }
  int np = 0;
  for (int a = 0; a < ncand; a++) {
    const int m = cand[a];
    if (!keep[a]) continue;
    v3_copy(out[np].n, nrm);
    v3_copy(out[np].p1, vert[m]);
    v3_axpy(out[np].p1, -height[m], nrm);
    v3_copy(out[np].p2, vert[m]);
    out[np].phi = height[m];
    np++;
  }
  return np;
}
