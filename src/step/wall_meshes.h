/* The triangles of a scenario's mesh walls (walls of type mesh), loaded once and replicated on
 * every rank, as plane and box walls are: each STL file read (io/stl.h) by rank 0 of the
 * communicator and broadcast, scaled, and built into a collision mesh (collision/trimesh.h) in
 * the mesh's own frame; the wall's position and orientation place it (Wall.center, Wall.quat), so
 * a moving mesh changes only those. */
#ifndef CCPDEM_STEP_WALL_MESHES_H
#define CCPDEM_STEP_WALL_MESHES_H
#include "scenario/scenario.h"
#include "collision/trimesh.h"

typedef struct {
  int       n;    /* sc->n_walls at the load */
  TriMesh **mesh; /* per wall: its mesh, or NULL (not a mesh wall) */
  size_t    bytes;
} WallMeshes;

/* Loads every mesh wall of sc whose mesh is NULL and points sc->walls[k].mesh at it (owned by
 * *wm; WallMeshesDestroy frees them). Collective on comm. Bad input (an STL file that cannot be
 * read or is malformed, a triangle of zero area, a mesh entirely outside the domain, a motion that
 * carries the middle of the mesh's bounding box out of the domain before time.end): err set to
 * one line (SCENARIO:LINE: key 'walls[k]...': what is wrong; what to change), the same on every
 * rank, and nothing loaded. */
PetscErrorCode WallMeshesLoad(MPI_Comm comm, Scenario *sc, WallMeshes *wm, char *err, size_t errlen);
/* Frees the meshes (the walls that point at them must not be used after). */
PetscErrorCode WallMeshesDestroy(WallMeshes *wm);
#endif
