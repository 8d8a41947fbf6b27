/* Exact projections onto the per-contact friction cones (GUIDE "Contacts"; paper Appendix C).
 * Called once per contact per solver iteration: branchy scalar code, no allocation, no loops
 * beyond the at most four active-set passes of the 6-dof case. */
#include "ccp/cone.h"
#include <math.h>

/* |(a, b)|. The plain sum of squares is exact enough while it stays a normal number far from
 * overflow (the common case); otherwise hypot, so a tangential part of 1e-170 does not square to 0
 * and get kept while gn is projected to 0, and 1e200 does not square to inf. */
static inline double norm2(double a, double b)
{
  const double s = a * a + b * b;
  if (s > 0x1p-1000 && s < 0x1p+1000) return sqrt(s);
  if (a == 0 && b == 0) return 0; /* common (zero impulse), and hypot is slow */
  return hypot(a, b);
}

void cone_project3(double mu, double g[3])
{
  const double gn = g[0], t = norm2(g[1], g[2]);

  /* Inside the cone mu gn >= t: keep. The gn >= 0 guard is needed for mu = 0 with a zero
   * tangential part, where t <= mu gn also holds for gn < 0. */
  if (t <= mu * gn && gn >= 0) return;

  /* Inside the polar cone mu t <= -gn: the nearest point of the cone is its apex. */
  if (mu * t <= -gn) {
    g[0] = g[1] = g[2] = 0;
    return;
  }

  /* Otherwise onto the surface, along the generator in the plane of the normal and g_t:
   * gn_new = (gn + mu t) / (1 + mu^2), g_t scaled to length mu gn_new. Here gn + mu t > 0 (not
   * polar) and t > 0 (t = 0 was either kept or sent to the apex above). For mu = 0 this gives
   * (gn, 0, 0) with gn > 0. */
  const double q = gn + mu * t, d = 1 + mu * mu;
  const double s = mu * q / (d * t); /* = mu gn_new / t; two independent divisions */
  g[0]           = q / d;
  g[1] *= s;
  g[2] *= s;
}

/* Radial scaling that clamps a block of norm n into the ball of radius r >= 0 (paper Appendix C: for
 * a given gn the nearest block is the input block scaled). For r = 0 (zero coefficient) it gives
 * exactly 0. */
static inline double clamp_factor(double n, double r) { return n > r ? r / n : 1.0; }

void cone_project6(double mu, double rho, double sigma, double g[6])
{
  /* Scalar loads: a caller that just stored g element by element would stall on a vector load
   * spanning two stores. Blocks: sliding (gu, gw), rolling (tu, tw), spinning tn. */
  const double x0 = g[0], gu = g[1], gw = g[2], tn = g[3], tu = g[4], tw = g[5];
  const double ns = norm2(gu, gw), nr = norm2(tu, tw), nt = fabs(tn);

  /* Already inside all three cones: keep. A zero-coefficient block passes only if it is zero. */
  if (x0 >= 0 && ns <= mu * x0 && nr <= rho * x0 && nt <= sigma * x0) return;

  /* Inside the polar of the intersection (the sum of the three polars): the maximum of <x, y>
   * over the cross-section {y0 = 1} of the set, x0 + sum_i m_i |l_i|, is <= 0. Nearest point: the
   * apex. */
  const double ms = mu * ns, mr = rho * nr, mt = sigma * nt;
  if (x0 + ms + mr + mt <= 0) {
    g[0] = g[1] = g[2] = g[3] = g[4] = g[5] = 0;
    return;
  }

  /* Minimize psi(y) = (y - x0)^2 + sum_i [y < b_i] (m_i y - n_i)^2 over y >= 0, b_i = n_i / m_i
   * (a zero-coefficient block becomes 0 and only adds the constant n_i^2). psi is convex with a
   * continuous, piecewise linear, nondecreasing derivative; on an active set A its root is
   *   y_A = (x0 + sum_A m_i n_i) / (1 + sum_A m_i^2).
   * psi' <= q_A' everywhere for the quadratic q_A of any set A (psi'/2 adds the negative parts of
   * all m_i (m_i y - n_i), q_A'/2 adds those terms for i in A), so y_A never overshoots the
   * minimizer y*. Start from the blocks active at y = 0 (then y_A > 0, as x0 + sum_i m_i n_i > 0), drop
   * those whose breakpoint y_A has passed, and stop when the set no longer changes: a monotone
   * (Newton) sequence of at most four passes, usually one or two. "y_A < b_i" is tested as
   * m_i num < n_i den (den > 0), so only the final iterate is divided. A block with m_i = 0 stays
   * active but contributes nothing. */
  int    as = ns > 0, ar = nr > 0, at = nt > 0;
  double num, den;
  for (;;) {
    num          = x0 + (as ? ms : 0) + (ar ? mr : 0) + (at ? mt : 0);
    den          = 1 + (as ? mu * mu : 0) + (ar ? rho * rho : 0) + (at ? sigma * sigma : 0);
    const int s2 = as && mu * num < ns * den;
    const int r2 = ar && rho * num < nr * den;
    const int t2 = at && sigma * num < nt * den;
    if (s2 == as && r2 == ar && t2 == at) break;
    as = s2;
    ar = r2;
    at = t2; /* the set shrank strictly: the loop ends */
  }
  /* y > 0 in exact arithmetic; the clamp only guards gn >= 0 against rounding when y* ~ eps |x|. */
  double y = num / den;
  if (y < 0) y = 0;

  const double fs = clamp_factor(ns, mu * y), fr = clamp_factor(nr, rho * y);
  const double ft = clamp_factor(nt, sigma * y);
  g[0]            = y;
  g[1]            = fs * gu;
  g[2]            = fs * gw;
  g[3]            = ft * tn;
  g[4]            = fr * tu;
  g[5]            = fr * tw;
}

/* Clamp the 2-vector v into the disk of radius r. */
static void disk_clamp(double r, double v[2])
{
  const double n = hypot(v[0], v[1]);
  if (n > r) {
    const double f = n > 0 ? r / n : 0;
    v[0] *= f;
    v[1] *= f;
  }
}

void cone_cap(int dof, double mu, double rho, double sigma, double cap, double g[6])
{
  if (!(g[0] > cap)) return;
  g[0] = cap;
  disk_clamp(mu * cap, g + 1);
  if (dof == 6) {
    disk_clamp(rho * cap, g + 4);
    g[3] = fmax(-sigma * cap, fmin(sigma * cap, g[3]));
  }
}
