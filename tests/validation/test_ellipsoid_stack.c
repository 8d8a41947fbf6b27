/* Ellipsoids resting on an ellipsoid and on a clump, in both contact models (ellipsoid-ellipsoid
 * contact: collision/ellipsoid_contact.h; ellipsoid-clump: collision/clump_contact.h).
 *  - stack: ellipsoid A (semi-axes 0.05, 0.03, 0.02 m) lying flat on the plane z = 0, ellipsoid B
 *    (0.04, 0.025, 0.015 m, turned 90 degrees about z) lying flat on A's top tip, both dropped 0.5 mm.
 *    Resting tip on tip is stable: along each horizontal axis B's centre, 0.015 m above the contact, is
 *    below rho_A rho_B / (rho_A + rho_B) (at least 0.031 m, the tips' radii of curvature a^2 / c).
 *    Heights: A at 0.02 m, B at 0.04 + 0.015 = 0.055 m.
 *  - dimer: a clump of two spheres (radius 0.02 m at x = +-0.015 m) on the plane, and on it the flat
 *    ellipsoid (0.03, 0.05, 0.01 m), centred: it rests on both members; its height H solves
 *    dist(member centre, ellipsoid at height H) = 0.02 m (bisection on ellipsoid_closest_point, which
 *    tests/unit/test_ellipsoid.c checks against surface sampling). Rolling friction 1 mm damps the
 *    dimer's neutral roll about x.
 * Checked after 0.5 s:
 *  - CCP (h = 1 ms, APGD to 1e-8 m/s): heights within 1e-6 m (a resting rigid contact closes its gap
 *    to about the tolerance times h, 1e-11 m; a contact on a bounding sphere, or at a wrong point,
 *    misses by 1e-3 m or more), the contacts (stack: plane-A and A-B; dimer: 2 plane-member and 2
 *    member-ellipsoid), speeds below 1e-6 m/s and angular speeds below 1e-5 rad/s (the solver's
 *    tolerance with a margin of 100);
 *  - penalty (Hertz, h = 0.1 ms): each height below the rigid one and above it less 1e-4 m (the Hertz
 *    overlaps at these loads are about 3e-5 m per contact, the stack's top sums two), speeds below
 *    1e-6 m/s (measured 4e-14 m/s: the normal oscillation has decayed, restitution 0.2).
 * Breaking the ellipsoid-ellipsoid dispatch (no point for the pair) drops B through A; running the
 * box-sphere kernel for the ellipsoid's members gets the dimer scene refused as overlapping. */
// ctest: timeout=300
#include "test_penalty.h"
#include "bodies/ellipsoid.h"
#include "collision/ellipsoid_contact.h"

static const double SA[3] = {0.05, 0.03, 0.02}, SB[3] = {0.04, 0.025, 0.015}, SE[3] = {0.03, 0.05, 0.01};
#define R_MEMBER 0.02
#define X_MEMBER 0.015

/* the dimer's ellipsoid height at rest: its surface 0.02 m from the member centre (X_MEMBER, 0, R_MEMBER) */
static double DimerHeight(void)
{
  double lo = R_MEMBER, hi = 3 * R_MEMBER + SE[2];
  for (int it = 0; it < 200; it++) {
    const double H = 0.5 * (lo + hi), x[3] = {X_MEMBER, 0, R_MEMBER - H};
    double       p[3];
    if (ellipsoid_closest_point(SE, x, p) < R_MEMBER) lo = H;
    else hi = H;
  }
  return 0.5 * (lo + hi);
}

/* scene 0: the stack, 1: the dimer */
static PetscErrorCode Settle(int scene, int penalty)
{
  Simulation   sim;
  char         yaml[4096];
  const char  *name = scene ? (penalty ? "dimer, penalty" : "dimer, ccp") : (penalty ? "stack, penalty" : "stack, ccp");
  const double h = sqrt(0.5), drop = 0.0005;
  double       want[2], x[3] = {0, 0, 0}, v[6] = {0, 0, 0, 0, 0, 0};
  int64_t      ids[2];
  PetscInt     found = 0, n, plane = 0;
  int          head;

  PetscFunctionBegin;
  head = TestFloorScenario(yaml, sizeof(yaml), penalty, 0.005, penalty ? "" : ", rolling_friction: 0.001");
  if (scene == 0) {
    want[0] = SA[2];
    want[1] = 2 * SA[2] + SB[2];
    snprintf(yaml + head, sizeof(yaml) - (size_t)head,
             "bodies:\n"
             "  - {shape: ellipsoid, semi_axes: [%g, %g, %g], position: [0, 0, %.17g], material: m}\n"
             "  - {shape: ellipsoid, semi_axes: [%g, %g, %g], position: [0, 0, %.17g], orientation: [%.17g, 0, 0, "
             "%.17g], material: m}\n",
             SA[0], SA[1], SA[2], want[0] + drop, SB[0], SB[1], SB[2], want[1] + 2 * drop, h, h);
  } else {
    want[0] = R_MEMBER;
    want[1] = DimerHeight();
    snprintf(yaml + head, sizeof(yaml) - (size_t)head,
             "clumps:\n"
             "  - {name: duo, members: [{offset: [%g, 0, 0], radius: %g}, {offset: [%g, 0, 0], radius: %g}]}\n"
             "bodies:\n"
             "  - {shape: clump, clump: duo, position: [0, 0, %.17g], material: m}\n"
             "  - {shape: ellipsoid, semi_axes: [%g, %g, %g], position: [0, 0, %.17g], material: m}\n",
             -X_MEMBER, R_MEMBER, X_MEMBER, R_MEMBER, want[0] + drop, SE[0], SE[1], SE[2], want[1] + 2 * drop);
  }
  PetscCall(TestSimulationFromText(yaml, &sim));
  PetscCall(TestRunUntil(sim, 0.5));
  ids[0] = 0;
  ids[1] = 1;
  for (int k = 0; k < 2; k++) {
    double speed, spin;
    PetscCall(TestBodyGet(sim, ids[k], x, v, &found));
    speed = v3_norm(v);
    spin  = v3_norm(v + 3);
    printf("%s: body %d at height %.12f m (rigid %.12f, off by %.2e), speed %.2e m/s, angular speed %.2e rad/s\n", name,
           k, x[2], want[k], x[2] - want[k], speed, spin);
    CHECK(found == 1, "%s: body %d owned once", name, k);
    if (penalty)
      CHECK(x[2] < want[k] && x[2] > want[k] - 1e-4, "%s: body %d at %.9g m, rigid %.9g m", name, k, x[2], want[k]);
    else CHECK(fabs(x[2] - want[k]) < 1e-6, "%s: body %d at %.12g m, want %.12g m", name, k, x[2], want[k]);
    CHECK(speed < 1e-6, "%s: body %d speed %.3g m/s", name, k, speed);
    CHECK(penalty || spin < 1e-5, "%s: body %d angular speed %.3g rad/s", name, k, spin);
  }
  n = SimulationContacts(sim)->n;
  for (PetscInt i = 0; i < n; i++) plane += SimulationContacts(sim)->key[i].ida < 0;
  printf("%s: %" PetscInt_FMT " contacts, %" PetscInt_FMT " with the plane\n", name, n, plane);
  CHECK(penalty || (scene ? n == 4 && plane == 2 : n == 2 && plane == 1), "%s: %" PetscInt_FMT " contacts", name, n);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (int scene = 0; scene < 2; scene++)
    for (int penalty = 0; penalty < 2; penalty++) PetscCall(Settle(scene, penalty));
  int rc = TestFinish("ellipsoids at rest on an ellipsoid and on a clump");
  PetscCall(PetscFinalize());
  return rc;
}
