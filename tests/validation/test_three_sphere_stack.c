/* Penalty model, three spheres stacked (paper sec. 4.6, Figs. 15-16): two spheres (m = 1 kg, R = 0.15 m)
 * on the plane z = 0 with their centres 2.3 R apart (gap 0.3 R), a third (same R, mass m_top) on top,
 * touching both. For each rolling resistance eta_r the critical top mass m_top^c (the smallest for
 * which the stack collapses) is found by bisection on short runs and compared with the static
 * equilibrium of the same contact laws below.
 *
 * Contact laws (penalty/slide.c, penalty/roll.c; mu_s = mu_k = mu, so static and kinetic caps agree):
 * slide force |T| <= mu N; each body's roll torque at a contact |M| <= K_R Theta_cap = 2 eta_r mu N R_eff
 * with R_eff = 1 / (kappa_a + kappa_b): eta_r mu N R between two spheres (R_eff = R / 2), 2 eta_r mu N R
 * on the plane (R_eff = R).
 *
 * Statics (the x-z plane, mirror symmetric, so the top sphere neither turns nor needs torques; torques
 * counterclockwise, looking along -y, positive). The line from the right bottom sphere to the top one is
 * e = (-s, c), s = sin theta = 2.3 R / (2 * 2R) = 0.575, c = cos theta; t = (c, s). On the right bottom
 * sphere act the top's normal force -N1 e, its slide force T1 t, a roll torque M1, the plane's N2
 * (up), slide force F2 (along x) and roll torque M2, and its weight m g:
 *   x:      N1 s + T1 c + F2 = 0
 *   z:      N2 = m g + N1 c - T1 s = m g + W / 2   (the top's vertical balance: 2 (N1 c - T1 s) = W = m_top g)
 *   torque: R (F2 - T1) + M1 + M2 = 0.
 * With T1 = -tau N1 (|tau| <= mu), N1 = W / (2 (c + tau s)), this needs
 *   slide on the plane: N1 (s - tau c) <= mu N2,
 *   roll:               N1 (s - tau (1 + c)) <= |M1| + |M2| <= eta_r mu (N1 + 2 N2).
 * Both left sides fall with tau, so the stack holds iff they hold at tau = mu: the top sliding on the
 * bottom spheres at its limit, which is where the settling takes it (a bottom sphere rolling out on
 * the plane moves its contact point with the top by (1 + 1/c) times its own travel: the top slides).
 * With k = 1 / (2 (c + mu s)) and W = m_top g:
 *   sliding on the plane:  m_top^A = mu m / (k (s - mu c) - mu / 2),
 *   rolling out:           m_top^B = 2 eta_r mu m / (k (s - mu (1 + c)) - eta_r mu (k + 1)),
 * and m_top^c = min(m_top^A, m_top^B). Rolling (Fig. 16b) limits at small eta_r, m_top^B growing from 0
 * (no rolling resistance: any top mass rolls the bottom spheres apart); above eta_r^c, where m_top^B =
 * m_top^A, the bottom spheres slide out without turning (Fig. 16f) and m_top^c stays at m_top^A (the
 * plateau; the paper's dip past eta_r^c comes from its soft Hertz contacts and kinetic mu_k < mu_s, both
 * left out here). Both forms need mu < tan(theta / 2) = 0.3165 (above it the wedge locks for any
 * m_top: no finite m_top^c); mu = 0.2 here: m_top^A = 1.661 kg, eta_r^c = 0.2067.
 *
 * Simulation: Hertz normal (E = 1e8 Pa: overlaps below 6e-4 R, so theta moves by less than 1e-3 rad),
 * K_E = 1e5 N/m and h = 1e-4 s as the paper; roll_damping 3 and slide_damping 2 (overdamped: a static
 * analysis needs the micro-deflections to load without overshooting their caps, as in
 * test_penalty_incline_sweep.c), restitution 0.1. The spheres start at their static Hertz overlaps,
 * at rest. Criterion: the stack collapsed if the top sphere's centre dropped by more than 0.02 R
 * within 1.5 s, else it holds (measured: a holding stack settles by its micro-deflections, 1e-4 R at
 * 3/4 of m_top^c, up to 1e-2 R within 0.5% below it; a collapsing one falls through). The bisection
 * runs on log m_top to a relative bracket of 0.5%.
 *
 * Tolerance: 3% on m_top^c against the statics. Measured: within 1.3% at all five eta_r (the settling
 * transient: the top is released onto unloaded friction springs), and runs of 4 s instead of 1.5 s
 * move m_top^c by at most 0.7% (a creeping collapse missed); plus the 0.5% bracket.
 * Without rolling resistance (eta_r = 0) the statics give m_top^c = 0: a top of 0.05 kg must bring
 * the stack down. */
// ctest: timeout=60
#include "test_util.h"

#define ST_G   9.81
#define ST_R   0.15
#define ST_M   1.0
#define ST_MU  0.2
#define ST_E   1.0e8
#define ST_NU  0.3
#define ST_GAP 0.3 /* times R */

/* The Hertz overlap under normal force N between two bodies of the test material with effective
 * radius R_eff (E_eff = E / (2 (1 - nu^2)) for one material on itself). */
static double hertz_overlap(double R_eff, double N)
{
  const double E_eff = ST_E / (2 * (1 - ST_NU * ST_NU)), k = 4.0 / 3.0 * E_eff * sqrt(R_eff);
  return pow(N / k, 2.0 / 3.0);
}

static void stack_geometry(double *s, double *c)
{
  *s = (2 + ST_GAP) / 4;
  *c = sqrt(1 - *s * *s);
}

/* The statics of the header: m_top^c for this eta_r (kg), and in *sliding whether the plane's slide
 * (rather than rolling) limits it. */
static double critical_mass(double eta_r, int *sliding)
{
  double s, c;
  stack_geometry(&s, &c);
  const double k = 1 / (2 * (c + ST_MU * s)), mA = ST_MU * ST_M / (k * (s - ST_MU * c) - ST_MU / 2),
               den = k * (s - ST_MU * (1 + c)) - eta_r * ST_MU * (k + 1),
               mB  = den > 0 ? 2 * eta_r * ST_MU * ST_M / den : INFINITY;
  *sliding         = mA <= mB;
  return *sliding ? mA : mB;
}

/* eta_r where rolling and sliding give the same m_top^c (the plateau's start). */
static double critical_eta(void)
{
  double s, c;
  stack_geometry(&s, &c);
  const double k = 1 / (2 * (c + ST_MU * s)), mA = ST_MU * ST_M / (k * (s - ST_MU * c) - ST_MU / 2);
  /* 2 eta mu m = mA (k (s - mu (1 + c)) - eta mu (k + 1)) */
  return mA * k * (s - ST_MU * (1 + c)) / (2 * ST_MU * ST_M + mA * ST_MU * (k + 1));
}

/* Runs the stack with this eta_r and top mass; *collapsed: the top dropped by more than 0.02 R within
 * 1.5 s; *drop: its largest drop (m). */
static PetscErrorCode stack_run(double eta_r, double m_top, PetscBool *collapsed, double *drop)
{
  char         yaml[4096];
  double       s, c;
  const double W = m_top * ST_G, N2 = ST_M * ST_G + W / 2, h = 1e-4;
  Simulation   sim;

  PetscFunctionBegin;
  stack_geometry(&s, &c);
  {
    const double N1 = W / (2 * (c + ST_MU * s)), d2 = hertz_overlap(ST_R, N2), d1 = hertz_overlap(ST_R / 2, N1),
                 xb = 0.5 * (2 + ST_GAP) * ST_R, zb = ST_R - d2, zt = zb + sqrt(pow(2 * ST_R - d1, 2) - xb * xb);
    snprintf(yaml, sizeof(yaml),
             "domain: {min: [-2, -2, -1], max: [2, 2, 2]}\n"
             "gravity: [0, 0, %.17g]\n"
             "time: {step: %.17g, end: 100}\n"
             "contact: {model: penalty, roll_damping: 3, slide_damping: 2, envelope: 0.015}\n"
             "materials:\n"
             "  - {name: m, density: 1000, friction: %g, kinetic_friction: %g, young_modulus: %g, poisson_ratio: %g, "
             "restitution: 0.1,\n"
             "     tangential_stiffness: 1.0e5, rolling_resistance: %.17g, spinning_resistance: 0}\n"
             "walls:\n"
             "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}\n"
             "bodies:\n"
             "  - {shape: sphere, radius: %.17g, position: [%.17g, 0, %.17g], material: m, mass: %.17g}\n"
             "  - {shape: sphere, radius: %.17g, position: [%.17g, 0, %.17g], material: m, mass: %.17g}\n"
             "  - {shape: sphere, radius: %.17g, position: [0, 0, %.17g], material: m, mass: %.17g}\n",
             -ST_G, h, ST_MU, ST_MU, ST_E, ST_NU, eta_r, ST_R, -xb, zb, ST_M, ST_R, xb, zb, ST_M, ST_R, zt, m_top);
    PetscCall(TestSimulationFromText(yaml, &sim));
    *drop      = 0;
    *collapsed = PETSC_FALSE;
    while (SimulationTime(sim) < 1.5 - 0.5 * h && !*collapsed) {
      PetscInt top;
      PetscCall(SimulationStep(sim));
      top   = SimulationFindBody(sim, 2);
      *drop = PetscMax(*drop, zt - SimulationBodies(sim)->pos[3 * top + 2]);
      if (*drop > 0.02 * ST_R) *collapsed = PETSC_TRUE;
    }
  }
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* m_top^c by bisection on log m_top in [lo, hi] (lo must hold and hi collapse: checked). */
static PetscErrorCode bisect(double eta_r, double lo, double hi, double *mc)
{
  PetscBool collapsed;
  double    drop;

  PetscFunctionBegin;
  PetscCall(stack_run(eta_r, lo, &collapsed, &drop));
  TEST_CHECK(!collapsed, "eta_r %.3f: m_top = %.4g kg already collapses (drop %.3g m): the bracket's low end", eta_r,
             lo, drop);
  PetscCall(stack_run(eta_r, hi, &collapsed, &drop));
  TEST_CHECK(collapsed, "eta_r %.3f: m_top = %.4g kg still holds (drop %.3g m): the bracket's high end", eta_r, hi,
             drop);
  while (hi / lo > 1.005) {
    const double mid = sqrt(lo * hi);
    PetscCall(stack_run(eta_r, mid, &collapsed, &drop));
    if (collapsed) hi = mid;
    else lo = mid;
  }
  *mc = sqrt(lo * hi);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const double etas[] = {0.05, 0.1, 0.15, 0.25, 0.35};
  const int    n      = sizeof(etas) / sizeof(etas[0]);
  double       got[5], want[5];
  int          sliding[5];

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  printf("statics: plateau m_top^c = %.4f kg from eta_r^c = %.4f (mu = %.2f)\n", critical_mass(1, &sliding[0]),
         critical_eta(), ST_MU);
  for (int e = 0; e < n; e++) {
    want[e] = critical_mass(etas[e], &sliding[e]);
    PetscCall(bisect(etas[e], 0.5 * want[e], 2 * want[e], &got[e]));
    printf("eta_r = %.3f: m_top^c = %.4f kg, statics %.4f kg (%s limits), ratio %.4f\n", etas[e], got[e], want[e],
           sliding[e] ? "sliding on the plane" : "rolling out", got[e] / want[e]);
    /* 3%: the settling transient, the run length and the bisection's 0.5% bracket (header) */
    TEST_CHECK(fabs(got[e] / want[e] - 1) < 0.03, "eta_r %.3f: m_top^c %.4f kg, the statics say %.4f kg", etas[e],
               got[e], want[e]);
  }
  {
    PetscBool collapsed;
    double    drop;
    PetscCall(stack_run(0, 0.05, &collapsed, &drop));
    printf("eta_r = 0: a top of 0.05 kg drops by %.3g m (%s)\n", drop, collapsed ? "collapsed" : "holds");
    TEST_CHECK(collapsed, "eta_r 0: a top of 0.05 kg holds (drop %.3g m); without rolling resistance nothing does",
               drop);
  }
  for (int e = 1; e < n; e++) {
    if (!sliding[e]) /* below eta_r^c it grows */
      TEST_CHECK(got[e] > 1.2 * got[e - 1], "m_top^c does not grow with eta_r from %.3f to %.3f: %.4f, %.4f kg",
                 etas[e - 1], etas[e], got[e - 1], got[e]);
    else if (sliding[e - 1]) /* on the plateau it stays (twice the 0.5% bracket) */
      TEST_CHECK(fabs(got[e] / got[e - 1] - 1) < 0.01, "m_top^c not level past eta_r^c: %.4f kg at %.3f, %.4f at %.3f",
                 got[e - 1], etas[e - 1], got[e], etas[e]);
  }
  int rc = TestFinish("three-sphere stack");
  PetscCall(PetscFinalize());
  return rc;
}
