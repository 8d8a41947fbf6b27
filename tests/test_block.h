/* The 512-sphere block of the distributed tests: an 8 x 8 x 8 lattice of touching spheres (r = 2 cm)
 * centred on the origin, moving at (0.3, -0.2, 0.1) m/s in a box of five walls that touch it, solved
 * by APGD to 1e-8 m/s. Every process grid's cuts pass through contact points, along faces, edges
 * and corners. */
#ifndef CCPDEM_TEST_BLOCK_H
#define CCPDEM_TEST_BLOCK_H
static const char test_block_512[] =
  "domain: {min: [-0.2, -0.2, -0.2], max: [0.2, 0.2, 0.2]}\n"
  "gravity: [0, 0, -9.81]\n"
  "time: {step: 0.005, end: 1.0}\n"
  "contact: {model: ccp, envelope: 0.002, max_recovery_speed: 0.5}\n"
  "solver: {type: apgd, max_iterations: 20000, tolerance: 1.0e-8}\n"
  "materials:\n"
  "  - {name: m, density: 2000, friction: 0.5, rolling_friction: 0.001, spinning_friction: 0.001}\n"
  "walls:\n"
  "  - {type: plane, point: [0, 0, -0.16], normal: [0, 0, 1], material: m}\n"
  "  - {type: plane, point: [-0.16, 0, 0], normal: [1, 0, 0], material: m}\n"
  "  - {type: plane, point: [0.16, 0, 0], normal: [-1, 0, 0], material: m}\n"
  "  - {type: plane, point: [0, -0.16, 0], normal: [0, 1, 0], material: m}\n"
  "  - {type: plane, point: [0, 0.16, 0], normal: [0, -1, 0], material: m}\n"
  "fills:\n"
  "  - {type: lattice, region: {min: [-0.16, -0.16, -0.16], max: [0.16, 0.16, 0.16]}, radius: 0.02, spacing: 0.04, "
  "material: m, velocity: [0.3, -0.2, 0.1]}\n";
#endif
