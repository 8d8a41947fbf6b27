/* The triangles of a scenario's mesh walls (walls of type mesh), loaded once and replicated on
 * every rank, as plane and box walls are: each STL file read (io/stl.h) by rank 0 of the
 * communicator and broadcast, scaled, and built into a collision mesh (collision/trimesh.h) in
 * the mesh's own frame; the wall's position and orientation place it (Wall.center, Wall.quat), so
 * a moving mesh changes only those.
 *
 * On several ranks each rank's detection reads only its part of each fixed mesh (WallMeshesFit): the
 * triangles whose bounds reach its subdomain grown by the ghost halo, cut again whenever the cuts or
 * the halo change; every rank keeps the whole mesh's vertices and triangles (stripped, collision/trimesh.h)
 * to draw it and to cut parts from without communication. A moving mesh stays whole on every rank: a
 * turning one sweeps each triangle past every rank. */
#ifndef CCPDEM_STEP_WALL_MESHES_H
#define CCPDEM_STEP_WALL_MESHES_H
#include "scenario/scenario.h"
#include "collision/trimesh.h"
#include "decomp/domain.h"

typedef struct {
  int       n;    /* sc->n_walls at the load */
  TriMesh **mesh; /* per wall: its whole mesh, or NULL (not a mesh wall); stripped once parts are cut */
  TriMesh **part; /* per wall: this rank's part of a fixed mesh (WallMeshesFit), or NULL (one rank, a moving mesh) */
  double   *fit;  /* the decomposition the parts were cut for (grid, cuts, halo), nfit values; NULL: none */
  PetscInt  nfit;
  size_t    bytes; /* what the meshes and parts hold on this rank */
} WallMeshes;

/* Loads every mesh wall of sc whose mesh is NULL and points sc->walls[k].mesh at it (owned by
 * *wm; WallMeshesDestroy frees them). Collective on comm. Bad input (an STL file that cannot be
 * read or is malformed, a triangle of zero area, a mesh entirely outside the domain, a motion that
 * carries the middle of the mesh's bounding box out of the domain before time.end): err set to
 * one line (SCENARIO:LINE: key 'walls[k]...': what is wrong; what to change), the same on every
 * rank, and nothing loaded. */
PetscErrorCode WallMeshesLoad(MPI_Comm comm, Scenario *sc, WallMeshes *wm, char *err, size_t errlen);
/* This rank's part of every fixed mesh wall for decomposition d (its subdomain box and halo), where the grid, cuts
 * or halo differ from those the parts were cut for: walls[k].mesh pointed at the part (the detection's walls;
 * the scenario's keep the whole), and the whole meshes stripped at the first cut (so the population's placement
 * checks, which query them, must come before). Needs every owned body's centre within halo / 2 of the subdomain
 * (the owners' lag while ghosts are kept: at most skin / 2) and the halo at least 2 r_max + envelope (+ skin):
 * decomp/ghosts.h. Collective on d's communicator (the decision reads replicated data only; a failure to cut is
 * agreed, an error on every rank). */
PetscErrorCode WallMeshesFit(WallMeshes *wm, Domain d, Wall *walls);
/* Frees the meshes (the walls that point at them must not be used after). */
PetscErrorCode WallMeshesDestroy(WallMeshes *wm);
#endif
