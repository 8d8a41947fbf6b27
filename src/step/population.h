/* The initial bodies of a scenario: explicit bodies, then fills in file order, with global ids
 * 0, 1, 2, ... in that order (deterministic, independent of rank count), and the checks that
 * they make a sane start: inside the domain, not penetrating walls, overlaps no deeper than 1% of
 * the smaller radius. */
#ifndef CCPDEM_STEP_POPULATION_H
#define CCPDEM_STEP_POPULATION_H
#include "scenario/scenario.h"
#include "bodies/body_store.h"

/* Convert one spec to a record (mass and inertia from density unless overridden; angular velocity
 * converted from the file's world frame to the body frame). */
void population_record_from_spec(const Scenario *sc, const BodySpec *spec, int64_t id, BodyRecord *rec);
/* Makes b a clump of template `clump` (an index into sc->clumps) whose centre of mass is at c, turned
 * by the next uniformly random orientation of the stream *orient (three draws); b's other fields
 * (velocity, material, ...) are left as they are. */
void population_clump_pose(const Scenario *sc, int clump, const double c[3], uint64_t *orient, BodySpec *b);
/* Makes b an ellipsoid of semi-axes semi (its centre where b's position is), turned by the next
 * uniformly random orientation of *orient (three draws, as population_clump_pose); b's other fields
 * are left as they are. */
void population_ellipsoid_pose(const double semi[3], uint64_t *orient, BodySpec *b);
/* Append all initial bodies of sc to s (which must be empty) and check them (with the solver's
 * options: -ccp_packed). On bad input returns PETSC_SUCCESS with err set (err[0] != 0):
 * FILE:LINE: key '...': what is wrong; what to change. */
PetscErrorCode PopulationBuild(const Scenario *sc, BodyStore *s, char *err, size_t errlen);
#endif
