/* Private: the memory of a CCP solver's solves: the packed layout, the reference loops' vectors and
 * arrays, and the buffer of the output velocities. The solver object (ccp/solver.c) owns one and hands
 * it to its methods (ccp/method.h); every solve refills what it uses. Nothing here is collective. */
#ifndef CCPDEM_CCP_WORKSPACE_H
#define CCPDEM_CCP_WORKSPACE_H
#include "ccp/pack.h"

typedef struct {
  CCPPacked pk; /* the packed layout, rebuilt by each solve (memory kept unless released) */
  /* the reference loops' workspace, grown on demand */
  size_t           ngamma_cap, nvel_cap;
  double          *work_g[6]; /* gamma-sized vectors (CCPWorkspaceEnsure) */
  double          *work_v[3]; /* velocity-sized vectors (CCPWorkspaceEnsure) */
  size_t           nbody_cap;
  double          *ref_body[3]; /* solver bodies filled from a body source: inverse mass, inertia, free velocity */
  size_t           nterms_cap;
  CCPContactTerms *ref_terms; /* contact terms, eta included (CCPWorkspaceReferenceProblem) */
  double          *vel_out;   /* the velocities of a problem without its own, when the pool does not outlive the
                                 solve (CCPWorkspaceOutputVelocity) */
  double apgd_L; /* APGD's Lipschitz estimate at the end of the last solve (-ccp_apgd_lipschitz_keep); 0: none yet */
} CCPWorkspace;

/* w's gamma-sized and velocity-sized vectors (work_g, work_v) hold at least P's sizes; contents undefined. */
PetscErrorCode CCPWorkspaceEnsure(CCPWorkspace *w, const CCPProblem *P);
/* The reference loops read the bodies and the contact terms from arrays: *R is P with its own
 * bodies, or, for a body source, with w's arrays filled from it; and with w's terms, filled
 * from P's, every contact's eta from the bodies (the packed layout computes the terms and eta
 * per contact into its blocks instead: CCPPackedBuild). R's arrays live until w's next use. */
PetscErrorCode CCPWorkspaceReferenceProblem(CCPWorkspace *w, const CCPProblem *P, CCPProblem *R);
/* P->vel NULL (ccp/problem.h): P->vel <- a buffer for nbodies velocities: slot
 * SCRATCH_SOLVE_VELOCITIES of the pool (resident pages, no new ones; call it once the solve's pool is
 * dead), or, with own_buffer (the pool is emptied at the end of the solve), w's own, which outlives it. */
PetscErrorCode CCPWorkspaceOutputVelocity(CCPWorkspace *w, PetscBool own_buffer, CCPProblem *P);
/* Give back the reference loops' arrays and the packed layout (-ccp_release_layout); the output
 * velocities stay. Kept between solves, they sit beside the next step's collision detection (its
 * staging and the new contacts), which then sets the peak memory (docs/design.md "Memory per body"); released,
 * every solve faults fresh pages for them (measured about 140 ns per contact per solve). */
PetscErrorCode CCPWorkspaceRelease(CCPWorkspace *w);
/* Free all of w. */
PetscErrorCode CCPWorkspaceDestroy(CCPWorkspace *w);
#endif
