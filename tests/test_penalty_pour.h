/* The distributed penalty tests' pour (test_penalty_distributed.c, test_penalty_ghost_update.c): 200
 * spheres (d = 20 mm) thrown sideways and down onto a floor across the process grid's cuts, Hertz
 * contacts with slide, roll and spin history (tests/restart/penalty_pour.yaml's material). */
#ifndef CCPDEM_TEST_PENALTY_POUR_H
#define CCPDEM_TEST_PENALTY_POUR_H

/* The material, as a scenario's materials: block. */
#define PENALTY_POUR_MATERIALS \
  "materials:\n" \
  "  - {name: grit, density: 2000, friction: 0.5, kinetic_friction: 0.4, young_modulus: 2.0e6, poisson_ratio: 0.3,\n" \
  "     restitution: 0.5, rolling_resistance: 0.1, spinning_resistance: 0.05}\n"

#define PENALTY_POUR_SCENARIO \
  "domain: {min: [-0.2, -0.2, -0.05], max: [0.2, 0.2, 0.5]}\n" \
  "gravity: [0, 0, -9.81]\n" \
  "time: {step: 1.0e-4, end: 1}\n" \
  "contact: {model: penalty, envelope: 0.001}\n" PENALTY_POUR_MATERIALS "walls:\n" \
  "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: grit}\n" \
  "fills:\n" \
  "  - {type: random, region: {min: [-0.1, -0.1, 0.0], max: [0.1, 0.1, 0.1]}, radius: 0.01, count: 200, seed: 3,\n" \
  "     velocity: [1.5, 1.0, -3], material: grit}\n"
#endif
