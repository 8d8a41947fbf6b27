/* A sphere (r = 0.02 m) dropped onto an ellipsoid (semi-axes 0.05, 0.03, 0.02 m, lying on its c tip
 * on the plane z = 0) comes to rest on its top, in both contact models: the ellipsoid-sphere contact
 * at the surface point nearest the sphere's centre (collision/ellipsoid_contact.h). Checked after 1 s:
 *  - CCP (h = 1 ms, APGD to 1e-8 m/s): the ellipsoid's centre at c, the sphere's at 2 c + r, each
 *    within 1e-6 m (a resting rigid contact closes its gap to about the tolerance times h, 1e-11 m;
 *    a contact on the ellipsoid's bounding sphere would put the sphere 0.03 m higher), two
 *    contacts, speeds below 1e-6 m/s;
 *  - penalty (Hertz, E = 1e8 Pa, nu = 0.3, restitution 0.2, h = 1e-4 s; TestFloorScenario): the overlaps are the Hertz
 * overlaps (N / k)^(2/3), k = 4/3 E_eff R_eff^(1/2), of each contact's load with R_eff from the mean curvature H =
 * (c/a^2 + c/b^2) / 2 of the ellipsoid at its tips: 1 / H on the plane (load: both weights), 1 / (H + 1/r) under the
 * sphere (its weight); each centre within 2% of its overlap (2e-7 m; after 1 s the normal oscillations have decayed:
 * measured below 1e-4 of it). An ellipsoid curvature taken at the wrong point (its sides', c/a^2 or c/b^2 alone) moves
 * an overlap by 10% or more. Breaking the closest point (the ellipsoid's bounding sphere instead) fails both models'
 * heights. */
// ctest: timeout=300
#include "test_util.h"
#include "bodies/shapes.h"

#define A  0.05
#define B  0.03
#define C  0.02
#define R  0.02
#define E  1.0e8
#define NU 0.3
#define G  9.81

/* The scenario: the floor of TestFloorScenario, the ellipsoid on its c tip, the sphere 1 mm above it. */
static void StackScenario(int penalty, char *yaml, size_t n)
{
  const int head = TestFloorScenario(yaml, n, penalty, 0.002, "");
  snprintf(yaml + head, n - (size_t)head,
           "bodies:\n"
           "  - {shape: ellipsoid, semi_axes: [%g, %g, %g], position: [0, 0, %.17g], material: m}\n"
           "  - {shape: sphere, radius: %g, position: [0, 0, %.17g], material: m}\n",
           A, B, C, C, R, 2 * C + R + 0.001);
}

static PetscErrorCode Stack(int penalty)
{
  Simulation       sim;
  const BodyStore *s;
  char             yaml[4096];
  const char      *name = penalty ? "penalty" : "ccp";
  double           ze, zs, want_e, want_s, tol_e, tol_s;
  PetscInt         e, q;

  PetscFunctionBegin;
  StackScenario(penalty, yaml, sizeof(yaml));
  PetscCall(TestSimulationFromText(yaml, &sim));
  PetscCall(TestRunUntil(sim, 1.0));
  s  = SimulationBodies(sim);
  e  = s->shape[0] == SHAPE_ELLIPSOID ? 0 : 1;
  q  = 1 - e;
  ze = s->pos[3 * e + 2];
  zs = s->pos[3 * q + 2];
  if (penalty) {
    const double H = (C / (A * A) + C / (B * B)) / 2, E_eff = E / (2 * (1 - NU * NU));
    const double me = s->mass[e], ms = s->mass[q];
    const double d_bot = pow((me + ms) * G / (4.0 / 3.0 * E_eff * sqrt(1 / H)), 2.0 / 3.0);
    const double d_top = pow(ms * G / (4.0 / 3.0 * E_eff * sqrt(1 / (H + 1 / R))), 2.0 / 3.0);
    want_e             = C - d_bot;
    want_s             = want_e + C + R - d_top;
    tol_e              = 0.02 * d_bot;
    tol_s              = 0.02 * fmin(d_bot, d_top);
  } else {
    want_e = C;
    want_s = 2 * C + R;
    tol_e = tol_s = 1e-6;
  }
  {
    const double   ve = v3_norm(s->vel + 6 * e), vs = v3_norm(s->vel + 6 * q);
    const PetscInt nc = SimulationContacts(sim)->n;
    PetscCall(SimulationDestroy(&sim));
    printf("%s: ellipsoid at %.9f m (want %.9f), sphere at %.9f m (want %.9f), speeds %.3e, %.3e m/s, %d contacts\n",
           name, ze, want_e, zs, want_s, ve, vs, (int)nc);
    CHECK(fabs(ze - want_e) < tol_e, "%s: ellipsoid at %.9f m, want %.9f m", name, ze, want_e);
    CHECK(fabs(zs - want_s) < tol_s, "%s: sphere at %.9f m, want %.9f m", name, zs, want_s);
    CHECK(nc == 2, "%s: two contacts", name);
    CHECK(ve < 1e-6 && vs < 1e-6, "%s: at rest", name);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (int penalty = 0; penalty < 2; penalty++) PetscCall(Stack(penalty));
  int rc = TestFinish("sphere resting on an ellipsoid");
  PetscCall(PetscFinalize());
  return rc;
}
