/* See bodies/clump.h. */
#include "bodies/clump.h"
#include "base/vec3.h"
#include <math.h>
#include <string.h>

int clump_disconnected_member(int n, const double *offset, const double *radius)
{
  int reached[CLUMP_MAX_MEMBERS] = {0}, stack[CLUMP_MAX_MEMBERS], top = 0;

  if (n < 1 || n > CLUMP_MAX_MEMBERS) return -1;
  reached[0]   = 1;
  stack[top++] = 0;
  while (top) { /* depth-first search over the overlap graph */
    const int i = stack[--top];
    for (int j = 0; j < n; j++) {
      double d[3];
      if (reached[j]) continue;
      v3_sub(d, offset + 3 * j, offset + 3 * i);
      if (v3_norm(d) <= (radius[i] + radius[j]) * (1 + 1e-9)) {
        reached[j]   = 1;
        stack[top++] = j;
      }
    }
  }
  for (int j = 1; j < n; j++)
    if (!reached[j]) return j;
  return -1;
}

/* One column's x intervals [lo, hi], merged: length, and the integrals of x and x^2 over them. */
static void column_moments(int m, double *lo, double *hi, double *L, double *Sx, double *Sxx)
{
  for (int a = 1; a < m; a++) { /* insertion sort by lo: m <= CLUMP_MAX_MEMBERS */
    const double l = lo[a], h = hi[a];
    int          b = a - 1;
    for (; b >= 0 && lo[b] > l; b--) {
      lo[b + 1] = lo[b];
      hi[b + 1] = hi[b];
    }
    lo[b + 1] = l;
    hi[b + 1] = h;
  }
  *L = *Sx = *Sxx = 0;
  for (int a = 0; a < m;) {
    double l = lo[a], h = hi[a];
    for (a++; a < m && lo[a] <= h; a++) h = fmax(h, hi[a]);
    *L += h - l;
    *Sx += 0.5 * (h * h - l * l);
    *Sxx += (h * h * h - l * l * l) / 3.0;
  }
}

void clump_union_mass(int n, const double *offset, const double *radius, double *volume, double com[3], double I[6])
{
  const double pi = 3.14159265358979323846;
  double       lo3[3], hi3[3], dy, dz, V = 0, M1[3] = {0, 0, 0}, M2[6] = {0, 0, 0, 0, 0, 0};

  if (n == 1) { /* the sphere, exactly */
    const double r = radius[0];
    *volume        = 4.0 / 3.0 * pi * r * r * r;
    v3_copy(com, offset);
    I[0] = I[1] = I[2] = 0.4 * *volume * r * r;
    I[3] = I[4] = I[5] = 0;
    return;
  }
  for (int k = 0; k < 3; k++) {
    lo3[k] = INFINITY;
    hi3[k] = -INFINITY;
  }
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      lo3[k] = fmin(lo3[k], offset[3 * i + k] - radius[i]);
      hi3[k] = fmax(hi3[k], offset[3 * i + k] + radius[i]);
    }
  dy = (hi3[1] - lo3[1]) / CLUMP_GRID;
  dz = (hi3[2] - lo3[2]) / CLUMP_GRID;
  for (int jy = 0; jy < CLUMP_GRID; jy++) {
    const double y = lo3[1] + (jy + 0.5) * dy;
    for (int jz = 0; jz < CLUMP_GRID; jz++) {
      const double z = lo3[2] + (jz + 0.5) * dz;
      double       lo[CLUMP_MAX_MEMBERS], hi[CLUMP_MAX_MEMBERS], L, Sx, Sxx;
      int          m = 0;
      for (int i = 0; i < n; i++) {
        const double ey = y - offset[3 * i + 1], ez = z - offset[3 * i + 2],
                     h2 = radius[i] * radius[i] - ey * ey - ez * ez;
        if (h2 <= 0) continue;
        lo[m]   = offset[3 * i] - sqrt(h2);
        hi[m++] = offset[3 * i] + sqrt(h2);
      }
      if (!m) continue;
      column_moments(m, lo, hi, &L, &Sx, &Sxx);
      V += L;
      M1[0] += Sx;
      M1[1] += y * L;
      M1[2] += z * L;
      M2[0] += Sxx;       /* x^2 */
      M2[1] += y * y * L; /* y^2 */
      M2[2] += z * z * L; /* z^2 */
      M2[3] += y * Sx;    /* xy */
      M2[4] += z * Sx;    /* xz */
      M2[5] += y * z * L; /* yz */
    }
  }
  V *= dy * dz;
  for (int k = 0; k < 3; k++) com[k] = M1[k] * dy * dz / V;
  for (int k = 0; k < 6; k++) M2[k] *= dy * dz;
  /* second moments about the centre of mass, then the inertia tensor */
  {
    const double cxx = M2[0] - V * com[0] * com[0], cyy = M2[1] - V * com[1] * com[1],
                 czz = M2[2] - V * com[2] * com[2];
    I[0]             = cyy + czz;
    I[1]             = cxx + czz;
    I[2]             = cxx + cyy;
    I[3]             = -(M2[3] - V * com[0] * com[1]);
    I[4]             = -(M2[4] - V * com[0] * com[2]);
    I[5]             = -(M2[5] - V * com[1] * com[2]);
  }
  *volume = V;
}

/* Eigen-decomposition of the symmetric S = (xx, yy, zz, xy, xz, yz) by cyclic Jacobi rotations:
 * S = E diag(d) E^T, E row-major with the eigenvectors as columns, det E = +1. */
static void symmetric_eigen(const double S[6], double d[3], double E[9])
{
  double A[3][3] = {{S[0], S[3], S[4]}, {S[3], S[1], S[5]}, {S[4], S[5], S[2]}};
  double V[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

  for (int sweep = 0; sweep < 50; sweep++) {
    const double off = fabs(A[0][1]) + fabs(A[0][2]) + fabs(A[1][2]);
    if (off <= 1e-15 * (fabs(A[0][0]) + fabs(A[1][1]) + fabs(A[2][2]))) break;
    for (int p = 0; p < 2; p++)
      for (int q = p + 1; q < 3; q++) {
        double theta, t, c, s;
        if (A[p][q] == 0) continue;
        theta = (A[q][q] - A[p][p]) / (2 * A[p][q]);
        t     = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
        c     = 1 / sqrt(t * t + 1);
        s     = t * c;
        for (int k = 0; k < 3; k++) { /* A <- A J */
          const double akp = A[k][p], akq = A[k][q];
          A[k][p] = c * akp - s * akq;
          A[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < 3; k++) { /* A <- J^T A */
          const double apk = A[p][k], aqk = A[q][k];
          A[p][k] = c * apk - s * aqk;
          A[q][k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 3; k++) { /* V <- V J */
          const double vkp = V[k][p], vkq = V[k][q];
          V[k][p] = c * vkp - s * vkq;
          V[k][q] = s * vkp + c * vkq;
        }
      }
  }
  for (int k = 0; k < 3; k++) d[k] = A[k][k];
  {
    const double det = V[0][0] * (V[1][1] * V[2][2] - V[1][2] * V[2][1]) -
                       V[0][1] * (V[1][0] * V[2][2] - V[1][2] * V[2][0]) +
                       V[0][2] * (V[1][0] * V[2][1] - V[1][1] * V[2][0]);
    if (det < 0)
      for (int k = 0; k < 3; k++) V[k][2] = -V[k][2];
  }
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) E[3 * r + c] = V[r][c];
}

/* The unit quaternion of the rotation matrix R (row-major, det +1), w >= 0. */
static void quat_of_matrix(const double R[9], double q[4])
{
  const double tr = R[0] + R[4] + R[8];
  if (tr > 0) {
    const double s = 2 * sqrt(tr + 1);
    q[0]           = 0.25 * s;
    q[1]           = (R[7] - R[5]) / s;
    q[2]           = (R[2] - R[6]) / s;
    q[3]           = (R[3] - R[1]) / s;
  } else if (R[0] > R[4] && R[0] > R[8]) {
    const double s = 2 * sqrt(1 + R[0] - R[4] - R[8]);
    q[0]           = (R[7] - R[5]) / s;
    q[1]           = 0.25 * s;
    q[2]           = (R[1] + R[3]) / s;
    q[3]           = (R[2] + R[6]) / s;
  } else if (R[4] > R[8]) {
    const double s = 2 * sqrt(1 + R[4] - R[0] - R[8]);
    q[0]           = (R[2] - R[6]) / s;
    q[1]           = (R[1] + R[3]) / s;
    q[2]           = 0.25 * s;
    q[3]           = (R[5] + R[7]) / s;
  } else {
    const double s = 2 * sqrt(1 + R[8] - R[0] - R[4]);
    q[0]           = (R[3] - R[1]) / s;
    q[1]           = (R[2] + R[6]) / s;
    q[2]           = (R[5] + R[7]) / s;
    q[3]           = 0.25 * s;
  }
  if (q[0] < 0)
    for (int k = 0; k < 4; k++) q[k] = -q[k];
  quat_normalize(q);
}

void clump_template_setup(Clump *t)
{
  double I[6], E[9];

  clump_union_mass(t->n, t->offset, t->radius, &t->volume, t->com, I);
  if (t->n == 1) { /* a sphere: every axis is principal; keep the template's */
    v3_set(t->moments, I[0], I[1], I[2]);
    t->quat[0] = 1;
    t->quat[1] = t->quat[2] = t->quat[3] = 0;
  } else {
    double Rq[9];
    symmetric_eigen(I, t->moments, E);
    quat_of_matrix(E, t->quat);
    quat_to_matrix(t->quat, Rq); /* the rotation the integrator will use, so offsets match it to rounding */
    memcpy(E, Rq, sizeof Rq);
  }
  t->bounding      = 0;
  t->member_radius = t->radius[0];
  t->min_radius    = t->radius[0];
  for (int i = 0; i < t->n; i++) {
    double d[3];
    v3_sub(d, t->offset + 3 * i, t->com);
    if (t->n == 1) v3_set(t->offset + 3 * i, 0, 0, 0);
    else mat_tvec(t->offset + 3 * i, E, d); /* template frame -> body frame */
    t->bounding = fmax(t->bounding, v3_norm(t->offset + 3 * i) + t->radius[i]);
    if (t->radius[i] != t->member_radius) t->member_radius = 0;
    t->min_radius = fmin(t->min_radius, t->radius[i]);
  }
}
