/* Scenarios of the penalty model's validation tests (paper sec. 4): one body on the plane z = 0 with
 * gravity tilted by alpha, g = 9.81 (-sin a, 0, -cos a), so "downhill" is -x. The paper's step
 * h = 1e-4 s and its slide stiffness K_E = 1e5 N/m; mu_s = 0.25, mu_k = 0.2 (sec. 4.1, 4.3).
 * The body starts at its static overlap under the normal load (Hertz: delta0 = (N / k_Hz)^(2/3),
 * k_Hz = 4/3 E_eff sqrt(R) with E_eff = E / (2 (1 - nu^2)) for one material on itself), so the
 * normal force is N = m g cos a from the start up to a small damped oscillation. */
#ifndef CCPDEM_TEST_PENALTY_H
#define CCPDEM_TEST_PENALTY_H
#include "test_util.h"

#define PEN_G    9.81
#define PEN_MU_S 0.25
#define PEN_MU_K 0.2
#define PEN_E    1.0e8
#define PEN_NU   0.3

typedef struct {
  double      alpha;        /* incline (rad) */
  double      radius, mass; /* sphere */
  double      inertia;      /* > 0: principal moments all this (kg m^2); else the solid sphere's */
  double      v0[3], w0[3]; /* initial velocity and angular velocity (world) */
  double      eta_r, eta_psi;
  const char *extra_contact; /* more contact keys, e.g. "rolling: legacy, " */
  double      h;
} PenSphere;

/* The Hertz overlap under normal load N of the test material on itself. */
static inline double PenStaticOverlap(double R, double N)
{
  const double E_eff = PEN_E / (2 * (1 - PEN_NU * PEN_NU)), k = 4.0 / 3.0 * E_eff * sqrt(R);
  return pow(N / k, 2.0 / 3.0);
}

static inline PetscErrorCode PenSphereCreate(const PenSphere *p, Simulation *sim)
{
  char         yaml[4096], inertia[128] = "";
  const double N = p->mass * PEN_G * cos(p->alpha);

  PetscFunctionBegin;
  if (p->inertia > 0)
    snprintf(inertia, sizeof(inertia), ", inertia: [%.17g, %.17g, %.17g]", p->inertia, p->inertia, p->inertia);
  snprintf(yaml, sizeof(yaml),
           "domain: {min: [-50, -50, -1], max: [50, 50, 5]}\n"
           "gravity: [%.17g, 0, %.17g]\n"
           "time: {step: %.17g, end: 100}\n"
           "contact: {model: penalty, %senvelope: %.17g}\n"
           "materials:\n"
           "  - {name: m, density: 1000, friction: %g, kinetic_friction: %g, young_modulus: %g, poisson_ratio: %g, "
           "restitution: 0.2,\n"
           "     tangential_stiffness: 1.0e5, rolling_resistance: %.17g, spinning_resistance: %.17g}\n"
           "walls:\n"
           "  - {type: plane, point: [0, 0, 0], normal: [0, 0, 1], material: m}\n"
           "bodies:\n"
           "  - {shape: sphere, radius: %.17g, position: [0, 0, %.17g], velocity: [%.17g, %.17g, %.17g], "
           "angular_velocity: [%.17g, %.17g, %.17g],\n"
           "     material: m, mass: %.17g%s}\n",
           -PEN_G * sin(p->alpha), -PEN_G * cos(p->alpha), p->h, p->extra_contact ? p->extra_contact : "",
           0.1 * p->radius, PEN_MU_S, PEN_MU_K, PEN_E, PEN_NU, p->eta_r, p->eta_psi, p->radius,
           p->radius - PenStaticOverlap(p->radius, N), p->v0[0], p->v0[1], p->v0[2], p->w0[0], p->w0[1], p->w0[2],
           p->mass, inertia);
  PetscCall(TestSimulationFromText(yaml, sim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The one body's world angular velocity (the store keeps it in the body frame). */
static inline void PenOmegaWorld(Simulation sim, double w[3])
{
  quat_rotate(w, SimulationBodies(sim)->quat, SimulationBodies(sim)->vel + 3);
}
#endif
