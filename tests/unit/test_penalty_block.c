/* The penalty model's block kernel (src/penalty/kernel.c, 4 contacts in SIMD lanes) against the
 * per-contact code (penalty/loads.c with penalty/tracking.c, penalty/slide.c, ...), the reference
 * that the validation tests check against the paper's analytic cases.
 *   A heap of 300 spheres of two materials (different friction, rolling and spinning resistance)
 *   poured onto a floor and a tilted plane, 0.15 s at h = 5e-5 s, so that contacts stick and slip
 *   in all three modes. Then for 20 steps: the step's contacts and matches as the stepper builds
 *   them, PenaltyContactLoads once with the block kernel and once per contact (ctx.per_contact),
 *   every double of the new histories, of the loads per contact (several ranks) and of the sums
 *   per body (one rank) compared, and the time-step check's shortest period and its spring.
 * Every instantiation of the kernel this CPU runs is compared (base/simd4_isa.h): AVX2+FMA with AVX-512VL's
 * registers, AVX2+FMA, and portable (which, without fused multiply-adds, gives the per-contact code's
 * bits: measured difference 0).
 * Tolerance: |block - reference| <= 1e-8 (|reference| + scale of that double over all contacts).
 * Why: the two differ by rounding only (the block code fuses multiply-adds), a few ulps, which the
 * surface motion amplifies by at most (body size / step motion), 1e6 here: 1e-10 relative at the
 * worst. A wrong formula or a lane mixed up gives an O(1) difference.
 * Also checked: the history written over the old one (the stepper's path while the contacts are
 * last step's or a few came and went, records moved) has the same bits as when written into another
 * array (both codes), and
 * most touching contacts went through the block kernel, and the compared records
 * include sticking and slipping slide, roll and spin deflections, wall and sphere pairs, and both
 * material pairs (so none of those cases is compared vacuously). */
// ctest: labels=unit timeout=120
#include "collision/neighbour_list.h"
#include "penalty/kernel.h"
#include "step/simulation.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "test_check.h"
#include "test_util.h"

static const char *scenario =
  "domain: {min: [-0.2, -0.2, -0.05], max: [0.2, 0.2, 0.6]}\n"
  "gravity: [0, 0, -9.81]\n"
  "time: {step: 5.0e-5, end: 1}\n"
  "contact: {model: penalty, envelope: 0.001}\n"
  "materials:\n"
  "  - {name: grit, density: 2000, friction: 0.5, kinetic_friction: 0.4, young_modulus: 5.0e6, poisson_ratio: 0.3,\n"
  "     restitution: 0.5, rolling_resistance: 0.1, spinning_resistance: 0.05}\n"
  "  - {name: glass, density: 2500, friction: 0.3, kinetic_friction: 0.2, young_modulus: 8.0e6, poisson_ratio: 0.25,\n"
  "     restitution: 0.7, rolling_resistance: 0.02, spinning_resistance: 0.01}\n"
  "walls:\n"
  "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: grit}\n"
  "  - {type: plane, point: [0.06, 0, 0], normal: [-0.5, 0, 0.8660254037844386], material: glass}\n"
  "  - {type: plane, point: [-0.1, 0, 0], normal: [1, 0, 0], material: grit}\n"
  "  - {type: plane, point: [0, -0.1, 0], normal: [0, 1, 0], material: grit}\n"
  "  - {type: plane, point: [0, 0.1, 0], normal: [0, -1, 0], material: grit}\n"
  "fills:\n"
  "  - {type: random, region: {min: [-0.09, -0.09, 0.01], max: [0.09, 0.09, 0.12]}, radius: 0.01, count: 150, seed: 3, "
  "material: grit}\n"
  "  - {type: random, region: {min: [-0.09, -0.09, 0.13], max: [0.09, 0.09, 0.25]}, radius: 0.008, count: 150, seed: "
  "4, material: glass}\n"
  "output: {dir: none, snapshot_interval: 0}\n";

typedef struct {
  PetscInt compared, touching, by_block, slide_slip, slide_stick, roll_slip, spin_slip, on_wall, on_sphere, mixed_pair,
    in_place;
  double worst; /* largest |block - reference| / (|reference| + scale) */
} Tally;

static void compare(const double *got, const double *ref, PetscInt n, int width, Tally *t)
{
  double scale[64] = {0};
  for (PetscInt i = 0; i < n; i++)
    for (int k = 0; k < width; k++) scale[k] = fmax(scale[k], fabs(ref[(size_t)width * i + k]));
  for (PetscInt i = 0; i < n; i++)
    for (int k = 0; k < width; k++) {
      const double g = got[(size_t)width * i + k], r = ref[(size_t)width * i + k];
      const double e = fabs(g - r) / (fabs(r) + scale[k] + 1e-300);
      if (!(e <= t->worst)) t->worst = isnan(e) ? INFINITY : e;
    }
}

/* The history written over the old one (the stepper's path while the contacts are last step's or
 * a few came and went) gives the bits of the history written into another array, with the block
 * kernel and per contact. Two memories: each contact's last record at the contact's own index
 * (match = i; zeros for a new one), and the same records spread out as contacts that ended leave them (a record of NaNs
 * before every 5th contact and before every new one, so match[i] > i: every record moved, and a
 * NaN read by mistake would show); in both every 7th frame zeroed so that the block kernel rejects
 * lanes (it must leave their records for the per-contact code to read). */
static PetscErrorCode check_in_place(PenaltyContext *ctx, const ContactSet *cs, const ImpulseMemory *prev,
                                     const PetscInt match[], PetscInt nb, Tally *t)
{
  const size_t     w = (size_t)PENALTY_HISTORY_WIDTH, cap = 2 * (size_t)cs->n + 1;
  double          *same, *apart, *acc[2];
  PetscInt        *at;
  PenaltyStepLimit lim;

  PetscFunctionBegin;
  PetscCall(PetscMalloc5(w * cap, &same, w * cap, &apart, cap, &at, 6 * (size_t)nb, &acc[0], 6 * (size_t)nb, &acc[1]));
  for (int spread = 0; spread < 2; spread++)
    for (int ref = 0; ref < 2; ref++) {
      ImpulseMemory here = {.n        = 0,
                            .capacity = (PetscInt)cap,
                            .width    = PENALTY_HISTORY_WIDTH,
                            .key      = NULL,
                            .gamma    = same};
      for (PetscInt i = 0; i < cs->n; i++) {
        if (spread && (i % 5 == 0 || match[i] < 0)) { /* a record of a contact that ended */
          for (size_t k = 0; k < w; k++) same[w * here.n + k] = NAN;
          here.n++;
        }
        at[i] = match[i] >= 0 || !spread ? here.n++
                                         : -1; /* the contacts' memory: a record of zeros (no history) for a new one */
        if (at[i] < 0) continue;
        if (match[i] >= 0) PetscCall(PetscArraycpy(same + w * at[i], prev->gamma + w * match[i], w));
        else PetscCall(PetscArrayzero(same + w * at[i], w));
        if (i % 7 == 0) { /* a frame of zeros (edge-on): the block kernel hands the lane back to the per-contact code */
          PenaltyHistory *h = (PenaltyHistory *)(same + w * at[i]);
          for (int k = 0; k < 6; k++) h->frame[k] = 0;
        }
      }
      CHECK(ImpulseMemoryWritableInPlace(&here, at, cs->n), "%s memory: not writable in place",
            spread ? "a spread" : "the contacts'");
      CHECK(!ImpulseMemoryWritableInPlace(&here, at, (PetscInt)cap + 1),
            "a memory with room for %zu records is writable in place for %zu", cap, cap + 1);
      ctx->per_contact = ref ? PETSC_TRUE : PETSC_FALSE;
      PetscCall(PenaltyContactLoads(ctx, cs, &here, at, apart, NULL, acc[0], &lim));
      PetscCall(PenaltyContactLoads(ctx, cs, &here, at, same, NULL, acc[1], &lim));
      CHECK(!memcmp(same, apart, sizeof(double) * w * cs->n) && !memcmp(acc[0], acc[1], sizeof(double) * 6 * nb),
            "%s, %s memory: the history written in place differs from the one written apart",
            ref ? "per contact" : "block kernel", spread ? "a spread" : "the contacts'");
    }
  {
    const PetscInt behind[3] = {-1, 0,
                                1}; /* contact 2's record in slot 1: writing slot 1 for contact 1 first would lose it */
    ImpulseMemory  m         = {.n = 2, .capacity = 3, .width = PENALTY_HISTORY_WIDTH, .gamma = same};
    CHECK(!ImpulseMemoryWritableInPlace(&m, behind, 3),
          "a memory with a record behind its contact's slot is writable in place");
  }
  ctx->per_contact = PETSC_FALSE;
  t->in_place++;
  PetscCall(PetscFree5(same, apart, at, acc[0], acc[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The test's own detection and penalty context beside the simulation's, on its state. */
typedef struct {
  PenaltyContext ctx;
  Broadphase     bp;
  NeighbourList  nl;
} Probe;

/* One step's contacts of sim, their loads by the block kernel and by the per-contact code (probe's
 * context, with the simulation's memory), compared into t. */
static PetscErrorCode one_step(Simulation sim, Probe *probe, Tally *t)
{
  PenaltyContext   *ctx = &probe->ctx;
  ContactSet        cs;
  CollisionSettings cset = {SimulationScenario(sim)->envelope, SimulationScenario(sim)->materials, SimulationWalls(sim),
                            SimulationScenario(sim)->n_walls, NULL};
  PetscInt         *match, matched;
  double           *rec[2], *load[2], *acc[2];
  PenaltyStepLimit  lim[2];
  const PetscInt    nb = SimulationBodies(sim)->n_owned + SimulationBodies(sim)->n_ghost;

  PetscFunctionBegin;
  PetscCall(ContactSetCreate(&cs));
  PetscCall(CollisionDetectListedGeometry(&cset, SimulationBodies(sim), nb, &probe->bp, &probe->nl, &cs));
  PetscCall(PetscMalloc5(cs.n + 1, &match, (size_t)PENALTY_HISTORY_WIDTH * cs.n + 1, &rec[0],
                         (size_t)PENALTY_HISTORY_WIDTH * cs.n + 1, &rec[1], (size_t)PENALTY_LOAD_WIDTH * cs.n + 1,
                         &load[0], (size_t)PENALTY_LOAD_WIDTH * cs.n + 1, &load[1]));
  PetscCall(PetscMalloc2(6 * (size_t)nb, &acc[0], 6 * (size_t)nb, &acc[1]));
  PetscCall(ImpulseMemoryMatch(&cs, SimulationMemory(sim), match, &matched));
  ctx->walls   = SimulationWalls(sim);
  ctx->n_walls = SimulationScenario(sim)->n_walls;
  ctx->bodies  = SimulationBodies(sim);
  ctx->nb      = nb;
  ctx->h       = SimulationScenario(sim)->time_step;
  for (int ref = 0; ref < 2; ref++) {
    const PetscInt64 before = ctx->block_contacts;
    ctx->per_contact        = ref ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PenaltyContactLoads(ctx, &cs, SimulationMemory(sim), match, rec[ref], load[ref], NULL, &lim[ref]));
    if (!ref) t->by_block += ctx->block_contacts - before;
    else CHECK(ctx->block_contacts == before, "per_contact: no contact by the block kernel");
    PetscCall(PenaltyContactLoads(ctx, &cs, SimulationMemory(sim), match, rec[ref], NULL, acc[ref],
                                  &lim[ref])); /* the per-body sums of one rank */
  }
  ctx->per_contact = PETSC_FALSE;
  PetscCall(check_in_place(ctx, &cs, SimulationMemory(sim), match, nb, t));
  compare(rec[0], rec[1], cs.n, PENALTY_HISTORY_WIDTH, t);
  compare(load[0], load[1], cs.n, PENALTY_LOAD_WIDTH, t);
  compare(acc[0], acc[1], nb, 6, t);
  compare(&lim[0].period, &lim[1].period, 1, 1, t);
  CHECK(!strcmp(lim[0].what, lim[1].what), "the stiffest spring: %s by the block kernel, %s per contact", lim[0].what,
        lim[1].what);
  for (PetscInt i = 0; i < cs.n; i++) {
    const PenaltyHistory *h = (const PenaltyHistory *)(rec[1] + (size_t)PENALTY_HISTORY_WIDTH * i);
    const Contact        *c = &cs.c[i];
    t->compared++;
    if (!penalty_state_has(h, PENALTY_TOUCHING)) continue;
    t->touching++;
    if (penalty_state_has(h, PENALTY_SLIDE_SLIP)) t->slide_slip++;
    else t->slide_stick++;
    if (penalty_state_has(h, PENALTY_ROLL_A_SLIP) || penalty_state_has(h, PENALTY_ROLL_B_SLIP)) t->roll_slip++;
    if (penalty_state_has(h, PENALTY_SPIN_SLIP)) t->spin_slip++;
    if (c->a >= nb) t->on_wall++;
    else {
      t->on_sphere++;
      if (SimulationBodies(sim)->material[c->a] != SimulationBodies(sim)->material[c->b]) t->mixed_pair++;
    }
  }
  PetscCall(PetscFree5(match, rec[0], rec[1], load[0], load[1]));
  PetscCall(PetscFree2(acc[0], acc[1]));
  PetscCall(ContactSetDestroy(&cs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -penalty_simd takes only the instantiations' names, -penalty_per_contact and -penalty_check_sides only a logical
 * value. */
static PetscErrorCode check_options(void)
{
  static const char *bad[][2] = {{"-penalty_simd", "avx3"},
                                 {"-penalty_simd", "true"},
                                 {"-penalty_per_contact", "sometimes"},
                                 {"-penalty_check_sides", "maybe"}};

  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
    PenaltyContext ctx = {.simd = SIMD4_AVX512VL};
    PetscCall(PetscOptionsSetValue(NULL, bad[k][0], bad[k][1]));
    PetscErrorCode err = PenaltyContextSetFromOptions(&ctx, PETSC_COMM_SELF);
    PetscCall(PetscOptionsClearValue(NULL, bad[k][0]));
    CHECK(err != 0, "%s %s was accepted", bad[k][0], bad[k][1]);
  }
  PetscCall(PetscPopErrorHandler());
  printf("options: each nonsense value is rejected\n");
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(check_options());
  for (int isa = SIMD4_AVX512; isa >= SIMD4_GENERIC;
       isa--) { /* each instantiation this CPU runs (8 lanes, then 4), the portable one last */
    Simulation      sim;
    const Scenario *sc;
    Probe           probe;
    Tally           t = {0};
    if (simd4_isa((Simd4Isa)isa) != (Simd4Isa)isa) continue; /* not on this CPU: tested where it runs */
    PetscCall(PetscOptionsSetValue(NULL, "-penalty_simd",
                                   simd4_isa_name((Simd4Isa)isa))); /* the simulation's and the probe's */
    PetscCall(TestSimulationFromText(scenario, &sim));
    sc = SimulationScenario(sim);
    PetscCall(PenaltyContextSetUp(&probe.ctx, &sc->penalty, sc->materials, sc->n_materials));
    PetscCall(PenaltyContextSetFromOptions(&probe.ctx, PETSC_COMM_WORLD));
    PetscCall(BroadphaseCreate(&probe.bp));
    PetscCall(NeighbourListCreate(&probe.nl, sc->envelope));
    for (int s = 0; s < 3000; s++) PetscCall(SimulationStep(sim));
    for (int s = 0; s < 20; s++) {
      PetscCall(one_step(sim, &probe, &t));
      PetscCall(SimulationStep(sim));
    }
    printf("isa %s: %" PetscInt_FMT " contacts compared, %" PetscInt_FMT " touching, %" PetscInt_FMT
           " by the block kernel; slide stick %" PetscInt_FMT " slip %" PetscInt_FMT ", roll slip %" PetscInt_FMT
           ", spin slip %" PetscInt_FMT ", on walls %" PetscInt_FMT ", sphere pairs %" PetscInt_FMT " (%" PetscInt_FMT
           " of two materials); worst difference %.3g\n",
           penalty_block_isa(&probe.ctx), t.compared, t.touching, t.by_block, t.slide_stick, t.slide_slip, t.roll_slip,
           t.spin_slip, t.on_wall, t.on_sphere, t.mixed_pair, t.worst);
    CHECK(t.worst <= 1e-8, "block kernel (%s) vs per-contact code: worst relative difference %.3g above 1e-8",
          penalty_block_isa(&probe.ctx), t.worst);
    CHECK(t.by_block >= 0.8 * t.touching,
          "the block kernel computed %" PetscInt_FMT " of %" PetscInt_FMT " touching contacts (expected at least 80%%)",
          t.by_block, t.touching);
    CHECK(t.slide_stick > 0 && t.slide_slip > 0 && t.roll_slip > 0 && t.spin_slip > 0,
          "every stick/slip case compared");
    CHECK(t.on_wall > 0 && t.on_sphere > 0 && t.mixed_pair > 0, "wall, sphere and mixed-material contacts compared");
    PetscCall(PenaltyContextDestroy(&probe.ctx));
    PetscCall(BroadphaseDestroy(&probe.bp));
    PetscCall(NeighbourListDestroy(&probe.nl));
    PetscCall(SimulationDestroy(&sim));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-penalty_simd"));
  PetscCall(PetscFinalize());
  return failures != 0;
}
