/* -fclib_dump STEP[,STEP...] [-fclib_dir DIR]: the chosen steps' CCPs written as FCLIB global
 * problems (io/fclib.h), DIR/fclib-NNNNNN.hdf5 (NNNNNN = the step, numbered as the time series:
 * the first step's solve is step 1), with the run's solve as the file's solution and the solve's
 * warm start as its first guess. Used by the CCP model (step/model_ccp.c) around its solve.
 *
 * The problem (GUIDE "Time step", ccp/problem.h): every body (owned on some rank) is 6 degrees of
 * freedom in body-id order, linear then angular velocity, both in the world frame; M is block
 * diagonal (mass times the identity, the world inertia R J R^T); f = M v_free; each contact is 3
 * columns of H (normal, then the two tangents of its frame), its bodies' rows of D (B: e_k and
 * rb x e_k; A: the negatives with ra), contacts in key order (ids of A and B, point index); w = the
 * stabilization bn on the normal row plus what a wall's prescribed velocity adds to the relative
 * velocity (all three rows); mu the pair's friction. The solution: r = the impulses gamma, v the
 * solved velocities, u = H^T v + w.
 *
 * FCLIB's global problem holds no compliance, cohesion, yield force, bilateral row boxes or
 * torque rows, so a scenario with compliant, cohesive or plastic materials, joints, or rolling or
 * spinning friction (6-dof contacts) is refused, not dumped in part: a part would be another
 * problem, whose solution is not the run's.
 *
 * On several ranks rank 0 gathers every rank's owned bodies and contacts and writes one file: the
 * same problem as a one-rank run of the same state (rows by body id and contact key), so a
 * problem can be taken from a distributed run without rerunning it on one rank. The gather is
 * collective and holds the whole problem on rank 0 (a few hundred bytes per body and contact). */
#ifndef CCPDEM_STEP_FCLIB_DUMP_H
#define CCPDEM_STEP_FCLIB_DUMP_H
#include "step/simulation.h"
#include "ccp/pairs.h"

typedef struct _p_FclibDump *FclibDump;

/* Collective. Reads -fclib_dump and -fclib_dir; *d NULL when no step is asked for. A step below 1,
 * or a scenario whose contacts FCLIB cannot hold (pairs: the material pair table of the scenario's
 * n materials, ContactPairTableCreate), is a bad option: an error of class PETSC_ERR_ARG_WRONG or
 * PETSC_ERR_ARG_OUTOFRANGE with one line saying what to change (the run reports it as bad input). */
PetscErrorCode FclibDumpCreate(Simulation sim, const PairParams *pairs, FclibDump *d);
PetscErrorCode FclibDumpDestroy(FclibDump *d);
/* Not collective. Before the step's solve of P (d may be NULL): keeps P's warm start when the step
 * is dumped. */
PetscErrorCode FclibDumpBeforeSolve(FclibDump d, Simulation sim, const CCPProblem *P);
/* Collective. After the solve (P's gamma and vel the solution, stats its figures; d may be NULL):
 * writes the step's problem when it is dumped. */
PetscErrorCode FclibDumpAfterSolve(FclibDump d, Simulation sim, const CCPProblem *P, const CCPSolveStats *stats);
#endif
