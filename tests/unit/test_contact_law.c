/* Unit test of the normal law the CCP sees (src/ccp/law.h): the stabilization b_n and the
 * Tikhonov diagonal c of a contact, against the law written out by hand for each regime:
 *   rigid, gap phi >= 0:              b_n = phi / h
 *   rigid, overlap held (|phi| <= d): b_n = 0             (d: the overlap tolerance)
 *   rigid, overlap deeper than d:     b_n = max((phi + d) / h, -v_recover)
 *   compliant, overlap:               b_n = phi / (h + alpha), c = C / (h (h + alpha)), d ignored
 *   split (overlap_correction position): a rigid overlap of any depth b_n = 0, the rest as above
 * The expected values are single arithmetic expressions (exact to rounding): 1e-15 relative. */
// ctest: timeout=30
#include "ccp/law.h"
#include "test_check.h"
#include <math.h>

static int close_to(double a, double b) { return fabs(a - b) <= 1e-15 * (fabs(b) + 1e-300) || a == b; }

static void law_split(double phi, double compliance, double damping, double slop, PetscBool split, double *bn,
                      double *c)
{
  Contact    k  = {0};
  PairParams pp = {0};
  k.phi         = phi;
  pp.compliance = compliance;
  pp.damping    = damping;
  contact_law_normal(&k, &pp, 0.005, 0.5, slop, split, bn, c);
}

static void law(double phi, double compliance, double damping, double slop, double *bn, double *c)
{
  law_split(phi, compliance, damping, slop, PETSC_FALSE, bn, c);
}

int main(void)
{
  const double h = 0.005, vrec = 0.5, d = 1e-4;
  double       bn, c;

  law(2e-4, 0, 0, d, &bn, &c);
  CHECK(close_to(bn, 2e-4 / h) && c == 0, "gap: b_n %g (want %g), c %g", bn, 2e-4 / h, c);
  law(-0.5 * d, 0, 0, d, &bn, &c);
  CHECK(bn == 0 && c == 0, "held overlap: b_n %g (want 0), c %g", bn, c);
  law(-d, 0, 0, d, &bn, &c);
  CHECK(bn == 0, "overlap at the tolerance: b_n %g (want 0)", bn);
  law(-3 * d, 0, 0, d, &bn, &c);
  CHECK(close_to(bn, -2 * d / h), "deep overlap: b_n %g (want %g: pushed back to the tolerance)", bn, -2 * d / h);
  law(-0.1, 0, 0, d, &bn, &c);
  CHECK(bn == -vrec, "very deep overlap: b_n %g (want the recovery clamp %g)", bn, -vrec);
  law(-3 * d, 0, 0, 0, &bn, &c);
  CHECK(close_to(bn, -3 * d / h), "no tolerance: b_n %g (want phi/h %g)", bn, -3 * d / h);
  law(-3 * d, 1e-6, 0.002, d, &bn, &c);
  CHECK(close_to(bn, -3 * d / (h + 0.002)) && close_to(c, 1e-6 / (h * (h + 0.002))),
        "compliant overlap: b_n %g c %g (the tolerance must not apply)", bn, c);
  law(3 * d, 1e-6, 0.002, d, &bn, &c);
  CHECK(close_to(bn, 3 * d / h) && close_to(c, 1e-6 / (h * h)), "compliant gap: b_n %g c %g", bn, c);
  law_split(-3 * d, 0, 0, d, PETSC_TRUE, &bn, &c);
  CHECK(bn == 0 && c == 0, "split, deep overlap: b_n %g (want 0: held, removed by the position pass)", bn);
  law_split(-0.1, 0, 0, 0, PETSC_TRUE, &bn, &c);
  CHECK(bn == 0, "split, very deep overlap: b_n %g (want 0)", bn);
  law_split(2e-4, 0, 0, d, PETSC_TRUE, &bn, &c);
  CHECK(close_to(bn, 2e-4 / h) && c == 0, "split, gap: b_n %g (want %g)", bn, 2e-4 / h);
  law_split(-3 * d, 1e-6, 0.002, d, PETSC_TRUE, &bn, &c);
  CHECK(close_to(bn, -3 * d / (h + 0.002)) && close_to(c, 1e-6 / (h * (h + 0.002))),
        "split, compliant overlap: b_n %g c %g (the spring's, not split)", bn, c);
  if (!failures) printf("contact law: all regimes as written\n");
  return failures != 0;
}
