/* Scenario reader and initial population: the GUIDE example is read value by value; fills make the
 * counts and positions computed by hand here; random fills are deterministic and overlap-free;
 * bad input gives one message naming file, line and key. */
#include "scenario/scenario.h"
#include "step/population.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_check.h"

/* Copied verbatim from GUIDE "Scenario files": it must be accepted exactly as written. */
static const char guide_example[] =
  "domain: {min: [-1, -1, -0.5], max: [1, 1, 2]}     # bodies leaving it are removed and counted\n"
  "gravity: [0, 0, -9.81]\n"
  "time: {step: 0.005, end: 2.0}\n"
  "contact: {model: ccp, envelope: 0.001, max_recovery_speed: 0.5}\n"
  "solver: {type: apgd, max_iterations: 500, tolerance: 1.0e-6}   # tolerance in m/s (GUIDE residual)\n"
  "materials:\n"
  "  - {name: steel, density: 7800, friction: 0.5, rolling_friction: 0.001, spinning_friction: 0.001}\n"
  "walls:\n"
  "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: steel}\n"
  "  - {type: box, center: [0, 0, 1.5], half_extents: [0.5, 0.5, 0.1], material: steel, velocity: [0, 0, 0]}\n"
  "bodies:\n"
  "  - {shape: sphere, radius: 0.1, position: [0, 0, 0.1], velocity: [1, 0, 0],\n"
  "     angular_velocity: [0, 10, 0], material: steel}           # optional: mass, inertia: [Ixx, Iyy, Izz]\n"
  "  - {shape: box, half_extents: [0.1, 0.1, 0.05], position: [0.5, 0, 0.05],\n"
  "     orientation: [1, 0, 0, 0], material: steel}\n"
  "fills:\n"
  "  - {type: lattice, region: {min: [-0.2, -0.2, 0.3], max: [0.2, 0.2, 0.6]}, radius: 0.01, spacing: 0.021, material: "
  "steel}\n"
  "  - {type: random, region: {min: [-0.2, -0.2, 0.7], max: [0.2, 0.2, 1.0]}, radius: 0.01, count: 100, seed: 7, "
  "material: steel}\n"
  "output: {dir: out, snapshot_interval: 0.1, checkpoint_interval: 1.0}   # simulated seconds\n";

/* A decimal literal read by strtod equals the same literal compiled by C (both correctly
 * rounded), so parsed values are compared exactly. */
static int vec_eq(const double *a, const double *b, int n)
{
  for (int i = 0; i < n; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}

static void test_guide_values(void)
{
  Scenario sc;
  char     err[SCENARIO_ERR_MAX];
  int      rc = scenario_load_string(guide_example, "guide.yaml", &sc, err, sizeof err);

  printf("GUIDE example: every value read\n");
  CHECK(rc == 0, "GUIDE example rejected: %s", err);
  if (rc) return;
  CHECK(!strcmp(sc.path, "guide.yaml") && sc.text && !strcmp(sc.text, guide_example), "path/text not kept");
  CHECK(vec_eq(sc.domain_min, (double[]){-1, -1, -0.5}, 3) && vec_eq(sc.domain_max, (double[]){1, 1, 2}, 3), "domain");
  CHECK(vec_eq(sc.gravity, (double[]){0, 0, -9.81}, 3), "gravity");
  CHECK(sc.time_step == 0.005 && sc.time_end == 2.0, "time %g %g", sc.time_step, sc.time_end);
  CHECK(sc.contact_model == CONTACT_MODEL_CCP && sc.envelope == 0.001 && sc.max_recovery_speed == 0.5, "contact");
  CHECK(sc.solver_type == SOLVER_APGD && sc.max_iterations == 500 && sc.tolerance == 1.0e-6, "solver");
  CHECK(sc.n_materials == 1, "materials %d", sc.n_materials);
  CHECK(!strcmp(sc.materials[0].name, "steel") && sc.materials[0].density == 7800 && sc.materials[0].friction == 0.5 &&
          sc.materials[0].rolling_friction == 0.001 && sc.materials[0].spinning_friction == 0.001 &&
          sc.materials[0].compliance == 0 && sc.materials[0].cohesion == 0,
        "material values");
  CHECK(scenario_material_index(&sc, "steel") == 0 && scenario_material_index(&sc, "glass") == -1, "material index");
  CHECK(sc.n_walls == 2, "walls %d", sc.n_walls);
  if (sc.n_walls == 2) {
    const Wall *p = &sc.walls[0], *b = &sc.walls[1];
    CHECK(p->type == WALL_PLANE && vec_eq(p->point, (double[]){0, 0, 0}, 3) &&
            vec_eq(p->normal, (double[]){0, 0, 1}, 3) && p->material == 0,
          "plane wall");
    CHECK(b->type == WALL_BOX && vec_eq(b->center, (double[]){0, 0, 1.5}, 3) &&
            vec_eq(b->half_extents, (double[]){0.5, 0.5, 0.1}, 3) && vec_eq(b->velocity, (double[]){0, 0, 0}, 3) &&
            vec_eq(b->quat, (double[]){1, 0, 0, 0}, 4) && b->material == 0,
          "box wall");
    CHECK(sc.wall_lines[0] == 9 && sc.wall_lines[1] == 10, "wall lines %d %d", sc.wall_lines[0], sc.wall_lines[1]);
  }
  CHECK(sc.n_bodies == 2, "bodies %d", sc.n_bodies);
  if (sc.n_bodies == 2) {
    const BodySpec *s = &sc.bodies[0], *b = &sc.bodies[1];
    CHECK(s->shape == SHAPE_SPHERE && s->size[0] == 0.1 && vec_eq(s->position, (double[]){0, 0, 0.1}, 3) &&
            vec_eq(s->velocity, (double[]){1, 0, 0}, 3) && vec_eq(s->angular_velocity, (double[]){0, 10, 0}, 3) &&
            vec_eq(s->orientation, (double[]){1, 0, 0, 0}, 4) && s->material == 0 && s->mass == 0 && s->line == 12,
          "sphere body (line %d)", s->line);
    CHECK(b->shape == SHAPE_BOX && vec_eq(b->size, (double[]){0.1, 0.1, 0.05}, 3) &&
            vec_eq(b->position, (double[]){0.5, 0, 0.05}, 3) && vec_eq(b->velocity, (double[]){0, 0, 0}, 3) &&
            vec_eq(b->orientation, (double[]){1, 0, 0, 0}, 4) && b->material == 0 && b->line == 14,
          "box body (line %d)", b->line);
  }
  CHECK(sc.n_fills == 2, "fills %d", sc.n_fills);
  if (sc.n_fills == 2) {
    const FillSpec *l = &sc.fills[0], *r = &sc.fills[1];
    CHECK(l->type == FILL_LATTICE && vec_eq(l->region_min, (double[]){-0.2, -0.2, 0.3}, 3) &&
            vec_eq(l->region_max, (double[]){0.2, 0.2, 0.6}, 3) && l->radius == 0.01 && l->spacing == 0.021 &&
            l->material == 0 && l->line == 17,
          "lattice fill");
    CHECK(r->type == FILL_RANDOM && vec_eq(r->region_min, (double[]){-0.2, -0.2, 0.7}, 3) &&
            vec_eq(r->region_max, (double[]){0.2, 0.2, 1.0}, 3) && r->radius == 0.01 && r->count == 100 &&
            r->seed == 7 && r->material == 0 && r->line == 18,
          "random fill");
  }
  CHECK(!strcmp(sc.output_dir, "out") && sc.snapshot_interval == 0.1 && sc.checkpoint_interval == 1.0, "output");
  scenario_free(&sc);
}

/* Block style, defaults, and a file on disk. */
static void test_block_style_and_defaults(void)
{
  const char text[] = "domain:\n"
                      "  min: [0, 0, 0]\n"
                      "  max:\n"
                      "    - 1\n"
                      "    - 1\n"
                      "    - 1\n"
                      "time:\n"
                      "  step: 1e-3\n"
                      "  end: 1\n"
                      "materials:\n"
                      "  - name: glass\n"
                      "    density: 2500\n"
                      "    friction: 0.3\n"
                      "bodies:\n"
                      "  - shape: sphere\n"
                      "    radius: 0.02\n"
                      "    position: [0.5, 0.5, 0.5]\n"
                      "    material: glass\n";
  char       path[] = "/tmp/test_scenario_XXXXXX", err[SCENARIO_ERR_MAX];
  int        fd     = mkstemp(path), rc;
  Scenario   sc;

  printf("block style, defaults, load from a file\n");
  CHECK(fd >= 0, "mkstemp failed");
  if (fd < 0) return;
  CHECK(write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1), "write failed");
  close(fd);
  rc = scenario_load_file(path, &sc, err, sizeof err);
  unlink(path);
  CHECK(rc == 0, "block style rejected: %s", err);
  if (rc) return;
  CHECK(!strcmp(sc.path, path) && !strcmp(sc.text, text), "path/text of a file");
  CHECK(vec_eq(sc.domain_max, (double[]){1, 1, 1}, 3) && sc.time_step == 1e-3, "block values");
  CHECK(vec_eq(sc.gravity, (double[]){0, 0, 0}, 3), "gravity default 0");
  CHECK(sc.contact_model == CONTACT_MODEL_CCP && sc.max_recovery_speed == 0.5 && sc.overlap_tolerance == 0,
        "contact defaults");
  /* default envelope: 10% of the smallest body size, 0.1 * 0.02; 1e-15 absorbs the rounding of one product */
  CHECK(fabs(sc.envelope - 0.002) < 1e-15, "envelope default %g", sc.envelope);
  CHECK(sc.solver_type == SOLVER_APGD && sc.max_iterations == 500 && sc.tolerance == 1e-6 &&
          sc.warm_start_decay == 0.99,
        "solver defaults");
  CHECK(sc.materials[0].rolling_friction == 0 && sc.materials[0].spinning_friction == 0, "material defaults");
  CHECK(sc.n_walls == 0 && sc.n_fills == 0 && sc.n_bodies == 1, "counts");
  CHECK(!strcmp(sc.output_dir, "out") && sc.snapshot_interval == 0 && sc.checkpoint_interval == 0, "output defaults");
  scenario_free(&sc);
}

/* Relative tolerance for quantities computed by a few flops: 1e-12 is ~1e4 ulp, far below any
 * modelling difference and far above the rounding of one formula evaluated two ways. */
#define REL 1e-12
static int close_rel(double a, double b) { return fabs(a - b) <= REL * fmax(fabs(b), 1e-300); }

static void test_guide_population(void)
{
  Scenario  sc;
  BodyStore s, again;
  char      err[SCENARIO_ERR_MAX] = "";
  /* Lattice by hand: centres from min + r while centre + r <= max.
   *   x, y: -0.19 + k 0.021 <= 0.19  ->  k <= 18.09  -> 19 per axis
   *   z:     0.31 + k 0.021 <= 0.59  ->  k <= 13.33  -> 14 */
  const PetscInt nlattice = 19 * 19 * 14, first_random = 2 + nlattice, total = first_random + 100;
  const double   PI = 3.14159265358979323846;

  printf("GUIDE example: population counts, positions, mass properties, random fill\n");
  if (scenario_load_string(guide_example, "guide.yaml", &sc, err, sizeof err)) {
    CHECK(0, "load: %s", err);
    return;
  }
  PetscCallVoid(BodyStoreCreate(&s));
  PetscCallVoid(PopulationBuild(&sc, &s, err, sizeof err));
  CHECK(!err[0], "GUIDE population rejected: %s", err);
  CHECK(s.n_owned == total, "bodies %" PetscInt_FMT ", expected %" PetscInt_FMT, s.n_owned, total);
  if (err[0] || s.n_owned != total) goto done;
  for (PetscInt i = 0; i < total; i++) CHECK(s.id[i] == i, "id %" PetscInt_FMT " is %lld", i, (long long)s.id[i]);

  {
    const double m = 7800 * 4.0 / 3.0 * PI * 0.1 * 0.1 * 0.1, Is = 0.4 * m * 0.01;
    CHECK(close_rel(s.mass[0], m) && close_rel(s.inertia[0], Is) && close_rel(s.inertia[2], Is),
          "sphere mass %g inertia %g", s.mass[0], s.inertia[0]);
    CHECK(s.vel[3] == 0 && s.vel[4] == 10 && s.vel[5] == 0 && s.vel[0] == 1,
          "sphere velocities (identity orientation: body = world)");
    CHECK(s.radius[0] == 0.1 && s.shape[0] == SHAPE_SPHERE, "sphere radius");
  }
  {
    const double m = 7800 * 0.2 * 0.2 * 0.1; /* full edges 0.2, 0.2, 0.1 */
    CHECK(close_rel(s.mass[1], m), "box mass %g vs %g", s.mass[1], m);
    CHECK(close_rel(s.inertia[3], m * (0.2 * 0.2 + 0.1 * 0.1) / 12) &&
            close_rel(s.inertia[5], m * (0.2 * 0.2 + 0.2 * 0.2) / 12),
          "box inertia");
    CHECK(close_rel(s.radius[1], sqrt(0.01 + 0.01 + 0.0025)), "box bounding radius %g", s.radius[1]);
  }
  /* Lattice order: x fastest, then y, then z. Positions to 1e-12 m: the same few flops in any order. */
  {
    const PetscInt probe[4]   = {0, 1, 19, nlattice - 1};
    const double   want[4][3] = {{-0.19, -0.19, 0.31},
                                 {-0.19 + 0.021, -0.19, 0.31},
                                 {-0.19, -0.19 + 0.021, 0.31},
                                 {-0.19 + 18 * 0.021, -0.19 + 18 * 0.021, 0.31 + 13 * 0.021}};
    for (int k = 0; k < 4; k++) {
      const double *x = s.pos + 3 * (2 + probe[k]);
      CHECK(fabs(x[0] - want[k][0]) < 1e-12 && fabs(x[1] - want[k][1]) < 1e-12 && fabs(x[2] - want[k][2]) < 1e-12,
            "lattice sphere %" PetscInt_FMT " at (%g, %g, %g)", probe[k], x[0], x[1], x[2]);
    }
    CHECK(s.radius[2] == 0.01 && close_rel(s.mass[2], 7800 * 4.0 / 3.0 * PI * 1e-6), "lattice sphere radius/mass");
  }
  /* Random fill: inside [min + r, max - r]; no overlap with anything (brute force over all pairs). */
  {
    int inside = 1, overlap = 0;
    for (PetscInt i = first_random; i < total; i++) {
      const double *x = s.pos + 3 * i;
      inside &= x[0] >= -0.19 && x[0] <= 0.19 && x[1] >= -0.19 && x[1] <= 0.19 && x[2] >= 0.71 && x[2] <= 0.99;
      for (PetscInt j = 0; j < total; j++) {
        double d[3];
        if (j == i) continue;
        for (int a = 0; a < 3; a++) d[a] = x[a] - s.pos[3 * j + a];
        overlap += sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) < s.radius[i] + s.radius[j];
      }
    }
    CHECK(inside, "random spheres outside the region");
    CHECK(overlap == 0, "%d overlapping pairs involving random spheres", overlap);
  }
  /* Same seed -> bitwise identical; another seed -> different positions. */
  PetscCallVoid(BodyStoreCreate(&again));
  PetscCallVoid(PopulationBuild(&sc, &again, err, sizeof err));
  CHECK(!err[0] && again.n_owned == total && !memcmp(again.pos, s.pos, sizeof(double) * 3 * (size_t)total),
        "rebuild with the same seed differs");
  PetscCallVoid(BodyStoreDestroy(&again));
  sc.fills[1].seed = 8;
  PetscCallVoid(BodyStoreCreate(&again));
  PetscCallVoid(PopulationBuild(&sc, &again, err, sizeof err));
  CHECK(!err[0] && again.n_owned == total &&
          memcmp(again.pos + 3 * first_random, s.pos + 3 * first_random, sizeof(double) * 300),
        "seed 8 gives the same positions as seed 7");
  PetscCallVoid(BodyStoreDestroy(&again));
done:
  PetscCallVoid(BodyStoreDestroy(&s));
  scenario_free(&sc);
}

/* Scenario head for small population cases: unit domain, one material. */
#define HEAD \
  "domain: {min: [0, 0, 0], max: [1, 1, 1]}\ntime: {step: 0.001, end: 1}\nmaterials: [{name: m, density: 1000, " \
  "friction: 0.5}]\n"

/* Build; return the message ("" when accepted) and the body count. */
static PetscInt build(const char *text, char *err, size_t errlen)
{
  Scenario  sc;
  BodyStore s;
  PetscInt  n = -1;
  if (scenario_load_string(text, "pop.yaml", &sc, err, errlen)) return -1;
  PetscCallAbort(PETSC_COMM_SELF, BodyStoreCreate(&s));
  PetscCallAbort(PETSC_COMM_SELF, PopulationBuild(&sc, &s, err, errlen));
  n = s.n_owned;
  PetscCallAbort(PETSC_COMM_SELF, BodyStoreDestroy(&s));
  scenario_free(&sc);
  return n;
}

static void test_population_cases(void)
{
  char       err[SCENARIO_ERR_MAX];
  PetscInt   n;
  Scenario   sc;
  BodyRecord rec;

  printf("population: lattice count, overrides, frames, overlap/wall/domain checks\n");
  /* Lattice by hand: x: (1 - 0.1)/0.1 = 9 steps -> 10 (exact fit, must survive rounding);
   * y: 0.4/0.1 = 4 -> 5; z: 0.15/0.1 = 1.5 -> 2. */
  n = build(HEAD "fills: [{type: lattice, region: {min: [0, 0, 0], max: [1, 0.5, 0.25]}, radius: 0.05, spacing: 0.1, "
                 "material: m}]\n",
            err, sizeof err);
  CHECK(n == 100, "lattice count %" PetscInt_FMT " (%s)", n, err);

  /* Overrides and the world -> body conversion of angular velocity: q = 90 deg about z (given
   * unnormalized as [2, 0, 0, 2]) maps body x to world y, so world (0, 10, 0) is body (10, 0, 0). */
  if (!scenario_load_string(HEAD "bodies: [{shape: box, half_extents: [0.1, 0.2, 0.3], position: [0.5, 0.5, 0.5], "
                                 "orientation: [2, 0, 0, 2], "
                                 "angular_velocity: [0, 10, 0], mass: 3, inertia: [1, 2, 3], material: m}]\n",
                            "o.yaml", &sc, err, sizeof err)) {
    population_record_from_spec(&sc, &sc.bodies[0], 42, &rec);
    /* 1e-12: a rotation by a normalized quaternion, a few flops of rounding on values of order 10 */
    CHECK(fabs(rec.vel[3] - 10) < 1e-12 && fabs(rec.vel[4]) < 1e-12 && fabs(rec.vel[5]) < 1e-12,
          "body-frame omega (%g, %g, %g)", rec.vel[3], rec.vel[4], rec.vel[5]);
    CHECK(fabs(rec.quat[0] - sqrt(0.5)) < 1e-15 && fabs(rec.quat[3] - sqrt(0.5)) < 1e-15, "quaternion normalized");
    CHECK(rec.mass[0] == 3 && rec.inertia[0] == 1 && rec.inertia[1] == 2 && rec.inertia[2] == 3 && rec.id[0] == 42,
          "mass/inertia overrides");
    scenario_free(&sc);
  } else CHECK(0, "override scenario rejected: %s", err);

  /* Overlap of 2% of R is rejected, 0.5% accepted (R = 0.1). */
  n = build(HEAD "bodies:\n  - {shape: sphere, radius: 0.1, position: [0.5, 0.5, 0.5], material: m}\n  - {shape: "
                 "sphere, radius: 0.1, position: [0.698, 0.5, 0.5], material: m}\n",
            err, sizeof err);
  CHECK(strstr(err, "pop.yaml:6: key 'bodies[1]': overlaps bodies[0] (line 5) by 0.002 m") != NULL,
        "2%% overlap message: %s", err);
  n = build(HEAD "bodies:\n  - {shape: sphere, radius: 0.1, position: [0.5, 0.5, 0.5], material: m}\n  - {shape: "
                 "sphere, radius: 0.1, position: [0.6995, 0.5, 0.5], material: m}\n",
            err, sizeof err);
  CHECK(n == 2 && !err[0], "0.5%% overlap rejected: %s", err);
  /* Box body against sphere: box top at 0.6, sphere centre 0.695 r 0.1 -> 0.005 deep = 5% */
  n = build(HEAD "bodies:\n  - {shape: box, half_extents: [0.1, 0.1, 0.1], position: [0.5, 0.5, 0.5], material: m}\n  "
                 "- {shape: sphere, radius: 0.1, position: [0.5, 0.5, 0.695], material: m}\n",
            err, sizeof err);
  CHECK(strstr(err, "pop.yaml:6: key 'bodies[1]': overlaps bodies[0]") != NULL, "box-sphere overlap: %s", err);
  /* A box 0.005 m into another box, or into a box wall (2.9% of the bounding radius 0.173): rejected;
   * flush: accepted */
  for (int wall = 0; wall < 2; wall++)
    for (int deep = 0; deep < 2; deep++) {
      char text[1024];
      snprintf(text, sizeof text,
               "%s%s{shape: box, half_extents: [0.1, 0.1, 0.1], position: [%g, 0.5, 0.5], material: m}]\n", HEAD,
               wall ? "walls: [{type: box, center: [0.3, 0.5, 0.5], half_extents: [0.1, 0.1, 0.1], material: m}]\n"
                      "bodies: ["
                    : "bodies: [{shape: box, half_extents: [0.1, 0.1, 0.1], position: [0.3, 0.5, 0.5], material: m}, ",
               deep ? 0.495 : 0.5);
      n = build(text, err, sizeof err);
      if (!deep) CHECK(n == 2 - wall && !err[0], "a box flush with a box%s rejected: %s", wall ? " wall" : "", err);
      else if (wall)
        CHECK(strstr(err, "key 'bodies[0]': penetrates walls[0] (line 4) by 0.005 m") != NULL,
              "box into a box wall: %s", err);
      else
        CHECK(strstr(err, "key 'bodies[1]': overlaps bodies[0] (line 4) by 0.005 m") != NULL, "box into a box: %s",
              err);
    }

  /* Walls: a sphere 3% into a plane; a box body corner into a plane; both at the lines given. */
  n = build(HEAD "walls: [{type: plane, point: [0, 0, 0.2], normal: [0, 0, 1], material: m}]\nbodies: [{shape: sphere, "
                 "radius: 0.1, position: [0.5, 0.5, 0.297], material: m}]\n",
            err, sizeof err);
  CHECK(strstr(err, "pop.yaml:5: key 'bodies[0]': penetrates walls[0] (line 4) by 0.003 m") != NULL,
        "plane penetration: %s", err);
  n = build(HEAD "walls: [{type: plane, point: [0, 0, 0.2], normal: [0, 0, 1], material: m}]\nbodies: [{shape: box, "
                 "half_extents: [0.1, 0.1, 0.1], position: [0.5, 0.5, 0.29], material: m}]\n",
            err, sizeof err);
  CHECK(strstr(err, "key 'bodies[0]': penetrates walls[0] (line 4) by 0.01 m") != NULL, "box into plane: %s", err);
  n = build(HEAD "walls: [{type: box, center: [0.5, 0.5, 0.5], half_extents: [0.1, 0.1, 0.1], material: m}]\nbodies: "
                 "[{shape: sphere, radius: 0.05, position: [0.5, 0.5, 0.64], material: m}]\n",
            err, sizeof err);
  CHECK(strstr(err, "key 'bodies[0]': penetrates walls[0] (line 4) by 0.01 m") != NULL, "sphere into box wall: %s",
        err);
  n = build(HEAD "walls: [{type: plane, point: [0, 0, 0.2], normal: [0, 0, 1], material: m}]\nbodies: [{shape: sphere, "
                 "radius: 0.1, position: [0.5, 0.5, 0.3], material: m}]\n",
            err, sizeof err);
  CHECK(n == 1 && !err[0], "touching a wall rejected: %s", err);

  /* Domain: centre outside; a lattice sphere outside names the fill and the sphere. */
  n = build(HEAD "bodies: [{shape: sphere, radius: 0.1, position: [0.5, 1.2, 0.5], material: m}]\n", err, sizeof err);
  CHECK(strstr(err, "pop.yaml:4: key 'bodies[0]': centre (0.5, 1.2, 0.5) is outside the domain") != NULL, "outside: %s",
        err);
  n = build(HEAD "fills: [{type: lattice, region: {min: [0.5, 0.5, 0.5], max: [1.5, 0.7, 0.7]}, radius: 0.1, spacing: "
                 "0.2, material: m}]\n",
            err, sizeof err);
  CHECK(strstr(err, "pop.yaml:4: key 'fills[0]': sphere 3 at (1.2, 0.6, 0.6) is outside the domain") != NULL,
        "fill outside: %s", err);

  /* Random fill: 1000 spheres of r = 0.05 in a unit cube would be 52% of its volume, beyond where random
   * placement jams; 2000 would be 105%, beyond any packing, refused before a try. */
  n = build(HEAD "fills: [{type: random, region: {min: [0, 0, 0], max: [1, 1, 1]}, radius: 0.05, count: 1000, seed: 1, "
                 "material: m}]\n",
            err, sizeof err);
  CHECK(strstr(err, "pop.yaml:4: key 'fills[0]': placed only") != NULL, "random cannot fit: %s", err);
  n = build(HEAD "fills: [{type: random, region: {min: [0, 0, 0], max: [1, 1, 1]}, radius: 0.05, count: 2000, seed: 1, "
                 "material: m}]\n",
            err, sizeof err);
  CHECK(strstr(err, "pop.yaml:4: key 'fills[0]': 2000 spheres of radius 0.05 m would fill 105% of the region, more "
                    "than the densest packing") != NULL,
        "random beyond any packing: %s", err);
  /* Random fill avoids an earlier body and a wall crossing its region. */
  n = build(HEAD "walls: [{type: plane, point: [0, 0, 0.5], normal: [0, 0, 1], material: m}]\n"
                 "bodies: [{shape: sphere, radius: 0.2, position: [0.5, 0.5, 0.75], material: m}]\n"
                 "fills: [{type: random, region: {min: [0, 0, 0.3], max: [1, 1, 1]}, radius: 0.03, count: 300, seed: "
                 "3, material: m}]\n",
            err, sizeof err);
  CHECK(n == 301 && !err[0], "random fill around a body and a wall: %" PetscInt_FMT " %s", n, err);
}

/* Bad input: the message names file, line and key path, and says what is wrong. */
static void test_messages(void)
{
  static const struct {
    const char *text, *want1, *want2;
  } cases[] = {
    {HEAD "bogus: 1\n", "bad.yaml:4: key 'bogus': unknown key", "domain, gravity, time"},
    {HEAD "contact: {model: ccp, envelop: 0.1}\n", "bad.yaml:4: key 'contact.envelop': unknown key",
     "model, envelope, max_recovery_speed"},
    {"domain: {min: [0, 0, 0], max: [1, 1, 1]}\ntime: {step: 0.001, end: 1}\nmaterials:\n  - {name: a, density: 1, "
     "friction: 0}\n  - {name: b, density: -5, friction: 0}\n",
     "bad.yaml:5: key 'materials[1].density': must be > 0 (got -5)", "kg/m^3"},
    {HEAD "bodies: [{shape: sphere, radius: abc, position: [0.5, 0.5, 0.5], material: m}]\n",
     "bad.yaml:4: key 'bodies[0].radius': expected a number", "'abc'"},
    {HEAD "bodies: [{shape: sphere, radius: true, position: [0.5, 0.5, 0.5], material: m}]\n",
     "key 'bodies[0].radius': expected a number", "'true'"},
    {HEAD "bodies: [{shape: sphere, radius: \"0.1\", position: [0.5, 0.5, 0.5], material: m}]\n",
     "key 'bodies[0].radius': expected a number, got the quoted string", "remove the quotes"},
    {HEAD "gravity: [0, -9.81]\n", "bad.yaml:4: key 'gravity': expected a list of 3 numbers", "2 entries"},
    {HEAD "gravity: [0, x, 1]\n", "bad.yaml:4: key 'gravity[1]': expected a number", "'x'"},
    {HEAD "bodies: [{shape: sphere, radius: 0.1, position: [0.5, 0.5, 0.5], material: glass}]\n",
     "key 'bodies[0].material': unknown material 'glass'", "defines: m"},
    {"domain: {min: [0, 0, 0], max: [1, 1, 1]}\ntime: {step: 0.001, end: 1}\ntime: {step: 0.002, end: 1}\n",
     "bad.yaml:3: key 'time': duplicate key (first given at line 2)", "keep only one"},
    {"domain: {min: [0, 0, 0], max: [1, 1, 1]}\ntime: {step: 0.001, end: 1}\n", "bad.yaml:1: key 'materials': missing",
     "materials:"},
    {"domain: {min: [0, 0, 0], max: [1, 1, 1]}\ntime: {step: 0.001}\nmaterials: [{name: m, density: 1, friction: 0}]\n",
     "bad.yaml:2: key 'time.end': missing", "end time"},
    {"domain: {min: [0, 0, 0], max: [1, 1, 1]}\ntime: {step: 0, end: 1}\n",
     "bad.yaml:2: key 'time.step': must be > 0 (got 0)", "time step"},
    {"domain: {min: [0, 0, 0], max: [1, 0, 1]}\n", "bad.yaml:1: key 'domain.max': max[1] = 0 must be > min[1] = 0",
     "max > min"},
    {HEAD "fills: [{type: random, region: {min: [0, 0, 0], max: [1, 1, 1]}, radius: 0.1, count: 1.5, material: m}]\n",
     "key 'fills[0].count': expected an integer", "'1.5'"},
    {HEAD
     "fills: [{type: lattice, region: {min: [0, 0, 0], max: [1, 1, 1]}, radius: 0.1, spacing: 0.15, material: m}]\n",
     "key 'fills[0].spacing': spacing 0.15 is less than the sphere diameter 0.2", "spacing >= 0.2"},
    {HEAD "solver: {type: cg}\n", "bad.yaml:4: key 'solver.type': unknown value 'cg'", "jacobi, gauss-seidel, apgd"},
    {HEAD "walls: [{type: plane, point: [0, 0, 0], normal: [0, 0, 0], material: m}]\n",
     "key 'walls[0].normal': must not be the zero vector", "outward normal"},
    {HEAD "walls: [{type: plane, point: [0, 0, 0], normal: [0, 0, 1], velocity: [0, 0, 1], material: m}]\n",
     "key 'walls[0].velocity': unknown key", "type, point, normal, material"},
    {HEAD "bodies: [{shape: box, half_extents: [0.1, 0.1, 0.1], position: [0.5, 0.5, 0.5], orientation: [0, 0, 0, 0], "
          "material: m}]\n",
     "key 'bodies[0].orientation': must not be all zero", "[w, x, y, z]"},
    {"domain: {min: [0, 0, 0], max: [1, 1, 1]\ntime: {step: 1, end: 1}\n",
     "bad.yaml:2: malformed YAML:", "fix the syntax"},
    {"domain:\n  min: [0, 0, 0]\n max: [1, 1, 1]\n", "bad.yaml:3: malformed YAML:", "fix the syntax"},
    {"", "bad.yaml:1: the scenario is empty", "GUIDE"},
    {"- 1\n- 2\n", "bad.yaml:1: the scenario must be a mapping", "got a list"},
    {HEAD "---\n" HEAD, "bad.yaml:5: a second YAML document", "remove"},
    {HEAD "materials: [{name: m, density: 1, friction: 0}]\n", "bad.yaml:4: key 'materials': duplicate key", "line 3"},
    {HEAD "solver: {warm_start_decay: 1.5}\n", "key 'solver.warm_start_decay': must be <= 1 (got 1.5)", "[0, 1]"},
  };
  char     err[SCENARIO_ERR_MAX];
  Scenario sc;

  printf("bad input: %d messages name file, line and key\n", (int)(sizeof cases / sizeof cases[0]));
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    int rc = scenario_load_string(cases[k].text, "bad.yaml", &sc, err, sizeof err);
    CHECK(rc != 0, "case %zu accepted", k);
    if (!rc) {
      scenario_free(&sc);
      continue;
    }
    printf("  %s\n", err);
    CHECK(strstr(err, cases[k].want1) && strstr(err, cases[k].want2) && !strchr(err, '\n'),
          "case %zu: got \"%s\", want \"%s\" ... \"%s\"", k, err, cases[k].want1, cases[k].want2);
  }
  CHECK(scenario_load_file("/nonexistent/x.yaml", &sc, err, sizeof err) != 0 &&
          strstr(err, "/nonexistent/x.yaml: cannot open"),
        "missing file: %s", err);
}

/* The robustness keys beyond the GUIDE's: contact.overlap_tolerance and solver.warm_start_decay. */
static void test_robustness_keys(void)
{
  const char text[] = "domain: {min: [0, 0, 0], max: [1, 1, 1]}\n"
                      "time: {step: 0.005, end: 1}\n"
                      "contact: {model: ccp, overlap_tolerance: 1.0e-4}\n"
                      "solver: {type: apgd, max_iterations: 50, warm_start_decay: 1}\n"
                      "materials: [{name: m, density: 1000, friction: 0.5}]\n";
  char       err[SCENARIO_ERR_MAX];
  Scenario   sc;

  printf("overlap_tolerance and warm_start_decay\n");
  CHECK(scenario_load_string(text, "keys.yaml", &sc, err, sizeof err) == 0, "rejected: %s", err);
  CHECK(sc.overlap_tolerance == 1.0e-4 && sc.warm_start_decay == 1 && sc.max_iterations == 50, "values %g %g %d",
        sc.overlap_tolerance, sc.warm_start_decay, sc.max_iterations);
  scenario_free(&sc);
}

/* The packed solvers' inertia bound (ccp/packed_inertia.h): a box of half extents a, a, c has
 * principal moments (a^2 + c^2) / (2 a^2) apart (m (b^2 + c^2) / 12 with full lengths), so with
 * a = 0.001 m: c = 0.43 m is 92450 apart, under the bound 96867; c = 0.45 m 101250, over it. */
static void test_packed_inertia(void)
{
  char     err[SCENARIO_ERR_MAX];
  PetscInt n;
#define NEEDLE(c) \
  "bodies: [{shape: box, half_extents: [0.001, 0.001, " c "], position: [0.5, 0.5, 0.5], material: m}]\n"

  printf("population: inertia the packed CCP solvers hold accurately\n");
  n = build(HEAD NEEDLE("0.43"), err, sizeof err);
  CHECK(n == 1 && !err[0], "a box with moments 92450 apart rejected: %s", err);
  n = build(HEAD NEEDLE("0.45"), err, sizeof err);
  CHECK(strstr(err, "pop.yaml:4: key 'bodies[0].half_extents': principal moments of inertia") &&
          strstr(err, "are 1.01e+05 apart") && strstr(err, "-ccp_packed false"),
        "a box with moments 101250 apart: %s", err);
  n = build(HEAD
            "bodies: [{shape: sphere, radius: 0.1, position: [0.5, 0.5, 0.5], inertia: [1, 1, 1e-5], material: m}]\n",
            err, sizeof err);
  CHECK(strstr(err, "key 'bodies[0].inertia': principal moments of inertia 1, 1, 1e-05 kg m^2 are 1e+05 apart") &&
          strstr(err, "give moments closer together"),
        "an inertia override 1e5 apart: %s", err);
  /* the reference loops and the penalty model take it */
  PetscCallAbort(PETSC_COMM_SELF, PetscOptionsSetValue(NULL, "-ccp_packed", "false"));
  n = build(HEAD NEEDLE("0.45"), err, sizeof err);
  PetscCallAbort(PETSC_COMM_SELF, PetscOptionsClearValue(NULL, "-ccp_packed"));
  CHECK(n == 1 && !err[0], "-ccp_packed false: the box with moments 101250 apart rejected: %s", err);
  n = build("domain: {min: [0, 0, 0], max: [1, 1, 1]}\ntime: {step: 0.0001, end: 1}\ncontact: {model: penalty, normal: "
            "hooke, normal_stiffness: 1.0e5}\n"
            "materials: [{name: m, density: 1000, friction: 0.5, young_modulus: 1.0e7, poisson_ratio: 0.3, "
            "restitution: 0.5}]\n" NEEDLE("0.45"),
            err, sizeof err);
  CHECK(n == 1 && !err[0], "the penalty model (inertia in double) rejected the box with moments 101250 apart: %s", err);
#undef NEEDLE
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  test_guide_values();
  test_block_style_and_defaults();
  test_guide_population();
  test_population_cases();
  test_packed_inertia();
  test_messages();
  test_robustness_keys();
  printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
