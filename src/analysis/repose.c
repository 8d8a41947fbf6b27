#include "analysis/repose.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define REPOSE_SECTORS 8

static int compare_double(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int repose_angle(size_t n, const double *pos, const double *radius, const unsigned char *keep, double floor_z,
                 ReposeResult *res)
{
  double cx = 0, cy = 0, dmean = 0, rmax = 0, hmax = 0;
  size_t m = 0;

  memset(res, 0, sizeof(*res));
  for (size_t i = 0; i < n; i++) {
    if (keep && !keep[i]) continue;
    cx += pos[3 * i];
    cy += pos[3 * i + 1];
    dmean += 2 * radius[i];
    m++;
  }
  if (m < 20) return -1;
  cx /= m;
  cy /= m;
  dmean /= m;
  { /* extent: the radius holding 95% of the bodies, so grains that rolled far away are not the toe */
    double *r = malloc(m * sizeof(double));
    size_t  k = 0;
    if (!r) return -1;
    for (size_t i = 0; i < n; i++) {
      if (keep && !keep[i]) continue;
      r[k++] = hypot(pos[3 * i] - cx, pos[3 * i + 1] - cy);
      hmax   = fmax(hmax, pos[3 * i + 2] + radius[i] - floor_z);
    }
    qsort(r, m, sizeof(double), compare_double);
    rmax = r[(size_t)(0.95 * (m - 1))];
    free(r);
  }
  const int nrings = (int)(rmax / dmean) + 1;
  double   *top    = calloc((size_t)nrings * REPOSE_SECTORS, sizeof(double));
  if (!top) return -1;
  for (size_t i = 0; i < n; i++) {
    if (keep && !keep[i]) continue;
    const double dx = pos[3 * i] - cx, dy = pos[3 * i + 1] - cy;
    const int    ring = (int)(hypot(dx, dy) / dmean);
    if (ring >= nrings) continue; /* beyond the extent */
    int sec = (int)floor((atan2(dy, dx) + M_PI) / (2 * M_PI) * REPOSE_SECTORS);
    if (sec >= REPOSE_SECTORS) sec = REPOSE_SECTORS - 1;
    double *t = &top[(size_t)ring * REPOSE_SECTORS + sec];
    *t        = fmax(*t, pos[3 * i + 2] + radius[i] - floor_z);
  }
  double angles[REPOSE_SECTORS], toe = 0;
  int    used = 0;
  for (int s = 0; s < REPOSE_SECTORS; s++) {
    double st = 0, sh = 0, stt = 0, sth = 0;
    int    k = 0;
    for (int r = 0; r < nrings; r++) {
      const double h = top[(size_t)r * REPOSE_SECTORS + s], rc = (r + 0.5) * dmean;
      if (h <= 0.1 * hmax || h >= 0.9 * hmax) continue; /* toe or apex zone */
      st += rc;
      sh += h;
      stt += rc * rc;
      sth += rc * h;
      k++;
      toe = fmax(toe, rc);
    }
    if (k < 3) continue;
    const double slope = (k * sth - st * sh) / (k * stt - st * st);
    angles[used++]     = atan(fmax(-slope, 0.0)) * 180 / M_PI;
  }
  free(top);
  if (used < 2 && hmax < 3 * dmean) {
    /* A spread-out layer a few grains high has no flank to fit: report the bulk slope
     * height / extent, uncertain by one grain of height. */
    res->angle_deg       = atan(hmax / rmax) * 180 / M_PI;
    res->uncertainty_deg = atan(dmean / rmax) * 180 / M_PI;
    res->height          = hmax;
    res->radius          = rmax;
    return 0;
  }
  if (used < 2) return -1;
  double mean = 0, var = 0;
  for (int s = 0; s < used; s++) mean += angles[s];
  mean /= used;
  for (int s = 0; s < used; s++) var += (angles[s] - mean) * (angles[s] - mean);
  var /= (used - 1);
  res->angle_deg       = mean;
  res->uncertainty_deg = sqrt(var / used);
  res->height          = hmax;
  res->radius          = toe;
  res->sectors_used    = used;
  return 0;
}

int repose_angle_x_range(size_t n, const double *pos, const double *radius, double x_min, double x_max,
                         const double *floor_z, ReposeResult *res, size_t *kept, double *floor_used)
{
  unsigned char *keep   = malloc(n + 1);
  double         lowest = INFINITY;
  int            status;

  *kept = 0;
  if (!keep) return -1;
  for (size_t i = 0; i < n; i++) {
    keep[i] = pos[3 * i] >= x_min && pos[3 * i] <= x_max;
    if (keep[i]) {
      (*kept)++;
      lowest = fmin(lowest, pos[3 * i + 2] - radius[i]);
    }
  }
  *floor_used = floor_z ? *floor_z : lowest;
  status      = *kept ? repose_angle(n, pos, radius, keep, *floor_used, res) : -1;
  free(keep);
  return status;
}
