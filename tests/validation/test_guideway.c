/* The linear guideway of Tasora & Anitescu 2013, sec. 6.2: rolling friction in a mechanism.
 *
 * Model (cross-section y-z, pulling along x). A rail (fixed box walls) and a carriage carry four
 * rows of steel balls of diameter 2 R_b = 6.4 mm, three per row, whose contact lines are at 45
 * degrees, as in the paper (which also models the raceways as stretched boxes aligned to 45
 * degrees, its Fig. 7). Upper rows (side = -1, +1): ball centres at (y, z) = (side a, 0); the
 * rail raceway touches a ball at its lower inner point, centre + R_b (-side s, -s) (s = 1/sqrt 2),
 * the carriage raceway at its upper outer point, centre + R_b (side s, s). Lower rows: centres at
 * (side a, -c); the rail touches at the upper inner point, centre + R_b (-side s, s), the carriage
 * at the lower outer point. Each raceway is a thin box turned 45 degrees about x: the rail's are
 * long box walls; the carriage's are short box bodies, one per ball (apart from each other and
 * from the rail's boxes: the model has no box-box contacts, as the paper's; the raceways never
 * touch, the balls are between them), each held to a central
 * body by a fixed joint. The carriage (central body of mass M and twelve raceway boxes of 1 kg) is
 * loaded by gravity: F_y = (M + 12 kg) g. It hangs from a puller by a prismatic joint along z
 * (free vertically, so the balls carry the load; x, y and rotation held); the puller is driven at
 * constant speed v along x by a prescribed motion, and rides on a prismatic joint along x to the
 * ground with seal friction S = 5.3 N (the seals' friction acts between rail and carriage; the
 * puller moves with the carriage along x, so it is the same force on the same relative motion).
 * Ball contacts: sliding friction 0.3 (they roll), compliance 1e-8 m/N per surface (the paper's
 * Tikhonov regularization: the rows share the load uniquely), rolling friction rho per contact
 * (below). No preload (the paper's guideway "did not consider static preload"): the downward load
 * presses the two upper rows; the lower rows' carriage raceways move away from their balls by the
 * contacts' deflection (~2 um), so the lower rows carry nothing and resist nothing. Their balls
 * would roll down their flat raceways under their own weight (a real guideway's gothic-arch
 * grooves and retainer hold them): each is held by a cage, a 5 cm distance joint from the
 * carriage to its centre across the contact line (workless: it constrains the ball's centre only
 * along the raceway's width, no torque, no x). The balls' weight (0.01 N each) is neglected in the
 * formulas below (1e-4 of the load).
 *
 * Expected force. A loaded ball rolls without slip between the fixed rail and the carriage moving
 * at v: its centre moves at v / 2 and it turns at omega = v / (2 R_b) relative to both raceways
 * (neither turns), about an axis in both contact planes. Each of its two contacts carries the
 * normal force N_b and resists the rolling with the torque rho N_b, so the power it dissipates is
 * 2 rho N_b omega = (rho / R_b) N_b v. The carriage's vertical balance over the contact lines at
 * 45 degrees gives sum_b N_b cos 45 = F_y, i.e. sum_b N_b = F_y / cos 45. The pull's power F_x v
 * equals the dissipation plus the seals' S v:
 *     F_x = (rho / R_b) F_y / cos 45 + S.
 * (a) With the paper's per-contact mapping rho = zeta R_b: F_x = zeta F_y / cos 45 + S, sqrt 2
 *     times the catalogue's rolling part for the same zeta (zeta then refers to the load on the
 *     contact lines, not the vertical load).
 * (b) With rho = zeta R_b cos 45 (derived from the energy balance above, not fitted): F_x =
 *     zeta F_y + S, the manufacturer's formula.
 * Both are checked for three loads on the rolling part F_x - S (what the test validates; S is an
 * input), averaging the motion joint's x reaction over 0.03..0.1 s (steady rolling: the start,
 * where the carriage is brought to speed and the balls spin up, settles within ~10 steps; measured,
 * the force then drifts by 3e-5 relative up to 0.3 s). Tolerance 1% of the rolling part: measured
 * 1.5e-4 .. 6.6e-4 (an excess of ~1e-3 N at every load: the balls' neglected weight and spin-up),
 * so about 15x, and a fifth of the 5%. The solve stops at a residual of 1e-8 m/s (checked
 * below 1e-6).
 * At zero speed the carriage sticks: a pull S + zeta F_y / 2 (mapping (b); the puller free, pulled
 * by a gravity component along x), above the seals' S alone and below the whole resistance, is held
 * by the rolling friction. Held means creeping at the compliant contacts' regularization speed: a
 * Tikhonov term C / h^2 on a friction row lets it slip at C F / h under a force F; the pull beyond
 * S, shared by 6 loaded balls (12 contacts) and taken half by the rolling torques, half by the
 * tangential forces, creeps at about 2 C (F - S) / (3 h) with C = 2e-8 m/N per contact: 3.3e-6 m
 * in 0.2 s (measured 3.8e-6). Checked below 10x that; without the rolling friction the pull beyond
 * S accelerates the 51 kg and moves it 4.8e-4 m. A pull S + 3 zeta F_y / 2 slides: over 0.02..0.1 s
 * (after the first steps load the contacts) the acceleration is (zeta F_y / 2) / m_total within 1%
 * (measured 1.2e-3: the balls' rotational inertia).
 *
 * On 4 ranks (ctest ..._np4, labels mpi and validation) the 490 N case of (b) runs on all ranks
 * (process grid 2 x 2 x 1: the cuts x = 0, y = 0 split the rows, the raceways and their fixed
 * joints, and the carriage and its cages, across ranks) and on rank 0 alone for 12 steps only
 * (each step takes ~2500 APGD iterations, each a neighbour exchange and an Allreduce: 4 ranks
 * oversubscribed on 2 cores); the mean resisting force over steps 6..12, when the start's
 * transient is down to ~1% of the rolling part (measured 1.06%), must have a rolling part within 5%
 * of zeta F_y and agree with the 1-rank run within 1e-5 relative: the compliant problem is
 * strongly convex, so the impulses are unique and two solves to 1e-8 m/s differ by about
 * 1e-8 m/s x the contact stiffness 1e8 N/m x h = 1e-3 N per contact-step at worst, ~1e-6 of the
 * joint's ~8 N after averaging over contacts and steps (margin ~10); a joint or contact lost or
 * computed twice across ranks changes the force by its share, >= 1e-2. Those 30,000 iterations wait
 * for the scheduler beside a CPU-bound process: 125-404 s in `ctest -j2` beside one `yes` (about 17 s
 * idle), so the timeout is 1500 s (over 3 times the longest). */
// ctest: labels=mpi timeout=1500 ranks=4
#include "test_util.h"
#include "joints/joints.h"

#define RB   0.0032
#define ZETA 0.005
#define SEAL 5.3
#define PITCH \
  0.016 /* ball spacing along a row (m): the carriage raceway boxes must not overlap (no box-box contact) \
         */
#define ROWS         4
#define BALLS        3                              /* per row */
#define MOTION_JOINT (ROWS * BALLS + 2 * BALLS + 2) /* fixed joints, cages, 2 prismatic, then the motion */

/* Scenario with load Fy (N), rolling friction rho (m); speed v along x (m/s) by a prescribed
 * motion, or (v < 0) no motion and a gravity component gx along x. */
static PetscErrorCode MakeSim(MPI_Comm comm, double Fy, double rho, double v, double gx, Simulation *sim)
{
  char         yaml[16384], err[SCENARIO_ERR_MAX] = "";
  size_t       len = 0;
  const double g = 9.81, s = M_SQRT1_2, a = 0.01, c = 0.025, t = 0.002, M = Fy / g - ROWS * BALLS, cage = 0.05;
  Scenario     sc;
#define ADD(...) len += (size_t)snprintf(yaml + len, sizeof(yaml) - len, __VA_ARGS__)

  PetscFunctionBegin;
  ADD("domain: {min: [-1, -1, -1], max: [1, 1, 1]}\n"
      "gravity: [%.17g, 0, %.17g]\n"
      "time: {step: 0.001, end: 1.0}\n"
      "contact: {model: ccp, envelope: 0.0003}\n"
      "solver: {type: apgd, max_iterations: 20000, tolerance: 1.0e-8}\n"
      "materials:\n"
      "  - {name: ball, density: 7800, friction: 0.3, rolling_friction: %.17g, compliance: 1.0e-8}\n"
      "  - {name: race, density: 7800, friction: 0.3, rolling_friction: %.17g, compliance: 1.0e-8}\n"
      "walls:\n",
      gx, -g, rho, rho);
  /* row r: side = -1, +1 (upper), -1, +1 (lower); m = the contact line's direction from the rail
   * into the ball (y, z): (side s, s) upper, (side s, -s) lower; the box's thin axis along m */
#define ROW_GEOMETRY(r) \
  const int    side = (r) % 2 ? 1 : -1, up = (r) < 2; \
  const double m[2] = {side * s, up ? s : -s}, zc = up ? 0 : -c, phi = up ? -side * M_PI / 4 : side * M_PI / 4
  for (int r = 0; r < ROWS; r++) { /* rail raceways: face through centre - R_b m */
    ROW_GEOMETRY(r);
    ADD("  - {type: box, center: [0.05, %.17g, %.17g], half_extents: [0.1, 0.004, %.17g], orientation: [%.17g, %.17g, "
        "0, 0], material: race}\n",
        side * a - (RB + t) * m[0], zc - (RB + t) * m[1], t, cos(phi / 2), sin(phi / 2));
  }
  ADD("bodies:\n"
      "  - {id: carriage, shape: sphere, radius: 0.01, position: [0, 0, 0.08], mass: %.17g, material: race}\n"
      "  - {id: puller, shape: sphere, radius: 0.01, position: [0, 0, 0.2], mass: 1.0, material: race}\n",
      M);
  for (int r = 0; r < ROWS; r++) /* carriage raceways: face through centre + R_b m, one per ball */
    for (int k = 0; k < BALLS; k++) {
      ROW_GEOMETRY(r);
      const double x = PITCH * (k - 1);
      ADD("  - {id: race%d_%d, shape: box, half_extents: [0.006, 0.003, %.17g], position: [%.17g, %.17g, %.17g], "
          "orientation: [%.17g, %.17g, 0, 0], mass: 1.0, material: race}\n",
          r, k, t, x, side * a + (RB + t) * m[0], zc + (RB + t) * m[1], cos(phi / 2), sin(phi / 2));
      ADD("  - {id: ball%d_%d, shape: sphere, radius: %.17g, position: [%.17g, %.17g, %.17g], material: ball}\n", r, k,
          RB, x, side * a, zc);
    }
  ADD("joints:\n");
  for (int r = 0; r < ROWS; r++)
    for (int k = 0; k < BALLS; k++)
      ADD("  - {type: fixed, body_a: carriage, body_b: race%d_%d, point: [0, 0, 0.08]}\n", r, k);
  for (int r = 2; r < ROWS; r++) /* cages of the unloaded lower rows: along the raceway's width, (side s, s) */
    for (int k = 0; k < BALLS; k++) {
      ROW_GEOMETRY(r);
      const double x = PITCH * (k - 1);
      (void)phi;
      ADD("  - {type: distance, body_a: carriage, body_b: ball%d_%d, point_a: [%.17g, %.17g, %.17g], point_b: [%.17g, "
          "%.17g, %.17g]}\n",
          r, k, x, side * a + cage * m[0], zc - cage * m[1], x, side * a, zc);
    }
#undef ROW_GEOMETRY
  ADD("  - {type: prismatic, body_a: puller, body_b: carriage, point: [0, 0, 0.08], axis: [0, 0, 1]}\n"
      "  - {type: prismatic, body_a: ground, body_b: puller, point: [0, 0, 0.2], axis: [1, 0, 0], friction: %.17g}\n",
      SEAL);
  if (v >= 0) ADD("  - {type: motion, body: puller, velocity: [%.17g, 0, 0]}\n", v);
#undef ADD
  PetscCheck(len < sizeof(yaml), PETSC_COMM_SELF, PETSC_ERR_PLIB, "scenario text too long");
  PetscCheck(!scenario_load_string(yaml, "guideway", &sc, err, sizeof(err)), comm, PETSC_ERR_PLIB,
             "guideway scenario rejected: %s", err);
  PetscCall(SimulationCreate(comm, &sc, sim, err, sizeof(err)));
  PetscCheck(!err[0], comm, PETSC_ERR_PLIB, "guideway scenario rejected: %s", err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The x reaction (N) of the motion joint in the last step, on every rank (its first row is along
 * world x; the rank that owns the puller computes it). Collective. */
static PetscErrorCode PullForce(Simulation sim, double h, double *F)
{
  double mine = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < SimulationContacts(sim)->n; i++)
    if (SimulationContacts(sim)->key[i].ida == JOINT_KEY_BASE + MOTION_JOINT)
      mine = contact_gamma(SimulationContacts(sim), i)[0] / h;
  PetscCallMPI(MPI_Allreduce(&mine, F, 1, MPI_DOUBLE, MPI_SUM, SimulationComm(sim)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Pull at v for T seconds on comm; the mean resisting force over (t0, T], the largest residual. */
static PetscErrorCode Pull(MPI_Comm comm, double Fy, double rho, double t0, double T, double *F, double *resmax)
{
  Simulation   sim;
  const double h = 1e-3, v = 0.01;
  double       sum = 0;
  int          n   = 0;

  PetscFunctionBegin;
  *resmax = 0;
  PetscCall(MakeSim(comm, Fy, rho, v, 0, &sim));
  while (SimulationTime(sim) < T - h / 2) {
    double f;
    PetscCall(SimulationStep(sim));
    PetscCall(PullForce(sim, h, &f));
    *resmax = PetscMax(*resmax, SimulationLastStep(sim)->residual_max);
    if (SimulationTime(sim) > t0 + h / 2) {
      sum += fabs(f);
      n++;
    }
  }
  *F = sum / n;
  PetscCall(SimulationDestroy(&sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One rank: the two mappings at three loads, and the stick at zero speed. */
static PetscErrorCode Validate(void)
{
  const double loads[3] = {245, 490, 980};
  const struct {
    const char *name, *formula;
    double      rho, cosine; /* F_x = zeta F_y / cosine + S */
  } maps[2] = {{"(a) rho = zeta R_b", "zeta F_y / cos 45 + S", ZETA * RB, M_SQRT1_2},
               {"(b) rho = zeta R_b cos 45", "zeta F_y + S", ZETA * RB * M_SQRT1_2, 1}};

  PetscFunctionBegin;
  for (int p = 0; p < 2; p++)
    for (int l = 0; l < 3; l++) {
      const double rolling = ZETA * loads[l] / maps[p].cosine; /* the expected F_x - S */
      double       F = 0, resmax = 0;
      PetscCall(Pull(PETSC_COMM_SELF, loads[l], maps[p].rho, 0.03, 0.1, &F, &resmax));
      printf("guideway %s, F_y = %g N, v = 0.01 m/s: resisting force %.5f N vs %s = %.5f N; rolling part F_x - S "
             "%.5f N (rel. error %.2e); largest residual %.1e m/s\n",
             maps[p].name, loads[l], F, maps[p].formula, rolling + SEAL, F - SEAL, (F - SEAL) / rolling - 1, resmax);
      TEST_CHECK(resmax < 1e-6, "%s, F_y = %g N: residual %.2e m/s: the steps are not solved", maps[p].name, loads[l],
                 resmax);
      TEST_CHECK(fabs((F - SEAL) / rolling - 1) < 0.01,
                 "%s, F_y = %g N: rolling part of the resisting force %.5f N vs %.5f N", maps[p].name, loads[l],
                 F - SEAL, rolling);
    }
  { /* zero pulling speed: a pull between the seals' S and the whole resistance sticks, one above it slides */
    const double Fy = 490, rolling = ZETA * Fy, mass = Fy / 9.81 + 1 + ROWS * BALLS * 1.07e-3, /* carriage, its
                                                                   raceways, the puller, the balls */
      stick = SEAL + 0.5 * rolling, slide = SEAL + 1.5 * rolling, creep = 2 * 2e-8 * (stick - SEAL) / (3 * 1e-3) * 0.2,
                 a_exact = (slide - SEAL - rolling) / mass;
    Simulation sim;
    double     x0[3], x1[3], v0[6], v1[6];
    PetscInt   found = 0;
    PetscCall(MakeSim(PETSC_COMM_SELF, Fy, ZETA * RB * M_SQRT1_2, -1, stick / mass, &sim));
    PetscCall(TestBodyGet(sim, 0, x0, v0, &found));
    PetscCall(TestRunUntil(sim, 0.2));
    PetscCall(TestBodyGet(sim, 0, x1, v1, &found));
    printf("guideway at zero speed, pulled by S + zeta F_y / 2 = %.4f N: carriage moved %.4e m along x in 0.2 s "
           "(the compliant contacts' creep 2 C (F - S) t / (3 h) = %.4e m)\n",
           stick, x1[0] - x0[0], creep);
    TEST_CHECK(found && fabs(x1[0] - x0[0]) < 10 * creep, "the carriage should stick, moved %.3e m", x1[0] - x0[0]);
    PetscCall(SimulationDestroy(&sim));
    PetscCall(MakeSim(PETSC_COMM_SELF, Fy, ZETA * RB * M_SQRT1_2, -1, slide / mass, &sim));
    PetscCall(TestRunUntil(sim, 0.02));
    PetscCall(TestBodyGet(sim, 0, x0, v0, &found));
    PetscCall(TestRunUntil(sim, 0.1));
    PetscCall(TestBodyGet(sim, 0, x1, v1, &found));
    {
      const double a = (v1[0] - v0[0]) / 0.08;
      printf("guideway at zero speed, pulled by S + 3 zeta F_y / 2 = %.4f N: acceleration over 0.02..0.1 s %.6f m/s^2 "
             "vs (F - S - zeta F_y) / m = %.6f m/s^2 (rel. error %.2e)\n",
             slide, a, a_exact, a / a_exact - 1);
      TEST_CHECK(found && fabs(a / a_exact - 1) < 0.01, "pulled above the resistance: acceleration %.6f m/s^2 vs %.6f",
                 a, a_exact);
    }
    PetscCall(SimulationDestroy(&sim));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Several ranks: 490 N, mapping (b), on all ranks and on rank 0 alone. */
static PetscErrorCode CompareRanks(PetscMPIInt size)
{
  const double Fy = 490, rho = ZETA * RB * M_SQRT1_2, t0 = 0.005, T = 0.012, expect = ZETA * Fy + SEAL;
  double       Fp, Fs, rp, rs;
  PetscMPIInt  rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(Pull(PETSC_COMM_WORLD, Fy, rho, t0, T, &Fp, &rp));
  if (!rank) {
    PetscCall(Pull(PETSC_COMM_SELF, Fy, rho, t0, T, &Fs, &rs));
    printf("guideway F_y = %g N, rho = zeta R_b cos 45, mean over %.3f..%.3f s: resisting force %.7f N on %d ranks, "
           "%.7f N on one (rel. difference %.2e); zeta F_y + S = %.5f N; largest residuals %.1e, %.1e m/s\n",
           Fy, t0, T, Fp, (int)size, Fs, Fp / Fs - 1, expect, rp, rs);
    TEST_CHECK(fabs(Fp / Fs - 1) < 1e-5, "%d ranks: resisting force %.7f N vs %.7f N on one rank", (int)size, Fp, Fs);
    TEST_CHECK(fabs((Fp - SEAL) / (expect - SEAL) - 1) < 0.05,
               "%d ranks: rolling part of the resisting force %.5f N vs zeta F_y = %.5f N", (int)size, Fp - SEAL,
               expect - SEAL);
    TEST_CHECK(rp < 1e-6 && rs < 1e-6, "residuals %.2e, %.2e m/s: the steps are not solved", rp, rs);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscMPIInt size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size == 1) PetscCall(Validate());
  else PetscCall(CompareRanks(size));
  PetscCallMPI(MPI_Bcast(&failures, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  int rc = TestFinish("guideway");
  PetscCall(PetscFinalize());
  return rc;
}
