/* Ellipsoids on several ranks against one: ellipsoid-ellipsoid, ellipsoid-sphere, ellipsoid-cylinder and
 * ellipsoid-mesh contacts across the subdomain cuts, so the ghosts carry ellipsoids (their semi-axes and
 * orientations) into the contacts their owners' neighbours compute.
 * The scene: a vertical drum (a cylinder wall, R = 0.1 m, axis z) on a mesh floor of 32 triangles
 * ([-0.15, 0.15]^2 as 4 x 4 squares split along their diagonals) that turns at 3 rad/s about z (a turntable
 * dragging every body by friction; the drum is fixed).
 * Inside, ellipsoids (semi-axes 12, 8, 6 mm) and spheres (r = 8 mm) lie on the floor, 0.05 mm above it:
 *  - five rows along x, 24.1 mm apart in y; in each row, bodies 16.1 mm apart in x (0.1 mm between
 *    neighbours), every third a sphere, the others ellipsoids turned 90 degrees about z (long axis along y,
 *    so the tips of two rows' ellipsoids face each other 0.1 mm apart), the cuts of 2 and 4 slabs along x
 *    (x = 0, +-55 mm) falling between or through bodies;
 *  - a ring of 20 ellipsoids against the drum, 0.05 mm from it, long axes along the wall.
 * Every gap starts >= 0 (neighbours within the envelope, 1 mm), so each step's CCP is well posed (GUIDE
 * "When the exact CCP is ill-posed"). 10 steps of 2 ms solved to 1e-9 m/s, on this run's ranks (one slab along
 * x each) and, on rank 0, on one rank: after every step the same contacts (keys) and every velocity within
 * 1e-7 m/s (angular rates times the largest semi-axis), a hundred times the tolerance, as
 * test_mesh_motion.c and test_moving_walls.c: two converged solves of the same well-posed step whose sums
 * run in another order differ by about the tolerance per step, and the floor's drag changes each
 * velocity by mu g h = 0.01 m/s per step, so a contact lost or computed with a wrong shape misses by far
 * more. Contact keys are equal as long as no pair's gap is within that rounding of the envelope.
 * The test also checks that the scene does what it is for: every step converged, and in the last step each
 * kind of contact is there on one rank, and on several ranks ellipsoid-ellipsoid and ellipsoid-sphere
 * contacts join bodies owned by different ranks.
 * Measured: 120 contacts in the last step (19 ellipsoid-ellipsoid, 21 ellipsoid-sphere, 20 with the drum, 48
 * with the floor; 5 of the first two across the cut on 2 ranks, 11 on 4), velocities within 9e-16 m/s on 2
 * ranks and 1.8e-15 m/s on 4. A ghost that loses a semi-axis (b set to a when decomp/ghosts.c unpacks it)
 * overlaps its neighbours across the cut: velocities 0.22 m/s off; a ghost turned to the identity
 * orientation likewise, 0.24 m/s off, and its steps stall. */
// ctest: ranks=2;4 timeout=60
#include "test_mesh.h"

#define STEPS   10
#define NMAX    256
#define RING    20
#define SEMI_A  0.012
#define SEMI_B  0.008
#define SEMI_C  0.006
#define RSPHERE 0.008
#define LIFT    5e-5 /* m: every body starts this far above the floor */
#define XMIN    (-0.11)
#define XMAX    0.11

static int sphere_id[NMAX]; /* whether body id is a sphere (the scene's bodies are numbered in order) */

/* The scene into yaml (cap bytes); *n the number of bodies. */
static void Scene(char *yaml, size_t cap, int *n)
{
  const double pitch_x = 2 * SEMI_B + 1e-4, pitch_y = 2 * SEMI_A + 1e-4, R = 0.1;
  const double turn[4] = {M_SQRT1_2, 0, 0, M_SQRT1_2}; /* 90 degrees about z: the long axis along y */
  size_t       len;

  *n  = 0;
  len = (size_t)
    snprintf(yaml, cap,
             "domain: {min: [%g, %g, -0.02], max: [%g, %g, 0.06]}\n"
             "gravity: [0, 0, -9.81]\n"
             "time: {step: 0.002, end: 0.1}\n"
             "contact: {model: ccp, envelope: 0.001, max_recovery_speed: 0.1}\n"
             "solver: {type: apgd, max_iterations: 20000, tolerance: 1.0e-9}\n"
             "materials:\n"
             "  - {name: m, density: 2500, friction: 0.5}\n"
             "walls:\n"
             "  - {type: cylinder, point: [0, 0, 0], axis: [0, 0, 1], radius: %g, inside: true, material: m}\n"
             "  - {type: mesh, file: test_ellipsoid_ranks_floor.stl, material: m,\n"
             "     motion: {axis: [0, 0, 1], angular_velocity: 3}}\n"
             "bodies:\n",
             XMIN, XMIN, XMAX, XMAX, R);
  for (int j = -2; j <= 2; j++)
    for (int k = -5; k < 5; k++) {
      const double x = (k + 0.5) * pitch_x, y = j * pitch_y;
      if (sqrt(x * x + y * y) + SEMI_A > 0.082) continue; /* clear of the ring by 2 mm, beyond the envelope */
      sphere_id[*n] = (k + j + 30) % 3 == 0;
      if (sphere_id[*n])
        len += (size_t)snprintf(yaml + len, cap - len,
                                "  - {shape: sphere, radius: %g, position: [%.17g, %.17g, %.17g], material: m}\n",
                                RSPHERE, x, y, RSPHERE + LIFT);
      else
        len += (size_t)snprintf(yaml + len, cap - len,
                                "  - {shape: ellipsoid, semi_axes: [%g, %g, %g], position: [%.17g, %.17g, %.17g], "
                                "orientation: [%.17g, 0, 0, %.17g], material: m}\n",
                                SEMI_A, SEMI_B, SEMI_C, x, y, SEMI_C + LIFT, turn[0], turn[3]);
      (*n)++;
    }
  for (int i = 0; i < RING; i++) { /* long axis along the wall, the b side 0.05 mm from it */
    const double th = 2 * M_PI * (i + 0.25) / RING, rho = R - SEMI_B - LIFT, phi = th + M_PI / 2;
    sphere_id[*n] = 0;
    len += (size_t)snprintf(yaml + len, cap - len,
                            "  - {shape: ellipsoid, semi_axes: [%g, %g, %g], position: [%.17g, %.17g, %.17g], "
                            "orientation: [%.17g, 0, 0, %.17g], material: m}\n",
                            SEMI_A, SEMI_B, SEMI_C, rho * cos(th), rho * sin(th), SEMI_C + LIFT, cos(phi / 2),
                            sin(phi / 2));
    (*n)++;
  }
}

static int CompareKeys(const void *a, const void *b) { return contact_key_compare(a, b); }

/* Every rank's contact keys gathered on rank 0 of the simulation's communicator in key order (*out there,
 * PetscFree it; *n the count there). Collective. */
static PetscErrorCode GatherKeys(Simulation sim, ContactKey **out, PetscInt *n)
{
  const ContactSet *cs = SimulationContacts(sim);

  PetscFunctionBegin;
  PetscCall(TestGatherRecords(SimulationComm(sim), cs->key, cs->n, sizeof(ContactKey), out, n, CompareKeys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  TestBodyVel *bodies;
  PetscInt     nbodies;
  ContactKey  *keys;
  PetscInt     nkeys;
} StepRecord;

/* The scene on comm, STEPS steps, each step's bodies and contact keys gathered on rank 0 of comm into rec[step]
 * (PetscFree both there). Collective. */
static PetscErrorCode Run(MPI_Comm comm, const char *yaml, StepRecord rec[STEPS])
{
  Simulation sim;

  PetscFunctionBegin;
  PetscCall(TestSimulationOnComm(comm, yaml, "ellipsoid-ranks", &sim));
  for (int s = 0; s < STEPS; s++) {
    PetscCall(SimulationStep(sim));
    TEST_CHECK(SimulationLastStep(sim)->converged, "step %d did not converge (residual %.3e m/s)", s + 1,
               SimulationLastStep(sim)->residual_max);
    PetscCall(TestGatherVelocities(sim, &rec[s].bodies, &rec[s].nbodies));
    PetscCall(GatherKeys(sim, &rec[s].keys, &rec[s].nkeys));
  }
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether a and b hold the same contact keys (both in key order). */
static PetscBool SameKeys(const StepRecord *a, const StepRecord *b)
{
  if (a->nkeys != b->nkeys) return PETSC_FALSE;
  for (PetscInt i = 0; i < a->nkeys; i++)
    if (contact_key_compare(&a->keys[i], &b->keys[i])) return PETSC_FALSE;
  return PETSC_TRUE;
}

enum {
  ELL_ELL,
  ELL_SPHERE,
  ELL_DRUM,
  ELL_FLOOR,
  KINDS
};
static const char *kind_name[KINDS] = {"ellipsoid-ellipsoid", "ellipsoid-sphere", "ellipsoid-drum", "ellipsoid-floor"};

/* The kind of the contact with key k (-1: none of the four). */
static int Kind(const ContactKey *k)
{
  if (k->ida == wall_global_id(0)) return sphere_id[k->idb] ? -1 : ELL_DRUM;
  if (k->ida == wall_global_id(1)) return sphere_id[k->idb] ? -1 : ELL_FLOOR;
  if (k->ida < 0) return -1;
  if (!sphere_id[k->ida] && !sphere_id[k->idb]) return ELL_ELL;
  return sphere_id[k->ida] != sphere_id[k->idb] ? ELL_SPHERE : -1;
}

/* The slab (rank) of x among `size` equal slabs of [XMIN, XMAX]. */
static int Slab(double x, int size) { return PetscMin(size - 1, (int)floor((x - XMIN) / (XMAX - XMIN) * size)); }

/* Counts of rec's contacts by kind (all, and those joining bodies in different slabs of `size`). */
static void CountKinds(const StepRecord *rec, int size, int all[KINDS], int cut[KINDS])
{
  for (int k = 0; k < KINDS; k++) all[k] = cut[k] = 0;
  for (PetscInt i = 0; i < rec->nkeys; i++) {
    const ContactKey *key = &rec->keys[i];
    const int         k   = Kind(key);
    if (k < 0) continue;
    all[k]++;
    if (key->ida >= 0 && Slab(rec->bodies[key->ida].x[0], size) != Slab(rec->bodies[key->idb].x[0], size)) cut[k]++;
  }
}

int main(int argc, char **argv)
{
  static char yaml[65536];
  StepRecord  par[STEPS] = {{0}}, ser[STEPS] = {{0}};
  PetscMPIInt rank, size;
  int         n;
  double      xyz[32 * 9];

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      TestRectangle(-0.15 + 0.075 * i, -0.15 + 0.075 * j, -0.075 + 0.075 * i, -0.075 + 0.075 * j,
                    xyz + 18 * (4 * i + j));
  PetscCall(TestWriteStl("test_ellipsoid_ranks_floor.stl", 32, xyz));
  Scene(yaml, sizeof yaml, &n);
  PetscCall(TestSlabsAlongX("0"));
  PetscCall(Run(PETSC_COMM_WORLD, yaml, par));
  if (!rank) {
    double worst  = 0;
    int    differ = 0, all[KINDS], cut[KINDS];
    PetscCall(TestSerialReference());
    PetscCall(Run(PETSC_COMM_SELF, yaml, ser));
    if (par[STEPS - 1].nbodies == n) CountKinds(&par[STEPS - 1], size, all, cut); /* bodies indexed by id */
    else
      for (int k = 0; k < KINDS; k++) all[k] = cut[k] = 0;
    printf("%d ranks against 1, %d bodies, last step: %" PetscInt_FMT " contacts\n", size, n, par[STEPS - 1].nkeys);
    for (int k = 0; k < KINDS; k++) {
      printf("  %-20s %3d, %3d of them across a cut\n", kind_name[k], all[k], cut[k]);
      TEST_CHECK(all[k] > 0, "no %s contact in the last step", kind_name[k]);
      if (size > 1 && (k == ELL_ELL || k == ELL_SPHERE))
        TEST_CHECK(cut[k] > 0, "no %s contact across a cut in the last step", kind_name[k]);
    }
    for (int s = 0; s < STEPS; s++) { /* compared, then freed */
      PetscBool same_ids;
      worst = PetscMax(worst, TestLargestVelocityDifference(par[s].bodies, par[s].nbodies, ser[s].bodies,
                                                            ser[s].nbodies, SEMI_A, &same_ids));
      TEST_CHECK(same_ids && par[s].nbodies == n, "step %d: the bodies differ from the 1-rank run's", s + 1);
      differ += !SameKeys(&par[s], &ser[s]);
      PetscCall(PetscFree(par[s].bodies));
      PetscCall(PetscFree(par[s].keys));
      PetscCall(PetscFree(ser[s].bodies));
      PetscCall(PetscFree(ser[s].keys));
    }
    printf("%d steps: velocities within %.3e m/s, steps with other contacts than on one rank: %d\n", STEPS, worst,
           differ);
    TEST_CHECK(differ == 0, "%d steps have other contacts than on one rank", differ);
    TEST_CHECK(worst <= 1e-7, "velocities differ from the 1-rank run by %.3e m/s > 1e-7", worst);
  }
  PetscCallMPI(MPI_Bcast(&failures, 1, MPI_INT, 0, PETSC_COMM_WORLD)); /* rank 0 checked */
  {
    const int rc = TestFinish("ellipsoids on several ranks");
    PetscCall(PetscFinalize());
    return rc;
  }
}
