/* Moving mesh walls (walls[].motion on type: mesh; bodies/wall_motion.h): the mesh's pose follows
 * the motion, its contacts get the surface velocity v + omega x (p - c) in both contact models, and
 * every rank places it alike.
 *
 * On one rank:
 * 1. A flat mesh floor of two triangles moving like a plane wall with the same motion gives the
 *    plane's results within 1e-9 (m, m/s) on every step (test_mesh_floor.c's bound and reasons: a
 *    face contact is the plane's up to rounding). Three motions, each after a short rest: a slide
 *    (translation with a vertical oscillation), a tilt (a turn about a horizontal axis through the
 *    origin for 0.2 s: the spheres then roll down) and a turntable (a turn about the vertical), two
 *    spheres each, CCP (tolerance 1e-10 m/s) and penalty (Hertz, tracking friction); and a small
 *    plate pushed into a sphere from beyond the neighbour list's reach (penalty: the list must be
 *    rebuilt for the plate's travel). A mesh that did not move, gave its contacts no surface
 *    velocity or kept a stale list leaves the spheres behind by centimetres.
 *    What the outputs draw (io/wall_output.h) follows the motion: Output below.
 * 2. A rotating mesh drum (a 64-facet tube written here as STL) lifts its bed like the cylinder-wall
 *    drum of test_rotating_drum.c: 300 spheres (d = 10 mm) settle for 0.3 s, then drum and end planes
 *    turn at 3 rad/s about +y. At rest the bed is level (|x_com| < 5 mm, surface within 5 deg: a
 *    poured bed's scatter); over [0.9, 1.5) s its centre of mass is at x < -10 mm (carried up the
 *    rising -x side) and its free surface (a line fitted to the bed's top) tilts by more than 10 deg,
 *    higher at -x, and both are within 5 mm and 5 deg of the cylinder drum's in the same window (the
 *    facets' flats, 0.1% of the radius deep, change the bed little; two runs of such beds scatter by
 *    about 2 deg, README "Rolling friction"). Measured: at rest below 1 mm and 0.4 deg; turning,
 *    cylinder -40.9 mm, 40.4 deg, mesh -42.1 mm, 41.1 deg.
 * On 2 and 4 ranks:
 * 3. Three rings of 13 spheres (r = 0.01 m) on the bottom of a turning mesh drum, 0.1 mm apart and
 *    at most 0.1 mm from the facets (gaps >= 0 within the envelope: a well-posed CCP, GUIDE "When the
 *    exact CCP is ill-posed"), 10 steps solved to 1e-9 m/s on this run's ranks and, on rank 0, on
 *    one rank: after every step the same contacts (keys), the velocities within 1e-7 m/s (100
 *    times the tolerance, as test_moving_walls.c) and the force and torque on the mesh (about its
 *    axis) within what that velocity bound allows: the mesh's impulse is the bodies' momentum
 *    change less gravity's (the spheres touch nothing else), so sum m 1e-7 m/s / h = 2.1e-5 N, and
 *    that times the drum's radius, 2.1e-6 N m (measured on 2 and 4 ranks: velocities within 1.3e-14
 *    m/s, force within 1.7e-13 N, torque within 1e-14 N m, the same 107 contacts in the last step).
 *    The mesh carries the rings' weight (39 m g = 4.0 N; measured 3.81 N down in the last step) and is
 *    held back by them (a torque about -y). */
// ctest: ranks=2;4 timeout=900
#include "test_mesh.h"
#include "bodies/wall_motion.h"
#include "contact/contact_set.h"
#include "io/wall_output.h"

/* ---- 1. a moving flat mesh against a moving plane ---- */

static const char *ccp_floor = "domain: {min: [-1.5, -1.5, -0.5], max: [1.5, 1.5, 1]}\n"
                               "gravity: [0, 0, -9.81]\n"
                               "time: {step: 0.002, end: 0.6}\n"
                               "contact: {model: ccp, envelope: 0.005, max_recovery_speed: 0.5}\n"
                               "solver: {type: apgd, max_iterations: 2000, tolerance: 1.0e-10}\n"
                               "materials:\n"
                               "  - {name: m, density: 1000, friction: 0.3, rolling_friction: 0.002}\n"
                               "walls:\n"
                               "  - %s\n"
                               "bodies:\n"
                               "  - {shape: sphere, radius: 0.05, position: [0.3, 0, 0.05], material: m}\n"
                               "  - {shape: sphere, radius: 0.05, position: [-0.3, 0.2, 0.05], material: m}\n";

static const char *penalty_floor =
  "domain: {min: [-0.3, -0.3, -0.05], max: [0.3, 0.3, 0.3]}\n"
  "gravity: [0, 0, -9.81]\n"
  "time: {step: 1.0e-4, end: 0.15}\n"
  "contact: {model: penalty, envelope: 0.001}\n"
  "materials:\n"
  "  - {name: m, density: 2000, friction: 0.5, kinetic_friction: 0.4, young_modulus: 2.0e6, poisson_ratio: 0.3,\n"
  "     restitution: 0.5, rolling_resistance: 0.1, spinning_resistance: 0.05}\n"
  "walls:\n"
  "  - %s\n"
  "bodies:\n"
  "  - {shape: sphere, radius: 0.01, position: [0.05, 0, 0.0099], material: m}\n"
  "  - {shape: sphere, radius: 0.01, position: [-0.05, 0.03, 0.0099], material: m}\n";

/* A small plate pushed into a sphere without gravity (penalty, whose neighbour list is on by
 * default: skin 1 mm): the plate, 40 mm square in the plane x = 0, moves at 0.5 m/s along +x towards
 * a sphere 50 mm away, beyond the reach of the plate's bounding sphere (28 mm) plus the skin when
 * the list is first built: only a rebuild for the plate's travel gives it the contact. */
static const char *pusher = "domain: {min: [-0.1, -0.1, -0.1], max: [0.3, 0.1, 0.1]}\n"
                            "gravity: [0, 0, 0]\n"
                            "time: {step: 1.0e-4, end: 0.15}\n"
                            "contact: {model: penalty, envelope: 0.001}\n"
                            "materials:\n"
                            "  - {name: m, density: 2000, friction: 0.5, kinetic_friction: 0.4, young_modulus: 2.0e6,\n"
                            "     poisson_ratio: 0.3, restitution: 0.5}\n"
                            "walls:\n"
                            "  - %s\n"
                            "bodies:\n"
                            "  - {shape: sphere, radius: 0.01, position: [0.06, 0.001, 0.002], material: m}\n";

/* Runs scene (a format with one %s, the wall) with the plane through the origin of this normal and
 * with the mesh `stl`, both carried by `motion`, side by side to t_end; R the spheres' radius
 * (angular rates times R). */
static PetscErrorCode FloorAgainstPlane(const char *name, const char *scene, const char *normal, const char *stl,
                                        const char *motion, double t_end, double R)
{
  static char a[4096], b[4096];
  char        wall[512];
  double      dx = NAN, dv = NAN; /* NaN fails the check below unless the comparison sets them */

  PetscFunctionBegin;
  snprintf(wall, sizeof wall, "{type: plane, point: [0, 0, 0], normal: %s, material: m, motion: %s}", normal, motion);
  snprintf(a, sizeof a, scene, wall);
  snprintf(wall, sizeof wall, "{type: mesh, file: %s, material: m, motion: %s}", stl, motion);
  snprintf(b, sizeof b, scene, wall);
  PetscCall(TestRunSideBySide(a, b, t_end, R, &dx, &dv));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%s: moving mesh floor against moving plane: positions within %.3e m, "
                        "velocities %.3e m/s\n",
                        name, dx, dv));
  CHECK(dx <= 1e-9 && dv <= 1e-9, "%s: the moving mesh differs from the moving plane by %.3e m, %.3e m/s (bound 1e-9)",
        name, dx, dv);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The scene moved the spheres: the moving floor must carry them (a check that the comparison above
 * compares motion, not two spheres at rest). */
static PetscErrorCode CarriedBy(const char *name, const char *scene, const char *stl, const char *motion, double t_end,
                                double min_travel)
{
  static char yaml[4096];
  char        wall[512];
  Simulation  sim;
  double      x[3], v[6], x0[3] = {0, 0, 0};
  PetscInt    found;

  PetscFunctionBegin;
  snprintf(wall, sizeof wall, "{type: mesh, file: %s, material: m, motion: %s}", stl, motion);
  snprintf(yaml, sizeof yaml, scene, wall);
  PetscCall(TestSimulationFromText(yaml, &sim));
  PetscCall(TestBodyGet(sim, 0, x0, v, &found));
  PetscCall(TestRunUntil(sim, t_end));
  PetscCall(TestBodyGet(sim, 0, x, v, &found));
  v3_sub(x, x, x0);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: sphere 0 moved %.4f m on the moving mesh\n", name, v3_norm(x)));
  CHECK(v3_norm(x) > min_travel, "%s: the moving mesh should carry sphere 0 more than %g m, not %.4f m", name,
        min_travel, v3_norm(x));
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Floors(void)
{
  const char *slide  = "{velocity: [0.5, 0, 0], amplitude: [0, 0, 0.002], frequency: 4, start: 0.05}";
  const char *tilt   = "{axis: [0, 1, 0], angular_velocity: 0.5, start: 0.05, end: 0.25}";
  const char *turn   = "{axis: [0, 0, 1], angular_velocity: 2, start: 0.05}";
  const char *pslide = "{velocity: [0.2, 0, 0], amplitude: [0, 0, 0.0002], frequency: 10, start: 0.01}";
  const char *pturn  = "{axis: [0, 0, 1], angular_velocity: 3, start: 0.01}";
  const char *push   = "{velocity: [0.5, 0, 0], start: 0.005}";
  const char *up     = "[0, 0, 1]";
  const char *big = "test_mesh_motion_floor.stl", *small = "test_mesh_motion_floor_small.stl",
             *plate = "test_mesh_motion_plate.stl";
  double xyz[18];

  PetscFunctionBegin;
  TestRectangle(-1, -1, 1, 1, xyz);
  PetscCall(TestWriteStl(big, 2, xyz));
  TestRectangle(-0.2, -0.2, 0.2, 0.2, xyz);
  PetscCall(TestWriteStl(small, 2, xyz));
  TestRectangle(-0.02, -0.02, 0.02, 0.02, xyz);
  for (int c = 0; c < 6; c++) { /* (x, y, 0) -> (0, x, y): the plate in the plane x = 0 */
    xyz[3 * c + 2] = xyz[3 * c + 1];
    xyz[3 * c + 1] = xyz[3 * c];
    xyz[3 * c]     = 0;
  }
  PetscCall(TestWriteStl(plate, 2, xyz));
  PetscCall(FloorAgainstPlane("slide (CCP)", ccp_floor, up, big, slide, 0.6, 0.05));
  PetscCall(FloorAgainstPlane("tilt (CCP)", ccp_floor, up, big, tilt, 0.6, 0.05));
  PetscCall(FloorAgainstPlane("turntable (CCP)", ccp_floor, up, big, turn, 0.6, 0.05));
  PetscCall(FloorAgainstPlane("slide (penalty)", penalty_floor, up, small, pslide, 0.15, 0.01));
  PetscCall(FloorAgainstPlane("turntable (penalty)", penalty_floor, up, small, pturn, 0.15, 0.01));
  PetscCall(FloorAgainstPlane("pusher (penalty)", pusher, "[1, 0, 0]", plate, push, 0.15, 0.01));
  /* what the motions do to sphere 0 (measured: the slide carries it 0.118 m, the turntable 0.131 m,
     the penalty slide 0.0132 m, its turntable 0.0113 m, the plate 0.0325 m; the bounds are under half
     of that): a fixed mesh leaves it where it is */
  PetscCall(CarriedBy("slide (CCP)", ccp_floor, big, slide, 0.6, 0.04));
  PetscCall(CarriedBy("turntable (CCP)", ccp_floor, big, turn, 0.6, 0.05));
  PetscCall(CarriedBy("slide (penalty)", penalty_floor, small, pslide, 0.15, 0.005));
  PetscCall(CarriedBy("turntable (penalty)", penalty_floor, small, pturn, 0.15, 0.005));
  PetscCall(CarriedBy("pusher (penalty)", pusher, plate, push, 0.15, 0.01));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What the outputs draw of a moving mesh (io/wall_output.h): a floor carried by a turn about a
 * tilted axis through an off-centre point, a translation and an oscillation, after 150 steps: every
 * drawn corner where the motion's map (bodies/wall_motion.h) takes its STL corner, and the torque
 * point the axis point carried by the translation, both within 1e-12 m (rounding of the pose's
 * quaternion against the map's rotation matrix, about 1e-16 of the 1 m coordinates, accumulated over
 * nothing: both are functions of the time). */
static PetscErrorCode Output(void)
{
  const char *stl = "test_mesh_motion_output.stl";
  char        yaml[2048];
  double      xyz[18], drawn[18], p[3], x0[3], x[3], worst = 0, worst_p = 0;
  Simulation  sim;
  const Wall *w;

  PetscFunctionBegin;
  TestRectangle(-0.3, -0.2, 0.3, 0.2, xyz);
  PetscCall(TestWriteStl(stl, 2, xyz));
  snprintf(yaml, sizeof yaml,
           "domain: {min: [-1, -1, -1], max: [1, 1, 1]}\n"
           "gravity: [0, 0, -9.81]\n"
           "time: {step: 0.002, end: 0.3}\n"
           "contact: {model: ccp, envelope: 0.005}\n"
           "materials:\n"
           "  - {name: m, density: 1000, friction: 0.3}\n"
           "walls:\n"
           "  - {type: mesh, file: %s, position: [0.1, 0.05, -0.2], orientation: [0.96, 0.28, 0, 0], material: m,\n"
           "     motion: {axis_point: [0.2, -0.1, 0], axis: [1, 1, 2], angular_velocity: 1.5, velocity: [0.3, 0, "
           "0.1],\n"
           "              amplitude: [0, 0.02, 0], frequency: 3, start: 0.05}}\n",
           stl);
  PetscCall(TestSimulationFromText(yaml, &sim));
  PetscCall(TestRunUntil(sim, 0.3));
  w = &SimulationWalls(sim)[0];
  {
    const WallOutputKind *kind  = WallOutputKindOf(WALL_MESH);
    const Wall           *w0    = &SimulationScenario(sim)->walls[0];
    const double          lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};
    CHECK(kind->cells(w, lo, hi, drawn) == 2, "the mesh should be drawn as its 2 triangles");
    for (int c = 0; c < 6; c++) {
      quat_rotate(x0, w0->quat, xyz + 3 * c); /* the STL corner placed at t = 0 */
      v3_add(x0, x0, w0->center);
      wall_motion_point(&w0->motion, SimulationTime(sim), x0, x);
      for (int k = 0; k < 3; k++) worst = PetscMax(worst, fabs(drawn[3 * c + k] - x[k]));
    }
    kind->torque_point(w, p);
    wall_motion_point(&w0->motion, SimulationTime(sim), w0->motion.axis_point, x); /* the turn leaves it */
    for (int k = 0; k < 3; k++) worst_p = PetscMax(worst_p, fabs(p[k] - x[k]));
  }
  PetscCall(
    PetscPrintf(PETSC_COMM_WORLD,
                "output at t = %.3f s: the drawn corners within %.2e m of the motion's, the torque point %.2e m "
                "off its axis point [%.4f, %.4f, %.4f]\n",
                SimulationTime(sim), worst, worst_p, p[0], p[1], p[2]));
  CHECK(worst <= 1e-12, "the drawn mesh is %.3e m off its pose (bound 1e-12 m)", worst);
  CHECK(worst_p <= 1e-12, "the torque point is %.3e m off the mesh's axis point (bound 1e-12 m)", worst_p);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- 2. a rotating mesh drum against the cylinder-wall drum ---- */

#define R_DRUM 0.1
#define OMEGA  3.0

typedef struct {
  double xcom, angle; /* m, degrees (positive: higher at -x) */
} BedShape;

#define SLICES 6 /* of 20 mm, over x in [-0.06, 0.06] m: the bed's free surface spans them at rest and turning */

/* The bed's centre of mass x and the angle of its free surface: of the line fitted (least squares)
 * to the highest sphere centre in each of SLICES slices of x, in degrees, positive where higher at -x.
 * Collective. */
static PetscErrorCode Shape(Simulation sim, BedShape *b)
{
  const BodyStore *s      = SimulationBodies(sim);
  double           sum[2] = {0, 0}, all[2], mine[SLICES], top[SLICES], fit[4] = {0, 0, 0, 0};
  int              n = 0;

  PetscFunctionBegin;
  for (int k = 0; k < SLICES; k++) mine[k] = -INFINITY;
  for (PetscInt i = 0; i < s->n_owned; i++) {
    const double x = s->pos[3 * i], z = s->pos[3 * i + 2];
    const int    k = (int)floor((x + 0.06) / 0.02);
    sum[0] += 1;
    sum[1] += x;
    if (k >= 0 && k < SLICES) mine[k] = PetscMax(mine[k], z);
  }
  PetscCallMPI(MPI_Allreduce(sum, all, 2, MPI_DOUBLE, MPI_SUM, SimulationComm(sim)));
  PetscCallMPI(MPI_Allreduce(mine, top, SLICES, MPI_DOUBLE, MPI_MAX, SimulationComm(sim)));
  for (int k = 0; k < SLICES; k++) {
    const double x = -0.06 + 0.02 * (k + 0.5);
    if (!isfinite(top[k])) continue;
    fit[0] += x;
    fit[1] += top[k];
    fit[2] += x * x;
    fit[3] += x * top[k];
    n++;
  }
  b->xcom  = all[1] / all[0];
  b->angle = -atan((n * fit[3] - fit[0] * fit[1]) / (n * fit[2] - fit[0] * fit[0])) * 180 / M_PI;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The drum with the side wall `wall` (a format of one %s: the motion): the bed at rest (0.3 s) and
 * its mean shape over [0.9, 1.5) s. */
static PetscErrorCode Drum(const char *name, const char *wall, BedShape *rest, BedShape *mean)
{
  char        yaml[4096], side[1024], motion[256];
  Simulation  sim;
  int         n       = 0;
  const char *turning = "{axis: [0, 1, 0], angular_velocity: %g, start: 0.3}";

  PetscFunctionBegin;
  snprintf(motion, sizeof motion, turning, OMEGA);
  snprintf(side, sizeof side, wall, motion);
  snprintf(yaml, sizeof yaml,
           "domain: {min: [-0.11, -0.021, -0.11], max: [0.11, 0.021, 0.11]}\n"
           "gravity: [0, 0, -9.81]\n"
           "time: {step: 0.004, end: 1.5}\n"
           "contact: {model: ccp, envelope: 0.002, max_recovery_speed: 0.2}\n"
           "solver: {type: apgd, max_iterations: 50, tolerance: 1.0e-4}\n"
           "materials:\n"
           "  - {name: g, density: 2500, friction: 0.5}\n"
           "walls:\n"
           "  - %s\n"
           "  - {type: plane, point: [0, -0.02, 0], normal: [0, 1, 0], material: g, motion: %s}\n"
           "  - {type: plane, point: [0, 0.02, 0], normal: [0, -1, 0], material: g, motion: %s}\n"
           "fills:\n"
           "  - {type: random, region: {min: [-0.065, -0.0195, -0.065], max: [0.065, 0.0195, 0.065]}, radius: 0.005,\n"
           "     count: 300, seed: 3, material: g}\n",
           side, motion, motion);
  PetscCall(TestSimulationFromText(yaml, &sim));
  PetscCall(TestRunUntil(sim, 0.3));
  PetscCall(Shape(sim, rest));
  PetscCall(TestRunUntil(sim, 0.9));
  *mean = (BedShape){0, 0};
  while (SimulationTime(sim) < 1.5 - 0.5 * SimulationScenario(sim)->time_step) {
    BedShape b;
    PetscCall(SimulationStep(sim));
    PetscCall(Shape(sim, &b));
    mean->xcom += b.xcom;
    mean->angle += b.angle;
    n++;
  }
  mean->xcom /= n;
  mean->angle /= n;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%s drum: at rest x_com %.4f m, angle %.2f deg; turning [0.9, 1.5) s x_com %.4f m, angle %.2f "
                        "deg; %" PetscInt64_FMT " bodies\n",
                        name, rest->xcom, rest->angle, mean->xcom, mean->angle, SimulationLastStep(sim)->bodies));
  CHECK(SimulationLastStep(sim)->bodies == 300, "%s drum: %" PetscInt64_FMT " bodies left of 300", name,
        SimulationLastStep(sim)->bodies);
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Drums(void)
{
  const char *tube = "test_mesh_motion_tube.stl";
  char        mesh[512];
  double     *xyz;
  BedShape    rest[2], mean[2];

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(18 * 64, &xyz));
  TestTubeMesh(R_DRUM, -0.025, 0.025, 64, xyz);
  PetscCall(TestWriteStl(tube, 128, xyz));
  PetscCall(PetscFree(xyz));
  snprintf(mesh, sizeof mesh, "{type: mesh, file: %s, material: g, motion: %%s}", tube);
  PetscCall(Drum("cylinder",
                 "{type: cylinder, point: [0, 0, 0], axis: [0, 1, 0], radius: 0.1, inside: true, material: g, "
                 "motion: %s}",
                 &rest[0], &mean[0]));
  PetscCall(Drum("mesh", mesh, &rest[1], &mean[1]));
  CHECK(fabs(rest[1].xcom) < 5e-3 && fabs(rest[1].angle) < 5,
        "the bed at rest in the mesh drum should be level: x_com %.4f m (|.| < 5 mm), angle %.2f deg (|.| < 5)",
        rest[1].xcom, rest[1].angle);
  CHECK(mean[1].xcom < -0.01 && mean[1].angle > 10,
        "the turning mesh drum should carry its bed up the rising (-x) side: x_com %.4f m (< -10 mm), angle %.2f deg "
        "(> 10)",
        mean[1].xcom, mean[1].angle);
  CHECK(fabs(mean[1].xcom - mean[0].xcom) < 5e-3 && fabs(mean[1].angle - mean[0].angle) < 5,
        "the mesh drum's bed (x_com %.4f m, %.2f deg) should be the cylinder drum's (%.4f m, %.2f deg) within 5 mm "
        "and 5 deg",
        mean[1].xcom, mean[1].angle, mean[0].xcom, mean[0].angle);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- 3. a turning mesh drum on several ranks against one ---- */

typedef struct {
  ContactKey key;
  double     force[3], torque[3]; /* on the mesh (N, and N m about its axis point), for wall contacts */
} ContactLoad;

static int CompareContactLoad(const void *pa, const void *pb)
{
  const ContactKey *a = &((const ContactLoad *)pa)->key, *b = &((const ContactLoad *)pb)->key;
  if (a->ida != b->ida) return a->ida < b->ida ? -1 : 1;
  if (a->idb != b->idb) return a->idb < b->idb ? -1 : 1;
  return (a->sub > b->sub) - (a->sub < b->sub);
}

/* Every rank's contacts of the last step gathered on rank 0 in key order (*out there, PetscFree it),
 * with the load of each mesh (wall 0) contact on the mesh, w its pose over that step (the force at
 * the contact's point on the mesh, the torque about w's axis point). Collective. */
static PetscErrorCode GatherContacts(Simulation sim, const Wall *w, ContactLoad **out, PetscInt *n)
{
  const ContactSet *cs = SimulationContacts(sim);
  const double      h  = SimulationScenario(sim)->time_step;
  PetscMPIInt       size, rank, bytes = (PetscMPIInt)(cs->n * (PetscInt)sizeof(ContactLoad));
  int              *counts = NULL, *displs = NULL;
  ContactLoad      *mine;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(SimulationComm(sim), &size));
  PetscCallMPI(MPI_Comm_rank(SimulationComm(sim), &rank));
  PetscCall(PetscCalloc1(cs->n + 1, &mine));
  for (PetscInt i = 0; i < cs->n; i++) {
    const Contact *c = &cs->c[i];
    const double  *g = contact_gamma(cs, i);
    double         u[3], v[3], F[3], P[3], r[3];
    mine[i].key = cs->key[i];
    if (cs->key[i].ida != wall_global_id(0)) continue; /* not the mesh's */
    contact_frame(c, u, v);
    for (int k = 0; k < 3; k++) F[k] = -(g[0] * c->n[k] + g[1] * u[k] + g[2] * v[k]) / h; /* on A, the mesh */
    v3_add(P, w->center, c->ra); /* the point on the mesh: ra is taken from its centre */
    v3_sub(r, P, w->pivot);
    v3_copy(mine[i].force, F);
    v3_cross(mine[i].torque, r, F);
  }
  if (!rank) PetscCall(PetscMalloc2(size, &counts, size, &displs));
  PetscCallMPI(MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, SimulationComm(sim)));
  *n = 0;
  if (!rank) {
    for (int q = 0; q < size; q++) {
      displs[q] = (int)(*n * (PetscInt)sizeof(ContactLoad));
      *n += counts[q] / (PetscInt)sizeof(ContactLoad);
    }
    PetscCall(PetscMalloc1(*n + 1, out));
  }
  PetscCallMPI(
    MPI_Gatherv(mine, bytes, MPI_BYTE, rank ? NULL : *out, counts, displs, MPI_BYTE, 0, SimulationComm(sim)));
  if (!rank) qsort(*out, (size_t)*n, sizeof(ContactLoad), CompareContactLoad);
  PetscCall(PetscFree(mine));
  if (!rank) PetscCall(PetscFree2(counts, displs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define RANK_STEPS 10

typedef struct {
  TestBodyVel *bodies;
  PetscInt     nbodies;
  ContactLoad *contacts;
  PetscInt     ncontacts;
} StepRecord;

/* The ring scene on comm, RANK_STEPS steps, each step's bodies and contacts gathered on rank 0 into
 * rec[step] (free with FreeRecords). */
static PetscErrorCode Rings(MPI_Comm comm, const char *tube, StepRecord rec[RANK_STEPS])
{
  char       yaml[8192], wall[512];
  Simulation sim;

  PetscFunctionBegin;
  snprintf(wall, sizeof wall,
           "  - {type: mesh, file: %s, material: m, motion: {axis: [0, 1, 0], angular_velocity: 2}}\n", tube);
  TestDrumRings(wall, yaml, sizeof yaml);
  PetscCall(TestSimulationOnComm(comm, yaml, "moving-mesh-rings", &sim));
  for (int s = 0; s < RANK_STEPS; s++) {
    const Wall before = SimulationWalls(sim)[0]; /* its pose over the step */
    PetscCall(SimulationStep(sim));
    TEST_CHECK(SimulationLastStep(sim)->converged, "step %d of the rings did not converge (residual %.3e m/s)", s + 1,
               SimulationLastStep(sim)->residual_max);
    PetscCall(TestGatherVelocities(sim, &rec[s].bodies, &rec[s].nbodies));
    PetscCall(GatherContacts(sim, &before, &rec[s].contacts, &rec[s].ncontacts));
  }
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FreeRecords(StepRecord rec[RANK_STEPS])
{
  PetscFunctionBegin;
  for (int s = 0; s < RANK_STEPS; s++) {
    PetscCall(PetscFree(rec[s].bodies));
    PetscCall(PetscFree(rec[s].contacts));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The mesh's total force and torque of one step's gathered contacts (loads[0 .. 6)). */
static void MeshLoad(const StepRecord *rec, double loads[6])
{
  for (int k = 0; k < 6; k++) loads[k] = 0;
  for (PetscInt i = 0; i < rec->ncontacts; i++)
    for (int k = 0; k < 3; k++) {
      loads[k] += rec->contacts[i].force[k];
      loads[3 + k] += rec->contacts[i].torque[k];
    }
}

static PetscErrorCode RingsOnRanks(void)
{
  const char  *tube            = "test_mesh_motion_rings_tube.stl";
  StepRecord   par[RANK_STEPS] = {{0}}, ser[RANK_STEPS] = {{0}};
  PetscMPIInt  rank, size;
  double      *xyz;
  const double mass = 2500 * 4.0 / 3.0 * M_PI * 1e-6, h = 0.002;
  const double fbound = 39 * mass * 1e-7 / h, tbound = fbound * R_DRUM;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscMalloc1(18 * 64, &xyz));
  TestTubeMesh(R_DRUM, -0.04, 0.04, 64, xyz);
  PetscCall(TestWriteStl(tube, 128, xyz));
  PetscCall(PetscFree(xyz));
  PetscCall(TestSlabsAlongX("0"));
  PetscCall(Rings(PETSC_COMM_WORLD, tube, par));
  if (!rank) {
    double worst_v = 0, worst_f = 0, worst_t = 0;
    int    keys_differ = 0;
    PetscCall(TestSerialReference());
    PetscCall(Rings(PETSC_COMM_SELF, tube, ser));
    for (int s = 0; s < RANK_STEPS; s++) {
      PetscBool same_ids;
      double    lp[6], ls[6];
      worst_v = PetscMax(worst_v, TestLargestVelocityDifference(par[s].bodies, par[s].nbodies, ser[s].bodies,
                                                                ser[s].nbodies, 0.01, &same_ids));
      TEST_CHECK(same_ids && par[s].nbodies == 39, "step %d: the bodies differ from the 1-rank run's", s + 1);
      if (par[s].ncontacts != ser[s].ncontacts) keys_differ++;
      else
        for (PetscInt i = 0; i < par[s].ncontacts; i++)
          if (CompareContactLoad(&par[s].contacts[i], &ser[s].contacts[i])) {
            keys_differ++;
            break;
          }
      MeshLoad(&par[s], lp);
      MeshLoad(&ser[s], ls);
      for (int k = 0; k < 3; k++) {
        worst_f = PetscMax(worst_f, fabs(lp[k] - ls[k]));
        worst_t = PetscMax(worst_t, fabs(lp[3 + k] - ls[3 + k]));
      }
    }
    {
      double l[6];
      MeshLoad(&par[RANK_STEPS - 1], l);
      printf("rings in a turning mesh drum, %d ranks against 1, %d steps: %" PetscInt_FMT " contacts in the last "
             "step; velocities within %.3e m/s, the mesh's force within %.3e N and torque within %.3e N m (last step: "
             "force [%.4f, %.4f, %.4f] N, torque about y %.5f N m); steps with other contacts: %d\n",
             size, RANK_STEPS, par[RANK_STEPS - 1].ncontacts, worst_v, worst_f, worst_t, l[0], l[1], l[2], l[4],
             keys_differ);
      /* the drum turns about +y, dragging the bed up its -x side: the bed pushes back, a torque on the
         mesh about -y; and the mesh holds the bed's weight, 39 m g = 4.0 N, down on the mesh */
      TEST_CHECK(l[4] < 0 && l[2] < -3.5,
                 "the mesh should carry the bed's weight and be held back by it: force z %.4f N "
                 "(< -3.5), torque about y %.5f N m (< 0)",
                 l[2], l[4]);
    }
    TEST_CHECK(keys_differ == 0, "%d steps have other contacts than on one rank", keys_differ);
    TEST_CHECK(worst_v <= 1e-7, "velocities differ from the 1-rank run by %.3e m/s > 1e-7", worst_v);
    TEST_CHECK(worst_f <= fbound && worst_t <= tbound,
               "the mesh's force and torque differ from the 1-rank run's by %.3e N (bound %.2e), %.3e N m (bound "
               "%.2e)",
               worst_f, fbound, worst_t, tbound);
    PetscCall(FreeRecords(ser));
  }
  PetscCall(FreeRecords(par));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscMPIInt size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size == 1) {
    PetscCall(Floors());
    PetscCall(Output());
    PetscCall(Drums());
  } else PetscCall(RingsOnRanks());
  int rc = TestFinish("moving mesh walls");
  PetscCall(PetscFinalize());
  return rc;
}
