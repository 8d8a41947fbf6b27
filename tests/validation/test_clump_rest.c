/* A three-member clump dropped onto a plane settles on its three members, in both contact models.
 *
 * The clump: three spheres of radius r = 0.05 m at the corners of an equilateral triangle of
 * circumradius d = 0.04 m (side 0.069 m < 2r: they overlap), lying in the template's x-y plane;
 * it starts tilted by 0.1 rad about x with its lowest member 6 mm above the plane z = 0, so it
 * lands on one member and must turn to rest on all three (a clump whose contacts were its
 * bounding sphere, radius d + r, would rest with its members d above their true height; one whose
 * members were not all tested would tilt or sink through).
 * Checked after 1 s:
 *  - CCP (h = 1 ms, APGD to 1e-8 m/s): every member's centre at height r within 1e-4 r (a resting
 *    rigid contact closes its gap to the solver's tolerance times h: measured 7e-12 m, 1e-10 r;
 *    a member resting on its bounding sphere or sunk through misses by 1e-2 r or more), three
 *    contacts with the plane, speed below 1e-6 m/s and angular speed below 1e-5 rad/s (measured
 *    1e-8 m/s and 2e-7 rad/s: the solver's tolerance, 1e-8 m/s, with a margin of 50 to 100).
 *  - penalty (Hertz, h = 1e-4 s, restitution 0.2): every member's centre at r - delta with delta
 *    the Hertz overlap under a third of the weight (7.8e-5 m), within 2% of delta (the members
 *    carry equal loads by symmetry; after 1 s the normal oscillation has decayed: measured 3e-10 m,
 *    4e-6 of delta), speed below 1e-5 m/s (measured 2e-14 m/s).
 * Breaking the member detection (only member 0 of a clump tested) fails every check: the clump
 * tips over and sinks through the plane. */
// ctest: timeout=300
#include "test_penalty.h"

#define R_MEMBER 0.05
#define D_CIRCUM 0.04
#define TILT     0.1

static PetscErrorCode MakeClump(int penalty, Simulation *sim)
{
  char         yaml[4096];
  const double s = D_CIRCUM * sqrt(3.0) / 2, drop = R_MEMBER + s * sin(TILT) + 0.006;
  int          head;

  PetscFunctionBegin;
  head = TestFloorScenario(yaml, sizeof(yaml), penalty, 0.005, ", tangential_stiffness: 1.0e5");
  snprintf(yaml + head, sizeof(yaml) - (size_t)head,
           "clumps:\n"
           "  - {name: tri, members: [{offset: [%.17g, 0, 0], radius: %g}, {offset: [%.17g, %.17g, 0], radius: %g},\n"
           "                          {offset: [%.17g, %.17g, 0], radius: %g}]}\n"
           "bodies:\n"
           "  - {shape: clump, clump: tri, position: [0, 0, %.17g], orientation: [%.17g, %.17g, 0, 0], material: m}\n",
           D_CIRCUM, R_MEMBER, -0.5 * D_CIRCUM, s, R_MEMBER, -0.5 * D_CIRCUM, -s, R_MEMBER, drop, cos(0.5 * TILT),
           sin(0.5 * TILT));
  PetscCall(TestSimulationFromText(yaml, sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Settle(int penalty)
{
  Simulation       sim;
  const BodyStore *s;
  const Clump     *t;
  const char      *name = penalty ? "penalty" : "ccp";
  double           want, tol, w[3], speed, spin;
  PetscInt         on_plane = 0;

  PetscFunctionBegin;
  PetscCall(MakeClump(penalty, &sim));
  PetscCall(TestRunUntil(sim, 1.0));
  s = SimulationBodies(sim);
  t = &SimulationScenario(sim)->clumps[0];
  CHECK(s->n_owned == 1 && s->shape[0] == SHAPE_CLUMP, "%s: one clump body", name);
  if (penalty) {
    const double m = s->mass[0], delta = PenStaticOverlap(R_MEMBER, m * PEN_G / 3);
    want = R_MEMBER - delta;
    tol  = 0.02 * delta;
  } else {
    want = R_MEMBER;
    tol  = 1e-4 * R_MEMBER;
  }
  for (int k = 0; k < t->n; k++) {
    double c[3];
    clump_member_centre(t, s->pos, s->quat, k, c);
    printf("%s: member %d at height %.9f m (want %.9f, off by %.2e)\n", name, k, c[2], want, c[2] - want);
    CHECK(fabs(c[2] - want) < tol, "%s: member %d at height %.9g m, want %.9g +- %.2g", name, k, c[2], want, tol);
  }
  speed = v3_norm(s->vel);
  quat_rotate(w, s->quat, s->vel + 3);
  spin = v3_norm(w);
  printf("%s: speed %.3e m/s, angular speed %.3e rad/s\n", name, speed, spin);
  CHECK(speed < (penalty ? 1e-5 : 1e-6), "%s: speed %.3g m/s after 1 s", name, speed);
  CHECK(penalty || spin < 1e-5, "%s: angular speed %.3g rad/s after 1 s", name, spin);
  for (PetscInt i = 0; i < SimulationContacts(sim)->n; i++) on_plane += SimulationContacts(sim)->key[i].ida == -1;
  CHECK(penalty || on_plane == 3, "%s: %" PetscInt_FMT " contacts with the plane, want 3", name, on_plane);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(Settle(0));
  PetscCall(Settle(1));
  PetscCall(PetscFinalize());
  if (failures) printf("%d check(s) failed\n", failures);
  else printf("PASS\n");
  return failures != 0;
}
