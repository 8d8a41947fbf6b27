/* The contact model behind the time step (private to src/step/): how a step's contacts become the
 * bodies' new velocities. SimulationStep (step/step.c) calls, in this order,
 *   detect   the step's contacts (and joint blocks) among the owned bodies and ghosts, with what
 *            the model remembers from the last step matched to them;
 *   respond  the model's answer: the CCP's impulses and velocities (one solve, collective when the
 *            solve is coupled over ranks), or the penalty model's loads per body (summed on the
 *            owners);
 *   advance  the owned bodies (and walls) moved by the step (bodies/integrator.h), and what the
 *            next step needs remembered (the simulation's contact memory).
 * Two implementations: ContactModelCCP (step/model_ccp.c) and ContactModelPenalty
 * (step/model_penalty.c). Each keeps its own state in the simulation's model_state. */
#ifndef CCPDEM_STEP_CONTACT_MODEL_H
#define CCPDEM_STEP_CONTACT_MODEL_H
#include "step/simulation.h"
#include "ccp/solver.h"

/* What one step's phases count, for its statistics. */
typedef struct {
  PetscInt      nb;           /* bodies of the step: owned, then ghosts */
  PetscInt      matched;      /* contacts that found their record of the last step */
  PetscInt64    bytes;        /* bytes this rank sent */
  double        comm;         /* this rank's seconds in communication */
  CCPSolveStats solve;        /* the solve's figures (a model without a solve: converged, no iterations) */
  PetscInt      nonfinite;    /* owned bodies set aside with a non-finite state (StepSetAsideNonFinite) */
  int64_t       nonfinite_id; /* the lowest id among them (when nonfinite > 0) */
} StepWork;

typedef struct {
  const char *name;
  size_t      state_size;      /* bytes of the model's state (the simulation allocates it zeroed: model_state) */
  PetscBool   impulses;        /* the contact set carries impulses (else loads, no gamma: ContactSet.no_impulses) */
  PetscInt    record_width;    /* doubles remembered per contact between steps (ImpulseMemory.width) */
  PetscBool   list_by_default; /* detection from a neighbour list with skin = envelope unless -neighbour_skin */
  PetscBool   ghosts_persist;  /* the ghosts may be kept and updated in place between builds (placement.c) */
  PetscBool   coupled_solve;   /* the solve reads the ghost maps' copy lists (the velocity coupling) */
  /* Hooks after `destroy` may be NULL: nothing to do (local_maximum NULL: -infinity). */
  /* Set up the model's state (zeroed before; options read). Collective. */
  PetscErrorCode (*create)(Simulation sim);
  /* After the placement is set up on several ranks: what the model needs of it. Bad input: err set. */
  PetscErrorCode (*distribute)(Simulation sim, char *err, size_t errlen);
  /* Free what the state holds (not the state itself), also after a create that failed half-way. */
  PetscErrorCode (*destroy)(Simulation sim);
  PetscErrorCode (*detect)(Simulation sim, StepWork *w);
  PetscErrorCode (*respond)(Simulation sim, StepWork *w);
  PetscErrorCode (*advance)(Simulation sim, StepWork *w);
  /* Between respond and advance: contact i's force F on B (N) and torque T on B about the contact
   * point (N m), world frame, as the response gave them (the CCP's impulses over the time step).
   * The penalty model keeps its contacts' loads on a step with sim->loads.wanted. Not collective. */
  void (*contact_load)(Simulation sim, PetscInt i, double F[3], double T[3]);
  /* The owned bodies were added, removed or reordered since advance: what it prepared by index is stale. */
  void (*rearranged)(Simulation sim);
  /* A value of this rank maximized over ranks with the step's statistics, and what the model does
   * with the maximum (collective: every rank gets the same). */
  double (*local_maximum)(Simulation sim);
  PetscErrorCode (*reduced)(Simulation sim, double maximum);
} ContactModelOps;

extern const ContactModelOps ContactModelCCP, ContactModelPenalty;
#endif
